"""memdiag: what an LLM agent-memory system really adds over plain retrieval.

Turn saved per-query verdicts of memory systems into memory benefit / memory tax flows, official
benchmark scores, paired intervals and tests under the benchmark's resampling design, audits of
published claims, and publication figures. See README.md for a tour and SPEC.md for every formula.
"""

from memdiag.agreement import agreement, missing_verdict_effect
from memdiag.attribution import attribute_change
from memdiag.audit import (audit_claims, check_aggregate, detectable_effect, mcnemar_power, rank_stability,
                           read_claims)
from memdiag.compare import bootstrap, compare, omnibus
from memdiag.errors import SchemeError, VerdictError
from memdiag.evidence import evidence, evidence_length, evidence_tests, path_given_result
from memdiag.flows import flows
from memdiag.schemes import Scheme, get_scheme, known_schemes
from memdiag.scoring import score
from memdiag.significance import adjust, cochrans_q, mcnemar, mcnemar_from_outcomes, pairwise_matrix
from memdiag.sensitivity import sensitivity
from memdiag.simulate import simulate, simulate_meme, simulate_memoryagentbench, simulate_systems_table
from memdiag.verdicts import Panel, align, check, read_verdicts, validate
from memdiag.writes import read_write_log, write_audit

__version__ = "0.1.0"

__all__ = [
    "Panel", "Scheme", "SchemeError", "VerdictError", "__version__", "adjust", "agreement", "align",
    "attribute_change",
    "audit_claims", "bootstrap", "check", "check_aggregate", "cochrans_q", "compare",
    "detectable_effect", "evidence", "evidence_length", "evidence_tests", "flows", "get_scheme",
    "known_schemes", "mcnemar", "mcnemar_from_outcomes", "mcnemar_power", "missing_verdict_effect",
    "omnibus", "pairwise_matrix", "path_given_result", "rank_stability", "read_claims", "read_verdicts",
    "plot", "read_write_log", "score", "sensitivity", "simulate", "simulate_meme", "simulate_memoryagentbench", "simulate_systems_table", "validate", "write_audit",
]


def __getattr__(name: str) -> object:
    """``md.plot`` (the figures, :mod:`memdiag.plots`) is imported on first use: it loads matplotlib."""
    if name == "plot":
        from memdiag import plots

        return plots
    raise AttributeError(f"module 'memdiag' has no attribute '{name}'")
