"""Aggregate consistency: does a published overall score follow from its category scores? (SPEC §7.4).

One job: :func:`check_aggregate` recomputes an overall score from published per-category scores
and question counts — question-weighted, macro-averaged, or by a scheme's official weights and
exclusions — and flags a reported overall that differs by more than rounding allows. Category
*names* are conventions (SPEC §6.2): given ``convention=``, the counts come from the integer each
published name stands for under that convention, and ``convention="infer"`` tries every known
convention and every assignment of the benchmark's counts to the published scores (Mem0's LoCoMo
66.88 follows from its categories under Mem0's own naming, 66.879, and under no other of the 24
assignments; under the LoCoMo paper's naming they give 62.14). It works on published numbers
only; no verdicts are read.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from memdiag.core.kinds import declare
from memdiag.core.notes import Note
from memdiag.core.result import as_result
from memdiag.errors import SchemeError, VerdictError
from memdiag.panel import conventions as _conventions
from memdiag.panel.schemes import get_scheme

#: Default tolerance of :func:`check_aggregate`, in points (see its Notes).
AGGREGATE_TOLERANCE = 0.01

#: The columns of a :func:`check_aggregate` table, in order.
COLUMNS: tuple[str, ...] = ("convention", "assignment", "weighting", "n_categories", "n", "recomputed", "reported",
                            "difference", "tolerance", "consistent", "status")
#: Their kinds (scores in points).
KINDS = declare(count=("n_categories", "n"), points=("recomputed", "reported", "difference", "tolerance"))


def _series(values: Mapping | Sequence | pd.Series, name: str) -> pd.Series:
    out = pd.Series(values, dtype=float) if not isinstance(values, pd.Series) else values.astype(float)
    if out.isna().any() or len(out) == 0:
        raise VerdictError(f"check_aggregate: {name} must be numbers, one per category (got {values!r}).")
    out.index = out.index.map(str)
    return out


def _aggregate_weights(scores: pd.Series, counts: pd.Series | None, weighting: str) -> tuple[pd.Series, list[str]]:
    """Weight per category (summing to 1) and notes, for question, macro or a scheme's weighting."""
    def by_count(kept: pd.Index) -> pd.Series:
        if counts is None:
            raise VerdictError(f"check_aggregate: weighting '{weighting}' weights categories by their "
                               "question counts; pass counts.")
        return counts[kept] / counts[kept].sum()

    if weighting == "question":
        return by_count(scores.index), []
    if weighting == "macro":
        return pd.Series(1.0 / len(scores), index=scores.index), []
    scheme = get_scheme(weighting)
    label = {c: scheme.canonical(c) for c in scores.index}
    notes = []
    if scheme.group_weights is not None:
        given = {label[c]: c for c in scores.index}
        lacking = [g for g in scheme.group_weights if g not in given]
        if lacking:
            raise SchemeError(f"scheme '{scheme.name}' weights {', '.join(lacking)}, which the category "
                              f"scores lack (have: {', '.join(scores.index)}).")
        weights = pd.Series({given[g]: w for g, w in scheme.group_weights.items()})
        kept = weights.index
    else:
        kept = pd.Index([c for c in scores.index if label[c] not in scheme.exclude
                         and (scheme.include is None or label[c] in scheme.include)])
        weights = by_count(kept)
    dropped = [c for c in scores.index if c not in kept]
    if dropped:
        notes.append(Note(f"scheme {scheme.name} leaves out {', '.join(dropped)}", code="scheme-selection"))
    return weights.reindex(scores.index, fill_value=0.0), notes


def _row(scores: pd.Series, count_series: pd.Series | None, reported: float, weighting: str,
         tolerance: float) -> tuple[dict, pd.Series, list[str]]:
    """One recomputation: the table row, the weights and the notes."""
    weights, notes = _aggregate_weights(scores, count_series, weighting)
    recomputed = float((weights * scores).sum())
    difference = reported - recomputed
    consistent = abs(difference) <= tolerance + 1e-9
    used = weights[weights > 0].index
    n = float(count_series[used].sum()) if count_series is not None else np.nan
    if count_series is not None and (count_series == count_series.round()).all():
        n = int(n)
    return ({"weighting": weighting, "n_categories": len(used), "n": n, "recomputed": recomputed,
             "reported": reported, "difference": difference, "tolerance": tolerance, "consistent": consistent,
             "status": "consistent" if consistent else "mismatch"}, weights, notes)


def _assignment_text(scores: pd.Series, integers: Sequence[int], table: Mapping[int, int]) -> str:
    """``single-hop = 1 (282), ...``: each published name with the integer and count it is given."""
    return ", ".join(f"{name} = {k} ({table[k]})" for name, k in zip(scores.index, integers))


def _by_convention(scores: pd.Series, reported: float, tolerance: float, convention: str,
                   benchmark: str) -> pd.DataFrame:
    """Rows for one named convention, or for every convention and assignment (``"infer"``)."""
    table = _conventions.counts(benchmark)
    known = _conventions.conventions(benchmark)
    named = {}                                    # the integers each convention gives the names
    for name, conv in known.items():
        integers = tuple(_conventions.integer_of(label, name, benchmark) for label in scores.index)
        if None not in integers and len(set(integers)) == len(integers):
            named[name] = integers
    if convention != "infer":
        chosen = _conventions.convention(convention, benchmark).name
        if chosen not in named:
            unknown = [label for label in scores.index if _conventions.integer_of(label, chosen, benchmark) is None]
            raise VerdictError(f"check_aggregate: under the {chosen} convention ({_describe(known[chosen])}) "
                               f"{', '.join(repr(u) for u in unknown) or 'two categories'} name no distinct "
                               "category. Check the names, or use convention='infer'.")
        candidates = [named[chosen]]
    else:
        pool = sorted(_conventions.counts(benchmark, scored=True))
        if len(scores) > len(pool):
            pool = sorted(table)
        candidates = list(itertools.permutations(pool, len(scores)))
        candidates += [v for v in named.values() if v not in candidates]
    rows = []
    for integers in candidates:
        counts = pd.Series([float(table[k]) for k in integers], index=scores.index)
        row, _, _ = _row(scores, counts, reported, "question", tolerance)
        names = [name for name, v in named.items() if v == integers]
        rows.append({"convention": ", ".join(names) if names else None,
                     "assignment": _assignment_text(scores, integers, table), **row})
    out = pd.DataFrame(rows, columns=list(COLUMNS))
    out["_gap"] = out["difference"].abs()
    out = out.sort_values(["consistent", "_gap"], ascending=[False, True], kind="stable")
    return out.drop(columns="_gap").reset_index(drop=True)


def _describe(conv: _conventions.Convention) -> str:
    return ", ".join(f"{k} {v}" for k, v in conv.names.items())


def check_aggregate(
    category_scores: Mapping[str, float] | Sequence[float] | pd.Series | None = None,
    counts: Mapping[str, float] | Sequence[float] | pd.Series | None = None,
    reported_overall: float | None = None,
    *,
    weighting: str = "question",
    tolerance: float | None = None,
    convention: str | None = None,
    benchmark: str = "locomo",
    verdicts: pd.DataFrame | None = None,
    system: str | None = None,
) -> pd.DataFrame:
    """Recompute an overall score from category scores and counts, and flag a mismatch (SPEC §7.4).

    Parameters
    ----------
    category_scores
        Published per-category scores in points, as a mapping category -> score (or a sequence
        in the order of ``counts``); None with ``verdicts``. With ``convention``, the category names as published
        (``Single-Hop``, ``temporal_reasoning``, ``1``...; case and punctuation are ignored).
    counts
        Questions per category, same keys or order (needed for question weighting; may be None
        for ``"macro"`` and with ``convention``, which takes them from the benchmark).
    reported_overall
        The published overall score, in points.
    weighting
        ``"question"`` (Σ n_k s_k / Σ n_k: LoCoMo, LongMemEval, PersonaMem-v2), ``"macro"`` (the
        unweighted mean of the categories: MEME's six tasks), or a scheme name/file (its
        weights, nested ones included, or its exclusions with question weighting; D.5).
    tolerance
        Largest |reported − recomputed| still counted consistent, in points (default 0.01; with
        ``verdicts`` 0.005, one number printed with two decimals).
    convention
        Read the published category names under a naming convention of ``benchmark``
        (:mod:`memdiag.panel.conventions`: ``locomo-paper``, ``mem0``, ``trpc-agent-go``, ``zep-papers``,
        ``memobase-zep-row``, ``dataset`` for integer labels): each name's count is that of the
        integer it names there. ``"infer"``: try every known convention and every assignment of
        the benchmark's counts to the published scores (4! = 24 for LoCoMo's four scored
        categories) and report which reproduce the overall. Question weighting only.
    benchmark
        The benchmark whose conventions and counts apply (``locomo``).
    verdicts
        Instead of category scores: one system's verdicts with judge repeats. The overall is then
        recomputed under each judge-repeat rule publishers use — ``mean`` (per-run mean over
        judgments), ``majority`` (per-question majority vote) and ``repeat:K`` (one judgment) —
        to tell which produced ``reported_overall`` (:func:`memdiag.audit.rules.check_rules`);
        ``weighting`` may then be ``"question"`` or a scheme name.
    system
        With ``verdicts``: the system the published number is about (None: the only one).

    Returns
    -------
    pandas.DataFrame
        One row per recomputation: ``convention`` (the named conventions giving that assignment,
        None for an assignment no source uses, or without ``convention``), ``assignment`` (each
        name with its integer and count, ``single-hop = 1 (282)``), ``weighting, n_categories, n,
        recomputed, reported, difference`` (reported − recomputed) ``, tolerance, consistent,
        status`` (``"consistent"`` or ``"mismatch"``). With ``convention="infer"`` the consistent
        rows come first, then by |difference|. ``attrs["weights"]`` holds the weight of each
        category (first row), ``attrs["notes"]`` which conventions and assignments reproduce
        the reported number (or whether the other standard weighting does), and
        ``attrs["consistent_conventions"]`` the named conventions that do. With ``verdicts``: one
        row per rule, ``system, rule, n, judgments, recomputed, reported, difference, tolerance,
        consistent, status``, and ``attrs["consistent_rules"]``.

    Raises
    ------
    VerdictError
        Scores that are not numbers, categories of scores and counts that differ, question
        weighting without counts or a convention, names a convention does not know; both or
        neither of ``category_scores`` and ``verdicts``; bad verdicts or an unknown ``system``.
    SchemeError
        A scheme whose weighted groups the scores lack.

    Notes
    -----
    overall = Σ_k w_k s_k with w_k = n_k / Σ n (question) or 1/K (macro).
    Why 0.01 points: a published score rounded to 2 decimals is off its exact value by at most
    half a unit in the last place, 0.005; each category score is off by at most 0.005 too, and a
    weighted mean (weights summing to 1) of errors ≤ 0.005 is ≤ 0.005. So an honest aggregate
    differs from the recomputed one by at most 0.005 + 0.005 = 0.01 points (a floating-point
    slack of 1e-9 is added). Scores printed with one decimal need ``tolerance=0.1``.
    The names are the fragile part: the Raw-RAG paper (A.1.3) weighted Mem0's LoCoMo scores with
    the LoCoMo paper's names and found 62.14 ≠ 66.88; Mem0's harness names the integers
    differently (SPEC §6.2), and under its names the overall is 66.879. Source: SPEC §6.2, §7.4.

    References
    ----------
    SPEC §7.4 (aggregate consistency; judge-repeat rules), SPEC §1.3 and SPEC §6.2 (LoCoMo categories: integers are facts,
    names are conventions); Raw-RAG paper A.1.3 (Mem0's LoCoMo overall recomputed with the
    LoCoMo paper's names) and D.5 (official weights).

    Examples
    --------
    Mem0's published LoCoMo categories, read with the LoCoMo paper's names (the Raw-RAG paper's
    reading) and with Mem0's own:

    >>> mem0 = {"single-hop": 67.13, "multi-hop": 51.15, "temporal": 55.51, "open-domain": 72.93}
    >>> paper = check_aggregate(mem0, reported_overall=66.88, convention="locomo-paper")
    >>> paper[["n", "recomputed", "status"]].round(2)
          n  recomputed    status
    0  1540       62.14  mismatch
    >>> own = check_aggregate(mem0, reported_overall=66.88, convention="infer")
    >>> own.loc[0, "convention"], round(float(own.loc[0, "recomputed"]), 3), own.loc[0, "status"]
    ('mem0', 66.879, 'consistent')
    >>> print(own.loc[0, "assignment"])
    single-hop = 1 (282), multi-hop = 3 (96), temporal = 2 (321), open-domain = 4 (841)
    >>> int(own["consistent"].sum()), len(own)
    (1, 24)

    Which judge-repeat rule gave a published 50.0 (two answers, three judgments each: 2/3 and 1/3
    correct; per-run mean 3/6 = 50, majority 1/2 = 50, judgment 0 (1, 0) 50, judgment 1 (1, 1) 100):

    >>> votes = pd.DataFrame({"system": "s", "query_id": list("aaabbb"), "repeat": [0, 1, 2] * 2,
    ...                       "score": [1, 1, 0, 0, 1, 0]})
    >>> check_aggregate(verdicts=votes, reported_overall=50.0).attrs["consistent_rules"]
    ['mean', 'majority', 'repeat:0']
    """
    if reported_overall is None:
        raise VerdictError("check_aggregate: give reported_overall, the published overall score in points.")
    if verdicts is not None:
        from memdiag.audit.rules import check_rules

        if category_scores is not None or counts is not None or convention is not None:
            raise VerdictError("check_aggregate: give category scores (with counts or a convention) or verdicts, "
                               "not both.")
        if weighting == "macro":
            raise VerdictError("check_aggregate: with verdicts, weighting is 'question' or a scheme name.")
        return check_rules(verdicts, system, float(reported_overall),
                           scheme=None if weighting == "question" else weighting, tolerance=tolerance)
    if category_scores is None:
        raise VerdictError("check_aggregate: give the published category scores (or verdicts=).")
    if system is not None:
        raise VerdictError("check_aggregate: system= names the system of verdicts=; give verdicts too.")
    tolerance = AGGREGATE_TOLERANCE if tolerance is None else float(tolerance)
    reported = float(reported_overall)
    scores = _series(category_scores, "category_scores")
    if convention is not None:
        if counts is not None:
            raise VerdictError("check_aggregate: give counts or a convention, not both (a convention takes "
                               "the counts from the integer each name stands for).")
        if weighting != "question":
            raise VerdictError(f"check_aggregate: a convention gives question counts; weighting '{weighting}' "
                               "does not use them.")
        out = _by_convention(scores, reported, tolerance, convention, benchmark)
        first = out.iloc[0]
        integers = [int(part.split(" = ")[1].split(" ")[0]) for part in first["assignment"].split(", ")]
        table = _conventions.counts(benchmark)
        counted = pd.Series([float(table[k]) for k in integers], index=scores.index)
        out.attrs = {"weights": (counted / counted.sum()).to_dict(), "benchmark": benchmark,
                     "convention": convention, "notes": _convention_notes(out, benchmark),
                     "consistent_conventions": sorted({c for v in out.loc[out["consistent"], "convention"].dropna()
                                                       for c in v.split(", ")})}
        return as_result(out, KINDS)
    count_series = None
    if counts is not None:
        count_series = _series(counts, "counts")
        if not isinstance(category_scores, Mapping | pd.Series):
            scores.index = count_series.index
        if set(count_series.index) != set(scores.index):
            raise VerdictError(f"check_aggregate: categories of scores ({', '.join(scores.index)}) and "
                               f"counts ({', '.join(count_series.index)}) differ.")
        count_series = count_series[scores.index]
        if (count_series < 0).any():
            raise VerdictError("check_aggregate: counts must be non-negative.")
    elif weighting == "question":
        raise VerdictError("check_aggregate: weighting 'question' weights categories by their question counts; "
                           "pass counts, or convention='infer' to take them from the benchmark under every "
                           "known naming of its categories.")
    row, weights, notes = _row(scores, count_series, reported, weighting, tolerance)
    for other in ("question", "macro"):
        if other != weighting and (other == "macro" or count_series is not None):
            value = float((_aggregate_weights(scores, count_series, other)[0] * scores).sum())
            matches = abs(reported - value) <= tolerance + 1e-9
            notes.append(Note(f"{other} weighting gives {value:.2f}, which "
                              f"{'matches' if matches else 'does not match'} the reported {reported_overall}",
                              code="other-weighting"))
    out = pd.DataFrame([{"convention": None, "assignment": None, **row}], columns=list(COLUMNS))
    out.attrs = {"weights": weights.to_dict(), "notes": notes}
    return as_result(out, KINDS)


def _convention_notes(out: pd.DataFrame, benchmark: str) -> list[str]:
    """Which conventions and assignments reproduce the reported overall, and what the others give."""
    hits = out[out["consistent"]]
    reported = out["reported"].iloc[0]
    notes = []
    if len(out) > 1:
        notes.append(Note(f"{len(hits)} of {len(out)} assignments of the {benchmark} counts reproduce {reported:g}"
                          + (" within the tolerance" if len(hits) else ""), code="assignments-reproduce"))
    for _, row in hits.iterrows():
        who = (f"the {row['convention']} convention" if row["convention"] else "an assignment no known source uses")
        notes.append(Note(f"consistent under {who}: {row['assignment']} gives {row['recomputed']:.3f}",
                          code="convention-consistent"))
    for _, row in out[out["convention"].notna() & ~out["consistent"]].iterrows():
        notes.append(Note(f"the {row['convention']} convention gives {row['recomputed']:.2f} (mismatch)",
                          code="convention-mismatch"))
    return notes
