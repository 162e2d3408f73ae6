"""A result's cells as people read them: each column written by its declared kind, an estimate joined with its interval, a p-value at its Monte-Carlo floor as the bound it is.

Every format for people (terminal, Markdown, LaTeX, HTML) shows the cells :func:`columns`
makes, and a figure labels a value with :func:`format_value`; neither reads a column's name to
choose a format. Each column is written by its kind (:mod:`memdiag.core.kinds`, declared where
the result was made; a plain DataFrame's columns by their dtype):

- counts as integers (a float count with missing values: the integers and ``—``), a
  sentinel's special values as their words (``none``);
- points with 2 decimals, fractions and probabilities that are not p-values with 3, other real
  numbers with 2 when the column (with its interval) holds a value ≥ 1 in magnitude or only
  zeros, else 4; never ``-0.00``;
- every p-value by the one rule of :func:`~memdiag.core.kinds.format_p`, and a p at its
  Monte-Carlo floor (the flag column its kind names, ``p_floor``: no replicate as extreme as the
  data) as the bound it is, ``< 2/(B + 1)`` rounded up (SPEC §4.4);
- an estimate with its interval as ``est [low, high]``, both with the estimate's decimals;
- a missing or undefined value as an em dash, ``—``;
- what the signature line states already is not repeated: a ``design``, ``n_resamples``,
  ``seed`` or ``confidence_level`` column equal to the run's setting in every row.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from memdiag.core.kinds import (
    MISSING,
    Kind,
    format_p,
    is_missing,
    real_decimals,
)
from memdiag.core.result import kinds_of

#: Provenance columns left out of tables for people when every row equals the run's setting.
_STATED = ("design", "n_resamples", "seed", "confidence_level")


@dataclass(frozen=True)
class Column:
    """One column as people read it: its source name, header, whether it holds numbers, each
    cell's text and, for an estimate merged with its interval, each cell's ``[low, high]``."""

    name: str
    header: str
    numeric: bool
    cells: tuple[str, ...]
    intervals: tuple[str, ...] | None = None

    def joined(self) -> list[str]:
        """Each cell with its interval after it (``est [low, high]``)."""
        if self.intervals is None:
            return list(self.cells)
        return [c if c == MISSING or not i else f"{c} {i}" for c, i in zip(self.cells, self.intervals)]


def bare(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` without its ``attrs`` and with plain (object) column labels: a shallow copy for
    formatting (its kinds are read before). pandas deep-copies a frame's ``attrs`` into every
    column taken from it, and looks each column label up in an Arrow-backed index (pandas 3's
    strings) one scalar at a time; with a result's notes both cost more than the formatting
    itself."""
    out = df.copy(deep=False)
    out.attrs = {}
    out.columns = pd.Index(list(out.columns), dtype=object)
    return out


def numbers(series: pd.Series) -> np.ndarray:
    """A numeric column as floats, NaN where missing."""
    return series.to_numpy(dtype=float, na_value=np.nan)


def interval_pairs(columns: list[str]) -> dict[str, tuple[str, str]]:
    """Columns that have ``<name>_ci_low``/``<name>_ci_high`` (or ``ci_low``/``ci_high`` for ``diff``
    or ``estimate``) beside them."""
    pairs = {}
    for c in columns:
        if f"{c}_ci_low" in columns and f"{c}_ci_high" in columns:
            pairs[c] = (f"{c}_ci_low", f"{c}_ci_high")
    for c in ("diff", "estimate"):
        if c in columns and "ci_low" in columns and "ci_high" in columns and c not in pairs:
            pairs[c] = ("ci_low", "ci_high")
            break
    return pairs


def _lone_intervals(columns: list[str], taken: set[str]) -> dict[str, tuple[str, str]]:
    """``ci_low_<x>``/``ci_high_<x>`` pairs no estimate claimed (e.g. the iid interval beside a
    clustered one): shown as one column ``ci_<x>``."""
    out = {}
    for c in columns:
        if c.startswith("ci_low_") and c not in taken:
            suffix = c.removeprefix("ci_low_")
            if f"ci_high_{suffix}" in columns:
                out[f"ci_{suffix}"] = (c, f"ci_high_{suffix}")
    return out


def ci_label(level: object) -> str:
    """The suffix :func:`columns` gives the header of an estimate merged with its interval."""
    return f" [{float(level):.0%} CI]" if level is not None else " [CI]"


def _stated(series: pd.Series, name: str, attrs: Mapping[str, object]) -> bool:
    """Whether column ``name`` repeats in every row what the signature line states."""
    if name not in _STATED or attrs.get(name) is None or series.empty:
        return False
    values = pd.unique(series)
    return len(values) == 1 and str(values[0]) == str(attrs[name])


def _decimals(kind: Kind, *columns: np.ndarray) -> int | None:
    """The decimals of a real number's column and its interval (None: the kind fixes them)."""
    return real_decimals(*columns) if kind.name == "real" else None


def format_value(df: pd.DataFrame, column: str, value: object) -> str:
    """One value of ``df``'s ``column`` as the tables write it, by the column's kind: for a
    figure's labels (a count as an integer, a p-value by :func:`~memdiag.core.kinds.format_p`, a
    sentinel as its word, a real number with its column's decimals).

    Parameters
    ----------
    df
        A result frame (its declared kinds; a plain DataFrame's columns by their dtype).
    column
        The column ``value`` belongs to.
    value
        The value to write (it need not be in the column).

    Returns
    -------
    str
        The text every format for people shows for it.

    Raises
    ------
    KeyError
        ``column`` is not a column of ``df``.

    References
    ----------
    SPEC §4.6 (tables for people: one formatter).

    Examples
    --------
    >>> from memdiag.core.kinds import COUNT, COUNT_OR_NONE, P_VALUE
    >>> from memdiag.core.result import as_result
    >>> f = as_result(pd.DataFrame({"tax": [10.0], "flips": [-1.0], "p": [0.00426]}),
    ...               {"tax": COUNT, "flips": COUNT_OR_NONE, "p": P_VALUE})
    >>> format_value(f, "tax", 12.0), format_value(f, "flips", -1), format_value(f, "p", 0.00426)
    ('12', 'none', '0.0043')
    """
    kind = kinds_of(df[[column]])[column]
    series = df[column]
    decimals = _decimals(kind, numbers(series)) if pd.api.types.is_numeric_dtype(series) else None
    return kind.format(value, decimals)


def columns(df: pd.DataFrame, level: object = None) -> list[Column]:
    """The columns of ``df`` as every format for people shows them (the module docstring's rules).

    ``level`` (default ``attrs["confidence_level"]``) names the intervals in their headers.

    Parameters
    ----------
    df
        A result frame: its column kinds (:func:`memdiag.core.result.kinds_of`) say how each
        column is written; its ``attrs`` say which provenance columns the signature line states
        already (left out when equal in every row) and may rename columns for people
        (``attrs["column_labels"]``).
    level
        The confidence level of the intervals, for the headers (``diff [95% CI]``); default
        ``attrs["confidence_level"]``, else ``[CI]``.

    Returns
    -------
    list of Column
        The columns shown, in order: ``name``, ``header``, ``numeric``, the ``cells`` as text and,
        for an estimate merged with its interval, the ``intervals``; interval columns and the
        floor flags of p-values are folded into the columns they belong to.

    Raises
    ------
    ValueError
        A ``level`` (or ``attrs["confidence_level"]``) that is not a number.

    References
    ----------
    SPEC §4.6 (tables for people: one formatter) and SPEC §4.4 (a p-value at its Monte-Carlo
    floor is a bound, ``< 2/(B + 1)``).

    Examples
    --------
    >>> from memdiag.core.kinds import COUNT, POINTS, P_FLOORED
    >>> from memdiag.core.result import as_result
    >>> f = as_result(pd.DataFrame({"system": ["a"], "n": [1500.0], "diff": [-0.001], "ci_low": [-1.0],
    ...                             "ci_high": [1.0], "p": [1 / 20_001], "p_floor": [True]}),
    ...               {"n": COUNT, "diff": POINTS, "ci_low": POINTS, "ci_high": POINTS, "p": P_FLOORED})
    >>> [(c.header, c.joined()) for c in columns(f, 0.95)]
    [('system', ['a']), ('n', ['1500']), ('diff [95% CI]', ['0.00 [-1.00, 1.00]']), ('p', ['< 5.0e-5'])]
    """
    attrs = df.attrs
    kinds = kinds_of(df)
    df = bare(df)
    level = attrs.get("confidence_level") if level is None else level
    names = [str(c) for c in df.columns]
    series = {name: df.iloc[:, k] for k, name in enumerate(names)}
    numeric = {name: numbers(col) for name, col in series.items()
               if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col)}
    pairs = interval_pairs(names)
    lone = _lone_intervals(names, {c for pair in pairs.values() for c in pair})
    hidden = {c for pair in (*pairs.values(), *lone.values()) for c in pair}
    floors = {c: kinds[c].floor for c in names if kinds[c].floor in series}
    hidden |= set(floors.values())
    chosen = attrs.get("selected_columns")   # named by the user (select): shown whatever they state
    chosen = set(chosen) if isinstance(chosen, list) else set()
    hidden |= {c for c in names if c not in chosen and _stated(series[c], c, attrs)}
    label = ci_label(level)
    headers = attrs.get("column_labels") or {}   # a column's name for people, e.g. LoCoMo "1 (multi-hop)"

    def interval(low: str, high: str, kind: Kind, decimals: int | None) -> list[str]:
        return [MISSING if is_missing(lo) and is_missing(hi) else f"[{kind.format(lo, decimals)}, {kind.format(hi, decimals)}]"
                for lo, hi in zip(series[low].tolist(), series[high].tolist())]

    out: list[Column] = []
    for c in names:
        if c in hidden:
            lone_name = next((k for k, pair in lone.items() if pair[0] == c), None)
            if lone_name is not None:
                low, high = lone[lone_name]
                kind = kinds[low]
                cells = interval(low, high, kind, _decimals(kind, numeric.get(low, np.array([])),
                                                            numeric.get(high, np.array([]))))
                out.append(Column(lone_name, lone_name.removeprefix("ci_") + label, True, tuple(cells)))
            continue
        kind = kinds[c]
        values = series[c].tolist()
        group = [g for g in (c, *pairs.get(c, ())) if g in numeric]
        decimals = _decimals(kind, *(numeric[g] for g in group)) if group else None
        cells = [kind.format(v, decimals) for v in values]
        if c in floors:
            cells = [format_p(v, bound=True) if floored is True and not is_missing(v) and float(v) < 1 else shown
                     for shown, v, floored in zip(cells, values, series[floors[c]].tolist())]
        if c in pairs:
            spans = interval(*pairs[c], kind, decimals)
            intervals = tuple("" if shown == MISSING else span for shown, span in zip(cells, spans))
            out.append(Column(c, headers.get(c, c) + label, True, tuple(cells), intervals))
        else:
            out.append(Column(c, headers.get(c, c), kind.numeric, tuple(cells)))
    return out


def display(df: pd.DataFrame, level: object = None) -> pd.DataFrame:
    """Cells as text, as every format for people shows them (:func:`columns`): each estimate
    merged with its interval as ``est [low, high]`` (column ``name [95% CI]``), p-values to two
    significant digits, and a p-value at its Monte-Carlo floor (its floor flag True: no
    replicate as extreme as the data) as the bound it is, ``< 2/(B + 1)`` (SPEC §4.4).

    Parameters
    ----------
    df
        A result frame (its kinds and ``attrs`` as in :func:`columns`).
    level
        The confidence level named in the interval headers; default
        ``attrs["confidence_level"]``.

    Returns
    -------
    pandas.DataFrame
        One text column per shown column of :func:`columns`, headed for people, on ``df``'s
        index.

    Raises
    ------
    ValueError
        A ``level`` (or ``attrs["confidence_level"]``) that is not a number.

    References
    ----------
    SPEC §4.6 (tables for people) and SPEC §4.4 (the Monte-Carlo floor of a resampled p-value).

    Examples
    --------
    >>> from memdiag.core.kinds import POINTS, P_FLOORED
    >>> from memdiag.core.result import as_result
    >>> f = as_result(pd.DataFrame({"p": [1 / 10_000.5, 0.5], "p_floor": [True, False]}), {"p": P_FLOORED})
    >>> display(f)["p"].tolist()
    ['< 0.00010', '0.50']
    >>> g = as_result(pd.DataFrame({"system": ["mem0"], "estimate": [66.875], "ci_low": [64.1], "ci_high": [69.5]}),
    ...               dict.fromkeys(["estimate", "ci_low", "ci_high"], POINTS))
    >>> display(g, 0.95).to_dict("list")
    {'system': ['mem0'], 'estimate [95% CI]': ['66.88 [64.10, 69.50]']}
    """
    shown = columns(df, level)
    return pd.DataFrame({c.header: c.joined() for c in shown}, index=df.index)
