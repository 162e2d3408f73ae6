"""``memdiag report``: the whole analysis as a folder — report.md and .html, figures, tables and
analysis.json (or an earlier report's analysis re-run with ``--rerun``)."""

from __future__ import annotations

import argparse

from memdiag.cli import groups, values
from memdiag.cli.choices import data_choices, options
from memdiag.cli.reading import key_values, read, read_options
from memdiag.cli.usage import UsageError


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The verdicts, the reference and folder, the side inputs, threshold, correction, short names,
    ``--rerun``, ``--force`` and resampling."""
    groups.add_input(p)
    groups.add_choices(p, judges=True)
    p.add_argument("--reference", help="reference system of the flows and the forest plot, e.g. raw-rag")
    p.add_argument("--out", required=True, metavar="DIR", help="report folder (replaced only if it is an earlier report)")
    p.add_argument("--scheme", help="official aggregation (locomo, meme, FILE.yaml), recomputed in every replicate")
    p.add_argument("--systems-table", metavar="CSV", help="system-level table: tokens_per_query, store_tokens, ...")
    p.add_argument("--claims", metavar="YAML", help="claims file to audit (YAML, JSON or CSV)")
    p.add_argument("--write-log", metavar="LOG", help="memory decision log (CSV or JSONL) for the write-action audit")
    p.add_argument("--ingestion-log", metavar="LOG",
                   help="per-item ingestion durations (CSV or JSONL) for the cumulative ingestion time")
    p.add_argument("--threshold", type=values.threshold, default=0.5,
                   help="flows: correct = score > THRESHOLD (default 0.5)")
    groups.add_correction(p)
    groups.add_alias(p)
    p.add_argument("--rerun", action="store_true",
                   help="FILES is the analysis.json of an earlier report: re-run it exactly into --out")
    groups.add_force(p, "an --out folder that holds files memdiag did not write (they are deleted)")
    groups.add_resampling(p)


def run(args: argparse.Namespace) -> int:
    """:func:`memdiag.report` (or :func:`memdiag.report_from_json` with ``--rerun``); prints the
    path of report.html."""
    from memdiag.reporting import report, report_from_json
    from memdiag.reporting.publish import resolve_target
    from memdiag.tables.aliases import alias_options

    resolve_target(args.out, args.force)  # before reading anything: a refused --out costs nothing
    if args.rerun:
        if len(args.files) != 1:
            raise UsageError("--rerun takes one analysis.json: memdiag report --rerun DIR/analysis.json --out NEW")
        out = report_from_json(args.files[0], args.out, force=args.force)
    else:
        if not args.reference:
            raise UsageError("report needs --reference NAME (e.g. --reference raw-rag)")
        df = read(args)
        out = report(df, args.reference, args.out, prepare=data_choices(args), options=options(args),
                     labels=alias_options(key_values(args.alias, "--alias"), df) or None,
                     systems_table=args.systems_table, claims=args.claims, write_log=args.write_log,
                     ingestion_log=args.ingestion_log, read_options=read_options(args), force=args.force)
    print(out / "report.html")
    return 0
