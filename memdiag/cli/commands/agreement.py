"""``memdiag agreement``: judge reliability across repetitions or judges, and the missing-verdict effect."""

from __future__ import annotations

import argparse

import memdiag as md
from memdiag.cli import groups, values
from memdiag.cli.choices import options, prepared
from memdiag.cli.emit import emit
from memdiag.cli.reading import read


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The verdicts, the raters and judges, threshold, resampling (no design) and output."""
    groups.add_input(p)
    groups.add_choices(p)
    p.add_argument("--by", choices=("repeat", "judge"),
                   help="raters are repetitions or judges (default: judges when the data name several)")
    p.add_argument("--judges", metavar="mean | NAME",
                   help="several judges: the missing-verdict effect per judge (default; also with mean) or of "
                        "one judge; the agreement table always compares them all")
    p.set_defaults(verdict_missing="exclude")  # agreement leaves missing verdicts out, counted (issue 14)
    p.add_argument("--threshold", type=values.threshold, help="correct = score > THRESHOLD (default 0.5)")
    groups.add_resampling(p, inference=False, design=False)  # κ intervals resample answers: no design to follow
    groups.add_output(p)


def run(args: argparse.Namespace) -> int:
    """:func:`memdiag.agreement` and :func:`memdiag.missing_verdict_effect` (per judge when several)."""
    df = read(args)
    several = "judge" in df and df["judge"].dropna().nunique() > 1
    by = args.by or ("judge" if several else "repeat")
    # --threshold, --missing and --judges are data choices: the verdicts prepared with them carry them
    # (several judges without --judges: the effect per judge, as on the verdicts themselves). Both
    # functions weigh missing verdicts themselves (--verdict-missing is agreement's, per rater), so the
    # alignment scores them 0 and leaves every query in.
    chosen = (df if args.threshold is None and args.missing == "error" and args.judges is None
              else prepared(args, df, judges=args.judges or ("mean" if several else None), verdict_missing="as-wrong"))
    emit([md.agreement(chosen, by=by, verdict_missing=args.verdict_missing, options=options(args)),
          md.missing_verdict_effect(chosen)], args)
    return 0
