"""``memdiag robustness``: how every headline number moves under a change of data policy —
content-filter exclusion, the first judge call against the mean, missing verdicts as wrong
against right."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

import memdiag as md
from memdiag.cli import groups
from memdiag.cli.choices import options, prepared
from memdiag.cli.emit import emit
from memdiag.cli.query_lists import filtered
from memdiag.cli.reading import read
from memdiag.cli.usage import UsageError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: The checks of ``memdiag robustness`` and the function each runs (SPEC §7.8).
CHECKS: dict[str, str] = {"content-filter": "content_filter_sensitivity",
                          "judge-repeats": "judge_repetition_sensitivity",
                          "missing-verdicts": "missing_verdict_bounds"}


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The verdicts, the checks and the blocked answers, one judge, the scheme and reference,
    correction, resampling (0 replicates: point estimates) and output."""
    groups.add_input(p)
    groups.add_choices(p)
    p.add_argument("--check", action="append", choices=tuple(CHECKS),
                   help="content-filter (with --filtered), judge-repeats or missing-verdicts (repeatable; default: "
                        "every check the data allow)")
    p.add_argument("--filtered", metavar="COLUMN | FILE",
                   help="the answers a content filter blocked: a 0/1 column of the verdicts, or a CSV file with a "
                        "query_id column and optionally system (empty or absent: every system)")
    # the judge whose verdicts are checked: chosen here, before preparing (not a data choice of md.prepare)
    p.add_argument("--judges", dest="one_judge", metavar="NAME",
                   help="several judges of the same answers: check this judge's verdicts")
    p.add_argument("--scheme", help="official aggregation of the headline scores (locomo, meme, FILE.yaml)")
    p.add_argument("--reference", help="each system's difference from this one is a headline number too")
    groups.add_correction(p)
    groups.add_resampling(p, allow_zero=True)
    groups.add_output(p)


def _one_judge(df: pd.DataFrame, judges: str | None) -> pd.DataFrame:
    """The verdicts of one judge (``--judges NAME``), as :func:`memdiag.align` selects them; the
    frame itself when it names at most one judge."""
    from memdiag.panel.judges import judges_of

    names = judges_of(df)
    if judges is None and len(names) < 2:
        return df
    if judges is None or judges == "mean" or judges not in names:
        given = "" if judges is None else f"--judges {judges}: "
        raise UsageError(f"{given}the verdicts hold the judges {', '.join(names) or 'none'}; each check moves "
                         "one judge's verdicts: choose one with --judges NAME")
    return df[(df["judge"] == judges) | df["judge"].isna()]


def run(args: argparse.Namespace) -> int:
    """Each check asked for, or every check the data allow (:data:`CHECKS`)."""
    df = _one_judge(read(args), args.one_judge)
    frame = md.check(df)
    calls = frame.groupby(["system", "query_id"])["repeat"].nunique()
    why = {"content-filter": None if args.filtered is not None else
           "--check content-filter needs --filtered COLUMN_OR_FILE (a 0/1 column of the verdicts, or a CSV file "
           "with query_id and optionally system)",
           "judge-repeats": None if calls.max() > 1 else
           "--check judge-repeats: every answer has one judge call (no 'repeat' column with several values), so "
           "there is nothing to compare",
           "missing-verdicts": None if frame["score"].isna().any() else
           "--check missing-verdicts: no verdict is missing, so both bounds are the data"}
    checks = list(dict.fromkeys(args.check or [c for c in CHECKS if why[c] is None]))
    if not checks:
        raise UsageError("nothing to check: every answer has one judge call and no verdict is missing; give "
                         "--filtered COLUMN_OR_FILE for the content-filter check")
    refused = [why[c] for c in checks if why[c] is not None]
    if refused:
        raise UsageError(refused[0])
    if args.filtered is not None and "content-filter" not in checks:
        raise UsageError("--filtered is for --check content-filter; add that check or drop --filtered")
    data = prepared(args, frame)
    own = {"content-filter": {"filtered": filtered(args.filtered, frame)} if args.filtered is not None else {},
           "judge-repeats": {}, "missing-verdicts": {}}
    opts = options(args)
    emit([getattr(md, CHECKS[name])(data, reference=args.reference, **own[name], options=opts) for name in checks],
         args)
    return 0
