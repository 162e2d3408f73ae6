"""Aligning canonical verdicts into the paired :class:`Panel` every statistic is computed from
(SPEC §1.3, §1.4): one score per query and system, the missing-query and missing-verdict policies,
the judge policies (:mod:`memdiag.panel.judges`), runs, and a note for each policy that acted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np
import pandas as pd

from memdiag.core.notes import Note
from memdiag.errors import VerdictError, listing
from memdiag.io.canonical import check, numeric_column
from memdiag.io.schema import (
    BINARY_LABELS,
    CANONICAL,
    COSTS,
    JUDGE,
    PROVENANCE,
    QUERY_ATTRIBUTES,
    RUN,
)
from memdiag.panel.judges import JUDGES_MAJORITY, judge_policy, repeat_rule

__all__ = ["MissingQueryPolicy", "MissingVerdictPolicy", "Panel", "align", "check_systems", "pair_twins"]

MissingQueryPolicy = Literal["error", "drop", "wrong"]
MissingVerdictPolicy = Literal["as-wrong", "exclude"]


@dataclass(frozen=True)
class Panel:
    """The aligned, paired array view of verdicts that every statistic is computed from.

    Attributes
    ----------
    scores
        ``(N, S)`` float array: per query and system, the mean over judge repetitions of the
        chosen metric, after the policies in ``notes``. No NaN.
    systems
        The ``S`` system names, in column order.
    query_ids
        The ``N`` query ids, in row order (sorted).
    n_repeats
        ``(N, S)`` int array: how many judgments each score averages (0 for a query filled in
        by the ``wrong`` policy).
    queries
        One row per query (index ``query_id``), the per-query attributes present
        (``benchmark``, ``cluster``, ``stratum``, ``category``, ``phase``, ``pair_id``).
    matrices
        ``(N, S)`` float arrays of the other per-(system, query) columns (0/1 labels, costs,
        extra metrics such as ``f1``), each the mean over repetitions, NaN where absent.
    metric
        Which column ``scores`` holds (``"score"`` by default).
    notes
        What alignment did, one dict per policy application: ``{"policy", "count", "detail"}``;
        counts per system under ``"per_system"`` where they differ.

    References
    ----------
    SPEC §1.3 (one score per query) and SPEC §1.4 (pairing and the missing-data policies).

    Examples
    --------
    :func:`align` builds a Panel from verdicts:

    >>> df = pd.DataFrame({"system": ["mem", "mem", "rag", "rag"], "query_id": ["q1", "q2"] * 2,
    ...                    "score": [1, 1, 1, 0], "category": ["a", "b"] * 2})
    >>> panel = align(df)
    >>> panel.n, panel.systems, panel.scores.tolist()
    (2, ('mem', 'rag'), [[1.0, 1.0], [1.0, 0.0]])
    >>> panel.codes("category")
    (array([0, 1]), ('a', 'b'))
    >>> panel.take(systems=["rag"]).scores.ravel().tolist()
    [1.0, 0.0]
    """

    scores: np.ndarray
    systems: tuple[str, ...]
    query_ids: np.ndarray
    n_repeats: np.ndarray
    queries: pd.DataFrame
    matrices: Mapping[str, np.ndarray] = field(default_factory=dict)
    metric: str = "score"
    notes: tuple[dict, ...] = ()

    @property
    def n(self) -> int:
        """Number of aligned queries N."""
        return len(self.query_ids)

    def codes(self, column: str) -> tuple[np.ndarray, tuple[str, ...]]:
        """Integer codes ``(N,)`` and their labels for a per-query attribute (-1 where missing).

        Raises
        ------
        VerdictError
            When the verdicts have no such column.
        """
        if column not in self.queries:
            raise VerdictError(f"the verdicts have no '{column}' column (have: "
                               f"{', '.join(self.queries.columns) or 'none'}). Add it, or map it "
                               f"with --field {column}=<column>.")
        codes, labels = pd.factorize(self.queries[column], sort=True)
        return codes.astype(np.int64), tuple(map(str, labels))

    def matrix(self, name: str) -> np.ndarray:
        """The ``(N, S)`` matrix of a per-(system, query) column; ``"score"`` gives :attr:`scores`."""
        if name == self.metric:
            return self.scores
        if name not in self.matrices:
            raise VerdictError(f"the verdicts have no '{name}' column (have: "
                               f"{', '.join([self.metric, *self.matrices]) or 'none'}). Add it, or "
                               f"map it with --field {name}=<column>.")
        return self.matrices[name]

    def system_index(self, name: str) -> int:
        """Column of system ``name``; a name not in the panel is a VerdictError listing the systems."""
        if name not in self.systems:
            raise VerdictError(f"system '{name}' is not in the data (systems: {', '.join(self.systems)}).")
        return self.systems.index(name)

    def take(self, rows: np.ndarray | None = None, systems: Iterable[str] | None = None) -> Panel:
        """A sub-panel of the given query rows (bool mask or indices) and/or systems."""
        rows = np.arange(self.n) if rows is None else np.asarray(rows)
        if rows.dtype == bool:
            rows = np.flatnonzero(rows)
        cols = (np.arange(len(self.systems)) if systems is None
                else np.array([self.system_index(s) for s in systems], dtype=np.int64))
        return replace(
            self,
            scores=self.scores[np.ix_(rows, cols)],
            systems=tuple(self.systems[c] for c in cols),
            query_ids=self.query_ids[rows],
            n_repeats=self.n_repeats[np.ix_(rows, cols)],
            queries=self.queries.iloc[rows],
            matrices={k: v[np.ix_(rows, cols)] for k, v in self.matrices.items()},
        )

    def notes_text(self) -> list[str]:
        """The notes as one readable line each (:class:`~memdiag.core.notes.Note`: a missing-data policy
        that acted is a ``caution``, a judge policy ``info``)."""
        return [Note(f"{n['policy']}: {n['detail']}", code=_policy_code(n["policy"]),
                     severity="caution" if n["policy"].startswith("missing") and n.get("count") else "info")
                for n in self.notes]


def _policy_code(policy: str) -> str:
    """The note code of an alignment policy record (``"missing queries drop"`` ->
    ``"missing-queries"``, ``"judges mean"`` -> ``"judges"``)."""
    for code in ("missing queries", "missing verdicts", "judges"):
        if policy.startswith(code):
            return code.replace(" ", "-")
    return "policy"


def check_systems(df: pd.DataFrame, systems: Sequence[str]) -> None:
    """Raise :class:`VerdictError` naming the ``systems`` that have no verdict in ``df``."""
    present = set(df["system"])
    unknown = [s for s in systems if s not in present]
    if unknown:
        raise VerdictError(f"system(s) {', '.join(unknown)} not in the data (systems: "
                           f"{', '.join(sorted(pd.unique(df['system'])))}).")


def _lacking_categories(df: pd.DataFrame, query_ids: np.ndarray, present: np.ndarray,
                        systems: list[str]) -> list[tuple[str, int, list[str]]]:
    """The categories some systems have no query of while others do: (category, queries, the
    systems that have it) — e.g. two adversarial questions in one run only."""
    if "category" not in df:
        return []
    category = df.drop_duplicates("query_id").set_index("query_id")["category"].reindex(query_ids)
    out = []
    for name in sorted(pd.unique(category.dropna())):
        rows = (category == name).to_numpy()
        has = present[rows].any(axis=0)
        if has.any() and not has.all():
            out.append((str(name), int(rows.sum()), [s for s, h in zip(systems, has) if h]))
    return out


def pair_twins(df: pd.DataFrame, dropped: Sequence[str]) -> list[str]:
    """The queries sharing a ``pair_id`` with a dropped query (MEME before/after twins), sorted:
    excluding one phase of a pair excludes the other (Raw-RAG paper A.5.2, content-filter check)."""
    if "pair_id" not in df:
        return []
    pairs = df.loc[df["query_id"].isin(dropped), "pair_id"].dropna().unique()
    twins = df.loc[df["pair_id"].isin(pairs) & ~df["query_id"].isin(dropped), "query_id"]
    return sorted(pd.unique(twins).tolist())


def align(
    df: pd.DataFrame,
    *,
    missing: MissingQueryPolicy = "error",
    verdict_missing: MissingVerdictPolicy = "as-wrong",
    metric: str = "score",
    systems: Iterable[str] | None = None,
    checked: bool = False,
    judges: str | None = None,
) -> Panel:
    """Align canonical verdicts into a paired :class:`Panel` (SPEC §1).

    Parameters
    ----------
    df
        Canonical verdicts (from :func:`read_verdicts` or built by hand).
    missing
        A query that some systems lack: ``"error"`` (default) raises, naming the queries;
        ``"drop"`` drops it for every system; ``"wrong"`` scores it 0 for the systems that lack
        it. The count is recorded in ``notes``.
    verdict_missing
        A verdict with no usable score (NaN): ``"as-wrong"`` (default; C.6, G.3) scores it 0 and
        keeps it in the denominator; ``"exclude"`` drops the query for all systems, together with
        the queries that share its ``pair_id`` (a MEME before/after pair leaves together: the gate
        needs both; Raw-RAG paper A.5.2). The count per system is recorded in ``notes`` in both cases.
    metric
        Which column becomes ``Panel.scores``: ``"score"`` or another per-query metric column
        (``"f1"``, ``"bleu"``, ``"llm_confidence"``, ...).
    systems
        Restrict to these systems, in this order (default: all, sorted).
    checked
        ``df`` has already passed :func:`check` (skip it).
    judges
        When a ``judge`` column names several judges of the same answers: ``"mean"`` scores each
        answer by the mean over its judges (each judge's repetitions averaged first), a judge's
        name scores it by that judge alone (systems judged by nobody else keep their unlabelled
        verdicts). Required then — the choice changes every number — and recorded in ``notes``.
        The judge-repeat rules publishers use apply with one judge or several: ``"mean"`` (the
        per-run mean over judgments, the default with one judge), ``"majority"`` (the
        per-question majority vote: 1 when more than half of the answer's judgments are correct,
        a tie 0) and ``"repeat:K"`` (judgment K alone, 0-based: a single judgment).

    Returns
    -------
    Panel
        The ``(N, S)`` per-query scores of the systems in order, over the queries left after the
        policies (sorted by id), with judgment counts, per-query attributes, the other
        per-(system, query) columns as matrices, and one note per policy that changed anything.

    Raises
    ------
    VerdictError
        Bad verdicts (:func:`check`); no ``metric`` column; a system not in the data; an unknown
        ``missing`` or ``verdict_missing`` policy; a query some systems lack under
        ``missing="error"``; no query left after the policies; several judges of the same
        answers and no ``judges`` policy, or a ``judges`` name that is not a judge of the data.

    Notes
    -----
    The per-query score is the mean over the judge repetitions of that answer (SPEC §1), taken
    after the missing-verdict policy: under ``as-wrong`` a missing repetition counts 0. With
    ``judges="mean"``: score = (1/J) Σ_j mean_r score_jr over the J judges of the answer.

    References
    ----------
    SPEC §1.3 (from verdicts to one score per query) and SPEC §1.4 (pairing and the two
    missing-data policies); Raw-RAG paper C.6 and G.3 (an unusable verdict scores 0 and stays in
    the denominator; judgments of one answer travel together), A.5.2 (a MEME before/after pair
    leaves together).

    Examples
    --------
    >>> df = pd.DataFrame({"system": ["rag", "rag", "mem", "mem"], "query_id": ["a", "b", "a", "b"],
    ...                    "score": [1, 0, 1, None]})
    >>> p = align(df)
    >>> p.systems, p.scores.tolist()
    (('mem', 'rag'), [[1.0, 1.0], [0.0, 0.0]])
    >>> p.notes_text()
    ['missing verdicts as-wrong: 1 verdict without a usable score scored 0 (mem 1, rag 0)']
    """
    if not checked:
        df = check(df)
    if metric not in df:
        raise VerdictError(f"the verdicts have no '{metric}' column (have: {', '.join(df.columns)}).")
    if metric != "score":
        df = df.assign(score=numeric_column(df, metric, low=None, high=None))
    if systems is not None:
        wanted = list(systems)
        check_systems(df, wanted)
        df = df[df["system"].isin(wanted)]
    else:
        wanted = sorted(pd.unique(df["system"]))
    notes: list[dict] = []
    df, by_judge = judge_policy(df, judges, notes)

    # missing verdicts (NaN scores): counted per system, then the policy
    missing_per_system = df["score"].isna().groupby(df["system"]).sum().reindex(wanted, fill_value=0)
    n_missing = int(missing_per_system.sum())
    per_system = ", ".join(f"{s} {int(n)}" for s, n in missing_per_system.items())
    if verdict_missing == "as-wrong":
        if n_missing:
            notes.append({"policy": "missing verdicts as-wrong", "count": n_missing,
                          "per_system": missing_per_system.to_dict(),
                          "detail": f"{n_missing} verdict{'s' if n_missing != 1 else ''} without a "
                                    f"usable score scored 0 ({per_system})"})
        df = df.assign(score=df["score"].fillna(0.0))
    elif verdict_missing == "exclude":
        bad = pd.unique(df.loc[df["score"].isna(), "query_id"])
        if len(bad):
            twins = pair_twins(df, bad)
            notes.append({"policy": "missing verdicts exclude", "count": len(bad) + len(twins),
                          "per_system": missing_per_system.to_dict(),
                          "detail": f"{len(bad)} queries with a missing verdict dropped for every "
                                    f"system ({n_missing} missing verdicts: {per_system}): {listing(bad)}"
                                    + (f"; with them their {len(twins)} pair_id twins (a before/after pair "
                                       f"leaves together, as gates need both): {listing(twins)}" if len(twins)
                                       else "")})
            df = df[~df["query_id"].isin(set(bad) | set(twins))]
    else:
        raise VerdictError(f"unknown missing-verdict policy '{verdict_missing}' (use as-wrong or exclude).")

    # per (query, system) means over repetitions
    value_columns = ["score"] + [c for c in df.columns if c not in CANONICAL and c not in PROVENANCE
                                 and c != "score" and pd.api.types.is_numeric_dtype(df[c])] \
        + [c for c in BINARY_LABELS + COSTS if c in df]
    counts = df.groupby(["query_id", "system"], sort=True).size()
    runs = sorted(map(str, pd.unique(df[RUN].dropna()))) if RUN in df else []
    unit = ["query_id", "system"] + ([RUN] if len(runs) > 1 else [])
    if len(runs) > 1:  # each run scored alone, then the mean over runs (SPEC §1.3)
        per_system = df.dropna(subset=[RUN]).groupby("system")[RUN].nunique()  # a system's own runs, not all names
        how_many = f"{per_system.iloc[0]}" if per_system.nunique() == 1 else \
            "; ".join(f"{s} {int(k)}" for s, k in per_system.items())
        notes.append({"policy": "runs mean", "count": len(runs),
                      "detail": f"each answer scored per run, then by the mean over its system's runs ({how_many}; "
                                f"run names {listing(runs)}); the runs stay paired query by query"})
    if by_judge and repeat_rule(judges) != JUDGES_MAJORITY:  # the mean over judges of each judge's mean
        means = df.groupby(unit + [JUDGE], sort=True, dropna=False)[value_columns].mean() \
            .groupby(level=unit, sort=True).mean()
    else:
        means = df.groupby(unit, sort=True, dropna=False)[value_columns].mean()
    if repeat_rule(judges) == JUDGES_MAJORITY:  # the per-question majority vote over all judgments
        ties = int((means["score"] == 0.5).sum())
        means["score"] = (means["score"] > 0.5).astype(float)
        if ties:
            notes.append({"policy": "judges majority ties", "count": ties,
                          "detail": f"{ties} answers with as many correct as wrong judgments scored 0"})
    if len(unit) > 2:
        means = means.groupby(level=["query_id", "system"], sort=True).mean()
    query_ids = np.array(sorted(pd.unique(df["query_id"])), dtype=object)
    if len(query_ids) == 0:
        raise VerdictError("no query is left to align (every query was excluded). Check the policies.")
    full = pd.MultiIndex.from_product([query_ids, wanted], names=["query_id", "system"])
    means = means.reindex(full)
    counts = counts.reindex(full, fill_value=0)
    n, s = len(query_ids), len(wanted)
    present = counts.to_numpy().reshape(n, s) > 0

    # missing queries
    lacking_rows = ~present.all(axis=1)
    if lacking_rows.any():
        lacking_ids = query_ids[lacking_rows]
        per = {name: int((~present[:, j]).sum()) for j, name in enumerate(wanted)}
        detail = ", ".join(f"{k} {v}" for k, v in per.items() if v)
        lacked = _lacking_categories(df, query_ids, present, wanted)
        if lacked:
            notes.append({"policy": "missing category", "count": sum(k for _, k, _ in lacked),
                          "detail": "; ".join(f"category '{c}' ({k} queries) only in {', '.join(who)}, the other "
                                              f"systems lack it (handled by the missing-query policy {missing})"
                                              for c, k, who in lacked)})
        if missing == "error":
            adversarial = all(str(q).startswith("locomo:") and ":adv" in str(q) for q in lacking_ids)
            fix = ("they are LoCoMo's adversarial questions, which some runs dropped: use the LoCoMo scheme "
                   "(--scheme locomo, scheme='locomo'), which excludes them for every system" if adversarial else
                   "choose --missing drop (drop them for all) or --missing wrong (score them 0)")
            raise VerdictError(
                f"{len(lacking_ids)} queries are missing for some systems ({detail}): "
                f"{listing(lacking_ids)}. Paired analyses need the same queries for every system: {fix}."
                + "".join(f" Category '{c}' ({k} queries) is only in {', '.join(who)}." for c, k, who in lacked)
            )
        if missing == "drop":
            notes.append({"policy": "missing queries drop", "count": int(lacking_rows.sum()),
                          "per_system": per, "detail": f"{int(lacking_rows.sum())} queries not "
                          f"answered by every system dropped ({detail}): {listing(lacking_ids)}"})
        elif missing == "wrong":
            notes.append({"policy": "missing queries wrong", "count": int((~present).sum()),
                          "per_system": per, "detail": f"{int((~present).sum())} missing "
                          f"(system, query) pairs scored 0 ({detail}): {listing(lacking_ids)}"})
        else:
            raise VerdictError(f"unknown missing-query policy '{missing}' (use error, drop or wrong).")

    scores = means["score"].to_numpy().reshape(n, s)
    keep = ~lacking_rows if missing == "drop" else np.ones(n, dtype=bool)
    if missing == "wrong":
        scores = np.where(present, scores, 0.0)
    matrices = {c: means[c].to_numpy(dtype=float).reshape(n, s)[keep] for c in value_columns[1:]}
    attributes = [c for c in QUERY_ATTRIBUTES if c in df]
    queries = (df.dropna(subset=["query_id"]).groupby("query_id", sort=True)[attributes].first()
               if attributes else pd.DataFrame(index=pd.Index(query_ids, name="query_id")))
    queries = queries.reindex(query_ids)[keep]
    queries.index.name = "query_id"
    return Panel(
        scores=np.ascontiguousarray(scores[keep], dtype=float),
        systems=tuple(wanted),
        query_ids=query_ids[keep],
        n_repeats=counts.to_numpy().reshape(n, s)[keep].astype(np.int64),
        queries=queries,
        matrices=matrices,
        metric=metric,
        notes=tuple(notes),
    )
