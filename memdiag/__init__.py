"""memdiag: what an LLM agent-memory system really adds over plain retrieval.

Turn saved per-query verdicts of memory systems into memory benefit / memory tax flows, official
benchmark scores, paired intervals and tests under the benchmark's resampling design, audits of
published claims, and publication figures. See README.md for a tour and ``docs/spec.md`` for
every definition and formula.

The public names below are imported on first use (PEP 562), so ``import memdiag`` and
``memdiag --help`` do not pay for pandas, SciPy, statsmodels or matplotlib until a function
that needs them is called. Implementation modules have private names (``memdiag._flows``,
``memdiag._compare``, ...) so that no public name is both a module and a function.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from memdiag.errors import SchemeError, VerdictError

__version__ = "0.3.0"

#: Public name -> the private module that defines it.
_WHERE: dict[str, str] = {
    name: module
    for module, names in {
        "memdiag.plots": ("plot",),
        "memdiag._agreement": ("agreement", "missing_verdict_effect"),
        "memdiag._attribution": ("attribute_change",),
        "memdiag._augmentation": ("augmentation",),
        "memdiag._clusters": ("cluster_accuracy",),
        "memdiag._audit": ("audit_claims", "audit_independence", "audit_summaries", "check_aggregate",
                           "design_effect", "granularity", "leaderboard", "mcnemar_bounds", "p_at_floor",
                           "rank_stability", "read_claims", "read_summaries", "summary_power", "survives_family"),
        "memdiag._compare": ("bootstrap", "compare", "omnibus"),
        "memdiag._costs": ("cost_ratios", "costs", "system_costs"),
        "memdiag._critical": ("critical_difference",),
        "memdiag._evidence": ("evidence", "evidence_length", "evidence_tests", "path_given_result"),
        "memdiag._flows": ("flows",),
        "memdiag._fragility": ("fragility",),
        "memdiag._ingestion": ("ingestion", "ingestion_curve", "read_ingestion_log"),
        "memdiag._judge_error": ("calibration_size", "judge_corrected", "ppi", "rogan_gladen"),
        "memdiag._leniency": ("judge_leniency", "length_effect", "leniency_bound", "leniency_breakeven"),
        "memdiag._gold_errors": ("ceiling_flags", "clean_rescore", "gold_ceilings", "read_gold_errors"),
        "memdiag._judge_variance": ("plan_evaluation", "repetition_scores", "variance_components"),
        "memdiag._readers.locomo_audit": ("locomo_questions", "read_locomo_audit"),
        "memdiag._inference": ("adjust", "clustered_mcnemar", "cochrans_q", "design_detectable_effect",
                               "design_power", "detectable_effect", "mcnemar", "mcnemar_from_outcomes",
                               "mcnemar_power"),
        "memdiag._options": ("Options",),
        "memdiag._overview": ("overview", "prepare_settings"),
        "memdiag._pairs": ("pairwise_matrix",),
        "memdiag._power": ("comparison_power",),
        "memdiag._prepare": ("Prepared", "prepare"),
        "memdiag._procedures": ("evidence_procedure",),
        "memdiag._robustness": ("content_filter_sensitivity", "judge_repetition_sensitivity", "missing_verdict_bounds"),
        "memdiag._replay": ("replay",),
        "memdiag._report": ("demo", "report", "report_from_json"),
        "memdiag._schemes": ("Scheme", "get_scheme", "known_schemes"),
        "memdiag._scoring": ("score",),
        "memdiag._settings": ("pool_settings", "setting_differences"),
        "memdiag._sensitivity": ("sensitivity",),
        "memdiag._store_gap": ("store_gap",),
        "memdiag._simulate": ("simulate", "simulate_ingestion_log", "simulate_meme", "simulate_memoryagentbench",
                              "simulate_systems_table"),
        "memdiag._verdicts": ("Panel", "align", "check", "read_verdicts", "validate"),
        "memdiag._writes": ("read_write_log", "write_audit"),
    }.items()
    for name in names
}

__all__ = sorted(["SchemeError", "VerdictError", "__version__", *_WHERE])


#: Public submodules reachable as attributes after ``import memdiag`` (``md.tables.render``).
_SUBMODULES: tuple[str, ...] = ("errors", "plots", "tables")


def __getattr__(name: str) -> object:
    """Import a public name from its module on first use and cache it here."""
    if name in _SUBMODULES:
        value = importlib.import_module(f"memdiag.{name}")
        globals()[name] = value
        return value
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'memdiag' has no attribute {name!r}")
    imported = importlib.import_module(module)
    value = imported if name == "plot" else getattr(imported, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE) | set(_SUBMODULES))


if TYPE_CHECKING:  # pragma: no cover - names for static analysis and IDEs
    from memdiag import plots as plot
    from memdiag._agreement import agreement, missing_verdict_effect
    from memdiag._attribution import attribute_change
    from memdiag._augmentation import augmentation
    from memdiag._audit import (
        audit_claims, audit_independence, audit_summaries, check_aggregate, design_effect, granularity, leaderboard,
        mcnemar_bounds, p_at_floor, rank_stability, read_claims, read_summaries, summary_power, survives_family,
    )
    from memdiag._clusters import cluster_accuracy
    from memdiag._compare import bootstrap, compare, omnibus
    from memdiag._costs import cost_ratios, costs, system_costs
    from memdiag._critical import critical_difference
    from memdiag._evidence import evidence, evidence_length, evidence_tests, path_given_result
    from memdiag._flows import flows
    from memdiag._fragility import fragility
    from memdiag._ingestion import ingestion, ingestion_curve, read_ingestion_log
    from memdiag._judge_error import calibration_size, judge_corrected, ppi, rogan_gladen
    from memdiag._leniency import judge_leniency, leniency_bound, leniency_breakeven, length_effect
    from memdiag._gold_errors import ceiling_flags, clean_rescore, gold_ceilings, read_gold_errors
    from memdiag._judge_variance import plan_evaluation, repetition_scores, variance_components
    from memdiag._readers.locomo_audit import locomo_questions, read_locomo_audit
    from memdiag._inference import (
        adjust, clustered_mcnemar, cochrans_q, design_detectable_effect, design_power, detectable_effect, mcnemar,
        mcnemar_from_outcomes, mcnemar_power,
    )
    from memdiag._options import Options
    from memdiag._overview import overview, prepare_settings
    from memdiag._pairs import pairwise_matrix
    from memdiag._power import comparison_power
    from memdiag._prepare import Prepared, prepare
    from memdiag._procedures import evidence_procedure
    from memdiag._robustness import content_filter_sensitivity, judge_repetition_sensitivity, missing_verdict_bounds
    from memdiag._replay import replay
    from memdiag._report import demo, report, report_from_json
    from memdiag._schemes import Scheme, get_scheme, known_schemes
    from memdiag._scoring import score
    from memdiag._settings import pool_settings, setting_differences
    from memdiag._sensitivity import sensitivity
    from memdiag._store_gap import store_gap
    from memdiag._simulate import (
        simulate, simulate_ingestion_log, simulate_meme, simulate_memoryagentbench, simulate_systems_table,
    )
    from memdiag._verdicts import Panel, align, check, read_verdicts, validate
    from memdiag._writes import read_write_log, write_audit
