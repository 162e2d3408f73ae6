"""Equivalence (TOST) and non-inferiority tests of a difference against a margin, read off the
intervals of :mod:`memdiag.engine.inference.intervals` (SPEC §5.6).

One job: given the :class:`~memdiag.engine.inference.intervals.Inference` of differences Δ at the level
1 − 2α (so that its interval is the one the tests read) and a margin m > 0, return each one-sided
p-value. The two one-sided tests (Schuirmann 1987) are

    H₀⁻: Δ ≤ −m  against Δ > −m,     H₀⁺: Δ ≥ m  against Δ < m,

and equivalence is shown at level α when both reject: p_TOST = max(p⁻, p⁺), which is ≤ α exactly
when the (1 − 2α) interval lies inside (−m, m). Non-inferiority ("a is not worse than b by more
than m") is H₀⁻ alone: p = p⁻, ≤ α exactly when the interval's lower end is above −m. The same
design, method and small-cluster rule as every other interval apply (SPEC §4.1):

- t intervals (cluster jackknife, CR2): p⁻ = P(T_ν ≥ (Δ̂ + m)/se), p⁺ = P(T_ν ≥ (m − Δ̂)/se);
- percentile bootstrap: p⁻ = (1 + #{Δ* ≤ −m})/(1 + B), p⁺ = (1 + #{Δ* ≥ m})/(1 + B), the
  replicates' share beyond each margin (the one-sided version of the sign test of SPEC §4.4).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from memdiag.engine.inference.intervals import Inference

__all__ = ["MARGIN_TESTS", "one_sided"]

#: The margin tests :func:`one_sided` serves, and what each reads.
MARGIN_TESTS: tuple[str, ...] = ("equivalence", "noninferiority")


def one_sided(inference: Inference, margin: float) -> tuple[np.ndarray, np.ndarray]:
    """The two one-sided p-values ``(p⁻, p⁺)`` of Δ against −m and +m, per output.

    Parameters
    ----------
    inference
        Differences with their interval method (and, for the percentile bootstrap, their
        replicates: ``keep_distribution=True``), in the unit of ``margin``.
    margin
        m > 0.

    Examples
    --------
    A t interval: Δ̂ = 0.5 with se 1 on 9 df against a margin of 3:

    >>> from memdiag.engine.designs import Design
    >>> inf = Inference(estimate=np.array([0.5]), ci_low=np.array([np.nan]), ci_high=np.array([np.nan]),
    ...                 se=np.array([1.0]), p_value=np.array([np.nan]), tests=("",), method="", kind="jackknife",
    ...                 df=9.0, p_floor=np.array([False]), undefined=np.array([0.0]), mc_se={}, n_resamples=0,
    ...                 design=Design("iid", n=10))
    >>> [round(float(p[0]), 4) for p in one_sided(inf, 3.0)]       # P(T9 ≥ 3.5), P(T9 ≥ 2.5)
    [0.0034, 0.0169]
    """
    if not margin > 0:
        raise ValueError(f"the margin must be positive, got {margin!r}.")
    est = inference.estimate
    if inference.kind == "percentile":
        dist = inference.distribution
        if dist is None:
            raise ValueError("a percentile margin test needs the replicates (keep_distribution=True).")
        defined = (~np.isnan(dist)).sum(axis=0)
        below = (1 + np.sum(dist <= -margin, axis=0)) / (1 + defined)
        above = (1 + np.sum(dist >= margin, axis=0)) / (1 + defined)
        return np.minimum(1.0, below), np.minimum(1.0, above)
    se, df = inference.se, inference.df
    with np.errstate(invalid="ignore", divide="ignore"):
        lower = stats.t.sf((est + margin) / se, df)
        upper = stats.t.sf((margin - est) / se, df)
    return lower, upper
