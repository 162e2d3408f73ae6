"""One result frame -> what people read: terminal table, Markdown, LaTeX (booktabs), CSV or JSON.

Every public memdiag function returns a tidy DataFrame whose ``attrs`` carry the provenance of
the run (design, number of resamples, seed, policies, memdiag version). :func:`signature` turns
that into one line, as sacrebleu prints its settings, and :func:`render` prints the table with
it. Rendering is deterministic: the same frame gives the same bytes on every machine.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Literal

import numpy as np
import pandas as pd
from tabulate import tabulate

from memdiag._checks import FORMATS
from memdiag._escape import csv_cell, latex, latex_comment, markdown, one_line

Format = Literal["table", "md", "csv", "json", "latex"]

#: Provenance keys printed in the signature line, in this order.
_SIGNATURE_KEYS = ("scheme", "metric", "design", "n_clusters", "n_resamples", "seed", "confidence_level",
                   "correction", "threshold", "missing", "verdict_missing", "judges")
_SHORT = {"n_clusters": "G", "n_resamples": "B", "confidence_level": "ci", "verdict_missing": "verdict-missing"}


def signature(attrs: Mapping[str, object], escape: Callable[[object], str] = one_line) -> str:
    """One line naming the settings behind a result, e.g. ``memdiag 0.1.0 | design=iid | B=20000``.

    Each value goes through ``escape`` (default :func:`~memdiag._escape.one_line`; a scheme name
    comes from the user's file), the separators do not.

    >>> signature({"design": "cluster", "n_clusters": 10, "n_resamples": 20000, "seed": 0, "version": "0.1.0"})
    'memdiag 0.1.0 | design=cluster | G=10 | B=20000 | seed=0'
    """
    from memdiag import __version__

    parts = [f"memdiag {escape(attrs.get('version', __version__))}"]
    for key in _SIGNATURE_KEYS:
        value = attrs.get(key)
        if value is None:
            continue
        if key == "confidence_level":
            value = f"{float(value):.0%}"
        parts.append(f"{_SHORT.get(key, key)}={escape(value)}")
    return " | ".join(parts)


def _decimals(values: pd.Series) -> int:
    """Decimals for a float column: 2 when it holds points or counts (any |value| >= 1), else 4
    (rates and fractions), so a column and its interval read alike."""
    finite = pd.to_numeric(values, errors="coerce").abs()
    return 2 if (finite >= 1).any() else 4


def _cell(value: object, column: str, decimals: int = 2) -> object:
    """Format one cell: p-values with 4 significant digits, other floats with ``decimals``."""
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return "undefined" if column.startswith(("utilization", "estimate")) else ""
        if column == "p" or column.startswith("p_"):
            return f"{value:.4g}" if value >= 1e-4 else f"{value:.2e}"
        return f"{value:.{decimals}f}"
    return value


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


def _ci_label(level: object) -> str:
    """The suffix :func:`display` gives the header of an estimate merged with its interval."""
    return f" [{float(level):.0%} CI]" if level is not None else " [CI]"


def display(df: pd.DataFrame, level: object = None) -> pd.DataFrame:
    """Cells as text, as every human-readable format shows them: each estimate merged with its
    interval as ``est [low, high]`` (column ``name [95% CI]``), p-values to 4 significant digits,
    and a p-value at its Monte-Carlo floor (``p_floor`` True: no replicate as extreme as the data)
    as the bound it is, ``< 2/(B + 1)`` (SPEC §4.4).

    >>> f = pd.DataFrame({"p": [1 / 10_000.5, 0.5], "p_floor": [True, False]})
    >>> display(f)["p"].tolist()
    ['< 1.00e-04', '0.5']
    """
    columns = [str(c) for c in df.columns]
    pairs = _interval_pairs(columns)
    hidden = {c for pair in pairs.values() for c in pair}
    label = _ci_label(level)
    headers = df.attrs.get("column_labels") or {}   # e.g. LoCoMo "1 (multi-hop)" (SPEC §6.2)
    out = {}
    for c in columns:
        if c in hidden:
            continue
        group = [c, *pairs.get(c, ())]
        decimals = _decimals(pd.concat([df[g] for g in group], ignore_index=True))
        cells = [_cell(v, c, decimals) for v in df[c].tolist()]
        if c in ("p", "p_adj") and "p_floor" in columns:   # a p at its Monte-Carlo floor is a bound
            cells = [f"< {v}" if floored is True and v not in ("", "1") else v
                     for v, floored in zip(cells, df["p_floor"].tolist())]
        if c in pairs:
            low, high = pairs[c]
            cells = [f"{v} [{_cell(lo, low, decimals)}, {_cell(hi, high, decimals)}]"
                     if v not in ("", "undefined") else v
                     for v, lo, hi in zip(cells, df[low].tolist(), df[high].tolist())]
            out[headers.get(c, c) + label] = cells
        else:
            out[headers.get(c, c)] = cells
    return pd.DataFrame(out, index=df.index)


def _jsonable(value: object) -> object:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def render(df: pd.DataFrame, fmt: Format = "table") -> str:
    """Render a result frame with its notes and signature line.

    Parameters
    ----------
    df
        A result frame; ``df.attrs`` may hold provenance (see :func:`signature`) and ``notes``
        (a list of strings shown under the table).
    fmt
        ``table`` (terminal), ``md`` (Markdown), ``csv``, ``json`` (records plus provenance) or
        ``latex`` (booktabs).

    Examples
    --------
    >>> df = pd.DataFrame({"system": ["mem0"], "overall": [66.875], "p": [0.00012345]})
    >>> df.attrs = {"scheme": "locomo", "version": "0.1.0"}
    >>> print(render(df, "md"))
    | system   |   overall |         p |
    |----------|-----------|-----------|
    | mem0     |     66.88 | 0.0001234 |
    <BLANKLINE>
    memdiag 0.1.0 | scheme=locomo
    """
    attrs = dict(df.attrs)
    notes = [str(n) for n in attrs.get("notes", [])]
    if fmt == "csv":  # full precision: the shortest repr that round-trips
        return _csv_safe(df).to_csv(index=False, lineterminator="\n")
    if fmt == "json":
        records = [{str(k): _jsonable(v) for k, v in row.items()} for row in df.to_dict("records")]
        provenance = {k: _jsonable(v) for k, v in attrs.items()}
        return json.dumps({"rows": records, "provenance": provenance, "signature": signature(attrs)},
                          indent=2, sort_keys=False, allow_nan=False)
    shown = display(df, attrs.get("confidence_level"))
    if fmt == "latex":
        body = _escaped(shown, set(), latex, latex).to_latex(index=False, escape=False)
        return body + "".join(latex_comment(line) + "\n" for line in [signature(attrs), *notes])
    if fmt not in ("table", "md"):
        raise ValueError(f"unknown output format '{fmt}' (use one of {', '.join(FORMATS)})")
    numeric = {str(c) for c in df.columns
               if pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])}
    align = tuple("right" if c.split(" [")[0] in numeric else "left" for c in shown.columns)
    escape = markdown if fmt == "md" else one_line
    label = _ci_label(attrs.get("confidence_level"))
    shown = _escaped(shown, {c for c in shown.columns if c.split(" [")[0] in numeric}, escape,
                     lambda c: escape(c.removesuffix(label)) + (label if c.endswith(label) else ""))
    table = tabulate(shown, headers="keys", tablefmt="github" if fmt == "md" else "simple",
                     showindex=False, disable_numparse=True, colalign=align)
    lines = [table, ""]
    lines += [f"- {escape(n)}" if fmt == "md" else f"note: {escape(n)}" for n in notes]
    if fmt == "md" and notes:
        lines.append("")  # else the signature would continue the last note's list item
    lines.append(signature(attrs, escape))
    return "\n".join(lines)


def _escaped(shown: pd.DataFrame, numeric: set[str], cell: Callable[[object], str],
             header: Callable[[str], str]) -> pd.DataFrame:
    """The displayed table with every text cell (columns not in ``numeric``) and every header
    escaped for the output format (:mod:`memdiag._escape`)."""
    columns = [str(c) for c in shown.columns]
    cells = [[v if c in numeric or not isinstance(v, str) else cell(v) for v in shown.iloc[:, k].tolist()]
             for k, c in enumerate(columns)]
    out = pd.DataFrame(dict(enumerate(cells)), index=shown.index)
    out.columns = [header(c) for c in columns]
    return out


def _csv_safe(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with every text cell and header that a spreadsheet would run as a formula quoted
    (:func:`memdiag._escape.csv_cell`); numeric columns unchanged."""
    out = df.copy()
    for k in range(out.shape[1]):
        if not pd.api.types.is_numeric_dtype(out.iloc[:, k]):
            out.isetitem(k, out.iloc[:, k].map(csv_cell))
    out.columns = [csv_cell(str(c)) for c in out.columns]
    return out
