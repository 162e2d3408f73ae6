"""Intervals and tests of a statistic of sums under a design, by the rule of SPEC §4.1.

One job: given per-query additive contributions ``X`` (or paired 2x2 cell codes) and a vectorised
statistic of their sums — the form every memdiag metric takes (:mod:`memdiag.panel.metrics`) — return
each output's estimate, interval, standard error and p-value, with the method and test that
produced them, the Monte-Carlo error of every resampled number and the share of replicates in
which an output was undefined. Which method runs is decided by :func:`memdiag.engine.inference.rule.method_of`:

- ``percentile``: the count-weight bootstrap of :mod:`memdiag.engine.resampling` (percentile interval,
  bootstrap sign test);
- ``jackknife`` / ``cr2`` (cluster designs): the cluster jackknife (or CR2) standard error with
  a t interval (:mod:`memdiag.engine.inference.cluster`) and the restricted wild cluster bootstrap-t
  p-value (:mod:`memdiag.engine.inference.wild`).

Both need the statistic only as a function of sums. The cluster jackknife evaluates it at the
totals without each cluster; the wild bootstrap needs each cluster's *contribution* ψ_g to
θ̂ − θ, the directional derivative of the statistic at the totals T in the direction of the
cluster's sums Xu_g (:func:`linearize`). For a ratio θ̂ = ΣA/ΣB that is (A_g − θ̂ B_g)/ΣB
(SPEC §4.1); for macro-averages and gates it is the same linearisation term by term.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from memdiag.core.notes import Note
from memdiag.engine.designs import Design, as_design
from memdiag.engine.inference.cluster import (
    bell_mccaffrey_df,
    cr2_variance,
    jackknife_variance,
    t_interval,
)
from memdiag.engine.inference.rule import method_of
from memdiag.engine.inference.wild import EXACT_UP_TO, nonzero_contributions, wild_test
from memdiag.engine.pairs import cell_counts
from memdiag.engine.resampling import (
    BootstrapResult,
    _evaluate,
    bootstrap_sums,
    cell_bootstrap,
    quantile_bootstrap,
    run_seed,
    unit_sums,
)

__all__ = ["Inference", "describe", "infer", "infer_cells", "infer_quantiles", "jackknife", "linearize",
           "provenance_of"]

Statistic = Callable[[np.ndarray], np.ndarray]

#: Step of the central differences in :func:`linearize`, relative to a cluster's own sums.
_STEP = 1e-3


@dataclass(frozen=True, eq=False)
class Inference:
    """Estimates, intervals and tests of ``m`` outputs of a statistic under a design.

    Attributes
    ----------
    estimate, ci_low, ci_high, se
        ``(m,)`` the statistic on the data, its interval at ``confidence_level`` and standard error.
    p_value
        ``(m,)`` two-sided p-value of ``estimate == null`` (NaN when no test was asked).
    tests
        ``(m,)`` the test behind each p-value (exact randomization and sampled draws can differ by
        output).
    method
        How the intervals were made (``percentile bootstrap (cluster)``, ``cluster jackknife,
        t(9)``, ...).
    kind
        ``percentile``, ``jackknife`` or ``cr2`` (:func:`memdiag.engine.inference.rule.method_for`).
    df
        Degrees of freedom of the t intervals (None for percentile intervals).
    p_floor
        ``(m,)`` True where a resampled p-value sits at its Monte-Carlo floor (report "< p").
    undefined
        ``(m,)`` share of replicates (percentile) or of leave-one-cluster-out estimates (jackknife)
        in which the output was undefined (a denominator of 0); they are left out (percentile) or
        make the interval undefined (jackknife).
    mc_se
        Monte-Carlo standard errors ``{"p", "ci_low", "ci_high"}``, each ``(m,)``; 0 where a number
        is computed exactly (t intervals, enumerated sign flips, exact tests).
    n_resamples
        Replicates or wild draws behind the resampled numbers (0 when nothing was resampled).
    design
        The design.
    distribution
        ``(B, m)`` percentile replicates when asked for, else None.
    """

    estimate: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    se: np.ndarray
    p_value: np.ndarray
    tests: tuple[str, ...]
    method: str
    kind: str
    df: float | None
    p_floor: np.ndarray
    undefined: np.ndarray
    mc_se: dict[str, np.ndarray]
    n_resamples: int
    design: Design
    distribution: np.ndarray | None = field(default=None, repr=False)


# --------------------------------------------------------------------------------------------
# per-cluster quantities of a statistic of sums
# --------------------------------------------------------------------------------------------
def linearize(statistic: Statistic, total: np.ndarray, unit_sums_: np.ndarray) -> np.ndarray:
    """Contributions ψ_g ``(G, m)``: the derivative of the statistic at ``total`` in the direction
    of each unit's sums.

    Central differences at steps ε and 2ε (ε = 10⁻³ of the unit's own sums), combined by
    Richardson extrapolation: ψ = (4·D(ε) − D(2ε))/3 with D(s) = (θ(T + s·x) − θ(T − s·x))/(2s).
    For memdiag's statistics (ratios of sums and weighted sums of them) the error is of order ε⁴,
    below 10⁻¹⁰ relative, and for θ = ΣA/ΣB the result is (A_g − θ̂ B_g)/ΣB (SPEC §4.1).

    >>> X = np.array([[3.0, 10.0], [1.0, 10.0], [2.0, 5.0]])     # (A_g, B_g); θ̂ = 6/25
    >>> linearize(lambda s: s[:, :1] / s[:, 1:], X.sum(axis=0), X)[:, 0].round(10).tolist()
    [0.024, -0.056, 0.032]
    """
    G = unit_sums_.shape[0]
    steps = (_STEP, -_STEP, 2 * _STEP, -2 * _STEP)
    values = _evaluate(statistic, np.concatenate([total[None, :] + s * unit_sums_ for s in steps]))
    up, down, up2, down2 = (values[i * G:(i + 1) * G] for i in range(4))
    d1 = (up - down) / (2 * _STEP)
    d2 = (up2 - down2) / (4 * _STEP)
    return (4.0 * d1 - d2) / 3.0


def jackknife(statistic: Statistic, unit_sums_: np.ndarray, strata: np.ndarray | None = None) -> np.ndarray:
    """Leave-one-unit-out estimates ``(G, m)`` of a statistic of sums.

    Without strata θ̂₍₋g₎ = θ(T − Xu_g). With strata (JKn) the other clusters of g's stratum h
    are re-weighted by G_h/(G_h − 1): θ(T − T_h + G_h/(G_h − 1)·(T_h − Xu_g)) (Rust & Rao 1996).

    >>> X = np.array([[3.0, 10.0], [1.0, 10.0], [2.0, 5.0]])
    >>> jackknife(lambda s: s[:, :1] / s[:, 1:], X)[:, 0].round(4).tolist()
    [0.2, 0.3333, 0.2]
    """
    total = unit_sums_.sum(axis=0)
    if strata is None:
        return _evaluate(statistic, total[None, :] - unit_sums_)
    codes = np.unique(np.asarray(strata), return_inverse=True)[1].reshape(-1)
    sizes = np.bincount(codes).astype(np.float64)
    per_stratum = np.zeros((len(sizes), unit_sums_.shape[1]))
    np.add.at(per_stratum, codes, unit_sums_)
    scale = np.where(sizes > 1, sizes / np.maximum(sizes - 1, 1), 1.0)[codes][:, None]
    rows = total[None, :] - per_stratum[codes] + scale * (per_stratum[codes] - unit_sums_)
    return _evaluate(statistic, rows)


# --------------------------------------------------------------------------------------------
# the two ways to an interval
# --------------------------------------------------------------------------------------------
def _unit_layout(design: Design) -> tuple[np.ndarray, np.ndarray | None]:
    """Each unit's share of the queries ω_g = n_g/N and its stratum (None when unstratified)."""
    sizes = np.bincount(design.unit_of, minlength=design.n_units).astype(np.float64)
    strata = design.unit_stratum if design.kind in ("stratified", "stratified-cluster") else None
    return sizes / sizes.sum(), strata


def _test_name(exact: bool, draws: int, weights: str, clustered: bool) -> str:
    units = "clusters" if clustered else "queries"
    if draws == 0:
        return f"no {units[:-1]} differs: p = 1"
    if exact:
        return f"exact sign-flip randomization ({draws} patterns)" if not clustered \
            else f"wild cluster bootstrap-t, exact ({draws} sign flips)"
    return f"wild cluster bootstrap-t, {weights} weights, B = {draws}"


def _wild_p(psi: np.ndarray, estimate: np.ndarray, null: np.ndarray, omega: np.ndarray,
            strata: np.ndarray | None, n_resamples: int, seed: int, clustered: bool, tested: np.ndarray,
            exact_only: bool = False) -> tuple[np.ndarray, list, np.ndarray, np.ndarray, np.ndarray]:
    """WCR p-values of the ``tested`` outputs from contributions: (p, test names, floor, mc_se,
    mask of outputs tested).

    With ``exact_only`` only outputs with at most :data:`EXACT_UP_TO` nonzero restricted
    contributions are tested (the exact-where-small rule); the mask says which.
    """
    gap = np.where(np.isnan(estimate), 0.0, estimate - null)
    restricted = psi + gap[None, :] * omega[:, None]
    parts = np.abs(psi) + np.abs(gap)[None, :] * omega[:, None]
    nonzero = nonzero_contributions(restricted, parts).sum(axis=0)
    mask = tested & ~np.isnan(estimate) & ~np.isnan(psi).any(axis=0)
    if exact_only:
        mask &= nonzero <= EXACT_UP_TO
    m = estimate.shape[0]
    p, floor, mc_se = np.full(m, np.nan), np.zeros(m, dtype=bool), np.zeros(m)
    names: list = [None] * m
    if mask.any():
        out = wild_test(restricted[:, mask], omega, parts=parts[:, mask], strata=strata,
                        n_resamples=n_resamples, seed=seed, weights="exact" if exact_only else None)
        p[mask], floor[mask], mc_se[mask] = out.p_value, out.floor, out.mc_se
        for i, j in enumerate(np.flatnonzero(mask)):
            names[j] = _test_name(bool(out.exact[i]), int(out.n_draws[i]), out.weights[i], clustered)
    return p, names, floor, mc_se, mask


def _percentile(res: BootstrapResult, *, test: np.ndarray, keep: bool) -> Inference:
    """An :class:`Inference` from a percentile bootstrap with its replicates (p only where ``test``)."""
    defined = res.n_resamples - res.n_undefined
    p = np.where(test, res.p_value, np.nan)
    with np.errstate(invalid="ignore"):
        floor = test & np.isclose(p, 2.0 / (1.0 + defined), rtol=1e-12, atol=0.0) & (p < 1)
        # p = 2·min(p₋, p₊) doubles a one-sided share p₁ = p/2: its Monte-Carlo error is
        # 2·√(p₁(1 − p₁)/B), not √(p(1 − p)/B) (SPEC §4.1; at p ≤ 1 where the doubling is not capped)
        one_sided = np.clip(p / 2, 0, 0.5)
        p_se = np.where(np.isnan(p), np.nan, 2 * np.sqrt(one_sided * (1 - one_sided) / np.maximum(defined, 1)))
    return Inference(
        estimate=res.estimate, ci_low=res.ci_low, ci_high=res.ci_high, se=res.standard_error, p_value=p,
        tests=tuple(f"bootstrap sign test ({res.design.kind})" if t else "" for t in test),
        method=f"percentile bootstrap ({res.design.kind})", kind="percentile", df=None,
        p_floor=np.asarray(floor, dtype=bool), undefined=res.n_undefined / res.n_resamples,
        mc_se={"p": p_se, "ci_low": res.mc_se[0], "ci_high": res.mc_se[1]},
        n_resamples=res.n_resamples, design=res.design, distribution=res.distribution if keep else None)


def _exact_where_small(inf: Inference, statistic: Statistic, units: np.ndarray, null: np.ndarray,
                       seed: int, tested: np.ndarray) -> Inference:
    """Replace sign-test p-values by the exact sign-flip randomization p where at most
    :data:`EXACT_UP_TO` units carry a nonzero contribution (SPEC §4.1)."""
    omega, strata = _unit_layout(inf.design)
    psi = linearize(statistic, units.sum(axis=0), units)
    p, names, _, _, mask = _wild_p(psi, inf.estimate, null, omega, strata, 1, seed, inf.design.clustered,
                                   tested, exact_only=True)
    if not mask.any():
        return inf
    tests = tuple(names[j] if mask[j] else inf.tests[j] for j in range(len(mask)))
    mc_se = dict(inf.mc_se, p=np.where(mask, 0.0, inf.mc_se["p"]))
    return Inference(**{**inf.__dict__, "p_value": np.where(mask, p, inf.p_value), "tests": tests,
                        "p_floor": inf.p_floor & ~mask, "mc_se": mc_se})


def _small_clusters(units: np.ndarray, design: Design, statistic: Statistic, kind: str, *, test: np.ndarray,
                    null: np.ndarray, n_resamples: int, seed: int, confidence_level: float,
                    bounds: tuple[float, float] | None) -> Inference:
    """Jackknife (or CR2) t intervals and WCR p-values from per-cluster sums ``units`` ``(G, K)``."""
    omega, strata = _unit_layout(design)
    G = units.shape[0]
    estimate = _evaluate(statistic, units.sum(axis=0)[None, :])[0]
    m = estimate.shape[0]
    if G < 2:   # e.g. one category of a by= table that lies in a single conversation
        nan, zeros = np.full(m, np.nan), np.zeros(m)
        return Inference(estimate=estimate, ci_low=nan, ci_high=nan, se=nan, p_value=nan, tests=("",) * m,
                         method="cluster jackknife: undefined with one cluster", kind=kind, df=None,
                         p_floor=np.zeros(m, dtype=bool), undefined=np.ones(m),
                         mc_se={"p": zeros, "ci_low": zeros, "ci_high": zeros}, n_resamples=0, design=design)
    leave = jackknife(statistic, units, strata)
    undefined = np.isnan(leave).sum(axis=0)
    psi = linearize(statistic, units.sum(axis=0), units)
    if kind == "cr2":
        df = bell_mccaffrey_df(omega)
        var = cr2_variance(psi - psi.mean(axis=0), omega)
        method = f"CR2, Bell–McCaffrey t({df:.1f})"
    else:
        df = float(G - (1 if strata is None else len(np.unique(strata))))
        var = jackknife_variance(leave, strata)
        method = f"cluster jackknife, t({df:g})"
    var = np.where(undefined > 0, np.nan, np.broadcast_to(var, (m,)))
    se = np.sqrt(var)
    low, high = t_interval(estimate, se, df, confidence_level)
    if bounds is not None:
        low, high = np.clip(low, *bounds), np.clip(high, *bounds)
    p = np.full(m, np.nan)
    names = [""] * m
    floor, p_se = np.zeros(m, dtype=bool), np.zeros(m)
    draws = 0
    if test.any():
        p, found, floor, p_se, mask = _wild_p(psi, estimate, null, omega, strata, n_resamples, seed, True,
                                              np.broadcast_to(test, (m,)))
        names = [found[j] if mask[j] else "" for j in range(m)]
        draws = n_resamples if any("B =" in n for n in names) else 0
    zeros = np.zeros(m)
    return Inference(estimate=estimate, ci_low=low, ci_high=high, se=se, p_value=p, tests=tuple(names),
                     method=method, kind=kind, df=df, p_floor=floor, undefined=undefined / G,
                     mc_se={"p": p_se, "ci_low": zeros, "ci_high": zeros}, n_resamples=draws, design=design)


# --------------------------------------------------------------------------------------------
# public entry points
# --------------------------------------------------------------------------------------------
def infer(
    X: np.ndarray,
    design: Design | str,
    statistic: Statistic,
    *,
    inference: str = "auto",
    test: bool | np.ndarray = True,
    null: float | np.ndarray = 0.0,
    n_resamples: int = 20_000,
    seed: int | np.random.Generator = 0,
    confidence_level: float = 0.95,
    bounds: tuple[float, float] | None = None,
    keep_distribution: bool = False,
) -> Inference:
    """Estimates, intervals and tests of a statistic of sums under a design (SPEC §4, §4.1).

    Parameters
    ----------
    X
        ``(N, K)`` per-query additive contributions.
    design
        A :class:`~memdiag.engine.designs.Design` for the same N queries, or ``"iid"``.
    statistic
        Vectorised ``(b, K) -> (b, m)`` function of sums (:mod:`memdiag.panel.metrics`).
    inference
        ``auto``, ``percentile``, ``jackknife`` or ``cr2`` (:mod:`memdiag.engine.inference.rule`).
    test
        Compute p-values of ``estimate == null`` (differences, threshold claims): a bool, or an
        ``(m,)`` mask of the outputs to test; False for intervals alone (per-system scores).
    null
        Scalar or ``(m,)`` value under the null.
    n_resamples, seed
        Bootstrap replicates (percentile) or sampled wild draws, and their seed.
    confidence_level
        Interval level.
    bounds
        Range of the outputs, ``(low, high)`` scalars or ``(m,)`` arrays (e.g. (0, 1) for rates):
        t intervals are clipped to it (a percentile interval is inside it already).
    keep_distribution
        Keep the ``(B, m)`` percentile replicates (rank stability).

    Returns
    -------
    Inference

    Notes
    -----
    Percentile: SPEC §4.4 (percentile interval, sign test, undefined replicates left out and
    counted). Jackknife: θ̂ ± t_{G−H}·√V_J. CR2: θ̂ ± t_ν·√V₂, ν Bell–McCaffrey. Wild p: WCR on
    r_g = ψ_g + (θ̂ − θ₀)·n_g/N, exact for a difference of plain means (r_g = D_g/N) and its
    linearisation otherwise, with weights by the number G' of clusters that contribute
    (:func:`memdiag.engine.inference.wild.weights_for`: all sign flips when G' < 8 or 12 ≤ G' ≤ 16, Webb when
    8 ≤ G' < 12, Rademacher above 16; SPEC §4.1). Exact where small under the percentile method:
    when at most 16 units (queries under ``iid``) carry a nonzero contribution, the sign test is
    replaced by the exact sign-flip randomization p.

    Examples
    --------
    Five conversations of 20 queries, the system one query better in each: the exact
    randomization p (all 32 sign flips; only the data and its mirror image are as extreme).

    >>> cluster = np.repeat(np.arange(5), 20)
    >>> y = np.zeros((100, 2)); y[::20, 1] = 1
    >>> X = np.column_stack([y, np.ones(100)])
    >>> res = infer(X, Design("cluster", cluster=cluster), lambda s: (s[:, 1:2] - s[:, :1]) / s[:, 2:])
    >>> res.method, float(res.p_value[0]), res.tests[0]
    ('cluster jackknife, t(4)', 0.0625, 'wild cluster bootstrap-t, exact (32 sign flips)')
    """
    X = np.asarray(X, dtype=np.float64)
    X = X[:, None] if X.ndim == 1 else X
    design = as_design(design, X.shape[0])
    kind = method_of(design, inference)
    seed = run_seed(seed)
    m_null = np.asarray(null, dtype=np.float64)
    if kind != "percentile":
        return _small_clusters(unit_sums(X, design), design, statistic, kind, test=np.asarray(test, dtype=bool),
                               null=m_null, n_resamples=n_resamples, seed=seed,
                               confidence_level=confidence_level, bounds=bounds)
    res = bootstrap_sums(X, design, statistic, n_resamples=n_resamples, seed=seed, ci=confidence_level,
                         null=null, return_distribution=keep_distribution)
    tested = np.broadcast_to(np.asarray(test, dtype=bool), res.estimate.shape)
    out = _percentile(res, test=tested, keep=keep_distribution)
    if tested.any():
        out = _exact_where_small(out, statistic, unit_sums(X, design),
                                 np.broadcast_to(m_null, out.estimate.shape), seed, tested)
    return out


def infer_cells(
    codes: np.ndarray,
    design: Design | str,
    statistic: Statistic,
    *,
    inference: str = "auto",
    test: bool | np.ndarray = True,
    keys: Sequence[int] | None = None,
    swap: Sequence[bool] | np.ndarray | None = None,
    concordant: bool = True,
    n_resamples: int = 20_000,
    seed: int | np.random.Generator = 0,
    confidence_level: float = 0.95,
    bounds: tuple[float, float] | None = None,
    keep_distribution: bool = False,
) -> Inference:
    """:func:`infer` for a statistic of the paired 2x2 cell counts of ``k`` binary contrasts.

    The percentile method draws the cells (:func:`memdiag.engine.resampling.cell_bootstrap`: one
    random stream per pair under the query-level designs); the cluster methods take each
    cluster's cell counts ``(G, k, 4)`` as its sums. ``statistic`` maps cells ``(b, k, 4)`` to
    ``(b, m)``; ``swap`` exchanges benefit and tax of the contrasts drawn in the other
    orientation, on the data and in every replicate. Under ``iid`` and ``stratified`` the p-value
    is the bootstrap sign test: callers with a binary plain mean use exact McNemar instead.
    ``keep_distribution`` keeps the percentile replicates (margin tests, :mod:`memdiag.engine.inference.margin`).

    Examples
    --------
    >>> from memdiag.engine.pairs import cell_codes
    >>> from memdiag.engine.resampling import accuracy_difference
    >>> codes = cell_codes(np.array([1, 0] * 50), np.array([1, 1] * 50))   # 50 benefits, no tax
    >>> res = infer_cells(codes, Design("cluster", cluster=np.repeat(np.arange(5), 20)), accuracy_difference)
    >>> float(res.estimate[0]), float(res.p_value[0])
    (0.5, 0.0625)
    """
    codes = np.asarray(codes)
    codes = codes[:, None] if codes.ndim == 1 else codes
    n, k = codes.shape
    design = as_design(design, n)
    kind = method_of(design, inference)
    seed = run_seed(seed)
    flip = np.zeros(k, dtype=bool) if swap is None else np.asarray(swap, dtype=bool)

    def flat(sums: np.ndarray) -> np.ndarray:
        return statistic(sums.reshape(sums.shape[0], k, 4))

    cells = None
    if design.clustered:
        cells = cell_counts(codes, design.unit_of, design.n_units).astype(np.float64)
        cells[:, flip, 1], cells[:, flip, 2] = cells[:, flip, 2].copy(), cells[:, flip, 1].copy()
        cells = cells.reshape(design.n_units, 4 * k)
    if kind != "percentile":
        return _small_clusters(cells, design, flat, kind, test=np.asarray(test, dtype=bool), null=np.zeros(1),
                               n_resamples=n_resamples, seed=seed, confidence_level=confidence_level,
                               bounds=bounds)
    res = cell_bootstrap(codes, design, statistic, n_resamples=n_resamples, seed=seed, keys=keys, swap=swap,
                         concordant=concordant, confidence_level=confidence_level,
                         return_distribution=keep_distribution)
    tested = np.broadcast_to(np.asarray(test, dtype=bool), res.estimate.shape)
    out = _percentile(res, test=tested, keep=keep_distribution)
    if tested.any() and cells is not None:
        out = _exact_where_small(out, flat, cells, np.zeros(out.estimate.shape), seed, tested)
    return out


def infer_quantiles(
    series: Sequence[tuple[np.ndarray, np.ndarray]],
    design: Design,
    levels: Sequence[float],
    *,
    n_resamples: int = 20_000,
    seed: int | np.random.Generator = 0,
    confidence_level: float = 0.95,
) -> Inference:
    """Quantiles (medians, P95) of several series with percentile intervals under a design.

    A quantile is not a smooth function of sums, so the SPEC §4.1 rule's small-cluster methods
    do not apply to it: the delete-one jackknife variance of a quantile is inconsistent (Efron
    1982; Shao & Wu 1989) and the wild bootstrap needs the linearisation of a smooth statistic.
    Whatever ``inference`` says elsewhere, quantiles get the percentile bootstrap under the design
    (:func:`memdiag.engine.resampling.quantile_bootstrap`: queries, or whole clusters, resampled with
    the design's shared replicate weights), which under-covers with few clusters (SPEC §4.1); the
    ``method`` says so and :func:`describe` writes it into the notes. No test is made.

    Returns
    -------
    Inference
        Outputs in the order (series 0: every level, series 1: every level, ...).

    Examples
    --------
    >>> cluster = np.repeat(np.arange(10), 20)
    >>> x = np.arange(200.0)
    >>> res = infer_quantiles([(np.arange(200), x)], Design("cluster", cluster=cluster), (0.5,), n_resamples=500)
    >>> float(res.estimate[0]), res.method
    (99.5, 'percentile bootstrap (cluster)')
    """
    res = quantile_bootstrap(series, design, levels, n_resamples=n_resamples, seed=seed, ci=confidence_level)
    return _percentile(res, test=np.zeros(res.estimate.shape[0], dtype=bool), keep=False)


# --------------------------------------------------------------------------------------------
# what a result says about its inference
# --------------------------------------------------------------------------------------------
def describe(inf: Inference, n_clusters: int | None, tests: Sequence[str] | None = None) -> str:
    """One note line naming the intervals and tests of a result and why (SPEC §4.1 rule); ``tests``
    are the tests the result reports when a caller replaced some (exact McNemar).

    >>> cluster = np.repeat(np.arange(10), 3)
    >>> res = infer(np.ones((30, 1)), Design("cluster", cluster=cluster), lambda s: s[:, :1] / 30, test=False)
    >>> describe(res, 10)
    'intervals: cluster jackknife, t(9) (10 clusters: fewer than 200, SPEC §4.1)'
    """
    from memdiag.engine.inference.rule import PERCENTILE_FROM

    tests = list(dict.fromkeys(re.sub(r" \(\d+ (sign flips|patterns)\)", "", t)
                               for t in (inf.tests if tests is None else tests) if t))
    line = f"intervals: {inf.method}"
    if tests:
        line += f"; tests: {'; '.join(tests)}"
    if inf.design.clustered and n_clusters:
        if inf.kind == "percentile":
            why = ("the percentile cluster bootstrap: "
                   + (f"{n_clusters} clusters, at least {PERCENTILE_FROM}" if n_clusters >= PERCENTILE_FROM
                      else "chosen by the user (under-covers with few clusters, SPEC §4.1)"))
        elif inf.kind == "cr2" and inf.df is not None:
            why = (f"{n_clusters} clusters: fewer than {PERCENTILE_FROM}; CR2 on Bell–McCaffrey ν = {inf.df:.1f} "
                   f"degrees of freedom beside G − 1 = {n_clusters - 1}: the clusters are unequal or CR2 was "
                   "chosen, SPEC §4.1")
        else:
            why = f"{n_clusters} clusters: fewer than {PERCENTILE_FROM}, SPEC §4.1"
        line += f" ({why})"
    # the degrees of freedom follow the design (SPEC §4.1 rule, unequal clusters)
    return Note(line, code="cr2-unequal-clusters" if inf.kind == "cr2" else "inference-method")


def provenance_of(inf: Inference, inference: str, scale: float = 1.0) -> dict:
    """The ``attrs`` an inference adds to a result: the option, the method and the Monte-Carlo
    standard errors (``mc_se``: ``p`` when tested, and the interval ends scaled like the result,
    one value per output)."""
    mc_se = {"ci_low": [float(scale * v) for v in inf.mc_se["ci_low"]],
             "ci_high": [float(scale * v) for v in inf.mc_se["ci_high"]]}
    if not np.isnan(inf.p_value).all():
        mc_se = {"p": [float(v) for v in inf.mc_se["p"]], **mc_se}
    return {"inference": inference, "method": inf.method, "mc_se": mc_se}
