"""Paired comparisons of systems: differences with intervals, tests, Holm, omnibus (SPEC §4, §5).

:func:`compare` gives one row per pair of systems, :func:`omnibus` one test across all systems,
:func:`bootstrap` any user statistic of group sums. Each turns verdicts into a :class:`Panel`,
a metric into per-query additive columns plus a vectorised statistic of their sums, and hands
them to the resampling engine (:mod:`memdiag._resampling`); exact tests come from
:mod:`memdiag._inference`.

Test choice (paper C.6, A.5.1): a difference of a binary per-query metric scored as a plain
question-weighted mean under the ``iid`` design is tested with the exact McNemar test; anything
else (fractional scores, official macro-averages and gates, ratio metrics such as utilization,
clustered or stratified designs) with the two-sided bootstrap sign test of SPEC §4.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from memdiag.errors import SchemeError, VerdictError
from memdiag._designs import Design, resolve_design
from memdiag._resampling import BootstrapResult, bootstrap_sums, omnibus_max_range, paired_binary_bootstrap
from memdiag._schemes import Scheme, resolve_scheme
from memdiag._inference import adjust, cochrans_q, mcnemar
from memdiag._verdicts import MissingQueryPolicy, MissingVerdictPolicy, Panel, align

#: Metrics computed from the sufficiency labels rather than from the scores (SPEC §3).
EVIDENCE_METRICS: tuple[str, ...] = ("coverage", "utilization")

#: A cluster-design interval wider than the iid one by this factor is a material design effect.
DESIGN_EFFECT_WARNING = 1.10


@dataclass(frozen=True)
class MetricColumns:
    """A metric as per-query additive columns and a vectorised statistic of their sums.

    ``statistic(sums (b, K)) -> (b, S)`` gives each system's estimate in a replicate; ``binary``
    says whether the per-query values are 0/1 and the estimate is their plain mean, which is
    when exact McNemar / Cochran's Q apply.
    """

    X: np.ndarray
    statistic: Callable[[np.ndarray], np.ndarray]
    binary: bool
    per_query: np.ndarray | None
    label: str


def _mean_columns(values: np.ndarray, label: str) -> MetricColumns:
    """Per-system plain means as Σ value / Σ 1 of the replicate: under a cluster design the number
    of queries in a replicate varies, so the denominator is resampled too (a ratio estimator)."""
    s = values.shape[1]
    binary = bool(np.isin(values, (0.0, 1.0)).all())
    X = np.hstack([values, np.ones((values.shape[0], 1))])
    return MetricColumns(X, lambda sums: sums[:, :s] / sums[:, s:], binary, values, label)


def metric_columns(panel: Panel, metric: str = "accuracy", scheme: Scheme | None = None,
                   threshold: float | None = None) -> MetricColumns:
    """Build the additive columns and statistic of ``metric`` on ``panel`` (SPEC §3, §6).

    ``accuracy`` is the mean score (binarised at ``threshold`` when one is given), under the
    scheme's official aggregation when ``scheme`` is given; ``coverage`` is the mean of the
    ``sufficient`` labels; ``utilization`` is Σ C·Y / Σ C (NaN when Σ C = 0); any other name is
    the plain mean of that per-query column.
    """
    if metric in ("accuracy", panel.metric):
        scores = panel.scores if threshold is None else (panel.scores > threshold).astype(float)
        if scheme is None:
            return _mean_columns(scores, "accuracy")
        layout = scheme.layout(panel if threshold is None else _with_scores(panel, scores))
        binary = bool(np.isin(scores, (0.0, 1.0)).all()) and scheme.weights is None \
            and not scheme.gates and bool((layout.group_of >= 0).all())
        return MetricColumns(layout.columns(), layout.statistic, binary,
                             scores if binary else None, f"accuracy ({scheme.name})")
    if scheme is not None:
        raise SchemeError(f"a scheme applies to accuracy, not to '{metric}'. Drop --scheme.")
    if metric == "coverage":
        return _mean_columns(_labels(panel, "sufficient"), "coverage")
    if metric == "utilization":
        c = _labels(panel, "sufficient")
        X = np.hstack([c * panel.scores, c])
        s = c.shape[1]

        def utilization(sums: np.ndarray) -> np.ndarray:
            with np.errstate(invalid="ignore", divide="ignore"):
                return sums[:, :s] / sums[:, s:]

        return MetricColumns(X, utilization, False, None, "utilization")
    return _mean_columns(complete_matrix(panel, metric), metric)


def _with_scores(panel: Panel, scores: np.ndarray) -> Panel:
    from dataclasses import replace

    return replace(panel, scores=scores)


def complete_matrix(panel: Panel, name: str) -> np.ndarray:
    """The ``(N, S)`` matrix of a per-(system, query) column, or a VerdictError naming the first
    (system, query) pair without a value and how many lack one."""
    values = panel.matrix(name)
    bad = np.isnan(values)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise VerdictError(f"column '{name}' is missing for {int(bad.sum())} (system, query) pairs, "
                           f"e.g. system '{panel.systems[j]}', query '{panel.query_ids[i]}'. Every "
                           f"compared system needs a '{name}' value for every query.")
    return values


def _labels(panel: Panel, name: str) -> np.ndarray:
    values = complete_matrix(panel, name)
    if not np.isin(values, (0.0, 1.0)).all():
        raise VerdictError(f"column '{name}' must be 0/1 per query (judge repetitions disagree for "
                           "some queries: give one label per answer).")
    return values


def align_for(df: pd.DataFrame, scheme: Scheme | None = None, metric: str = "accuracy",
              systems: Sequence[str] | None = None, missing: MissingQueryPolicy = "error",
              verdict_missing: MissingVerdictPolicy = "as-wrong") -> tuple[Panel, list[str]]:
    """The :class:`Panel` a metric is computed on, and every note a reader must see with it.

    Applies the scheme's query selection (SPEC §6) before pairing, aligns with the policies of
    SPEC §1, and returns the notes of both (queries the scheme excluded, verdicts scored 0, ...).
    ``accuracy``, ``coverage`` and ``utilization`` rest on ``score``; another metric on its column.
    """
    notes: list[str] = []
    if scheme is not None:
        df = scheme.select(df)
        notes += [f"{n['policy']}: {n['detail']}" for n in df.attrs.get("scheme_notes", ())]
    column = "score" if metric in ("accuracy", *EVIDENCE_METRICS) else metric
    panel = align(df, missing=missing, verdict_missing=verdict_missing, systems=systems, metric=column)
    return panel, notes + panel.notes_text()


def _pairs(systems: Sequence[str], pairs: str, reference: str | None) -> list[tuple[int, int]]:
    if pairs == "all":
        return list(itertools.combinations(range(len(systems)), 2))
    if pairs == "reference":
        if reference is None:
            raise VerdictError("pairs='reference' needs a reference system (--reference NAME).")
        if reference not in systems:
            raise VerdictError(f"reference '{reference}' is not in the data (systems: {', '.join(systems)}).")
        r = systems.index(reference)
        return [(i, r) for i in range(len(systems)) if i != r]
    raise VerdictError(f"unknown pairs '{pairs}' (use all or reference).")


def _differences(statistic: Callable[[np.ndarray], np.ndarray], pairs: list[tuple[int, int]]):
    left = np.array([a for a, _ in pairs])
    right = np.array([b for _, b in pairs])

    def diff(sums: np.ndarray) -> np.ndarray:
        est = statistic(sums)
        return est[:, left] - est[:, right]

    return diff


@dataclass(frozen=True)
class _PairIntervals:
    estimate: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    p_value: np.ndarray
    n_undefined: np.ndarray


def _pair_intervals(cols: MetricColumns, design: Design, index_pairs: list[tuple[int, int]],
                    n_resamples: int, seed: int, confidence_level: float) -> _PairIntervals:
    """Bootstrap of each pair's difference a − b.

    Binary plain-mean metrics under the iid or stratified design take the fast path (the
    difference depends only on the 2x2 cell counts, per stratum: multinomial draws over cells,
    cost independent of N), one call per distinct ``b``; everything else the general engine
    with all systems in one set of shared replicates.
    """
    if not (cols.binary and design.kind in ("iid", "stratified")):
        res = bootstrap_sums(cols.X, design, _differences(cols.statistic, index_pairs),
                             n_resamples=n_resamples, seed=seed, ci=confidence_level)
        return _PairIntervals(res.estimate, res.ci_low, res.ci_high, res.p_value, res.n_undefined)
    m = len(index_pairs)
    out = {name: np.empty(m) for name in ("estimate", "ci_low", "ci_high", "p_value", "n_undefined")}
    for b in sorted({b for _, b in index_pairs}):
        rows = [k for k, (_, bb) in enumerate(index_pairs) if bb == b]
        lefts = [index_pairs[k][0] for k in rows]
        res: BootstrapResult = paired_binary_bootstrap(cols.per_query[:, b], cols.per_query[:, lefts], design,
                                                       n_resamples=n_resamples, seed=seed, ci=confidence_level)
        for name in out:
            out[name][rows] = getattr(res, name)
    return _PairIntervals(**out)


def compare(
    df: pd.DataFrame,
    metric: str = "accuracy",
    scheme: str | Path | Scheme | None = None,
    pairs: str = "all",
    reference: str | None = None,
    design: str | None = None,
    n_resamples: int = 20_000,
    seed: int = 0,
    confidence_level: float = 0.95,
    correction: str = "holm",
    threshold: float | None = None,
    systems: Sequence[str] | None = None,
    missing: MissingQueryPolicy = "error",
    verdict_missing: MissingVerdictPolicy = "as-wrong",
) -> pd.DataFrame:
    """Paired differences between systems with intervals, p-values and Holm adjustment.

    Parameters
    ----------
    df
        Canonical verdicts.
    metric
        ``accuracy`` (the score; under ``scheme`` when given), ``coverage``, ``utilization``,
        or any per-query metric column (``f1``, ``bleu``, ...).
    scheme
        Official aggregation (``locomo``, ``meme``, ``memoryagentbench``, a YAML file, ...),
        recomputed inside every bootstrap replicate.
    pairs
        ``all`` (every unordered pair, in system order) or ``reference`` (each system minus
        ``reference``).
    design
        ``iid``, ``stratified``, ``cluster`` or ``stratified-cluster``; default from the scheme
        and data (:func:`resolve_design`), and the choice is recorded in ``attrs["notes"]``.
        When ``iid`` is chosen on data with clusters whose design effect is material (cluster
        interval ≥ 10% wider), a warning is issued and the cluster-design interval is added in
        ``ci_low_cluster`` / ``ci_high_cluster``.
    n_resamples, seed, confidence_level
        Bootstrap replicates B (default 20,000), seed (default 0), interval level.
    correction
        ``holm`` (default), ``bonferroni`` or ``fdr_bh`` over the pairs of this call (one
        benchmark-metric family, paper C.6).
    threshold
        Binarise scores at ``> threshold`` before comparing (default: use the scores as they are).

    Returns
    -------
    pandas.DataFrame
        One row per pair: ``system_a, system_b, estimate_a, estimate_b, diff, ci_low, ci_high,
        p, p_adj, test, n, design, n_resamples, seed``. Estimates and differences are in points
        (×100); ``diff = estimate_a − estimate_b``; the interval is the percentile bootstrap
        interval of the difference under the design.

    Notes
    -----
    Exact McNemar (binary plain-mean metric, iid design): p = min(1, 2·BinomCDF(min(b, c);
    b + c, ½)) with b, c the discordant counts. Bootstrap sign test otherwise: p = min(1,
    2·min(p₋, p₊)), p₋ = (1 + #{Δ* ≤ 0})/(1 + B), p₊ = (1 + #{Δ* ≥ 0})/(1 + B). SPEC §4–§5.
    """
    scheme_obj = resolve_scheme(scheme)
    panel, aligned = align_for(df, scheme_obj, metric, systems, missing, verdict_missing)
    if len(panel.systems) < 2:
        raise VerdictError(f"comparing needs at least two systems; the data hold {len(panel.systems)}.")
    kind, why = resolve_design(panel.queries, design, scheme_obj)
    cols = metric_columns(panel, metric, scheme_obj, threshold)
    index_pairs = _pairs(list(panel.systems), pairs, reference)
    estimates = cols.statistic(cols.X.sum(axis=0)[None, :])[0]
    result = _pair_intervals(cols, Design.from_panel(panel, kind), index_pairs, n_resamples, seed,
                             confidence_level)
    exact = cols.binary and kind == "iid"
    rows = []
    for k, (a, b) in enumerate(index_pairs):
        row = {"system_a": panel.systems[a], "system_b": panel.systems[b],
               "estimate_a": 100 * estimates[a], "estimate_b": 100 * estimates[b],
               "diff": 100 * result.estimate[k], "ci_low": 100 * result.ci_low[k],
               "ci_high": 100 * result.ci_high[k]}
        if exact:
            ya, yb = cols.per_query[:, a] > 0.5, cols.per_query[:, b] > 0.5
            row["p"] = mcnemar(benefit=int((ya & ~yb).sum()), tax=int((~ya & yb).sum())).p_value
            row["test"] = "exact McNemar"
        else:
            row["p"] = float(result.p_value[k])
            row["test"] = f"bootstrap sign test ({kind})"
        rows.append(row)
    out = pd.DataFrame(rows)
    out["p_adj"] = adjust(out["p"].to_numpy(), method=correction)
    out["n"] = panel.n
    out["design"] = kind
    out["n_resamples"] = n_resamples
    out["seed"] = seed
    notes = [why] + aligned
    if result.n_undefined is not None and np.any(np.asarray(result.n_undefined) > 0):
        notes.append(f"{int(np.max(result.n_undefined))} of {n_resamples} replicates gave an undefined "
                     "statistic (empty denominator) and were left out of the interval")
    if kind == "iid" and "cluster" in panel.queries and panel.queries["cluster"].notna().all() \
            and panel.queries["cluster"].nunique() > 1:
        notes += _design_effect(out, cols, panel, index_pairs, n_resamples, seed, confidence_level)
    out = out[["system_a", "system_b", "estimate_a", "estimate_b", "diff", "ci_low", "ci_high", "p",
               "p_adj", "test", "n", "design", "n_resamples", "seed"]
              + [c for c in ("ci_low_cluster", "ci_high_cluster") if c in out]]
    out.attrs = {"metric": cols.label, "scheme": scheme_obj.name if scheme_obj else None,
                 "design": kind, "n_resamples": n_resamples, "seed": seed,
                 "confidence_level": confidence_level, "correction": correction,
                 "threshold": threshold, "missing": missing, "verdict_missing": verdict_missing,
                 "notes": notes}
    return out


def _design_effect(out: pd.DataFrame, cols: MetricColumns, panel: Panel, index_pairs, n_resamples: int,
                   seed: int, confidence_level: float) -> list[str]:
    """Add the cluster-design interval beside an iid one when the design effect is material."""
    clustered = bootstrap_sums(cols.X, Design.from_panel(panel, "cluster"),
                               _differences(cols.statistic, index_pairs), n_resamples=n_resamples,
                               seed=seed, ci=confidence_level)
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
    df: pd.DataFrame,
    metric: str = "accuracy",
    scheme: str | Path | Scheme | None = None,
    design: str | None = None,
    n_resamples: int = 20_000,
    seed: int = 0,
    threshold: float | None = None,
    systems: Sequence[str] | None = None,
    missing: MissingQueryPolicy = "error",
    verdict_missing: MissingVerdictPolicy = "as-wrong",
) -> pd.DataFrame:
    """One test of "all systems equal" (SPEC §4–§5; paper C.6, A.5.1).

    Cochran's Q (k − 1 df) for a binary plain-mean metric under the ``iid`` design (accuracy on
    binary verdicts, coverage); otherwise the centered max-range bootstrap: T = max θ̂ − min θ̂,
    T* = max(θ* − θ̂) − min(θ* − θ̂), p = (1 + #{T* ≥ T})/(1 + B).

    Returns
    -------
    pandas.DataFrame
        One row: ``metric, test, statistic, df, p, k, n, design, n_resamples, seed``.
    """
    scheme_obj = resolve_scheme(scheme)
    panel, aligned = align_for(df, scheme_obj, metric, systems, missing, verdict_missing)
    if len(panel.systems) < 2:
        raise VerdictError(f"an omnibus test needs at least two systems; the data hold {len(panel.systems)}.")
    kind, why = resolve_design(panel.queries, design, scheme_obj)
    cols = metric_columns(panel, metric, scheme_obj, threshold)
    row = {"metric": cols.label, "k": len(panel.systems), "n": panel.n, "design": kind}
    if cols.binary and kind == "iid" and len(panel.systems) >= 3:
        q = cochrans_q(cols.per_query)
        row.update(test="Cochran's Q", statistic=float(q.statistic), df=int(q.df), p=float(q.p_value),
                   n_resamples=None, seed=None)
    else:
        res = omnibus_max_range(cols.X, Design.from_panel(panel, kind), cols.statistic,
                                n_resamples=n_resamples, seed=seed)
        row.update(test=f"centered max-range bootstrap ({kind})", statistic=100 * float(res.statistic),
                   df=None, p=float(res.p_value), n_resamples=n_resamples, seed=seed)
    out = pd.DataFrame([row])[["metric", "test", "statistic", "df", "p", "k", "n", "design",
                               "n_resamples", "seed"]]
    out.attrs = {"metric": cols.label, "scheme": scheme_obj.name if scheme_obj else None, "design": kind,
                 "n_resamples": row["n_resamples"], "seed": row["seed"], "notes": [why] + aligned}
    return out


def bootstrap(
    df: pd.DataFrame,
    statistic: str | Callable[[Panel], tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]] = "accuracy",
    scheme: str | Path | Scheme | None = None,
    design: str | None = None,
    n_resamples: int = 20_000,
    seed: int = 0,
    ci: float = 0.95,
    method: str = "percentile",
    threshold: float | None = None,
    systems: Sequence[str] | None = None,
    missing: MissingQueryPolicy = "error",
    verdict_missing: MissingVerdictPolicy = "as-wrong",
) -> pd.DataFrame:
    """Per-system estimates with paired bootstrap intervals under a design (SPEC §4).

    Parameters
    ----------
    statistic
        A metric name (as in :func:`compare`), or a callable ``f(panel) -> (X, g)`` returning
        per-query additive columns ``X (N, K)`` and a vectorised ``g(sums (b, K)) -> (b, m)``;
        the engine evaluates ``g`` on a whole chunk of replicates at once.
    method
        ``percentile`` or ``bca`` (``iid`` design only).

    Returns
    -------
    pandas.DataFrame
        One row per system (or per output of a callable statistic): ``system, estimate, ci_low,
        ci_high, se, n, design, n_resamples, seed``; estimates of a named metric in points.
    """
    scheme_obj = resolve_scheme(scheme)
    name = statistic if isinstance(statistic, str) else "accuracy"
    panel, aligned = align_for(df, scheme_obj, name, systems, missing, verdict_missing)
    kind, why = resolve_design(panel.queries, design, scheme_obj)
    if isinstance(statistic, str):
        cols = metric_columns(panel, statistic, scheme_obj, threshold)
        X, fn, scale, labels = cols.X, cols.statistic, 100.0, list(panel.systems)
    else:
        X, fn = statistic(panel)
        scale = 1.0
        m = np.asarray(fn(np.asarray(X, dtype=float).sum(axis=0)[None, :])).shape[1]
        labels = list(panel.systems) if m == len(panel.systems) else [f"statistic {i}" for i in range(m)]
    res = bootstrap_sums(np.asarray(X, dtype=float), Design.from_panel(panel, kind), fn,
                         n_resamples=n_resamples, seed=seed, ci=ci, method=method)
    out = pd.DataFrame({"system": labels, "estimate": scale * res.estimate, "ci_low": scale * res.ci_low,
                        "ci_high": scale * res.ci_high, "se": scale * res.standard_error})
    out["n"] = panel.n
    out["design"] = kind
    out["n_resamples"] = n_resamples
    out["seed"] = seed
    out.attrs = {"metric": name if isinstance(statistic, str) else "user statistic",
                 "scheme": scheme_obj.name if scheme_obj else None, "design": kind,
                 "n_resamples": n_resamples, "seed": seed, "confidence_level": ci,
                 "notes": [why, f"{method} interval"] + aligned}
    return out
