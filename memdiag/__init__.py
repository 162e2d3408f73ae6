"""memdiag: what an LLM agent-memory system really adds over plain retrieval.

Turn saved per-query verdicts of memory systems into memory benefit / memory tax flows, official
benchmark scores, paired intervals and tests under the benchmark's resampling design, audits of
published claims, and publication figures. See README.md for a tour and ``docs/spec.md`` for
every definition and formula.

The public names below are imported on first use (PEP 562), so ``import memdiag`` and
``memdiag --help`` do not pay for pandas, SciPy, statsmodels or matplotlib until a function
that needs them is called. Implementation modules have private names (``memdiag.analyses.flows``,
``memdiag.analyses.compare``, ...) so that no public name is both a module and a function.
"""

import importlib as _importlib
from typing import TYPE_CHECKING

from memdiag.errors import SchemeError, VerdictError

__version__ = "0.4.0"

#: Public name -> the private module that defines it.
_WHERE: dict[str, str] = {
    name: module
    for module, names in {
        "memdiag.views": ("plot",),
        "memdiag.measurement.agreement": ("agreement", "missing_verdict_effect"),
        "memdiag.analyses.attribution": ("attribute_change",),
        "memdiag.analyses.augmentation": ("augmentation",),
        "memdiag.analyses.clusters": ("cluster_accuracy",),
        "memdiag.audit": ("audit_claims", "audit_independence", "audit_summaries", "check_aggregate",
                           "design_effect", "leaderboard", "rank_stability"),
        "memdiag.analyses.compare": ("bootstrap", "compare", "omnibus"),
        "memdiag.analyses.costs": ("cost_ratios", "costs", "system_costs"),
        "memdiag.synthesis.critical": ("critical_difference",),
        "memdiag.analyses.evidence": ("evidence", "evidence_length", "evidence_tests", "path_given_result"),
        "memdiag.analyses.flows": ("flows",),
        "memdiag.synthesis.fragility": ("fragility",),
        "memdiag.analyses.ingestion": ("ingestion", "ingestion_curve"),
        "memdiag.measurement.judge_error": ("calibration_size", "judge_corrected", "ppi", "rogan_gladen"),
        "memdiag.measurement.leniency": ("judge_leniency", "length_effect", "leniency_bound", "leniency_breakeven"),
        "memdiag.measurement.gold_errors": ("ceiling_flags", "clean_rescore", "gold_ceilings"),
        "memdiag.measurement.judge_variance": ("plan_evaluation", "repetition_scores", "variance_components"),
        "memdiag.io.canonical": ("check",),
        "memdiag.io.claims": ("read_claims",),
        "memdiag.io.gold_errors": ("read_gold_errors",),
        "memdiag.io.ingestion_log": ("read_ingestion_log",),
        "memdiag.io.readers.locomo_audit": ("locomo_questions",),
        "memdiag.io.summaries": ("read_summaries",),
        "memdiag.io.verdicts": ("read_verdicts",),
        "memdiag.io.write_log": ("read_write_log",),
        "memdiag.engine.inference": ("adjust", "clustered_mcnemar", "cochrans_q", "detectable_effect", "mcnemar",
                                     "mcnemar_power"),
        "memdiag.engine.options": ("Options",),
        "memdiag.analyses.overview": ("overview", "prepare_settings"),
        "memdiag.engine.pairs": ("pairwise_matrix",),
        "memdiag.analyses.power": ("comparison_power",),
        "memdiag.panel.prepare": ("Prepared", "prepare"),
        "memdiag.analyses.procedures": ("evidence_procedure",),
        "memdiag.analyses.robustness": ("content_filter_sensitivity", "judge_repetition_sensitivity", "missing_verdict_bounds"),
        "memdiag.analyses.replay": ("replay",),
        "memdiag.reporting": ("demo", "report", "report_from_json"),
        "memdiag.panel.schemes": ("Scheme", "get_scheme", "known_schemes"),
        "memdiag.analyses.scoring": ("score",),
        "memdiag.synthesis.settings": ("pool_settings", "setting_differences"),
        "memdiag.analyses.sensitivity": ("sensitivity",),
        "memdiag.analyses.store_gap": ("store_gap",),
        "memdiag.synthetic": ("simulate", "simulate_ingestion_log", "simulate_meme", "simulate_memoryagentbench",
                              "simulate_systems_table"),
        "memdiag.panel.align": ("Panel", "align"),
        "memdiag.panel.validate": ("validate",),
        "memdiag.analyses.writes": ("write_audit",),
    }.items()
    for name in names
}

__all__ = sorted(["SchemeError", "VerdictError", "__version__", *_WHERE])


#: Public submodules reachable as attributes after ``import memdiag`` (``md.tables.render``).
_SUBMODULES: tuple[str, ...] = ("errors", "plots", "tables")


def __getattr__(name: str) -> object:
    """Import a public name from its module on first use and cache it here."""
    if name in _SUBMODULES:
        value = _importlib.import_module(f"memdiag.{name}")
        globals()[name] = value
        return value
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'memdiag' has no attribute {name!r}")
    imported = _importlib.import_module(module)
    value = imported if name == "plot" else getattr(imported, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The documented names only: the public API and the public submodules (not the helpers of
    this module, nor the subpackages that implement the API)."""
    return sorted({*__all__, *_SUBMODULES})


if TYPE_CHECKING:  # pragma: no cover - names for static analysis and IDEs
    from memdiag import views as plot
    from memdiag.analyses.attribution import attribute_change
    from memdiag.analyses.augmentation import augmentation
    from memdiag.analyses.clusters import cluster_accuracy
    from memdiag.analyses.compare import bootstrap, compare, omnibus
    from memdiag.analyses.costs import cost_ratios, costs, system_costs
    from memdiag.analyses.evidence import (
        evidence,
        evidence_length,
        evidence_tests,
        path_given_result,
    )
    from memdiag.analyses.flows import flows
    from memdiag.analyses.ingestion import ingestion, ingestion_curve
    from memdiag.analyses.overview import overview, prepare_settings
    from memdiag.analyses.power import comparison_power
    from memdiag.analyses.procedures import evidence_procedure
    from memdiag.analyses.replay import replay
    from memdiag.analyses.robustness import (
        content_filter_sensitivity,
        judge_repetition_sensitivity,
        missing_verdict_bounds,
    )
    from memdiag.analyses.scoring import score
    from memdiag.analyses.sensitivity import sensitivity
    from memdiag.analyses.store_gap import store_gap
    from memdiag.analyses.writes import write_audit
    from memdiag.audit import (
        audit_claims,
        audit_independence,
        audit_summaries,
        check_aggregate,
        design_effect,
        leaderboard,
        rank_stability,
    )
    from memdiag.engine.inference import (
        adjust,
        clustered_mcnemar,
        cochrans_q,
        detectable_effect,
        mcnemar,
        mcnemar_power,
    )
    from memdiag.engine.options import Options
    from memdiag.engine.pairs import pairwise_matrix
    from memdiag.io.canonical import check
    from memdiag.io.claims import read_claims
    from memdiag.io.gold_errors import read_gold_errors
    from memdiag.io.ingestion_log import read_ingestion_log
    from memdiag.io.readers.locomo_audit import locomo_questions
    from memdiag.io.summaries import read_summaries
    from memdiag.io.verdicts import read_verdicts
    from memdiag.io.write_log import read_write_log
    from memdiag.measurement.agreement import agreement, missing_verdict_effect
    from memdiag.measurement.gold_errors import (
        ceiling_flags,
        clean_rescore,
        gold_ceilings,
    )
    from memdiag.measurement.judge_error import (
        calibration_size,
        judge_corrected,
        ppi,
        rogan_gladen,
    )
    from memdiag.measurement.judge_variance import (
        plan_evaluation,
        repetition_scores,
        variance_components,
    )
    from memdiag.measurement.leniency import (
        judge_leniency,
        length_effect,
        leniency_bound,
        leniency_breakeven,
    )
    from memdiag.panel.align import Panel, align
    from memdiag.panel.prepare import Prepared, prepare
    from memdiag.panel.schemes import Scheme, get_scheme, known_schemes
    from memdiag.panel.validate import validate
    from memdiag.reporting import demo, report, report_from_json
    from memdiag.synthesis.critical import critical_difference
    from memdiag.synthesis.fragility import fragility
    from memdiag.synthesis.settings import pool_settings, setting_differences
    from memdiag.synthetic import (
        simulate,
        simulate_ingestion_log,
        simulate_meme,
        simulate_memoryagentbench,
        simulate_systems_table,
    )

del TYPE_CHECKING
