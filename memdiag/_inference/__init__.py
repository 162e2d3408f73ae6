"""Tests and multiplicity: exact McNemar and Cochran's Q, their power, family adjustment (SPEC §5)."""

from memdiag._inference.exact import CochransQResult, McNemarResult, cochrans_q, mcnemar, mcnemar_from_outcomes
from memdiag._inference.multiplicity import ADJUST_METHODS, adjust
from memdiag._inference.power import detectable_effect, mcnemar_power

__all__ = ["ADJUST_METHODS", "CochransQResult", "McNemarResult", "adjust", "cochrans_q", "detectable_effect",
           "mcnemar", "mcnemar_from_outcomes", "mcnemar_power"]
