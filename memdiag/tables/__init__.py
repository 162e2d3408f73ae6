"""One result -> what people read (terminal table, Markdown, LaTeX booktabs, HTML) and what machines read (CSV, JSON).

Every public memdiag function returns a typed result (:class:`memdiag.core.result.Result`): a
DataFrame whose columns carry their kinds and whose ``attrs`` carry the provenance of the run
(design, number of resamples, seed, policies, memdiag version) and its notes.
:func:`signature` turns the provenance into one line, as sacrebleu prints its settings, and
:func:`render` prints the table with it. Rendering is deterministic: the same result gives the
same bytes on every machine.

One job per module:

- :mod:`memdiag.tables.cells` — each column written by its declared kind, never by its name
  (counts as integers, sentinels as their words, every p-value by :func:`format_p`), an
  estimate joined with its interval (:func:`columns`, :func:`display`, :func:`format_value`
  for a figure's labels);
- :mod:`memdiag.tables.selection` — which columns are shown: a selection (:func:`select`), the
  compact paper table (:func:`paper_columns`), the terminal's compact default
  (:func:`compact_columns`; ``columns="all"`` for every column);
- :mod:`memdiag.tables.signature_line` — the settings line (:func:`signature`);
- :mod:`memdiag.tables.text` — terminal, Markdown, LaTeX, CSV and JSON (:func:`render`);
- :mod:`memdiag.tables.pages` — HTML with the key columns first (:func:`html`,
  :func:`html_document`);
- :mod:`memdiag.tables.aliases` — short names for systems (``labels=``), in the formats for
  people only; CSV and JSON keep the full names that join with other data.
"""

from memdiag.core.kinds import MISSING, P_SMALLEST, format_number, format_p
from memdiag.tables.cells import Column, columns, display, format_value
from memdiag.tables.pages import HTML_STYLE, HTML_WIDTH, column_px, html, html_document
from memdiag.tables.selection import (
    ALL,
    COMPACT_PRESETS,
    CONSTANT_DETAILS,
    DETAILS,
    HEADLINE,
    KEYS,
    PAPER,
    PAPER_PRESETS,
    compact_columns,
    paper_columns,
    select,
)
from memdiag.tables.signature_line import signature, signature_difference
from memdiag.tables.text import Format, render

__all__ = ["ALL", "COMPACT_PRESETS", "CONSTANT_DETAILS", "DETAILS", "Format", "HEADLINE", "HTML_STYLE", "HTML_WIDTH",
           "KEYS", "MISSING", "PAPER", "PAPER_PRESETS", "P_SMALLEST", "Column", "column_px", "columns",
           "compact_columns", "display", "format_number", "format_p", "format_value", "html", "html_document",
           "paper_columns", "render", "select", "signature", "signature_difference"]
