"""``memdiag costs``: latency, tokens and LLM calls per system, cost per correct answer, and ratios
(speed-ups) with intervals."""

from __future__ import annotations

import argparse

import memdiag as md
from memdiag.cli import groups, values
from memdiag.cli.choices import options, pair_reference, prepared
from memdiag.cli.emit import emit
from memdiag.cli.reading import read


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The verdicts, the cost columns and ratios, the systems table and ingestion log, resampling and output."""
    groups.add_input(p)
    groups.add_choices(p, judges=True)
    p.add_argument("--quantity", action="append", metavar="COLUMN",
                   help="a per-query cost column (repeatable; default: latency_s, input_tokens, output_tokens, "
                        "evidence_tokens, tokens_used, llm_calls, ... as present)")
    p.add_argument("--reference", help="ratios of every system's mean cost to this system's (speed-ups)")
    groups.add_pairs(p, "reference")
    p.add_argument("--scheme", help="apply a scheme's query selection (e.g. locomo drops adversarial questions)")
    p.add_argument("--threshold", type=values.threshold, help="cost per correct answer: correct = score > THRESHOLD "
                                                             "(default: the score as it is)")
    groups.add_correction(p)
    p.add_argument("--systems-table", metavar="CSV", help="system-level costs (ingestion hours and tokens, ...) "
                                                          "with their ratios to --reference")
    p.add_argument("--ingestion-log", metavar="LOG", help="per-item ingestion durations (CSV or JSONL): "
                                                          "total ingestion time per system")
    groups.add_resampling(p)
    groups.add_output(p)


def run(args: argparse.Namespace) -> int:
    """:func:`memdiag.costs`, :func:`memdiag.cost_ratios`, :func:`memdiag.system_costs` and
    :func:`memdiag.ingestion`, as the options ask."""
    df = prepared(args, read(args))
    opts = options(args)
    frames = [md.costs(df, quantities=args.quantity, options=opts)]
    if args.reference or args.pairs == "all":
        frames.append(md.cost_ratios(df, quantities=args.quantity, reference=pair_reference(args, "costs"),
                                     options=opts))
    if args.systems_table:
        from memdiag.io.systems_table import read_systems_table

        frames.append(md.system_costs(read_systems_table(args.systems_table), reference=args.reference))
    if args.ingestion_log:
        frames.append(md.ingestion(md.read_ingestion_log(args.ingestion_log), reference=args.reference))
    emit(frames, args)
    return 0
