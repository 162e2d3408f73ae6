"""memdiag: what an LLM agent-memory system really adds over plain retrieval.

Turn saved per-query verdicts of memory systems into memory benefit / memory tax flows, official
benchmark scores, paired intervals and tests under the benchmark's resampling design, audits of
published claims, and publication figures. See README.md for a tour and SPEC.md for every formula.
"""

__version__ = "0.1.0"

from memdiag import plots as plot  # noqa: E402  (md.plot.venn, md.plot.bubble, ...)
from memdiag.agreement import agreement, missing_verdict_effect  # noqa: E402
from memdiag.attribution import attribute_change  # noqa: E402
from memdiag.audit import (  # noqa: E402
    audit_claims, check_aggregate, detectable_effect, mcnemar_power, rank_stability, read_claims,
)
from memdiag.compare import bootstrap, compare, omnibus  # noqa: E402
from memdiag.errors import SchemeError, VerdictError  # noqa: E402
from memdiag.evidence import evidence, evidence_length, evidence_tests, path_given_result  # noqa: E402
from memdiag.flows import flows  # noqa: E402
from memdiag.report import demo, report, report_from_json  # noqa: E402
from memdiag.schemes import Scheme, get_scheme, known_schemes  # noqa: E402
from memdiag.scoring import score  # noqa: E402
from memdiag.sensitivity import sensitivity  # noqa: E402
from memdiag.significance import (  # noqa: E402
    adjust, cochrans_q, mcnemar, mcnemar_from_outcomes, pairwise_matrix,
)
from memdiag.simulate import (  # noqa: E402
    simulate, simulate_meme, simulate_memoryagentbench, simulate_systems_table,
)
from memdiag.verdicts import Panel, align, check, read_verdicts, validate  # noqa: E402
from memdiag.writes import read_write_log, write_audit  # noqa: E402

__all__ = [
    "Panel", "Scheme", "SchemeError", "VerdictError", "__version__", "adjust", "agreement", "align",
    "attribute_change", "audit_claims", "bootstrap", "check", "check_aggregate", "cochrans_q",
    "compare", "demo", "detectable_effect", "evidence", "evidence_length", "evidence_tests", "flows",
    "get_scheme", "known_schemes", "mcnemar", "mcnemar_from_outcomes", "mcnemar_power",
    "missing_verdict_effect", "omnibus", "pairwise_matrix", "path_given_result", "plot",
    "rank_stability", "read_claims", "read_verdicts", "read_write_log", "report", "report_from_json",
    "score", "sensitivity", "simulate", "simulate_meme", "simulate_memoryagentbench",
    "simulate_systems_table", "validate", "write_audit",
]
