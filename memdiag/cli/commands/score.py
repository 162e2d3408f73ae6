"""``memdiag score``: official benchmark scores per system (overall and per group)."""

from __future__ import annotations

import argparse

import memdiag as md
from memdiag.cli import groups
from memdiag.cli.choices import options, prepared
from memdiag.cli.emit import emit
from memdiag.cli.reading import read


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The verdicts, the scheme and metric, resampling (0 replicates: point estimates) and output."""
    groups.add_input(p)
    groups.add_choices(p, judges=True)
    p.add_argument("--scheme", help="built-in scheme name or a YAML/JSON scheme file (default: locomo for LoCoMo "
                                    "rows, else mean)")
    p.add_argument("--metric", default="score", help="per-query column to score (score, f1, bleu, ...)")
    groups.add_resampling(p, allow_zero=True)
    groups.add_output(p)


def run(args: argparse.Namespace) -> int:
    """:func:`memdiag.score`."""
    df = prepared(args, read(args), metric=args.metric)
    emit(md.score(df, metric=args.metric, options=options(args)), args)
    return 0
