"""Sequential ingestion time: the cumulative time a memory system takes to ingest a history item by
item, and its per-system totals (Raw-RAG paper Figure 1 right, §4.3 RQ3, D.6; SPEC §7.9).

The paper streams one 1,710-message conversation into each system with one worker and records
the duration of each message's Add; "cumulative Add time is the sum of the recorded
message-level durations" (D.6), 0.33 hours for Raw-RAG against 3.25 hours for the next-fastest
completed run. An ingestion log has one row per ingested item and system: ``system``, an
optional ``item`` (the order; file order otherwise), and either ``duration_s`` (or
``duration_ms``) or the ``start`` and ``end`` of the item (ISO 8601 times or seconds). A
system with fewer items than the longest run did not complete it; its curve stops there.

None of the real releases memdiag reads records per-item ingestion times: trpc-agent-go keeps one
``total_time_ms`` per conversation (ingestion and answering together) and per-question answer
latencies, Zep per-question latencies (``md.costs`` reports those).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from memdiag.core.kinds import real
from memdiag.core.notes import Note
from memdiag.core.provenance import stamp
from memdiag.errors import VerdictError, where

__all__ = ["ingestion", "ingestion_curve"]

#: Durations, in seconds.
SECONDS = real("seconds")


def _seconds(values: pd.Series) -> pd.Series:
    """Times as seconds: numbers as they are, text as ISO 8601 timestamps (NaN where unparsable)."""
    numeric = pd.to_numeric(values, errors="coerce")
    if numeric.notna().sum() == values.notna().sum():
        return numeric.astype(float)
    stamps = pd.to_datetime(values, errors="coerce", utc=True, format="ISO8601")
    return (stamps - pd.Timestamp(0, tz="UTC")).dt.total_seconds()


def _durations(log: pd.DataFrame) -> tuple[pd.Series, str]:
    """Each item's duration in seconds and where it came from."""
    if "duration_s" in log:
        return pd.to_numeric(log["duration_s"], errors="coerce").astype(float), "duration_s"
    if "duration_ms" in log:
        return pd.to_numeric(log["duration_ms"], errors="coerce").astype(float) / 1000, "duration_ms / 1000"
    if {"start", "end"} <= set(log.columns):
        return _seconds(log["end"]) - _seconds(log["start"]), "end − start"
    raise VerdictError(f"the ingestion log needs duration_s, duration_ms, or start and end per item (it has "
                       f"{', '.join(map(str, log.columns))}). Add one, e.g. a duration_s column.")


def _row(log: pd.DataFrame, index) -> str:
    """``file, row k`` of a log row (or ``row k`` of a frame)."""
    if "source_file" in log:
        return where(str(log.at[index, "source_file"]), str(log.at[index, "source_record"]))
    return f"row {list(log.index).index(index) + 1}"


def ingestion_curve(log: pd.DataFrame) -> pd.DataFrame:
    """The cumulative ingestion time of each system, item by item (Raw-RAG paper Figure 1 right).

    Parameters
    ----------
    log
        One row per ingested item (:func:`memdiag.read_ingestion_log`, or a frame with the same columns).

    Returns
    -------
    pandas.DataFrame
        ``system, item`` (1, 2, ... in ingestion order: the ``item`` column's order when given,
        numbers numerically, else the log's order), ``duration_s`` and ``cumulative_s`` (the sum
        of the durations so far), systems in the log's order. ``attrs["notes"]`` say where the
        durations came from and which runs stopped early.

    Raises
    ------
    VerdictError
        No ``system`` column, no durations, a missing or negative duration, an item listed twice
        for a system — naming the file and row.

    References
    ----------
    SPEC §7.9 (sequential ingestion: the cumulative time after k items is the sum of the first
    k durations); Raw-RAG paper D.6 ("cumulative Add time is the sum of the recorded
    message-level durations") and Figure 1 right.

    Examples
    --------
    >>> log = pd.DataFrame({"system": ["rag"] * 3 + ["mem"] * 2, "duration_s": [1.0, 2.0, 1.5, 30.0, 40.0]})
    >>> ingestion_curve(log)[["system", "item", "cumulative_s"]].to_dict("list")
    {'system': ['rag', 'rag', 'rag', 'mem', 'mem'], 'item': [1, 2, 3, 1, 2], 'cumulative_s': [1.0, 3.0, 4.5, 30.0, 70.0]}
    """
    if "system" not in log:
        raise VerdictError(f"the ingestion log needs a 'system' column (it has {', '.join(map(str, log.columns))}).")
    seconds, origin = _durations(log)
    bad = seconds.isna() | (seconds < 0) | ~np.isfinite(seconds.fillna(0))
    if bad.any():
        first = bad.idxmax()
        raise VerdictError(f"{_row(log, first)}: the ingestion time ({origin}) is missing, negative or not a "
                           f"number for system '{log.at[first, 'system']}'. Give every item a duration of 0 or "
                           "more seconds.")
    frame = pd.DataFrame({"system": log["system"].astype(str), "duration_s": seconds,
                          "_position": np.arange(len(log))})
    if "item" in log:
        frame["_item"] = log["item"]
        repeated = frame.duplicated(["system", "_item"])
        if repeated.any():
            first = repeated.idxmax()
            raise VerdictError(f"{_row(log, first)}: item {log.at[first, 'item']} of system "
                               f"'{log.at[first, 'system']}' is listed twice. Give each item once.")
        numeric = pd.to_numeric(frame["_item"], errors="coerce")
        frame["_key"] = numeric if numeric.notna().all() else frame["_item"].astype(str)
    else:
        frame["_key"] = frame["_position"]
    parts = []
    for system in pd.unique(frame["system"]):
        part = frame[frame["system"] == system].sort_values(["_key", "_position"], kind="stable")
        parts.append(pd.DataFrame({"system": system, "item": np.arange(1, len(part) + 1),
                                   "duration_s": part["duration_s"].to_numpy(),
                                   "cumulative_s": part["duration_s"].cumsum().to_numpy()}))
    out = pd.concat(parts, ignore_index=True)
    longest = out.groupby("system", sort=False)["item"].max()
    notes = [Note(f"durations: {origin}; cumulative time = the sum of the item durations (sequential ingestion, "
                  "Raw-RAG paper D.6)", code="ingestion-durations"),
             Note("one run per system (a measurement, not a sample): no interval", code="no-interval")]
    short = longest[longest < longest.max()]
    if len(short):
        notes.append(Note("stopped before the last item (did not complete): "
                          + ", ".join(f"{s} at item {n}" for s, n in short.items()),
                          code="ingestion-incomplete", severity="caution", concerns=short.index))
    return stamp(out, "ingestion_curve", kinds=dict.fromkeys(("duration_s", "cumulative_s"), SECONDS), notes=notes,
                 resampled=False, unit="seconds")


def ingestion(log: pd.DataFrame, *, reference: str | None = None) -> pd.DataFrame:
    """Per-system totals of a sequential ingestion run, with the ratio to the reference (Raw-RAG
    paper §4.3 RQ3: cumulative Add time from 0.33 hours for Raw-RAG to 26.95 hours).

    Parameters
    ----------
    log
        One row per ingested item (:func:`memdiag.read_ingestion_log`).
    reference
        The system the ratios are taken to.

    Returns
    -------
    pandas.DataFrame
        One row per system: ``system, n_items, complete`` (as many items as the longest run),
        ``total_s, total_hours, mean_s, median_s, p95_s, max_s`` (per item; median and P95 by
        linear interpolation) and ``ratio`` (total / the reference's total; NaN without one).

    Raises
    ------
    VerdictError
        A ``reference`` not in the log, or a log :func:`ingestion_curve` refuses (no ``system``,
        no durations, a missing or negative duration, an item listed twice).

    References
    ----------
    SPEC §7.9 (sequential ingestion and system-level costs: one measurement per system, no
    interval); Raw-RAG paper §4.3 RQ3 (cumulative Add time from 0.33 hours for Raw-RAG to 26.95
    hours), D.6 and Figure 1 right.

    Examples
    --------
    >>> log = pd.DataFrame({"system": ["rag"] * 3 + ["mem"] * 2, "duration_s": [1.0, 2.0, 1.5, 30.0, 40.0]})
    >>> ingestion(log, reference="rag")[["system", "n_items", "complete", "total_s", "ratio"]]
      system  n_items  complete  total_s      ratio
    0    rag        3      True      4.5   1.000000
    1    mem        2     False     70.0  15.555556
    """
    curve = ingestion_curve(log)
    rows = []
    for system, part in curve.groupby("system", sort=False):
        d = part["duration_s"].to_numpy()
        rows.append({"system": system, "n_items": len(d), "total_s": d.sum(), "total_hours": d.sum() / 3600,
                     "mean_s": d.mean(), "median_s": np.median(d), "p95_s": np.percentile(d, 95),
                     "max_s": d.max()})
    out = pd.DataFrame(rows)
    out.insert(2, "complete", out["n_items"] == out["n_items"].max())
    if reference is not None:
        if reference not in set(out["system"]):
            raise VerdictError(f"the reference '{reference}' is not in the ingestion log (systems: "
                               f"{', '.join(out['system'])}).")
        base = float(out.loc[out["system"] == reference, "total_s"].iloc[0])
        out["ratio"] = out["total_s"] / base if base > 0 else np.nan
    else:
        out["ratio"] = np.nan
    notes = list(curve.attrs["notes"])
    if reference is not None:
        notes.append(Note(f"ratio = total time / the total time of {reference}", code="ratio-definition"))
    kinds = {**dict.fromkeys(("total_s", "mean_s", "median_s", "p95_s", "max_s"), SECONDS),
             "total_hours": real("hours"), "ratio": real("ratio")}
    return stamp(out, "ingestion", kinds=kinds, notes=notes, resampled=False, unit="seconds")
