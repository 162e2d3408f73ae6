"""Evidence diagnostics: coverage, utilization, the accuracy decomposition, path retention and
evidence length (SPEC §3 and §7; Raw-RAG paper C.1, A.5.1, Table 20).

For question i and system s, C_is ∈ {0, 1} says whether the retrieved evidence was sufficient
and Y_is ∈ [0, 1] is the judged score. Coverage Ĉ_s = (1/N) Σ_i C_is; utilization
Û_s = Σ_i C_is·Y_is / Σ_i C_is (undefined when no evidence is sufficient); and accuracy splits
exactly as Acc_s = Ĉ_s·Û_s + (1/N) Σ_i (1 − C_is)·Y_is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from memdiag.analyses.compare import compare, omnibus, undefined_notes
from memdiag.core.kinds import declare, real, with_intervals
from memdiag.core.notes import Note
from memdiag.core.provenance import stamp
from memdiag.engine.inference.intervals import describe, infer
from memdiag.engine.options import Options, as_options
from memdiag.errors import VerdictError
from memdiag.panel.metrics import complete_matrix, labels
from memdiag.panel.prepare import Prepared, as_prepared

#: Per-system quantities of :func:`evidence`, in column order.
QUANTITIES: tuple[str, ...] = ("coverage", "utilization", "accuracy", "covered_term", "uncovered_term")
#: The kinds of :func:`evidence`'s columns (every quantity in points).
EVIDENCE_KINDS = declare(points=with_intervals(*QUANTITIES), fraction=("utilization_undefined",))
#: Lengths of evidence, in tokens.
TOKENS = real("tokens")


def _require(data: pd.DataFrame | Prepared, columns: Sequence[str], what: str) -> None:
    df = data.frame if isinstance(data, Prepared) else data
    lacking = [c for c in columns if c not in df]
    if lacking:
        raise VerdictError(f"{what} needs the column(s) {', '.join(repr(c) for c in lacking)}, which "
                           f"the verdicts lack (have: {', '.join(map(str, df.columns))}). Add them, or "
                           f"map them with --field {lacking[0]}=<column>.")


def _decomposition(s: int):
    """Statistic of the sums [C, C·Y, (1 − C)·Y per system, 1]; N is the replicate's own count."""
    def statistic(sums: np.ndarray) -> np.ndarray:
        c, cy, ucy, n = sums[:, :s], sums[:, s:2 * s], sums[:, 2 * s:3 * s], sums[:, 3 * s:]
        with np.errstate(invalid="ignore", divide="ignore"):
            util = cy / c
        return np.concatenate([c / n, util, (cy + ucy) / n, cy / n, ucy / n], axis=1)

    return statistic
def evidence(
    data: pd.DataFrame | Prepared,
    *,
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """Coverage, utilization and the accuracy decomposition per system, with intervals (SPEC §3).

    Parameters
    ----------
    data
        :func:`memdiag.prepare` output, or canonical verdicts (prepared with the defaults), with a
        ``sufficient`` column. The data choices are made there: the scheme, the systems, the
        missing-data policies of SPEC §1, and ``label_missing``: queries whose ``sufficient``
        label is missing for some system are left out of this diagnostic (``"exclude"``, the
        default; counted per system in ``attrs["notes"]``) or refused (``"error"``); accuracy
        here is over the same labelled queries, so the decomposition is exact.
    options
        :class:`memdiag.Options` (or a mapping of its fields; None: the defaults); reads
        design (None: the prepared data's — the scheme's or the data's clusters, SPEC §4.2),
        inference (``auto``: the SPEC §4.1 rule; see :func:`memdiag.compare`), n_resamples
        (at least 1), seed and confidence_level of the intervals; not correction.

    Returns
    -------
    pandas.DataFrame
        One row per system: ``n`` (N), ``n_sufficient`` (Σ C), ``coverage``, ``utilization``,
        ``accuracy``, ``covered_term`` (Ĉ·Û = (1/N) Σ C·Y) and ``uncovered_term``
        ((1/N) Σ (1 − C)·Y), all in points, each with ``_ci_low`` / ``_ci_high`` from one paired
        analysis (shared across systems): the percentile bootstrap, or under a cluster
        design with fewer than 200 clusters the cluster jackknife with t(G − 1) (SPEC §4.1).
        Utilization is NaN — reported as undefined, never 0 — when Σ C = 0; replicates (or
        leave-one-cluster-out estimates) in which Σ C* = 0 are counted in ``attrs["notes"]``,
        and their share is the column ``utilization_undefined``. ``attrs["mc_se"]`` holds the
        Monte-Carlo standard errors of every interval end (0 for t intervals).

    Raises
    ------
    VerdictError
        Verdicts without a ``sufficient`` column, a missing label under
        ``label_missing="error"`` (or no query with labels for every system), bad verdicts, an
        unknown system, policy or ``inference``, bad options (``n_resamples=0``).
    SchemeError
        An unknown scheme, or one that keeps no query of the data.
    ValueError
        An unknown ``design``.

    Notes
    -----
    Ĉ = (1/N) Σ C;  Û = Σ C·Y / Σ C;  Acc = Ĉ·Û + (1/N) Σ (1 − C)·Y  (paper C.1). The identity
    holds exactly for the point estimates and inside every replicate.

    References
    ----------
    SPEC §3 (evidence diagnostics: coverage, utilization and the decomposition), SPEC §4.1 (the
    interval rule) and SPEC §4.3 (ratios of sums); Raw-RAG paper C.1 eq. 4 (the decomposition,
    undefined utilization).
    Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.

    Examples
    --------
    >>> df = pd.DataFrame({"system": ["rag"] * 4, "query_id": list("abcd"),
    ...                    "score": [1, 0, 1, 0], "sufficient": [1, 1, 0, 0]})
    >>> evidence(df, options={"n_resamples": 100})[["system", "n_sufficient", "coverage", "utilization", "accuracy"]]
      system  n_sufficient  coverage  utilization  accuracy
    0    rag             2      50.0         50.0      50.0
    """
    _require(data, ["sufficient"], "evidence()")
    opts = as_options(options)
    prepared = as_prepared(data, metric="coverage", design=opts.design)
    seed, n_resamples, confidence_level = opts.seed, opts.resampled("evidence"), opts.confidence_level
    inference = opts.inference
    panel = prepared.panel
    c = labels(panel, "sufficient")
    y = panel.scores
    s, n = len(panel.systems), panel.n
    X = np.hstack([c, c * y, (1 - c) * y, np.ones((n, 1))])
    res = infer(X, prepared.resampling, _decomposition(s), inference=inference, test=False, n_resamples=n_resamples,
                seed=seed, confidence_level=confidence_level, bounds=(0.0, 1.0))
    est = 100 * res.estimate.reshape(len(QUANTITIES), s)
    low = 100 * res.ci_low.reshape(len(QUANTITIES), s)
    high = 100 * res.ci_high.reshape(len(QUANTITIES), s)
    out = pd.DataFrame({"system": panel.systems, "n": n, "n_sufficient": c.sum(axis=0).astype(np.int64)})
    for q, name in enumerate(QUANTITIES):
        out[name] = est[q]
        out[f"{name}_ci_low"] = low[q]
        out[f"{name}_ci_high"] = high[q]
    notes = [describe(res, prepared.n_clusters)]
    for name in out.loc[out["n_sufficient"] == 0, "system"]:
        notes.append(Note(f"utilization of '{name}' is undefined: no query has sufficient evidence",
                          code="utilization-undefined", severity="caution", concerns=(name,)))
    labels_ = [f"{q} of '{name}'" for q in QUANTITIES for name in panel.systems]
    notes += undefined_notes(res, labels_)
    out["utilization_undefined"] = res.undefined.reshape(len(QUANTITIES), s)[1]
    mc_se = {f"{name}_{end}": [float(100 * v) for v in res.mc_se[end].reshape(len(QUANTITIES), s)[q]]
             for q, name in enumerate(QUANTITIES) for end in ("ci_low", "ci_high")}
    return stamp(out, "evidence", prepared, kinds=EVIDENCE_KINDS, notes=notes, metric="coverage, utilization",
                 n_resamples=n_resamples, seed=seed, confidence_level=confidence_level, unit="points",
                 inference=inference, method=res.method, mc_se=mc_se)
def evidence_tests(
    data: pd.DataFrame | Prepared,
    *,
    options: Options | Mapping | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The pairwise and omnibus tests of coverage and utilization (paper A.5.1, C.6).

    Coverage: Cochran's Q across systems, then exact McNemar per pair (iid design; under other
    designs the design's test, SPEC §4.1). Utilization (a system-specific denominator): the
    centered max-range omnibus and the design's pairwise test (bootstrap sign test under
    query-level designs, wild cluster bootstrap-t under a cluster design with fewer than 200
    clusters). Holm adjustment is over the pairs of one metric (one benchmark–metric family).

    Parameters
    ----------
    data
        :func:`memdiag.prepare` output, or canonical verdicts (prepared with the defaults), with a
        ``sufficient`` column. The scheme, systems, missing-data policies and ``label_missing``
        (queries without a ``sufficient`` label for some system left out, or refused) are
        chosen there, as in :func:`evidence`.
    options
        :class:`memdiag.Options`; reads every field, as :func:`memdiag.compare`: the design
        (None: the prepared data's, SPEC §4.2), inference, replicates or wild draws, seed,
        interval level, and the correction (``holm``, ``bonferroni`` or ``fdr_bh``) over the
        pairs of one metric.

    Returns
    -------
    (pairs, omnibus)
        ``pairs``: :func:`memdiag.compare` rows with a leading ``metric`` column (coverage rows
        first); ``omnibus``: :func:`memdiag.omnibus` rows, one per metric.

    Raises
    ------
    VerdictError
        Verdicts without a ``sufficient`` column, fewer than two systems, a missing label under
        ``label_missing="error"``, bad verdicts or options (as :func:`memdiag.compare`).
    SchemeError
        An unknown scheme, or one that keeps no query of the data.
    ValueError
        An unknown ``design``.

    References
    ----------
    SPEC §3 (evidence diagnostics: the tests), SPEC §5.1 (exact McNemar), SPEC §5.2 (Cochran's
    Q), SPEC §4.4 (the centred max-range bootstrap and the bootstrap sign test) and SPEC §5.3
    (Holm); Raw-RAG paper A.5.1 and C.6 (the test choices).
    McNemar, Q. (1947). Note on the sampling error of the difference between correlated
    proportions or percentages. Psychometrika 12(2), 153–157.
    Cochran, W. G. (1950). The comparison of percentages in matched samples. Biometrika 37,
    256–266.
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scandinavian
    Journal of Statistics 6(2), 65–70.

    Examples
    --------
    Under the iid design coverage gets exact McNemar and Cochran's Q; utilization, with its
    system-specific denominator, the bootstrap sign test and the max-range omnibus:

    >>> import memdiag as md
    >>> df = md.simulate(n_queries=200, systems={"raw-rag": 0.6, "mem": 0.7, "zep": 0.65}, seed=1)
    >>> pairs, omnibus_ = evidence_tests(df, options={"design": "iid", "n_resamples": 1000})
    >>> pairs[["metric", "system_a", "system_b", "test"]].values.tolist()[::3]
    [['coverage', 'mem', 'raw-rag', 'exact McNemar'], ['utilization', 'mem', 'raw-rag', 'bootstrap sign test (iid)']]
    >>> omnibus_[["metric", "test", "k", "n"]].values.tolist()
    [['coverage', "Cochran's Q", 3, 200], ['utilization', 'centered max-range bootstrap (iid)', 3, 200]]
    """
    _require(data, ["sufficient"], "evidence_tests()")
    opts = as_options(options)
    prepared = as_prepared(data, metric="coverage", design=opts.design)
    pairs, tests = [], []
    for metric in ("coverage", "utilization"):
        table = compare(prepared, metric=metric, options=opts)
        table.insert(0, "metric", metric)
        pairs.append(table)
        tests.append(omnibus(prepared, metric=metric, options=opts))
    out_pairs = pd.concat(pairs, ignore_index=True)
    out_pairs.attrs = dict(pairs[0].attrs, metric="coverage, utilization")
    out_omnibus = pd.concat(tests, ignore_index=True)
    out_omnibus.attrs = dict(tests[0].attrs, metric="coverage, utilization")
    return out_pairs, out_omnibus
def path_given_result(
    data: pd.DataFrame | Prepared,
    *,
    categories: Sequence[str] | None = None,
    phase: str | None = "after",
    allow_inconsistent: bool = False,
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """Conditional path retention P(path | result) per system (SPEC §3; paper C.1, G.10).

    P(path | result) = Σ_i path_i·result_i / Σ_i result_i over the selected questions (the
    paper: after-phase tracking and cascade questions — pass ``categories=["Tr", "Cas"]``).
    A row with path = 1 and result = 0 is inconsistent: always counted (``n_inconsistent``),
    and a :class:`~memdiag.errors.VerdictError` unless ``allow_inconsistent``.

    Parameters
    ----------
    data
        :func:`memdiag.prepare` output, or canonical verdicts (prepared with the defaults), with
        ``result_covered`` and ``path_covered`` 0/1 labels. The systems, the missing-data
        policies and ``label_missing`` (queries whose labels are missing for some system left
        out, the default, or refused) are chosen there, as in :func:`evidence`.
    categories
        Keep only these categories (default: all).
    phase
        Keep only this phase when the data have a ``phase`` column (default ``"after"``;
        ``None`` keeps all).
    allow_inconsistent
        Keep rows with path = 1 and result = 0 (counted and noted) instead of refusing them.
    options
        :class:`memdiag.Options`; reads design (None: the prepared data's; MEME episodes are
        clusters), inference, n_resamples (at least 1), seed and confidence_level of the
        intervals, as in :func:`memdiag.compare`; not correction.

    Returns
    -------
    pandas.DataFrame
        One row per system: ``n`` (selected questions), ``n_result`` (Σ result), ``n_path_and_result``,
        ``n_inconsistent``, ``retention`` (points) with ``_ci_low`` / ``_ci_high``; NaN (undefined)
        when Σ result = 0; ``retention_undefined``, the share of replicates (or leave-one-cluster-out
        estimates) in which it was undefined.

    Raises
    ------
    VerdictError
        Verdicts without ``result_covered`` and ``path_covered`` (or ``category`` when
        ``categories`` is given); no question selected; inconsistent rows without
        ``allow_inconsistent``; a missing label under ``label_missing="error"``; bad verdicts, an
        unknown system, policy or ``inference``, bad options (``n_resamples=0``).
    ValueError
        An unknown ``design``.

    References
    ----------
    SPEC §3 (path given result) and SPEC §4.1 (the interval rule); Raw-RAG paper C.1 and G.10
    (result and path coverage labels, the consistency check before P(path | result)).

    Examples
    --------
    Of the three after-phase questions whose result is covered, two have the path covered too:

    >>> df = pd.DataFrame({"system": "mem", "query_id": list("abcde"), "score": 1,
    ...                    "phase": ["after"] * 4 + ["before"],
    ...                    "result_covered": [1, 1, 1, 0, 1], "path_covered": [1, 0, 1, 0, 1]})
    >>> out = path_given_result(df, options={"n_resamples": 200})
    >>> out[["system", "n", "n_result", "n_path_and_result", "retention"]].round(2).values.tolist()
    [['mem', 4, 3, 2, 66.67]]
    """
    _require(data, ["result_covered", "path_covered"], "path_given_result()")
    opts = as_options(options)
    prepared = as_prepared(data, design=opts.design)
    seed, n_resamples, confidence_level = opts.seed, opts.resampled("path_given_result"), opts.confidence_level
    inference = opts.inference
    queries = prepared.panel.queries
    keep = np.ones(prepared.n, dtype=bool)
    if phase is not None and "phase" in queries:
        keep &= (queries["phase"] == phase).to_numpy()
    if categories is not None:
        _require(data, ["category"], "path_given_result(categories=...)")
        keep &= queries["category"].isin(list(categories)).to_numpy()
    if not keep.any():
        raise VerdictError(f"no question is selected (phase={phase!r}, categories={categories!r}).")
    prepared = prepared.subset(keep).with_labels(("result_covered", "path_covered"))
    panel = prepared.panel
    result, path = complete_matrix(panel, "result_covered"), complete_matrix(panel, "path_covered")
    inconsistent = ((path == 1) & (result == 0)).sum(axis=0).astype(np.int64)
    if inconsistent.any() and not allow_inconsistent:
        worst = int(np.argmax(inconsistent))
        raise VerdictError(f"{int(inconsistent.sum())} rows have path_covered = 1 but result_covered = 0 "
                           f"(e.g. {int(inconsistent[worst])} for system '{panel.systems[worst]}'): a path "
                           "cannot be covered without its result. Fix the labels, or pass "
                           "allow_inconsistent=True to count them and go on.")
    s = len(panel.systems)

    def retention(sums: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return sums[:, :s] / sums[:, s:]

    X = np.hstack([path * result, result])
    res = infer(X, prepared.resampling, retention, inference=inference, test=False, n_resamples=n_resamples,
                seed=seed, confidence_level=confidence_level, bounds=(0.0, 1.0))
    out = pd.DataFrame({"system": panel.systems, "n": panel.n,
                        "n_result": result.sum(axis=0).astype(np.int64),
                        "n_path_and_result": (path * result).sum(axis=0).astype(np.int64),
                        "n_inconsistent": inconsistent,
                        "retention": 100 * res.estimate, "retention_ci_low": 100 * res.ci_low,
                        "retention_ci_high": 100 * res.ci_high})
    out["retention_undefined"] = res.undefined
    notes = [describe(res, prepared.n_clusters)] + undefined_notes(res, [f"retention of '{s_}'" for s_ in panel.systems])
    if inconsistent.any():
        notes.append(Note(f"{int(inconsistent.sum())} inconsistent rows (path = 1, result = 0) counted and kept",
                          code="inconsistent-rows", severity="caution"))
    return stamp(out, "path_given_result", prepared, notes=notes, metric="P(path | result)",
                 kinds=declare(points=with_intervals("retention"), fraction=("retention_undefined",)),
                 n_resamples=n_resamples, seed=seed, confidence_level=confidence_level, unit="points",
                 inference=inference, method=res.method,
                 mc_se={f"retention_{end}": [float(100 * v) for v in res.mc_se[end]] for end in ("ci_low", "ci_high")})


def evidence_length(data: pd.DataFrame | Prepared, *, budget: float = 5_000) -> pd.DataFrame:
    """Per-system evidence length statistics from ``evidence_tokens`` (paper Table 20, SPEC §7).

    Parameters
    ----------
    data
        Canonical verdicts with an ``evidence_tokens`` column, or :func:`memdiag.prepare` output
        (its selected rows); a length is the mean over the judgments of one answer.
    budget
        Lengths strictly above this many tokens are counted in ``n_over_budget`` (default 5,000,
        the paper's budget).

    Returns
    -------
    pandas.DataFrame
        One row per system: ``n`` (questions with a length), ``mean``, ``median``, ``p95``
        (linear interpolation, numpy's default), ``max``, ``n_over_budget`` (> ``budget``) and
        ``n_missing`` (questions without a length, counted, not used).

    Raises
    ------
    VerdictError
        Verdicts without an ``evidence_tokens`` column.

    References
    ----------
    SPEC §7.2 (evidence length); Raw-RAG paper A.4.2 and Table 20 (questions weighted equally,
    linear-interpolation percentiles, the 5,000-token count).

    Examples
    --------
    >>> df = pd.DataFrame({"system": ["a"] * 4, "query_id": list("wxyz"), "score": 1,
    ...                    "evidence_tokens": [100, 200, 300, 6000]})
    >>> evidence_length(df)[["system", "mean", "median", "p95", "max", "n_over_budget"]]
      system    mean  median     p95     max  n_over_budget
    0      a  1650.0   250.0  5145.0  6000.0              1
    """
    _require(data, ["evidence_tokens"], "evidence_length()")
    df = data.frame if isinstance(data, Prepared) else data
    per_query = df.groupby(["system", "query_id"], sort=True)["evidence_tokens"].mean()
    rows = []
    for name, values in per_query.groupby(level="system", sort=True):
        v = values.dropna().to_numpy(dtype=float)
        rows.append({"system": name, "n": v.size,
                     "mean": v.mean() if v.size else np.nan,
                     "median": np.median(v) if v.size else np.nan,
                     "p95": np.percentile(v, 95, method="linear") if v.size else np.nan,
                     "max": v.max() if v.size else np.nan,
                     "n_over_budget": int((v > budget).sum()),
                     "n_missing": int(values.isna().sum())})
    return stamp(pd.DataFrame(rows), "evidence_length", kinds=dict.fromkeys(("mean", "median", "p95", "max"), TOKENS),
                 notes=[Note(f"budget = {budget:g} evidence tokens", code="budget")], unit="tokens")
