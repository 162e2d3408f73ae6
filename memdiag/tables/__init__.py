"""One result frame -> what people read (terminal table, Markdown, LaTeX booktabs, HTML) and what
machines read (CSV, JSON).

Every public memdiag function returns a tidy DataFrame whose ``attrs`` carry the provenance of
the run (design, number of resamples, seed, policies, memdiag version). :func:`signature` turns
that into one line, as sacrebleu prints its settings, and :func:`render` prints the table with
it. Rendering is deterministic: the same frame gives the same bytes on every machine.

Tables for people share one formatter (:func:`columns`), whatever the format:

- p-values with two significant digits (``0.0042``, ``0.43``; three or four when two would
  print a round level such as ``0.050`` for 0.0504), in scientific notation below 0.0001
  (``4.2e-5``) and as ``< 1e-12`` below that; a p at its Monte-Carlo floor (``p_floor``: no
  replicate as extreme as the data) as the bound it is, ``< 2/(B + 1)`` rounded up (SPEC §4.4);
- counts and ranks as integers; probabilities that are not p-values (``p_first``, a power, the
  share of replicates in which a ratio was undefined) with 3 decimals; other numbers with 2
  decimals when the column holds points or counts (any |value| ≥ 1) or only zeros, else 4;
  never ``-0.00``; an estimate with its interval as ``est [low, high]``;
- a missing or undefined value as an em dash, ``—``;
- what the signature line states already is not repeated: a ``design``, ``n_resamples`` or
  ``seed`` column equal to the run's setting in every row, and ``p_floor`` (shown by the ``<``).

LaTeX right-aligns the numbers and writes their minus signs as ``\\textminus{}`` (booktabs
rules); HTML (:func:`html`) puts the key columns first and the rest in a second table under a
``<details>`` element, so that a table fits the page without scrolling sideways. CSV and JSON
keep every number at full precision (the shortest repr that round-trips), for machines.

Two choices apply to every format: ``columns=`` keeps only the columns named, in that order
(:func:`select`; ``"paper"``: the compact table of :func:`paper_columns` — the rows' names, the
estimate with its interval, the adjusted p), and ``labels=`` prints each system's short name
(:mod:`memdiag.tables.aliases`) in the formats for people, while CSV and JSON keep the full names that
join with other data.
"""

from __future__ import annotations

import html as _html
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from tabulate import tabulate

from memdiag.core.checks import FORMATS
from memdiag.core.escape import csv_cell, latex, latex_comment, markdown, one_line
from memdiag.core.notes import as_note
from memdiag.tables.aliases import relabel

Format = Literal["table", "md", "csv", "json", "latex", "html"]

#: Provenance keys printed in the signature line, in this order.
_SIGNATURE_KEYS = ("scheme", "metric", "design", "n_clusters", "df", "n_resamples", "seed", "confidence_level",
                   "inference", "correction", "threshold", "missing", "verdict_missing", "judges")
_SHORT = {"n_clusters": "G", "n_resamples": "B", "confidence_level": "ci", "verdict_missing": "verdict-missing"}

#: What a table for people shows for a missing or undefined value.
MISSING = "—"
#: The smallest p-value printed as a number; below it ``< 1e-12`` (double precision and the
#: exact tests' own accuracy make smaller values meaningless as numbers).
P_SMALLEST = 1e-12
#: Levels a p-value is read against: a p that rounds onto one of them gets more digits.
_LEVELS = (0.1, 0.05, 0.01, 0.005, 0.001)
#: Columns that count or rank: shown as integers when every value is whole.
_COUNT = re.compile(r"^(n|k|df|rank|rank_low|rank_high|rows|queries|both|benefit|tax|neither|net|max|min)$"
                    r"|^(n|missing|cf)_|_count$")
#: Probabilities that are not p-values (``p_first``, ``p_rank_3``, the share of replicates in
#: which a ratio was undefined, a power): three decimals, whatever their range.
_PROBABILITY = re.compile(r"^(p_(first|rank_\d+)|.*_undefined|power|power_at_.*)$")
#: Provenance columns left out of tables for people when every row equals the run's setting.
_STATED = ("design", "n_resamples", "seed", "confidence_level")


def signature(attrs: Mapping[str, object], escape: Callable[[object], str] = one_line) -> str:
    """One line naming the settings behind a result, e.g. ``memdiag 0.1.0 | design=iid | B=20000``.

    Each value goes through ``escape`` (default :func:`~memdiag.core.escape.one_line`; a scheme name
    comes from the user's file), the separators do not. ``inference`` is shown when it is not
    the default rule (``auto``).

    Parameters
    ----------
    attrs
        A result's provenance (``df.attrs``): ``version`` (default: this memdiag's) and any of
        ``scheme, metric, design, n_clusters, df, n_resamples, seed, confidence_level, inference,
        correction, threshold, missing, verdict_missing, judges``, shown in that order; absent
        or None keys are left out.
    escape
        Turns each value into text for the output format (:mod:`memdiag.core.escape`: ``one_line``
        for terminals, ``markdown`` for Markdown tables).

    Returns
    -------
    str
        ``memdiag <version> | key=value | ...`` with the short names ``G`` (clusters; the range
        of a by= table's groups), ``df`` (ν, the degrees of freedom of t intervals, beside G;
        shown when one number), ``B`` (replicates), ``ci`` (level, as a percentage) and ``verdict-missing``.

    Raises
    ------
    ValueError
        A ``confidence_level`` that is not a number.

    References
    ----------
    SPEC §4.6 (every result records its settings, printed as one signature line) and SPEC §4.1
    (``G``, the number of clusters, and the ``inference`` method).

    Examples
    --------
    >>> signature({"design": "cluster", "n_clusters": 10, "n_resamples": 20000, "seed": 0, "version": "0.1.0"})
    'memdiag 0.1.0 | design=cluster | G=10 | B=20000 | seed=0'
    >>> signature({"design": "cluster", "n_clusters": 10, "df": 3.2311, "version": "0.1.0"})
    'memdiag 0.1.0 | design=cluster | G=10 | df=3.23'
    >>> signature({"design": "cluster", "n_clusters": [29, 22, 30], "df": [21.6, 22, 29], "version": "0.1.0"})
    'memdiag 0.1.0 | design=cluster | G=22–30'
    >>> signature({"confidence_level": 0.9, "inference": "auto", "correction": "holm", "version": "0.1.0"})
    'memdiag 0.1.0 | ci=90% | correction=holm'
    """
    from memdiag import __version__

    parts = [f"memdiag {escape(attrs.get('version', __version__))}"]
    for key in _SIGNATURE_KEYS:
        value = attrs.get(key)
        if value is None or (key == "inference" and value == "auto"):
            continue
        if key == "df":     # one t interval's ν (a by= table with several, or none: not shown)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                continue
            value = f"{float(value):.3g}"
        if key == "n_clusters" and isinstance(value, list):  # a by= table's groups: their range
            counts = [count for count in value if count is not None]
            if not counts:
                continue
            value = f"{min(counts)}–{max(counts)}" if min(counts) < max(counts) else counts[0]
        if key == "confidence_level":
            value = f"{float(value):.0%}"
        parts.append(f"{_SHORT.get(key, key)}={escape(value)}")
    return " | ".join(parts)


def signature_difference(attrs: Mapping[str, object], base: Mapping[str, object],
                         escape: Callable[[object], str] = one_line) -> str | None:
    """The parts of ``attrs``' signature line that ``base``'s does not state (a key it lacks or
    gives another value), joined as in :func:`signature`; None when there are none. A report
    prints its settings once and, under a table, only where the table differs (issue 19).

    >>> base = {"design": "cluster", "n_clusters": 10, "n_resamples": 20000, "version": "0.1.0"}
    >>> signature_difference({**base, "metric": "coverage", "df": 9}, base)
    'metric=coverage | df=9'
    >>> signature_difference(base, base) is None
    True
    """
    known = set(signature(base, escape).split(" | "))
    parts = [part for part in signature(attrs, escape).split(" | ")[1:] if part not in known]
    return " | ".join(parts) or None


# --------------------------------------------------------------------------------------------
# numbers as text
# --------------------------------------------------------------------------------------------
def _missing(value: object) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, (float, np.floating)) and math.isnan(value)


def _significant(value: float, digits: int, how: str = "nearest") -> float:
    """``value`` (> 0) rounded to ``digits`` significant digits: to the nearest, ``up`` or ``down``."""
    exponent = math.floor(math.log10(value)) - digits + 1
    scaled = value / 10.0**exponent
    steps = {"nearest": round, "up": lambda x: math.ceil(x - 1e-9), "down": lambda x: math.floor(x + 1e-9)}[how]
    return steps(scaled) * 10.0**exponent


def _p_text(value: float, digits: int) -> str:
    """``value`` (rounded already) with ``digits`` significant digits: fixed from 0.0001, else
    scientific without a padded exponent; 1 when it rounds to 1."""
    if value >= 1:
        return "1"
    if value >= 1e-4 * (1 - 1e-9):  # 1e-4 itself, whatever its last bit
        return f"{value:#.{digits}g}"
    mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def format_p(value: object, bound: bool = False) -> str:
    """A p-value as people read it (see the module docstring).

    ``bound``: ``value`` is an upper bound (a Monte-Carlo floor), printed as ``< value`` rounded up.

    >>> [format_p(p) for p in (0.43, 0.0042, 0.0504, 0.0099995, 1.0, 3.15e-14, 0.0, 2.5e-4, 4.2e-5)]
    ['0.43', '0.0042', '0.0504', '0.009999', '1', '< 1e-12', '< 1e-12', '0.00025', '4.2e-5']
    >>> format_p(1 / 20_001, bound=True), format_p(0.00225, bound=True)
    ('< 5.0e-5', '< 0.0023')
    """
    if _missing(value):
        return MISSING
    p = float(value)  # type: ignore[arg-type]
    if p < P_SMALLEST:
        return f"< {P_SMALLEST:g}"
    if bound:
        return "< " + _p_text(_significant(p, 2, "up"), 2)
    for digits in (2, 3, 4):
        shown = _significant(p, digits)
        if not any(math.isclose(shown, level) for level in _LEVELS) or math.isclose(shown, p, rel_tol=1e-12):
            return _p_text(shown, digits)
    return _p_text(_significant(p, 4, "down" if p < shown else "up"), 4)  # on the side of the level p is


def format_number(value: object, decimals: int) -> str:
    """A number with ``decimals`` decimals, never ``-0.00``; missing as an em dash.

    >>> format_number(-0.001, 2), format_number(-1.5, 2), format_number(float("nan"), 2)
    ('0.00', '-1.50', '—')
    """
    if _missing(value):
        return MISSING
    text = f"{float(value):.{decimals}f}"  # type: ignore[arg-type]
    return text[1:] if text.startswith("-") and not text.strip("-0.") else text


def _is_p(name: str) -> bool:
    """A p-value column: ``p``, ``p_adj``, ``p_mcnemar``, ``reported_p``... (not ``p_floor`` or a
    rank probability)."""
    return name in ("p", "reported_p") or (name.startswith("p_") and name != "p_floor"
                                           and not _PROBABILITY.match(name))


def _probability(name: str) -> bool:
    return bool(_PROBABILITY.match(name))


def _numbers(series: pd.Series) -> np.ndarray:
    """A numeric column as floats, NaN where missing."""
    return series.to_numpy(dtype=float, na_value=np.nan)


def _integral(values: np.ndarray) -> bool:
    finite = values[~np.isnan(values)]
    return bool(np.all(finite == np.floor(finite)))


def _decimals(*columns: np.ndarray) -> int:
    """Decimals for float columns shown together (an estimate and its interval): 2 when they hold
    points or counts (any |value| >= 1) or only zeros, else 4 (rates and fractions)."""
    with np.errstate(invalid="ignore"):
        if any((np.abs(values) >= 1).any() for values in columns):
            return 2
        return 2 if all(np.all((values == 0) | np.isnan(values)) for values in columns) else 4


# --------------------------------------------------------------------------------------------
# the shared formatter
# --------------------------------------------------------------------------------------------
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


def _interval_pairs(columns: list[str]) -> dict[str, tuple[str, str]]:
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


def _ci_label(level: object) -> str:
    """The suffix :func:`display` gives the header of an estimate merged with its interval."""
    return f" [{float(level):.0%} CI]" if level is not None else " [CI]"


def _stated(series: pd.Series, name: str, attrs: Mapping[str, object]) -> bool:
    """Whether column ``name`` repeats in every row what the signature line states."""
    if name not in _STATED or attrs.get(name) is None or series.empty:
        return False
    values = pd.unique(series)
    return len(values) == 1 and str(values[0]) == str(attrs[name])


def _cells(values: list, kind: str, decimals: int) -> list[str]:
    out = []
    for value in values:
        if _missing(value):
            out.append(MISSING)
        elif kind == "p":
            out.append(format_p(value))
        elif kind == "int":
            out.append(str(int(value)))
        elif kind == "float":
            out.append(format_number(value, decimals))
        else:
            out.append(str(value))
    return out


def _kind(series: pd.Series, name: str) -> str:
    """How a column's cells are written: ``p``, ``int``, ``float`` or ``text``."""
    if pd.api.types.is_bool_dtype(series) or not pd.api.types.is_numeric_dtype(series):
        return "text"
    if _is_p(name):
        return "p"
    if pd.api.types.is_integer_dtype(series):
        return "int"
    return "int" if _COUNT.search(name) and _integral(_numbers(series)) else "float"


def columns(df: pd.DataFrame, level: object = None) -> list[Column]:
    """The columns of ``df`` as every format for people shows them (the module docstring's rules).

    ``level`` (default ``attrs["confidence_level"]``) names the intervals in their headers.

    Parameters
    ----------
    df
        A result frame; its ``attrs`` say which provenance columns the signature line states
        already (left out when equal in every row) and may rename columns for people
        (``attrs["column_labels"]``).
    level
        The confidence level of the intervals, for the headers (``diff [95% CI]``); default
        ``attrs["confidence_level"]``, else ``[CI]``.

    Returns
    -------
    list of Column
        The columns shown, in order: ``name``, ``header``, ``numeric``, the ``cells`` as text and,
        for an estimate merged with its interval, the ``intervals``; interval columns and
        ``p_floor`` are folded into the columns they belong to.

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
    >>> f = pd.DataFrame({"system": ["a"], "n": [1500.0], "diff": [-0.001], "ci_low": [-1.0],
    ...                   "ci_high": [1.0], "p": [1 / 20_001], "p_floor": [True]})
    >>> [(c.header, c.joined()) for c in columns(f, 0.95)]
    [('system', ['a']), ('n', ['1500']), ('diff [95% CI]', ['0.00 [-1.00, 1.00]']), ('p', ['< 5.0e-5'])]
    """
    attrs = df.attrs
    df = _bare(df)
    level = attrs.get("confidence_level") if level is None else level
    names = [str(c) for c in df.columns]
    series = {name: df.iloc[:, k] for k, name in enumerate(names)}
    numeric = {name: _numbers(col) for name, col in series.items()
               if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col)}
    pairs = _interval_pairs(names)
    lone = _lone_intervals(names, {c for pair in pairs.values() for c in pair})
    hidden = {c for pair in (*pairs.values(), *lone.values()) for c in pair}
    floors = series["p_floor"].tolist() if "p_floor" in series else None
    if floors is not None and ("p" in series or "p_adj" in series):
        hidden.add("p_floor")
    chosen = set(attrs.get("selected_columns") or ())   # named by the user (select): shown whatever they state
    hidden |= {c for c in names if c not in chosen and _stated(series[c], c, attrs)}
    label = _ci_label(level)
    headers = attrs.get("column_labels") or {}   # a column's name for people, e.g. LoCoMo "1 (multi-hop)"

    def interval(low: str, high: str, decimals: int) -> list[str]:
        return [MISSING if _missing(lo) and _missing(hi) else
                f"[{format_number(lo, decimals)}, {format_number(hi, decimals)}]"
                for lo, hi in zip(numeric[low].tolist(), numeric[high].tolist())]

    out: list[Column] = []
    for c in names:
        if c in hidden:
            lone_name = next((k for k, pair in lone.items() if pair[0] == c), None)
            if lone_name is not None:
                low, high = lone[lone_name]
                cells = interval(low, high, _decimals(numeric[low], numeric[high]))
                out.append(Column(lone_name, lone_name.removeprefix("ci_") + label, True, tuple(cells)))
            continue
        kind = _kind(series[c], c)
        values = series[c].tolist()
        group = [g for g in (c, *pairs.get(c, ())) if g in numeric]
        decimals = 3 if _probability(c) else _decimals(*(numeric[g] for g in group))
        cells = _cells(values, kind, decimals)
        if kind == "p" and c in ("p", "p_adj") and floors is not None:
            cells = [format_p(v, bound=True) if floored is True and not _missing(v) and float(v) < 1 else shown
                     for shown, v, floored in zip(cells, values, floors)]
        if c in pairs:
            spans = interval(*pairs[c], decimals)
            intervals = tuple("" if shown == MISSING else span for shown, span in zip(cells, spans))
            out.append(Column(c, headers.get(c, c) + label, True, tuple(cells), intervals))
        else:
            out.append(Column(c, headers.get(c, c), kind != "text", tuple(cells)))
    return out


def display(df: pd.DataFrame, level: object = None) -> pd.DataFrame:
    """Cells as text, as every format for people shows them (:func:`columns`): each estimate
    merged with its interval as ``est [low, high]`` (column ``name [95% CI]``), p-values to two
    significant digits, and a p-value at its Monte-Carlo floor (``p_floor`` True: no replicate as
    extreme as the data) as the bound it is, ``< 2/(B + 1)`` (SPEC §4.4).

    Parameters
    ----------
    df
        A result frame (its ``attrs`` as in :func:`columns`).
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
    >>> f = pd.DataFrame({"p": [1 / 10_000.5, 0.5], "p_floor": [True, False]})
    >>> display(f)["p"].tolist()
    ['< 0.00010', '0.50']
    >>> g = pd.DataFrame({"system": ["mem0"], "estimate": [66.875], "ci_low": [64.1], "ci_high": [69.5]})
    >>> display(g, 0.95).to_dict("list")
    {'system': ['mem0'], 'estimate [95% CI]': ['66.88 [64.10, 69.50]']}
    """
    shown = columns(df, level)
    return pd.DataFrame({c.header: c.joined() for c in shown}, index=df.index)


#: :func:`columns` under a name :func:`render`'s own ``columns`` parameter does not hide.
_formatted = columns


# --------------------------------------------------------------------------------------------
# the columns kept: a selection, or the compact paper table
# --------------------------------------------------------------------------------------------
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
    ``overall_ci_low``, ``overall_ci_high``) and a p-value's Monte-Carlo floor (``p_floor``),
    which the formats for people fold into it and CSV and JSON write after it.

    Parameters
    ----------
    df
        A result frame; its ``attrs`` are kept, with ``selected_columns`` (the names asked
        for: the formats for people show them even when the signature line states their value).
    columns
        Column names of ``df``, or ``"paper"`` (alone, or as the only name) for
        :func:`paper_columns`.

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
    pairs = _interval_pairs(names)
    kept: list[str] = []
    for c in wanted:
        companions = [*pairs.get(c, ()), *(["p_floor"] if c in ("p", "p_adj") and "p_floor" in names else [])]
        kept += [k for k in (c, *companions) if k not in kept and (k == c or k not in wanted)]
    out = df.loc[:, kept].copy(deep=False)
    out.attrs = {**df.attrs, "selected_columns": wanted}
    return out


# --------------------------------------------------------------------------------------------
# formats
# --------------------------------------------------------------------------------------------
def _jsonable(value: object) -> object:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def _booktabs(headers: list[str], columns: list[list[str]], spec: str) -> str:
    """A booktabs ``tabular`` of cells already escaped, byte for byte what pandas'
    ``DataFrame.to_latex(index=False, escape=False)`` writes; by hand because pandas renders it
    through a Jinja2 Styler at about 40 ms a table (most of the time a report spends on tables)."""
    rows = [" & ".join(headers)] + [" & ".join(row) for row in zip(*columns)]
    return "\n".join([f"\\begin{{tabular}}{{{spec}}}", "\\toprule", rows[0] + " \\\\", "\\midrule",
                      *(row + " \\\\" for row in rows[1:]), "\\bottomrule", "\\end{tabular}", ""])


def _latex_minus(text: str) -> str:
    """A number's minus signs as ``\\textminus{}`` (a hyphen is not a minus sign in LaTeX)."""
    return re.sub(r"(?<![\w.])-(?=\d)", r"\\textminus{}", text)


def render(df: pd.DataFrame, fmt: Format = "table", columns: str | Sequence[str] | None = None,
           labels: Mapping[str, str] | None = None) -> str:
    """Render a result frame with its notes and signature line.

    Parameters
    ----------
    df
        A result frame; ``df.attrs`` may hold provenance (see :func:`signature`) and ``notes``
        (a list of strings shown under the table).
    fmt
        ``table`` (terminal), ``md`` (Markdown), ``latex`` (booktabs), ``html`` (:func:`html`)
        — for people, formatted alike (:func:`columns`) — or ``csv`` and ``json`` (records plus
        provenance), which keep every number at full precision.
    columns
        Keep only these columns, in this order (:func:`select`: an estimate brings its interval,
        a p its Monte-Carlo floor), or ``"paper"`` for the compact table of
        :func:`paper_columns`; default every column.
    labels
        ``{system: short name}`` (``--alias``, a recipe's ``labels:``): printed in place of the
        names in the formats for people (:func:`memdiag.tables.aliases.relabel`); CSV and JSON keep
        the full names, for joining.

    Returns
    -------
    str
        The table, then its notes (one per line) and the signature line (LaTeX: as comments);
        CSV: the rows only; JSON: ``{"rows", "provenance", "signature"}``; HTML: a standalone
        page.

    Raises
    ------
    ValueError
        An unknown ``fmt``; a column ``df`` does not have, or ``"paper"`` for a table without a
        compact form (:func:`select`); a ``confidence_level`` in ``attrs`` that is not a number;
        for JSON, a value that is infinite.

    References
    ----------
    SPEC §4.6 (tables for people, full precision for machines, the signature line; the columns
    kept and the short names) and SPEC §4.4 (a floored p printed as its bound).

    Examples
    --------
    >>> df = pd.DataFrame({"system": ["mem0"], "overall": [66.875], "p": [0.00012345]})
    >>> df.attrs = {"scheme": "locomo", "version": "0.1.0"}
    >>> print(render(df, "md"))
    | system   |   overall |       p |
    |----------|-----------|---------|
    | mem0     |     66.88 | 0.00012 |
    <BLANKLINE>
    memdiag 0.1.0 | scheme=locomo
    >>> print(render(df, "md", columns=["system", "p"], labels={"mem0": "Mem0"}).splitlines()[2])
    | Mem0     | 0.00012 |
    """
    if columns is not None:
        df = select(df, columns)
    if fmt in ("table", "md", "latex", "html"):
        df = relabel(df, labels)
    attrs = dict(df.attrs)
    notes = [str(n) for n in attrs.get("notes", [])]
    if fmt == "csv":  # full precision: the shortest repr that round-trips
        return _csv_safe(df).to_csv(index=False, lineterminator="\n")
    if fmt == "json":
        records = [{str(k): _jsonable(v) for k, v in row.items()} for row in df.to_dict("records")]
        provenance = {k: _jsonable(v) for k, v in attrs.items()}
        if notes:  # each note's code, severity and concerns, in the order of ``notes``
            provenance["note_records"] = [{k: v for k, v in as_note(n).record().items() if k != "text"}
                                          for n in attrs["notes"]]
        return json.dumps({"rows": records, "provenance": provenance, "signature": signature(attrs)},
                          indent=2, sort_keys=False, allow_nan=False)
    if fmt == "html":
        return html_document(df)
    if fmt not in ("table", "md", "latex"):
        raise ValueError(f"unknown output format '{fmt}' (use one of {', '.join(FORMATS)})")
    shown = _formatted(df)
    if fmt == "latex":
        cells = [[_latex_minus(v) if c.numeric else latex(v) for v in c.joined()] for c in shown]
        text = _booktabs([latex(c.header) for c in shown], cells, "".join("r" if c.numeric else "l" for c in shown))
        return text + "".join(latex_comment(line) + "\n" for line in [signature(attrs), *notes])
    escape = markdown if fmt == "md" else one_line
    label = _ci_label(attrs.get("confidence_level"))
    table = pd.DataFrame({
        escape(c.header.removesuffix(label)) + (label if c.header.endswith(label) else ""):
            c.joined() if c.numeric else [escape(v) for v in c.joined()] for c in shown}, index=df.index)
    text = tabulate(table, headers="keys", tablefmt="github" if fmt == "md" else "simple", showindex=False,
                    disable_numparse=True, colalign=tuple("right" if c.numeric else "left" for c in shown))
    lines = [text, ""]
    lines += [f"- {escape(n)}" if fmt == "md" else f"note: {escape(n)}" for n in notes]
    if fmt == "md" and notes:
        lines.append("")  # else the signature would continue the last note's list item
    lines.append(signature(attrs, escape))
    return "\n".join(lines)


def _bare(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` without its ``attrs`` and with plain (object) column labels: a shallow copy for
    formatting. pandas deep-copies a frame's ``attrs`` into every column taken from it, and
    looks each column label up in an Arrow-backed index (pandas 3's strings) one scalar at a
    time; with a result's notes both cost more than the formatting itself."""
    out = df.copy(deep=False)
    out.attrs = {}
    out.columns = pd.Index(list(out.columns), dtype=object)
    return out


def _csv_safe(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with every text cell and header that a spreadsheet would run as a formula quoted
    (:func:`memdiag.core.escape.csv_cell`); numeric columns unchanged; no ``attrs``."""
    out = _bare(df)
    for k in range(out.shape[1]):
        if not pd.api.types.is_numeric_dtype(out.iloc[:, k]):
            out.isetitem(k, out.iloc[:, k].map(csv_cell))
    out.columns = [csv_cell(str(c)) for c in out.columns]
    return out


# --------------------------------------------------------------------------------------------
# HTML: key columns first, the rest in a second table, each fitting the page
# --------------------------------------------------------------------------------------------
#: The width (CSS px) a table may take: the report's text column (``main``: 1200 px less its
#: padding) with a margin for the browser's rounding.
HTML_WIDTH = 1100
#: Font size of table cells (px): 0.8em of 16 px.
_FONT_PX = 12.8
#: Horizontal padding of a cell (px): 0.6em on each side.
_PAD_PX = 2 * 0.6 * _FONT_PX
#: The interval under an estimate is set at this fraction of the cell's font size.
_CI_SCALE = 0.85
#: Advance widths of DejaVu Sans (em) by character class; anything else counts as a capital.
_NARROW, _DIGIT, _LOWER, _WIDE = 0.34, 0.64, 0.62, 0.76
#: Columns that identify a row, shown first in every HTML table.
KEYS: tuple[str, ...] = ("group", "metric", "kind", "part", "id", "family", "cluster", "system",
                         "system_a", "system_b", "rater_a", "rater_b", "file")
#: Columns read after the headline numbers: they go to the second table.
DETAILS: tuple[str, ...] = ("both", "neither", "p_mcnemar", "disagree", "test", "test_iid", "method", "se", "df",
                            "mc_se", "design", "n_resamples", "seed", "sha256", "retention_undefined", "recovery_undefined",
                            "utilization_undefined")
#: Columns that go to the second table when they hold one value in every row (the title says it).
CONSTANT_DETAILS: tuple[str, ...] = ("reference", "n", "k", "by")
#: Columns kept in the first table as long as anything else can move instead.
HEADLINE: tuple[str, ...] = ("benefit", "tax", "net", "benefit_rate", "tax_rate", "net_rate", "retention",
                             "recovery", "p", "p_adj", "diff", "estimate", "overall", "outcome", "verdict",
                             "rank", "kappa", "contribution", "power", "detectable_effect", "accuracy")
#: Where a long text may break (after these), besides spaces.
_BREAK_AFTER = re.compile(r"([_/.])")


def _text_px(text: str, scale: float = 1.0) -> float:
    width = 0.0
    for ch in text:
        if ch in " .,:;[]()|'!-":
            width += _NARROW
        elif ch.isdigit():
            width += _DIGIT
        elif ch.islower():
            width += _LOWER
        else:
            width += _WIDE
    return width * _FONT_PX * scale


def _segments(text: str) -> list[str]:
    """The pieces a browser may put on separate lines (spaces, and after ``_ / . -``)."""
    return [s for part in text.split() for s in re.split(r"(?<=[_/.\-])", part) if s]


def column_px(column: Column) -> float:
    """The narrowest a column can be drawn (CSS px): its longest unbreakable piece of text — a
    whole number, the estimate or the interval under it, a word of a header or a text cell —
    plus the cell padding."""
    widest = max((_text_px(s) for s in _segments(column.header)), default=0.0) * 1.05  # headers are bold
    for k, cell in enumerate(column.cells):
        if column.numeric:
            widest = max(widest, _text_px(cell))
            if column.intervals is not None and column.intervals[k]:
                widest = max(widest, _text_px(column.intervals[k], _CI_SCALE))
        else:
            widest = max(widest, *(_text_px(s) for s in _segments(cell)), 0.0)
    return widest + _PAD_PX


def _split(shown: list[Column], width: float) -> tuple[list[Column], list[list[Column]]]:
    """The first table's columns and the second table's (in pieces that each fit ``width``)."""
    keys = [c for c in shown if c.name in KEYS] or shown[:1]
    rest = [c for c in shown if c not in keys]
    details = [c for c in rest if c.name in DETAILS or (c.name in CONSTANT_DETAILS and len(set(c.cells)) == 1)]
    first = [c for c in rest if c not in details]
    key_px = sum(column_px(c) for c in keys)
    for movable in ([c for c in first if c.name not in HEADLINE], [c for c in first if c.name in HEADLINE]):
        for column in reversed(movable):
            if key_px + sum(column_px(c) for c in first) <= width:
                break
            first.remove(column)
            details.append(column)
    order = {c.name: k for k, c in enumerate(shown)}
    details.sort(key=lambda c: order[c.name])
    pieces: list[list[Column]] = []
    for column in details:
        if pieces and key_px + sum(column_px(c) for c in pieces[-1]) + column_px(column) <= width:
            pieces[-1].append(column)
        else:
            pieces.append([column])
    return keys + first, [keys + piece for piece in pieces]


def _html_text(text: str) -> str:
    """Escaped text that may break after ``_ / .`` (``<wbr>``)."""
    return _BREAK_AFTER.sub(r"\1<wbr>", _html.escape(text, quote=True))


def _html_number(text: str) -> str:
    return _html.escape(text.replace("-", "\u2212"), quote=True)


def _html_table(shown: list[Column], n_rows: int) -> str:
    head = "".join(f'<th class="{"num" if c.numeric else "text"}">{_html_text(c.header)}</th>' for c in shown)
    rows = []
    for k in range(n_rows):
        cells = []
        for c in shown:
            if not c.numeric:
                cells.append(f'<td class="text">{_html_text(c.cells[k])}</td>')
                continue
            interval = c.intervals[k] if c.intervals is not None else ""
            below = f'<br><span class="ci">{_html_number(interval)}</span>' if interval else ""
            cells.append(f'<td class="num">{_html_number(c.cells[k])}{below}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n" + "\n".join(rows) + "\n</tbody>\n</table>"


def html(df: pd.DataFrame, width: float = HTML_WIDTH) -> str:
    """The table as HTML for a page ``width`` CSS px wide: the key columns first (after
    :func:`select`, the columns in the order named), formatted as in
    every format for people (:func:`columns`), each interval on a line under its estimate; the
    columns read later (cell counts beside the flows, the test and interval method, replicate
    settings) or that do not fit go to a second table inside ``<details>``, repeating the columns
    that identify a row. Every text is escaped; long names may break after ``_``, ``/`` or ``.``.

    The widths are estimated from DejaVu Sans advance widths (:func:`column_px`); the report's
    test checks them in a browser.

    Parameters
    ----------
    df
        A result frame (its ``attrs`` as in :func:`columns`).
    width
        The width of the page in CSS px (default :data:`HTML_WIDTH`).

    Returns
    -------
    str
        One ``<table>``, then a ``<details class="more">`` with the columns that were moved
        (when some were); no notes or signature line (:func:`html_document` adds them).

    Raises
    ------
    ValueError
        A ``confidence_level`` in ``attrs`` that is not a number.

    References
    ----------
    SPEC §4.6 (tables for people: HTML with the key columns first — in the order named after a
    :func:`select` — and the rest under "More columns").

    Examples
    --------
    >>> f = pd.DataFrame({"system": ["mem0"], "estimate": [66.875], "ci_low": [64.1], "ci_high": [69.5]})
    >>> print(html(f))
    <table>
    <thead><tr><th class="text">system</th><th class="num">estimate [CI]</th></tr></thead>
    <tbody>
    <tr><td class="text">mem0</td><td class="num">66.88<br><span class="ci">[64.10, 69.50]</span></td></tr>
    </tbody>
    </table>
    >>> "<details" in html(f, width=120)    # too narrow: the estimate goes under "More columns"
    True
    """
    shown = columns(df)
    first, pieces = _split(shown, width)
    if df.attrs.get("selected_columns"):  # columns the user named and ordered (select): in that order
        first = [c for c in shown if c in first]
    parts = [_html_table(first, len(df))]
    if pieces:
        moved = [c.header for piece in pieces for c in piece if c not in first]
        tables = "\n".join(_html_table(piece, len(df)) for piece in pieces)
        parts.append(f'<details class="more"><summary>More columns: {_html.escape(", ".join(moved))}</summary>\n'
                     f"{tables}\n</details>")
    return "\n".join(parts)


def html_document(frames: pd.DataFrame | list[pd.DataFrame]) -> str:
    """A standalone HTML page of one or several tables (:func:`html`), each with its notes and
    signature line."""
    body = []
    for frame in frames if isinstance(frames, list) else [frames]:
        notes = "".join(f'<p class="note">{_html.escape(one_line(n))}</p>\n' for n in frame.attrs.get("notes", []))
        body.append(f"{html(frame)}\n{notes}"
                    f'<p class="signature"><code>{_html.escape(signature(frame.attrs))}</code></p>\n')
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>memdiag</title>\n"
            f"<style>\n{HTML_STYLE}{_PAGE_STYLE}</style>\n</head>\n<body>\n<main>\n" + "".join(body)
            + "</main>\n</body>\n</html>\n")


#: The CSS of the tables :func:`html` writes (the report's template includes it).
HTML_STYLE = """\
table { border-collapse: collapse; font-size: 0.8em; font-variant-numeric: tabular-nums; margin: 0.2em 0 0.6em; }
th, td { padding: 0.2em 0.6em; border-bottom: 1px solid #e4e4e4; vertical-align: top; }
th { border-bottom: 2px solid #888; text-align: left; font-weight: bold; }
th.num, td.num { text-align: right; white-space: nowrap; }
th.num { white-space: normal; }
td .ci { font-size: 0.85em; color: #555; }
details.more { margin: 0 0 0.8em; }
details.more summary { font-size: 0.8em; color: #444; cursor: pointer; }
"""
#: The page around a table of :func:`html_document`.
_PAGE_STYLE = """\
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; color: #222; margin: 0; }
main { max-width: 1200px; margin: 0 auto; padding: 1.5em 2em 4em; }
.note { font-size: 0.8em; color: #555; margin: 0.2em 0; }
.signature { font-size: 0.78em; color: #333; }
"""
