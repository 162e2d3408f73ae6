"""Judge leniency: how often the judge accepts answers known to be wrong, and what that implies (SPEC §9.3).

- :func:`judge_leniency` — the false-positive rate on known-wrong answers (adversarial baselines),
  per judgment and per question (majority of the judgments), with Clopper–Pearson intervals, per group;
- :func:`length_effect` — a within-question test of whether the verdict depends on answer length
  (conditional logistic regression, question as the stratum);
- :func:`leniency_bound` — a system's accuracy once the judge's false acceptances are removed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy import optimize, stats

from memdiag.core.kinds import declare, with_intervals
from memdiag.core.notes import Note
from memdiag.core.provenance import POINTS, stamp
from memdiag.engine.inference.misclassification import clopper_pearson
from memdiag.engine.options import Options, as_options
from memdiag.errors import VerdictError
from memdiag.io.canonical import check
from memdiag.measurement.judge_error import _design_variance
from memdiag.panel.prepare import Prepared, as_prepared

__all__ = ["judge_leniency", "length_effect", "leniency_bound", "leniency_breakeven"]


def _answers(data: pd.DataFrame) -> pd.DataFrame:
    df = check(data)
    if df["score"].isna().any():
        raise VerdictError(f"{int(df['score'].isna().sum())} verdicts have no score; known-wrong answers need a "
                           "verdict for every judgment.")
    return df


def judge_leniency(data: pd.DataFrame, *, by: str | None = "category",
                   options: Options | Mapping | None = None) -> pd.DataFrame:
    """The judge's false-positive rate on answers known to be wrong, with Clopper–Pearson intervals.

    Parameters
    ----------
    data
        Canonical verdicts of known-wrong answers (each ``system`` one wrong-answer strategy), one
        row per judgment (``repeat`` numbers the judgments); accepted = score > 0.5.
    by
        A per-query column to break the rate down by (default ``category``; None: overall only).
    options
        :class:`memdiag.Options` (or a mapping of its fields; None: the defaults); reads
        confidence_level (the level of the Clopper–Pearson intervals) only.

    Returns
    -------
    pandas.DataFrame
        One row per system and group (``group`` = ``"overall"`` first): ``n_questions``,
        ``n_judgments``, ``accepted`` (judgments), ``fpr`` (accepted/judgments, points) with
        ``ci_low``/``ci_high`` (Clopper–Pearson on the judgments), ``fpr_majority`` (questions whose
        majority of judgments accepted, points) with ``ci_low_majority``/``ci_high_majority``
        (Clopper–Pearson on the questions).

    Raises
    ------
    VerdictError
        Bad verdicts, a missing score, or a ``by`` column the verdicts lack.

    Notes
    -----
    The per-judgment rate is the mean of the single-judgment rates (the locomo-audit README's
    definition); its Clopper–Pearson interval treats the judgments as independent, which the
    repeated judgments of one answer are not, so the per-question interval is the safer one.

    References
    ----------
    SPEC §9.3. Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial limits
    illustrated in the case of the binomial. Biometrika 26(4), 404–413.

    Examples
    --------
    >>> df = pd.DataFrame({"system": "wrong", "query_id": ["a", "a", "b", "b"], "repeat": [0, 1, 0, 1],
    ...                    "score": [1, 1, 0, 1], "category": ["x", "x", "y", "y"]})
    >>> judge_leniency(df)[["group", "accepted", "n_judgments", "fpr"]].values.tolist()
    [['overall', 3, 4, 75.0], ['x', 2, 2, 100.0], ['y', 1, 2, 50.0]]
    """
    confidence_level = as_options(options).confidence_level
    df = _answers(data)
    if by is not None and by not in df:
        raise VerdictError(f"the verdicts have no '{by}' column to break the false-positive rate down by.")
    df = df.assign(accepted=(df["score"] > 0.5).astype(int))
    per_question = df.groupby(["system", "query_id"], sort=True).agg(
        accepted=("accepted", "sum"), judgments=("accepted", "size"),
        **({"group": (by, "first")} if by is not None else {})).reset_index()
    per_question["majority"] = (2 * per_question["accepted"] > per_question["judgments"]).astype(int)
    rows = []
    for system, q in per_question.groupby("system", sort=True):
        parts = [("overall", q)]
        if by is not None:
            parts += [(str(g), part) for g, part in q.groupby("group", sort=True)]
        for group, part in parts:
            k, n = int(part["accepted"].sum()), int(part["judgments"].sum())
            km, nm = int(part["majority"].sum()), len(part)
            lo, hi = clopper_pearson(k, n, confidence_level)
            lom, him = clopper_pearson(km, nm, confidence_level)
            rows.append({"system": system, "group": group, "n_questions": nm, "n_judgments": n, "accepted": k,
                         "fpr": 100 * k / n, "ci_low": 100 * lo, "ci_high": 100 * hi,
                         "fpr_majority": 100 * km / nm, "ci_low_majority": 100 * lom, "ci_high_majority": 100 * him})
    out = pd.DataFrame(rows)
    notes = [Note("false-positive rate per judgment = accepted judgments / judgments; its Clopper–Pearson interval "
                  "treats the repeated judgments of an answer as independent (they are not): read the per-question "
                  "(majority) interval for inference", code="leniency-judgments-correlated", severity="caution")]
    kinds = declare(points=("fpr", "ci_low", "ci_high", "fpr_majority", "ci_low_majority", "ci_high_majority"))
    return stamp(out, "judge_leniency", kinds=kinds, notes=notes, unit=POINTS, confidence_level=confidence_level, by=by,
                 resampled=False)


def length_effect(data: pd.DataFrame, *, length: str | None = None,
                  options: Options | Mapping | None = None) -> pd.DataFrame:
    """A within-question test of whether the judge's verdict depends on the answer's length.

    Parameters
    ----------
    data
        Canonical verdicts of several answers to the same questions (each ``system`` one answer
        source: wrong-answer strategies, runs, systems), one or more judgments per answer.
    length
        A per-answer numeric column holding the length; None: the number of words of ``response``.
    options
        :class:`memdiag.Options` (or a mapping of its fields; None: the defaults); reads
        confidence_level (the level of the Wald interval) only.

    Returns
    -------
    pandas.DataFrame
        One row: ``coef`` (log-odds of acceptance per doubling of the length, within a question,
        adjusted for the answer source), ``se``, ``ci_low``, ``ci_high``, ``odds_ratio`` (per
        doubling), ``p`` (Wald), ``n_questions`` (questions whose answers are not all accepted or all
        rejected: the only ones that inform the test), ``n_answers``.

    Raises
    ------
    VerdictError
        Bad verdicts; no ``response`` and no ``length`` column; a length that is not positive;
        fewer than two answers per question anywhere; no informative question.

    Notes
    -----
    Each answer's verdict is the majority of its judgments. statsmodels' ``ConditionalLogit``
    with the question as the group conditions the question's difficulty away, so only the
    differences between answers to the same question count; the source of the answer enters as
    indicator terms (length is compared within strategy as well as across).

    References
    ----------
    SPEC §9.3. Breslow, N. E. & Day, N. E. (1980). Statistical Methods in Cancer Research I: the
    analysis of case-control studies (conditional logistic regression), IARC.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> n = 300
    >>> words = rng.integers(2, 60, size=(n, 2))
    >>> accept = rng.random((n, 2)) < 1 / (1 + np.exp(-(np.log2(words) - 3)))
    >>> df = pd.DataFrame({"system": np.tile(["v1", "v2"], n), "query_id": np.repeat(np.arange(n).astype(str), 2),
    ...                    "score": accept.ravel().astype(float), "length": words.ravel()})
    >>> out = length_effect(df, length="length")
    >>> bool(out.loc[0, "p"] < 0.01), bool(0.5 < out.loc[0, "coef"] < 1.6)
    (True, True)
    """
    from statsmodels.discrete.conditional_models import ConditionalLogit

    confidence_level = as_options(options).confidence_level
    df = _answers(data)
    if length is None:
        if "response" not in df:
            raise VerdictError("length_effect needs a 'response' column (answer text) or length='<column>'.")
        df = df.assign(_length=df["response"].fillna("").astype(str).str.split().str.len())
    else:
        if length not in df:
            raise VerdictError(f"the verdicts have no '{length}' column.")
        df = df.assign(_length=pd.to_numeric(df[length], errors="coerce"))
    answers = df.groupby(["query_id", "system"], sort=True).agg(score=("score", "mean"),
                                                                  length=("_length", "first")).reset_index()
    bad = answers[~(answers["length"] > 0)]
    if len(bad):
        row = bad.iloc[0]
        raise VerdictError(f"system '{row['system']}', query '{row['query_id']}': answer length {row['length']!r} "
                           f"is not positive ({len(bad)} such answers); drop empty answers first.")
    answers["accepted"] = (answers["score"] > 0.5).astype(float)
    informative = answers.groupby("query_id")["accepted"].transform(lambda a: 0 < a.mean() < 1)
    used = answers[informative]
    if used.empty:
        raise VerdictError("no question has answers with different verdicts: the within-question test has no "
                           "information.")
    X = pd.DataFrame({"log2_length": np.log2(used["length"].to_numpy(dtype=float))})
    systems = sorted(used["system"].unique())
    for s in systems[1:]:
        X[f"system={s}"] = (used["system"] == s).to_numpy(dtype=float)
    fit = ConditionalLogit(used["accepted"].to_numpy(), X.to_numpy(), groups=used["query_id"].to_numpy()).fit(disp=0)
    coef, se = float(fit.params[0]), float(fit.bse[0])
    z = stats.norm.ppf(0.5 + confidence_level / 2)
    out = pd.DataFrame([{"coef": coef, "se": se, "ci_low": coef - z * se, "ci_high": coef + z * se,
                         "odds_ratio": math.exp(coef), "p": float(2 * stats.norm.sf(abs(coef / se))),
                         "n_questions": int(used["query_id"].nunique()), "n_answers": int(len(answers))}])
    dropped = int(answers["query_id"].nunique() - used["query_id"].nunique())
    notes = [Note(f"{dropped} questions whose answers all got the same verdict carry no within-question "
                  "information and are left out of the fit", code="length-uninformative-questions")]
    kinds = declare(real=("coef", "se", "ci_low", "ci_high", "odds_ratio"), p=("p",))   # log-odds per doubling
    return stamp(out, "length_effect", kinds=kinds, notes=notes, confidence_level=confidence_level, resampled=False)
def leniency_bound(
    data: pd.DataFrame | Prepared,
    false_positive_rate: float | pd.DataFrame,
    *,
    sensitivity: float = 1.0,
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """Each system's accuracy once the judge's false acceptances are taken out.

    Parameters
    ----------
    data
        Canonical verdicts of the systems (the judge's scores) or :func:`memdiag.prepare` output.
    false_positive_rate
        The judge's false-positive rate f in points, or a :func:`judge_leniency` result (its first
        system's ``overall`` row: ``fpr`` and its Clopper–Pearson interval).
    sensitivity
        The judge's sensitivity s (accepts a right answer), default 1.
    options
        :class:`memdiag.Options` (a mapping of its fields, or None for the defaults): reads design
        (of the observed score's interval; None: the prepared data's, the benchmark's default)
        and confidence_level (the joint level of the interval, each of the two ingredients at
        1 − α/2, Bonferroni); no resampling.

    Returns
    -------
    pandas.DataFrame
        One row per system: ``raw`` (points), ``fpr``, ``bound`` = 100·(p − f)/(s − f) and its
        interval ``bound_low``/``bound_high`` (points).

    Raises
    ------
    VerdictError
        f ≥ s, rates outside their range, bad verdicts.

    Notes
    -----
    The judge accepts with probability p = sθ + f(1 − θ), so θ = (p − f)/(s − f). With s = 1 this
    is the accuracy after removing the false acceptances, and an upper bound on the true accuracy
    whenever the system's wrong answers are accepted at least at rate f; a smaller sensitivity
    raises θ. θ is increasing in p and decreasing in f, so the interval combines p's interval
    under the design with f's interval at the ends that make θ smallest and largest.

    References
    ----------
    SPEC §9.3 (leniency) and SPEC §4.1 (the design's interval of p).

    Examples
    --------
    >>> df = pd.DataFrame({"system": "mem", "query_id": list("abcdefghij"), "score": [1] * 8 + [0] * 2})
    >>> round(float(leniency_bound(df, 50.0, options={"design": "iid"}).loc[0, "bound"]), 6)   # (0.8 − 0.5)/(1 − 0.5)
    60.0
    """
    opts = as_options(options)
    confidence_level = opts.confidence_level
    if not 0 < sensitivity <= 1:
        raise VerdictError(f"sensitivity must lie in (0, 1], got {sensitivity!r}.")
    alpha = 1 - confidence_level
    if isinstance(false_positive_rate, pd.DataFrame):
        row = false_positive_rate[false_positive_rate["group"] == "overall"].iloc[0]
        f = row["fpr"] / 100
        k, n = int(row["accepted"]), int(row["n_judgments"])
        f_lo, f_hi = clopper_pearson(k, n, 1 - alpha / 2)
    else:
        f = float(false_positive_rate) / 100
        f_lo = f_hi = f
    if not 0 <= f < sensitivity:
        raise VerdictError(f"the false-positive rate {100 * f:.2f} must lie in [0, sensitivity); the judge then "
                           "tells right from wrong at all.")
    prep = as_prepared(data, design=opts.design)
    rows = []
    for j, name in enumerate(prep.systems):
        x = prep.panel.scores[:, j]
        p = float(x.mean())
        var, df = _design_variance(prep, x)
        level = 1 - alpha / 2
        q = stats.norm.ppf(0.5 + level / 2) if df is None else stats.t.ppf(0.5 + level / 2, df)
        p_lo, p_hi = max(0.0, p - q * math.sqrt(var)), min(1.0, p + q * math.sqrt(var))
        rows.append({"system": name, "raw": 100 * p, "fpr": 100 * f, "bound": 100 * (p - f) / (sensitivity - f),
                     "bound_low": 100 * max(0.0, (p_lo - f_hi) / (sensitivity - f_hi)),
                     "bound_high": 100 * min(1.0, (p_hi - f_lo) / (sensitivity - f_lo))})
    out = pd.DataFrame(rows)
    notes = [Note(f"accuracy with the judge's false acceptances removed: (raw − f)/(s − f), f = {100 * f:.2f}, "
                  f"s = {sensitivity:g}; the false-positive rate was measured on known-wrong answers, which may be "
                  "accepted more or less often than a system's own wrong answers", code="leniency-bound",
                  severity="caution")]
    kinds = declare(points=("raw", "fpr", "bound", "bound_low", "bound_high"))
    return stamp(out, "leniency_bound", prep, kinds=kinds, notes=notes, unit=POINTS, confidence_level=confidence_level,
                 sensitivity=sensitivity)


def _corrected_bound(prep: Prepared, ia: int, ib: int, fa: float, fb: float, confidence_level: float,
                     side: str) -> float:
    """The end of the interval nearer 0 of θ_a − θ_b with false-positive rates fa, fb (sensitivity 1)."""
    x = (prep.panel.scores[:, ia] - fa) / (1 - fa) - (prep.panel.scores[:, ib] - fb) / (1 - fb)
    var, df = _design_variance(prep, x)
    q = stats.norm.ppf(0.5 + confidence_level / 2) if df is None else stats.t.ppf(0.5 + confidence_level / 2, df)
    return float(x.mean() - q * math.sqrt(var)) if side == "low" else float(x.mean() + q * math.sqrt(var))
def leniency_breakeven(
    data: pd.DataFrame | Prepared,
    reference: str,
    *,
    false_positive_rate: float = 0.0,
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """How much more lenient the judge would have to be with one side to explain a difference away.

    Parameters
    ----------
    data
        Canonical verdicts or :func:`memdiag.prepare` output.
    reference
        The reference system (differences are each system minus it).
    false_positive_rate
        The judge's false-positive rate (points) on the side it favours less (the reference for a
        benefit, the system for a tax); 0 by default. The audit's wrong-answer baselines measure
        10.61 (specific answers) and 62.81 (vague ones) for the LoCoMo judge.
    options
        :class:`memdiag.Options` (a mapping of its fields, or None for the defaults): reads design
        (None: the prepared data's, the benchmark's default) and confidence_level (the interval
        level); no resampling.

    Returns
    -------
    pandas.DataFrame
        One row per system: ``raw`` (the judged difference, points) with ``raw_ci_low``/``raw_ci_high``
        under the design, ``favoured`` (the side a lenient judge would have to favour to explain the
        difference: ``system`` for a benefit, ``reference`` for a tax, empty when the interval
        already includes 0) and ``breakeven_gap`` (points): the extra false-positive rate on the
        favoured side's wrong answers at which the corrected difference's interval reaches 0.

    Raises
    ------
    VerdictError
        An unknown reference, a rate outside [0, 100), bad verdicts.

    Notes
    -----
    With sensitivity 1 a judge with false-positive rate f accepts with probability θ + f(1 − θ), so
    θ = (p − f)/(1 − f). Differential leniency — f_a for the system, f_b for the reference — turns
    the per-query difference into d_i(f_a, f_b) = (y_ai − f_a)/(1 − f_a) − (y_bi − f_b)/(1 − f_b); the
    gap g solves "the interval of mean(d) under the design touches 0" with the favoured side at
    f + g (Brent's method). A judge that errs the same way for both systems only scales the
    difference (SPEC §9.1); a difference in leniency between the systems' answer styles can
    create one.

    References
    ----------
    SPEC §9.3 (leniency) and SPEC §4.1 (the design's interval).

    Examples
    --------
    >>> import memdiag as md
    >>> df = md.simulate(n_queries=300, seed=4)
    >>> out = leniency_breakeven(df, "raw-rag", options={"design": "iid"})
    >>> sorted(out.columns)[:3]
    ['breakeven_gap', 'favoured', 'raw']
    """
    opts = as_options(options)
    confidence_level = opts.confidence_level
    f = float(false_positive_rate) / 100
    if not 0 <= f < 1:
        raise VerdictError(f"false_positive_rate must lie in [0, 100) points, got {false_positive_rate!r}.")
    prep = as_prepared(data, design=opts.design)
    if reference not in prep.systems:
        raise VerdictError(f"reference '{reference}' is not in the data (systems: {', '.join(prep.systems)}).")
    ib = prep.panel.system_index(reference)
    rows = []
    for name in prep.systems:
        if name == reference:
            continue
        ia = prep.panel.system_index(name)
        low = _corrected_bound(prep, ia, ib, 0.0, 0.0, confidence_level, "low")
        high = _corrected_bound(prep, ia, ib, 0.0, 0.0, confidence_level, "high")
        raw = float((prep.panel.scores[:, ia] - prep.panel.scores[:, ib]).mean())
        favoured, gap = "", np.nan
        if low > 0 or high < 0:
            favoured = "system" if low > 0 else "reference"
            side = "low" if low > 0 else "high"

            def bound(g: float) -> float:
                fa, fb = (f + g, f) if favoured == "system" else (f, f + g)
                return _corrected_bound(prep, ia, ib, fa, fb, confidence_level, side)

            top = 1 - f - 1e-9
            if bound(top) * bound(0.0) < 0:
                gap = 100 * optimize.brentq(bound, 0.0, top, xtol=1e-12)
        rows.append({"system": name, "reference": reference, "raw": 100 * raw, "raw_ci_low": 100 * low,
                     "raw_ci_high": 100 * high, "favoured": favoured, "breakeven_gap": gap})
    out = pd.DataFrame(rows)
    notes = [Note(f"a judge {g:.1f} points more lenient with the wrong answers of {r.system if r.favoured == 'system' else r.reference} "
                  f"than with those of {r.reference if r.favoured == 'system' else r.system} (base rate "
                  f"{100 * f:.2f}) would explain the difference {r.raw:+.2f} away",
                  code="leniency-breakeven", concerns=(r.system, r.reference))
             for r in out.itertuples() if np.isfinite(g := r.breakeven_gap)]
    kinds = declare(points=(*with_intervals("raw"), "breakeven_gap"))
    return stamp(out, "leniency_breakeven", prep, kinds=kinds, notes=notes, unit=POINTS, confidence_level=confidence_level,
                 false_positive_rate=false_positive_rate)
