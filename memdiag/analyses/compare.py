"""Paired comparisons of systems: differences with intervals, tests and family adjustment, the
omnibus test, and per-system intervals (SPEC §4, §4.1, §5).

:func:`compare` gives one row per pair of systems, :func:`omnibus` one test across all systems,
:func:`bootstrap` each system's estimate with its interval (or any user statistic of group
sums). Each works on :class:`~memdiag.panel.prepare.Prepared` data: a metric becomes per-query
additive columns and a vectorised statistic of their sums (:mod:`memdiag.panel.metrics`), and
:mod:`memdiag.engine.inference.intervals` gives the intervals and tests the design calls for.

Test choice (SPEC §4.1 rule, :mod:`memdiag.engine.inference.rule`): under the ``iid`` design a
difference of a binary plain-mean metric gets the exact McNemar test and anything else the
bootstrap sign test (paper C.6, A.5.1), both with percentile intervals; under a cluster design
with fewer than 200 clusters the interval is the cluster jackknife with t(G − 1) and the test the
restricted wild cluster bootstrap-t (all sign flips, an exact randomization test, when at most 16
clusters differ); ``inference="percentile"`` reproduces the paper's percentile bootstrap. Binary
plain-mean contrasts are resampled through their 2x2 cells (:func:`memdiag.engine.inference.intervals.infer_cells`),
with one random stream per pair of systems, so a pair gets the same interval in every table.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from memdiag.core import checks as _checks
from memdiag.core.kinds import P_FLOORED, POINTS, REAL, declare
from memdiag.core.notes import Note
from memdiag.core.provenance import stamp
from memdiag.engine.inference import adjust, cochrans_q, mcnemar
from memdiag.engine.inference.boundary import near_boundary_notes
from memdiag.engine.inference.consistency import (
    disagree,
    disagreement_notes,
    few_clusters_note,
    symmetry_note,
)
from memdiag.engine.inference.intervals import (
    Inference,
    describe,
    infer,
    infer_cells,
    linearize,
    provenance_of,
)
from memdiag.engine.inference.margin import MARGIN_TESTS, one_sided
from memdiag.engine.inference.rule import method_for, method_of
from memdiag.engine.inference.wild import EXACT_UP_TO, wild_max_range
from memdiag.engine.options import Options, as_options
from memdiag.engine.pairs import contrast_codes
from memdiag.engine.resampling import (
    accuracy_difference,
    bootstrap_sums,
    omnibus_max_range,
    unit_sums,
)
from memdiag.errors import VerdictError
from memdiag.panel.align import Panel
from memdiag.panel.metrics import MetricColumns, metric_columns
from memdiag.panel.prepare import SCORE_METRICS, Prepared, as_prepared

#: The columns of a :func:`compare` table, in order.
COLUMNS: tuple[str, ...] = ("system_a", "system_b", "estimate_a", "estimate_b", "diff", "ci_low", "ci_high", "se",
                            "p", "p_adj", "p_floor", "disagree", "test", "method", "df", "n", "design", "n_resamples",
                            "seed")
#: The kinds of a :func:`compare` table's columns (with those a margin test adds).
KINDS = declare({"p": P_FLOORED, "p_adj": P_FLOORED}, points=("estimate_a", "estimate_b", "diff", "ci_low", "ci_high", "se",
                                                               "margin", "tost_low", "tost_high"),
                p=("p_margin", "p_margin_adj"), real=("df",), label=("category_id",))
#: The columns a margin test (``test="equivalence"`` or ``"noninferiority"``) adds, in order.
MARGIN_COLUMNS: tuple[str, ...] = ("margin", "tost_low", "tost_high", "p_margin", "p_margin_adj", "within_margin")
#: The kinds of an :func:`omnibus` table's columns: Q's degrees of freedom are a count, the
#: max-range statistic is in points (a real number: Q has none).
OMNIBUS_KINDS = declare({"p": P_FLOORED}, real=("statistic",), count=("df",))
#: What :func:`compare` tests: a difference, equivalence within ±margin, or a ≥ b − margin.
TESTS: tuple[str, ...] = ("difference", *MARGIN_TESTS)


def index_pairs(systems: Sequence[str], reference: str | None) -> list[tuple[int, int]]:
    """The ``(a, b)`` column pairs of a comparison: every unordered pair in system order
    (``reference`` None) or every other system against ``reference``.

    >>> index_pairs(["a", "b", "c"], None), index_pairs(["a", "b", "c"], "b")
    ([(0, 1), (0, 2), (1, 2)], [(0, 1), (2, 1)])
    """
    if reference is None:
        return list(itertools.combinations(range(len(systems)), 2))
    if reference not in systems:
        raise VerdictError(f"reference '{reference}' is not in the data (systems: {', '.join(systems)}).")
    r = list(systems).index(reference)
    return [(i, r) for i in range(len(systems)) if i != r]


def _differences(statistic: Callable[[np.ndarray], np.ndarray], pairs: list[tuple[int, int]]):
    left = np.array([a for a, _ in pairs])
    right = np.array([b for _, b in pairs])

    def diff(sums: np.ndarray) -> np.ndarray:
        est = statistic(sums)
        return est[:, left] - est[:, right]

    return diff


def pair_inference(prepared: Prepared, cols: MetricColumns, pairs: list[tuple[int, int]], *, inference: str,
                   n_resamples: int, seed: int, confidence_level: float, keep_distribution: bool = False) -> Inference:
    """Intervals and tests of each pair's difference a − b under the prepared design (SPEC §4, §4.1).

    A binary plain-mean metric goes through its 2x2 cells (:func:`~memdiag.engine.inference.intervals.infer_cells`,
    one stream per pair of systems); anything else through the statistic of sums, every system in
    one set of shared replicates (:func:`~memdiag.engine.inference.intervals.infer`).
    """
    bounds = (-1.0, 1.0) if cols.binary or cols.label.split(" ")[0] in SCORE_METRICS else None
    common = dict(inference=inference, n_resamples=n_resamples, seed=seed, confidence_level=confidence_level,
                  bounds=bounds, keep_distribution=keep_distribution)
    if cols.binary:
        codes, keys, swap = contrast_codes(cols.per_query, prepared.systems, pairs)
        return infer_cells(codes, prepared.resampling, accuracy_difference, keys=keys, swap=swap,
                           concordant=False, **common)
    return infer(cols.X, prepared.resampling, _differences(cols.statistic, pairs), **common)
def compare(
    data: pd.DataFrame | Prepared,
    *,
    metric: str = "accuracy",
    reference: str | None = None,
    test: str = "difference",
    margin: float | None = None,
    by: str | None = None,
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """Paired differences between systems with intervals, p-values and a family adjustment.

    Parameters
    ----------
    data
        :func:`memdiag.prepare` output, or canonical verdicts (prepared with the defaults). The
        data choices are made there: the scheme (official aggregation, recomputed inside every
        bootstrap replicate), the systems, the missing-data policies of SPEC §1 and the
        threshold (``md.prepare(threshold=...)``: scores binarised at > threshold before
        comparing; None, the default: the scores as they are).
    metric
        ``accuracy`` (the score; under the scheme when there is one), ``coverage``,
        ``utilization``, or any per-query metric column (``f1``, ``bleu``, ...).
    reference
        None (default): every unordered pair, in system order; a system's name: each other
        system minus ``reference``.
    test
        ``difference`` (default): the test of Δ = 0 above. ``equivalence``: the two one-sided
        tests (TOST) of |Δ| < ``margin``; ``noninferiority``: the one-sided test of Δ > −``margin``
        (system_a not worse than system_b by more than the margin). Both read the design's
        interval at level 1 − 2α, α = 1 − ``confidence_level`` (SPEC §5.6).
    margin
        The equivalence or non-inferiority margin in points (needed by the margin tests).
    by
        A per-query column (e.g. ``category``): every pair within each group, with ``by``,
        ``group`` (and ``category_id`` for LoCoMo categories) columns first; the adjustment is
        within each group (one benchmark × metric × group family, the paper's C.6 task
        families).
    options
        :class:`memdiag.Options` (or a mapping of its fields; None: the defaults): the design
        (None: the one :func:`memdiag.prepare` chose from the scheme and the data; the choice
        and its reason are in ``attrs`` and the notes), the inference (``auto``: the SPEC §4.1
        rule, :mod:`memdiag.engine.inference.rule`; ``percentile`` reproduces the paper), the
        replicates B (default 20,000) and seed (recorded), the interval level, and the
        correction over the pairs of this call (one benchmark-metric family, paper C.6).

    Returns
    -------
    pandas.DataFrame
        One row per pair: ``system_a, system_b, estimate_a, estimate_b, diff, ci_low, ci_high,
        se, p, p_adj, p_floor, disagree, test, method, df, n, design, n_resamples, seed``. Estimates and
        differences are in points; ``diff = estimate_a − estimate_b``; ``se`` is the standard
        error of the difference (the replicates' standard deviation, or the cluster jackknife's);
        ``method`` names the interval and ``test`` the p-value; ``p_floor`` is True where a resampled p sits at its
        Monte-Carlo floor (read it as "< p"); ``disagree`` is True where the interval and the test
        disagree about 0 (a caution note names both methods); ``df`` is the degrees of freedom ν of
        a t interval (G − 1 for the jackknife, Bell–McCaffrey for CR2; NaN for percentile
        intervals), shown beside G. ``attrs`` hold the provenance
        (:mod:`memdiag.core.provenance`), including ``n_clusters``, ``inference``, ``method``, the
        degrees of freedom ``df`` of t intervals and the Monte-Carlo standard errors ``mc_se`` of p
        and of the interval ends. A margin test adds ``margin, tost_low, tost_high`` (the
        (1 − 2α) interval it reads), ``p_margin`` (TOST: max of the two one-sided p; non-inferiority:
        the one-sided p), ``p_margin_adj`` (adjusted like ``p``) and ``within_margin``
        (``p_margin_adj`` ≤ α).

    Raises
    ------
    VerdictError
        Fewer than two systems, an unknown reference or option, bad verdicts.
    SchemeError
        A scheme the data cannot satisfy, or a scheme with a metric it does not aggregate.
    ValueError
        An unknown ``design``.
    TypeError
        ``seed`` is neither an int nor a :class:`numpy.random.Generator`.

    Notes
    -----
    Exact McNemar (binary plain-mean metric, iid design): p = min(1, 2·BinomCDF(min(b, c);
    b + c, ½)) with b, c the discordant counts. Bootstrap sign test (other metrics under
    query-level designs, and the percentile method): p = min(1, 2·min(p₋, p₊)),
    p₋ = (1 + #{Δ* ≤ 0})/(1 + B), p₊ = (1 + #{Δ* ≥ 0})/(1 + B). Cluster designs with G < 200:
    Δ̂ ± t_{G−1}·√V_J with the cluster jackknife variance V_J, and the restricted wild cluster
    bootstrap-t p-value on the cluster contributions r_g = D_g/N (SPEC §4.1). Whatever the
    method, at most 16 units with a nonzero contribution make the p-value an exact sign-flip
    randomization p. SPEC §4–§5.

    Margin tests (SPEC §5.6; Schuirmann 1987): with the (1 − 2α) interval of the same method,
    equivalence holds at α when it lies inside (−m, m) — p_TOST = max(p⁻, p⁺), p⁻ = P(Δ ≤ −m)
    and p⁺ = P(Δ ≥ m) one-sided (t: from (Δ̂ ± m)/se on the interval's df; percentile: the
    replicates' share beyond ∓m) — and non-inferiority when its lower end is above −m (p⁻).

    References
    ----------
    SPEC §4 (resampling designs), SPEC §4.1 (few clusters: the interval and test rule), SPEC §5.1
    (exact McNemar), SPEC §5.3 (multiplicity), SPEC §5.6 (equivalence and non-inferiority) and
    SPEC §5.7 (per-group contrasts); Raw-RAG paper C.6 (paired bootstrap with shared indices,
    bootstrap sign tests, Holm per benchmark × metric family) and A.5.1.
    McNemar, Q. (1947). Note on the sampling error of the difference between correlated
    proportions or percentages. Psychometrika 12(2).
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scand. J. Stat. 6(2).
    Cameron, A. C., Gelbach, J. B. & Miller, D. L. (2008). Bootstrap-based improvements for
    inference with clustered errors. Review of Economics and Statistics 90(3), 414–427.
    MacKinnon, J. G., Nielsen, M. Ø. & Webb, M. D. (2023). Cluster-robust inference: a guide to
    empirical practice. Journal of Econometrics 232(2), 272–299.

    Examples
    --------
    >>> import memdiag as md
    >>> df = md.simulate(n_queries=300, systems={"raw-rag": 0.6, "mem": 0.7}, seed=1)
    >>> out = md.compare(df, options=md.Options(n_resamples=2000))   # 30 simulated conversations
    >>> out[["system_a", "system_b", "design", "method"]].to_dict("records")
    [{'system_a': 'mem', 'system_b': 'raw-rag', 'design': 'cluster', 'method': 'cluster jackknife, t(29)'}]
    >>> out.attrs["n_clusters"], out["test"].iloc[0]
    (30, 'wild cluster bootstrap-t, exact (65536 sign flips)')
    >>> md.compare(df, options={"design": "iid", "n_resamples": 2000})["test"].iloc[0]
    'exact McNemar'
    >>> bool(out["ci_low"].iloc[0] <= out["diff"].iloc[0] <= out["ci_high"].iloc[0])
    True
    """
    opts = as_options(options)
    prepared = as_prepared(data, metric=metric, design=opts.design)
    seed, n_resamples, confidence_level = opts.seed, opts.resampled("compare"), opts.confidence_level
    inference, correction = opts.inference, opts.correction
    threshold = prepared.threshold
    test = _checks.choice(test, TESTS, "test")
    margin = _margin(test, margin, confidence_level)
    if len(prepared.systems) < 2:
        raise VerdictError(f"comparing needs at least two systems; the data hold {len(prepared.systems)}.")
    options = dict(metric=metric, reference=reference, inference=inference, n_resamples=n_resamples,
                   seed=seed, confidence_level=confidence_level, correction=correction, threshold=threshold,
                   test=test, margin=margin)
    if by is not None:
        from memdiag.analyses.groups import by_group

        return by_group(prepared, by, _compare_prepared, options)
    return _compare_prepared(prepared, **options)


def _margin(test: str, margin: float | None, confidence_level: float) -> float | None:
    """The margin of a margin test in points (positive), checked against ``test``."""
    if test == "difference":
        if margin is not None:
            raise VerdictError("a margin is for test='equivalence' or test='noninferiority'; the difference test "
                               "has none.")
        return None
    if margin is None or isinstance(margin, bool) or not isinstance(margin, (int, float)) or not 0 < margin < 100 \
            or not math.isfinite(margin):
        raise VerdictError(f"test={test!r} needs a margin in points, a number in (0, 100) (e.g. margin=2.0), got "
                           f"{margin!r}.")
    if confidence_level <= 0.5:
        raise VerdictError(f"a margin test reads the (2·confidence_level − 1) interval; confidence_level "
                           f"{confidence_level} leaves none. Use e.g. 0.95 (α = 0.05, a 90% interval).")
    return float(margin)


def _compare_prepared(prepared: Prepared, *, metric: str, reference: str | None, inference: str,
                      n_resamples: int, seed: int, confidence_level: float, correction: str,
                      threshold: float | None, test: str, margin: float | None) -> pd.DataFrame:
    """:func:`compare` on prepared data with checked options (one group of a ``by=`` table)."""
    cols = metric_columns(prepared, metric, threshold)
    chosen = index_pairs(prepared.systems, reference)
    estimates = cols.statistic(cols.X.sum(axis=0)[None, :])[0]
    result = pair_inference(prepared, cols, chosen, inference=inference, n_resamples=n_resamples, seed=seed,
                            confidence_level=confidence_level)
    rows, exact = [], np.zeros(len(chosen), dtype=bool)
    for k, (a, b) in enumerate(chosen):
        row = {"system_a": prepared.systems[a], "system_b": prepared.systems[b],
               "estimate_a": 100 * estimates[a], "estimate_b": 100 * estimates[b],
               "diff": 100 * result.estimate[k], "ci_low": 100 * result.ci_low[k],
               "ci_high": 100 * result.ci_high[k], "se": 100 * result.se[k]}
        if cols.binary and not prepared.resampling.clustered:
            ya, yb = cols.per_query[:, a] > 0.5, cols.per_query[:, b] > 0.5
            benefit, tax = int((ya & ~yb).sum()), int((~ya & yb).sum())
            # iid: the paper's test; stratified: exact where small (the sign-flip test of ±1 differences)
            exact[k] = prepared.design == "iid" or benefit + tax <= EXACT_UP_TO
        if exact[k]:
            row["p"] = mcnemar(benefit=benefit, tax=tax).p_value
            row["p_floor"], row["test"] = False, "exact McNemar"
        else:
            row["p"], row["p_floor"], row["test"] = float(result.p_value[k]), bool(result.p_floor[k]), result.tests[k]
        rows.append(row)
    out = pd.DataFrame(rows)
    out["p_adj"] = adjust(out["p"].to_numpy(), method=correction)
    out["method"] = result.method
    out["n"] = prepared.n
    out["design"] = prepared.design
    out["n_resamples"] = n_resamples
    out["seed"] = seed
    notes = [describe(result, prepared.n_clusters, tests=out["test"])] + undefined_notes(result, [
        f"{prepared.systems[a]} − {prepared.systems[b]}" for a, b in chosen])
    mc = provenance_of(result, inference, scale=100)
    mc["mc_se"]["p"] = [0.0 if e else v for e, v in zip(exact, mc["mc_se"].get("p", [math.nan] * len(chosen)))]
    notes += _reading_notes(out, prepared, result, mc["mc_se"], confidence_level)
    columns, extra = list(COLUMNS), {}
    if test != "difference":
        alpha = 1 - confidence_level
        second = pair_inference(prepared, cols, chosen, inference=inference, n_resamples=n_resamples, seed=seed,
                                confidence_level=1 - 2 * alpha, keep_distribution=True)
        below, above = one_sided(second, margin / 100)
        out["margin"] = margin
        out["tost_low"], out["tost_high"] = 100 * second.ci_low, 100 * second.ci_high
        out["p_margin"] = np.maximum(below, above) if test == "equivalence" else below
        out["p_margin_adj"] = adjust(out["p_margin"].to_numpy(), method=correction)
        out["within_margin"] = out["p_margin_adj"] <= alpha
        columns += list(MARGIN_COLUMNS)
        what = (f"equivalence within ±{margin:g} points: two one-sided tests (TOST)" if test == "equivalence" else
                f"non-inferiority: system_a − system_b > −{margin:g} points, one-sided")
        notes.append(Note(f"{what} at α = {alpha:g}, read off the {1 - 2 * alpha:.0%} interval ({second.method}; "
                          f"tost_low, tost_high); p_margin_adj is {correction}-adjusted over the pairs (SPEC §5.6)",
                          code="margin-test"))
        extra = {"margin_test": test, "margin": margin, "alpha": alpha}
    return stamp(out[columns], "compare", prepared, kinds=KINDS, notes=notes, metric=cols.label, n_resamples=n_resamples,
                 seed=seed, confidence_level=confidence_level, correction=correction, threshold=threshold,
                 unit="points", df=result.df, **mc, **extra)


def _reading_notes(out: pd.DataFrame, prepared: Prepared, result: Inference, mc_se: dict,
                   confidence_level: float) -> list[str]:
    """Fill the ``disagree`` and ``df`` columns of a compare table and return what a reader must be
    told beside its rows (SPEC §4.1): interval and test that disagree, too few clusters for any
    test, the symmetry a clustered test assumes, and Monte-Carlo errors near a decision boundary."""
    alpha = 1 - confidence_level
    labels = [f"{a} − {b}" for a, b in zip(out["system_a"], out["system_b"])]
    out["df"] = math.nan if result.df is None else float(result.df)
    out["disagree"] = disagree(out["ci_low"], out["ci_high"], out["p"], alpha)
    notes: list[str] = disagreement_notes(labels, out["disagree"], out["ci_low"], out["ci_high"], out["p"], alpha,
                                          confidence_level, result.method, list(out["test"]), unit=" points")
    if prepared.resampling.clustered:
        notes += few_clusters_note(prepared.n_clusters)
        if any(str(t).startswith("wild cluster") for t in out["test"]):
            notes.append(symmetry_note())
    notes += near_boundary_notes(labels, alpha=alpha, p=out["p"].to_numpy(), p_se=mc_se["p"],
                                 p_adj=out["p_adj"].to_numpy(),
                                 ends={end: (out[end].to_numpy(), mc_se[end]) for end in ("ci_low", "ci_high")},
                                 unit=" points")
    return notes


def undefined_notes(result: Inference, labels: Sequence[str]) -> list[str]:
    """One note per output whose estimate was undefined in some replicates or leave-one-cluster-out
    estimates (SPEC §4.4: counted, never silent), and per interval of zero width (no replicate or
    cluster varied: the data cannot measure the uncertainty, which is not zero)."""
    what = "leave-one-cluster-out estimates" if result.kind != "percentile" else "replicates"
    consequence = ("so its interval is undefined" if result.kind != "percentile"
                   else "left out of its interval and test")
    notes = [Note(f"{label}: undefined (empty denominator) in {share:.1%} of the {what}, {consequence}",
                  code="undefined-replicates", severity="caution", concerns=(label,))
             for label, share in zip(labels, result.undefined) if 0 < share < 1]
    flat = np.isfinite(result.ci_low) & (result.ci_low == result.ci_high)
    source = "leave-one-cluster-out estimate" if result.kind != "percentile" else "replicate"
    notes += [Note(f"{label}: the interval has zero width because no {source} varied; the data cannot measure "
                   "its uncertainty, which is not zero", code="zero-width-interval", severity="caution",
                   concerns=(label,)) for label, zero in zip(labels, flat) if zero]
    return notes
def omnibus(
    data: pd.DataFrame | Prepared,
    *,
    metric: str = "accuracy",
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """One test of "all systems equal" (SPEC §4–§5, §4.1; paper C.6, A.5.1).

    Parameters
    ----------
    data
        Canonical verdicts, or :func:`memdiag.prepare` output (its threshold binarises the
        scores, as in :func:`compare`).
    metric
        As in :func:`compare`.
    options
        :class:`memdiag.Options`: the design, inference, and the replicates or wild draws and
        their seed (unused by Cochran's Q and by enumerated sign flips).

    Returns
    -------
    pandas.DataFrame
        One row: ``metric, test, statistic, df, p, p_floor, k, n, design, n_resamples, seed``;
        the max-range statistic is in points.

    Raises
    ------
    VerdictError
        Fewer than two systems (or fewer than two queries or clusters to resample), bad options
        or verdicts.
    SchemeError
        An unknown scheme, or one the data cannot satisfy.
    ValueError
        An unknown ``design``.
    TypeError
        ``seed`` is neither an int nor a :class:`numpy.random.Generator`.

    Notes
    -----
    Cochran's Q (k − 1 df) for a binary plain-mean metric under the ``iid`` design with k ≥ 3
    systems (accuracy on binary verdicts, coverage). Otherwise the centred max-range statistic
    T = max θ̂ − min θ̂ with p = (1 + #{T* ≥ T})/(1 + B): under query-level designs (and the
    percentile method) T* = max(θ* − θ̂) − min(θ* − θ̂) over bootstrap replicates; under a cluster
    design with G < 200 over wild cluster replicates of the centred deviations Σ_g v_g ψ̃_gs
    (weights by :func:`memdiag.engine.inference.wild.weights_for` of G). The clustered counterpart of Cochran's Q — a Wald test of
    the S − 1 differences with a cluster-robust covariance — would invert a matrix of rank at most
    G − 1, singular as soon as S − 1 ≥ G (LoCoMo: 10 conversations); the max-range inverts nothing
    (SPEC §4.1).

    References
    ----------
    SPEC §5.2 (Cochran's Q), SPEC §4.4 (the centred max-range bootstrap) and SPEC §4.1 (wild
    cluster replicates with few clusters); Raw-RAG paper C.6 (the centred max-range bootstrap)
    and A.5.1.
    Cochran, W. G. (1950). The comparison of percentages in matched samples. Biometrika 37(3/4).
    Cameron, A. C., Gelbach, J. B. & Miller, D. L. (2008). Review of Economics and Statistics 90(3).

    Examples
    --------
    >>> import memdiag as md
    >>> df = md.simulate(n_queries=200, systems={"raw-rag": 0.5, "b": 0.6, "c": 0.7}, seed=2)
    >>> md.omnibus(df, options={"design": "iid"})[["test", "df", "k", "n"]]
              test  df  k    n
    0  Cochran's Q   2  3  200
    >>> md.omnibus(df, options={"n_resamples": 2000})["test"].iloc[0]
    'centered max-range, wild cluster bootstrap, rademacher weights, B = 2000'
    """
    opts = as_options(options)
    prepared = as_prepared(data, metric=metric, design=opts.design)
    seed, n_resamples, inference = opts.seed, opts.resampled("omnibus"), opts.inference
    threshold = prepared.threshold
    if len(prepared.systems) < 2:
        raise VerdictError(f"an omnibus test needs at least two systems; the data hold {len(prepared.systems)}.")
    units, unit = ((prepared.n_clusters, "clusters") if "cluster" in prepared.design else (prepared.n, "queries"))
    if units is not None and units < 2:
        raise VerdictError(f"an omnibus test needs at least two {unit}; the data hold {units}, so no resample "
                           "can differ from the data and the p-value would mean nothing.")
    cols = metric_columns(prepared, metric, threshold)
    kind = method_for(prepared.design, prepared.resampling.n_units if prepared.resampling.clustered else None,
                      inference)
    row = {"metric": cols.label, "k": len(prepared.systems), "n": prepared.n, "design": prepared.design,
           "p_floor": False}
    notes = []
    if cols.binary and prepared.design == "iid" and len(prepared.systems) >= 3:
        q = cochrans_q(cols.per_query)
        row.update(test="Cochran's Q", statistic=float(q.statistic), df=int(q.df), p=float(q.p_value),
                   n_resamples=None, seed=None)
    elif kind == "percentile":
        res = omnibus_max_range(cols.X, prepared.resampling, cols.statistic, n_resamples=n_resamples, seed=seed)
        row.update(test=f"centered max-range bootstrap ({prepared.design})", statistic=100 * float(res.statistic),
                   df=None, p=float(res.p_value), n_resamples=n_resamples, seed=seed,
                   p_floor=bool(res.p_value <= 1.0 / (1.0 + n_resamples - res.n_undefined)))
    else:
        design_ = prepared.resampling
        units = unit_sums(cols.X, design_)
        total = units.sum(axis=0)
        estimate = cols.statistic(total[None, :])[0]
        strata = design_.unit_stratum if design_.kind == "stratified-cluster" else None
        T, p, draws, exact, weights = wild_max_range(linearize(cols.statistic, total, units), estimate,
                                                     strata=strata, n_resamples=n_resamples, seed=seed)
        how = f"exact ({draws} sign flips)" if exact else f"{weights} weights, B = {draws}"
        row.update(test=f"centered max-range, wild cluster bootstrap, {how}", statistic=100 * T, df=None, p=p,
                   n_resamples=None if exact else n_resamples, seed=None if exact else seed,
                   p_floor=bool(not exact and p <= 1.0 / (1.0 + draws)))
        if len(prepared.systems) - 1 >= design_.n_units:
            notes.append(Note(f"a cluster-robust Wald test of the {len(prepared.systems) - 1} differences is "
                              f"singular with {design_.n_units} clusters (rank at most G − 1); the max-range needs "
                              "no inverse", code="wald-singular"))
    out = pd.DataFrame([row])[["metric", "test", "statistic", "df", "p", "p_floor", "k", "n", "design",
                               "n_resamples", "seed"]]
    return stamp(out, "omnibus", prepared, kinds=OMNIBUS_KINDS, notes=notes, metric=cols.label, n_resamples=row["n_resamples"],
                 seed=row["seed"], threshold=threshold, inference=inference)
def bootstrap(
    data: pd.DataFrame | Prepared,
    statistic: str | Callable[[Panel], tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]] = "accuracy",
    *,
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """Per-system estimates with paired intervals under a design (SPEC §4, §4.1).

    Parameters
    ----------
    data
        Canonical verdicts, or :func:`memdiag.prepare` output (its threshold binarises the
        scores of a named metric, as in :func:`compare`).
    statistic
        A metric name (as in :func:`compare`), or a callable ``f(panel) -> (X, g)`` returning
        per-query additive columns ``X (N, K)`` and a vectorised ``g(sums (b, K)) -> (b, m)``;
        the engine evaluates ``g`` on a whole chunk of replicates at once.
    options
        :class:`memdiag.Options`: the design, the replicates B, seed and interval level, and the
        interval: ``inference="auto"`` (the SPEC §4.1 rule), ``percentile``, ``jackknife``,
        ``cr2``, or ``bca`` (the BCa bootstrap interval, ``iid`` design only).

    Returns
    -------
    pandas.DataFrame
        One row per system (or per output of a callable statistic): ``system, estimate, ci_low,
        ci_high, se, n, design, n_resamples, seed``; estimates of a named metric in points. Under
        a cluster design with fewer than 200 clusters the interval is the cluster jackknife with
        t(G − 1) (SPEC §4.1); ``attrs["method"]`` says which.

    Raises
    ------
    VerdictError
        Bad options or verdicts; ``inference="bca"`` where the rule does not use the percentile
        bootstrap (a cluster design with fewer than 200 clusters).
    SchemeError
        An unknown scheme, or one the data cannot satisfy.
    ValueError
        An unknown ``design``.
    TypeError
        ``seed`` is neither an int nor a :class:`numpy.random.Generator`.

    References
    ----------
    SPEC §4 (resampling designs), SPEC §4.1 (few clusters: the cluster jackknife t interval),
    SPEC §4.3 (ratios of sums) and SPEC §4.4 (what a bootstrap returns); Raw-RAG paper C.6
    (percentile intervals, the official aggregation recomputed in each replicate).
    Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall, §14.3 (BCa).

    Examples
    --------
    >>> import memdiag as md
    >>> df = md.simulate(n_queries=400, systems={"raw-rag": 0.6, "mem": 0.7}, seed=1)
    >>> out = md.bootstrap(df, options={"n_resamples": 2000})
    >>> out["system"].tolist(), bool((out["ci_low"] < out["estimate"]).all()), out.attrs["method"]
    (['mem', 'raw-rag'], True, 'cluster jackknife, t(29)')
    """
    name = statistic if isinstance(statistic, str) else "accuracy"
    opts = as_options(options)
    prepared = as_prepared(data, metric=name, design=opts.design)
    seed, n_resamples, confidence_level = opts.seed, opts.resampled("bootstrap"), opts.confidence_level
    method, inference = ("bca", "auto") if opts.inference == "bca" else ("percentile", opts.inference)
    threshold = prepared.threshold
    if isinstance(statistic, str):
        cols = metric_columns(prepared, statistic, threshold)
        X, fn, scale, labels = cols.X, cols.statistic, 100.0, list(prepared.systems)
        bounds = (0.0, 1.0) if statistic in SCORE_METRICS else None
    else:
        X, fn = statistic(prepared.panel)
        scale, bounds = 1.0, None
        m = np.asarray(fn(np.asarray(X, dtype=float).sum(axis=0)[None, :])).shape[1]
        labels = list(prepared.systems) if m == len(prepared.systems) else [f"statistic {i}" for i in range(m)]
    X = np.asarray(X, dtype=float)
    kind = method_of(prepared.resampling, inference)
    if method == "bca":
        if kind != "percentile" or prepared.design != "iid":
            rule = f"; with {prepared.n_clusters} clusters the SPEC §4.1 rule uses the {kind}" \
                if kind != "percentile" else ""
            raise VerdictError(f"inference='bca' is a bootstrap interval for the iid design (the design is "
                               f"{prepared.design!r}{rule}). Pass options=md.Options(design='iid', "
                               "inference='bca') to get BCa.")
        res = bootstrap_sums(X, prepared.resampling, fn, n_resamples=n_resamples, seed=seed,
                             ci=confidence_level, method=method)
        low, high, se, estimate = res.ci_low, res.ci_high, res.standard_error, res.estimate
        notes = [Note(f"bca bootstrap ({prepared.design}) interval", code="inference-method")]
        extra = {"method": f"bca bootstrap ({prepared.design})"}
    else:
        inf = infer(X, prepared.resampling, fn, inference=inference, test=False, n_resamples=n_resamples,
                    seed=seed, confidence_level=confidence_level, bounds=bounds)
        low, high, se, estimate = inf.ci_low, inf.ci_high, inf.se, inf.estimate
        notes = [describe(inf, prepared.n_clusters)] + undefined_notes(inf, labels)
        extra = provenance_of(inf, inference, scale=scale)
    out = pd.DataFrame({"system": labels, "estimate": scale * estimate, "ci_low": scale * low,
                        "ci_high": scale * high, "se": scale * se})
    out["n"] = prepared.n
    out["design"] = prepared.design
    out["n_resamples"] = n_resamples
    out["seed"] = seed
    kind = POINTS if isinstance(statistic, str) else REAL      # a user's statistic is in its own unit
    return stamp(out, "bootstrap", prepared, kinds=dict.fromkeys(("estimate", "ci_low", "ci_high", "se"), kind),
                 notes=notes,
                 metric=name if isinstance(statistic, str) else "user statistic", n_resamples=n_resamples,
                 seed=seed, confidence_level=confidence_level, threshold=threshold,
                 unit="points" if isinstance(statistic, str) else None, **{"inference": inference, **extra})
