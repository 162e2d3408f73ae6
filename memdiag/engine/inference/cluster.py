"""Small-cluster formulas on cluster totals: CR1, CR2 with Bell–McCaffrey degrees of freedom, the
cluster jackknife, t intervals, and the clustered McNemar tests of Obuchowski and Durkalski
(SPEC §4.1).

One job: closed-form variance estimators and tests that take per-cluster quantities (residual
totals, leave-one-cluster-out estimates, discordant counts) and return numbers. Nothing here
resamples or knows about systems or metrics; :mod:`memdiag.engine.inference.intervals` builds the per-cluster
quantities from a statistic of sums and calls these.

Notation (SPEC §4.1): G clusters, cluster g holds n_g queries, N = Σ n_g. For a ratio of sums
θ̂ = ΣA/ΣB (a plain mean, a difference of plain means, a rate), the residual total of cluster g
is e_g = A_g − θ̂ B_g and its *contribution* to θ̂ − θ is ψ_g = e_g / ΣB, so Σ_g ψ_g = 0.
Variances here take the contributions ψ (one column per output), so the same code serves
differences, rates and linearised macro-averages.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = ["ClusteredMcNemarResult", "bell_mccaffrey_df", "clustered_mcnemar", "cr1_variance",
           "cr2_variance", "jackknife_variance", "t_interval"]


def _columns(values: object, name: str) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[0] < 2:
        raise ValueError(f"{name} must be (G,) or (G, m) with at least 2 clusters, got shape "
                         f"{np.shape(values)}.")
    return arr


def _strata(strata: object | None, n_clusters: int) -> np.ndarray:
    if strata is None:
        return np.zeros(n_clusters, dtype=np.int64)
    codes = np.unique(np.asarray(strata), return_inverse=True)[1].reshape(-1)
    if codes.shape[0] != n_clusters:
        raise ValueError(f"strata must give one stratum per cluster ({n_clusters}), got {codes.shape[0]}.")
    return codes


def _squeeze(values: np.ndarray, like: object) -> np.ndarray | float:
    return float(values[0]) if np.ndim(like) == 1 else values


def cr1_variance(contributions: object, strata: object | None = None) -> np.ndarray | float:
    """CR1 cluster-robust variance from per-cluster contributions ψ_g (SPEC §4.1).

    Parameters
    ----------
    contributions
        ``(G,)`` or ``(G, m)`` contributions ψ_g = e_g/ΣB of each cluster to θ̂ − θ (one column per
        output).
    strata
        ``(G,)`` stratum label of each cluster (stratified-cluster designs); None: one stratum.

    Returns
    -------
    float or numpy.ndarray
        ``V₁ = Σ_h G_h/(G_h − 1) · Σ_{g∈h} (ψ_g − ψ̄_h)²`` per output; with one stratum and
        Σψ = 0 this is ``G/(G − 1) · Σ_g e_g² / (ΣB)²``. A stratum with one cluster contributes 0.

    Notes
    -----
    For the intercept-only regression of the per-query differences on the clusters' queries this
    is exactly the variance of ``statsmodels`` ``OLS(d, 1).fit(cov_type="cluster")`` (its factor
    G/(G − 1)·(N − 1)/(N − K) with K = 1). Liang & Zeger (1986); Cameron & Miller (2015).

    References
    ----------
    Liang, K.-Y. & Zeger, S. L. (1986). Biometrika 73(1), 13–22.
    Cameron, A. C. & Miller, D. L. (2015). A practitioner's guide to cluster-robust inference.
    Journal of Human Resources 50(2), 317–372.

    Examples
    --------
    Four clusters with residual totals (2, −1, 0, −1) over ΣB = 10: V₁ = 4/3 · 6/100 = 0.08.

    >>> round(cr1_variance([0.2, -0.1, 0.0, -0.1]), 12)
    0.08
    """
    psi = _columns(contributions, "contributions")
    codes = _strata(strata, psi.shape[0])
    total = np.zeros(psi.shape[1])
    for h in np.unique(codes):
        part = psi[codes == h]
        g = part.shape[0]
        if g > 1:
            total += g / (g - 1) * ((part - part.mean(axis=0)) ** 2).sum(axis=0)
    return _squeeze(total, contributions)


def cr2_variance(contributions: object, leverage: object) -> np.ndarray | float:
    """CR2 (Bell–McCaffrey bias-reduced) variance from contributions ψ_g and leverages h_g.

    Parameters
    ----------
    contributions
        ``(G,)`` or ``(G, m)`` contributions ψ_g = e_g/ΣB (Σ_g ψ_g = 0).
    leverage
        ``(G,)`` leverage h_g of each cluster: n_g/N for a plain mean, B_g/ΣB for a ratio.

    Returns
    -------
    float or numpy.ndarray
        ``V₂ = Σ_g ψ_g² / (1 − h_g)`` per output.

    Notes
    -----
    For the intercept-only model, the CR2 adjustment matrix of cluster g is (I − H_gg)^{−1/2} with
    H_gg = J/N; it scales the cluster's residual total by 1/√(1 − n_g/N), which gives the formula
    above (SPEC §4.1). Bell & McCaffrey (2002); Pustejovsky & Tipton (2018).

    References
    ----------
    Bell, R. M. & McCaffrey, D. F. (2002). Survey Methodology 28(2), 169–181.
    Pustejovsky, J. E. & Tipton, E. (2018). Journal of Business & Economic Statistics 36(4), 672–683.

    Examples
    --------
    >>> round(cr2_variance([0.2, -0.1, 0.0, -0.1], [0.25, 0.25, 0.25, 0.25]), 12)
    0.08
    """
    psi = _columns(contributions, "contributions")
    h = np.asarray(leverage, dtype=np.float64).reshape(-1)
    if h.shape[0] != psi.shape[0] or np.any(h < 0) or np.any(h >= 1):
        raise ValueError(f"leverage must hold one value in [0, 1) per cluster ({psi.shape[0]}), got {leverage!r}.")
    return _squeeze((psi ** 2 / (1.0 - h)[:, None]).sum(axis=0), contributions)


def bell_mccaffrey_df(leverage: object) -> float:
    """Bell–McCaffrey (Satterthwaite) degrees of freedom of the CR2 variance of an intercept.

    Parameters
    ----------
    leverage
        ``(G,)`` leverages h_g (n_g/N for a plain mean; they sum to 1).

    Returns
    -------
    float
        ``ν = (Σλ)² / Σλ²`` with λ the eigenvalues of the G × G matrix
        ``K_gh = (h_g·1[g = h] − h_g h_h) / √((1 − h_g)(1 − h_h))``.

    Notes
    -----
    Under a working model of independent, equal-variance queries the CR2 variance is a weighted
    sum of independent χ²₁ variables with weights λ; Satterthwaite's ν matches its first two
    moments. ν = G − 1 for equal clusters and falls towards 1 as one cluster dominates; LoCoMo's
    ten conversations give ν ≈ 8.59 (SPEC §4.1). Bell & McCaffrey (2002); Pustejovsky & Tipton
    (2018, the ``clubSandwich`` R package); Imbens & Kolesár (2016). statsmodels has no CR2.

    References
    ----------
    Imbens, G. W. & Kolesár, M. (2016). Robust standard errors in small samples: some practical
    advice. Review of Economics and Statistics 98(4), 701–712.

    Examples
    --------
    >>> round(bell_mccaffrey_df([0.25, 0.25, 0.25, 0.25]), 10)
    3.0
    >>> sizes = [152, 81, 152, 199, 178, 123, 150, 191, 156, 158]   # LoCoMo's conversations
    >>> round(bell_mccaffrey_df([n / sum(sizes) for n in sizes]), 2)
    8.59
    """
    h = np.asarray(leverage, dtype=np.float64).reshape(-1)
    if h.shape[0] < 2 or np.any(h < 0) or np.any(h >= 1):
        raise ValueError(f"leverage must hold at least 2 values in [0, 1), got {leverage!r}.")
    scale = np.sqrt(1.0 - h)
    K = (np.diag(h) - np.outer(h, h)) / np.outer(scale, scale)
    lam = np.linalg.eigvalsh(K)
    return float(lam.sum() ** 2 / (lam ** 2).sum())


def jackknife_variance(leave_out: object, strata: object | None = None) -> np.ndarray | float:
    """Cluster jackknife variance from the leave-one-cluster-out estimates θ̂₍₋g₎ (SPEC §4.1).

    Parameters
    ----------
    leave_out
        ``(G,)`` or ``(G, m)`` estimates with cluster g left out (for a stratified design, the
        other clusters of g's stratum re-weighted by G_h/(G_h − 1), the JKn jackknife).
    strata
        ``(G,)`` stratum of each cluster; None: one stratum.

    Returns
    -------
    float or numpy.ndarray
        ``V_J = Σ_h (G_h − 1)/G_h · Σ_{g∈h} (θ̂₍₋g₎ − θ̄_h)²``, θ̄_h the mean of stratum h's
        leave-out values; NaN for an output whose leave-out values include a NaN. A stratum
        with one cluster contributes 0.

    Notes
    -----
    Close to CR3; with a t reference on G − H degrees of freedom it is the best calibrated of the
    methods in SPEC §4.1's simulation. Quenouille (1956); Tukey (1958); for strata, Rust & Rao
    (1996); for clusters, MacKinnon, Nielsen & Webb (2023).

    References
    ----------
    Rust, K. F. & Rao, J. N. K. (1996). Variance estimation for complex surveys using replication
    techniques. Statistical Methods in Medical Research 5(3), 283–310.
    MacKinnon, J. G., Nielsen, M. Ø. & Webb, M. D. (2023). Cluster-robust inference: a guide to
    empirical practice. Journal of Econometrics 232(2), 272–299.

    Examples
    --------
    >>> round(jackknife_variance([0.1, 0.3, 0.2]), 12)   # 2/3 · (0.01 + 0.01 + 0)
    0.013333333333
    """
    theta = _columns(leave_out, "leave_out")
    codes = _strata(strata, theta.shape[0])
    total = np.zeros(theta.shape[1])
    for h in np.unique(codes):
        part = theta[codes == h]
        g = part.shape[0]
        if g > 1:
            total += (g - 1) / g * ((part - part.mean(axis=0)) ** 2).sum(axis=0)
    return _squeeze(total, leave_out)


def t_interval(estimate: object, se: object, df: object, confidence_level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """``estimate ± t_{1−α/2, df} · se`` (SPEC §4.1); NaN where se or df is not finite and positive.

    >>> [round(float(v), 4) for v in t_interval(1.0, 0.5, 9)]
    [-0.1311, 2.1311]
    """
    est, se, df = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (estimate, se, df)))
    ok = np.isfinite(se) & np.isfinite(df) & (df > 0)
    q = np.where(ok, stats.t.ppf(0.5 + confidence_level / 2, np.where(ok, df, 1.0)), np.nan)
    return est - q * se, est + q * se


@dataclass(frozen=True)
class ClusteredMcNemarResult:
    """Result of :func:`clustered_mcnemar`: ``statistic`` (χ²₁), ``p_value``, ``n_clusters``, ``method``."""

    statistic: float
    p_value: float
    n_clusters: int
    method: str


def clustered_mcnemar(benefit: object, tax: object, n: object | None = None, *,
                      method: str = "obuchowski") -> ClusteredMcNemarResult:
    """McNemar's test for clustered matched pairs: Obuchowski (1998) or Durkalski et al. (2003).

    Parameters
    ----------
    benefit, tax
        ``(G,)`` discordant counts per cluster: b_g (reference wrong, system right) and c_g
        (reference right, system wrong).
    n
        ``(G,)`` queries per cluster; required by ``durkalski`` and ``obuchowski-wald``.
    method
        ``obuchowski`` (every query counts equally, as memdiag's Δ̂; the variance pooled under
        the null), ``obuchowski-wald`` (the same estimate with the Wald variance, centred at the
        estimate) or ``durkalski`` (every cluster's difference in proportions counts equally).

    Returns
    -------
    ClusteredMcNemarResult
        The statistic and its p-value against χ² with 1 df, as the sources and the CRAN package
        ``clust.bin.pair`` refer it. With few clusters that reference is anti-conservative:
        memdiag's default test for clustered data is the wild cluster bootstrap (SPEC §4.1).

    Raises
    ------
    ValueError
        ``benefit`` and ``tax`` of different lengths, fewer than two clusters or a negative
        count; ``durkalski`` or ``obuchowski-wald`` without ``n``, or an ``n`` that is not each
        cluster's query count (at least its b + c); an unknown ``method``.

    Notes
    -----
    With D_g = b_g − c_g (SPEC §4.1, forms as in Yang, Sun & Hardin 2010):

    - Obuchowski: X² = (G − 1)/G · (Σ_g D_g)² / Σ_g D_g² — the variance is pooled under the
      null (the two proportions equal, so each cluster's residual is D_g itself), as Yang, Sun &
      Hardin (2010) write it;
    - Obuchowski, Wald form (``obuchowski-wald``): the variance centred at the estimate,
      X² = (G − 1)/G · (Σ_g D_g)² / Σ_g (D_g − n_g·Σ_h D_h/N)², the CR1 Wald statistic of the
      difference (larger than the null-pooled form whenever Σ D ≠ 0);
    - Durkalski: X² = (Σ_g D_g/n_g)² / Σ_g (D_g/n_g)².

    With one query per cluster X²_D is McNemar's (b − c)²/(b + c) exactly and X²_O is (G − 1)/G
    times it. When every D_g is 0 there is no evidence either way: X² = 0, p = 1 (SPEC §5.1's
    convention).

    References
    ----------
    SPEC §4.1 (few clusters: clustered McNemar among the small-cluster methods) and SPEC §5.1
    (McNemar's test and its b + c = 0 convention); Raw-RAG paper C.6 (LoCoMo's conversations and
    MEME's episodes as the resampling units).
    Obuchowski, N. A. (1998). On the comparison of correlated proportions for clustered data.
    Statistics in Medicine 17(13), 1495–1507.
    Durkalski, V. L., Palesch, Y. Y., Lipsitz, S. R. & Rust, P. F. (2003). Analysis of clustered
    matched-pair data. Statistics in Medicine 22(15), 2417–2428.
    Yang, Z., Sun, X. & Hardin, J. W. (2010). A note on the tests for clustered matched-pair
    binary data. Biometrical Journal 52(5), 638–652.

    Examples
    --------
    Three clusters of 10 queries with (b, c) = (4, 1), (3, 0), (2, 2): D = (3, 3, 0), so
    X²_O = 2/3 · 36/18 = 1.3333 and X²_D = (0.6)²/0.18 = 2.0.

    >>> round(clustered_mcnemar([4, 3, 2], [1, 0, 2]).statistic, 4)
    1.3333
    >>> r = clustered_mcnemar([4, 3, 2], [1, 0, 2], [10, 10, 10], method="durkalski")
    >>> round(r.statistic, 4), round(r.p_value, 4)
    (2.0, 0.1573)

    The Wald form centres at Δ̂: n_g·ΣD/N = 2, residuals (1, 1, −2), X² = 2/3 · 36/6 = 4.0.

    >>> clustered_mcnemar([4, 3, 2], [1, 0, 2], [10, 10, 10], method="obuchowski-wald").statistic
    4.0
    """
    b = np.asarray(benefit, dtype=np.float64).reshape(-1)
    c = np.asarray(tax, dtype=np.float64).reshape(-1)
    if b.shape != c.shape or b.size < 2 or np.any(b < 0) or np.any(c < 0):
        raise ValueError("benefit and tax must be non-negative counts, one per cluster, for at least 2 clusters.")
    d = b - c
    G = d.size
    if method not in ("obuchowski", "obuchowski-wald", "durkalski"):
        raise ValueError(f"method must be 'obuchowski', 'obuchowski-wald' or 'durkalski', got {method!r}.")
    if method != "obuchowski":
        if n is None:
            raise ValueError(f"the {method} test needs n, the number of queries in each cluster.")
        sizes = np.asarray(n, dtype=np.float64).reshape(-1)
        if sizes.shape != d.shape or np.any(sizes < b + c) or np.any(sizes <= 0):
            raise ValueError("n must give each cluster's number of queries (at least its b + c).")
    if method == "obuchowski":
        num, den = d.sum() ** 2, (d ** 2).sum()
        factor = (G - 1) / G
    elif method == "obuchowski-wald":
        num, den = d.sum() ** 2, ((d - sizes * d.sum() / sizes.sum()) ** 2).sum()
        factor = (G - 1) / G
    else:
        ratio = d / sizes
        num, den, factor = ratio.sum() ** 2, (ratio ** 2).sum(), 1.0
    if den == 0:
        return ClusteredMcNemarResult(0.0, 1.0, G, method)
    statistic = float(factor * num / den)
    return ClusteredMcNemarResult(statistic, float(stats.chi2.sf(statistic, 1)), G, method)
