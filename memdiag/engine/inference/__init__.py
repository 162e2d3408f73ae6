"""Tests and multiplicity: exact McNemar and Cochran's Q, clustered McNemar and the small-cluster
variance formulas, power, family adjustment, and the rule choosing intervals and tests (SPEC §4.1, §5)."""

from memdiag.engine.inference.cluster import (
    ClusteredMcNemarResult,
    bell_mccaffrey_df,
    clustered_mcnemar,
    cr1_variance,
    cr2_variance,
    jackknife_variance,
    t_interval,
)
from memdiag.engine.inference.exact import (
    CochransQResult,
    McNemarResult,
    cochrans_q,
    mcnemar,
)
from memdiag.engine.inference.multiplicity import ADJUST_METHODS, adjust
from memdiag.engine.inference.power import (
    design_detectable_effect,
    design_power,
    detectable_effect,
    mcnemar_power,
)

__all__ = ["ADJUST_METHODS", "ClusteredMcNemarResult", "CochransQResult", "McNemarResult", "adjust",
           "bell_mccaffrey_df", "clustered_mcnemar", "cochrans_q", "cr1_variance", "cr2_variance",
           "design_detectable_effect", "design_power", "detectable_effect", "jackknife_variance", "mcnemar",
           "mcnemar_power", "t_interval"]
