"""Official benchmark scores per system: a scheme (SPEC §6) applied to canonical verdicts.

:func:`score` is the table a paper prints: per system the overall in points, the group scores
(categories, tasks or sources), the capability summaries of a nested scheme, and the counts each
rests on, with every exclusion, gate and missing-data policy recorded in ``attrs["notes"]``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from memdiag.errors import VerdictError
from memdiag.schemes import ALL, Scheme, get_scheme
from memdiag.verdicts import MissingQueryPolicy, MissingVerdictPolicy, align


def score(
    df: pd.DataFrame,
    scheme: str | Path | Scheme = "mean",
    metric: str = "score",
    missing: MissingQueryPolicy = "error",
    verdict_missing: MissingVerdictPolicy = "as-wrong",
) -> pd.DataFrame:
    """Official per-system scores of canonical verdicts under a benchmark scheme (SPEC §6).

    Parameters
    ----------
    df
        Canonical verdicts (SPEC §1).
    scheme
        A built-in scheme name (:func:`~memdiag.schemes.known_schemes`), a YAML/JSON scheme file,
        or a :class:`~memdiag.schemes.Scheme`.
    metric
        The per-query column scored: ``"score"`` (the judged verdict) or another metric in
        [0, 1] such as ``"f1"`` or ``"bleu"``.
    missing, verdict_missing
        The missing-query and missing-verdict policies of :func:`~memdiag.verdicts.align`.

    Returns
    -------
    pandas.DataFrame
        One row per system: ``system``; ``overall`` in points (0-100); one column per named
        node of a nested scheme (MemoryAgentBench ``AR``, ``TTL``, ``ICL``, ``LRU``, ``CR``); one
        column per group (category, task, source; none when the scheme has a single group);
        ``n`` (queries in the official denominator); ``n_<group>``; ``complete`` (every required
        group present and the official query count met). ``attrs``: ``scheme``, ``description``,
        ``source``, ``metric``, ``missing``, ``verdict_missing``, ``complete``,
        ``missing_groups``, ``notes`` (one line per exclusion, gate and policy application).

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

    Examples
    --------
    >>> df = pd.DataFrame({"system": ["rag"] * 4, "query_id": ["a", "b", "c", "d"],
    ...                    "score": [1, 0, 1, 1], "category": ["temporal", "temporal",
    ...                    "single-hop", "adversarial"]})
    >>> score(df, scheme="locomo")[["system", "overall", "temporal", "n", "n_temporal"]]
      system    overall  temporal  n  n_temporal
    0    rag  66.666667      50.0  3           2
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
    table.attrs = {
        "scheme": chosen.name,
        "description": chosen.description,
        "source": chosen.source,
        "metric": metric,
        "missing": missing,
        "verdict_missing": verdict_missing,
        "complete": layout.complete,
        "missing_groups": list(layout.missing_groups),
        "notes": notes + panel.notes_text() + layout.notes_text(),
    }
    return table
