"""Official benchmark scores per system: a scheme (SPEC §6) applied to canonical verdicts.

:func:`score` is the table a paper prints: per system the overall in points, the group scores
(categories, tasks or sources), the capability summaries of a nested scheme, and the counts each
rests on, with every exclusion, gate and missing-data policy recorded in ``attrs["notes"]``;
and a paired bootstrap interval of the overall under the benchmark's resampling design
(SPEC §4).

Repeated end-to-end runs of one system (SPEC §1.3): :func:`run_scores` scores every run of every
system alone, under the same scheme, metric and policies as the whole analysis, as publishers do
before averaging ("the published number is the mean of its three runs' accuracies");
:func:`score` adds the result as ``runs`` (how many), ``run_sd`` (the standard deviation across
runs, ddof = 1) and a note listing every run's score.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from memdiag.core.kinds import declare, with_intervals
from memdiag.core.notes import Note
from memdiag.core.provenance import stamp
from memdiag.engine.inference.intervals import describe, infer
from memdiag.engine.options import NO_RESAMPLING, Options, as_options
from memdiag.errors import VerdictError
from memdiag.io.schema import RUN
from memdiag.panel import conventions as _conventions
from memdiag.panel.prepare import Prepared, as_prepared, prepare
from memdiag.panel.schemes import ALL, get_scheme


def score(
    data: pd.DataFrame | Prepared,
    *,
    metric: str = "score",
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """Official per-system scores of canonical verdicts under a benchmark scheme (SPEC §6).

    Parameters
    ----------
    data
        :func:`memdiag.prepare` output, or canonical verdicts (SPEC §1; prepared with the
        defaults). The scheme is chosen there: a built-in name
        (:func:`~memdiag.panel.schemes.known_schemes`), a YAML/JSON scheme file, or a
        :class:`~memdiag.panel.schemes.Scheme`; without one, ``mean``, the question-weighted mean of
        every query. So are the systems and the missing-query and missing-verdict policies of
        :func:`~memdiag.panel.align.align` (default ``error`` and ``as-wrong``).
    metric
        The per-query column scored: ``"score"`` (the judged verdict) or another metric in
        [0, 1] such as ``"f1"`` or ``"bleu"``.
    options
        :class:`memdiag.Options` for the intervals: ``n_resamples`` bootstrap replicates B for
        the intervals of ``overall`` and of every node and group score (default 20,000, SPEC §4;
        0 computes none), their ``seed`` and ``confidence_level``; the ``design`` (None: the
        prepared data's — LoCoMo and MEME resample whole conversations and episodes
        (``cluster``), MemoryAgentBench resamples within each of its 14 sources
        (``stratified``), data with a ``cluster`` column are clustered, anything else ``iid``);
        the ``inference`` (``auto``: the SPEC §4.1 rule, the cluster jackknife with t(G − 1)
        under a cluster design with fewer than 200 clusters, else the percentile bootstrap).

    Returns
    -------
    pandas.DataFrame
        One row per system: ``system``; ``overall`` in points (0-100); with ``n_resamples > 0``
        ``overall_ci_low`` and ``overall_ci_high`` (points) next to it, and ``<column>_ci_low``
        / ``_ci_high`` next to every node and group score (one set of replicates or leave-one-out
        estimates for all: the groups' intervals are paired with the overall's); one column per named
        node of a nested scheme (MemoryAgentBench ``AR``, ``TTL``, ``ICL``, ``LRU``, ``CR``); one
        column per group (category, task, source; none when the scheme has a single group);
        ``n`` (queries in the official denominator); ``n_<group>``; ``complete`` (every required
        group present and the official query count met). ``attrs``: ``scheme``, ``description``,
        ``source``, ``metric``, ``missing``, ``verdict_missing``, ``complete``,
        ``missing_groups``, ``notes`` (one line per exclusion, gate and policy application).
        With ``n_resamples > 0`` also ``design``, ``n_resamples``, ``seed`` (the int that
        reproduces the replicates), ``confidence_level``, ``inference``, ``method`` and ``mc_se``
        (Monte-Carlo standard errors of the interval ends, 0 for a t interval); ``notes``
        then say why that design and that interval were used (and how often the overall was
        undefined, if ever).

    Raises
    ------
    SchemeError
        Unknown scheme, or data the scheme cannot score (missing column, unpaired gate twin).
    VerdictError
        Bad verdicts, unpaired queries under ``missing="error"``, a metric outside [0, 1], an
        unknown system, policy or ``inference``, a bad ``n_resamples`` or ``confidence_level``.
    ValueError
        An unknown ``design``.
    TypeError
        ``seed`` is neither an int nor a :class:`numpy.random.Generator`.

    Notes
    -----
    The scheme's exclusions are applied to the verdicts before alignment, so a run that kept
    excluded queries (trpc-agent-go's 1,986 LoCoMo questions with the 446 adversarial ones)
    pairs with one that dropped them (Zep's 1,540). Group scores are means over the group's
    included queries (after gates); ``overall`` is the question-weighted mean or the weighted
    mean of group means (SPEC §6; Raw-RAG paper D.5). Undefined scores (a weighted group with no
    query) are NaN.

    Interval (SPEC §4; Raw-RAG paper C.6): the scheme's per-query contribution columns ``X``
    (:meth:`~memdiag.panel.schemes.SchemeLayout.columns`) are resampled with indices shared across
    systems (count-weights ``W`` over queries, clusters, or queries within strata) and the full
    official statistic ``θ(W @ X)`` -- gates, macro-averages and nested weights included -- is
    recomputed in every replicate; the interval is the α/2 and 1 − α/2 quantiles of the B
    replicate values (:func:`~memdiag.engine.resampling.bootstrap_sums`). Under the cluster design a
    MEME episode keeps all its questions and both phases of every gated pair together, so the
    gate is applied to the twins exactly as in the data. With fewer than 200 clusters the
    interval is θ̂ ± t_{G−1}·√V_J instead, V_J the cluster jackknife variance of the same
    official statistic recomputed without each cluster (SPEC §4.1).

    References
    ----------
    SPEC §6.1 (schemes), SPEC §6.3 (the built-in schemes), SPEC §4.2 (the paired principle: the
    official statistic recomputed in every replicate) and SPEC §4.1 (few clusters); Raw-RAG
    paper D.5 (official weights and exclusions) and C.6 (the benchmark's resampling unit).
    Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.

    Examples
    --------
    >>> df = pd.DataFrame({"system": ["rag"] * 4, "query_id": ["a", "b", "c", "d"],
    ...                    "score": [1, 0, 1, 1], "category": ["temporal", "temporal",
    ...                    "single-hop", "adversarial"]})
    >>> import memdiag as md
    >>> prep = md.prepare(df, scheme="locomo")
    >>> score(prep, options={"n_resamples": 0})[["system", "overall", "temporal", "n", "n_temporal"]]
      system    overall  temporal  n  n_temporal
    0    rag  66.666667      50.0  3           2

    With an interval (iid here: the locomo scheme resamples conversations, which these rows lack):

    >>> ci = score(prep, options={"n_resamples": 2000})
    >>> ci.columns[:4].tolist(), ci.attrs["design"], ci.attrs["n_resamples"]
    (['system', 'overall', 'overall_ci_low', 'overall_ci_high'], 'iid', 2000)
    """
    opts = as_options(options)
    prepared = as_prepared(data, metric=metric, design=opts.design)
    n_resamples, seed, confidence_level, inference = (opts.n_resamples, opts.seed, opts.confidence_level,
                                                      opts.inference)
    panel = prepared.panel
    if metric != "score" and ((panel.scores < 0) | (panel.scores > 1)).any():
        raise VerdictError(f"metric '{metric}' has values outside [0, 1] (from {panel.scores.min():g} to "
                           f"{panel.scores.max():g}); score() reports points of a [0, 1] metric. "
                           "Rescale the column first.")
    chosen = prepared.scheme or get_scheme("mean")
    layout = prepared.layout() or chosen.layout(panel)
    sums = layout.columns().sum(axis=0)
    table = pd.DataFrame({"system": list(panel.systems),
                          "overall": 100 * layout.statistic(sums)})
    summaries = 100 * layout.summary_scores(sums)
    for k, name in enumerate(layout.summaries):
        table[name] = summaries[:, k]
    grouped = layout.groups != (ALL,)
    if grouped:
        means = 100 * layout.group_scores(sums)
        for g, name in enumerate(layout.groups):
            table[name] = means[:, g]
    table["n"] = layout.n
    if grouped:
        for g, name in enumerate(layout.groups):
            table[f"n_{name}"] = int(layout.counts[g])
    table["complete"] = layout.complete
    notes = layout.notes_text()
    add_run_columns(table, prepared, notes)
    settings = {}
    if n_resamples:
        columns = ["overall", *layout.summaries, *(layout.groups if grouped else ())]
        res = infer(layout.columns(), prepared.resampling, _every_score(layout, grouped), inference=inference,
                    test=False, n_resamples=n_resamples, seed=seed,
                    confidence_level=confidence_level, bounds=(0.0, 1.0))
        s = len(panel.systems)
        mc_se, undefined = {}, []
        for k, name in enumerate(columns):      # outputs are column-major: every system's value of one column
            at = table.columns.get_loc(name) + 1
            part = slice(k * s, (k + 1) * s)
            table.insert(at, f"{name}_ci_low", 100 * res.ci_low[part])
            table.insert(at + 1, f"{name}_ci_high", 100 * res.ci_high[part])
            for end in ("ci_low", "ci_high"):
                mc_se[f"{name}_{end}"] = [float(100 * v) for v in res.mc_se[end][part]]
            share = float(np.max(res.undefined[part]))
            if share > 0:
                what = "replicates" if res.kind == "percentile" else "leave-one-cluster-out estimates"
                subject = ("the overall was undefined (a weighted group, or every included query, absent)"
                           if name == "overall" else f"{name} was undefined (no query of it)")
                undefined.append(Note(f"{subject} in {share:.1%} of the {what}"
                                      + (" and those were left out of the interval" if res.kind == "percentile"
                                         else ", so its interval is undefined"),
                                      code="undefined-replicates", severity="caution"))
        settings = {"n_resamples": n_resamples, "seed": seed, "confidence_level": confidence_level,
                    "inference": inference, "method": res.method, "mc_se": mc_se}
        notes += [describe(res, prepared.n_clusters), *undefined]
    settings.update(category_labels(chosen.name, panel.queries, layout.groups if grouped else (), notes))
    scores = ["overall", *layout.summaries, *(layout.groups if grouped else ())]
    kinds = declare(points=(*with_intervals(*scores), "run_sd"))
    table = stamp(table, "score", prepared, kinds=kinds, notes=notes, resampled=bool(n_resamples), metric=metric,
                  unit="points", description=chosen.description, source=chosen.source, complete=layout.complete,
                  missing_groups=list(layout.missing_groups), **settings)
    table.attrs["scheme"] = chosen.name
    return table


def _every_score(layout, grouped: bool):
    """The statistic of every score column of a score table: the overall, the named nodes and the
    group means, each for every system (column-major), from the same sums (SPEC §6)."""
    def statistic(sums: np.ndarray) -> np.ndarray:
        parts = [layout.statistic(sums), *np.moveaxis(layout.summary_scores(sums), -1, 0)]
        if grouped:
            parts += list(np.moveaxis(layout.group_scores(sums), -1, 0))
        return np.concatenate(parts, axis=-1)

    return statistic


def category_labels(scheme: str | None, queries: pd.DataFrame, groups, notes: list[str]) -> dict:
    """The ``attrs`` that show a benchmark's integer category beside each group name (SPEC §6.2):
    ``category_ids`` (group -> integer), ``convention`` (the names used) and ``column_labels``
    (the headers tables print, "1 (multi-hop)"), with a note naming the other conventions;
    nothing for groups of a benchmark without integer categories."""
    benchmark = _conventions.benchmark_of(scheme, queries["benchmark"] if "benchmark" in queries else ())
    ids = _conventions.category_ids(groups, benchmark) if benchmark else {}
    if not ids:
        return {}
    notes.append(_conventions.naming_note(benchmark))
    return {"category_ids": ids, "convention": _conventions.canonical(benchmark).name,
            "column_labels": _conventions.column_labels(groups, benchmark)}


# --------------------------------------------------------------------------------------------
# repeated runs (SPEC §1.3)
# --------------------------------------------------------------------------------------------
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
