"""``memdiag validate``: what was read — systems, queries, repetitions, pairing, problems."""

from __future__ import annotations

import argparse

import memdiag as md
from memdiag.cli import groups
from memdiag.cli.emit import emit
from memdiag.cli.reading import read


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The verdict files and the output options."""
    groups.add_input(p)
    groups.add_output(p)


def run(args: argparse.Namespace) -> int:
    """:func:`memdiag.validate` of the verdicts, with what was read counted in its first note."""
    from memdiag.analyses.clusters import validation_notes
    from memdiag.core.notes import Note

    df = read(args)
    summary = md.validate(df)
    files = df["source_file"].nunique() if "source_file" in df else 0
    summary.attrs["notes"] = ([Note(f"{files} files, {len(df)} verdict rows, {summary.attrs['n_queries']} "
                                    f"distinct queries, {len(summary)} systems", code="read")] + summary.attrs["notes"]
                              + validation_notes(df))
    if not args.verbose:  # the relabelled categories counted in one line; --verbose lists them
        from memdiag.reporting.notes import condensed

        summary.attrs["notes"] = condensed(summary.attrs["notes"])
    emit(summary, args)
    return 0
