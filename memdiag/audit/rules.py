"""Which judge-repeat rule produced a published number? (SPEC §7.4, "Judge-repeat rules").

One job: given one system's verdicts with judge repeats (three judgments of every answer, as
LoCoMo harnesses make them) and a published overall, recompute the overall under each rule
publishers use — the per-run mean over judgments (``mean``), the per-question majority vote
(``majority``) and each single judgment (``repeat:K``) — and say which reproduce the number.
:func:`memdiag.check_aggregate` calls it when given ``verdicts=``.
"""

from __future__ import annotations

import pandas as pd

from memdiag.analyses.scoring import score
from memdiag.core.kinds import declare
from memdiag.core.notes import Note
from memdiag.core.result import as_result
from memdiag.engine.options import NO_RESAMPLING
from memdiag.errors import VerdictError
from memdiag.io.canonical import check
from memdiag.panel.judges import JUDGES_MAJORITY, JUDGES_MEAN, JUDGES_REPEAT
from memdiag.panel.prepare import prepare

#: Default tolerance against one published number, in points: a score printed with two decimals is
#: off its exact value by at most half a unit in the last place.
ROUNDING_TOLERANCE = 0.005

#: The columns of a rule table, in order.
RULE_COLUMNS: tuple[str, ...] = ("system", "rule", "n", "judgments", "recomputed", "reported", "difference",
                                 "tolerance", "consistent", "status")


def rule_names(verdicts: pd.DataFrame) -> list[str]:
    """The rules to try on ``verdicts``: mean, majority, and repeat:K for every repeat present.

    >>> rule_names(pd.DataFrame({"system": ["a"] * 2, "query_id": ["q"] * 2, "score": [1, 0], "repeat": [0, 1]}))
    ['mean', 'majority', 'repeat:0', 'repeat:1']
    """
    repeats = sorted(int(r) for r in pd.unique(verdicts["repeat"])) if "repeat" in verdicts else [0]
    return [JUDGES_MEAN, JUDGES_MAJORITY] + [f"{JUDGES_REPEAT}{r}" for r in repeats]


def check_rules(verdicts: pd.DataFrame, system: str | None, reported: float, *, scheme: str | None = None,
                tolerance: float | None = None) -> pd.DataFrame:
    """Recompute one system's overall under every judge-repeat rule and compare with ``reported``.

    Parameters
    ----------
    verdicts
        Canonical verdicts with a ``repeat`` column (the judgments of each answer).
    system
        The system the published number is about (None: the only system of ``verdicts``).
    reported
        The published overall, in points.
    scheme
        A benchmark scheme whose selection and aggregation apply (None: the question-weighted
        mean over every query).
    tolerance
        Largest |reported − recomputed| counted consistent, in points (default 0.005: one
        number printed with two decimals).

    Returns
    -------
    pandas.DataFrame
        One row per rule (``mean``, ``majority``, ``repeat:0`` ...): ``system, rule, n`` (queries),
        ``judgments`` (judgments per answer, min-max), ``recomputed, reported, difference``
        (reported − recomputed), ``tolerance, consistent, status``. ``attrs["notes"]`` says which
        rules reproduce the number, ``attrs["consistent_rules"]`` lists them.

    Raises
    ------
    VerdictError
        Bad verdicts, an unknown system, or several systems and no ``system``.

    References
    ----------
    SPEC §1.3 (judge-repeat rules) and SPEC §7.4 (aggregate consistency).

    Examples
    --------
    Three judgments of four answers: 2/3, 3/3, 0/3 and 1/3 correct. The per-run mean is 6/12 = 50,
    the majority vote 2/4 = 50 (a, b); judgment 0 alone is 1, 1, 0, 0 (50), judgment 1 is
    1, 1, 0, 1 (75), judgment 2 is 0, 1, 0, 0 (25):

    >>> df = pd.DataFrame({"system": "s", "query_id": [q for q in "abcd" for _ in range(3)],
    ...                    "repeat": [0, 1, 2] * 4, "score": [1, 1, 0, 1, 1, 1, 0, 0, 0, 0, 1, 0]})
    >>> table = check_rules(df, "s", 50.0)
    >>> table[["rule", "recomputed", "status"]].round(2).to_dict("records")  # doctest: +NORMALIZE_WHITESPACE
    [{'rule': 'mean', 'recomputed': 50.0, 'status': 'consistent'},
     {'rule': 'majority', 'recomputed': 50.0, 'status': 'consistent'},
     {'rule': 'repeat:0', 'recomputed': 50.0, 'status': 'consistent'},
     {'rule': 'repeat:1', 'recomputed': 75.0, 'status': 'mismatch'},
     {'rule': 'repeat:2', 'recomputed': 25.0, 'status': 'mismatch'}]
    """
    df = check(verdicts)
    systems = sorted(pd.unique(df["system"]))
    if system is None:
        if len(systems) > 1:
            raise VerdictError(f"check_aggregate: the verdicts hold {len(systems)} systems ({', '.join(systems)}); "
                               "name the one the published number is about (system=...).")
        system = systems[0]
    if system not in systems:
        raise VerdictError(f"check_aggregate: system {system!r} is not in the verdicts ({', '.join(systems)}).")
    df = df[df["system"] == system]
    tolerance = ROUNDING_TOLERANCE if tolerance is None else float(tolerance)
    per_answer = df.groupby(["query_id"] + (["judge"] if "judge" in df else []), dropna=False).size()
    judgments = f"{per_answer.min()}" if per_answer.min() == per_answer.max() else \
        f"{per_answer.min()}-{per_answer.max()}"
    rows = []
    for rule in rule_names(df):
        prepared = prepare(df, scheme=scheme, judges=rule, missing="drop")
        value = float(score(prepared, options=NO_RESAMPLING)["overall"].iloc[0])
        difference = float(reported) - value
        consistent = abs(difference) <= tolerance + 1e-9
        rows.append({"system": system, "rule": rule, "n": prepared.n, "judgments": judgments, "recomputed": value,
                     "reported": float(reported), "difference": difference, "tolerance": tolerance,
                     "consistent": consistent, "status": "consistent" if consistent else "mismatch"})
    out = pd.DataFrame(rows, columns=list(RULE_COLUMNS))
    hits = out.loc[out["consistent"], "rule"].tolist()
    notes = [Note(f"{system}: {reported:g} is reproduced by " + (", ".join(hits) if hits else "no judge-repeat rule")
                  + f" (within {tolerance:g} points)", code="judge-rule-reproduces", concerns=(system,))]
    if len(hits) > 1:
        notes.append(Note(f"{len(hits)} rules give {reported:g} within the tolerance: the number alone cannot tell "
                          "them apart", code="judge-rules-ambiguous", severity="caution"))
    for _, row in out[~out["consistent"]].iterrows():
        notes.append(Note(f"{row['rule']} gives {row['recomputed']:.2f} (mismatch)", code="judge-rule-mismatch"))
    out.attrs = {"notes": notes, "consistent_rules": hits, "system": system}
    return as_result(out, declare(points=("recomputed", "reported", "difference", "tolerance")))
