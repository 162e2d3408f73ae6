"""``memdiag fragility``: how many verdict flips or removed conversations overturn each comparison."""

from __future__ import annotations

import argparse

import memdiag as md
from memdiag.cli import groups, values
from memdiag.cli.choices import options, pair_reference, prepared
from memdiag.cli.emit import emit
from memdiag.cli.reading import read


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The verdicts, the pairs and metric, the exact search's budget, the level and output."""
    groups.add_input(p)
    groups.add_choices(p, judges=True)
    p.add_argument("--scheme", help="the benchmark scheme whose queries are counted (locomo, meme, FILE.yaml)")
    groups.add_pairs(p)
    p.add_argument("--reference", help="reference system for --pairs reference")
    p.add_argument("--metric", default="accuracy",
                   help="accuracy (default), coverage or a per-query column (f1, ...): flips need 0/1 values")
    p.add_argument("--threshold", type=values.threshold,
                   help="accuracy: correct when the score is > THRESHOLD (graded scores: 0.5 unless given)")
    p.add_argument("--max-subsets", type=int, default=200_000, metavar="N",
                   help="refits the exact search over removed clusters may use before the AMIP approximation")
    groups.add_level(p, "confidence level: alpha = 1 - level")
    groups.add_output(p)


def run(args: argparse.Namespace) -> int:
    """:func:`memdiag.fragility`."""
    df = prepared(args, read(args))
    emit(md.fragility(df, reference=pair_reference(args, "fragility"), metric=args.metric,
                      max_subsets=args.max_subsets, options=options(args)), args)
    return 0
