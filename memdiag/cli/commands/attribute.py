"""``memdiag attribute``: a score change between two runs split into changed and unchanged queries."""

from __future__ import annotations

import argparse
import sys

import memdiag as md
from memdiag.cli import groups
from memdiag.cli.choices import options, prepared
from memdiag.cli.emit import emit
from memdiag.cli.query_lists import changed
from memdiag.cli.reading import key_values


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The two runs, the changed queries, how the runs are read, the data choices, resampling and output."""
    p.add_argument("before", metavar="BEFORE", help="verdicts of the run before the intervention (file or folder)")
    p.add_argument("after", metavar="AFTER", help="verdicts of the run after it")
    p.add_argument("--changed", required=True, metavar="COLUMN | @FILE | ID,ID,...",
                   help="the queries whose input the intervention changed: a 0/1 column of AFTER, a file of "
                        "query ids (one a line), or ids separated by commas")
    p.add_argument("--system", help="the system to attribute when the files hold several")
    groups.add_layout(p)
    groups.add_field(p)
    groups.add_records(p)
    p.add_argument("--scheme", help="a question-weighted scheme whose exclusions apply (e.g. locomo)")
    groups.add_choices(p, runs=True)
    groups.add_resampling(p)
    groups.add_output(p, alias=False)  # no verdicts of several systems to name


def run(args: argparse.Namespace) -> int:
    """:func:`memdiag.attribute_change` of the two runs, the data choices carried to both."""
    fields = key_values(args.field, "--field") or None
    runs = [md.read_verdicts(path, format=args.layout, fields=fields, records=args.records)
            for path in (args.before, args.after)]
    for frame in runs:
        for note in frame.attrs.get("read_notes", ()):
            print(f"memdiag attribute: note: {note}", file=sys.stderr)
    names = sorted(runs[0]["system"].dropna().unique())
    system = args.system or (names[0] if len(names) == 1 else None)
    before = runs[0] if system not in names else prepared(args, runs[0], systems=[system])
    table = md.attribute_change(before, runs[1], changed(args.changed, runs[1]), system=args.system,
                                options=options(args))
    emit(table, args)
    return 0
