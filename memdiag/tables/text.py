"""One result -> text: the terminal table, Markdown and LaTeX booktabs for people, CSV and JSON for machines, each with its notes and signature line.

The formats for people write the cells of :func:`memdiag.tables.cells.columns` (each column by
its declared kind); LaTeX right-aligns the numbers and writes their minus signs as
``\\textminus{}`` (booktabs rules). CSV and JSON keep every number at full precision (the
shortest repr that round-trips); a count held as a float (a NaN made it so) is written as the
integer it is, a sentinel keeps its number.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np
import pandas as pd
from tabulate import tabulate

from memdiag.core.checks import FORMATS
from memdiag.core.escape import csv_cell, latex, latex_comment, markdown, one_line
from memdiag.core.notes import as_note
from memdiag.core.result import kinds_of
from memdiag.tables.aliases import relabel
from memdiag.tables.cells import bare, ci_label
from memdiag.tables.cells import columns as formatted
from memdiag.tables.pages import html_document
from memdiag.tables.selection import compact_columns, select
from memdiag.tables.signature_line import signature

Format = Literal["table", "md", "csv", "json", "latex", "html"]


def _machine(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` as CSV and JSON write it: a plain shallow copy whose counts held as floats are
    integers where whole (:meth:`memdiag.core.kinds.Kind.machine`); every other value as it is."""
    kinds = kinds_of(df)
    out = bare(df)
    for k, name in enumerate(kinds):
        kind, column = kinds[name], out.iloc[:, k]
        if kind.name != "count" or pd.api.types.is_integer_dtype(column) or pd.api.types.is_bool_dtype(column):
            continue
        if pd.api.types.is_float_dtype(column):
            values = column.to_numpy()
            finite = values[np.isfinite(values)]
            if np.all(finite == np.floor(finite)) and np.all(np.abs(finite) < 2**53) and not np.isinf(values).any():
                out.isetitem(k, column.astype("Int64"))
        elif column.dtype == object:
            out.isetitem(k, column.map(kind.machine))
    return out


def _csv_safe(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` as :func:`_machine` writes it, with every text cell and header that a spreadsheet
    would run as a formula quoted (:func:`memdiag.core.escape.csv_cell`); no ``attrs``."""
    out = _machine(df)
    for k in range(out.shape[1]):
        if not pd.api.types.is_numeric_dtype(out.iloc[:, k]):
            out.isetitem(k, out.iloc[:, k].map(csv_cell))
    out.columns = [csv_cell(str(c)) for c in out.columns]
    return out


def _jsonable(value: object) -> object:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
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
        A result frame: the kinds of its columns say how each is written
        (:mod:`memdiag.tables.cells`); ``df.attrs`` may hold provenance (see :func:`signature`)
        and ``notes`` (shown under the table).
    fmt
        ``table`` (terminal), ``md`` (Markdown), ``latex`` (booktabs), ``html`` (:func:`html`)
        — for people, formatted alike (:func:`columns`) — or ``csv`` and ``json`` (records plus
        provenance), which keep every number at full precision.
    columns
        Keep only these columns, in this order (:func:`~memdiag.tables.selection.select`: an
        estimate brings its interval, a p its Monte-Carlo floor), ``"paper"`` for the compact
        table of :func:`~memdiag.tables.selection.paper_columns`, or ``"all"``. Default: the
        terminal (``table``) shows the compact table
        (:func:`~memdiag.tables.selection.compact_columns`: the rows' names, the estimate with
        its interval, the adjusted p and the few columns that matter), every other format every
        column.
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
    >>> from memdiag.core.kinds import POINTS, P_VALUE
    >>> from memdiag.core.result import as_result
    >>> df = as_result(pd.DataFrame({"system": ["mem0"], "overall": [66.875], "p": [0.00012345]}),
    ...                {"overall": POINTS, "p": P_VALUE})
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
    if columns is None and fmt == "table":
        columns = compact_columns(df)
    if columns is not None:
        df = select(df, columns)
    if fmt in ("table", "md", "latex", "html"):
        df = relabel(df, labels)
    attrs = dict(df.attrs)
    notes = [str(n) for n in attrs.get("notes", [])]
    if fmt == "csv":  # full precision: the shortest repr that round-trips
        return _csv_safe(df).to_csv(index=False, lineterminator="\n")
    if fmt == "json":
        records = [{str(k): _jsonable(v) for k, v in row.items()} for row in _machine(df).to_dict("records")]
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
    shown = formatted(df)
    if fmt == "latex":
        cells = [[_latex_minus(v) if c.numeric else latex(v) for v in c.joined()] for c in shown]
        text = _booktabs([latex(c.header) for c in shown], cells, "".join("r" if c.numeric else "l" for c in shown))
        return text + "".join(latex_comment(line) + "\n" for line in [signature(attrs), *notes])
    escape = markdown if fmt == "md" else one_line
    label = ci_label(attrs.get("confidence_level"))
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
