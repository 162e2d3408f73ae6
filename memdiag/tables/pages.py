"""One result -> HTML: the key columns first and the rest in a second table under ``<details>``, each fitting the page; a standalone page of several tables.
"""

from __future__ import annotations

import html as _html
import re

import pandas as pd

from memdiag.core.escape import one_line
from memdiag.tables.cells import Column, columns
from memdiag.tables.selection import CONSTANT_DETAILS, DETAILS, HEADLINE, KEYS
from memdiag.tables.signature_line import signature

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
