"""``memdiag independence``: which pairwise conclusions of an iid analysis survive the cluster design."""

from __future__ import annotations

import argparse

import memdiag as md
from memdiag.cli import groups, values
from memdiag.cli.choices import alpha_options, options, pair_reference, prepared
from memdiag.cli.emit import emit
from memdiag.cli.reading import read


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The verdicts, the pairs and metric, α, correction, resampling and output."""
    groups.add_input(p)
    groups.add_choices(p, judges=True)
    groups.add_pairs(p)
    p.add_argument("--reference", help="reference system for --pairs reference")
    p.add_argument("--metric", default="accuracy", help="accuracy (default) or a per-query column")
    p.add_argument("--scheme", help="official aggregation (locomo, meme, FILE.yaml)")
    p.add_argument("--threshold", type=values.threshold, help="binarise scores at > THRESHOLD first")
    groups.add_alpha(p, "significance level of the adjusted p; sets the confidence level to 1 − ALPHA")
    groups.add_correction(p)
    groups.add_resampling(p)
    groups.add_output(p)


def run(args: argparse.Namespace) -> int:
    """:func:`memdiag.audit_independence`."""
    reference = pair_reference(args, "independence")
    df = prepared(args, read(args), metric=args.metric)
    emit(md.audit_independence(df, metric=args.metric, reference=reference,
                               options=alpha_options(args, options(args))), args)
    return 0
