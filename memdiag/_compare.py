"""Paired comparisons of systems: differences with intervals, tests and family adjustment, the
omnibus test, and per-system bootstrap intervals (SPEC §4, §5).

:func:`compare` gives one row per pair of systems, :func:`omnibus` one test across all systems,
:func:`bootstrap` each system's estimate with its interval (or any user statistic of group
sums). Each works on :class:`~memdiag._prepare.Prepared` data: a metric becomes per-query
additive columns and a vectorised statistic of their sums (:mod:`memdiag._metrics`), which the
resampling engine (:mod:`memdiag._resampling`) recomputes in every replicate.

Test choice (paper C.6, A.5.1): a difference of a binary per-query metric scored as a plain
question-weighted mean under the ``iid`` design is tested with the exact McNemar test; anything
else (fractional scores, official macro-averages and gates, ratio metrics such as utilization,
clustered or stratified designs) with the two-sided bootstrap sign test of SPEC §4. Binary
plain-mean contrasts are resampled through their 2x2 cells (:func:`memdiag._resampling.cell_bootstrap`),
with one random stream per pair of systems, so a pair gets the same interval in every table.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from memdiag import _checks
from memdiag._inference import adjust, cochrans_q, mcnemar
from memdiag._metrics import MetricColumns, metric_columns
from memdiag._pairs import contrast_codes
from memdiag._prepare import Prepared, as_prepared
from memdiag._provenance import stamp
from memdiag._resampling import (
    BootstrapResult, accuracy_difference, bootstrap_sums, cell_bootstrap, run_seed, omnibus_max_range,
)
from memdiag._verdicts import MissingQueryPolicy, MissingVerdictPolicy, Panel
from memdiag.errors import VerdictError

if TYPE_CHECKING:  # pragma: no cover
    from memdiag._schemes import Scheme

#: A cluster-design interval wider than the iid one by this factor is a material design effect.
DESIGN_EFFECT_WARNING = 1.10

#: The columns of a :func:`compare` table, in order.
COLUMNS: tuple[str, ...] = ("system_a", "system_b", "estimate_a", "estimate_b", "diff", "ci_low", "ci_high",
                            "p", "p_adj", "test", "n", "design", "n_resamples", "seed")


def index_pairs(systems: Sequence[str], pairs: str, reference: str | None) -> list[tuple[int, int]]:
    """The ``(a, b)`` column pairs of a comparison: every unordered pair in system order
    (``pairs="all"``) or every system against ``reference`` (``pairs="reference"``)."""
    if pairs == "all":
        return list(itertools.combinations(range(len(systems)), 2))
    if pairs == "reference":
        if reference is None:
            raise VerdictError("pairs='reference' needs a reference system (--reference NAME).")
        if reference not in systems:
            raise VerdictError(f"reference '{reference}' is not in the data (systems: {', '.join(systems)}).")
        r = list(systems).index(reference)
        return [(i, r) for i in range(len(systems)) if i != r]
    raise VerdictError(f"unknown pairs '{pairs}' (use all or reference).")


def _differences(statistic: Callable[[np.ndarray], np.ndarray], pairs: list[tuple[int, int]]):
    left = np.array([a for a, _ in pairs])
    right = np.array([b for _, b in pairs])

    def diff(sums: np.ndarray) -> np.ndarray:
        est = statistic(sums)
        return est[:, left] - est[:, right]

    return diff


def pair_bootstrap(prepared: Prepared, cols: MetricColumns, pairs: list[tuple[int, int]], *,
                   n_resamples: int, seed: int, confidence_level: float) -> BootstrapResult:
    """The bootstrap of each pair's difference a − b under the prepared design (SPEC §4).

    A binary plain-mean metric goes through its 2x2 cells (:func:`~memdiag._resampling.cell_bootstrap`,
    one stream per pair of systems); anything else through the general engine, every system in one
    set of shared replicates (:func:`~memdiag._resampling.bootstrap_sums`).
    """
    if cols.binary:
        codes, keys, swap = contrast_codes(cols.per_query, prepared.systems, pairs)
        return cell_bootstrap(codes, prepared.resampling, accuracy_difference, n_resamples=n_resamples,
                              seed=seed, keys=keys, swap=swap, concordant=False,
                              confidence_level=confidence_level)
    return bootstrap_sums(cols.X, prepared.resampling, _differences(cols.statistic, pairs),
                          n_resamples=n_resamples, seed=seed, ci=confidence_level)


def compare(
    data: pd.DataFrame | Prepared,
    *,
    metric: str = "accuracy",
    scheme: str | Path | Scheme | None = None,
    pairs: str = "all",
    reference: str | None = None,
    design: str | None = None,
    n_resamples: int = 20_000,
    seed: int | np.random.Generator = 0,
    confidence_level: float = 0.95,
    correction: str = "holm",
    threshold: float | None = None,
    systems: Sequence[str] | None = None,
    missing: MissingQueryPolicy | None = None,
    verdict_missing: MissingVerdictPolicy | None = None,
) -> pd.DataFrame:
    """Paired differences between systems with intervals, p-values and a family adjustment.

    Parameters
    ----------
    data
        Canonical verdicts, or :func:`memdiag.prepare` output.
    metric
        ``accuracy`` (the score; under ``scheme`` when given), ``coverage``, ``utilization``,
        or any per-query metric column (``f1``, ``bleu``, ...).
    scheme
        Official aggregation (``locomo``, ``meme``, ``memoryagentbench``, a YAML file, ...),
        recomputed inside every bootstrap replicate.
    pairs
        ``all`` (every unordered pair, in system order) or ``reference`` (each system minus
        ``reference``).
    reference
        The reference system of ``pairs="reference"``.
    design
        ``iid``, ``stratified``, ``cluster`` or ``stratified-cluster``; None follows the scheme
        and the data (:func:`memdiag._designs.resolve_design`); the choice and its reason are in
        ``attrs``. When ``iid`` is used on data with clusters whose design effect is material
        (cluster interval ≥ 10% wider), a warning is issued and the cluster-design interval is
        added in ``ci_low_cluster`` / ``ci_high_cluster``.
    n_resamples, seed, confidence_level
        Bootstrap replicates B (default 20,000), seed (int or Generator; the int used is
        recorded), interval level.
    correction
        ``holm`` (default), ``bonferroni`` or ``fdr_bh`` over the pairs of this call (one
        benchmark-metric family, paper C.6).
    threshold
        Binarise scores at ``> threshold`` before comparing (default None: the scores as they are).
    systems, missing, verdict_missing
        Which systems, and the alignment policies of SPEC §1 (default ``error`` and ``as-wrong``;
        fixed already when ``data`` is prepared).

    Returns
    -------
    pandas.DataFrame
        One row per pair: ``system_a, system_b, estimate_a, estimate_b, diff, ci_low, ci_high,
        p, p_adj, test, n, design, n_resamples, seed``. Estimates and differences are in points;
        ``diff = estimate_a − estimate_b``; the interval is the percentile bootstrap interval of
        the difference under the design. ``attrs`` hold the provenance (:mod:`memdiag._provenance`).

    Raises
    ------
    VerdictError
        Fewer than two systems, an unknown reference or option, bad verdicts.
    SchemeError
        A scheme the data cannot satisfy, or a scheme with a metric it does not aggregate.

    Notes
    -----
    Exact McNemar (binary plain-mean metric, iid design): p = min(1, 2·BinomCDF(min(b, c);
    b + c, ½)) with b, c the discordant counts. Bootstrap sign test otherwise: p = min(1,
    2·min(p₋, p₊)), p₋ = (1 + #{Δ* ≤ 0})/(1 + B), p₊ = (1 + #{Δ* ≥ 0})/(1 + B). SPEC §4–§5.

    References
    ----------
    McNemar, Q. (1947). Note on the sampling error of the difference between correlated
    proportions or percentages. Psychometrika 12(2).
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scand. J. Stat. 6(2).

    Examples
    --------
    >>> import memdiag as md
    >>> df = md.simulate(n_queries=300, systems={"raw-rag": 0.6, "mem": 0.7}, seed=1)
    >>> out = md.compare(df, n_resamples=2000, seed=0)
    >>> out[["system_a", "system_b", "test"]].to_dict("records")
    [{'system_a': 'mem', 'system_b': 'raw-rag', 'test': 'exact McNemar'}]
    >>> bool(out["ci_low"].iloc[0] <= out["diff"].iloc[0] <= out["ci_high"].iloc[0])
    True
    """
    prepared = as_prepared(data, scheme=scheme, metric=metric, systems=systems, missing=missing,
                           verdict_missing=verdict_missing, design=design)
    seed = run_seed(seed)
    n_resamples = _checks.n_resamples(n_resamples)
    confidence_level = _checks.confidence_level(confidence_level)
    correction = _checks.choice(correction, _checks.CORRECTIONS, "correction")
    threshold = _checks.threshold(threshold)
    if len(prepared.systems) < 2:
        raise VerdictError(f"comparing needs at least two systems; the data hold {len(prepared.systems)}.")
    cols = metric_columns(prepared, metric, threshold)
    chosen = index_pairs(prepared.systems, pairs, reference)
    estimates = cols.statistic(cols.X.sum(axis=0)[None, :])[0]
    result = pair_bootstrap(prepared, cols, chosen, n_resamples=n_resamples, seed=seed,
                            confidence_level=confidence_level)
    exact = cols.binary and prepared.design == "iid"
    rows = []
    for k, (a, b) in enumerate(chosen):
        row = {"system_a": prepared.systems[a], "system_b": prepared.systems[b],
               "estimate_a": 100 * estimates[a], "estimate_b": 100 * estimates[b],
               "diff": 100 * result.estimate[k], "ci_low": 100 * result.ci_low[k],
               "ci_high": 100 * result.ci_high[k]}
        if exact:
            ya, yb = cols.per_query[:, a] > 0.5, cols.per_query[:, b] > 0.5
            row["p"] = mcnemar(benefit=int((ya & ~yb).sum()), tax=int((~ya & yb).sum())).p_value
            row["test"] = "exact McNemar"
        else:
            row["p"] = float(result.p_value[k])
            row["test"] = f"bootstrap sign test ({prepared.design})"
        rows.append(row)
    out = pd.DataFrame(rows)
    out["p_adj"] = adjust(out["p"].to_numpy(), method=correction)
    out["n"] = prepared.n
    out["design"] = prepared.design
    out["n_resamples"] = n_resamples
    out["seed"] = seed
    notes = []
    if np.any(np.asarray(result.n_undefined) > 0):
        notes.append(f"{int(np.max(result.n_undefined))} of {n_resamples} replicates gave an undefined "
                     "statistic (empty denominator) and were left out of the interval")
    if prepared.design == "iid" and (prepared.n_clusters or 0) > 1:
        notes += _design_effect(out, cols, prepared, chosen, n_resamples, seed, confidence_level)
    out = out[list(COLUMNS) + [c for c in ("ci_low_cluster", "ci_high_cluster") if c in out]]
    return stamp(out, "compare", prepared, notes=notes, metric=cols.label, n_resamples=n_resamples,
                 seed=seed, confidence_level=confidence_level, correction=correction, threshold=threshold,
                 unit="points")


def _design_effect(out: pd.DataFrame, cols: MetricColumns, prepared: Prepared, pairs: list[tuple[int, int]],
                   n_resamples: int, seed: int, confidence_level: float) -> list[str]:
    """Add the cluster-design interval beside an iid one when the design effect is material."""
    clustered = pair_bootstrap(prepared.with_design("cluster"), cols, pairs, n_resamples=n_resamples,
                               seed=seed, confidence_level=confidence_level)
    iid_width = (out["ci_high"] - out["ci_low"]).to_numpy()
    cluster_width = 100 * (clustered.ci_high - clustered.ci_low)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.nanmax(cluster_width / iid_width)
    if not np.isfinite(ratio) or ratio < DESIGN_EFFECT_WARNING:
        return []
    out["ci_low_cluster"] = 100 * clustered.ci_low
    out["ci_high_cluster"] = 100 * clustered.ci_high
    message = (f"the data are clustered and the cluster-design interval is up to {ratio:.2f}x wider "
               "than the iid one: iid intervals understate the uncertainty (see ci_low_cluster / "
               "ci_high_cluster, or use design='cluster')")
    warnings.warn(message, stacklevel=3)
    return [message]


def omnibus(
    data: pd.DataFrame | Prepared,
    *,
    metric: str = "accuracy",
    scheme: str | Path | Scheme | None = None,
    design: str | None = None,
    n_resamples: int = 20_000,
    seed: int | np.random.Generator = 0,
    threshold: float | None = None,
    systems: Sequence[str] | None = None,
    missing: MissingQueryPolicy | None = None,
    verdict_missing: MissingVerdictPolicy | None = None,
) -> pd.DataFrame:
    """One test of "all systems equal" (SPEC §4–§5; paper C.6, A.5.1).

    Parameters
    ----------
    data
        Canonical verdicts, or :func:`memdiag.prepare` output.
    metric, scheme, design, threshold, systems, missing, verdict_missing
        As in :func:`compare`.
    n_resamples, seed
        Replicates and seed of the bootstrap omnibus (unused by Cochran's Q).

    Returns
    -------
    pandas.DataFrame
        One row: ``metric, test, statistic, df, p, k, n, design, n_resamples, seed``; the
        max-range statistic is in points.

    Raises
    ------
    VerdictError
        Fewer than two systems, bad options or verdicts.

    Notes
    -----
    Cochran's Q (k − 1 df) for a binary plain-mean metric under the ``iid`` design with k ≥ 3
    systems (accuracy on binary verdicts, coverage); otherwise the centered max-range bootstrap:
    T = max θ̂ − min θ̂, T* = max(θ* − θ̂) − min(θ* − θ̂), p = (1 + #{T* ≥ T})/(1 + B).

    References
    ----------
    Cochran, W. G. (1950). The comparison of percentages in matched samples. Biometrika 37(3/4).

    Examples
    --------
    >>> import memdiag as md
    >>> df = md.simulate(n_queries=200, systems={"raw-rag": 0.5, "b": 0.6, "c": 0.7}, seed=2)
    >>> md.omnibus(df)[["test", "df", "k", "n"]]
              test  df  k    n
    0  Cochran's Q   2  3  200
    """
    prepared = as_prepared(data, scheme=scheme, metric=metric, systems=systems, missing=missing,
                           verdict_missing=verdict_missing, design=design)
    seed = run_seed(seed)
    n_resamples = _checks.n_resamples(n_resamples)
    threshold = _checks.threshold(threshold)
    if len(prepared.systems) < 2:
        raise VerdictError(f"an omnibus test needs at least two systems; the data hold {len(prepared.systems)}.")
    units, unit = ((prepared.n_clusters, "clusters") if "cluster" in prepared.design else (prepared.n, "queries"))
    if units is not None and units < 2:
        raise VerdictError(f"an omnibus test needs at least two {unit}; the data hold {units}, so no resample "
                           "can differ from the data and the p-value would mean nothing.")
    cols = metric_columns(prepared, metric, threshold)
    row = {"metric": cols.label, "k": len(prepared.systems), "n": prepared.n, "design": prepared.design}
    if cols.binary and prepared.design == "iid" and len(prepared.systems) >= 3:
        q = cochrans_q(cols.per_query)
        row.update(test="Cochran's Q", statistic=float(q.statistic), df=int(q.df), p=float(q.p_value),
                   n_resamples=None, seed=None)
    else:
        res = omnibus_max_range(cols.X, prepared.resampling, cols.statistic, n_resamples=n_resamples, seed=seed)
        row.update(test=f"centered max-range bootstrap ({prepared.design})", statistic=100 * float(res.statistic),
                   df=None, p=float(res.p_value), n_resamples=n_resamples, seed=seed)
    out = pd.DataFrame([row])[["metric", "test", "statistic", "df", "p", "k", "n", "design",
                               "n_resamples", "seed"]]
    return stamp(out, "omnibus", prepared, metric=cols.label, n_resamples=row["n_resamples"],
                 seed=row["seed"], threshold=threshold)


def bootstrap(
    data: pd.DataFrame | Prepared,
    statistic: str | Callable[[Panel], tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]] = "accuracy",
    *,
    scheme: str | Path | Scheme | None = None,
    design: str | None = None,
    n_resamples: int = 20_000,
    seed: int | np.random.Generator = 0,
    confidence_level: float = 0.95,
    method: str = "percentile",
    threshold: float | None = None,
    systems: Sequence[str] | None = None,
    missing: MissingQueryPolicy | None = None,
    verdict_missing: MissingVerdictPolicy | None = None,
) -> pd.DataFrame:
    """Per-system estimates with paired bootstrap intervals under a design (SPEC §4).

    Parameters
    ----------
    data
        Canonical verdicts, or :func:`memdiag.prepare` output.
    statistic
        A metric name (as in :func:`compare`), or a callable ``f(panel) -> (X, g)`` returning
        per-query additive columns ``X (N, K)`` and a vectorised ``g(sums (b, K)) -> (b, m)``;
        the engine evaluates ``g`` on a whole chunk of replicates at once.
    scheme, design, threshold, systems, missing, verdict_missing
        As in :func:`compare`.
    n_resamples, seed, confidence_level
        Replicates B, seed, interval level.
    method
        ``percentile`` or ``bca`` (``iid`` design only).

    Returns
    -------
    pandas.DataFrame
        One row per system (or per output of a callable statistic): ``system, estimate, ci_low,
        ci_high, se, n, design, n_resamples, seed``; estimates of a named metric in points.

    Raises
    ------
    VerdictError
        Bad options or verdicts.

    References
    ----------
    Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall, §14.3 (BCa).

    Examples
    --------
    >>> import memdiag as md
    >>> df = md.simulate(n_queries=400, systems={"raw-rag": 0.6, "mem": 0.7}, seed=1)
    >>> out = md.bootstrap(df, n_resamples=2000, seed=0)
    >>> out["system"].tolist(), bool((out["ci_low"] < out["estimate"]).all())
    (['mem', 'raw-rag'], True)
    """
    name = statistic if isinstance(statistic, str) else "accuracy"
    prepared = as_prepared(data, scheme=scheme, metric=name, systems=systems, missing=missing,
                           verdict_missing=verdict_missing, design=design)
    seed = run_seed(seed)
    n_resamples = _checks.n_resamples(n_resamples)
    confidence_level = _checks.confidence_level(confidence_level)
    threshold = _checks.threshold(threshold)
    if isinstance(statistic, str):
        cols = metric_columns(prepared, statistic, threshold)
        X, fn, scale, labels = cols.X, cols.statistic, 100.0, list(prepared.systems)
    else:
        X, fn = statistic(prepared.panel)
        scale = 1.0
        m = np.asarray(fn(np.asarray(X, dtype=float).sum(axis=0)[None, :])).shape[1]
        labels = list(prepared.systems) if m == len(prepared.systems) else [f"statistic {i}" for i in range(m)]
    res = bootstrap_sums(np.asarray(X, dtype=float), prepared.resampling, fn, n_resamples=n_resamples,
                         seed=seed, ci=confidence_level, method=method)
    out = pd.DataFrame({"system": labels, "estimate": scale * res.estimate, "ci_low": scale * res.ci_low,
                        "ci_high": scale * res.ci_high, "se": scale * res.standard_error})
    out["n"] = prepared.n
    out["design"] = prepared.design
    out["n_resamples"] = n_resamples
    out["seed"] = seed
    return stamp(out, "bootstrap", prepared, notes=[f"{method} interval"],
                 metric=name if isinstance(statistic, str) else "user statistic", n_resamples=n_resamples,
                 seed=seed, confidence_level=confidence_level, threshold=threshold,
                 unit="points" if isinstance(statistic, str) else None)
