"""``memdiag leaderboard``: systems in tiers statistically tied with the best, with rank intervals."""

from __future__ import annotations

import argparse

import memdiag as md
from memdiag.cli import groups, values
from memdiag.cli.choices import options, prepared
from memdiag.cli.emit import emit
from memdiag.cli.reading import read


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The verdicts, the metric, the tie margin, correction, resampling and output."""
    groups.add_input(p)
    groups.add_choices(p, judges=True)
    p.add_argument("--metric", default="accuracy", help="accuracy (default), coverage, utilization, or a column")
    p.add_argument("--scheme", help="official aggregation recomputed in every replicate (locomo, meme, FILE.yaml)")
    p.add_argument("--margin", type=values.number("margin"), metavar="POINTS",
                   help="also tie a system shown not worse than its tier's leader by more than POINTS")
    groups.add_correction(p)
    p.add_argument("--threshold", type=values.threshold, help="binarise scores at > THRESHOLD first")
    groups.add_resampling(p)
    groups.add_output(p)


def run(args: argparse.Namespace) -> int:
    """:func:`memdiag.leaderboard`."""
    df = prepared(args, read(args), metric=args.metric)
    emit(md.leaderboard(df, metric=args.metric, margin=args.margin,
                        options=options(args)), args)
    return 0
