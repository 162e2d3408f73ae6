"""Repeated end-to-end runs of one system: each run's score and the run-to-run spread (SPEC §1.3).

One job: :func:`run_scores` scores every run of every system alone, under the same scheme,
metric and policies as the whole analysis, as publishers do before averaging ("the published
number is the mean of its three runs' accuracies"). :func:`memdiag.score` adds the result as
``runs`` (how many), ``run_sd`` (the standard deviation across runs, ddof = 1) and a note listing
every run's score.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from memdiag._prepare import Prepared, prepare
from memdiag._schema import RUN

#: Degrees of freedom removed in the run-to-run standard deviation (the sample SD, as
#: ``statistics.stdev`` and most publishers; fc-baseline's README reports the population SD).
RUN_DDOF = 1


def run_scores(prepared: Prepared) -> pd.DataFrame | None:
    """Every run's overall score per system, in points (None when no system has several runs).

    Parameters
    ----------
    prepared
        The analysis (:func:`memdiag.prepare`): its rows (of the aligned queries), scheme, metric
        and policies are used for each run alone.

    Returns
    -------
    pandas.DataFrame or None
        One row per (system, run): ``system, run, overall`` (points).

    Examples
    --------
    System ``s`` ran twice on two queries: run a 1/2, run b 2/2 correct:

    >>> import memdiag as md
    >>> df = pd.DataFrame({"system": "s", "query_id": ["q1", "q2"] * 2, "run": ["a", "a", "b", "b"],
    ...                    "score": [1, 0, 1, 1]})
    >>> run_scores(md.prepare(df)).to_dict("records")
    [{'system': 's', 'run': 'a', 'overall': 50.0}, {'system': 's', 'run': 'b', 'overall': 100.0}]
    """
    from memdiag._options import NO_RESAMPLING
    from memdiag._scoring import score

    frame = prepared.frame
    if RUN not in frame or frame[RUN].dropna().groupby(frame["system"]).nunique().max() < 2:
        return None
    frame = frame[frame["system"].isin(prepared.systems) & frame["query_id"].isin(prepared.panel.query_ids)]
    rows = []
    for (system, run), part in frame.dropna(subset=[RUN]).groupby(["system", RUN], sort=True):
        alone = prepare(part.drop(columns=RUN), scheme=prepared.scheme, metric=_metric(prepared),
                        verdict_missing=prepared.verdict_missing, judges=prepared.judges,
                        label_missing=prepared.label_missing)
        overall = score(alone, options=NO_RESAMPLING)["overall"].iloc[0]
        rows.append({"system": system, "run": run, "overall": float(overall)})
    return pd.DataFrame(rows)


def _metric(prepared: Prepared) -> str:
    return "accuracy" if prepared.column == "score" else prepared.column


def add_run_columns(table: pd.DataFrame, prepared: Prepared, notes: list[str]) -> None:
    """``runs`` and ``run_sd`` (ddof = 1) in a score table, and a note with every run's score."""
    from memdiag._notes import Note

    runs = run_scores(prepared)
    if runs is None:
        return
    grouped = runs.groupby("system", sort=True)["overall"]
    count = grouped.size()
    spread = grouped.agg(lambda v: float(np.std(v.to_numpy(), ddof=RUN_DDOF)) if len(v) > 1 else np.nan)
    at = table.columns.get_loc("overall") + 1
    table.insert(at, "runs", table["system"].map(count).fillna(1).astype(int).to_numpy())
    table.insert(at + 1, "run_sd", table["system"].map(spread).to_numpy(dtype=float))
    for system, part in runs.groupby("system", sort=True):
        if len(part) > 1:
            notes.append(Note(f"{system}: {len(part)} runs, " + ", ".join(f"{r} {v:.2f}" for r, v in
                                                                           zip(part["run"], part["overall"]))
                              + f"; overall is the per-query mean over runs (the mean of the runs' scores when "
                                f"they share their queries); run_sd {spread[system]:.2f} points (ddof={RUN_DDOF})",
                              code="runs", severity="info", concerns=(str(system),)))
