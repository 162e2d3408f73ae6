"""The verdict is not the truth: scores and differences corrected for an imperfect judge (SPEC §9.1, §9.2).

Two corrections of a prepared panel, each with the system scores and the paired differences:

- :func:`judge_corrected` — Rogan–Gladen with the Lee et al. (2025) interval, the judge's
  sensitivity and specificity taken from a human-labelled calibration subset (a label column) or
  stated with the counts behind them; the test-set part of the variance follows the design
  (cluster jackknife with t(G − H) for clustered data, SPEC §4.1);
- :func:`ppi` — prediction-powered inference (PPI++, power-tuned λ) from the same label column,
  with the cluster jackknife of its estimator of cluster sums under a cluster design.

:func:`calibration_size` says how many labelled items a target interval width needs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats

from memdiag.core.kinds import declare, with_intervals
from memdiag.core.notes import Note
from memdiag.core.provenance import POINTS, stamp
from memdiag.engine.inference import misclassification as mc
from memdiag.engine.inference.cluster import jackknife_variance
from memdiag.engine.options import Options, as_options
from memdiag.errors import VerdictError
from memdiag.panel.prepare import Prepared, as_prepared

__all__ = ["calibration_size", "judge_corrected", "ppi", "rogan_gladen"]

CLUSTERED = ("cluster", "stratified-cluster")
#: The untruncated interval's bounds: read by the truncation note, not kept in the table (its own
#: ``ci_low``/``ci_high`` are the interval of ``corrected``).
UNTRUNCATED_BOUNDS = ("corrected_untruncated_ci_low", "corrected_untruncated_ci_high")


def _design_variance(prep: Prepared, values: np.ndarray, rows: np.ndarray | None = None) -> tuple[float, float | None]:
    """Variance of the mean of ``values`` over ``rows`` (all queries by default) under the design:
    the cluster jackknife of the ratio of cluster sums with G − H df for cluster designs, else
    s²/n (divisor n; p(1 − p)/n for 0/1 values) with no df (normal)."""
    rows = np.ones(prep.n, dtype=bool) if rows is None else rows
    x = np.asarray(values, dtype=float)[rows]
    if prep.design in CLUSTERED:
        design = prep.resampling
        units = design.unit_of[rows]
        G = int(design.unit_of.max()) + 1
        sums = np.bincount(units, weights=x, minlength=G)
        counts = np.bincount(units, minlength=G).astype(float)
        keep = counts > 0
        sums, counts = sums[keep], counts[keep]
        strata = None if design.kind == "cluster" else np.asarray(design.unit_stratum)[keep]
        if sums.size < 2:
            raise VerdictError("the cluster jackknife needs at least 2 clusters with data.")
        leave = (sums.sum() - sums) / (counts.sum() - counts)
        df = sums.size - (1 if strata is None else np.unique(strata).size)
        return float(jackknife_variance(leave, strata)), float(df)
    return float(x.var() / x.size), None


def _pairs(systems: Sequence[str], reference: str | None) -> list[tuple[str, str]]:
    if reference is None:
        return list(combinations(systems, 2))
    if reference not in systems:
        raise VerdictError(f"reference '{reference}' is not in the data (systems: {', '.join(systems)}).")
    return [(s, reference) for s in systems if s != reference]


def _labels(prep: Prepared, label: str) -> np.ndarray:
    """The (N, S) 0/1 label matrix with NaN where unlabelled; other values are an error."""
    y = prep.panel.matrix(label)
    bad = ~np.isnan(y) & ~np.isin(y, (0.0, 1.0))
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise VerdictError(f"label column '{label}' must be 0/1 (or empty where unlabelled); system "
                           f"'{prep.systems[j]}', query '{prep.panel.query_ids[i]}' has {y[i, j]!r}.")
    if np.isnan(y).all():
        raise VerdictError(f"label column '{label}' is empty: label a calibration subset (1 = the answer is "
                           "right, 0 = wrong) for at least some queries.")
    return y
def judge_corrected(
    data: pd.DataFrame | Prepared,
    *,
    label: str | None = None,
    sensitivity: float | None = None,
    specificity: float | None = None,
    n_correct: int | None = None,
    n_incorrect: int | None = None,
    reference: str | None = None,
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """Judge-error-corrected scores and paired differences (Rogan–Gladen, Lee et al. interval).

    Parameters
    ----------
    data
        Canonical verdicts (the judge's scores) or :func:`memdiag.prepare` output.
    label
        A per-(system, query) column holding the human (or gold) verdict, 1 right / 0 wrong, on a
        calibration subset and empty elsewhere. The judge's sensitivity is its mean score on the
        labelled right answers (n_correct of them), its specificity one minus its mean score on the
        labelled wrong ones, pooled over systems.
    sensitivity, specificity
        The judge's stated sensitivity (accepts a right answer) and specificity (rejects a wrong
        one), in [0, 1], instead of ``label``.
    n_correct, n_incorrect
        The numbers of truly right and truly wrong calibration items behind ``sensitivity`` and
        ``specificity`` (required with them: the interval carries their sampling error).
    reference
        Differences are each system minus ``reference``; None: every pair in panel order.
    options
        :class:`memdiag.Options` (a mapping of its fields, or None for the defaults): reads design
        (of the test-set variance; None: the prepared data's, the benchmark's default, SPEC §4)
        and confidence_level (the interval level); no resampling (closed-form intervals).

    Returns
    -------
    pandas.DataFrame
        One row per system (``kind="score"``) and per pair (``kind="difference"``, ``system``
        minus ``reference``): ``raw`` (the judge's score), ``corrected``, ``se``, ``ci_low``,
        ``ci_high`` (points), ``raw_ci_low``/``raw_ci_high`` (the judged score's own interval under
        the design), ``calibration_share`` (the calibration set's share of the variance),
        ``df`` (t degrees of freedom, NaN for normal), ``sensitivity``, ``specificity``,
        ``n_correct``, ``n_incorrect``, ``corrected_untruncated`` (the estimate before truncation
        to [0, 100], differences [−100, 100]), ``youden`` (J = sensitivity + specificity − 1) with
        ``youden_ci_low``/``youden_ci_high`` (Newcombe's interval from the calibration counts).
        ``attrs["notes"]`` say what changed, which estimates were truncated and whether J's
        interval reaches 0.

    Raises
    ------
    VerdictError
        Neither ``label`` nor all four stated values, both, a label column that is not 0/1, a
        stated sensitivity or specificity outside [0, 1] (in points?), a judge no better than
        chance (sensitivity + specificity ≤ 1), an unknown reference, bad verdicts.

    Notes
    -----
    θ̂ = (p̂ + q̂₀ − 1)/(q̂₀ + q̂₁ − 1) per system, and (p̂_a − p̂_b)/(q̂₀ + q̂₁ − 1) per pair; the
    variance adds the design-based variance of p̂ (or of the paired p̂_a − p̂_b) and the binomial
    variance of q̂₀, q̂₁ (calibration items independent). Scores averaged over judge repetitions
    enter as the mean acceptance rate, which has the same expectation. An estimate outside its
    range is truncated together with its interval (a warning note gives the untruncated numbers),
    so every estimate lies in its interval; a warning note names a judge whose J interval reaches 0.

    References
    ----------
    SPEC §9.1 (the correction and its interval) and SPEC §4.1 (the design's variance).
    Rogan, W. J. & Gladen, B. (1978). Estimating prevalence from the results of a screening test.
    American Journal of Epidemiology 107(1), 71–76.
    Lee, C., Zeng, T., Jeong, J., Sohn, J. & Lee, K. (2025). How to correctly report LLM-as-a-judge
    evaluations. arXiv:2511.21140.

    Examples
    --------
    >>> import memdiag as md
    >>> df = md.simulate(n_queries=200, seed=1)
    >>> out = md.judge_corrected(df, sensitivity=0.95, specificity=0.8, n_correct=200, n_incorrect=200,
    ...                          options={"design": "iid"})
    >>> out.loc[0, ["kind", "system"]].tolist(), bool(out.loc[0, "corrected"] != out.loc[0, "raw"])
    (['score', 'mem0'], True)
    """
    opts = as_options(options)
    confidence_level = opts.confidence_level
    prep = as_prepared(data, design=opts.design)
    stated = (sensitivity, specificity, n_correct, n_incorrect)
    if label is not None and any(v is not None for v in stated):
        raise VerdictError("give either label= (a calibration column) or the stated sensitivity, specificity, "
                           "n_correct and n_incorrect, not both.")
    scores = prep.panel.scores
    if label is not None:
        y = _labels(prep, label)
        right, wrong = y == 1, y == 0
        m1, m0 = int(right.sum()), int(wrong.sum())
        if m1 == 0 or m0 == 0:
            raise VerdictError(f"label column '{label}' needs both right (1) and wrong (0) answers to estimate "
                               f"sensitivity and specificity; it has {m1} right and {m0} wrong.")
        q1, q0 = float(scores[right].mean()), float(1 - scores[wrong].mean())
        source = f"calibration labels '{label}' ({m1} right, {m0} wrong answers)"
    else:
        if any(v is None for v in stated):
            raise VerdictError("judge_corrected needs label= (a calibration column) or all of sensitivity, "
                               "specificity, n_correct and n_incorrect.")
        q1, q0 = _fraction(sensitivity, "sensitivity"), _fraction(specificity, "specificity")
        m1, m0 = int(n_correct), int(n_incorrect)
        source = f"stated sensitivity {q1:.4f} and specificity {q0:.4f} ({m1} right, {m0} wrong calibration items)"
    rows = []
    est = {}
    for j, name in enumerate(prep.systems):
        var, df = _design_variance(prep, scores[:, j])
        p = float(scores[:, j].mean())
        r = mc.rogan_gladen(p, q0, q1, prep.n, m0, m1, confidence_level=confidence_level,
                            var_p=var, df=df)
        est[name] = p
        rows.append({"kind": "score", "system": name, "reference": "", "raw": 100 * p,
                     **_raw_interval(p, var, df, confidence_level), **_points(r), "df": df})
    for a, b in _pairs(prep.systems, reference):
        ia, ib = prep.panel.system_index(a), prep.panel.system_index(b)
        var, df = _design_variance(prep, scores[:, ia] - scores[:, ib])
        r = mc.rogan_gladen_difference(est[a], est[b], q0, q1, var, m0, m1, confidence_level=confidence_level, df=df)
        rows.append({"kind": "difference", "system": a, "reference": b, "raw": 100 * (est[a] - est[b]),
                     **_raw_interval(est[a] - est[b], var, df, confidence_level), **_points(r), "df": df})
    out = pd.DataFrame(rows)
    out["df"] = out["df"].astype(float)
    out = out.assign(sensitivity=q1, specificity=q0, n_correct=m1, n_incorrect=m0,
                     **_youden(q0, q1, m0, m1, confidence_level))
    notes = [Note(f"judge error from {source}; corrected = (raw + specificity − 1)/(sensitivity + specificity − 1)",
                  code="judge-error-source"), *_uninformative(out.iloc[0], confidence_level),
             *_truncation(out), *_changes(out)]
    out = out.drop(columns=list(UNTRUNCATED_BOUNDS))
    kinds = declare(points=(*with_intervals("raw"), "corrected", "corrected_untruncated", "se", "ci_low", "ci_high"),
                    real=("df", *with_intervals("youden")), fraction=("calibration_share",),
                    probability=("sensitivity", "specificity"))
    return stamp(out, "judge_corrected", prep, kinds=kinds, notes=notes, unit=POINTS, confidence_level=confidence_level)


def _raw_interval(raw: float, var: float, df: float | None, confidence_level: float) -> dict:
    """The judged score's own interval under the design (normal, or t on ``df``), in points."""
    q = stats.norm.ppf(0.5 + confidence_level / 2) if df is None else stats.t.ppf(0.5 + confidence_level / 2, df)
    half = q * np.sqrt(var)
    return {"raw_ci_low": 100 * (raw - half), "raw_ci_high": 100 * (raw + half)}


def _points(r: dict) -> dict:
    """The estimator's result in points: the (truncated) estimate and interval, the untruncated estimate."""
    total = r["var_test"] + r["var_calibration"]
    return {"corrected": 100 * r["estimate"], "se": 100 * r["se"], "ci_low": 100 * r["ci_low"],
            "ci_high": 100 * r["ci_high"], "calibration_share": r["var_calibration"] / total if total > 0 else np.nan,
            "corrected_untruncated": 100 * r["raw_estimate"], "corrected_untruncated_ci_low": 100 * r["raw_ci_low"],
            "corrected_untruncated_ci_high": 100 * r["raw_ci_high"]}


def _fraction(value: float, name: str) -> float:
    """A sensitivity or specificity: a fraction in [0, 1]; a value in points is refused with its fraction."""
    value = float(value)
    if not 0.0 <= value <= 1.0:
        hint = f" (in points? {value:g} points is {value / 100:g})" if 1.0 < value <= 100.0 else ""
        raise VerdictError(f"{name} is a fraction in [0, 1], got {value!r}{hint}. Give it as a fraction; "
                           "accuracies are in points (0–100).")
    return value


def _accuracy(accuracy: float, specificity: float) -> tuple[float, list[Note]]:
    """An accuracy in points (SPEC §9.1), checked against the fraction it may have been meant as.

    The judge accepts with probability q₁θ + (1 − q₀)(1 − θ) ≥ 1 − q₀ whatever the true accuracy θ,
    so an accuracy of at most 1 that is also below the false-positive rate 100·(1 − q₀) in points
    cannot come from the judge in points, while read as a fraction it could: refused, as ambiguous.
    Any other accuracy of at most 1 is read in points with a caution note saying so."""
    value = float(accuracy)
    if not 0.0 <= value <= 100.0:
        raise VerdictError(f"accuracy is in points (0–100), got {value!r}.")
    floor = 100 * (1 - specificity)
    if 0.0 < value <= 1.0 and value < floor:
        raise VerdictError(
            f"accuracy {value:g} looks like a fraction: accuracies are in points (0–100), and {value:g} points is "
            f"below the judge's false-positive rate 100·(1 − specificity) = {floor:.2f} points, which no true accuracy "
            f"gives. Pass {100 * value:g} for the fraction {value:g} (sensitivity and specificity stay fractions).")
    notes = []
    if 0.0 < value <= 1.0:
        notes.append(Note(f"accuracy {value:g} is read in points ({value:g} of 100), not as the fraction {value:g} "
                          f"(= {100 * value:g} points)", code="accuracy-read-in-points", severity="caution"))
    return value, notes


def _youden(q0: float, q1: float, m0: float, m1: float, confidence_level: float) -> dict:
    """J = sensitivity + specificity − 1 and its interval from the calibration counts."""
    low, high = mc.youden_interval(q0, q1, m0, m1, confidence_level=confidence_level)
    return {"youden": q0 + q1 - 1, "youden_ci_low": low, "youden_ci_high": high}


def _uninformative(row: pd.Series, confidence_level: float) -> list[Note]:
    """A warning when J's own interval reaches 0: the correction divides by a J the calibration cannot tell
    from chance (SPEC §9.1)."""
    if row["youden_ci_low"] > 0:
        return []
    return [Note(f"the judge is nearly uninformative: J = sensitivity + specificity − 1 = {row['youden']:.4f}, and its "
                 f"{100 * confidence_level:g}% interval [{row['youden_ci_low']:.4f}, {row['youden_ci_high']:.4f}] from "
                 f"the calibration counts ({int(row['n_correct'])} right, {int(row['n_incorrect'])} wrong) reaches 0; "
                 "the corrected numbers divide by J and can be arbitrarily far off. Label more calibration items "
                 "or use a better judge", code="judge-nearly-uninformative", severity="warning")]


def _truncation(out: pd.DataFrame) -> list[Note]:
    """One warning per row whose corrected estimate fell outside its range and was truncated with its interval."""
    notes = []
    for row in out[out["corrected"] != out["corrected_untruncated"]].itertuples():
        what = "score" if row.kind == "score" else "difference"
        name = (f"{row.system}: " if row.system else "") if row.kind == "score" else f"{row.system} − {row.reference}: "
        limits = "[0, 100]" if row.kind == "score" else "[−100, 100]"
        notes.append(Note(
            f"{name}the corrected {what} {row.corrected_untruncated:.2f} [{row.corrected_untruncated_ci_low:.2f}, "
            f"{row.corrected_untruncated_ci_high:.2f}] lies outside {limits} and is reported truncated, estimate and interval "
            f"alike, as {row.corrected:.2f} [{row.ci_low:.2f}, {row.ci_high:.2f}] points (judged {row.raw:.2f}): the judged number is outside what the judge's sensitivity and "
            "specificity allow — check them",
            code="judge-corrected-truncated", severity="warning",
            concerns=tuple(c for c in (row.system, row.reference) if c)))
    return notes


def _changes(out: pd.DataFrame) -> list[Note]:
    """One note per difference whose interval excludes 0 on one side of the correction only — the
    sentence on what changed."""
    notes = []
    for row in out[out["kind"] == "difference"].itertuples():
        raw_sig = row.raw_ci_low > 0 or row.raw_ci_high < 0
        new_sig = row.ci_low > 0 or row.ci_high < 0
        if raw_sig != new_sig:
            what = "no longer excludes 0" if raw_sig else "now excludes 0"
            notes.append(Note(f"{row.system} − {row.reference}: the corrected interval {what} "
                              f"(raw {row.raw:+.2f} [{row.raw_ci_low:+.2f}, {row.raw_ci_high:+.2f}], corrected "
                              f"{row.corrected:+.2f} [{row.ci_low:+.2f}, {row.ci_high:+.2f}] points)",
                              code="judge-error-changes-conclusion", severity="warning",
                              concerns=(row.system, row.reference)))
    if not notes and (out["kind"] == "difference").any():
        notes.append(Note("no difference changes its conclusion (interval excluding 0 or not) after the correction",
                          code="judge-error-no-change"))
    return notes
def ppi(
    data: pd.DataFrame | Prepared,
    *,
    label: str,
    reference: str | None = None,
    lam: float | None = None,
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """Prediction-powered scores and paired differences (PPI++) from a labelled subset and the judge.

    Parameters
    ----------
    data
        Canonical verdicts (the judge's scores on every query) or :func:`memdiag.prepare` output.
    label
        Per-(system, query) column with the human verdict (1 right / 0 wrong) on the labelled
        queries and empty elsewhere. A pair's difference uses the queries both systems have labelled.
    reference
        Differences are each system minus ``reference``; None: every pair in panel order.
    lam
        The PPI++ weight of the judge in [0, 1] (1: plain PPI; 0: labels only); None: power-tuned
        per row as the ``ppi-python`` package does.
    options
        :class:`memdiag.Options` (a mapping of its fields, or None for the defaults): reads design
        (None: the prepared data's, the benchmark's default; cluster designs use the cluster
        jackknife with t(G − H), SPEC §4.1; others the normal interval of ``ppi_py.ppi_mean_ci``)
        and confidence_level (the interval level); no resampling.

    Returns
    -------
    pandas.DataFrame
        One row per system (``kind="score"``) and pair (``kind="difference"``): ``raw`` (the judge
        on all queries) with ``raw_ci_low``/``raw_ci_high`` under the design, ``labelled_only``
        (the labels' mean), ``corrected`` (PPI), ``se``, ``ci_low``, ``ci_high`` (points), ``lam``,
        ``df``, ``n_labelled``, ``n_unlabelled``. Notes name any difference whose conclusion changes.

    Raises
    ------
    VerdictError
        A label column that is not 0/1 or has fewer than 2 labelled queries for a system or pair,
        ``lam`` outside [0, 1], an unknown reference, bad verdicts.

    Notes
    -----
    θ̂ = λ·mean(Ŷ over unlabelled) + mean(Y − λŶ over labelled). The labelled queries should be a
    random subset (within clusters, for clustered data).

    References
    ----------
    SPEC §9.2 (PPI++ and its clustered variance) and SPEC §4.1 (few clusters).
    Angelopoulos, A. N., Bates, S., Fannjiang, C., Jordan, M. I. & Zrnic, T. (2023).
    Prediction-powered inference. Science 382(6671), 669–674.
    Angelopoulos, A. N., Duchi, J. C. & Zrnic, T. (2023). PPI++: efficient prediction-powered
    inference. arXiv:2311.01453.

    Examples
    --------
    >>> import memdiag as md
    >>> df = md.simulate(n_queries=200, seed=1)
    >>> df["human"] = np.where(df["query_id"].str[-1] == "0", df["score"], np.nan)  # ids ending in 0
    >>> out = md.ppi(df, label="human", options={"design": "iid"})
    >>> out.loc[0, "kind"], int(out.loc[0, "n_labelled"])
    ('score', 33)
    """
    opts = as_options(options)
    confidence_level = opts.confidence_level
    if lam is not None and not 0.0 <= lam <= 1.0:
        raise VerdictError(f"lam must lie in [0, 1], got {lam!r}.")
    prep = as_prepared(data, design=opts.design)
    y = _labels(prep, label)
    s = prep.panel.scores
    clustered = prep.design in CLUSTERED
    rows = []
    targets = [("score", name, "", s[:, j], y[:, j]) for j, name in enumerate(prep.systems)]
    for a, b in _pairs(prep.systems, reference):
        ia, ib = prep.panel.system_index(a), prep.panel.system_index(b)
        targets.append(("difference", a, b, s[:, ia] - s[:, ib], y[:, ia] - y[:, ib]))
    design_ = prep.resampling if clustered else None
    strata = None
    if design_ is not None and design_.kind == "stratified-cluster":
        strata = {str(g): int(h) for g, h in enumerate(design_.unit_stratum)}
    for kind, a, b, judged, truth in targets:
        lab = ~np.isnan(truth)
        if lab.sum() < 2 or (~lab).sum() < 1:
            raise VerdictError(f"PPI for {a}{' − ' + b if b else ''} needs at least 2 labelled and 1 unlabelled "
                               f"query; it has {int(lab.sum())} labelled of {prep.n}.")
        kwargs = {}
        if clustered:
            units = design_.unit_of.astype(str)
            kwargs = {"clusters": units[lab], "clusters_unlabelled": units[~lab], "strata": strata}
        r = mc.ppi_mean(truth[lab], judged[lab], judged[~lab], lam=lam, confidence_level=confidence_level, **kwargs)
        var, df = _design_variance(prep, judged)
        raw = float(judged.mean())
        rows.append({"kind": kind, "system": a, "reference": b, "raw": 100 * raw,
                     **_raw_interval(raw, var, df, confidence_level),
                     "labelled_only": 100 * float(truth[lab].mean()), "corrected": 100 * r["estimate"],
                     "se": 100 * r["se"], "ci_low": 100 * r["ci_low"], "ci_high": 100 * r["ci_high"],
                     "lam": r["lam"], "df": r["df"] if np.isfinite(r["df"]) else np.nan,
                     "n_labelled": int(lab.sum()), "n_unlabelled": int((~lab).sum())})
    out = pd.DataFrame(rows)
    method = ("cluster jackknife of the PPI estimator of cluster sums, t(G − H)" if clustered
              else "normal interval as ppi_py.ppi_mean_ci")
    notes = [Note(f"PPI++ from label column '{label}' ({method}; λ {'power-tuned' if lam is None else lam})",
                  code="ppi-method"), *_changes(out)]
    kinds = declare(points=(*with_intervals("raw"), "labelled_only", "corrected", "se", "ci_low", "ci_high"),
                    real=("lam", "df"))
    return stamp(out, "ppi", prep, kinds=kinds, notes=notes, unit=POINTS, confidence_level=confidence_level)


def rogan_gladen(
    accuracy: float,
    sensitivity: float,
    specificity: float,
    n: int,
    n_correct: int,
    n_incorrect: int,
    *,
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """The Rogan–Gladen corrected accuracy of one judged score, with the Lee et al. interval.

    Parameters
    ----------
    accuracy
        The judge's observed acceptance rate p̂ on the test set, in points (0–100). A value of at
        most 1 that is also below the judge's false-positive rate 100·(1 − specificity) is refused
        as a fraction given for points; any other value of at most 1 is read in points, with a
        caution note.
    sensitivity, specificity
        The judge's sensitivity q̂₁ and specificity q̂₀ estimated on a calibration set, fractions
        in [0, 1].
    n
        Test-set size.
    n_correct, n_incorrect
        Calibration items that are truly right (m₁) and truly wrong (m₀).
    options
        :class:`memdiag.Options` (or a mapping of its fields; None: the defaults); reads
        confidence_level (the interval level) only: the interval is closed-form.

    Returns
    -------
    pandas.DataFrame
        One row: ``raw``, ``corrected``, ``se``, ``ci_low``, ``ci_high`` (points; the estimate and
        the interval truncated alike to [0, 100], with a warning note giving the untruncated ones),
        ``calibration_share`` (the calibration set's share of the variance),
        ``corrected_untruncated``, ``n_correct``, ``n_incorrect`` and ``youden`` with
        ``youden_ci_low``/``youden_ci_high`` (J = sensitivity + specificity − 1 and Newcombe's
        interval from the counts; a warning note when it reaches 0).

    Raises
    ------
    VerdictError
        Rates outside their range (an accuracy outside 0–100 or one that looks like a fraction, a
        sensitivity or specificity outside [0, 1]), non-positive counts, or sensitivity +
        specificity ≤ 1.

    References
    ----------
    SPEC §9.1. Lee et al. (2025), arXiv:2511.21140 (the example below); Rogan & Gladen (1978).

    Examples
    --------
    >>> out = rogan_gladen(50, 0.9, 0.9, 10_000, 5_000, 5_000)    # Lee et al.'s example
    >>> out[["corrected", "ci_low", "ci_high"]].round(2).iloc[0].tolist()
    [50.0, 48.57, 51.43]
    """
    confidence_level = as_options(options).confidence_level
    sensitivity, specificity = _fraction(sensitivity, "sensitivity"), _fraction(specificity, "specificity")
    accuracy, notes = _accuracy(accuracy, specificity)
    r = mc.rogan_gladen(accuracy / 100, specificity, sensitivity, n, n_incorrect, n_correct,
                        confidence_level=confidence_level)
    out = pd.DataFrame([{"kind": "score", "system": "", "reference": "", "raw": accuracy, **_points(r),
                         "n_correct": int(n_correct), "n_incorrect": int(n_incorrect),
                         **_youden(specificity, sensitivity, n_incorrect, n_correct, confidence_level)}])
    notes += [*_uninformative(out.iloc[0], confidence_level), *_truncation(out)]
    out = out.drop(columns=["kind", "system", "reference", *UNTRUNCATED_BOUNDS])
    kinds = declare(points=("raw", "corrected", "corrected_untruncated", "se", "ci_low", "ci_high"),
                    fraction=("calibration_share",), real=with_intervals("youden"))
    return stamp(out, "rogan_gladen", kinds=kinds, notes=notes, unit=POINTS, confidence_level=confidence_level,
                 resampled=False)


def calibration_size(
    accuracy: float,
    sensitivity: float,
    specificity: float,
    n: int,
    width: float,
    *,
    allocation: str = "optimal",
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """How many human-labelled calibration items the Rogan–Gladen interval of a target width needs.

    Parameters
    ----------
    accuracy
        The judge's observed acceptance rate on the test set, in points (checked as in
        :func:`rogan_gladen`).
    sensitivity, specificity
        Planning values of the judge's sensitivity and specificity (e.g. from a pilot), fractions.
    n
        Test-set size.
    width
        Target full width of the interval, in points.
    allocation
        ``"optimal"``: split the labels between truly wrong and truly right items as √A : √B
        (SPEC §9.1), the smallest total; ``"equal"``: as many of each.
    options
        :class:`memdiag.Options` (or a mapping of its fields; None: the defaults); reads
        confidence_level (the level of the planned interval) only.

    Returns
    -------
    pandas.DataFrame
        One row: ``n_incorrect`` (m₀), ``n_correct`` (m₁), ``n_calibration`` (their sum),
        ``corrected`` (the planning accuracy, points), ``width``, ``test_width`` (the interval's
        width with a perfectly known judge, points) and ``feasible``. When ``test_width`` is not
        below ``width`` no calibration set reaches the target: ``feasible`` is False, the sizes are
        NaN (never infinite) and a warning note says how many questions the width needs.

    Raises
    ------
    VerdictError
        Rates outside their range, an accuracy that looks like a fraction (as :func:`rogan_gladen`),
        non-positive ``n`` or ``width``, an unknown ``allocation``, or sensitivity + specificity ≤ 1.

    References
    ----------
    SPEC §9.1; Lee et al. (2025), arXiv:2511.21140 (calibration sample allocation).

    Examples
    --------
    >>> out = calibration_size(50, 0.9, 0.9, 10_000, 3.0)
    >>> int(out.loc[0, "n_incorrect"]), int(out.loc[0, "n_correct"])
    (3605, 3605)
    """
    confidence_level = as_options(options).confidence_level
    sensitivity, specificity = _fraction(sensitivity, "sensitivity"), _fraction(specificity, "specificity")
    accuracy, notes = _accuracy(accuracy, specificity)
    r = mc.calibration_size(accuracy / 100, specificity, sensitivity, n, width / 100,
                            confidence_level=confidence_level, allocation=allocation)
    feasible = bool(np.isfinite(r["m"]))
    sizes = (r["m0"], r["m1"], r["m"]) if feasible else (np.nan, np.nan, np.nan)
    out = pd.DataFrame([{"n_incorrect": sizes[0], "n_correct": sizes[1], "n_calibration": sizes[2],
                         "corrected": 100 * r["accuracy"], "width": float(width), "test_width": 100 * r["test_width"],
                         "feasible": feasible}])
    if not feasible:
        j = sensitivity + specificity - 1
        z = float(stats.norm.ppf(0.5 + confidence_level / 2))
        enough = math.floor(accuracy / 100 * (1 - accuracy / 100) / (width / 200 / z * j) ** 2)
        notes.append(Note(
            f"no finite calibration size: the test set alone ({int(n)} questions) gives an interval "
            f"{100 * r['test_width']:.2f} points wide, not below the target {float(width):g}, and calibration items only "
            f"add to it; the sizes are left empty. Judge more than {enough} questions or accept a width above "
            f"{100 * r['test_width']:.2f} points", code="calibration-infeasible", severity="warning"))
    kinds = declare(count=("n_incorrect", "n_correct", "n_calibration"), points=("corrected", "width", "test_width"))
    return stamp(out, "calibration_size", kinds=kinds, unit=POINTS, confidence_level=confidence_level, allocation=allocation,
                 notes=notes, resampled=False)
