"""``memdiag rank``: how stable the ranking is — each system's bootstrap rank distribution."""

from __future__ import annotations

import argparse

import memdiag as md
from memdiag.cli import groups, values
from memdiag.cli.choices import options, prepared
from memdiag.cli.emit import emit
from memdiag.cli.reading import read


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The verdicts, the metric and its direction, resampling and output."""
    groups.add_input(p)
    groups.add_choices(p, judges=True)
    p.add_argument("--metric", default="accuracy", help="accuracy (default) or a per-query column (f1, ...)")
    p.add_argument("--scheme", help="official aggregation recomputed in every replicate (locomo, meme, FILE.yaml)")
    p.add_argument("--threshold", type=values.threshold, help="binarise scores at > THRESHOLD first")
    p.add_argument("--lower-is-better", action="store_true", help="rank 1 is the smallest value (e.g. a cost)")
    groups.add_resampling(p)
    groups.add_output(p)


def run(args: argparse.Namespace) -> int:
    """:func:`memdiag.rank_stability`."""
    df = prepared(args, read(args), metric=args.metric)
    emit(md.rank_stability(df, metric=args.metric,
                           higher_is_better=not args.lower_is_better, options=options(args)), args)
    return 0
