"""Judge policies (SPEC §1.3): which judgments of an answer make its score — the mean over judges,
one judge by name, or a judge-repeat rule publishers use (``majority``, ``repeat:K``).

:func:`memdiag.panel.align.align` applies them (:func:`judge_policy`) and records what each did in
the panel's notes.
"""

from __future__ import annotations

import pandas as pd

from memdiag.errors import VerdictError, listing
from memdiag.io.schema import JUDGE

__all__ = ["JUDGES_MAJORITY", "JUDGES_MEAN", "JUDGES_REPEAT", "judge_policy", "judges_of", "repeat_rule"]


#: The judge policies of :func:`align`: the mean over judges, or one judge by name.
JUDGES_MEAN = "mean"
#: The judge-repeat rules publishers use (SPEC §1.3): the per-run mean over judgments is ``mean``;
#: ``majority`` scores an answer 1 when more than half of its judgments say correct; ``repeat:K``
#: keeps judgment K (0-based) of every answer only.
JUDGES_MAJORITY = "majority"
JUDGES_REPEAT = "repeat:"


def repeat_rule(judges: object) -> int | str | None:
    """The judge-repeat rule a judge policy names: ``"majority"``, a repeat number for
    ``"repeat:K"``, or None (``mean``, a judge's name, None).

    >>> repeat_rule("majority"), repeat_rule("repeat:2"), repeat_rule("mean")
    ('majority', 2, None)
    """
    if judges == JUDGES_MAJORITY:
        return JUDGES_MAJORITY
    if isinstance(judges, str) and judges.startswith(JUDGES_REPEAT):
        number = judges[len(JUDGES_REPEAT):]
        if not number.isdigit():
            raise VerdictError(f"judges={judges!r}: a single judgment is named repeat:K with K a repeat number "
                               "(0 for the first judgment), e.g. repeat:0.")
        return int(number)
    return None


def judges_of(df: pd.DataFrame) -> list[str]:
    """The judges named in the ``judge`` column (sorted; [] without one)."""
    return sorted(map(str, pd.unique(df[JUDGE].dropna()))) if JUDGE in df else []


def judge_policy(df: pd.DataFrame, judges: str | None, notes: list[dict]) -> tuple[pd.DataFrame, bool]:
    """Apply the judge policy: the rows to align, and whether to average over judges."""
    names = judges_of(df)
    if judges is not None and not isinstance(judges, str):
        raise VerdictError(f"judges must be 'mean', 'majority', 'repeat:K' or a judge's name, got {judges!r}.")
    rule = repeat_rule(judges)
    if rule is not None:
        return repeat_policy(df, rule, names, notes), len(names) >= 2
    if len(names) < 2:
        if judges not in (None, JUDGES_MEAN) and judges not in names:
            raise VerdictError(f"judges={judges!r}: the verdicts name no such judge "
                               f"({', '.join(names) or 'no judge column'}).")
        return df, False
    if judges is None:
        raise VerdictError(f"the verdicts hold {len(names)} judges of the same answers ({', '.join(names)}): "
                           "choose how to score them: judges='mean' (the mean over judges) or one judge's "
                           "name (CLI: --judges mean | --judges NAME; Python: md.prepare(df, judges=...)).")
    if judges == JUDGES_MEAN:
        notes.append({"policy": "judges mean", "count": len(names),
                      "detail": f"each answer scored by the mean over its judges ({', '.join(names)})"})
        return df, True
    if judges not in names:
        raise VerdictError(f"judges={judges!r} is not a judge of these verdicts ({', '.join(names)}). "
                           "Use one of them or 'mean'.")
    labelled = df[JUDGE].notna()
    judged = set(df.loc[df[JUDGE] == judges, "system"])
    lacking = sorted(set(df.loc[labelled, "system"]) - judged)
    if lacking:
        raise VerdictError(f"judges={judges!r}: system(s) {', '.join(lacking)} have verdicts by other judges "
                           f"but none by {judges}. Use judges='mean' or another judge.")
    keep = (df[JUDGE] == judges) | ~labelled
    notes.append({"policy": f"judges {judges}", "count": int((~keep).sum()),
                  "detail": f"scores from judge {judges} only ({int((~keep).sum())} verdicts of "
                            f"{', '.join(n for n in names if n != judges)} left out)"})
    return df[keep], False


def repeat_policy(df: pd.DataFrame, rule: int | str, names: list[str], notes: list[dict]) -> pd.DataFrame:
    """The rows a judge-repeat rule keeps (``repeat:K``: repeat K only, answers without it counted),
    with its note; ``majority`` keeps every row (the vote is taken in :func:`align`)."""
    over = f" of each judge, then the mean over judges ({', '.join(names)})" if len(names) >= 2 else ""
    if rule == JUDGES_MAJORITY:
        notes.append({"policy": "judges majority", "count": 0,
                      "detail": "each answer scored 1 when more than half of its judgments are correct, else 0 "
                                "(the per-question majority vote; a tie scores 0)"
                                + (" over the judgments of all its judges" if len(names) >= 2 else "")})
        return df
    keys = ["system", "query_id"] + ([JUDGE] if JUDGE in df else [])
    kept = df[df["repeat"] == rule]
    if kept.empty:
        raise VerdictError(f"judges='repeat:{rule}': no verdict has repeat {rule} (repeats: "
                           f"{listing(sorted(pd.unique(df['repeat'])))}). Choose one of them.")
    answers = df.drop_duplicates(keys)[keys]
    lacking = len(answers) - len(kept.drop_duplicates(keys))
    notes.append({"policy": f"judges repeat:{rule}", "count": int(len(df) - len(kept)),
                  "detail": f"each answer scored by its judgment {rule} alone{over} ({len(df) - len(kept)} other "
                            "judgments left out" + (f"; {lacking} answers have no judgment {rule} and count as "
                                                    "missing queries" if lacking else "") + ")"})
    return kept
