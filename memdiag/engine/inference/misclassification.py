"""Estimators for an imperfect judge: Rogan–Gladen correction, PPI++ and exact binomial intervals (SPEC §9).

One job: the arithmetic of judge error on plain numbers and arrays, with no verdict tables —
the layer-5 module :mod:`memdiag.measurement.judge_error` applies it to a prepared panel.

- :func:`rogan_gladen` — the corrected accuracy θ̂ = (p̂ + q̂₀ − 1)/(q̂₀ + q̂₁ − 1) and the delta-method
  interval of Lee et al. (2025) that carries the sampling error of the test set (p̂) and of the
  calibration set (q̂₀, q̂₁); :func:`rogan_gladen_difference` for two systems judged by the same
  judge; :func:`calibration_size` inverts the interval for the calibration set a width needs.
- :func:`ppi_mean` — PPI++ (Angelopoulos, Duchi & Zrnic 2023) for a mean from a labelled subset and
  judge predictions, with the power-tuning λ of the ``ppi-python`` package; its interval is the
  package's normal interval for independent items, or the cluster jackknife with t(G − H) (SPEC
  §4.1) when clusters are given.
- :func:`youden_interval` — Newcombe's hybrid score interval of the judge's J = q1 + q0 − 1 from the
  calibration counts (how sure the calibration is that the judge beats chance).
- :func:`clopper_pearson` — the exact binomial interval (scipy's beta quantiles).

Hand-written because statsmodels and scipy have none of the first three; each is tested against an
independent computation (the published examples, the ``ppi-python`` package, simulation).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from memdiag.engine.inference.cluster import jackknife_variance
from memdiag.errors import VerdictError

__all__ = ["calibration_size", "clopper_pearson", "ppi_lambda", "ppi_mean", "rogan_gladen",
           "rogan_gladen_difference", "youden_interval"]


def _rate(value: float, name: str) -> float:
    value = float(value)
    if not 0.0 <= value <= 1.0:
        raise VerdictError(f"{name} must be a proportion in [0, 1], got {value!r}.")
    return value


def _count(value: float, name: str) -> float:
    value = float(value)
    if not value > 0 or not math.isfinite(value):
        raise VerdictError(f"{name} must be a positive count, got {value!r}.")
    return value


def _z(confidence_level: float) -> float:
    if not 0.0 < confidence_level < 1.0:
        raise VerdictError(f"confidence_level must lie in (0, 1), got {confidence_level!r}.")
    return float(stats.norm.ppf(0.5 + confidence_level / 2))


def _youden(q0: float, q1: float) -> float:
    j = q0 + q1 - 1.0
    if j <= 0:
        raise VerdictError(f"the judge is no better than chance (specificity {q0:.4f} + sensitivity {q1:.4f} "
                           "<= 1): the Rogan–Gladen correction is undefined. Check the calibration labels.")
    return j


def rogan_gladen(p: float, q0: float, q1: float, n: float, m0: float, m1: float, *,
                 confidence_level: float = 0.95, var_p: float | None = None,
                 df: float | None = None) -> dict[str, float]:
    """Rogan–Gladen corrected accuracy with the Lee et al. interval (SPEC §9.1).

    θ̂ = (p + q0 − 1)/(q0 + q1 − 1) and, by the delta method,
    Var θ̂ = [Var p̂ + (1 − θ̂)² q0(1 − q0)/m0 + θ̂² q1(1 − q1)/m1] / (q0 + q1 − 1)², with
    Var p̂ = p(1 − p)/n unless ``var_p`` is given (a design-based variance, SPEC §4.1). The estimate
    and the interval θ̂ ± z·se (t on ``df`` degrees of freedom when given) are both truncated to
    [0, 1], so the estimate always lies in its interval; ``raw_estimate``, ``raw_ci_low`` and
    ``raw_ci_high`` keep the untruncated numbers and ``truncated`` says whether any changed.

    >>> r = rogan_gladen(0.5, 0.9, 0.9, 10_000, 5_000, 5_000)   # Lee et al.'s example
    >>> round(r["estimate"], 4), round(r["ci_low"], 4), round(r["ci_high"], 4)
    (0.5, 0.4857, 0.5143)
    """
    p, q0, q1 = _rate(p, "p"), _rate(q0, "specificity"), _rate(q1, "sensitivity")
    n, m0, m1 = _count(n, "n"), _count(m0, "m0 (truly incorrect calibration items)"), _count(m1, "m1 (truly correct calibration items)")
    j = _youden(q0, q1)
    theta = (p + q0 - 1.0) / j
    vp = p * (1 - p) / n if var_p is None else float(var_p)
    v_test = vp / j ** 2
    v_cal = ((1 - theta) ** 2 * q0 * (1 - q0) / m0 + theta ** 2 * q1 * (1 - q1) / m1) / j ** 2
    se = math.sqrt(v_test + v_cal)
    q = _z(confidence_level) if df is None else float(stats.t.ppf(0.5 + confidence_level / 2, df))
    return {**_truncated(theta, q * se, 0.0), "se": se, "var_test": v_test, "var_calibration": v_cal}


def _truncated(estimate: float, half: float, low: float) -> dict[str, float]:
    """The estimate and its interval estimate ± half, each truncated to [low, 1] (clipping is monotone,
    so the estimate stays inside its interval), beside the untruncated numbers."""
    raw = (estimate, estimate - half, estimate + half)
    cut = tuple(min(1.0, max(low, v)) for v in raw)
    return {"estimate": cut[0], "ci_low": cut[1], "ci_high": cut[2], "raw_estimate": raw[0], "raw_ci_low": raw[1],
            "raw_ci_high": raw[2], "truncated": cut != raw}


def rogan_gladen_difference(pa: float, pb: float, q0: float, q1: float, var_diff: float, m0: float, m1: float, *,
                            confidence_level: float = 0.95, df: float | None = None) -> dict[str, float]:
    """Rogan–Gladen corrected difference θ̂_a − θ̂_b of two systems judged by one judge (SPEC §9.1).

    θ̂_a − θ̂_b = (p_a − p_b)/J with J = q0 + q1 − 1; the same q̂ enter both, so
    Var = [Var(p̂_a − p̂_b) + (θ̂_a − θ̂_b)² (q0(1 − q0)/m0 + q1(1 − q1)/m1)] / J². ``var_diff`` is the
    paired variance of the observed difference (under the design). The estimate and the interval are
    both truncated to [−1, 1] (the untruncated numbers kept as in :func:`rogan_gladen`).

    >>> r = rogan_gladen_difference(0.6, 0.5, 0.9, 0.9, 1e-4, 500, 500)
    >>> round(r["estimate"], 4), round(r["se"], 5)   # 0.1/0.8; sqrt(1e-4 + 0.125²·2·0.09/500)/0.8 = 0.012847
    (0.125, 0.01285)
    """
    pa, pb = _rate(pa, "p_a"), _rate(pb, "p_b")
    q0, q1 = _rate(q0, "specificity"), _rate(q1, "sensitivity")
    m0, m1 = _count(m0, "m0"), _count(m1, "m1")
    j = _youden(q0, q1)
    delta = (pa - pb) / j
    v_test = float(var_diff) / j ** 2
    v_cal = delta ** 2 * (q0 * (1 - q0) / m0 + q1 * (1 - q1) / m1) / j ** 2
    se = math.sqrt(v_test + v_cal)
    q = _z(confidence_level) if df is None else float(stats.t.ppf(0.5 + confidence_level / 2, df))
    return {**_truncated(delta, q * se, -1.0), "se": se, "var_test": v_test, "var_calibration": v_cal}


def calibration_size(p: float, q0: float, q1: float, n: float, width: float, *, confidence_level: float = 0.95,
                     allocation: str = "optimal") -> dict[str, float]:
    """The smallest calibration set (m0 truly incorrect + m1 truly correct items) for which the Rogan–Gladen
    interval's full width is at most ``width`` (SPEC §9.1).

    With A = (1 − θ)² q0(1 − q0), B = θ² q1(1 − q1) and the half-width h = width/2, the calibration part
    of the variance must be at most (h/z)²J² − p(1 − p)/n. ``optimal`` splits m0 : m1 = √A : √B
    (minimises A/m0 + B/m1 for a given total); ``equal`` uses m0 = m1. Infinite when the test set alone
    already exceeds the width; ``test_width`` is that width, 2z·√(p(1 − p)/n)/J (no calibration error).

    >>> r = calibration_size(0.5, 0.9, 0.9, 10_000, 0.0286, allocation="equal")
    >>> int(r["m0"]), int(r["m1"])   # Lee et al.'s example has width 0.02857 at 5,000 + 5,000
    (4963, 4963)
    """
    if allocation not in ("optimal", "equal"):
        raise VerdictError(f"allocation must be 'optimal' or 'equal', got {allocation!r}.")
    p, q0, q1 = _rate(p, "p"), _rate(q0, "specificity"), _rate(q1, "sensitivity")
    n, width = _count(n, "n"), _count(width, "width")
    j = _youden(q0, q1)
    theta = min(1.0, max(0.0, (p + q0 - 1.0) / j))
    budget = (width / 2 / _z(confidence_level)) ** 2 * j ** 2 - p * (1 - p) / n
    a, b = (1 - theta) ** 2 * q0 * (1 - q0), theta ** 2 * q1 * (1 - q1)
    test_width = 2 * _z(confidence_level) * math.sqrt(p * (1 - p) / n) / j
    if budget <= 0:
        return {"m0": math.inf, "m1": math.inf, "m": math.inf, "accuracy": theta, "test_width": test_width}
    if allocation == "equal":
        m0 = m1 = math.ceil((a + b) / budget - 1e-9)
    else:
        total = (math.sqrt(a) + math.sqrt(b)) ** 2 / budget
        share = math.sqrt(a) / (math.sqrt(a) + math.sqrt(b)) if a + b > 0 else 0.5
        m0, m1 = math.ceil(total * share - 1e-9), math.ceil(total * (1 - share) - 1e-9)
        # rounding each part up keeps A/m0 + B/m1 within the budget
    m0, m1 = max(m0, 1), max(m1, 1)
    return {"m0": float(m0), "m1": float(m1), "m": float(m0 + m1), "accuracy": theta, "test_width": test_width}


def _wilson(p: float, n: float, z: float) -> tuple[float, float]:
    """Wilson's score interval of a proportion p observed on n items."""
    centre, scale = p + z * z / (2 * n), 1 + z * z / n
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - half) / scale, (centre + half) / scale


def youden_interval(q0: float, q1: float, m0: float, m1: float, *, confidence_level: float = 0.95) -> tuple[float, float]:
    """Newcombe's hybrid score interval of J = q1 + q0 − 1 = q1 − (1 − q0) from the calibration counts (SPEC §9.1).

    J is the difference of two independent proportions, the sensitivity q1 on the m1 truly right
    items and the false-positive rate f = 1 − q0 on the m0 truly wrong ones. With Wilson intervals
    (l1, u1) of q1 and (lf, uf) of f, the interval is
    [J − √((q1 − l1)² + (uf − f)²), J + √((u1 − q1)² + (f − lf)²)] (Newcombe 1998, method 10): it stays
    inside [−1, 1] and is not degenerate at q1 = 1 or q0 = 1, where the Wald interval has zero width.

    >>> [round(v, 4) for v in youden_interval(0.9, 0.9, 100, 100)]   # statsmodels method="newcomb" agrees
    [0.6948, 0.8633]
    """
    q0, q1 = _rate(q0, "specificity"), _rate(q1, "sensitivity")
    m0, m1 = _count(m0, "m0 (truly incorrect calibration items)"), _count(m1, "m1 (truly correct calibration items)")
    z, f = _z(confidence_level), 1.0 - q0
    (l1, u1), (lf, uf) = _wilson(q1, m1, z), _wilson(f, m0, z)
    j = q1 - f
    return j - math.hypot(q1 - l1, uf - f), j + math.hypot(u1 - q1, f - lf)


def ppi_lambda(y: np.ndarray, yhat: np.ndarray, yhat_unlabelled: np.ndarray) -> float:
    """PPI++'s power-tuning λ for a mean, as the ``ppi-python`` package computes it (SPEC §9.2).

    λ = Cov(Y − θ̃, Ŷ − θ̃)/((1 + n/N) Var(Ŷ ∪ Ŷ_U)), the covariance over the n labelled items with
    divisor n and the variance over all n + N predictions with divisor n + N − 1, clipped to [0, 1].

    >>> round(ppi_lambda(np.array([1., 0, 1, 0]), np.array([1., 0, 1, 1]), np.array([1., 0, 1, 0, 1])), 4)
    0.2778
    """
    y, yhat, yu = (np.asarray(v, dtype=float).ravel() for v in (y, yhat, yhat_unlabelled))
    n, N = y.size, yu.size
    cov = np.mean((y - y.mean()) * (yhat - yhat.mean()))
    var = np.var(np.concatenate([yhat, yu]), ddof=1)
    if var == 0:
        return 0.0
    return float(np.clip(cov / ((1 + n / N) * var), 0.0, 1.0))


def ppi_mean(y: np.ndarray, yhat: np.ndarray, yhat_unlabelled: np.ndarray, *, lam: float | None = None,
             clusters: np.ndarray | None = None, clusters_unlabelled: np.ndarray | None = None,
             strata: dict | None = None, confidence_level: float = 0.95) -> dict[str, float]:
    """PPI++ estimate and interval of a mean from labels ``y`` on n items, the judge's ``yhat`` on the same
    items and its ``yhat_unlabelled`` on N other items (SPEC §9.2).

    θ̂ = λ·mean(Ŷ_U) + mean(Y − λŶ). Without clusters the interval is the normal one of
    ``ppi_py.ppi_mean_ci``: se² = λ² s²(Ŷ_U)/N + s²(Y − λŶ)/n (divisors N and n). With cluster labels
    for both sets, θ̂ is a function of cluster sums and its variance is the cluster jackknife (λ held
    fixed) with a t interval on G − H degrees of freedom (``strata`` maps a cluster to its stratum).

    >>> r = ppi_mean(np.array([1., 0, 1, 0]), np.array([1., 0, 1, 1]), np.array([1., 0, 1, 0, 1]), lam=1.0)
    >>> round(r["estimate"], 4)   # 3/5 + (0 + 0 + 0 − 1)/4
    0.35
    """
    y, yhat, yu = (np.asarray(v, dtype=float).ravel() for v in (y, yhat, yhat_unlabelled))
    if y.size != yhat.size:
        raise VerdictError(f"labels and judge verdicts of the labelled items differ in length ({y.size} vs {yhat.size}).")
    if y.size < 2 or yu.size < 1:
        raise VerdictError(f"PPI needs at least 2 labelled and 1 unlabelled item; got {y.size} labelled and "
                           f"{yu.size} unlabelled. Label more items.")
    lam = ppi_lambda(y, yhat, yu) if lam is None else float(lam)
    estimate = lam * yu.mean() + (y - lam * yhat).mean()
    if clusters is None:
        se = math.sqrt(lam ** 2 * yu.var() / yu.size + (y - lam * yhat).var() / y.size)
        q, df = _z(confidence_level), math.inf
    else:
        cl, cu = np.asarray(clusters).ravel(), np.asarray(clusters_unlabelled).ravel()
        groups = np.unique(np.concatenate([cl, cu]).astype(str))
        if groups.size < 2:
            raise VerdictError("the cluster jackknife needs at least 2 clusters.")
        cl, cu = cl.astype(str), cu.astype(str)
        # per-cluster sums: unlabelled Ŷ and count; labelled Y − λŶ and count
        su = np.array([yu[cu == g].sum() for g in groups])
        nu = np.array([(cu == g).sum() for g in groups], dtype=float)
        sl = np.array([(y - lam * yhat)[cl == g].sum() for g in groups])
        nl = np.array([(cl == g).sum() for g in groups], dtype=float)
        with np.errstate(invalid="ignore", divide="ignore"):
            leave = lam * (su.sum() - su) / (nu.sum() - nu) + (sl.sum() - sl) / (nl.sum() - nl)
        codes = None if strata is None else np.array([strata[g] for g in groups])
        se = math.sqrt(float(jackknife_variance(leave, codes)))
        df = groups.size - (1 if codes is None else np.unique(codes).size)
        q = float(stats.t.ppf(0.5 + confidence_level / 2, df))
    return {"estimate": float(estimate), "se": se, "ci_low": float(estimate - q * se),
            "ci_high": float(estimate + q * se), "lam": lam, "df": float(df)}


def clopper_pearson(k: int, n: int, confidence_level: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper–Pearson) interval of a binomial proportion k/n from beta quantiles (SPEC §9.3).

    >>> [round(v, 4) for v in clopper_pearson(0, 10)]
    [0.0, 0.3085]
    """
    if n <= 0 or not 0 <= k <= n:
        raise VerdictError(f"a binomial count needs 0 <= k <= n and n > 0; got k={k}, n={n}.")
    alpha = 1 - confidence_level
    low = 0.0 if k == 0 else float(stats.beta.ppf(alpha / 2, k, n - k + 1))
    high = 1.0 if k == n else float(stats.beta.ppf(1 - alpha / 2, k + 1, n - k))
    return low, high
