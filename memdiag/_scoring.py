"""Official benchmark scores per system: a scheme (SPEC §6) applied to canonical verdicts.

:func:`score` is the table a paper prints: per system the overall in points, the group scores
(categories, tasks or sources), the capability summaries of a nested scheme, and the counts each
rests on, with every exclusion, gate and missing-data policy recorded in ``attrs["notes"]``;
on request, a paired bootstrap interval of the overall under the benchmark's resampling design
(SPEC §4).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from memdiag.errors import VerdictError
from memdiag._schemes import ALL, Scheme, get_scheme
from memdiag._verdicts import MissingQueryPolicy, MissingVerdictPolicy, align


def score(
    df: pd.DataFrame,
    scheme: str | Path | Scheme = "mean",
    metric: str = "score",
    missing: MissingQueryPolicy = "error",
    verdict_missing: MissingVerdictPolicy = "as-wrong",
    design: str | None = None,
    n_resamples: int = 0,
    seed: int | np.random.Generator = 0,
    confidence_level: float = 0.95,
) -> pd.DataFrame:
    """Official per-system scores of canonical verdicts under a benchmark scheme (SPEC §6).

    Parameters
    ----------
    df
        Canonical verdicts (SPEC §1).
    scheme
        A built-in scheme name (:func:`~memdiag._schemes.known_schemes`), a YAML/JSON scheme file,
        or a :class:`~memdiag._schemes.Scheme`.
    metric
        The per-query column scored: ``"score"`` (the judged verdict) or another metric in
        [0, 1] such as ``"f1"`` or ``"bleu"``.
    missing, verdict_missing
        The missing-query and missing-verdict policies of :func:`~memdiag._verdicts.align`.
    design
        Resampling design of the interval (``iid``, ``stratified``, ``cluster``,
        ``stratified-cluster``); None follows the benchmark (:func:`~memdiag._compare.resolve_design`:
        MEME resamples whole episodes (``cluster``), MemoryAgentBench resamples within each of its
        14 sources (``stratified``), anything else ``iid``).
    n_resamples
        Bootstrap replicates B for the interval of ``overall``; 0 (default) computes no interval.
        SPEC §4 uses 20,000.
    seed
        Seed of the replicates (int or ``numpy.random.Generator``); the same seed gives the same
        interval on every run.
    confidence_level
        Level of the percentile interval.

    Returns
    -------
    pandas.DataFrame
        One row per system: ``system``; ``overall`` in points (0-100); with ``n_resamples > 0``
        ``overall_ci_low`` and ``overall_ci_high`` (points) next to it; one column per named
        node of a nested scheme (MemoryAgentBench ``AR``, ``TTL``, ``ICL``, ``LRU``, ``CR``); one
        column per group (category, task, source; none when the scheme has a single group);
        ``n`` (queries in the official denominator); ``n_<group>``; ``complete`` (every required
        group present and the official query count met). ``attrs``: ``scheme``, ``description``,
        ``source``, ``metric``, ``missing``, ``verdict_missing``, ``complete``,
        ``missing_groups``, ``notes`` (one line per exclusion, gate and policy application).
        With ``n_resamples > 0`` also ``design``, ``n_resamples``, ``seed`` (the int that
        reproduces the replicates) and ``confidence_level``; ``notes`` then ends with the line
        saying why that design was used (and how many replicates were undefined, if any).

    Raises
    ------
    SchemeError
        Unknown scheme, or data the scheme cannot score (missing column, unpaired gate twin).
    VerdictError
        Bad verdicts, unpaired queries under ``missing="error"``, a metric outside [0, 1].

    Notes
    -----
    The scheme's exclusions are applied to the verdicts before alignment, so a run that kept
    excluded queries (trpc-agent-go's 1,986 LoCoMo questions with the 446 adversarial ones)
    pairs with one that dropped them (Zep's 1,540). Group scores are means over the group's
    included queries (after gates); ``overall`` is the question-weighted mean or the weighted
    mean of group means (SPEC §6; Raw-RAG paper D.5). Undefined scores (a weighted group with no
    query) are NaN.

    Interval (SPEC §4; Raw-RAG paper C.6): the scheme's per-query contribution columns ``X``
    (:meth:`~memdiag._schemes.SchemeLayout.columns`) are resampled with indices shared across
    systems (count-weights ``W`` over queries, clusters, or queries within strata) and the full
    official statistic ``θ(W @ X)`` -- gates, macro-averages and nested weights included -- is
    recomputed in every replicate; the interval is the α/2 and 1 − α/2 quantiles of the B
    replicate values (:func:`~memdiag._resampling.bootstrap_sums`). Under the cluster design a
    MEME episode keeps all its questions and both phases of every gated pair together, so the
    gate is applied to the twins exactly as in the data.

    Examples
    --------
    >>> df = pd.DataFrame({"system": ["rag"] * 4, "query_id": ["a", "b", "c", "d"],
    ...                    "score": [1, 0, 1, 1], "category": ["temporal", "temporal",
    ...                    "single-hop", "adversarial"]})
    >>> score(df, scheme="locomo")[["system", "overall", "temporal", "n", "n_temporal"]]
      system    overall  temporal  n  n_temporal
    0    rag  66.666667      50.0  3           2

    With an interval (iid here: the locomo scheme asks for no particular design):

    >>> ci = score(df, scheme="locomo", n_resamples=2000, seed=0)
    >>> ci.columns[:4].tolist(), ci.attrs["design"], ci.attrs["n_resamples"]
    (['system', 'overall', 'overall_ci_low', 'overall_ci_high'], 'iid', 2000)
    """
    chosen = get_scheme(scheme)
    selected = chosen.select(df)
    panel = align(selected, missing=missing, verdict_missing=verdict_missing, metric=metric)
    if metric != "score" and ((panel.scores < 0) | (panel.scores > 1)).any():
        raise VerdictError(f"metric '{metric}' has values outside [0, 1] (from {panel.scores.min():g} to "
                           f"{panel.scores.max():g}); score() reports points of a [0, 1] metric. "
                           "Rescale the column first.")
    layout = chosen.layout(panel)
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
    notes = [f"{n['policy']}: {n['detail']}" for n in selected.attrs["scheme_notes"]]
    notes += panel.notes_text() + layout.notes_text()
    interval = {}
    if n_resamples:
        from memdiag._designs import Design, resolve_design
        from memdiag._resampling import bootstrap_sums

        kind, why = resolve_design(panel.queries, design, chosen)
        res = bootstrap_sums(layout.columns(), Design.from_panel(panel, kind), layout.statistic,
                             n_resamples=n_resamples, seed=seed, ci=confidence_level)
        table.insert(2, "overall_ci_low", 100 * res.ci_low)
        table.insert(3, "overall_ci_high", 100 * res.ci_high)
        interval = {"design": kind, "n_resamples": int(n_resamples), "seed": res.seed,
                    "confidence_level": confidence_level}
        notes.append(why)
        undefined = np.asarray(res.n_undefined)
        if (undefined > 0).any():
            notes.append(f"{int(undefined.max())} of {n_resamples} replicates gave an undefined overall (a "
                         "weighted group, or every included query, absent from the replicate) and were "
                         "left out of the interval")
    table.attrs = {
        "scheme": chosen.name,
        "description": chosen.description,
        "source": chosen.source,
        "metric": metric,
        "missing": missing,
        "verdict_missing": verdict_missing,
        "complete": layout.complete,
        "missing_groups": list(layout.missing_groups),
        **interval,
        "notes": notes,
    }
    return table
