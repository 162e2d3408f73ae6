"""Resolving a scheme on verdicts: the queries it keeps, their groups and gated scores, as arrays.

:func:`select` drops the excluded queries before alignment; :func:`layout` resolves the scheme on
an aligned :class:`~memdiag.panel.align.Panel` (groups, the MEME before-pass gate, completeness)
into a :class:`SchemeLayout`, whose per-query contribution columns ``X`` carry everything the
official number needs: for count-weights ``W`` over queries (a bootstrap replicate, or all ones)
the statistic is a function of the weighted sums ``W @ X`` alone, so the resampling engine
evaluates it for a whole chunk of replicates with one matrix product, never a Python loop
(SPEC §6; Raw-RAG paper D.5 and D.1).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import regex

from memdiag.core.notes import Note
from memdiag.errors import SchemeError, listing
from memdiag.io.canonical import check
from memdiag.io.schema import QUERY_ATTRIBUTES
from memdiag.panel.align import Panel
from memdiag.panel.schemes._keys import PATTERN_SECONDS, match_key

if TYPE_CHECKING:  # pragma: no cover - names for annotations only
    from memdiag.panel.schemes._scheme import Scheme

#: The group of every query when a scheme has no groups (or the data has no group column).
ALL = "all"

#: The group of queries with no label in an open scheme (one that lists no groups).
UNLABELLED = "(none)"


def unlabelled_name(labels: Iterable[object]) -> str:
    """The name of the group of unlabelled queries: ``(none)``, unless a real label is spelt so
    (then ``(no label)``, ``(no label 2)``, ...: the two groups never share a name).

    >>> unlabelled_name(["a", "b"]), unlabelled_name(["(none)", "a"])
    ('(none)', '(no label)')
    """
    taken = {str(label) for label in labels}
    if UNLABELLED not in taken:
        return UNLABELLED
    return next(name for k in range(1, len(taken) + 2)
                for name in [f"(no label{'' if k == 1 else f' {k}'})"] if name not in taken)


def _member(values: np.ndarray, names: Sequence[object]) -> np.ndarray:
    """Elementwise ``value in names`` for an object array that may hold None."""
    names = set(names)
    return np.array([v in names for v in values], dtype=bool)


def _absent(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


# --------------------------------------------------------------------------------------------
# which queries count, in which group
# --------------------------------------------------------------------------------------------
def _matching(scheme: Scheme, query_ids: np.ndarray) -> np.ndarray:
    """Which ids ``scheme.exclude_ids`` finds a match in, within :data:`PATTERN_SECONDS` for all
    of them (the ``regex`` engine's timeout); a pattern that needs longer is a SchemeError."""
    pattern = regex.compile(scheme.exclude_ids)
    deadline = time.monotonic() + PATTERN_SECONDS
    found = np.zeros(len(query_ids), dtype=bool)
    try:
        for i, q in enumerate(query_ids):
            found[i] = pattern.search(str(q), timeout=max(deadline - time.monotonic(), 1e-3)) is not None
    except TimeoutError:
        raise SchemeError(f"{scheme.origin or 'scheme ' + repr(scheme.name)}, key 'exclude_ids': the regular "
                          f"expression {scheme.exclude_ids!r} takes longer than {PATTERN_SECONDS:g} s on "
                          f"{len(query_ids)} query ids (catastrophic backtracking, e.g. overlapping "
                          "alternatives under a repeat like (a|aa)+). Simplify it.") from None
    return found


def _assign(scheme: Scheme, queries: pd.DataFrame, query_ids: np.ndarray, for_selection: bool = False):
    """Group label, kept mask, group list, notes and phases of each query (the one rule for
    :func:`select` and :func:`layout`)."""
    n = len(query_ids)
    keep = np.ones(n, dtype=bool)
    notes: list[dict] = []

    def drop(mask: np.ndarray, detail) -> None:
        mask = mask & keep
        if mask.any():
            count = int(mask.sum())
            notes.append({"policy": f"scheme {scheme.name}", "count": count, "detail": detail(count)})
            keep[mask] = False

    column = scheme.group_by
    if column is None or (column not in queries and not scheme.needs_groups):
        labels = np.full(n, ALL, dtype=object)
    else:
        if column not in queries:
            raise SchemeError(f"scheme '{scheme.name}' groups queries by '{column}', but the verdicts "
                              f"have no '{column}' column. Add it (or map it with --field "
                              f"{column}=<column>), or choose another scheme.")
        lookup = scheme._lookup()
        raw = [None if _absent(v) else str(v) for v in queries[column].to_numpy(dtype=object)]
        labels = np.array([None if v is None else lookup.get(match_key(v), v) for v in raw], dtype=object)
        spellings = pd.DataFrame({"raw": raw, "label": labels}).dropna().drop_duplicates()
        for label, part in spellings.groupby("label", sort=True):
            if len(part) > 1 and not for_selection:  # spellings pooled: never without a note (given once,
                # by the layout of the kept queries)
                count = int(np.isin(np.array(raw, dtype=object), part["raw"].to_numpy()).sum())
                notes.append({"policy": f"scheme {scheme.name}", "count": count,
                              "detail": f"{column} labels {listing([repr(r) for r in part['raw']])} are pooled as "
                                        f"the group '{label}' ({count} queries; labels are matched ignoring "
                                        "case, spaces and punctuation, or by the scheme's aliases)"})
    unlabelled = np.array([v is None for v in labels], dtype=bool)
    closed = scheme.declared_groups
    if closed:
        drop(unlabelled, lambda k: f"{k} queries without a {column} excluded")
        outside = keep & ~_member(labels, closed)
        counts = pd.Series(labels[outside]).value_counts()
        drop(outside, lambda k: f"{k} queries whose {column} is not in the scheme excluded ("
             + listing([f"{label} {c}" for label, c in counts.items()]) + ")")
    else:
        none = unlabelled_name(labels[~unlabelled])
        labels[unlabelled] = none
        if unlabelled.any():
            notes.append({"policy": f"scheme {scheme.name}", "count": int(unlabelled.sum()),
                          "detail": f"{int(unlabelled.sum())} queries without a {column} "
                                    f"form the group '{none}'" + ("" if none == UNLABELLED else
                                    f" (a real {column} is spelt '{UNLABELLED}')")})
        for group in scheme.exclude:
            drop(labels == group, lambda k, group=group: f"{k} queries of {column} '{group}' excluded")
    if scheme.exclude_ids is not None:
        drop(_matching(scheme, query_ids),
             lambda k: f"{k} queries whose id matches '{scheme.exclude_ids}' excluded")
    phases = None
    if scheme.phase is not None or scheme.gates:
        if "phase" not in queries:
            raise SchemeError(f"scheme '{scheme.name}' needs the 'phase' column (before/after) of "
                              "every query. Add it, or map it with --field phase=<column>.")
        phases = np.array(["" if _absent(v) else str(v).strip().lower()
                           for v in queries["phase"].to_numpy(dtype=object)], dtype=object)
        if scheme.phase is not None and not (for_selection and scheme.gates):
            drop(phases != scheme.phase, lambda k: f"{k} queries not in phase '{scheme.phase}' excluded")
    if closed:
        groups = closed
    else:  # the known names in scheme order, then other labels present, sorted
        present, vocabulary = set(labels[keep]), scheme._vocabulary()
        groups = tuple([g for g in vocabulary if g in present or g in scheme.required_groups]
                       + sorted(present - set(vocabulary)))
    return labels, keep, groups, notes, phases


# --------------------------------------------------------------------------------------------
# selection before alignment, layout and gate on the aligned panel
# --------------------------------------------------------------------------------------------
def select(scheme: Scheme, df: pd.DataFrame) -> pd.DataFrame:
    """:meth:`Scheme.select`: the rows of ``check(df)`` the scheme keeps, with ``attrs["scheme_notes"]``."""
    df = check(df)
    attributes = [c for c in QUERY_ATTRIBUTES if c in df]
    queries = (df.groupby("query_id", sort=False)[attributes].first() if attributes
               else pd.DataFrame(index=pd.Index(pd.unique(df["query_id"]), name="query_id")))
    _, keep, _, notes, _ = _assign(scheme, queries, queries.index.to_numpy(), for_selection=True)
    kept = df[df["query_id"].isin(queries.index[keep])].reset_index(drop=True)
    if kept.empty:
        raise SchemeError(f"the scheme '{scheme.name}' keeps no query of these verdicts ("
                          f"{'; '.join(n['detail'] for n in notes)}). Check the scheme against "
                          "the data's groups.")
    kept.attrs["scheme_notes"] = notes
    return kept


def layout(scheme: Scheme, panel: Panel) -> SchemeLayout:
    """:meth:`Scheme.layout`: the scheme resolved on an aligned panel."""
    labels, keep, groups, notes, phases = _assign(scheme, panel.queries, panel.query_ids)
    scores = panel.scores
    if scheme.gates:
        scores, gate_notes = _gate(scheme, panel, labels, keep, phases)
        notes.extend(gate_notes)
    index = {g: i for i, g in enumerate(groups)}
    group_of = np.array([index[g] if k else -1 for g, k in zip(labels, keep)], dtype=np.int64)
    counts = np.bincount(group_of[group_of >= 0], minlength=len(groups))
    missing = tuple(g for g in scheme.required_groups if counts[index[g]] == 0)
    complete = not missing
    if missing:
        notes.append({"policy": f"scheme {scheme.name}", "count": len(missing),
                      "detail": f"incomplete: {len(missing)} of {len(scheme.required_groups)} required "
                                f"{scheme.group_by} groups have no query ({listing(missing)}); not a "
                                "full-benchmark result"})
    if scheme.expected_n is not None and int(counts.sum()) != scheme.expected_n:
        complete = False
        notes.append({"policy": f"scheme {scheme.name}", "count": int(counts.sum()),
                      "detail": f"incomplete: the official denominator is {scheme.expected_n} queries, "
                                f"these data have {int(counts.sum())}"})
    for key, expected in (scheme.expected_counts or {}).items():
        have = int(sum(counts[index[g]] for g in key.split(" + ") if g in index))
        if have != expected:
            complete = False
            notes.append({"policy": f"scheme {scheme.name}", "count": have,
                          "detail": f"incomplete: {scheme.group_by} {key} has {have} queries, the official "
                                    f"count is {expected}"})
    weights = scheme.group_weights
    return SchemeLayout(
        scheme=scheme,
        systems=panel.systems,
        groups=groups,
        group_of=group_of,
        scores=scores,
        weights=None if weights is None else np.array([weights[g] for g in groups]),
        summaries={name: np.array([w.get(g, 0.0) for g in groups])
                   for name, w in scheme.summaries.items()},
        complete=complete,
        missing_groups=missing,
        notes=tuple(notes),
    )


def _gate(scheme: Scheme, panel: Panel, labels, keep, phases) -> tuple[np.ndarray, list[dict]]:
    """Before-pass gate (MEME D.1.3): gated after-phase scores × 1[before twin score > threshold]."""
    gated = keep & _member(labels, scheme.gates) & (phases == "after")
    if not gated.any():
        return panel.scores, []
    if "pair_id" not in panel.queries:
        raise SchemeError(f"scheme '{scheme.name}' gates {', '.join(scheme.gates)} on the before-phase "
                          "twin, but the verdicts have no 'pair_id' column linking the twins. Add it.")
    pairs = np.array([None if _absent(p) else str(p)
                      for p in panel.queries["pair_id"].to_numpy(dtype=object)], dtype=object)
    if "cluster" in panel.queries:
        linked = pd.DataFrame({"pair": pairs, "cluster": panel.queries["cluster"].to_numpy(dtype=object)})
        spread = linked.dropna().groupby("pair")["cluster"].nunique()
        split = spread.index[spread > 1]
        if len(split):
            raise SchemeError(f"{len(split)} pair_id twins sit in different clusters "
                              f"({listing(split)}). Both phases of a pair must share a cluster "
                              "(episode) so that resampling keeps them together; fix the cluster labels.")
    twin: dict[str, int] = {}
    first_id: dict[str, object] = {}
    ambiguous = []
    for i in np.flatnonzero((phases == "before") & ~_member(pairs, (None,))):
        p = pairs[i]
        if first_id.setdefault(p, panel.query_ids[i]) != panel.query_ids[i]:
            ambiguous.append(p)
        twin.setdefault(p, int(i))
    if ambiguous:
        raise SchemeError(f"{len(set(ambiguous))} pair_ids have more than one before-phase "
                          f"question ({listing(sorted(set(ambiguous)))}). Give each pair one before twin.")
    rows = np.flatnonzero(gated)
    twins = np.array([twin.get(pairs[i], -1) if pairs[i] is not None else -1 for i in rows])
    orphans = panel.query_ids[rows[twins < 0]]
    if len(orphans):
        raise SchemeError(
            f"{len(orphans)} gated after-phase queries ({', '.join(scheme.gates)}) have no before-phase "
            f"twin with the same pair_id: {listing(orphans)}. The gate needs both answers: add the "
            "before-phase verdicts, fix pair_id, or align with missing='wrong' if those before "
            "answers are absent because the system gave none.")
    scores = panel.scores.copy()
    passed = panel.scores[twins] > scheme.threshold
    removed = ((scores[rows] > 0) & ~passed).sum(axis=0)
    scores[rows] = scores[rows] * passed
    per_system = ", ".join(f"{s} {int(r)}" for s, r in zip(panel.systems, removed))
    return scores, [{"policy": f"scheme {scheme.name} gate", "count": int(removed.sum()),
                     "detail": f"{len(rows)} after-phase {'/'.join(scheme.gates)} answers credited only "
                               f"when the before twin scored > {scheme.threshold}; credit removed "
                               f"({per_system})"}]


# --------------------------------------------------------------------------------------------
# the layout: contributions, sums, statistic
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SchemeLayout:
    """A scheme resolved on a panel: the arrays behind the official number.

    Attributes
    ----------
    scheme
        The :class:`Scheme`.
    systems
        The ``S`` systems, in panel order.
    groups
        The ``G`` group labels (weighted or included groups, or those present plus required).
    group_of
        ``(N,)`` int: each query's group index, -1 = excluded.
    scores
        ``(N, S)`` per-query scores after the gates (before-phase rows unchanged).
    weights
        ``(G,)`` group weights summing to 1, or None for the question-weighted mean.
    summaries
        Named nodes of the weight tree (``AR``, ``TTL``, ...) -> ``(G,)`` weights.
    complete
        Every required group present and the expected query count met.
    missing_groups
        The required groups with no query.
    notes
        What the scheme excluded, gated and found missing: ``{"policy", "count", "detail"}``.

    Notes
    -----
    Contribution columns (:meth:`columns`), for query i, system s, group g = ``group_of[i]``::

        X[i, s*G + g] = scores[i, s]        (score slot of (s, g))
        X[i, S*G + g] = 1                   (count slot of g)

    and zero elsewhere (an excluded query's row is all zero). For count-weights ``W`` (b, N),
    ``T = W @ X``; the group mean is ``m[s, g] = T[s*G + g] / T[S*G + g]`` and the statistic is

    - question-weighted: ``θ_s = Σ_g T[s*G + g] / Σ_g T[S*G + g]``
    - weighted: ``θ_s = Σ_g w_g m[s, g]`` (SPEC §6; D.5 eq. 6 for MemoryAgentBench).

    A group with no query in a replicate has an undefined mean (NaN); a weighted statistic that
    needs it is NaN too (re-weighting the other groups would change the estimand), and so is a
    question-weighted one with no included query at all. The resampling engine must count such
    replicates. The statistic of all-ones weights is the point estimate (:meth:`estimate`).
    """

    scheme: Scheme
    systems: tuple[str, ...]
    groups: tuple[str, ...]
    group_of: np.ndarray
    scores: np.ndarray
    weights: np.ndarray | None
    summaries: Mapping[str, np.ndarray]
    complete: bool
    missing_groups: tuple[str, ...]
    notes: tuple[dict, ...] = ()

    @property
    def n_columns(self) -> int:
        """Width ``S*G + G`` of :meth:`columns`."""
        return (len(self.systems) + 1) * len(self.groups)

    @property
    def counts(self) -> np.ndarray:
        """``(G,)`` number of included queries per group."""
        return np.bincount(self.group_of[self.group_of >= 0], minlength=len(self.groups))

    @property
    def n(self) -> int:
        """Number of included queries (the official denominator of a question-weighted scheme)."""
        return int((self.group_of >= 0).sum())

    def columns(self) -> np.ndarray:
        """``(N, S*G + G)`` per-query contributions (see Notes of the class)."""
        n, s = self.scores.shape
        g = len(self.groups)
        x = np.zeros((n, self.n_columns))
        rows = np.flatnonzero(self.group_of >= 0)
        group = self.group_of[rows]
        x[rows[:, None], np.arange(s)[None, :] * g + group[:, None]] = self.scores[rows]
        x[rows, s * g + group] = 1.0
        return x

    def _split(self, sums: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        sums = np.asarray(sums, dtype=float)
        if sums.shape[-1] != self.n_columns:
            raise ValueError(f"sums have {sums.shape[-1]} columns; this layout has {self.n_columns} "
                             "(S*G + G). Use W @ layout.columns().")
        s, g = len(self.systems), len(self.groups)
        totals = sums[..., : s * g].reshape(*sums.shape[:-1], s, g)
        counts = sums[..., s * g:][..., None, :]
        return totals, counts

    def group_scores(self, sums: np.ndarray) -> np.ndarray:
        """``(..., S, G)`` group means from sums ``(..., S*G + G)``; NaN for an empty group."""
        totals, counts = self._split(sums)
        counts = np.broadcast_to(counts, totals.shape)
        return np.divide(totals, counts, out=np.full(totals.shape, np.nan), where=counts > 0)

    def statistic(self, sums: np.ndarray) -> np.ndarray:
        """``(..., S)`` official overall per system from sums ``(..., S*G + G)``, in [0, 1]."""
        if self.weights is not None:
            return self.group_scores(sums) @ self.weights
        totals, counts = self._split(sums)
        top, bottom = totals.sum(axis=-1), np.broadcast_to(counts.sum(axis=-1), totals.shape[:-1])
        return np.divide(top, bottom, out=np.full(top.shape, np.nan), where=bottom > 0)

    def summary_scores(self, sums: np.ndarray) -> np.ndarray:
        """``(..., S, K)`` scores of the named tree nodes (``summaries`` order), NaN if a group is empty."""
        means = self.group_scores(sums)
        if not self.summaries:
            return means[..., :0]
        weights = np.stack(list(self.summaries.values()), axis=1)  # (G, K)
        empty = np.isnan(means)
        undefined = (empty.astype(float) @ (weights > 0).astype(float)) > 0
        return np.where(undefined, np.nan, np.where(empty, 0.0, means) @ weights)

    def estimate(self) -> np.ndarray:
        """``(S,)`` point estimate: the statistic of all-ones weights."""
        return self.statistic(self.columns().sum(axis=0))

    def notes_text(self) -> list[str]:
        """The notes as one readable line each (code ``scheme-selection``)."""
        return [Note(f"{n['policy']}: {n['detail']}", code="scheme-selection") for n in self.notes]
