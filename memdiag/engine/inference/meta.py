"""Pooling one effect per setting: fixed-effect and random-effects meta-analysis with DerSimonian–Laird,
Paule–Mandel or REML τ², Hartung–Knapp–Sidik–Jonkman intervals, prediction intervals, Q and I², and a
cluster-robust (CR2) variance for settings that share a reference run or questions (SPEC §10.1).

One job: numbers in, numbers out. Nothing here knows about systems or verdicts;
:mod:`memdiag.synthesis.settings` builds the per-setting differences and their standard errors and calls
:func:`pool_effects`.

``statsmodels.stats.meta_analysis.combine_effects`` gives the fixed effect, Cochran's Q and the
DerSimonian–Laird and Paule–Mandel τ² (used here). It has no REML estimator of τ², which is written
here (:func:`reml_tau2`, Fisher scoring as in metafor's ``rma``); the random-effects mean, its
variance and the HKSJ variance are then the same three lines for every τ² (the tests check them
against ``combine_effects`` for DL and PM and against metafor's published ``dat.bcg`` numbers).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats

from memdiag.core.notes import Note
from memdiag.engine.inference.cluster import bell_mccaffrey_df, cr2_variance

__all__ = ["INTERVALS", "TAU2_METHODS", "PooledResult", "pool_effects", "reml_tau2"]

#: Estimators of the between-setting variance τ² (``fixed``: τ² = 0, the fixed-effect model).
TAU2_METHODS: tuple[str, ...] = ("reml", "pm", "dl", "fixed")
#: Intervals of the pooled mean (``auto``: ``hksj`` with the ad hoc floor at every k, SPEC §10.1).
INTERVALS: tuple[str, ...] = ("auto", "hksj", "z")
#: Below this many settings the prediction interval's t_{k−2} rests on a τ̂² of few settings: a caution.
FEW_FOR_PREDICTION = 10


@dataclass(frozen=True)
class PooledResult:
    """A pooled effect (see :func:`pool_effects` for every field's formula).

    >>> r = pool_effects([1.0, 3.0], [1.0, 1.0], tau2="fixed", interval="z")
    >>> r.estimate, round(r.se, 6), r.q
    (2.0, 0.707107, 2.0)
    """

    k: int
    estimate: float
    se: float
    ci_low: float
    ci_high: float
    df: float
    p_value: float
    tau2_method: str
    interval: str
    tau2: float
    i2: float
    q: float
    q_p: float
    pi_low: float
    pi_high: float
    fixed_estimate: float
    fixed_se: float
    fixed_ci_low: float
    fixed_ci_high: float
    n_clusters: int
    weights: tuple[float, ...]
    notes: tuple[Note, ...] = ()


def _inputs(effect: object, variance: object) -> tuple[np.ndarray, np.ndarray]:
    y = np.asarray(effect, dtype=np.float64).reshape(-1)
    v = np.asarray(variance, dtype=np.float64).reshape(-1)
    if y.shape != v.shape:
        raise ValueError(f"effect and variance must have the same length, got {y.shape[0]} and {v.shape[0]}.")
    if y.shape[0] < 2:
        raise ValueError(f"pooling needs at least 2 settings, got {y.shape[0]}.")
    if not (np.all(np.isfinite(y)) and np.all(np.isfinite(v))):
        raise ValueError("effect and variance must be finite (a setting without a standard error cannot be pooled).")
    if np.any(v <= 0):
        raise ValueError("every variance must be positive: a setting with variance 0 would take all the weight "
                         "(leave it out, and say so).")
    return y, v


def reml_tau2(effect: object, variance: object, *, tol: float = 1e-10, max_iter: int = 500) -> float:
    """Restricted maximum-likelihood τ² of the random-effects model y_i ~ N(μ, v_i + τ²).

    Parameters
    ----------
    effect, variance
        The k effects y_i and their within-setting variances v_i.
    tol
        Stop when a Fisher-scoring step changes τ² by less than this.
    max_iter
        At most this many Fisher-scoring steps (then bounded Brent's method on the restricted
        likelihood; ValueError if that fails too).

    Returns
    -------
    float
        τ̂² ≥ 0.

    Notes
    -----
    Fisher scoring on the restricted log-likelihood (Viechtbauer 2005, eq. 11; metafor's
    algorithm): with w_i = 1/(v_i + τ²) and P = W − W11ᵀW/Σw,
    τ² ← τ² + (yᵀPPy − tr P) / tr(PP), truncated at 0, halving the step while it lowers the
    restricted likelihood; started at the DerSimonian–Laird value. When the steps oscillate around
    a flat maximum and do not settle within ``max_iter`` (about 1 data set in 2,000 of ordinary
    data), the restricted likelihood is maximised directly by bounded Brent (SPEC §10.1).
    statsmodels has no REML τ².
    """
    y, v = _inputs(effect, variance)

    def loglik(t2: float) -> float:
        w = 1.0 / (v + t2)
        mu = np.sum(w * y) / np.sum(w)
        return -0.5 * (np.sum(np.log(v + t2)) + np.log(np.sum(w)) + np.sum(w * (y - mu) ** 2))

    tau2 = _dl_tau2(y, v)
    for _ in range(max_iter):
        w = 1.0 / (v + tau2)
        P = np.diag(w) - np.outer(w, w) / np.sum(w)
        Py = P @ y
        step = (Py @ Py - np.trace(P)) / np.sum(P * P)
        new = max(0.0, tau2 + step)
        while loglik(new) < loglik(tau2) - 1e-14 and abs(new - tau2) > tol:
            new = max(0.0, tau2 + (new - tau2) / 2.0)
        if abs(new - tau2) < tol:
            return float(new)
        tau2 = new
    return _reml_brent(loglik, tau2, float(np.var(y, ddof=1) + np.max(v)), tol, max_iter)


def _reml_brent(loglik: Callable[[float], float], last: float, scale: float, tol: float, max_iter: int) -> float:
    """Maximise the restricted likelihood on [0, 10·max(last, scale)] by bounded Brent, when Fisher scoring
    oscillates around a flat maximum (about 1 data set in 2,000, issue 30); ValueError if that fails too."""
    from scipy.optimize import minimize_scalar

    hi = 10.0 * max(last, scale)
    res = minimize_scalar(lambda t2: -loglik(t2), bounds=(0.0, hi), method="bounded",
                          options={"xatol": tol, "maxiter": max_iter})
    best = 0.0 if loglik(0.0) >= -res.fun else float(res.x)
    if not res.success or best > 0.99 * hi or loglik(best) < loglik(last) - 1e-12:
        raise ValueError(f"REML τ² did not converge in {max_iter} Fisher-scoring steps nor by Brent's method "
                         f"on [0, {hi:.4g}].")
    return best


def _dl_tau2(y: np.ndarray, v: np.ndarray) -> float:
    """DerSimonian–Laird τ² (the start value of REML; :func:`pool_effects` takes DL from statsmodels)."""
    w = 1.0 / v
    mu = np.sum(w * y) / np.sum(w)
    q = np.sum(w * (y - mu) ** 2)
    return float(max(0.0, (q - (y.size - 1)) / (np.sum(w) - np.sum(w ** 2) / np.sum(w))))


def pool_effects(effect: object, variance: object, *, tau2: str = "reml", interval: str = "auto",
                 clusters: object | None = None, confidence_level: float = 0.95) -> PooledResult:
    """Pool k effects with known variances: fixed effect, random effects, HKSJ, prediction interval.

    Parameters
    ----------
    effect, variance
        The k ≥ 2 effects y_i (e.g. per-setting paired differences) and their variances v_i > 0.
    tau2
        ``reml`` (default; Paule–Mandel with a note if Fisher scoring does not converge), ``pm``
        (Paule–Mandel), ``dl`` (DerSimonian–Laird, truncated at 0) or ``fixed`` (τ² = 0).
    interval
        ``auto`` (= ``hksj``, at every k: no switch to the normal interval at 10 settings),
        ``hksj`` (Hartung–Knapp–Sidik–Jonkman with the ad hoc floor, t on k − 1 df) or ``z``
        (normal). Ignored when ``clusters`` is given.
    clusters
        One label per effect: effects with the same label share data (a reference run, the
        questions) and may be correlated. Given, the interval is the cluster-robust CR2 one
        (Hedges, Tipton & Johnson 2010 with Tipton's 2015 small-sample correction) with
        Bell–McCaffrey degrees of freedom; needs at least 2 clusters.
    confidence_level
        Level of the intervals.

    Returns
    -------
    PooledResult
        ``estimate`` μ̂ = Σw_i y_i/Σw_i with w_i = 1/(v_i + τ̂²); ``se``, ``ci_low``, ``ci_high``,
        ``df`` (inf for ``z``) and the two-sided ``p_value`` of μ = 0 under the chosen interval
        (NaN, with a note, when the standard error is NaN or 0); ``tau2`` and ``tau2_method`` (the
        estimator used: ``pm`` after a REML fallback); ``q`` = Σ(y_i − μ̂_FE)²/v_i with its χ²_{k−1}
        p ``q_p``; ``i2`` = max(0, (Q − (k − 1))/Q) (Higgins & Thompson 2002); ``pi_low, pi_high`` the prediction interval
        μ̂ ± t_{k−2}·√(τ̂² + se²) (Higgins, Thompson & Spiegelhalter 2009; NaN with the note
        ``no-prediction-interval`` for k < 3, a ``few-for-prediction`` caution for k < 10); the
        fixed-effect ``fixed_estimate, fixed_se, fixed_ci_*`` (z); ``n_clusters``; the relative
        random-effects ``weights``; ``notes`` (:class:`memdiag.core.notes.Note` records: ``hksj-floor``,
        ``hksj-t1`` at k = 2, ``reml-fallback-pm``, ``pooled-se-undefined`` and the two above).

    Raises
    ------
    ValueError
        Fewer than 2 effects, lengths that differ, a variance ≤ 0 or a non-finite value, an unknown
        ``tau2`` or ``interval``, fewer than 2 clusters.

    Notes
    -----
    HKSJ (SPEC §10.1): Var_HK(μ̂) = max(Σw_i(y_i − μ̂)² / ((k − 1)Σw_i), 1/Σw_i), interval
    μ̂ ± t_{k−1}·√Var_HK: the Knapp–Hartung ad hoc floor (Knapp & Hartung 2003; metafor's
    ``test="adhoc"``), so settings that agree exactly never give a zero-width interval; kept at
    every k (the normal interval covered 0.932 just past the old switch at k = 10). Robust (SPEC §10.1): with
    cluster contributions ψ_c = Σ_{i∈c} w_i(y_i − μ̂)/Σw and leverages h_c = Σ_{i∈c} w_i/Σw,
    V_CR2 = Σ_c ψ_c²/(1 − h_c) — the CR2 adjustment of the weighted intercept-only model with
    working covariance W⁻¹ — on Bell–McCaffrey df; the weights are working weights (τ̂² from the
    model that ignores the dependence), which leaves the robust variance valid (HTJ 2010).

    References
    ----------
    DerSimonian, R. & Laird, N. (1986). Controlled Clinical Trials 7(3), 177–188.
    Paule, R. C. & Mandel, J. (1982). J. Res. Natl. Bur. Stand. 87(5), 377–385.
    Viechtbauer, W. (2005). J. Educ. Behav. Stat. 30(3), 261–293.
    Hartung, J. & Knapp, G. (2001). Stat. Med. 20(24), 3875–3889; Sidik, K. & Jonkman, J. N.
    (2002). Stat. Med. 21(21), 3153–3159; Knapp, G. & Hartung, J. (2003). Stat. Med. 22(17),
    2693–2710.
    Higgins, J. P. T., Thompson, S. G. & Spiegelhalter, D. J. (2009). JRSS A 172(1), 137–159.
    Hedges, L. V., Tipton, E. & Johnson, M. C. (2010). Res. Synth. Methods 1(1), 39–65;
    Tipton, E. (2015). Psychological Methods 20(3), 375–393.

    Examples
    --------
    >>> r = pool_effects([1.0, 2.0, 6.0], [1.0, 1.0, 1.0], tau2="dl", interval="z")
    >>> round(r.tau2, 6), r.estimate, round(r.i2, 4)     # Q = 14, τ² = (14 − 2)/(3 − 1) = 6
    (6.0, 3.0, 0.8571)
    """
    y, v = _inputs(effect, variance)
    if tau2 not in TAU2_METHODS:
        raise ValueError(f"tau2 must be one of {', '.join(TAU2_METHODS)}, not {tau2!r}.")
    if interval not in INTERVALS:
        raise ValueError(f"interval must be one of {', '.join(INTERVALS)}, not {interval!r}.")
    if not 0.0 < confidence_level < 1.0:
        raise ValueError(f"confidence_level must be in (0, 1), got {confidence_level!r}.")
    from statsmodels.stats.meta_analysis import combine_effects

    k = y.size
    alpha = 1.0 - confidence_level
    notes: list[Note] = []
    with np.errstate(invalid="ignore", divide="ignore"):   # its HKSJ rows divide by a zero Q; q, PM τ², FE read
        sm = combine_effects(y, v, method_re="pm" if tau2 == "pm" else "dl", alpha=alpha)
    t2, used_tau2 = _tau2(y, v, tau2, sm, notes)
    w = 1.0 / (v + t2)
    mu = float(np.sum(w * y) / np.sum(w))
    q = float(sm.q)
    fe_se = float(np.sqrt(1.0 / np.sum(1.0 / v)))
    z = stats.norm.ppf(1.0 - alpha / 2.0)
    n_clusters = k
    if clusters is not None:
        labels = np.asarray(clusters).reshape(-1)
        if labels.shape[0] != k:
            raise ValueError(f"clusters must give one label per effect ({k}), got {labels.shape[0]}.")
        codes = np.unique(labels, return_inverse=True)[1].reshape(-1)
        n_clusters = int(codes.max()) + 1
        if n_clusters < 2:
            raise ValueError("the robust variance needs at least 2 clusters of settings.")
        psi = np.bincount(codes, weights=w * (y - mu)) / np.sum(w)
        lev = np.bincount(codes, weights=w) / np.sum(w)
        se = float(np.sqrt(cr2_variance(psi, lev)))
        df = bell_mccaffrey_df(lev)
        used = "robust"
    else:
        used = "hksj" if interval == "auto" else interval
        se, df = _hksj(y, w, mu, notes) if used == "hksj" else (float(np.sqrt(1.0 / np.sum(w))), float("inf"))
    crit = stats.t.ppf(1.0 - alpha / 2.0, df) if np.isfinite(df) else z
    p = _p_value(mu, se, df, notes)
    pi = _prediction(mu, se, t2, k, alpha, notes)
    fe = float(sm.mean_effect_fe)
    return PooledResult(
        k=k, estimate=mu, se=se, ci_low=float(mu - crit * se), ci_high=float(mu + crit * se), df=df, p_value=p,
        tau2_method=used_tau2, interval=used, tau2=t2, i2=max(0.0, (q - (k - 1)) / q) if q > 0 else 0.0, q=q,
        q_p=float(stats.chi2.sf(q, k - 1)), pi_low=float(pi[0]), pi_high=float(pi[1]),
        fixed_estimate=fe, fixed_se=fe_se, fixed_ci_low=float(fe - z * fe_se), fixed_ci_high=float(fe + z * fe_se),
        n_clusters=n_clusters, weights=tuple(float(x) for x in w / np.sum(w)), notes=tuple(notes),
    )


def _tau2(y: np.ndarray, v: np.ndarray, method: str, sm: object, notes: list[Note]) -> tuple[float, str]:
    """τ̂² by ``method`` and the method used: REML that does not converge falls back to Paule–Mandel."""
    if method == "fixed":
        return 0.0, method
    if method == "dl":
        return _dl_tau2(y, v), method
    if method == "pm":
        return float(sm.tau2), method
    try:
        return reml_tau2(y, v), method
    except ValueError as err:
        from statsmodels.stats.meta_analysis import combine_effects

        with np.errstate(invalid="ignore", divide="ignore"):
            pm = float(combine_effects(y, v, method_re="pm").tau2)
        notes.append(Note(f"{err} τ² is Paule–Mandel's instead ({pm:.4g})", code="reml-fallback-pm",
                          severity="caution"))
        return pm, "pm"


def _hksj(y: np.ndarray, w: np.ndarray, mu: float, notes: list[Note]) -> tuple[float, float]:
    """The HKSJ standard error with the Knapp–Hartung ad hoc floor, and its df k − 1."""
    k = y.size
    hk = float(np.sum(w * (y - mu) ** 2) / ((k - 1) * np.sum(w)))
    floor = float(1.0 / np.sum(w))
    if hk < floor:
        notes.append(Note(f"the settings agree more closely than their standard errors predict (HKSJ variance "
                          f"{hk:.4g} < {floor:.4g}): the HKSJ variance is floored at the random-effects one "
                          "(Knapp–Hartung ad hoc)", code="hksj-floor"))
    if k == 2:
        notes.append(Note("k = 2: the HKSJ interval is t with 1 degree of freedom (t₁ quantile 12.7 at 95%), "
                          "wide by design", code="hksj-t1", severity="caution"))
    return float(np.sqrt(max(hk, floor))), float(k - 1)


def _p_value(mu: float, se: float, df: float, notes: list[Note]) -> float:
    """Two-sided p of μ = 0; NaN (with a note) when the standard error is NaN or 0, never 0 by default."""
    if np.isfinite(se) and se > 0:
        return float(2.0 * stats.t.sf(abs(mu) / se, df))
    notes.append(Note(f"the pooled standard error is {se:g}: no p-value", code="pooled-se-undefined",
                      severity="warning"))
    return float("nan")


def _prediction(mu: float, se: float, t2: float, k: int, alpha: float, notes: list[Note]) -> tuple[float, float]:
    """Prediction interval μ̂ ± t_{k−2}·√(τ̂² + se²) for k ≥ 3 (NaN with a note below), a caution below 10."""
    if k < 3:
        notes.append(Note("k < 3: no prediction interval (it needs t on k − 2 ≥ 1 degrees of freedom)",
                          code="no-prediction-interval", severity="caution"))
        return float("nan"), float("nan")
    if k < FEW_FOR_PREDICTION:
        notes.append(Note(f"k = {k} < {FEW_FOR_PREDICTION} settings: the prediction interval rests on a τ² "
                          "estimated from few settings and may cover less than its level", code="few-for-prediction",
                          severity="caution"))
    half = stats.t.ppf(1.0 - alpha / 2.0, k - 2) * np.sqrt(t2 + se ** 2)
    return float(mu - half), float(mu + half)
