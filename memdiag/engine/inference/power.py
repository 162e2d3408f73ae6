"""Power and the smallest detectable effect: of the exact McNemar test (SPEC §5.5), and of a
design's t-referenced test with the standard error the observed cluster structure gives (SPEC §4.1).

One job: for N paired binary outcomes, the exact probability that the two-sided exact (or
mid-p) McNemar test of :mod:`memdiag.engine.inference.exact` rejects (:func:`mcnemar_power`), and the
smallest accuracy difference it detects with a given power (:func:`detectable_effect`). The
rejection region is found with the test's own p-value (:func:`~memdiag.engine.inference.exact.exact_p_value`),
so power and test cannot disagree about where the test rejects. For clustered data, where
queries are not independent and McNemar's power is an overstatement, :func:`design_power` and
:func:`design_detectable_effect` use the design's standard error (the cluster jackknife's,
which carries the design effect of the observed clusters) and its t reference on G − 1 df.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, stats

from memdiag.engine.inference.exact import exact_p_value

__all__ = ["design_detectable_effect", "design_power", "detectable_effect", "mcnemar_power"]

#: Tail mass of the discordant count left out of the power sum.
_TAIL = 1e-14


def _rejection_bound(d: np.ndarray, alpha: float, method: str) -> np.ndarray:
    """Largest k whose two-sided McNemar p (min(b, c) = k, b + c = d) is ≤ α; −1 if none."""
    if method not in ("exact", "mid-p"):
        raise ValueError(f"method must be 'exact' or 'mid-p', got {method!r}.")
    k = stats.binom.ppf(alpha / 2, d, 0.5)               # smallest k with CDF(k) ≥ α/2
    k = np.where(exact_p_value(k, d) <= alpha, k, k - 1)
    if method == "mid-p":                                # mid-p(k) ≤ exact p(k): k + 1 may reject too
        up = k + 1
        k = np.where(exact_p_value(up, d, mid_p=True) <= alpha, up, k)
    return k


def _check_power_args(n: int, alpha: float) -> int:
    if isinstance(n, bool) or not float(n).is_integer() or n < 1:
        raise ValueError(f"n must be a positive whole number of queries, got {n!r}.")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}.")
    return int(n)


def mcnemar_power(n: int, p_benefit: float, p_tax: float, *, alpha: float = 0.05,
                  method: str = "exact") -> float:
    """Exact power of the two-sided exact McNemar test on N paired binary outcomes (SPEC §5).

    Parameters
    ----------
    n
        Number of queries N.
    p_benefit, p_tax
        Probabilities of the two discordant cells per query: b (reference wrong, system right)
        and c (reference right, system wrong). The accuracy difference is p_benefit − p_tax.
    alpha
        Two-sided level.
    method
        ``"exact"`` (the test memdiag runs) or ``"mid-p"``.

    Returns
    -------
    float
        P(the test rejects at α).

    Raises
    ------
    ValueError
        ``n`` not a positive whole number, ``alpha`` outside (0, 1), probabilities that are
        negative or sum above 1, or an unknown ``method``.

    Notes
    -----
    No simulation: with ψ = p_b + p_c, the discordant count is D ~ Binomial(N, ψ) and, given
    D = d, b ~ Binomial(d, π) with π = p_b/ψ. The test rejects when min(b, d − b) ≤ k_d, where
    k_d is the largest k with p = 2·BinomCDF(k; d, ½) ≤ α (mid-p: 2·[CDF(k) − ½ pmf(k)] ≤ α), the
    p-value of :func:`memdiag.engine.inference.mcnemar` itself (:func:`~memdiag.engine.inference.exact.exact_p_value`), so

        power = Σ_{d=0..N} BinomPMF(d; N, ψ) · [BinomCDF(k_d; d, π) + BinomSF(d − k_d − 1; d, π)],

    every probability from ``scipy.stats.binom``; values of d in the outer 1e-14 tails of D's
    distribution are skipped (they move the power by < 2e-14). Both tails count (the two-sided
    test's rejection probability).

    References
    ----------
    SPEC §5.5 (power and detectable effect of exact McNemar) and SPEC §5.1 (the test).
    Miettinen, O. S. (1968). The matched pairs design in the case of all-or-none responses.
    Biometrics 24(2), 339–352.
    McNemar, Q. (1947). Note on the sampling error of the difference between correlated
    proportions or percentages. Psychometrika 12(2), 153–157.

    Examples
    --------
    >>> round(mcnemar_power(500, 0.10, 0.05), 4)
    0.8024
    >>> round(mcnemar_power(500, 0.05, 0.05), 4) <= 0.05
    True
    """
    n = _check_power_args(n, alpha)
    if min(p_benefit, p_tax) < 0 or p_benefit + p_tax > 1:
        raise ValueError(f"p_benefit and p_tax must be probabilities with a sum ≤ 1, got "
                         f"{p_benefit!r}, {p_tax!r}.")
    psi = p_benefit + p_tax
    if psi == 0:
        return 0.0
    low, high = stats.binom.ppf([_TAIL, 1 - _TAIL], n, psi)   # D outside holds < 2e-14 of the mass
    d = np.arange(int(low), int(high) + 1)
    k = _rejection_bound(d, alpha, method)
    pi = p_benefit / psi
    reject = stats.binom.cdf(k, d, pi) + stats.binom.sf(d - k - 1, d, pi)
    return float(np.clip(np.sum(stats.binom.pmf(d, n, psi) * reject), 0.0, 1.0))


def detectable_effect(n: int, discordance: float, *, alpha: float = 0.05, power: float = 0.8,
                      method: str = "exact") -> float:
    """Smallest |accuracy difference| the exact McNemar test detects with the given power.

    Parameters
    ----------
    n
        Number of paired queries N.
    discordance
        ψ = (b + c)/N, the share of queries on which the two systems disagree.
    alpha, power
        Two-sided level and target power.
    method
        ``"exact"`` or ``"mid-p"`` (see :func:`mcnemar_power`).

    Returns
    -------
    float
        δ = p_b − p_c (a proportion; ×100 for points), or NaN when even δ = ψ (every
        disagreement in one direction) has less power than asked, or when ψ = 0.

    Raises
    ------
    ValueError
        ``n`` not a positive whole number, ``alpha`` or ``power`` outside (0, 1),
        ``discordance`` outside [0, 1], or an unknown ``method``.

    Notes
    -----
    At fixed ψ the difference δ sets p_b = (ψ + δ)/2 and p_c = (ψ − δ)/2. The power of
    :func:`mcnemar_power` grows with δ on [0, ψ] (the symmetric two-tailed binomial test's power
    grows with |π − ½|) and is continuous in it, so the δ with power(δ) = target is found by
    Brent's root search (``scipy.optimize.brentq``, to 1e-10). For orientation, the normal
    approximation is δ ≈ (z_{1−α/2} + z_power)·√(ψ/N).

    References
    ----------
    SPEC §5.5 (power and detectable effect of exact McNemar); Raw-RAG paper C.6 (the exact
    McNemar test whose power this is).
    Miettinen, O. S. (1968). The matched pairs design in the case of all-or-none responses.
    Biometrics 24(2), 339–352.

    Examples
    --------
    >>> round(100 * detectable_effect(1540, 0.20), 2)
    3.25
    """
    n = _check_power_args(n, alpha)
    if not 0 <= discordance <= 1 or not 0 < power < 1:
        raise ValueError(f"discordance must lie in [0, 1] and power in (0, 1), got {discordance!r}, {power!r}.")
    if discordance == 0:
        return math.nan

    def gap(delta: float) -> float:
        return mcnemar_power(n, (discordance + delta) / 2, (discordance - delta) / 2, alpha=alpha, method=method) - power

    if gap(discordance) < 0:
        return math.nan
    return float(optimize.brentq(gap, 0.0, discordance, xtol=1e-10))


def _check_design_args(se: float, df: float, alpha: float) -> None:
    if not (se > 0 and math.isfinite(se)):
        raise ValueError(f"se must be a positive standard error, got {se!r}.")
    if not (df > 0):
        raise ValueError(f"df must be positive degrees of freedom, got {df!r}.")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}.")


def design_power(delta: float, se: float, df: float, *, alpha: float = 0.05) -> float:
    """Power of a two-sided t test of a difference with standard error ``se`` on ``df`` degrees of
    freedom, when the true difference is ``delta`` (SPEC §4.1).

    Parameters
    ----------
    delta
        True difference (same unit as ``se``).
    se
        The design's standard error of the estimate, e.g. the cluster jackknife's: it carries the
        observed design effect (the variance inflation of the clusters over independent queries).
    df
        Degrees of freedom of the reference t (G − 1 for the cluster jackknife; ``inf`` for a
        normal reference).
    alpha
        Two-sided level.

    Returns
    -------
    float
        P(|T| > t_{1−α/2, df}) with T noncentral t(df, δ/se) (``scipy.stats.nct``; the normal
        distribution when df is infinite).

    Raises
    ------
    ValueError
        ``se`` not a positive finite number, ``df`` not positive, or ``alpha`` outside (0, 1).

    Notes
    -----
    The test statistic is (Δ̂ − 0)/SE with SE estimated on df degrees of freedom, so under
    Δ = δ it is noncentral t with noncentrality δ/se. With few clusters this is far below the
    power McNemar's test would claim from the query count (SPEC §4.1). Examples: the smallest
    detectable difference at G = 10 is about 3.15·se (noncentral t on 9 df), against 2.80·se with
    a normal reference.

    References
    ----------
    SPEC §4.1 (few clusters: power of the design's t test) and SPEC §7.6 (detectable effect and
    power in the claims audit).
    Donner, A. & Klar, N. (2000). Design and Analysis of Cluster Randomization Trials in Health
    Research. Arnold (power with the design effect of clusters; t reference on cluster df).
    Cameron, A. C. & Miller, D. L. (2015). Journal of Human Resources 50(2), 317–372.

    Examples
    --------
    >>> round(design_power(0.0, 1.0, 9), 4)
    0.05
    >>> round(design_power(3.0, 1.0, float("inf")), 4)     # normal: Φ(3 − 1.96) + Φ(−3 − 1.96)
    0.8508
    """
    _check_design_args(se, df, alpha)
    nc = delta / se
    if math.isinf(df):
        z = stats.norm.isf(alpha / 2)
        return float(stats.norm.sf(z - nc) + stats.norm.cdf(-z - nc))
    t = stats.t.isf(alpha / 2, df)
    nc = abs(nc)  # the power is symmetric in δ; the far tail can be NaN in scipy's nct (then ~0)
    far = stats.nct.cdf(-t, df, nc)
    return float(stats.nct.sf(t, df, nc) + (0.0 if math.isnan(far) else far))


def design_detectable_effect(se: float, df: float, *, alpha: float = 0.05, power: float = 0.8) -> float:
    """Smallest |difference| the design's two-sided t test detects with the given power (SPEC §4.1).

    Parameters
    ----------
    se, df, alpha
        As in :func:`design_power`.
    power
        Target power.

    Returns
    -------
    float
        δ ≥ 0 with :func:`design_power` (δ) = ``power`` (Brent's method to 1e-12·se), in the unit
        of ``se``.

    Raises
    ------
    ValueError
        ``se`` not a positive finite number, ``df`` not positive, or ``alpha`` or ``power``
        outside (0, 1).

    Notes
    -----
    For orientation, δ ≈ (t_{1−α/2, df} + t_{power, df})·se.

    References
    ----------
    SPEC §4.1 (few clusters: power of the design's t test) and SPEC §7.7 (detectable effects
    from published summaries).
    Cameron, A. C. & Miller, D. L. (2015). A practitioner's guide to cluster-robust inference.
    Journal of Human Resources 50(2), 317–372.

    Examples
    --------
    >>> round(design_detectable_effect(1.0, float("inf")), 4)   # (1.96 + 0.8416)·se, nearly
    2.8016
    >>> round(design_detectable_effect(1.0, 9), 2)
    3.15
    """
    _check_design_args(se, df, alpha)
    if not 0 < power < 1:
        raise ValueError(f"power must lie in (0, 1), got {power!r}.")
    if design_power(0.0, se, df, alpha=alpha) >= power:
        return 0.0
    upper = se
    while design_power(upper, se, df, alpha=alpha) < power:
        upper *= 2
    return float(optimize.brentq(lambda d: design_power(d, se, df, alpha=alpha) - power, 0.0, upper,
                                 xtol=1e-12 * se))
