"""``memdiag flows``: memory benefit and tax of each system against a reference."""

from __future__ import annotations

import argparse
import sys

import memdiag as md
from memdiag.cli import groups, values
from memdiag.cli.choices import options, prepared
from memdiag.cli.emit import emit
from memdiag.cli.reading import read
from memdiag.core.escape import one_line


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The verdicts, the references, groups, threshold, the replay folder, resampling and output."""
    groups.add_input(p)
    groups.add_choices(p, judges=True)
    p.add_argument("--reference", action="append", required=True,
                   help="reference system, e.g. raw-rag (repeatable for several references)")
    p.add_argument("--by", help="per group of this column, e.g. --by category")
    p.add_argument("--scheme", help="apply a scheme's query selection (e.g. locomo drops adversarial questions)")
    p.add_argument("--threshold", type=values.threshold, help="correct = score > THRESHOLD (default 0.5)")
    groups.add_correction(p)
    p.add_argument("--replay", metavar="DIR",
                   help="also write every query of every flow cell (benefit, tax, both, neither) with its question, "
                        "expected answer and the responses, as DIR/replay.csv and DIR/replay.jsonl")
    groups.add_resampling(p)
    groups.add_output(p)


def run(args: argparse.Namespace) -> int:
    """:func:`memdiag.flows`, and with ``--replay`` the queries of each cell (:func:`memdiag.replay`)."""
    df = prepared(args, read(args))
    emit(md.flows(df, reference=args.reference, by=args.by, options=options(args)), args)
    if args.replay:
        from memdiag.analyses.replay import write_replay

        cells = md.replay(df, args.reference)
        written = write_replay(cells, args.replay)
        print(f"memdiag flows: note: per-query replay of every flow cell written to "
              f"{one_line(written[0])} and {one_line(written[1])}", file=sys.stderr)
    return 0
