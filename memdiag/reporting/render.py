"""Rendering a computed report: every table as LaTeX, CSV and Markdown, every figure as PDF, SVG
and PNG, report.md, and the self-contained report.html (ARCHITECTURE: ``report/``).

The HTML comes from the Jinja2 template ``templates/report.html.j2`` (package data, autoescaped),
with every figure embedded as base64 PNG. Rendering never computes: it writes what the sections
returned, each table with the report's settings filling its signature line. Everything written for
people — report.md, report.html, tables/*.md and *.tex — names each system by its label (its alias,
:func:`for_people`), wherever a name stands: the summary, policies, headings, sentences, captions,
notes and cells; tables/*.csv and analysis.json keep the full names. The answers lead the report,
before the policies and the shared notes.
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
from memdiag.core.notes import Note, as_note
from memdiag.plots._names import in_text
from memdiag.plots.style import write_rendered
from memdiag.reporting.context import LEADING, TABLE_TITLES, Analysis, Section
from memdiag.reporting.notes import (
    ReportNotes,
    applies,
    label,
    report_notes,
    without_notes,
)
from memdiag.reporting.provenance import _with_signature
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


def for_people(table: pd.DataFrame, labels: dict[str, str]) -> pd.DataFrame:
    """``table`` as people read it: every text cell that names a system (alone, as in ``system``,
    or among other words, as in a list of systems or a pair ``a − b``) and every note under its
    label. A table that shows the labels beside the names (a ``label`` column) keeps the names in
    its cells."""
    if not labels:
        return table
    out = table.copy(deep=False)
    for k in range(out.shape[1] if "label" not in table.columns else 0):
        column = out.iloc[:, k]
        if not (pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column)):
            out.isetitem(k, out.iloc[:, k].map(lambda v: in_text(v, labels) if isinstance(v, str) else v))
    out.attrs = {**table.attrs, "notes": [_relabelled(n, labels) for n in table.attrs.get("notes", [])]}
    return out


def _relabelled(note: str, labels: dict[str, str]) -> Note:
    """A note with every system under its label, keeping its code, severity and concerns."""
    note = as_note(note)
    return Note(in_text(str(note), labels), code=note.code, severity=note.severity, concerns=note.concerns)


def _write_tables(analysis: Analysis, folder: Path) -> None:
    for section in analysis.sections:
        for name, table in section.tables.items():
            signed = _with_signature(table, analysis.signature)
            people = for_people(signed, analysis.labels)
            for fmt, suffix in (("latex", "tex"), ("csv", "csv"), ("md", "md")):
                # short names in the tables for people (.tex, .md); the CSV keeps the names, for joining
                _write_text(folder / "tables" / f"{name}.{suffix}",
                            render(signed if fmt == "csv" else people, fmt, labels=analysis.labels))
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


def _leading(analysis: Analysis) -> tuple[list[Section], list[Section]]:
    """The sections that lead the report (the answers), and the rest."""
    first = [s for s in analysis.sections if s.key in LEADING]
    return first, [s for s in analysis.sections if s.key not in LEADING]


def _md_section(section: Section, number: int | None, notes: ReportNotes, analysis: Analysis) -> list[str]:
    """One section of report.md: heading, sentence, its lines, settings, figures, tables with their notes."""
    def say(text: str) -> str:
        return markdown(in_text(str(text), analysis.labels))

    title = say(section.title)
    if section.omitted is not None:
        return [f"*{title} — omitted: {say(section.omitted)}.*", ""]
    lines = [f"## {number}. {title}", "", say(section.sentence), ""]
    lines += [f"- {say(line)}" for line in section.lines] + ([""] if section.lines else [])
    shared, differs = _section_settings(section, analysis)
    lines += [f"Settings of several tables of this section beyond the report's: {code_span(settings)} "
              f"({markdown('; '.join(titles))})" for settings, titles in shared] + ([""] if shared else [])
    for name, (_, caption) in section.figures.items():
        lines += [f"![{say(caption)}](figures/{name}.png)", "", f"*Figure ({name}): {say(caption)}*", ""]
    for name, table in section.tables.items():
        shown, pointer = _md_rows(name, table)
        text = render(without_notes(_with_signature(for_people(shown, analysis.labels), analysis.signature)), "md",
                      labels=analysis.labels).rstrip("\n")
        body = text.rsplit("\n", 1)[0]      # the last line is the signature: said once, at the top
        body = pointer if shown.empty else body.rstrip("\n") + ("\n\n" + pointer if pointer else "")
        own = [f"- {label(n)}{say(n)}" for n in notes.own.get(name, [])]
        lines += [f"### {TABLE_TITLES[name]}", "", body, ""] + (own + [""] if own else []) + \
            ([f"Settings of this table beyond the report's: {code_span(differs[name])}", ""]
             if name in differs else [])
    if section.replay is not None:
        links = " and ".join(f"[{path}]({path})" for path in replay_files(section))
        lines += [f"Per-query replay: every query of every cell — benefit, tax, both, neither — with its "
                  f"question, expected answer and each system's response where the release has them: {links}.", ""]
    return lines


def _markdown(analysis: Analysis) -> str:
    """report.md: every text that can hold a name (summary, policies, titles, sentences, captions,
    notes, cells) under the systems' labels and escaped by :func:`memdiag.core.escape.markdown`, the
    signature as a code span. The answers come first, then the policies and the notes several
    tables share (each distinct note printed once, warnings first), then the other sections."""
    def say(text: str) -> str:
        return markdown(in_text(str(text), analysis.labels))

    numbers = {id(s): k for k, s in _shown(analysis)}
    notes = _notes(analysis)
    first, rest = _leading(analysis)
    lines = ["# memdiag report", "", say(_summary(analysis)), "", code_span(signature(_headline(analysis))), ""]
    for section in first:
        lines += _md_section(section, numbers.get(id(section)), notes, analysis)
    lines += ["Policies applied:", ""] + [f"- {say(line)}" for line in analysis.provenance["policies"]] + [""]
    if analysis.provenance.get("warnings"):
        lines += ["Warnings raised during the analysis:", ""] + \
            [f"- {say(line)}" for line in analysis.provenance["warnings"]] + [""]
    if notes.shared:
        lines += ["Notes shared by several tables (each said once, here):", ""]
        for heading, group in notes.grouped():
            lines += [f"{heading}:", ""] + [f"- {say(n)} ({applies(k)})" for n, k in group] + [""]
    for section in rest:
        lines += _md_section(section, numbers.get(id(section)), notes, analysis)
    return "\n".join(lines)


def _template() -> Template:
    """The report.html template, loaded from the package data with autoescaping on."""
    environment = Environment(loader=PackageLoader("memdiag.reporting", "templates"), autoescape=True)
    return environment.get_template(HTML_TEMPLATE)


def _html_table(table: pd.DataFrame, labels: dict[str, str]) -> Markup:
    """The table as HTML (:func:`memdiag.tables.html`: escaped, formatted as in the Markdown and
    LaTeX tables, each system under its short name ``labels``, key columns first and the rest
    under ``<details>``)."""
    return Markup(html(relabel(for_people(table, labels), labels)))


def _html_section(section: Section, number: int | None, notes: ReportNotes, analysis: Analysis,
                  figures: Path) -> dict:
    """One section as the template reads it, every text under the systems' labels."""
    def say(text: str | None) -> str | None:
        return None if text is None else in_text(str(text), analysis.labels)

    signed = {name: _with_signature(t, analysis.signature) for name, t in section.tables.items()}
    shared, differs = _section_settings(section, analysis)
    tables = [{"name": name, "title": TABLE_TITLES[name], "html": _html_table(table, analysis.labels),
               "notes": [label(n) + say(n) for n in notes.own.get(name, [])],
               "signature": differs.get(name)} for name, table in signed.items()]
    images = [{"name": name, "caption": say(caption),
               "width": round(analysis.figures.result(name).size[0] * CSS_DPI),
               "data": base64.b64encode((figures / f"{name}.png").read_bytes()).decode("ascii")}
              for name, (_, caption) in section.figures.items()]
    return {"key": section.key, "title": say(section.title), "sentence": say(section.sentence),
            "lines": [say(line) for line in section.lines], "omitted": say(section.omitted), "number": number,
            "settings": shared, "tables": tables, "figures": images, "replay": replay_files(section)}


def _html(analysis: Analysis, figures: Path) -> str:
    numbers = {id(s): k for k, s in _shown(analysis)}
    notes = _notes(analysis)
    first, rest = _leading(analysis)
    labels = analysis.labels
    return _template().render(summary=in_text(_summary(analysis), labels), signature=signature(_headline(analysis)),
                              policies=[in_text(line, labels) for line in analysis.provenance["policies"]],
                              warnings=[in_text(line, labels) for line in analysis.provenance.get("warnings", [])],
                              shown=[(k, s.key, in_text(s.title, labels)) for k, s in _shown(analysis)],
                              shared_notes=[(heading, [f"{in_text(n, labels)} ({applies(k)})" for n, k in group])
                                            for heading, group in notes.grouped()],
                              leading=[_html_section(s, numbers.get(id(s)), notes, analysis, figures) for s in first],
                              sections=[_html_section(s, numbers.get(id(s)), notes, analysis, figures) for s in rest],
                              table_style=Markup(HTML_STYLE))
