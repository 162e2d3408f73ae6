"""``memdiag power``: the smallest difference each comparison can detect, and its power, under its design."""

from __future__ import annotations

import argparse

import memdiag as md
from memdiag.cli import groups, values
from memdiag.cli.choices import alpha, options, pair_reference, prepared
from memdiag.cli.emit import emit
from memdiag.cli.reading import read


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The verdicts, the pairs and metric, α, the power and differences, resampling (no interval) and output."""
    groups.add_input(p)
    groups.add_choices(p, judges=True)
    p.add_argument("--reference", help="compare every system with this one (--pairs reference, the default)")
    groups.add_pairs(p, "reference")
    p.add_argument("--metric", default="accuracy", help="accuracy (default) or a per-query column")
    p.add_argument("--scheme", help="official aggregation (locomo, meme, FILE.yaml)")
    p.add_argument("--threshold", type=values.threshold, help="binarise scores at > THRESHOLD first")
    groups.add_alpha(p, "two-sided level per comparison", ci=False)
    p.add_argument("--power", type=values.power, default=0.8, help="power of the detectable difference (default 0.8)")
    p.add_argument("--delta", type=values.delta, action="append", metavar="POINTS",
                   help="also the power at this true difference in points (repeatable)")
    groups.add_resampling(p, ci=False)  # the detectable difference and power use --alpha and --power, no interval
    groups.add_output(p)


def run(args: argparse.Namespace) -> int:
    """:func:`memdiag.compare`, then the power of each comparison (:func:`memdiag.comparison_power`)."""
    reference = pair_reference(args, "power")
    df = prepared(args, read(args), metric=args.metric)
    opts = options(args)
    compared = md.compare(df, metric=args.metric, reference=reference, options=opts)
    emit(md.comparison_power(compared, alpha=alpha(args, opts), power=args.power, delta=args.delta), args)
    return 0
