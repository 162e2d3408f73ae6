"""Tests and multiplicity: exact McNemar and Cochran's Q, family adjustment (SPEC §5)."""

from memdiag._inference.exact import CochransQResult, McNemarResult, cochrans_q, mcnemar, mcnemar_from_outcomes
from memdiag._inference.multiplicity import ADJUST_METHODS, adjust

__all__ = ["ADJUST_METHODS", "CochransQResult", "McNemarResult", "adjust", "cochrans_q", "mcnemar",
           "mcnemar_from_outcomes"]
