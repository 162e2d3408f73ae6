"""A metric as additive per-query columns and a vectorised statistic of their sums (SPEC §3, §4, §6).

The resampling engine recomputes a statistic inside every replicate from replicate sums
``W @ X``; this module turns each metric memdiag compares — accuracy (plain or under a scheme's
official aggregation), coverage, utilization, any per-query column — into that form.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from memdiag.errors import SchemeError, VerdictError
from memdiag.panel.align import Panel

if TYPE_CHECKING:  # pragma: no cover
    from memdiag.panel.prepare import Prepared

#: Metrics computed from the sufficiency labels rather than from the scores (SPEC §3).
EVIDENCE_METRICS: tuple[str, ...] = ("coverage", "utilization")


@dataclass(frozen=True)
class MetricColumns:
    """A metric as per-query additive columns ``X`` ``(N, K)`` and ``statistic(sums (b, K)) -> (b, S)``.

    ``binary`` says whether the per-query values are 0/1 and each system's estimate is their
    plain mean — when exact McNemar / Cochran's Q and the 2x2-cell bootstrap apply; then
    ``per_query`` ``(N, S)`` holds the 0/1 values. ``plain`` ``(N, S)`` holds the per-query
    values whenever each estimate is their plain mean, 0/1 or not (None for a weighted scheme or
    a ratio such as utilization): what removing queries or clusters acts on (SPEC §10.3).
    """

    X: np.ndarray
    statistic: Callable[[np.ndarray], np.ndarray]
    binary: bool
    per_query: np.ndarray | None
    label: str
    plain: np.ndarray | None = None


def _mean_columns(values: np.ndarray, label: str) -> MetricColumns:
    """Per-system plain means as Σ value / Σ 1 of the replicate: under a cluster design the number
    of queries in a replicate varies, so the denominator is resampled too (a ratio estimator)."""
    s = values.shape[1]
    binary = bool(np.isin(values, (0.0, 1.0)).all())
    X = np.hstack([values, np.ones((values.shape[0], 1))])
    return MetricColumns(X, lambda sums: sums[:, :s] / sums[:, s:], binary, values if binary else None, label,
                         values)


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


def labels(panel: Panel, name: str) -> np.ndarray:
    """The complete ``(N, S)`` 0/1 labels of column ``name`` (e.g. ``sufficient``)."""
    values = complete_matrix(panel, name)
    if not np.isin(values, (0.0, 1.0)).all():
        raise VerdictError(f"column '{name}' must be 0/1 per query (judge repetitions disagree for "
                           "some queries: give one label per answer).")
    return values


def metric_columns(prepared: Prepared, metric: str = "accuracy", threshold: float | None = None) -> MetricColumns:
    """The additive columns and statistic of ``metric`` on prepared data (SPEC §3, §6).

    ``accuracy`` is the mean score (binarised at ``> threshold`` when one is given), under the
    prepared scheme's official aggregation when there is one; ``coverage`` is the mean of the
    ``sufficient`` labels; ``utilization`` is Σ C·Y / Σ C (NaN when Σ C = 0); any other name is
    the plain mean of that per-query column.
    """
    panel = prepared.panel
    if metric in ("accuracy", prepared.column):
        scores = panel.scores if threshold is None else (panel.scores > threshold).astype(float)
        layout = prepared.layout(threshold)
        if layout is None:
            return _mean_columns(scores, metric)
        plain = layout.weights is None and not layout.scheme.gates and bool((layout.group_of >= 0).all())
        binary = plain and bool(np.isin(scores, (0.0, 1.0)).all())
        return MetricColumns(layout.columns(), layout.statistic, binary, scores if binary else None,
                             f"{metric} ({layout.scheme.name})", scores if plain else None)
    if prepared.scheme is not None and metric not in EVIDENCE_METRICS:
        raise SchemeError(f"a scheme applies to accuracy, not to '{metric}'. Drop the scheme.")
    if metric == "coverage":
        return _mean_columns(labels(panel, "sufficient"), "coverage")
    if metric == "utilization":
        c = labels(panel, "sufficient")
        X = np.hstack([c * panel.scores, c])
        s = c.shape[1]

        def utilization(sums: np.ndarray) -> np.ndarray:
            with np.errstate(invalid="ignore", divide="ignore"):
                return sums[:, :s] / sums[:, s:]

        return MetricColumns(X, utilization, False, None, "utilization")
    return _mean_columns(complete_matrix(panel, metric), metric)
