"""Rendering a computed report: every table as LaTeX, CSV and Markdown, every figure as PDF, SVG
and PNG, report.md, and the self-contained report.html (ARCHITECTURE: ``report/``).

The HTML comes from the Jinja2 template ``templates/report.html.j2`` (package data, autoescaped),
with every figure embedded as base64 PNG. Rendering never computes: it writes what the sections
returned, each table with the report's settings filling its signature line.
"""

from __future__ import annotations

import base64
from pathlib import Path

import pandas as pd
from jinja2 import Environment, PackageLoader, Template
from markupsafe import Markup

from memdiag.analyses.replay import FILES as REPLAY_FILES
from memdiag.analyses.replay import write_replay
from memdiag.core.escape import code_span, markdown
from memdiag.plots.style import write_rendered
from memdiag.reporting.notes import (
    ReportNotes,
    applies,
    label,
    report_notes,
    without_notes,
)
from memdiag.reporting.provenance import _with_signature
from memdiag.reporting.sections import TABLE_TITLES, Analysis, Section
from memdiag.tables import HTML_STYLE, html, render, signature, signature_difference
from memdiag.tables.aliases import relabel

#: CSS pixels per inch: an embedded figure is shown at its printed size.
CSS_DPI = 96
#: The HTML template, in this package's ``templates`` folder.
HTML_TEMPLATE = "report.html.j2"


def _write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text if text.endswith("\n") else text + "\n")
    except OSError as error:  # a full disk (ENOSPC) names no file by itself
        if error.filename:
            raise
        raise OSError(error.errno, error.strerror or str(error), str(path)) from None


#: Where the per-query replay of the flows goes in a report folder.
REPLAY = "replay"


def replay_files(section: Section) -> list[str]:
    """The report-relative paths of a section's replay files (none without a replay)."""
    return [f"{REPLAY}/{name}" for name in REPLAY_FILES] if section.replay is not None else []


def _write_tables(analysis: Analysis, folder: Path) -> None:
    for section in analysis.sections:
        for name, table in section.tables.items():
            signed = _with_signature(table, analysis.signature)
            for fmt, suffix in (("latex", "tex"), ("csv", "csv"), ("md", "md")):
                # short names in the tables for people (.tex, .md); the CSV keeps the names, for joining
                _write_text(folder / "tables" / f"{name}.{suffix}", render(signed, fmt, labels=analysis.labels))
        if section.replay is not None:
            write_replay(section.replay, folder / REPLAY)


def _figure_files(analysis: Analysis, folder: str | Path) -> list[Path]:
    """The files :func:`_save_figures` writes into ``folder``."""
    return [Path(folder) / f"{name}.{suffix}" for section in analysis.sections for name in section.figures
            for suffix in ("pdf", "svg", "png")]


def _save_figures(analysis: Analysis, folder: str | Path) -> list[Path]:
    """Write every figure of ``analysis`` into ``folder`` as PDF, SVG and PNG (each drawn and
    rendered in a worker process since its section was computed); returns the files. Warnings
    raised while drawing join the analysis' warnings."""
    written = []
    for section in analysis.sections:
        for name in section.figures:
            result = analysis.figures.result(name)
            written += write_rendered(result.files, Path(folder) / name)
            seen = analysis.provenance.setdefault("warnings", [])
            seen += [w for w in result.warnings if w not in seen]
    return written


def _summary(analysis: Analysis) -> str:
    p = analysis.provenance
    return (f"{len(p['systems'])} systems ({', '.join(p['systems'])}) on {p['n_queries']} aligned "
            f"queries; reference {p['settings']['reference']}.")


def _shown(analysis: Analysis) -> list[tuple[int, Section]]:
    """The sections that are not omitted, numbered from 1."""
    return list(enumerate((s for s in analysis.sections if s.omitted is None), start=1))


def _notes(analysis: Analysis) -> ReportNotes:
    """The notes of the shown tables, each said once (:func:`memdiag.reporting.notes.report_notes`)."""
    tables = {name: table for _, section in _shown(analysis) for name, table in section.tables.items()}
    return report_notes(tables, said=analysis.provenance["policies"])


#: The most rows a table shows in report.md; a longer one (the 171 pairs of 19 systems) is in
#: ``tables/`` and report.html, and report.md points there.
MD_ROWS = 60


def _md_rows(name: str, table: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """The rows of ``table`` report.md shows and the line that says where the others are: every row
    up to :data:`MD_ROWS`; of a longer clustered-queries table the pairs whose conclusion changes
    (if they fit); else none."""
    if len(table) <= MD_ROWS:
        return table, ""
    where = (f"[tables/{name}.md](tables/{name}.md) (also .csv and .tex) and report.html")
    if name == "independence" and "outcome" in table:
        changed = table[table["outcome"].isin(["lost", "gained"])]
        if len(changed) <= MD_ROWS:
            kept = changed.copy()
            kept.attrs = table.attrs
            return kept, (f"The {len(changed)} of {len(table)} pairs whose conclusion changes between the designs "
                          f"(lost or gained); every pair is in {where}.")
    empty = table.iloc[:0].copy()
    empty.attrs = table.attrs
    return empty, f"The table has {len(table)} rows, too many to read here: it is in {where}."


def _differs(table: pd.DataFrame, analysis: Analysis) -> str | None:
    """What a table's signature line states beyond the report's (printed once, at the top): its
    metric, its degrees of freedom, ... — None when nothing. Degrees of freedom a ``df`` column
    shows row by row are not repeated under the table."""
    attrs = _with_signature(table, analysis.signature).attrs
    if "df" in table.columns:
        attrs = {key: value for key, value in attrs.items() if key != "df"}
    return signature_difference(attrs, _headline(analysis))


def _section_settings(section: Section, analysis: Analysis) -> tuple[list[tuple[str, list[str]]], dict[str, str]]:
    """Where a section's tables differ from the report's settings, each difference said once, as
    the notes are: a setting several tables share under the section's sentence (with the titles
    of its tables), the rest under its own table. Returns the shared lines as ``(settings, titles)``
    and each table's own settings (tables without any are left out)."""
    parts = {name: differs.split(" | ") for name, table in section.tables.items()
             if (differs := _differs(table, analysis))}
    tables: dict[str, list[str]] = {}
    for name, own in parts.items():
        for part in own:
            tables.setdefault(part, []).append(name)
    shared: dict[tuple[str, ...], list[str]] = {}
    for part, names in tables.items():
        if len(names) > 1:
            shared.setdefault(tuple(names), []).append(part)
    lines = [(" | ".join(settings), [TABLE_TITLES[name] for name in names]) for names, settings in shared.items()]
    own = {name: " | ".join(part for part in kept if len(tables[part]) == 1) for name, kept in parts.items()}
    return lines, {name: settings for name, settings in own.items() if settings}


def _headline(analysis: Analysis) -> dict:
    """The report's settings as its top signature line states them: the run's, and the metric most
    tables report (accuracy), so that only the other metrics are named under their tables."""
    return {"metric": "accuracy", **analysis.signature}


def _markdown(analysis: Analysis) -> str:
    """report.md: every text that can hold a name (summary, policies, titles, sentences, captions,
    notes, cells) escaped by :func:`memdiag.core.escape.markdown`, the signature as a code span. Each
    distinct note is printed once: those of several tables in one block at the top, warnings first."""
    lines = ["# memdiag report", "", markdown(_summary(analysis)), "", code_span(signature(_headline(analysis))),
             "", "Policies applied:", ""] + [f"- {markdown(line)}" for line in analysis.provenance["policies"]]
    lines.append("")
    if analysis.provenance.get("warnings"):
        lines += ["Warnings raised during the analysis:", ""] + \
            [f"- {markdown(line)}" for line in analysis.provenance["warnings"]] + [""]
    notes = _notes(analysis)
    if notes.shared:
        lines += ["Notes shared by several tables (each said once, here):", ""]
        for heading, group in notes.grouped():
            lines += [f"{heading}:", ""] + [f"- {markdown(n)} ({applies(k)})" for n, k in group] + [""]
    numbers = {id(s): k for k, s in _shown(analysis)}
    for section in analysis.sections:
        title = markdown(section.title)
        if section.omitted is not None:
            lines += [f"*{title} — omitted: {markdown(section.omitted)}.*", ""]
            continue
        lines += [f"## {numbers[id(section)]}. {title}", "", markdown(section.sentence), ""]
        shared, differs = _section_settings(section, analysis)
        lines += [f"Settings of several tables of this section beyond the report's: {code_span(settings)} "
                  f"({markdown('; '.join(titles))})" for settings, titles in shared] + ([""] if shared else [])
        for name, (_, caption) in section.figures.items():
            lines += [f"![{markdown(caption)}](figures/{name}.png)", "", f"*Figure ({name}): {markdown(caption)}*",
                      ""]
        for name, table in section.tables.items():
            shown, pointer = _md_rows(name, table)
            text = render(without_notes(_with_signature(shown, analysis.signature)), "md",
                          labels=analysis.labels).rstrip("\n")
            body = text.rsplit("\n", 1)[0]      # the last line is the signature: said once, at the top
            body = pointer if shown.empty else body.rstrip("\n") + ("\n\n" + pointer if pointer else "")
            own = [f"- {label(n)}{markdown(n)}" for n in notes.own.get(name, [])]
            lines += [f"### {TABLE_TITLES[name]}", "", body, ""] + (own + [""] if own else []) + \
                ([f"Settings of this table beyond the report's: {code_span(differs[name])}", ""]
                 if name in differs else [])
        if section.replay is not None:
            links = " and ".join(f"[{path}]({path})" for path in replay_files(section))
            lines += [f"Per-query replay: every query of every cell — benefit, tax, both, neither — with its "
                      f"question, expected answer and each system's response where the release has them: {links}.",
                      ""]
    return "\n".join(lines)


def _template() -> Template:
    """The report.html template, loaded from the package data with autoescaping on."""
    environment = Environment(loader=PackageLoader("memdiag.reporting", "templates"), autoescape=True)
    return environment.get_template(HTML_TEMPLATE)


def _html_table(table: pd.DataFrame, labels: dict[str, str]) -> Markup:
    """The table as HTML (:func:`memdiag.tables.html`: escaped, formatted as in the Markdown and
    LaTeX tables, each system under its short name ``labels``, key columns first and the rest
    under ``<details>``)."""
    return Markup(html(relabel(table, labels)))


def _html(analysis: Analysis, figures: Path) -> str:
    numbers = {id(s): k for k, s in _shown(analysis)}
    notes = _notes(analysis)
    sections = []
    for section in analysis.sections:
        signed = {name: _with_signature(t, analysis.signature) for name, t in section.tables.items()}
        shared, differs = _section_settings(section, analysis)
        tables = [{"name": name, "title": TABLE_TITLES[name], "html": _html_table(table, analysis.labels),
                   "notes": [label(n) + str(n) for n in notes.own.get(name, [])],
                   "signature": differs.get(name)} for name, table in signed.items()]
        images = [{"name": name, "caption": caption,
                   "width": round(analysis.figures.result(name).size[0] * CSS_DPI),
                   "data": base64.b64encode((figures / f"{name}.png").read_bytes()).decode("ascii")}
                  for name, (_, caption) in section.figures.items()]
        sections.append({"key": section.key, "title": section.title, "sentence": section.sentence,
                         "omitted": section.omitted, "number": numbers.get(id(section)), "settings": shared,
                         "tables": tables, "figures": images, "replay": replay_files(section)})
    return _template().render(summary=_summary(analysis), signature=signature(_headline(analysis)),
                              policies=analysis.provenance["policies"],
                              warnings=analysis.provenance.get("warnings", []), shown=_shown(analysis),
                              shared_notes=[(heading, [f"{n} ({applies(k)})" for n, k in group])
                                            for heading, group in notes.grouped()],
                              sections=sections, table_style=Markup(HTML_STYLE))
