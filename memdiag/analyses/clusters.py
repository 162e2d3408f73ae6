"""Whole clusters a run gets all wrong (or all right): a failed run, not a weaker system (SPEC §1).

A system that is simply weaker misses queries spread over every conversation. A run that failed
(an ingestion error, an empty memory store, a crashed conversation) misses every query of some
conversations instead: trpc-agent-go's RAG runs on LoCoMo answer 0 of the 81 scored questions of
conv-30, and none of conv-43, conv-44, conv-47 or conv-48, while they answer a third of the
questions elsewhere. Used as the reference of the flows, such a run credits every system with a
"benefit" on those conversations that no memory produced. :func:`cluster_accuracy` counts each
system's correct answers per cluster and flags a cluster whose answers are all wrong (or all
right) when that is improbable at the system's accuracy on the other clusters.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from memdiag.core.kinds import declare
from memdiag.core.notes import Note, prefixed
from memdiag.core.provenance import stamp
from memdiag.engine.pairs import THRESHOLD
from memdiag.errors import VerdictError
from memdiag.io.canonical import check
from memdiag.panel.prepare import Prepared

#: A cluster is flagged when all its answers agree and that has chance below this at the
#: system's accuracy elsewhere.
ALPHA = 1e-3
#: The flags, by the answers of the cluster.
FLAGS: tuple[str, ...] = ("all wrong", "all correct")


def _correct(data: pd.DataFrame | Prepared, by: str | None, threshold: float) -> pd.DataFrame:
    """One row per (system, query): ``cluster``, the ``by`` group and ``correct`` (0/1)."""
    if isinstance(data, Prepared):
        panel = data.panel
        queries = panel.queries
        frame = pd.DataFrame({"query_id": np.repeat(panel.query_ids, len(panel.systems)),
                              "system": np.tile(panel.systems, panel.n),
                              "correct": (panel.scores > threshold).astype(float).ravel()})
        for column in ("cluster", by):
            if column is not None and column in queries:
                frame[column] = np.repeat(queries[column].to_numpy(), len(panel.systems))
        return frame
    df = check(data)
    keys = ["system", "query_id"]
    attributes = [c for c in ("cluster", by) if c is not None and c in df]
    scores = df.groupby(keys, sort=False).agg(score=("score", "mean"),
                                              **{c: (c, "first") for c in attributes}).reset_index()
    scores = scores[scores["score"].notna()]
    return scores.assign(correct=(scores["score"] > threshold).astype(float)).drop(columns="score")


def cluster_accuracy(
    data: pd.DataFrame | Prepared,
    *,
    by: str | None = None,
    alpha: float = ALPHA,
) -> pd.DataFrame:
    """Each system's accuracy per cluster, with whole clusters it gets all wrong (or all right) flagged.

    Parameters
    ----------
    data
        Canonical verdicts with a ``cluster`` column (each system's own verdicts, unaligned, every
        system; a query is correct when its mean score over repetitions and judges is > 0.5), or
        :func:`memdiag.prepare` output: the aligned queries of its systems
        (``md.prepare(systems=...)``), correct when the score is > its threshold
        (``md.prepare(threshold=...)``; None: 0.5, as in the flows). To check some systems on
        their own unaligned queries, pass only their rows.
    by
        A per-query column (e.g. ``"category"``): per cluster and group, against the system's
        accuracy in that group elsewhere.
    alpha
        A cluster is flagged when the chance of its answers being all wrong (all right) at the
        system's accuracy on the other clusters is below ``alpha`` (default 0.001).

    Returns
    -------
    pandas.DataFrame
        One row per (system, cluster[, group]): ``n`` (scored queries), ``correct``, ``accuracy``
        and ``accuracy_elsewhere`` (points, the system on the other clusters), ``p_chance`` and
        ``flag`` (``"all wrong"``, ``"all correct"`` or empty). ``attrs["notes"]`` name the
        flagged clusters of each system, ``attrs["flagged"]`` maps each system to them.

    Raises
    ------
    VerdictError
        Verdicts without a ``cluster`` column, bad verdicts or ``alpha`` outside (0, 1).

    Notes
    -----
    With n_g queries in cluster g and p̂_(−g) the system's accuracy on the other clusters, the
    chance of every answer wrong is (1 − p̂_(−g))^n_g, of every answer right p̂_(−g)^n_g; a
    cluster is flagged when its answers are all wrong (right) and that chance is below α. A
    system that is weak everywhere (p̂_(−g) near 0) is not flagged.

    References
    ----------
    SPEC §2 (a reference that fails whole clusters) and SPEC §1.7 (LoCoMo's conversations as
    clusters); Memory Tax review, on checking runs before comparing them (trpc-agent-go's RAG
    runs answer 0 of the 81 scored questions of LoCoMo's conv-30).

    Examples
    --------
    >>> df = pd.DataFrame({"system": "rag", "query_id": [f"q{i}" for i in range(40)],
    ...                    "cluster": ["a"] * 20 + ["b"] * 20, "score": [0] * 20 + [1, 0] * 10})
    >>> out = cluster_accuracy(df)      # cluster a: all 20 wrong at 50% elsewhere, chance 0.5**20
    >>> out[["cluster", "n", "correct", "accuracy_elsewhere", "flag"]]  # doctest: +NORMALIZE_WHITESPACE
      cluster   n  correct  accuracy_elsewhere       flag
    0       a  20        0                50.0  all wrong
    1       b  20       10                 0.0
    >>> bool(out.loc[0, "p_chance"] == 0.5**20)
    True
    """
    threshold = data.threshold if isinstance(data, Prepared) and data.threshold is not None else THRESHOLD
    if not 0 < alpha < 1:
        raise VerdictError(f"alpha must be strictly between 0 and 1, got {alpha!r}.")
    rows = _correct(data, by, threshold)
    if "cluster" not in rows:
        raise VerdictError("cluster_accuracy needs a 'cluster' column (conversation, episode, persona); these "
                           "verdicts have none.")
    rows = rows[rows["cluster"].notna()]
    groups = ["system", *([by] if by is not None and by in rows else [])]
    out = rows.groupby([*groups, "cluster"], sort=True)["correct"].agg(n="size", correct="sum").reset_index()
    out["correct"] = out["correct"].astype(np.int64)
    totals = out.groupby(groups)[["n", "correct"]].transform("sum")
    with np.errstate(invalid="ignore", divide="ignore"):
        elsewhere = (totals["correct"] - out["correct"]) / (totals["n"] - out["n"])
        out["accuracy"] = 100 * out["correct"] / out["n"]
    out["accuracy_elsewhere"] = 100 * elsewhere
    wrong, right = out["correct"] == 0, out["correct"] == out["n"]
    chance = np.where(wrong, (1 - elsewhere) ** out["n"], np.where(right, elsewhere ** out["n"], np.nan))
    out["p_chance"] = np.where(elsewhere.notna(), chance, np.nan)
    out["flag"] = np.select([wrong & (out["p_chance"] < alpha), right & (out["p_chance"] < alpha)], list(FLAGS),
                            default="")
    out = out[[*groups, "cluster", "n", "correct", "accuracy", "accuracy_elsewhere", "p_chance", "flag"]]
    flagged = _flagged(out, by if len(groups) > 1 else None)
    counts = rows.groupby("system")["cluster"].nunique()
    notes = [_note(system, items, int(counts[system])) for system, items in flagged.items()]
    return stamp(out.reset_index(drop=True), "cluster_accuracy", data if isinstance(data, Prepared) else None,
                 kinds=declare(points=("accuracy", "accuracy_elsewhere"), p=("p_chance",)), resampled=False, notes=notes, unit="points", threshold=threshold, alpha=alpha, flagged=flagged)


def _flagged(table: pd.DataFrame, by: str | None) -> dict[str, list[tuple[str, str]]]:
    """``{system: [("conv-30", "conv-30 (0/81, all wrong)"), ...]}`` for the flagged rows."""
    out: dict[str, list[tuple[str, str]]] = {}
    for row in table[table["flag"] != ""].itertuples(index=False):
        where = f"{row.cluster}" + (f" {getattr(row, by)}" if by else "")
        text = f"{where} ({int(row.correct)}/{int(row.n)}, {row.flag})"
        out.setdefault(row.system, []).append((str(row.cluster), text))
    return out


def _note(system: str, items: list[tuple[str, str]], n_clusters: int) -> Note:
    clusters = len({cluster for cluster, _ in items})
    return Note(f"{system} answers whole clusters all wrong (or all right), far from its accuracy elsewhere — a run "
                f"that failed there (ingestion, an empty store) rather than a weaker system; check it before "
                f"comparing: {', '.join(text for _, text in items)} ({clusters} of {n_clusters} clusters)",
                code="system-fails-clusters", severity="warning", concerns=(system,))


def validation_notes(df: pd.DataFrame) -> list[str]:
    """What :command:`memdiag validate` says about clusters: the flagged clusters of each system
    (:func:`cluster_accuracy`), and per category (``category`` column) those a category-blind
    check misses, e.g. a run that answers a conversation's adversarial questions right ("not
    mentioned") and all its other questions wrong. Empty without a ``cluster`` column."""
    if "cluster" not in df or df["cluster"].isna().all():
        return []
    notes = list(cluster_accuracy(df).attrs["notes"])
    if "category" in df and df["category"].nunique() > 1:
        notes += [prefixed("by category: ", n) for n in cluster_accuracy(df, by="category").attrs["notes"]]
    return notes


def _uniform_cluster(prepared: Prepared, reference: str) -> bool:
    """Whether ``reference`` answers some cluster all wrong or all right: the necessary condition
    of every flag of :func:`cluster_accuracy`, counted in numpy so that the flows pay for the
    full table only when a flag is possible."""
    panel = prepared.panel
    if reference not in panel.systems or "cluster" not in panel.queries:
        return True  # let cluster_accuracy decide (and say what is wrong)
    cut = THRESHOLD if prepared.threshold is None else prepared.threshold
    correct = panel.scores[:, list(panel.systems).index(reference)] > cut
    codes, _ = pd.factorize(panel.queries["cluster"], use_na_sentinel=False)
    n = np.bincount(codes)
    k = np.bincount(codes, weights=correct)
    return bool(((k == 0) | (k == n)).any())


def reference_notes(prepared: Prepared, reference: str) -> list[str]:
    """The flows' note when their reference fails whole clusters (empty when it does not, or when
    the queries have no clusters), at the prepared threshold."""
    if prepared.n_clusters is None or not _uniform_cluster(prepared, reference):
        return []
    table = cluster_accuracy(prepared.restrict([reference]))
    items = table.attrs["flagged"].get(reference)
    if not items:
        return []
    return [Note(f"the reference {reference} answers whole clusters all wrong (or all right): "
                 f"{', '.join(text for _, text in items)} — every "
                 "system's benefit (tax) there counts that run's failure, not a memory effect; check the reference "
                 "(md.cluster_accuracy)", code="reference-fails-clusters", severity="warning", concerns=(reference,))]
