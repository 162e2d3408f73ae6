"""Aggregate consistency: does a published overall score follow from its category scores? (SPEC §7).

One job: :func:`check_aggregate` recomputes an overall score from published per-category scores
and question counts — question-weighted, macro-averaged, or by a scheme's official weights and
exclusions — and flags a reported overall that differs by more than rounding allows (Mem0's
LoCoMo 66.88 vs the 62.14 its categories imply). It works on published numbers only; no
verdicts are read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from memdiag._schemes import get_scheme
from memdiag.errors import SchemeError, VerdictError

#: Default tolerance of :func:`check_aggregate`, in points (see its Notes).
AGGREGATE_TOLERANCE = 0.01


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
        notes.append(f"scheme {scheme.name} leaves out {', '.join(dropped)}")
    return weights.reindex(scores.index, fill_value=0.0), notes


def check_aggregate(
    category_scores: Mapping[str, float] | Sequence[float] | pd.Series,
    counts: Mapping[str, float] | Sequence[float] | pd.Series | None,
    reported_overall: float,
    *,
    weighting: str = "question",
    tolerance: float = AGGREGATE_TOLERANCE,
) -> pd.DataFrame:
    """Recompute an overall score from category scores and counts, and flag a mismatch (SPEC §7).

    Parameters
    ----------
    category_scores
        Published per-category scores in points, as a mapping category -> score (or a sequence
        in the order of ``counts``).
    counts
        Questions per category, same keys or order (needed for question weighting; may be None
        for ``"macro"``).
    reported_overall
        The published overall score, in points.
    weighting
        ``"question"`` (Σ n_k s_k / Σ n_k: LoCoMo, LongMemEval, PersonaMem-v2), ``"macro"`` (the
        unweighted mean of the categories: MEME's six tasks), or a scheme name/file (its
        weights, nested ones included, or its exclusions with question weighting; D.5).
    tolerance
        Largest |reported − recomputed| still counted consistent, in points (default 0.01).

    Returns
    -------
    pandas.DataFrame
        One row: ``weighting, n_categories, n, recomputed, reported, difference`` (reported −
        recomputed) ``, tolerance, consistent, status`` (``"consistent"`` or ``"mismatch"``).
        ``attrs["weights"]`` holds the weight of each category and ``attrs["notes"]`` says
        whether the other standard weighting (question or macro) reproduces the reported number.

    Notes
    -----
    overall = Σ_k w_k s_k with w_k = n_k / Σ n (question) or 1/K (macro).
    Why 0.01 points: a published score rounded to 2 decimals is off its exact value by at most
    half a unit in the last place, 0.005; each category score is off by at most 0.005 too, and a
    weighted mean (weights summing to 1) of errors ≤ 0.005 is ≤ 0.005. So an honest aggregate
    differs from the recomputed one by at most 0.005 + 0.005 = 0.01 points (a floating-point
    slack of 1e-9 is added). Scores printed with one decimal need ``tolerance=0.1``.
    Source: SPEC §7; Raw-RAG paper A.1.3 (Mem0's published categories give 62.14, not 66.88).

    Examples
    --------
    Mem0's published LoCoMo categories (single-hop, multi-hop, temporal, open-domain):

    >>> out = check_aggregate({"single-hop": 67.13, "multi-hop": 51.15, "temporal": 55.51,
    ...                        "open-domain": 72.93}, {"single-hop": 841, "multi-hop": 282,
    ...                        "temporal": 321, "open-domain": 96}, reported_overall=66.88)
    >>> out[["n", "recomputed", "reported", "status"]].round(2)
          n  recomputed  reported    status
    0  1540       62.14     66.88  mismatch
    """
    scores = _series(category_scores, "category_scores")
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
    weights, notes = _aggregate_weights(scores, count_series, weighting)
    recomputed = float((weights * scores).sum())
    difference = float(reported_overall) - recomputed
    consistent = abs(difference) <= tolerance + 1e-9
    for other in ("question", "macro"):
        if other != weighting and (other == "macro" or count_series is not None):
            value = float((_aggregate_weights(scores, count_series, other)[0] * scores).sum())
            matches = abs(float(reported_overall) - value) <= tolerance + 1e-9
            notes.append(f"{other} weighting gives {value:.2f}, which "
                         f"{'matches' if matches else 'does not match'} the reported {reported_overall}")
    used = weights[weights > 0].index
    out = pd.DataFrame([{
        "weighting": weighting, "n_categories": len(used),
        "n": float(count_series[used].sum()) if count_series is not None else np.nan,
        "recomputed": recomputed, "reported": float(reported_overall), "difference": difference,
        "tolerance": tolerance, "consistent": consistent,
        "status": "consistent" if consistent else "mismatch",
    }])
    if count_series is not None and (count_series == count_series.round()).all():
        out["n"] = out["n"].astype(np.int64)
    out.attrs = {"weights": weights.to_dict(), "notes": notes}
    return out
