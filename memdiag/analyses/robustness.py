"""Sensitivity presets: how every headline number moves under a change of data policy (Raw-RAG
paper A.5.2, Table 29 notes; SPEC §7.8).

One job: run the headline analysis — each system's official score and, with a reference, each
system's paired difference from it — twice, on the data as analysed (``baseline``) and under one
named change (``variant``), and put the two side by side:

- :func:`content_filter_sensitivity`: drop the queries whose answers a provider's content filter
  blocked, *with* their gate twins, from every system (A.5.2: 12 MEME questions, 687 after-phase
  questions left);
- :func:`judge_repetition_sensitivity`: the first judge call of every answer instead of the mean
  of the calls (A.5.2: RAG Native 39.30% with three calls, 39.80% with the first);
- :func:`missing_verdict_bounds`: every missing verdict scored wrong (the default, a lower bound)
  against every missing verdict scored right (an upper bound).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from memdiag.analyses.compare import compare
from memdiag.analyses.scoring import score
from memdiag.core.kinds import declare, with_intervals
from memdiag.core.notes import Note, prefixed
from memdiag.core.provenance import stamp
from memdiag.engine.options import Options, as_options
from memdiag.errors import VerdictError, listing
from memdiag.io.canonical import check
from memdiag.panel.align import pair_twins
from memdiag.panel.prepare import Prepared, as_prepared

#: The columns of a sensitivity table, in order.
COLUMNS: tuple[str, ...] = ("quantity", "system", "baseline", "baseline_ci_low", "baseline_ci_high", "variant",
                            "variant_ci_low", "variant_ci_high", "change", "baseline_p_adj", "variant_p_adj",
                            "n_baseline", "n_variant")
#: The kinds of those columns (scores and differences in points).
KINDS = declare(points=(*with_intervals("baseline", "variant"), "change"), p=("baseline_p_adj", "variant_p_adj"))


def _rows(data: pd.DataFrame | Prepared) -> pd.DataFrame:
    """The checked verdict rows both analyses start from."""
    if isinstance(data, Prepared):
        return data.source if data.source is not None else data.frame
    return check(data)


def _base(data: pd.DataFrame | Prepared, rows: pd.DataFrame, opts: Options) -> Prepared:
    """``data`` prepared: its choices carry over to both analyses."""
    return as_prepared(data if isinstance(data, Prepared) else rows, design=opts.design)


def _headline(base: Prepared, rows: pd.DataFrame, *, reference, verdict_missing: str,
              opts: Options) -> tuple[dict, list[str]]:
    """Each system's official score and (with a reference) its difference from it, on ``rows``
    prepared with ``base``'s choices under ``verdict_missing``: {(quantity, system): (estimate,
    low, high, p_adj, n)} and the notes."""
    prepared = base.reprepare(rows=rows, verdict_missing=verdict_missing)
    table = score(prepared, options=opts)
    out = {}
    for _, row in table.iterrows():
        out[("score", row["system"])] = (row["overall"], row.get("overall_ci_low", np.nan),
                                         row.get("overall_ci_high", np.nan), np.nan, int(row["n"]))
    notes = list(table.attrs["notes"])
    if reference is not None:
        prepared.panel.system_index(reference)  # an unknown reference is a VerdictError naming the systems
    if reference is not None and not opts.n_resamples:     # point estimates: differences of scores
        base = table.set_index("system")["overall"]
        for system in prepared.systems:
            if system != reference:
                out[(f"− {reference}", system)] = (base[system] - base[reference], np.nan, np.nan, np.nan,
                                                  int(table["n"].iloc[0]))
    elif reference is not None and len(prepared.systems) > 1:
        diffs = compare(prepared, reference=reference, options=opts)
        for _, row in diffs.iterrows():
            out[(f"− {reference}", row["system_a"])] = (row["diff"], row["ci_low"], row["ci_high"], row["p_adj"],
                                                       int(row["n"]))
        notes += [n for n in diffs.attrs["notes"] if n not in notes]
    return out, notes


def _moves(base: Prepared, baseline: pd.DataFrame, variant: pd.DataFrame, *, function: str, what: tuple[str, str],
           reference, verdict_missing: tuple[str, str], notes: Iterable[str], opts: Options) -> pd.DataFrame:
    """The side-by-side table of the headline numbers under ``baseline`` and ``variant``."""
    first, first_notes = _headline(base, baseline, reference=reference, verdict_missing=verdict_missing[0], opts=opts)
    second, second_notes = _headline(base, variant, reference=reference, verdict_missing=verdict_missing[1],
                                     opts=opts)
    rows = []
    for key in first:
        b, v = first[key], second.get(key, (np.nan,) * 4 + (0,))
        rows.append({"quantity": "score" if key[0] == "score" else f"{key[1]} {key[0]}", "system": key[1],
                     "baseline": b[0], "baseline_ci_low": b[1], "baseline_ci_high": b[2],
                     "variant": v[0], "variant_ci_low": v[1], "variant_ci_high": v[2], "change": v[0] - b[0],
                     "baseline_p_adj": b[3], "variant_p_adj": v[3], "n_baseline": b[4], "n_variant": v[4]})
    out = pd.DataFrame(rows, columns=list(COLUMNS))
    if not opts.n_resamples:
        out = out.drop(columns=[c for c in COLUMNS if "_ci_" in c or c.endswith("_p_adj")])
    elif reference is None:
        out = out.drop(columns=["baseline_p_adj", "variant_p_adj"])
    lines = [Note(f"baseline: {what[0]}", code="robustness-baseline"),
             Note(f"variant: {what[1]}", code="robustness-variant"), *notes]
    lines += [prefixed("baseline: ", n) for n in first_notes]
    lines += [prefixed("variant: ", n) for n in second_notes if n not in first_notes]
    return stamp(out, function, kinds=KINDS, notes=lines, unit="points", scheme=base.scheme.name if base.scheme else None,
                 reference=reference, baseline=what[0], variant=what[1], inference=opts.inference,
                 n_resamples=opts.n_resamples, seed=opts.seed, confidence_level=opts.confidence_level,
                 correction=opts.correction, missing=base.missing, cluster_missing=base.cluster_missing)


_COMMON_DOC = """    reference
        A system whose paired difference from every other system is a headline number too
        (:func:`memdiag.compare` with this ``reference``, Holm over the systems).
    options
        :class:`memdiag.Options` (a mapping of its fields, or None for the defaults): reads
        design, inference, n_resamples, seed, confidence_level and correction, as
        :func:`memdiag.compare` does; ``n_resamples=0`` gives the point estimates only.

    Returns
    -------
    pandas.DataFrame
        One row per headline number: ``quantity`` (``score``, or ``<system> − <reference>``),
        ``system``, ``baseline`` and ``variant`` (points) with their intervals
        (``_ci_low``/``_ci_high``), ``change`` = variant − baseline, the Holm-adjusted p of each
        difference under both (``baseline_p_adj``, ``variant_p_adj``), and the queries each
        rests on (``n_baseline``, ``n_variant``). ``attrs["baseline"]`` and ``attrs["variant"]``
        say what each column is; the notes give both analyses' notes.
"""
def content_filter_sensitivity(
    data: pd.DataFrame | Prepared,
    filtered: Mapping[str, Sequence[str]] | Sequence[str] | str,
    *,
    reference: str | None = None,
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """The headline numbers with and without the queries a content filter blocked (A.5.2).

    Parameters
    ----------
    data
        Canonical verdicts, or :func:`memdiag.prepare` output whose choices (scheme — the
        official aggregation of the headline scores —, missing-query and cluster policies,
        judges) both analyses keep; the blocked answers are scored as the release scored them
        (the paper: empty, incorrect answers). Verdicts missing for other reasons (a NaN score
        on an answer the filter did not block) are decided the same way in both analyses, so
        that the variant differs only by the filtered queries, by the prepared missing-verdict
        policy (``md.prepare(verdict_missing=...)``): ``"as-wrong"`` scores them 0,
        ``"exclude"`` drops their queries (with their ``pair_id`` twins) from every system
        first; counted in the notes. Verdicts (not prepared) with such answers are refused:
        prepare them with the policy you choose. The filtered answers themselves are what the
        function varies (as released in the baseline, excluded in the variant), whatever the
        policy.
    filtered
        The blocked answers: system -> query ids, a list of query ids (blocked for some
        system), or the name of a 0/1 column of ``df`` marking them.

    Raises
    ------
    VerdictError
        ``filtered`` names no column of ``df`` or marks no verdict (or, under
        ``verdict_missing="exclude"``, none is left); verdicts (not prepared) with verdicts
        missing for other reasons; bad verdicts, unpaired queries under
        ``missing="error"``, an unknown ``reference``.
    SchemeError
        An unknown scheme, or one that keeps no query of the data.

    References
    ----------
    SPEC §7.8 (sensitivity presets) and SPEC §1.4 (the exclude policy: a query leaves with its
    ``pair_id`` twins); Raw-RAG paper A.5.2 (12 MEME questions blocked by a content filter, 687
    after-phase questions left) and the Table 29 notes.

    Examples
    --------
    The filter blocked mem's answer to ``d``; dropping ``d`` from both systems moves both scores
    and the difference (point estimates only, ``n_resamples=0``):

    >>> df = pd.DataFrame({"system": ["rag"] * 4 + ["mem"] * 4, "query_id": list("abcd") * 2,
    ...                    "score": [1, 1, 0, 1, 1, 0, 1, 0]})
    >>> out = content_filter_sensitivity(df, {"mem": ["d"]}, reference="rag", options={"n_resamples": 0})
    >>> out[["quantity", "system", "baseline", "variant", "n_variant"]].round(2).values.tolist()
    [['score', 'mem', 50.0, 66.67, 3], ['score', 'rag', 75.0, 66.67, 3], ['mem − rag', 'mem', -25.0, 0.0, 3]]
    """
    opts = as_options(options)
    frame = _rows(data)
    verdict_missing = data.verdict_missing if isinstance(data, Prepared) else None
    if isinstance(filtered, str):
        if filtered not in frame:
            raise VerdictError(f"content_filter_sensitivity: the verdicts have no column '{filtered}' marking "
                               "the filtered answers. Give the column, or a mapping system -> query ids.")
        blocked = frame[filtered].fillna(0).astype(bool)
    elif isinstance(filtered, Mapping):
        blocked = pd.Series(False, index=frame.index)
        for system, ids in filtered.items():
            blocked |= (frame["system"] == system) & frame["query_id"].isin(list(ids))
    else:
        blocked = frame["query_id"].isin(list(filtered))
    base = _base(data, frame, opts)
    frame, blocked, decided = _other_missing(frame, blocked, verdict_missing)
    ids = sorted(pd.unique(frame.loc[blocked, "query_id"]).tolist())
    named = ([] if isinstance(filtered, str) else
             [i for v in filtered.values() for i in v] if isinstance(filtered, Mapping) else list(filtered))
    unknown = sorted(set(map(str, named)) - set(frame["query_id"].astype(str)))
    if not ids:
        raise VerdictError("content_filter_sensitivity: no verdict is marked as filtered"
                           + (f" (unknown query ids: {listing(unknown)})" if unknown else "")
                           + (" once the queries with other missing verdicts are dropped" if decided else "")
                           + ".")
    # the exclude policy drops a query with a missing verdict for every system, with its pair_id twins
    variant = frame.assign(score=frame["score"].where(~blocked, np.nan))
    per_system = frame.loc[blocked].groupby("system")["query_id"].nunique()
    notes = decided + [Note(f"filtered answers: {', '.join(f'{s} {n}' for s, n in per_system.items())}, on "
                            f"{len(ids)} queries: {listing(ids)}", code="filtered-answers")]
    notes += [Note(f"unknown query ids ignored: {listing(unknown)}", code="unknown-queries", severity="caution")
              ] if unknown else []
    return _moves(base, frame, variant, function="content_filter_sensitivity",
                  what=("every query, filtered answers as released",
                        "the filtered queries and their pair_id twins dropped from every system"),
                  reference=reference, verdict_missing=("as-wrong", "exclude"), notes=notes, opts=opts)


def _other_missing(frame: pd.DataFrame, blocked: pd.Series,
                   policy: str | None) -> tuple[pd.DataFrame, pd.Series, list[str]]:
    """Verdicts missing for reasons other than the filter, decided by ``policy`` before both
    analyses (scored 0, or their queries and ``pair_id`` twins dropped; SPEC §1.4): the frame,
    the blocked mask on it and the note saying what was done."""
    other = frame["score"].isna() & ~blocked
    if not other.any():
        return frame, blocked, []
    n = int(other.sum())
    if policy is None:
        raise VerdictError(f"content_filter_sensitivity: {n} verdicts are missing for other reasons; decide them "
                           "with md.prepare(df, verdict_missing='as-wrong' or 'exclude') (CLI: --verdict-missing) "
                           "so the variant drops only the filtered queries.")
    if policy == "as-wrong":
        return (frame.assign(score=frame["score"].mask(other, 0.0)), blocked,
                [Note(f"{n} verdict{'s' if n != 1 else ''} missing for other reasons scored 0 in both analyses "
                      "(verdict_missing as-wrong)", code="missing-verdicts", severity="caution")])
    bad = pd.unique(frame.loc[other, "query_id"]).tolist()
    gone = sorted(set(bad) | set(pair_twins(frame, bad)))
    keep = ~frame["query_id"].isin(gone)
    return (frame[keep], blocked[keep],
            [Note(f"{len(gone)} quer{'y' if len(gone) == 1 else 'ies'} with a verdict missing for other reasons "
                  f"(with their pair_id twins) dropped from every system in both analyses (verdict_missing "
                  f"exclude): {listing(gone)}", code="missing-verdicts", severity="caution")])
def judge_repetition_sensitivity(
    data: pd.DataFrame | Prepared,
    *,
    reference: str | None = None,
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """The headline numbers from the mean of the judge calls against the first call alone (A.5.2).

    Parameters
    ----------
    data
        Canonical verdicts with a ``repeat`` column (the judge calls of each answer), or
        :func:`memdiag.prepare` output whose choices (scheme — the official aggregation of the
        headline scores —, missing-query, missing-verdict and cluster policies) both analyses
        keep.

    Raises
    ------
    VerdictError
        Every answer has one judge call; bad verdicts, unpaired queries under
        ``missing="error"``, an unknown ``reference``.
    SchemeError
        An unknown scheme, or one that keeps no query of the data.

    References
    ----------
    SPEC §7.8 (sensitivity presets) and SPEC §1.3 (the per-query score as the mean of the judge
    calls); Raw-RAG paper A.5.2 notes (RAG Native 39.30% with three calls, 39.80% with the first)
    and G.3 (three judgments per answer).

    Examples
    --------
    Two judge calls per answer: rag's second call marks ``b`` wrong, so its mean-of-calls score
    is (1 + ½ + 0)/3 = 50 against 2/3 from the first calls:

    >>> df = pd.DataFrame({"system": ["rag"] * 6 + ["mem"] * 6, "query_id": list("abc") * 4,
    ...                    "repeat": [0, 0, 0, 1, 1, 1] * 2,
    ...                    "score": [1, 1, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1]})
    >>> out = judge_repetition_sensitivity(df, reference="rag", options={"n_resamples": 0})
    >>> out[["quantity", "system", "baseline", "variant"]].round(2).values.tolist()
    [['score', 'mem', 50.0, 66.67], ['score', 'rag', 50.0, 66.67], ['mem − rag', 'mem', 0.0, 0.0]]
    """
    opts = as_options(options)
    frame = _rows(data)
    calls = frame.groupby(["system", "query_id"])["repeat"].nunique() if "repeat" in frame else pd.Series([1])
    if calls.max() < 2:
        raise VerdictError("judge_repetition_sensitivity: every answer has one judge call (no 'repeat' column "
                           "with several values); there is nothing to compare.")
    first = frame["repeat"] == frame.groupby(["system", "query_id"])["repeat"].transform("min")
    base = _base(data, frame, opts)
    notes = [Note(f"{int(calls.max())} calls for {int((calls == calls.max()).sum())} of {len(calls)} answers",
                  code="judge-calls")]
    return _moves(base, frame, frame[first], function="judge_repetition_sensitivity",
                  what=("the mean of the judge calls of each answer", "the first judge call of each answer"),
                  reference=reference, verdict_missing=(base.verdict_missing, base.verdict_missing), notes=notes,
                  opts=opts)
def missing_verdict_bounds(
    data: pd.DataFrame | Prepared,
    *,
    reference: str | None = None,
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """The headline numbers with every missing verdict scored wrong (lower bound) and right (upper
    bound): how far unusable judge outputs could move them (SPEC §1.4, §7.3).

    Parameters
    ----------
    data
        Canonical verdicts with missing verdicts (NaN ``score``), or :func:`memdiag.prepare`
        output whose choices (scheme — the official aggregation of the headline scores —,
        missing-query and cluster policies, judges) both analyses keep; both score the missing
        verdicts themselves (``as-wrong`` on the data as they are, and on every one set right),
        whatever missing-verdict policy the data were prepared with.

    Raises
    ------
    VerdictError
        No verdict is missing (both bounds would be the data); bad verdicts, unpaired queries
        under ``missing="error"``, an unknown ``reference``.
    SchemeError
        An unknown scheme, or one that keeps no query of the data.

    References
    ----------
    SPEC §7.8 (sensitivity presets), SPEC §1.4 (the missing-verdict policies) and SPEC §7.3 (the
    effect of the missing-verdict policy); Raw-RAG paper C.6 and G.3 (unusable outputs score 0:
    the lower bound).

    Examples
    --------
    Three of eight verdicts are missing, two of them mem's: scored right, they close mem's gap
    to rag:

    >>> df = pd.DataFrame({"system": ["rag"] * 4 + ["mem"] * 4, "query_id": list("abcd") * 2,
    ...                    "score": [1, 1, 0, None, 1, 0, None, None]})
    >>> out = missing_verdict_bounds(df, reference="rag", options={"n_resamples": 0})
    >>> out[["quantity", "system", "baseline", "variant", "change"]].values.tolist()
    [['score', 'mem', 25.0, 75.0, 50.0], ['score', 'rag', 50.0, 75.0, 25.0], ['mem − rag', 'mem', -25.0, 0.0, 25.0]]
    """
    opts = as_options(options)
    frame = _rows(data)
    n_missing = int(frame["score"].isna().sum())
    if not n_missing:
        raise VerdictError("missing_verdict_bounds: no verdict is missing; both bounds are the data.")
    base = _base(data, frame, opts)
    per_system = frame["score"].isna().groupby(frame["system"]).sum()
    notes = [Note(f"missing verdicts: {', '.join(f'{s} {int(n)}' for s, n in per_system.items() if n)}",
                  code="missing-verdicts")]
    return _moves(base, frame, frame.assign(score=frame["score"].fillna(1.0)), function="missing_verdict_bounds",
                  what=("every missing verdict scored wrong (lower bound)",
                        "every missing verdict scored right (upper bound)"),
                  reference=reference, verdict_missing=("as-wrong", "as-wrong"), notes=notes, opts=opts)


for _f in (content_filter_sensitivity, judge_repetition_sensitivity, missing_verdict_bounds):
    # the parameters and result they share, after each one's own parameters (before its Raises)
    _f.__doc__ = _f.__doc__.replace("\n\n    Raises\n", "\n" + _COMMON_DOC + "\n    Raises\n", 1)
