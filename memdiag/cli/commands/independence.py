"""``memdiag independence``: which pairwise conclusions of an iid analysis survive the cluster design."""

from __future__ import annotations

import argparse

import memdiag as md
from memdiag.cli import groups, values
from memdiag.cli.choices import alpha, options, prepared
from memdiag.cli.emit import emit
from memdiag.cli.reading import read
from memdiag.cli.usage import UsageError


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The verdicts, the pairs and metric, α, correction, resampling and output."""
    groups.add_input(p)
    groups.add_choices(p, judges=True)
    p.add_argument("--pairs", choices=("all", "reference"), default="all",
                   help="all pairs of systems (default), or each system against --reference")
    p.add_argument("--reference", help="reference system for --pairs reference")
    p.add_argument("--metric", default="accuracy", help="accuracy (default) or a per-query column")
    p.add_argument("--scheme", help="official aggregation (locomo, meme, FILE.yaml)")
    p.add_argument("--threshold", type=values.threshold, help="binarise scores at > THRESHOLD first")
    groups.add_alpha(p, "significance level of the adjusted p")
    groups.add_correction(p)
    groups.add_resampling(p)
    groups.add_output(p)


def run(args: argparse.Namespace) -> int:
    """:func:`memdiag.audit_independence`."""
    if args.pairs == "reference" and not args.reference:
        raise UsageError("independence --pairs reference needs --reference NAME")
    df = prepared(args, read(args), metric=args.metric)
    opts = options(args)
    emit(md.audit_independence(df, metric=args.metric, pairs=args.pairs, reference=args.reference,
                               alpha=alpha(args, opts), threshold=args.threshold, options=opts), args)
    return 0
