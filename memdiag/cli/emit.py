"""Printing or writing a command's result tables: the columns asked for, the short names, each
distinct note once, one table per CSV file."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from memdiag.cli.files import inputs
from memdiag.cli.usage import UsageError
from memdiag.core.escape import one_line

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: ``--columns all``: every column of every table.
ALL = "all"
#: How a note of each severity starts in the formats for people.
NOTE_PREFIX = {"info": "note", "caution": "caution", "warning": "warning"}


def table_files(output: Path, frames: Sequence[pd.DataFrame]) -> list[Path]:
    """Where CSV tables go: the first to ``output``, each further one beside it as
    ``<stem>.<name><suffix>`` (``X.csv``, ``X.omnibus.csv``), named after the function that made it."""
    paths, taken = [output], {""}
    for k, frame in enumerate(frames[1:], start=2):
        name = str(frame.attrs.get("function") or frame.attrs.get("table") or f"table{k}")
        name = name if name not in taken else f"{name}{k}"
        taken.add(name)
        paths.append(output.with_name(f"{output.stem}.{name}{output.suffix}"))
    return paths


def emit(frames: pd.DataFrame | Sequence[pd.DataFrame], args: argparse.Namespace) -> None:
    """Print or write one or several result tables.

    Several tables: JSON becomes one list, HTML one page, the formats for people follow one
    another; CSV holds one table per file — with ``-o X.csv`` the first goes to ``X.csv`` and
    each further one to ``X.<name>.csv`` (``X.omnibus.csv``), and without ``-o`` it is refused.
    """
    from memdiag.io.outputs import check_outputs, write_file
    from memdiag.tables import html_document, render

    frames = shown(list(frames) if isinstance(frames, (list, tuple)) else [frames], args)
    # --columns chose the columns already (shown); without it the terminal shows the compact table
    columns = ALL if getattr(args, "columns", None) and args.format == "table" else None
    if args.format == "csv" and len(frames) > 1:
        if not args.output:
            names = ", ".join(str(f.attrs.get("function") or f.attrs.get("table") or "table") for f in frames)
            raise UsageError(f"this command prints {len(frames)} tables ({names}) and a CSV file holds one: give "
                             "-o FILE.csv (the first table goes there, each other one to FILE.<name>.csv) or "
                             "use --format json")
        paths = table_files(Path(args.output), frames)
        check_outputs(paths[1:], inputs(args), force=getattr(args, "force", False))
        for path, frame in zip(paths, frames):
            write_file(path, render(frame, "csv"))  # whole or not at all (a temporary file renamed)
        return
    if args.format == "html":
        text = html_document(frames)
    elif args.format in ("table", "md") and not getattr(args, "verbose", False):
        text = with_notes_once(frames, args.format, quiet=getattr(args, "quiet", False), columns=columns)
    else:
        texts = [render(f, args.format, columns=columns) for f in frames]
        if args.format == "json" and len(texts) > 1:
            text = "[\n" + ",\n".join(texts) + "\n]"
        else:
            text = "\n".join(t if t.endswith("\n") else t + "\n" for t in texts)
    text = text if text.endswith("\n") else text + "\n"
    if args.output:
        write_file(args.output, text)  # whole or not at all (a temporary file renamed)
    else:
        sys.stdout.write(text)


def shown(frames: list[pd.DataFrame], args: argparse.Namespace) -> list[pd.DataFrame]:
    """The tables as :func:`emit` prints them: ``--columns`` applied (a list to the first table,
    ``paper`` to every table that has an estimate, ``all`` keeping every column of every table)
    and, in the formats for people, each system under its short name (``--alias``, a recipe's
    ``labels:``, a systems table's ``label``; CSV and JSON keep the names, for joining)."""
    from memdiag.tables import PAPER, paper_columns, select
    from memdiag.tables.aliases import relabel

    wanted = getattr(args, "columns", None)
    try:
        if wanted == [PAPER] and any(paper_columns(f) is not None for f in frames):
            frames = [f if paper_columns(f) is None else select(f, wanted) for f in frames]
        elif wanted and wanted != [ALL]:
            frames = [select(frames[0], wanted), *frames[1:]]
    except ValueError as error:  # an unknown column, or no estimate for a paper table
        raise UsageError(f"--columns: {error}") from None
    if getattr(args, "alias", None) and not hasattr(args, "table_labels"):
        raise UsageError(f"--alias names systems of the verdicts read; memdiag {args.command} read none here "
                         "(drop --alias)")
    labels = getattr(args, "table_labels", None)
    if labels and args.format not in ("csv", "json"):
        frames = [relabel(f, labels) for f in frames]
    return frames


def with_notes_once(frames: Sequence[pd.DataFrame], fmt: str, quiet: bool = False, columns: str | None = None) -> str:
    """The tables as ``fmt`` (``table`` or ``md``) with each distinct note printed once: a table's
    own notes under it, the notes several tables share after the last, with the number of tables
    they apply to; each group warnings first, then cautions, then information (only warnings
    with ``quiet``). ``columns`` goes to :func:`memdiag.tables.render` (None: the compact terminal
    table; ``"all"``: every column)."""
    from memdiag.core.escape import markdown
    from memdiag.core.notes import Note
    from memdiag.reporting.notes import applies, report_notes, without_notes
    from memdiag.tables import render

    escape = markdown if fmt == "md" else one_line
    split = report_notes({str(k): frame for k, frame in enumerate(frames)})

    def lines(notes: list[tuple[Note, str]]) -> list[str]:
        kept = [(n, extra) for n, extra in notes if not quiet or n.severity == "warning"]
        return [("- " if fmt == "md" else "") + f"{NOTE_PREFIX[n.severity]}: {escape(n)}{extra}" for n, extra in kept]

    texts = []
    for k, frame in enumerate(frames):
        body, sign = render(without_notes(frame), fmt, columns=columns).rstrip("\n").rsplit("\n", 1)
        own = lines([(n, "") for n in split.own[str(k)]])
        texts.append("\n".join([body.rstrip("\n"), "", *own, *([""] if own and fmt == "md" else []), sign]))
    shared = lines([(n, f" ({applies(count)})") for n, count in split.shared])
    if shared:
        texts.append("\n".join(shared))
    return "\n".join(t + "\n" for t in texts)
