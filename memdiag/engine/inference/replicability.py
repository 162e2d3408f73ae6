"""In how many of N settings does a system beat the reference: partial-conjunction p-values
(Benjamini & Heller 2008) and the count a paper may claim (Dror et al. 2017) (SPEC §10.2).

One job: a vector of N per-setting p-values in, the partial-conjunction p-values and the count out.
Written here because neither scipy nor statsmodels has partial-conjunction tests; the
Bonferroni count is Holm's number of rejections, which the tests check against statsmodels.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = ["PC_METHODS", "one_sided", "partial_conjunction", "replicability_count"]

#: How the N − u + 1 largest p-values are combined.
PC_METHODS: tuple[str, ...] = ("bonferroni", "simes", "fisher")


def _pvalues(pvalues: object) -> np.ndarray:
    p = np.asarray(pvalues, dtype=np.float64).reshape(-1)
    if p.size == 0:
        raise ValueError("partial conjunction needs at least one p-value.")
    if np.any(~np.isfinite(p)) or np.any((p < 0) | (p > 1)):
        raise ValueError(f"p-values must be finite and in [0, 1], got {p.tolist()}.")
    return p


def one_sided(p_two_sided: object, estimate: object) -> np.ndarray:
    """One-sided p of "the effect is positive" from a symmetric two-sided p and the estimate's sign.

    p⁺ = p/2 where the estimate is positive, 1 − p/2 otherwise (an estimate of 0 gives ≥ ½). For the
    tests memdiag reports (exact McNemar's min-tail doubling, sign-flip and bootstrap sign tests, t
    intervals) the two-sided p is twice the smaller tail, so p/2 is the tail in the estimate's
    direction.

    >>> one_sided([0.04, 0.04, 1.0], [2.0, -2.0, 0.0]).tolist()
    [0.02, 0.98, 0.5]
    """
    p = np.asarray(p_two_sided, dtype=np.float64)
    est = np.asarray(estimate, dtype=np.float64)
    return np.where(est > 0, p / 2.0, 1.0 - p / 2.0)


def partial_conjunction(pvalues: object, *, method: str = "bonferroni") -> np.ndarray:
    """Partial-conjunction p-values p^{u/N}, u = 1..N, of "at least u of the N nulls are false".

    Parameters
    ----------
    pvalues
        The N per-setting p-values (one-sided for a directional claim, see :func:`one_sided`).
    method
        ``bonferroni`` (valid under any dependence; default), ``simes`` (valid under positive
        regression dependence) or ``fisher`` (needs independent p-values).

    Returns
    -------
    numpy.ndarray
        p^{u/N} for u = 1, …, N, from the N − u + 1 largest p-values p_(u) ≤ … ≤ p_(N):
        Bonferroni (N − u + 1)·p_(u); Simes min_{i ≥ u} (N − u + 1)/(i − u + 1)·p_(i); Fisher
        P(χ²_{2(N−u+1)} ≥ −2 Σ_{i ≥ u} log p_(i)); each capped at 1.

    Raises
    ------
    ValueError
        No p-values, one outside [0, 1], an unknown ``method``.

    Examples
    --------
    >>> partial_conjunction([0.01, 0.02, 0.30]).round(4).tolist()     # 3·0.01, 2·0.02, 1·0.30
    [0.03, 0.04, 0.3]
    >>> partial_conjunction([0.01, 0.02, 0.30], method="simes").round(4).tolist()
    [0.03, 0.04, 0.3]
    """
    p = np.sort(_pvalues(pvalues))
    if method not in PC_METHODS:
        raise ValueError(f"method must be one of {', '.join(PC_METHODS)}, not {method!r}.")
    n = p.size
    out = np.empty(n)
    for u in range(1, n + 1):
        tail = p[u - 1:]
        m = tail.size
        if method == "bonferroni":
            out[u - 1] = m * tail[0]
        elif method == "simes":
            out[u - 1] = np.min(m / np.arange(1, m + 1) * tail)
        else:
            with np.errstate(divide="ignore"):
                out[u - 1] = stats.chi2.sf(-2.0 * np.sum(np.log(tail)), 2 * m)
    return np.minimum(out, 1.0)


def replicability_count(pvalues: object, *, alpha: float = 0.05, method: str = "bonferroni") -> int:
    """The number u of settings a paper may claim: the largest u with p^{i/N} ≤ α for every i ≤ u.

    Parameters
    ----------
    pvalues
        The N per-setting p-values (one-sided for a directional claim).
    alpha
        Family-wise error rate of the claim "at least u of N".
    method
        How each p^{u/N} combines the p-values (:func:`partial_conjunction`).

    Returns
    -------
    int
        û in 0..N. The hypotheses "fewer than u non-nulls" are nested, so testing them in the
        order u = 1, 2, … at level α and stopping at the first non-rejection controls the
        family-wise error of the claim (Dror et al. 2017, §4). With Bonferroni, û is the
        number of settings Holm's procedure rejects.

    Raises
    ------
    ValueError
        As :func:`partial_conjunction`; ``alpha`` outside (0, 1).

    Examples
    --------
    >>> replicability_count([0.01, 0.02, 0.30])              # 0.03 ≤ .05, 0.04 ≤ .05, 0.30 > .05
    2
    >>> replicability_count([0.03, 0.04])                      # 2·0.03 = 0.06 > .05 stops at u = 1
    0
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}.")
    pc = partial_conjunction(pvalues, method=method)
    passed = np.maximum.accumulate(pc) <= alpha
    return int(np.sum(passed))
