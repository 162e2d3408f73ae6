"""Which columns a table shows: the user's selection, the compact table a paper prints, and the compact default of the terminal.

Columns are chosen by what they are in the result (the columns that name its rows, its estimate
with its interval, its adjusted p-value), never by how they are written; formats are the kinds'
business (:mod:`memdiag.tables.cells`). The terminal shows :func:`compact_columns` by default,
``columns="all"`` every column; the other formats show every column unless told otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from memdiag.core.result import kinds_of
from memdiag.tables.cells import interval_pairs

#: Columns that identify a row, shown first in every table that splits its columns.
KEYS: tuple[str, ...] = ("group", "metric", "kind", "part", "id", "family", "cluster", "system",
                         "system_a", "system_b", "rater_a", "rater_b", "file")
#: Columns read after the headline numbers (the cells beside the flows, how a test or interval
#: was made, the replicate settings): left out of the compact table, in HTML's second table.
DETAILS: tuple[str, ...] = ("both", "neither", "p_mcnemar", "disagree", "test", "test_iid", "method", "se", "df",
                            "mc_se", "design", "n_resamples", "seed", "sha256", "retention_undefined", "recovery_undefined",
                            "utilization_undefined", "run_sd")
#: Columns that go to HTML's second table when they hold one value in every row (the title says it).
CONSTANT_DETAILS: tuple[str, ...] = ("reference", "n", "k", "by")
#: Columns kept in HTML's first table as long as anything else can move instead.
HEADLINE: tuple[str, ...] = ("benefit", "tax", "net", "benefit_rate", "tax_rate", "net_rate", "retention",
                             "recovery", "p", "p_adj", "diff", "estimate", "overall", "outcome", "verdict",
                             "rank", "kappa", "contribution", "power", "detectable_effect", "accuracy")
#: ``columns="all"``: every column (the terminal's compact default switched off).
ALL = "all"


#: ``columns="paper"``: the compact table of :func:`paper_columns`.
PAPER = "paper"
#: Columns that name a row (besides :data:`KEYS`): kept in every paper table.
_ROW_NAMES = ("category_id", "reference", "setting", "benchmark", "model")
#: Each result's paper table after the columns that name its rows (by ``attrs["function"]``).
PAPER_PRESETS: dict[str, tuple[str, ...]] = {
    "score": ("overall",),
    "compare": ("diff", "p_adj"),
    "flows": ("benefit", "tax", "net_rate", "p_adj"),
    "leaderboard": ("estimate", "tier"),
}
#: The compact terminal table of each result that has one beyond its paper table (by
#: ``attrs["function"]``): the columns that name its rows and the few that matter, in order.
COMPACT_PRESETS: dict[str, tuple[str, ...]] = {
    "score": ("group", "category_id", "system", "overall"),
    "leaderboard": ("system", "estimate", "tier", "leader", "diff", "p_adj", "tied", "rank"),
    "audit_claims": ("id", "verdict", "system_a", "system_b", "metric", "diff", "p_adj", "reason"),
    "audit_independence": ("system_a", "system_b", "diff", "p_adj_iid", "p_adj", "width_ratio", "outcome"),
    "rank_stability": ("system", "estimate", "rank", "rank_low", "rank_high", "p_first"),
    "pool_settings": ("system", "reference", "k", "estimate", "p", "i2", "beats_in", "worse_in"),
    "fragility": ("system_a", "system_b", "diff", "flips_sign", "flips_significance", "removal_sign",
                  "removal_significance"),
    "costs": ("system", "quantity", "unit", "n", "mean", "median", "p95", "per_correct"),
    "evidence": ("system", "n", "coverage", "utilization", "accuracy"),
    "setting_differences": ("setting", "system", "reference", "diff", "p"),
    "overview": ("setting", "system", "estimate", "rank"),
}
#: Results whose compact table shows every column in points that is not an interval bound or a
#: detail (a score table's categories or tasks beside the overall, with their intervals).
EVERY_ESTIMATE: frozenset[str] = frozenset({"score"})
#: Any other result: the first of these it has (its estimate), then ``p_adj`` (else ``p``).
_ESTIMATES = ("diff", "net_rate", "estimate", "overall", "ratio", "pooled")


def paper_columns(df: pd.DataFrame) -> list[str] | None:
    """The columns of the compact table a paper prints: those that name a row, the estimate (which
    every format for people shows with its interval, ``x [lo, hi]``) and the adjusted p.

    Parameters
    ----------
    df
        A result frame; ``attrs["function"]`` picks its preset (:data:`PAPER_PRESETS`): ``score``
        system and overall [CI]; ``compare`` system_a, system_b, diff [CI], p_adj; ``flows``
        system, reference, benefit, tax, net_rate [CI] (Δ, the accuracy difference), p_adj;
        ``leaderboard`` system, estimate [CI], tier. By-group tables keep ``group`` and
        ``category_id`` first. Any other result: its row names, the first of ``diff, net_rate,
        estimate, overall, ratio, pooled`` and ``p_adj`` (else ``p``).

    Returns
    -------
    list of str or None
        The columns, in order; None when the table has no estimate to show (a table of counts or
        of tests alone).

    Raises
    ------
    AttributeError
        ``df`` is not a DataFrame (it has no ``columns`` or ``attrs``).

    References
    ----------
    SPEC §4.6 (tables for people: the compact paper table).

    Examples
    --------
    >>> f = pd.DataFrame({"system_a": ["mem0"], "system_b": ["rag"], "estimate_a": [60.0], "diff": [-2.0],
    ...                   "ci_low": [-4.0], "ci_high": [0.0], "se": [1.0], "p": [0.04], "p_adj": [0.08]})
    >>> f.attrs["function"] = "compare"
    >>> paper_columns(f)
    ['system_a', 'system_b', 'diff', 'p_adj']
    >>> paper_columns(pd.DataFrame({"system": ["a"], "n": [3]})) is None
    True
    """
    names = [str(c) for c in df.columns]
    rows = [c for c in names if c in KEYS or c in _ROW_NAMES]
    preset = PAPER_PRESETS.get(str(df.attrs.get("function")))
    if preset is not None and all(c in names for c in preset if c != "p_adj"):
        return rows + [c for c in preset if c in names and c not in rows]
    estimate = next((c for c in _ESTIMATES if c in names), None)
    if estimate is None:
        return None
    p = next((c for c in ("p_adj", "p") if c in names), None)
    return rows + [estimate] + ([p] if p else [])


def select(df: pd.DataFrame, columns: str | Sequence[str]) -> pd.DataFrame:
    """``df`` with only the columns named, in that order, each with the columns that belong to it:
    an estimate's interval bounds (``diff`` -> ``ci_low``, ``ci_high``; ``overall`` ->
    ``overall_ci_low``, ``overall_ci_high``) and a p-value's Monte-Carlo floor flag (the column
    its kind names, ``p_floor``), which the formats for people fold into it and CSV and JSON
    write after it.

    Parameters
    ----------
    df
        A result frame; its ``attrs`` are kept, with ``selected_columns`` (the names asked
        for: the formats for people show them even when the signature line states their value).
    columns
        Column names of ``df``, or ``"paper"`` (alone, or as the only name) for
        :func:`paper_columns`, or ``"all"`` for every column (the terminal then shows them all
        instead of its compact default, :func:`compact_columns`).

    Returns
    -------
    pandas.DataFrame
        A shallow copy holding the columns kept; the rows and every number unchanged.

    Raises
    ------
    ValueError
        A name ``df`` does not have (the message lists the table's columns), a name given
        twice, no name, or ``"paper"`` for a table without an estimate.

    References
    ----------
    SPEC §4.6 (tables for people: the columns kept, the compact paper table).

    Examples
    --------
    >>> f = pd.DataFrame({"system": ["mem0"], "n": [600], "overall": [66.875], "overall_ci_low": [64.1],
    ...                   "overall_ci_high": [69.5]})
    >>> list(select(f, ["overall", "system"]).columns)
    ['overall', 'overall_ci_low', 'overall_ci_high', 'system']
    >>> select(f, ["score"])
    Traceback (most recent call last):
    ...
    ValueError: no column 'score' in this table; its columns: system, n, overall, overall_ci_low, overall_ci_high
    """
    names = [str(c) for c in df.columns]
    wanted = [columns] if isinstance(columns, str) else [str(c) for c in columns]
    if wanted == [ALL]:
        out = df.copy(deep=False)
        out.attrs = {**df.attrs, "selected_columns": ALL}
        return out
    if wanted == [PAPER]:
        preset = paper_columns(df)
        if preset is None:
            which = f" ({df.attrs['function']})" if df.attrs.get("function") else ""
            raise ValueError(f"this table{which} has no estimate to show in a compact paper table; name its "
                             f"columns instead: {', '.join(names)}")
        wanted = preset
    if not wanted:
        raise ValueError("name at least one column")
    unknown = [c for c in wanted if c not in names]
    if unknown:
        raise ValueError(f"no column {', '.join(map(repr, unknown))} in this table; its columns: {', '.join(names)}")
    twice = sorted({c for c in wanted if wanted.count(c) > 1})
    if twice:
        raise ValueError(f"column {', '.join(map(repr, twice))} named twice")
    pairs = interval_pairs(names)
    kinds = kinds_of(df)
    kept: list[str] = []
    for c in wanted:
        floor = kinds[c].floor
        companions = [*pairs.get(c, ()), *([floor] if floor in names else [])]
        kept += [k for k in (c, *companions) if k not in kept and (k == c or k not in wanted)]
    out = df.loc[:, kept].copy(deep=False)
    out.attrs = {**df.attrs, "selected_columns": wanted}
    return out


def compact_columns(df: pd.DataFrame) -> list[str] | None:
    """The columns of the terminal's compact table: those that name a row, the estimate with its
    interval, the adjusted p and the few columns that matter for that result; None when every
    column is shown (nothing to leave out, or the user selected the columns already).

    Parameters
    ----------
    df
        A result frame: ``attrs["function"]`` says what it is; ``attrs["selected_columns"]``
        (:func:`select`) that the user chose its columns already.

    Returns
    -------
    list of str or None
        For a result of :data:`COMPACT_PRESETS`, the columns it names that the table has (a
        score table: with every score in points, its categories or tasks);
        for one of :data:`PAPER_PRESETS`, its paper table (:func:`paper_columns`); for any
        other, every column but the :data:`DETAILS` (how tests and intervals were made, replicate
        settings, cells read after the headline). Intervals and floor flags come with their
        columns when :func:`select` keeps them.

    References
    ----------
    SPEC §4.6 (tables for people: the compact terminal table; ``--columns all`` for the rest).

    Examples
    --------
    >>> f = pd.DataFrame({"system_a": ["mem0"], "system_b": ["rag"], "estimate_a": [60.0], "diff": [-2.0],
    ...                   "ci_low": [-4.0], "ci_high": [0.0], "se": [1.0], "p": [0.04], "p_adj": [0.08]})
    >>> f.attrs["function"] = "compare"
    >>> compact_columns(f)
    ['system_a', 'system_b', 'diff', 'p_adj']
    >>> compact_columns(pd.DataFrame({"system": ["a"], "n": [3], "test": ["exact"]}))
    ['system', 'n']
    >>> compact_columns(select(f, "all")) is None
    True
    """
    if "selected_columns" in df.attrs:
        return None
    names = [str(c) for c in df.columns]
    function = str(df.attrs.get("function"))
    if function in COMPACT_PRESETS:
        chosen = [c for c in COMPACT_PRESETS[function] if c in names]
        if function in EVERY_ESTIMATE:      # every score of the table (with its interval), in the table's order
            kinds = kinds_of(df)
            bounds = {c for pair in interval_pairs(names).values() for c in pair}
            chosen += [c for c in names if kinds[c].name == "points" and c not in bounds and c not in DETAILS
                       and c not in chosen]
        return chosen
    paper = paper_columns(df) if function in PAPER_PRESETS else None
    if paper is not None:
        return paper
    kept = [c for c in names if c not in DETAILS]
    return kept if kept and len(kept) < len(names) else None
