"""``memdiag audit``: published claims checked against the verdicts, or a paper's published numbers
alone (``--summaries``); exit 1 when a claim is not supported or a check is flagged."""

from __future__ import annotations

import argparse

import memdiag as md
from memdiag.cli import groups
from memdiag.cli.choices import alpha_options, options, prepared
from memdiag.cli.emit import emit
from memdiag.cli.reading import read
from memdiag.cli.usage import UsageError
from memdiag.core.checks import alpha_of
from memdiag.core.notes import Note


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The claims file or summaries, the verdicts, α, resampling (no design: each claim's own) and output."""
    p.add_argument("claims", metavar="CLAIMS", nargs="?", help="claims file (YAML or CSV)")
    p.add_argument("--summaries", metavar="YAML",
                   help="audit published numbers without verdicts: granularity, McNemar p bounds, power, p at a "
                        "bootstrap floor, family adjustment, aggregates (docs/spec.md §7.7)")
    p.add_argument("--details", action="store_true", help="with --summaries: also print each check's full table")
    groups.add_input(p, option="--verdicts")
    groups.add_choices(p)
    groups.add_alpha(p, "significance level of the family-adjusted p, Holm within each family; the intervals "
                        "are then at the level 1 − alpha (a --ci that disagrees is an error)",
              also="; with --summaries and neither --alpha nor --ci given: the file's alpha")
    groups.add_resampling(p, design=False)  # each claim's design is its own (the claims file's, or its scheme's)
    groups.add_output(p)


def run(args: argparse.Namespace) -> int:
    """:func:`memdiag.audit_claims` (or :func:`memdiag.audit_summaries` with ``--summaries``)."""
    if args.summaries:
        return _summaries(args)
    if not args.claims:
        raise UsageError("give a claims file (memdiag audit CLAIMS --verdicts FILES) or --summaries YAML")
    df = read(args)
    if (args.missing, args.verdict_missing) != ("error", "as-wrong"):  # every claim's rows get these policies
        df = prepared(args, df)
    table = md.audit_claims(df, args.claims, options=alpha_options(args, options(args)))
    emit(table, args)
    return 0 if (table["verdict"] == "supported").all() else 1


def _summaries(args: argparse.Namespace) -> int:
    """``memdiag audit --summaries FILE``: the published numbers alone, no verdicts."""
    if args.claims or args.files or args.recipe:
        raise UsageError("--summaries audits published numbers alone: drop the claims file and --verdicts")
    level = args.alpha if args.alpha is not None else None if args.ci is None else alpha_of(args.ci)
    table = md.audit_summaries(args.summaries, alpha=level)
    frames = [table]
    if args.details:
        for name, detail in table.attrs["details"].items():
            if detail is not None:
                detail = detail.copy()
                detail.attrs = {**detail.attrs, "notes": [Note(f"check {name}", code="summary-check")] + list(detail.attrs.get("notes", []))}
                frames.append(detail)
    emit(frames, args)
    return 1 if (table["verdict"] == "flagged").any() else 0
