"""Wrong gold answers: ceilings, scores above them, and re-scoring without the corrupted questions (SPEC §9.4).

A question whose gold answer is wrong caps every system: a perfect answer is judged against the
wrong gold and fails. With k_c such questions among the n_c of a group, the best attainable score is
the ceiling 100·(n_c − k_c)/n_c, and a reported score above it means the judge credited answers
that matched the wrong gold (or a tolerant judge). This module

- takes an audit's list of corrupted questions (:func:`memdiag.read_gold_errors` reads errors.json's
  format, :mod:`memdiag.io.gold_errors`; or any frame with ``query_id``) and counts only
  score-corrupting errors;
- computes ceilings per group and overall (:func:`gold_ceilings`) and flags scores above them
  (:func:`ceiling_flags`), published or computed;
- re-scores systems on the clean subset with intervals under the design and recomputes the paired
  differences, saying which conclusions change (:func:`clean_rescore`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy import stats

from memdiag.core.kinds import declare, with_intervals
from memdiag.core.notes import Note
from memdiag.core.provenance import POINTS, stamp
from memdiag.engine.options import Options, as_options
from memdiag.errors import VerdictError
from memdiag.measurement.judge_error import _design_variance
from memdiag.panel.prepare import Prepared, as_prepared

__all__ = ["ceiling_flags", "clean_rescore", "gold_ceilings"]

#: The column kinds of :func:`clean_rescore`'s two tables.
_KINDS = declare(points=(*with_intervals("full", "clean"), "diff_full", "ci_low_full", "ci_high_full", "diff_clean",
                         "ci_low_clean", "ci_high_clean", "benefit_rate_full", "tax_rate_full", "benefit_rate_clean",
                         "tax_rate_clean"), p=("p_adj_full", "p_adj_clean"))


def _universe(data: pd.DataFrame | Prepared, by: str | None) -> pd.DataFrame:
    """One row per question (``query_id`` and the ``by`` column) of the data."""
    if isinstance(data, Prepared):
        q = data.panel.queries
        frame = pd.DataFrame({"query_id": data.panel.query_ids})
        if by is not None:
            if by not in q:
                raise VerdictError(f"the prepared queries have no '{by}' column.")
            frame[by] = q[by].to_numpy()
        return frame
    if "query_id" not in data:
        raise VerdictError("the questions need a 'query_id' column.")
    if by is not None and by not in data:
        raise VerdictError(f"the questions have no '{by}' column.")
    return data[["query_id", *([by] if by is not None else [])]].drop_duplicates("query_id")


def _corrupted(errors: pd.DataFrame | str, universe: pd.DataFrame, data: object) -> tuple[set, list[Note]]:
    """The corrupted query ids among ``universe``; a column name reads a 0/1 per-query column."""
    if isinstance(errors, str):
        frame = data.frame if isinstance(data, Prepared) else data
        if errors not in frame:
            raise VerdictError(f"the verdicts have no '{errors}' column marking corrupted questions.")
        marked = frame.loc[frame[errors].fillna(0).astype(bool), "query_id"]
        return set(marked.astype(str)), []
    if "query_id" not in errors:
        raise VerdictError("the list of corrupted questions needs a 'query_id' column (md.read_gold_errors).")
    listed = errors[errors["corrupting"]] if "corrupting" in errors else errors
    ids = set(listed["query_id"].astype(str))
    outside = ids - set(universe["query_id"].astype(str))
    notes = []
    if outside:
        notes.append(Note(f"{len(outside)} listed corrupted questions are not among the data's questions and are not "
                          f"counted (e.g. {sorted(outside)[0]})", code="gold-errors-outside", severity="caution"))
    return ids - outside, notes


def gold_ceilings(data: pd.DataFrame | Prepared, errors: pd.DataFrame | str, *, by: str | None = "category") -> pd.DataFrame:
    """The best attainable score per group and overall when some gold answers are wrong.

    Parameters
    ----------
    data
        The questions: verdicts, :func:`memdiag.prepare` output, or a frame with ``query_id`` and the
        ``by`` column (e.g. :func:`memdiag.locomo_questions` without the adversarial category).
    errors
        :func:`memdiag.read_gold_errors` output (only ``corrupting`` rows count), any frame with ``query_id``,
        or the name of a per-query 0/1 column of the verdicts marking corrupted questions.
    by
        The per-query column of the groups (None: overall only).

    Returns
    -------
    pandas.DataFrame
        ``group`` (``"overall"`` first), ``n`` (questions), ``n_corrupted``, ``ceiling``
        = 100·(n − n_corrupted)/n (points).

    Raises
    ------
    VerdictError
        Missing ``query_id`` or ``by`` columns, or an unknown marking column.

    References
    ----------
    SPEC §9.4. The LoCoMo audit (dial481/locomo-audit): 99 score-corrupting errors in 1,540
    questions, ceiling 93.57.

    Examples
    --------
    >>> q = pd.DataFrame({"query_id": list("abcd"), "category": ["x", "x", "y", "y"]})
    >>> gold_ceilings(q, pd.DataFrame({"query_id": ["a"]}))[["group", "ceiling"]].values.tolist()
    [['overall', 75.0], ['x', 50.0], ['y', 100.0]]
    """
    universe = _universe(data, by)
    ids, notes = _corrupted(errors, universe, data)
    universe = universe.assign(corrupted=universe["query_id"].astype(str).isin(ids))
    parts = [("overall", universe)]
    if by is not None:
        parts += [(str(g), part) for g, part in universe.groupby(by, sort=True)]
    rows = [{"group": g, "n": len(p), "n_corrupted": int(p["corrupted"].sum()),
             "ceiling": 100 * (len(p) - int(p["corrupted"].sum())) / len(p)} for g, p in parts]
    return stamp(pd.DataFrame(rows), "gold_ceilings", kinds=declare(points=("ceiling",)), notes=notes, unit=POINTS, by=by, resampled=False)


def ceiling_flags(scores: pd.DataFrame, ceilings: pd.DataFrame, *, columns: list[str] | None = None) -> pd.DataFrame:
    """Scores above the ceiling their group's wrong gold answers allow.

    Parameters
    ----------
    scores
        A tidy frame with ``system``, ``group`` (matching the ceilings' groups, ``"overall"`` for the
        overall score) and score columns in points (published or computed).
    ceilings
        :func:`gold_ceilings` output.
    columns
        The score columns to check (default: every numeric column other than ``n``).

    Returns
    -------
    pandas.DataFrame
        One row per (system, group, column): ``score``, ``ceiling``, ``excess`` (score − ceiling,
        points) and ``above`` (True when the score exceeds the ceiling). ``attrs["notes"]`` name
        each score above its ceiling.

    Raises
    ------
    VerdictError
        Missing ``system``/``group`` columns or a group without a ceiling.

    References
    ----------
    SPEC §9.4.

    Examples
    --------
    >>> c = pd.DataFrame({"group": ["overall"], "n": [10], "n_corrupted": [1], "ceiling": [90.0]})
    >>> s = pd.DataFrame({"system": ["m"], "group": ["overall"], "published": [92.0]})
    >>> ceiling_flags(s, c)[["system", "score", "above"]].values.tolist()
    [['m', 92.0, True]]
    """
    for column in ("system", "group"):
        if column not in scores:
            raise VerdictError(f"the scores need a '{column}' column.")
    cap = dict(zip(ceilings["group"].astype(str), ceilings["ceiling"]))
    missing = sorted(set(scores["group"].astype(str)) - set(cap))
    if missing:
        raise VerdictError(f"no ceiling for group {missing[0]!r} (ceilings: {', '.join(cap)}).")
    if columns is None:
        columns = [c for c in scores.select_dtypes("number").columns if c != "n"]
    rows = []
    for rec in scores.itertuples(index=False):
        rec = rec._asdict()
        for column in columns:
            value = float(rec[column])
            ceiling = float(cap[str(rec["group"])])
            rows.append({"system": rec["system"], "group": str(rec["group"]), "column": column, "score": value,
                         "ceiling": ceiling, "excess": value - ceiling, "above": bool(value > ceiling)})
    out = pd.DataFrame(rows)
    notes = [Note(f"{r.system} {r.group} {r.column} {r.score:.2f} is above the ceiling {r.ceiling:.2f} that the wrong "
                  "gold answers allow: the judge credited answers that match wrong gold or are lenient",
                  code="score-above-gold-ceiling", severity="warning", concerns=(r.system, r.group))
             for r in out[out["above"]].itertuples()]
    return stamp(out, "ceiling_flags", kinds=declare(points=("score", "ceiling", "excess")), notes=notes, unit=POINTS, resampled=False)
def clean_rescore(
    data: pd.DataFrame | Prepared,
    errors: pd.DataFrame | str,
    *,
    reference: str | None = None,
    by: str | None = "category",
    options: Options | Mapping | None = None,
) -> dict[str, pd.DataFrame]:
    """Scores and paired differences with the corrupted questions excluded, beside the full ones.

    Parameters
    ----------
    data
        Canonical verdicts or :func:`memdiag.prepare` output.
    errors
        :func:`memdiag.read_gold_errors` output, a frame with ``query_id``, or a 0/1 per-query column name.
    reference
        The differences (and flows) are each system minus ``reference``; None: every pair.
    by
        Per-query column for per-group scores (None: overall only).
    options
        :class:`memdiag.Options` (a mapping of its fields, or None for the defaults): reads design
        (None: the prepared data's, the benchmark's default; SPEC §4.1's rule decides the
        method), confidence_level (the interval level), and inference, n_resamples (at least 1),
        seed and correction for :func:`memdiag.compare` (its wild bootstrap p-values) and
        :func:`memdiag.flows`.

    Returns
    -------
    dict of pandas.DataFrame
        ``"scores"``: per system and group, ``full``/``clean`` scores with ``*_ci_low``/``*_ci_high``
        (points; cluster jackknife with t(G − H) under cluster designs, else normal) and ``n_full``,
        ``n_clean``. ``"differences"``: per pair, the :func:`memdiag.compare` difference, interval and
        Holm-adjusted p on the full and the clean questions, with ``changed`` (the interval excludes
        0 in one and not the other, or the sign flips) and, with a ``reference``, the benefit and tax
        rates of :func:`memdiag.flows` on both. Notes name each changed conclusion. With one system
        the scores need no comparison: ``"differences"`` is empty (same columns) and a note says so.

    Raises
    ------
    VerdictError
        As :func:`gold_ceilings`, and no clean question left.

    References
    ----------
    SPEC §9.4 (re-scoring on the clean subset), SPEC §2 (flows) and SPEC §4.1 (intervals).

    Examples
    --------
    >>> import memdiag as md
    >>> df = md.simulate(n_queries=120, seed=2)
    >>> errors = pd.DataFrame({"query_id": sorted(df["query_id"].unique())[:12]})
    >>> out = clean_rescore(df, errors, reference="raw-rag", options={"n_resamples": 999})
    >>> out["scores"].loc[0, ["n_full", "n_clean"]].tolist()
    [120, 108]
    """
    from memdiag.analyses.compare import compare
    from memdiag.analyses.flows import flows

    opts = as_options(options)
    confidence_level, n_resamples = opts.confidence_level, opts.n_resamples
    prep = as_prepared(data, design=opts.design)
    inner = opts.replace(design=None)  # prep (and its clean subset) already have the design
    universe = _universe(prep, None)
    ids, notes = _corrupted(errors, universe, data)
    clean_rows = ~pd.Series(prep.panel.query_ids).astype(str).isin(ids).to_numpy()
    if not clean_rows.any():
        raise VerdictError("every question is listed as corrupted: nothing is left to score.")
    clean = prep.subset(clean_rows)
    scores = []
    groups = [("overall", np.ones(prep.n, dtype=bool))]
    if by is not None and by in prep.panel.queries:
        values = prep.panel.queries[by].astype(str).to_numpy()
        groups += [(g, values == g) for g in sorted(set(values))]
    for j, name in enumerate(prep.systems):
        for group, mask in groups:
            row = {"system": name, "group": group}
            for label, rows in (("full", mask), ("clean", mask & clean_rows)):
                x = prep.panel.scores[:, j]
                if not rows.any():
                    row.update({label: np.nan, f"{label}_ci_low": np.nan, f"{label}_ci_high": np.nan,
                                f"n_{label}": 0})
                    continue
                mean = float(x[rows].mean())
                var, df = _design_variance(prep, x, rows) if rows.sum() > 1 else (np.nan, None)
                q = stats.norm.ppf(0.5 + confidence_level / 2) if df is None else stats.t.ppf(
                    0.5 + confidence_level / 2, df)
                half = q * np.sqrt(var)
                row.update({label: 100 * mean, f"{label}_ci_low": 100 * max(0.0, mean - half),
                            f"{label}_ci_high": 100 * min(1.0, mean + half), f"n_{label}": int(rows.sum())})
            scores.append(row)
    scores = pd.DataFrame(scores)
    notes.append(Note(f"{int((~clean_rows).sum())} of {prep.n} questions with a score-corrupting gold error are "
                      f"left out of the clean scores", code="gold-errors-excluded"))
    settings = {"unit": POINTS, "confidence_level": confidence_level, "n_resamples": n_resamples, "by": by}
    if len(prep.systems) < 2:
        if reference is not None and reference not in prep.systems:
            raise VerdictError(f"reference '{reference}' is not in the data (systems: {', '.join(prep.systems)}).")
        notes.append(Note(f"one system ({prep.systems[0]}): its ceilings, flags and clean scores need no comparison; "
                          "the paired differences (and flows) are skipped", code="gold-errors-one-system"))
        numbers = [f"{c}_{label}" for label in ("full", "clean") for c in ("diff", "ci_low", "ci_high", "p_adj")]
        diffs = pd.DataFrame({"system_a": pd.Series(dtype=object), "system_b": pd.Series(dtype=object),
                              **{c: pd.Series(dtype=float) for c in numbers}, "changed": pd.Series(dtype=bool)})
        return {"scores": stamp(scores, "clean_rescore", prep, kinds=_KINDS, notes=notes, **settings),
                "differences": stamp(diffs, "clean_rescore", prep, kinds=_KINDS, notes=notes, **settings)}
    full_c = compare(prep, reference=reference, options=inner)
    clean_c = compare(clean, reference=reference, options=inner)
    keys = ["system_a", "system_b"]
    keep = ["diff", "ci_low", "ci_high", "p_adj"]
    diffs = full_c[keys + keep].merge(clean_c[keys + keep], on=keys, suffixes=("_full", "_clean"))
    sig_full = (diffs["ci_low_full"] > 0) | (diffs["ci_high_full"] < 0)
    sig_clean = (diffs["ci_low_clean"] > 0) | (diffs["ci_high_clean"] < 0)
    flip = np.sign(diffs["diff_full"]) * np.sign(diffs["diff_clean"]) < 0
    diffs["changed"] = (sig_full != sig_clean) | flip
    if reference is not None:
        for label, p in (("full", prep), ("clean", clean)):
            f = flows(p, reference, options=inner)
            f = f.rename(columns={"system": "system_a", "benefit_rate": f"benefit_rate_{label}",
                                  "tax_rate": f"tax_rate_{label}"})
            diffs = diffs.merge(f[["system_a", f"benefit_rate_{label}", f"tax_rate_{label}"]], on="system_a",
                                how="left")
    for r in diffs[diffs["changed"]].itertuples():
        notes.append(Note(f"{r.system_a} − {r.system_b}: {r.diff_full:+.2f} [{r.ci_low_full:+.2f}, "
                          f"{r.ci_high_full:+.2f}] on all questions, {r.diff_clean:+.2f} [{r.ci_low_clean:+.2f}, "
                          f"{r.ci_high_clean:+.2f}] on the clean ones: the conclusion changes",
                          code="gold-errors-change-conclusion", severity="warning", concerns=(r.system_a, r.system_b)))
    if not diffs["changed"].any():
        notes.append(Note("no paired difference changes its conclusion on the clean questions",
                          code="gold-errors-no-change"))
    return {"scores": stamp(scores, "clean_rescore", prep, kinds=_KINDS, notes=notes, **settings),
            "differences": stamp(diffs, "clean_rescore", prep, kinds=_KINDS, notes=notes, **settings)}
