"""``memdiag path``: P(path | result) — how often a system keeps the path to a result it covers."""

from __future__ import annotations

import argparse

import memdiag as md
from memdiag.cli import groups
from memdiag.cli.choices import options, prepared
from memdiag.cli.emit import emit
from memdiag.cli.reading import read


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The verdicts, the categories and phase kept, inconsistent rows, resampling and output."""
    groups.add_input(p)
    groups.add_choices(p, judges=True)
    p.add_argument("--categories", metavar="A,B,...", help="keep only these categories, e.g. Tr,Cas (MEME)")
    p.add_argument("--phase", default="after", help="keep this phase when the data have one (default after; all)")
    p.add_argument("--allow-inconsistent", action="store_true",
                   help="count rows with path_covered = 1 and result_covered = 0 instead of refusing them")
    groups.add_resampling(p)
    groups.add_output(p)


def run(args: argparse.Namespace) -> int:
    """:func:`memdiag.path_given_result`."""
    df = prepared(args, read(args))
    categories = [c.strip() for c in args.categories.split(",") if c.strip()] if args.categories else None
    emit(md.path_given_result(df, categories=categories, phase=None if args.phase == "all" else args.phase,
                              allow_inconsistent=args.allow_inconsistent, options=options(args)), args)
    return 0
