"""How little it takes to overturn a comparison: verdict flips and removed conversations (SPEC §10.3).

:func:`fragility` reads each pair's paired 2×2 table and per-cluster sums from a prepared panel and
calls the counting functions of :mod:`memdiag.engine.inference.fragility`; :func:`pair_fragility` is the
one-pair helper that :func:`memdiag.audit_claims` and :func:`memdiag.leaderboard` add as columns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from memdiag.core.kinds import COUNT_OR_NONE, declare
from memdiag.core.notes import Note
from memdiag.core.provenance import stamp
from memdiag.engine.inference.fragility import (
    paired_fragility,
    removal_rank1,
    removal_sign,
    removal_significance,
    sign_fragility,
)
from memdiag.engine.options import Options, as_options
from memdiag.engine.pairs import binarize
from memdiag.errors import VerdictError
from memdiag.panel.metrics import metric_columns
from memdiag.panel.prepare import Prepared, as_prepared

__all__ = ["FRAGILITY_COLUMNS", "fragility", "leader_fragility", "pair_fragility", "tier_flips"]

#: The columns :func:`pair_fragility` returns, in order.
FRAGILITY_COLUMNS: tuple[str, ...] = (
    "flips_sign", "flips_significance", "p_after_flips", "removal_sign", "removal_significance",
    "removal_significance_lower", "removal_method")
#: Their kinds: counts of flips or removed clusters, −1 where none changes the conclusion.
FRAGILITY_KINDS = declare({name: COUNT_OR_NONE for name in ("flips_significance", "removal_sign",
                                                             "removal_significance")},
                          count=("flips_sign", "removal_significance_lower"), p=("p_after_flips",))


def _cluster_codes(prepared: Prepared) -> np.ndarray | None:
    clusters = prepared.panel.queries.get("cluster")
    if clusters is None or clusters.isna().any():
        return None
    return pd.factorize(clusters.astype(str), sort=True)[0]


def _is_binary(values: np.ndarray) -> bool:
    return bool(np.isin(values, (0.0, 1.0)).all())


def _values(prepared: Prepared, values: np.ndarray | None, threshold: float | None) -> np.ndarray:
    """The ``(N, S)`` per-query values counted: ``values`` as given, else the scores binarised."""
    if values is None:
        return binarize(prepared.panel.scores, threshold).astype(float)
    values = np.asarray(values, dtype=float)
    if values.shape != (prepared.n, len(prepared.panel.systems)):
        raise ValueError(f"values must be (queries, systems) = {(prepared.n, len(prepared.panel.systems))}, "
                         f"not {values.shape}.")
    return values


def pair_fragility(prepared: Prepared, system_a: str, system_b: str, *, confidence_level: float = 0.95,
                   threshold: float | None = None, values: np.ndarray | None = None,
                   max_subsets: int = 200_000) -> dict:
    """The fragility columns of one pair (a − b) on a prepared panel (SPEC §10.3).

    ``values`` ``(N, S)`` are the per-query values whose plain mean is each system's estimate,
    columns in the panel's system order (:attr:`memdiag.panel.metrics.MetricColumns.plain`); without
    them the scores binarised at ``> threshold`` (0.5 by default). Flips are counted on the paired
    2×2 table (exact McNemar at α = 1 − ``confidence_level``) and need 0/1 values (NaN otherwise);
    removals act on the per-cluster sums of a − b, 0/1 or not (NaN without clusters, or with fewer
    than 4 for significance).

    >>> import memdiag as md
    >>> df = md.simulate(n_queries=200, systems=("raw-rag", "mem"), accuracy={"raw-rag": 0.5, "mem": 0.7}, seed=3)
    >>> prep = md.prepare(df)
    >>> out = pair_fragility(prep, "mem", "raw-rag")
    >>> sorted(out) == sorted(FRAGILITY_COLUMNS)
    True
    """
    panel = prepared.panel
    for name in (system_a, system_b):
        if name not in panel.systems:
            raise VerdictError(f"unknown system {name!r}; the panel has {', '.join(panel.systems)}.")
    matrix = _values(prepared, values, threshold)
    a = matrix[:, panel.systems.index(system_a)]
    b = matrix[:, panel.systems.index(system_b)]
    out = {"flips_sign": np.nan, "flips_significance": np.nan, "p_after_flips": np.nan, "removal_sign": np.nan,
           "removal_significance": np.nan, "removal_significance_lower": np.nan, "removal_method": ""}
    if _is_binary(a) and _is_binary(b):
        ya, yb = a > 0.5, b > 0.5
        benefit, tax = int(np.sum(ya & ~yb)), int(np.sum(~ya & yb))
        k, _, _, p_after = paired_fragility(benefit=benefit, tax=tax, n_concordant=panel.n - benefit - tax,
                                            alpha=1.0 - confidence_level)
        out.update(flips_sign=sign_fragility(benefit=benefit, tax=tax), flips_significance=k,
                   p_after_flips=p_after if k >= 0 else np.nan)
    codes = _cluster_codes(prepared)
    if codes is not None and codes.max() >= 1:
        d = np.bincount(codes, weights=a - b)
        n = np.bincount(codes).astype(float)
        sign = 1.0 if d.sum() >= 0 else -1.0
        out["removal_sign"] = removal_sign(sign * d, n)
        if d.size >= 4:
            r = removal_significance(d, n, confidence_level=confidence_level, max_subsets=max_subsets)
            out.update(removal_significance=r.k, removal_significance_lower=r.lower, removal_method=r.method)
    return out


def tier_flips(prepared: Prepared, leader: str, system: str, family: Sequence[float], *,
               confidence_level: float = 0.95, threshold: float | None = None,
               values: np.ndarray | None = None) -> int:
    """Verdict flips that change whether ``system`` is tied with ``leader`` under Holm-adjusted exact McNemar.

    ``family`` holds the raw p-values of the leader's other comparisons (held fixed); tied means
    the Holm-adjusted p > α, as :func:`memdiag.leaderboard` decides under the iid design.
    ``values`` are 0/1 per-query values as in :func:`pair_fragility`.

    >>> import memdiag as md
    >>> df = md.simulate(n_queries=200, systems=("raw-rag", "mem"), accuracy={"raw-rag": 0.5, "mem": 0.7}, seed=3)
    >>> tier_flips(md.prepare(df), "mem", "raw-rag", []) >= 1
    True
    """
    panel = prepared.panel
    matrix = _values(prepared, values, threshold) > 0.5
    a = matrix[:, panel.systems.index(system)]
    b = matrix[:, panel.systems.index(leader)]
    benefit, tax = int(np.sum(a & ~b)), int(np.sum(~a & b))
    return paired_fragility(benefit=benefit, tax=tax, n_concordant=panel.n - benefit - tax,
                            alpha=1.0 - confidence_level, family=list(family))[0]


def leader_fragility(prepared: Prepared, *, threshold: float | None = None,
                     values: np.ndarray | None = None) -> tuple[int | float, str]:
    """The fewest clusters whose removal lets another system tie or pass the leader, and that system.

    ``values`` as in :func:`pair_fragility` (0/1 or not). NaN and "" without clusters. Exact
    (:func:`memdiag.engine.inference.fragility.removal_rank1`).

    >>> import memdiag as md
    >>> df = md.simulate(n_queries=200, systems=("raw-rag", "mem"), accuracy={"raw-rag": 0.5, "mem": 0.7}, seed=3)
    >>> prep = md.prepare(df)
    >>> k, challenger = leader_fragility(prep)
    >>> challenger
    'raw-rag'
    """
    codes = _cluster_codes(prepared)
    if codes is None or codes.max() < 1:
        return np.nan, ""
    right = _values(prepared, values, threshold)
    sums = np.stack([np.bincount(codes, weights=right[:, j]) for j in range(right.shape[1])])
    k, j = removal_rank1(sums, np.bincount(codes).astype(float))
    return (k, prepared.panel.systems[j]) if k >= 0 else (-1, "")
def fragility(
    data: pd.DataFrame | Prepared,
    *,
    reference: str | None = None,
    metric: str = "accuracy",
    max_subsets: int = 200_000,
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """How many verdict flips, or removed conversations, overturn each paired comparison.

    Parameters
    ----------
    data
        :func:`memdiag.prepare` output, or canonical verdicts (prepared with the defaults). The
        data choices are made there: the scheme (which selects the queries; the clusters are the
        data's, whatever the resampling design), the systems, the missing-data policies and,
        for accuracy, the threshold: ``md.prepare(threshold=...)`` counts the scores binarised
        at > threshold; without one, 0/1 scores are counted as they are and other scores
        (partial credit, grades) are binarised at 0.5, with a note (flips need 0/1 verdicts).
    reference
        None (default): every unordered pair; a system's name: each other system against it.
    metric
        ``accuracy`` (default), ``coverage`` or any per-query column (``f1``, ...): a metric whose
        estimate is a per-query plain mean. Flips need 0/1 values; removals take any values.
    max_subsets
        Budget of refits for the exact search over removed clusters (then AMIP, SPEC §10.3).
    options
        :class:`memdiag.Options` (or a mapping of its fields; None: the defaults); reads only
        confidence_level: α = 1 − level for significance (exact McNemar; the cluster jackknife t
        interval). Nothing is resampled, so design, inference, n_resamples, seed and correction
        are not read.

    Returns
    -------
    pandas.DataFrame
        One row per pair: ``system_a, system_b, diff`` (points, a − b, of the per-query mean of
        the metric's values), ``benefit, tax, n`` (of a 0/1 metric, else NaN), ``flips_sign``
        (|b − c|; NaN for values that are not 0/1), ``flips_significance``
        (fewest verdict flips that change exact McNemar's verdict; −1: none can), ``p_after_flips``,
        ``removal_sign`` (fewest clusters whose removal stops a − b having its sign; 0 for a tie),
        ``removal_significance`` (… that change whether the jackknife interval excludes 0; −1: no
        removal keeping 3 clusters does), ``removal_significance_lower`` (every smaller removal was
        refitted), ``removal_method`` (``exact`` or ``amip``), ``n_clusters``. Removal columns are NaN
        without clusters.

    Raises
    ------
    VerdictError
        Bad verdicts, fewer than two systems, an unknown system or reference.
    SchemeError
        A scheme the data cannot satisfy.
    ValueError
        A budget below 1.

    Notes
    -----
    The counts are of the per-query mean of the scheme's selected queries; a scheme that weights
    groups (a macro average) is not what is counted, and a note says so. A metric that is a ratio
    (utilization) has no per-query values to flip or remove, and is refused.
    The significance criteria are exact McNemar (flips) and the cluster jackknife t interval of
    SPEC §4.1 (removals), which may differ from the p-value :func:`memdiag.compare` reports.

    References
    ----------
    SPEC §10.3 (fragility), SPEC §2 (the paired table), SPEC §4.1 (the jackknife interval).
    Walsh, M. et al. (2014). The statistical significance of randomized controlled trial results
    is frequently fragile. J. Clin. Epidemiol. 67(6), 622–628.
    Broderick, T., Giordano, R. & Meager, R. (2023). An automatic finite-sample robustness metric:
    when can dropping a little data make a big difference? arXiv:2011.14999.

    Examples
    --------
    >>> import memdiag as md
    >>> df = md.simulate(n_queries=300, systems=("raw-rag", "mem"), accuracy={"raw-rag": 0.55, "mem": 0.7}, seed=1)
    >>> out = md.fragility(df)
    >>> out[["system_a", "system_b", "flips_sign", "removal_method"]].to_dict("records")
    [{'system_a': 'mem', 'system_b': 'raw-rag', 'flips_sign': 20, 'removal_method': 'exact'}]
    """
    confidence_level = as_options(options).confidence_level
    # prepared data are taken on whatever column they hold (metric_columns reads accuracy or that column)
    prepared = data if isinstance(data, Prepared) else as_prepared(data)
    names = prepared.systems
    if len(names) < 2:
        raise VerdictError("fragility needs at least two systems.")
    if reference is None:
        todo = [(names[i], names[j]) for i in range(len(names)) for j in range(i + 1, len(names))]
    elif reference in names:
        todo = [(s, reference) for s in names if s != reference]
    else:
        raise VerdictError(f"reference {reference!r} is not in the data (systems: {', '.join(names)}).")
    threshold = prepared.threshold
    notes = []
    accuracy = metric in ("accuracy", "score")   # the judged scores (a panel prepared on f1 holds f1 in its place)
    cols = metric_columns(prepared, metric, threshold=threshold if accuracy else None)
    values = cols.plain
    if values is None and accuracy:     # a weighted scheme: count the selected queries' plain mean
        values = prepared.panel.scores if threshold is None else binarize(prepared.panel.scores, threshold)
        notes.append(Note(f"fragility counts the per-query mean of scheme {prepared.scheme.name}'s selected queries "
                          "(group weights of the scheme, if any, are not applied)", code="fragility-plain-mean"))
    if values is None:
        raise VerdictError(f"metric '{metric}' is a ratio, not a per-query mean: fragility has no per-query "
                           "values to flip or remove. Use accuracy, coverage or a per-query column.")
    if accuracy and threshold is None and not _is_binary(values):
        values = binarize(values).astype(float)
        notes.append(Note("the scores are not all 0/1: fragility counts them binarised at > 0.5 (flips need 0/1 "
                          "verdicts); md.prepare(threshold=...) chooses the cut", code="fragility-binarised"))
    values = np.asarray(values, dtype=float)
    rows = []
    for a, b in todo:
        ia, ib = names.index(a), names.index(b)
        va, vb = values[:, ia], values[:, ib]
        binary = _is_binary(va) and _is_binary(vb)
        row = {"system_a": a, "system_b": b, "diff": 100.0 * float(np.mean(va) - np.mean(vb)),
               "benefit": int(np.sum((va > 0.5) & (vb < 0.5))) if binary else np.nan,
               "tax": int(np.sum((va < 0.5) & (vb > 0.5))) if binary else np.nan, "n": prepared.n}
        row.update(pair_fragility(prepared, a, b, confidence_level=confidence_level, values=values,
                                  max_subsets=max_subsets))
        row["n_clusters"] = prepared.n_clusters
        rows.append(row)
    out = pd.DataFrame(rows)
    if not _is_binary(values):
        notes.append(Note(f"the values of {metric} are not all 0/1: the flip columns are empty, the removal columns "
                          "count removed clusters", code="fragility-no-flips"))
    if prepared.n_clusters is None:
        notes.append(Note("no clusters: the removal columns are empty", code="fragility-no-clusters"))
    kinds = {**FRAGILITY_KINDS, **declare(points=("diff",), count=("benefit", "tax", "n", "n_clusters"))}
    return stamp(out, "fragility", prepared, kinds=kinds, notes=notes, resampled=False, unit="points", metric=metric,
                 confidence_level=confidence_level, threshold=threshold, max_subsets=max_subsets)
