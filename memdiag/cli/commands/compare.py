"""``memdiag compare``: paired differences between systems with intervals, p and family adjustment."""

from __future__ import annotations

import argparse

import memdiag as md
from memdiag.cli import groups, values
from memdiag.cli.choices import options, pair_reference, prepared
from memdiag.cli.emit import emit
from memdiag.cli.reading import read


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The verdicts, the metric and pairs, the test, correction, resampling and output."""
    groups.add_input(p)
    groups.add_choices(p, judges=True)
    p.add_argument("--metric", default="accuracy",
                   help="accuracy (default), coverage, utilization, or a per-query column (f1, ...)")
    p.add_argument("--scheme", help="official aggregation recomputed in every replicate (locomo, meme, FILE.yaml)")
    groups.add_pairs(p)
    p.add_argument("--reference", help="reference system for --pairs reference")
    groups.add_correction(p)
    p.add_argument("--threshold", type=values.threshold, help="binarise scores at > THRESHOLD first")
    p.add_argument("--omnibus", action="store_true", help="also print the omnibus test across systems")
    p.add_argument("--by", help="every pair within each group of this column (e.g. --by category), Holm within each")
    p.add_argument("--test", choices=("difference", "equivalence", "noninferiority"), default="difference",
                   help="difference (default), equivalence within ±MARGIN (TOST), or not worse by more than MARGIN")
    p.add_argument("--margin", type=values.number("margin"), metavar="POINTS",
                   help="equivalence / non-inferiority margin in points (with --test)")
    groups.add_resampling(p)
    groups.add_output(p)


def run(args: argparse.Namespace) -> int:
    """:func:`memdiag.compare`, and :func:`memdiag.omnibus` with ``--omnibus``."""
    reference = pair_reference(args, "compare")
    df = prepared(args, read(args), metric=args.metric)
    opts = options(args)
    table = md.compare(df, metric=args.metric, reference=reference, by=args.by, test=args.test, margin=args.margin, options=opts)
    frames = [table]
    if args.omnibus:
        frames.append(md.omnibus(df, metric=args.metric, options=opts))
    emit(frames, args)
    return 0
