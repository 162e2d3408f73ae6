"""``memdiag demo``: the whole report on the bundled example data (data/example)."""

from __future__ import annotations

import argparse

from memdiag.cli import groups
from memdiag.cli.choices import options


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The report folder (or figures folder), replicates, seed and ``--force``."""
    p.add_argument("--out", default="memdiag-demo", metavar="DIR", help="report folder (default memdiag-demo)")
    p.add_argument("--figures", metavar="DIR",
                   help="write only the figures (PDF, SVG, PNG) into DIR: memdiag demo --figures figures/")
    groups.add_resampling(p, inference=False, design=False, ci=False)
    groups.add_force(p, "an --out folder that is not a memdiag report, or existing --figures files")


def run(args: argparse.Namespace) -> int:
    """:func:`memdiag.demo`; prints the report's path (or the figures folder)."""
    from memdiag.reporting import demo
    from memdiag.reporting.publish import resolve_target

    if args.figures is None:
        resolve_target(args.out, args.force)
    out = demo(out=args.out, figures=args.figures, options=options(args), force=args.force)
    print(out if args.figures else out / "report.html")
    return 0
