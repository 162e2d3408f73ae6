"""Cost and latency per system: per-query latency, tokens and LLM calls with mean, median and P95,
cost per correct answer, ratios between systems (speed-ups), and system-level costs (Raw-RAG
paper §4.3 RQ3, Table 6, Table 32, A.6, D.6; Memory Tax review, Figure 1; SPEC §7.9).

Per-query costs are columns of the verdicts (SPEC §1: ``input_tokens``, ``output_tokens``,
``evidence_tokens``, ``latency_s``; releases add others, e.g. trpc-agent-go's ``tokens_used``);
a value is the mean over the judge repetitions of one answer. Means and ratios are ratios of
sums, so they get the intervals and tests of the SPEC §4.1 rule like every other statistic;
medians and P95 are not, and get the percentile bootstrap under the design
(:func:`memdiag.engine.inference.intervals.infer_quantiles`). System-level facts (ingestion time and
tokens, LLM calls of a whole run: Table 32) are single measurements per system, reported with
their ratios to the reference and no interval.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from memdiag.analyses.compare import undefined_notes
from memdiag.core.kinds import P_FLOORED, declare, real, with_intervals
from memdiag.core.notes import Note, prefixed
from memdiag.core.provenance import stamp
from memdiag.engine.inference import adjust
from memdiag.engine.inference.intervals import (
    describe,
    infer,
    infer_quantiles,
    provenance_of,
)
from memdiag.engine.options import Options, as_options
from memdiag.errors import VerdictError
from memdiag.panel.prepare import Prepared, as_prepared

__all__ = ["QUANTITIES", "cost_ratios", "cost_values", "costs", "quantities_of", "system_costs"]

#: Per-query cost columns recognised (in display order) and their units. Latencies: ``latency_s``
#: (per query: search and answer, as releases time it), ``add_latency_s`` / ``search_latency_s``
#: when a harness times the stages apart, and their sum ``total_latency_s``; tokens: prompt
#: (``input_tokens``), completion (``output_tokens``), their sum ``total_tokens``, retrieved
#: evidence, and a release's own total (``tokens_used``); ``llm_calls``; ``cost_usd``.
QUANTITIES: dict[str, str] = {
    "latency_s": "s", "add_latency_s": "s", "search_latency_s": "s", "total_latency_s": "s",
    "input_tokens": "tokens", "output_tokens": "tokens", "total_tokens": "tokens", "evidence_tokens": "tokens",
    "tokens_used": "tokens", "llm_calls": "calls", "cost_usd": "USD",
}
#: Totals made from their parts when the verdicts hold the parts but not the total (Raw-RAG paper
#: Table 6: Total = Add-to-ready + Search; Table 32: Tokens = Prompt + Completion).
DERIVED: dict[str, tuple[str, str]] = {"total_latency_s": ("add_latency_s", "search_latency_s"),
                                       "total_tokens": ("input_tokens", "output_tokens")}
#: Latencies of a system all below this (seconds) are flagged: no retrieval and answer takes under a
#: millisecond (the saxenauts/persona release records ~1e-6 s, SOURCE.md).
IMPLAUSIBLE_S = 1e-3
#: The quantiles reported beside the mean (Raw-RAG paper Table 20 reports the same for evidence).
LEVELS: tuple[float, float] = (0.5, 0.95)
#: A ratio of two costs (system_a / system_b, or value / the reference's).
RATIO = real("ratio")


def cost_values(prepared: Prepared, quantity: str) -> np.ndarray:
    """The ``(N, S)`` values of a cost column, or of a :data:`DERIVED` total from its parts (NaN
    where a part is missing); a VerdictError naming the column when the verdicts lack it."""
    panel = prepared.panel
    if quantity in DERIVED and quantity not in panel.matrices and all(p in panel.matrices for p in DERIVED[quantity]):
        first, second = DERIVED[quantity]
        return panel.matrices[first] + panel.matrices[second]
    return panel.matrix(quantity)


def quantities_of(prepared: Prepared, quantities: Sequence[str] | None = None) -> list[str]:
    """The cost columns to report: the given ones (each must be a numeric column or a derived
    total), else every one of :data:`QUANTITIES` the verdicts hold (or make) with a value."""
    if quantities is None:
        have = set(prepared.panel.matrices) | {q for q, parts in DERIVED.items()
                                               if all(p in prepared.panel.matrices for p in parts)}
        return [q for q in QUANTITIES if q in have and not np.isnan(cost_values(prepared, q)).all()]
    for q in quantities:
        cost_values(prepared, q)
    return list(quantities)


def _series(prepared: Prepared, quantities: Sequence[str]) -> list[tuple[str, int, np.ndarray]]:
    """``(quantity, system column, values (N,) with NaN where absent)`` of every (quantity,
    system) with at least one value; a negative value (in a column :func:`memdiag.check` does not
    bound, e.g. ``tokens_used``) is an error naming the first."""
    panel = prepared.panel
    out = []
    for q in quantities:
        values = cost_values(prepared, q)
        if (values < 0).any():
            i, j = np.argwhere(values < 0)[0]
            raise VerdictError(f"column '{q}' is negative ({values[i, j]:g}) for system '{panel.systems[j]}', "
                               f"query '{panel.query_ids[i]}': a cost cannot be negative. Fix the value.")
        for j in range(len(panel.systems)):
            if not np.isnan(values[:, j]).all():
                out.append((q, j, values[:, j]))
    return out


def _quantile_note(quants, prepared: Prepared) -> Note:
    """How the median and P95 intervals were made, and what that means with few clusters."""
    line = f"median and p95: {quants.method}, B = {quants.n_resamples}"
    g = prepared.n_clusters if prepared.resampling.clustered else None
    if g is not None and g < 200:
        line += (f" ({g} clusters: the small-cluster methods of SPEC §4.1 do not apply to quantiles, and this "
                 "interval under-covers with few clusters)")
        return Note(line, code="quantile-intervals", severity="caution")
    return Note(line, code="quantile-intervals")
def costs(
    data: pd.DataFrame | Prepared,
    *,
    quantities: Sequence[str] | None = None,
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """Per-query cost and latency per system: mean, median and P95 with intervals, and the cost
    per correct answer (Raw-RAG paper Table 6, Table 32, Table 20; SPEC §7.9).

    Parameters
    ----------
    data
        :func:`memdiag.prepare` output, or canonical verdicts (prepared with the defaults), with
        per-query cost columns. The data choices are made there: the systems, the missing-data
        policies, and the scheme, whose query selection applies (e.g. ``locomo`` leaves out the
        adversarial questions); the costs are plain means over the selected queries, not the
        scheme's weighted aggregate. The cost per correct answer counts a query as correct when
        its score is > the prepared threshold (``md.prepare(threshold=...)``; None, the default:
        the score as it is, so a fractional score counts in part).
    quantities
        The cost columns (default: every column of :data:`QUANTITIES` present).
    options
        :class:`memdiag.Options` (None: the defaults); reads design (None: the prepared
        data's), inference, n_resamples (at least 1), seed and confidence_level, as
        :func:`memdiag.compare`; not correction.

    Returns
    -------
    pandas.DataFrame
        One row per (system, quantity) with a value for some query: ``system, quantity, unit,
        n`` (queries with a value), ``n_missing`` (aligned queries without one: not used),
        ``total`` (their sum), ``mean, median, p95`` each with ``_ci_low`` / ``_ci_high``,
        ``correct`` (the sum of the scores of those queries) and ``per_correct`` (total /
        correct, with its interval; undefined when nothing is correct). Costs are in their own
        units (seconds, tokens), not points. ``attrs["notes"]`` say which systems lack a quantity
        and how each interval was made.

    Raises
    ------
    VerdictError
        No per-query cost column (or a named one the verdicts lack), a negative cost, bad
        verdicts, an unknown system, policy or ``inference``, or bad options (``n_resamples=0``).
    SchemeError
        An unknown scheme, or one that keeps no query of the data.
    ValueError
        An unknown ``design``.

    Notes
    -----
    For system s and quantity c over the queries with a value, H_s:
    mean = Σ_{i∈H} c_i / |H|; per_correct = Σ_{i∈H} c_i / Σ_{i∈H} y_i (a ratio of sums: the
    total cost of the run divided by its correct answers, the accuracy-adjusted cost); median
    and P95 by linear interpolation (numpy's default, as for evidence length, SPEC §7.2).
    Means and per_correct are statistics of column sums and take the intervals of the SPEC §4.1
    rule (the cluster jackknife with t(G − 1) under a cluster design with fewer than 200
    clusters, else the percentile bootstrap) from one set of shared replicates; medians and P95
    take the percentile bootstrap under the design, which under-covers with few clusters
    (:func:`memdiag.engine.inference.intervals.infer_quantiles` says why). Intervals are clipped at 0.

    References
    ----------
    SPEC §7.9 (cost and latency), SPEC §4.1 (the interval rule) and SPEC §7.2 (quantiles by
    linear interpolation); Raw-RAG paper §4.3 RQ3, Table 6, Table 20, Table 32, A.6; Memory Tax
    review, Figure 1.
    Efron, B. (1982). The Jackknife, the Bootstrap and Other Resampling Plans. SIAM (ch. 3: the
    jackknife is inconsistent for quantiles).
    Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.

    Examples
    --------
    >>> df = pd.DataFrame({"system": ["rag"] * 4, "query_id": list("abcd"), "score": [1, 0, 1, 1],
    ...                    "latency_s": [1.0, 2.0, 3.0, 10.0]})
    >>> out = costs(df, options={"n_resamples": 200})
    >>> out[["system", "quantity", "n", "mean", "median", "p95", "correct", "per_correct"]]
      system   quantity  n  mean  median   p95  correct  per_correct
    0    rag  latency_s  4   4.0     2.5  8.95      3.0     5.333333
    """
    opts = as_options(options)
    prepared = as_prepared(data, design=opts.design)
    seed, n_resamples, confidence_level = opts.seed, opts.resampled("costs"), opts.confidence_level
    inference = opts.inference
    threshold = prepared.threshold
    panel = prepared.panel
    chosen = quantities_of(prepared, quantities)
    if not chosen:
        raise VerdictError(f"the verdicts carry no per-query cost ({', '.join(QUANTITIES)}). Add one, or map a "
                           "column with --field latency_s=<column>.")
    series = _series(prepared, chosen)
    y = panel.scores if threshold is None else (panel.scores > threshold).astype(float)
    columns = []
    for _, j, values in series:
        has = ~np.isnan(values)
        columns += [np.where(has, values, 0.0), has.astype(float), np.where(has, y[:, j], 0.0)]
    X = np.column_stack(columns)
    m = len(series)

    def statistic(sums: np.ndarray) -> np.ndarray:
        total, count, correct = sums[:, 0::3], sums[:, 1::3], sums[:, 2::3]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.hstack([total / count, total / correct])

    means = infer(X, prepared.resampling, statistic, inference=inference, test=False, n_resamples=n_resamples,
                  seed=seed, confidence_level=confidence_level, bounds=(0.0, np.inf))
    quants = infer_quantiles([(np.flatnonzero(~np.isnan(v)), v[~np.isnan(v)]) for _, _, v in series],
                             prepared.resampling, LEVELS, n_resamples=n_resamples, seed=seed,
                             confidence_level=confidence_level)
    sums = X.sum(axis=0)
    out = pd.DataFrame({
        "system": [panel.systems[j] for _, j, _ in series], "quantity": [q for q, _, _ in series],
        "unit": [QUANTITIES.get(q, "") for q, _, _ in series],
        "n": sums[1::3].astype(np.int64), "n_missing": panel.n - sums[1::3].astype(np.int64),
        "total": sums[0::3]})
    for k, name in enumerate(("mean", "median", "p95")):
        if k == 0:
            est, low, high = means.estimate[:m], means.ci_low[:m], means.ci_high[:m]
        else:
            est, low, high = (quants.estimate[k - 1::2], quants.ci_low[k - 1::2], quants.ci_high[k - 1::2])
        out[name], out[f"{name}_ci_low"], out[f"{name}_ci_high"] = est, low, high
    out["correct"] = sums[2::3]
    out["per_correct"] = means.estimate[m:]
    out["per_correct_ci_low"], out["per_correct_ci_high"] = means.ci_low[m:], means.ci_high[m:]
    notes = [prefixed("mean and per_correct: ", describe(means, prepared.n_clusters)), _quantile_note(quants, prepared)]
    for q in chosen:
        lacking = [s for j, s in enumerate(panel.systems) if not any(q_ == q and j_ == j for q_, j_, _ in series)]
        if lacking:
            notes.append(Note(f"no {q} for {', '.join(lacking)}: not reported", code="cost-missing", concerns=lacking))
    for q, j, values in series:
        if QUANTITIES.get(q) == "s" and np.nanmax(values) < IMPLAUSIBLE_S:
            notes.append(Note(f"{panel.systems[j]}: every {q} is below {IMPLAUSIBLE_S * 1000:g} ms (median "
                              f"{np.nanmedian(values):.2g} s): no answer takes that little; check the unit or the "
                              "timer", code="implausible-latency", severity="warning", concerns=(panel.systems[j],)))
    for row in out.itertuples():
        if row.n_missing:
            notes.append(Note(f"{row.system}: {row.quantity} missing for {row.n_missing} of {panel.n} queries (not "
                              "used)", code="cost-missing", concerns=(row.system,)))
        if row.correct == 0:
            notes.append(Note(f"{row.system}: per_correct of {row.quantity} is undefined (no correct answer)",
                              code="per-correct-undefined", severity="caution", concerns=(row.system,)))
    labels = [f"{name} {q} of '{panel.systems[j]}'" for name in ("mean", "per_correct") for q, j, _ in series]
    notes += undefined_notes(means, labels)
    mc = provenance_of(means, inference)["mc_se"]
    mc_se = {f"{name}_{end}": list(values) for end in ("ci_low", "ci_high")
             for name, values in (("mean", mc[end][:m]), ("per_correct", mc[end][m:]))}
    for k, name in enumerate(("median", "p95")):
        for end in ("ci_low", "ci_high"):
            mc_se[f"{name}_{end}"] = [float(v) for v in quants.mc_se[end][k::2]]
    return stamp(out, "costs", prepared, kinds=declare(real=(*with_intervals("mean", "median", "p95", "per_correct"),
                                                              "total", "correct")), notes=notes, metric="per-query cost", n_resamples=n_resamples, seed=seed,
                 confidence_level=confidence_level, threshold=threshold, inference=inference,
                 method=f"{means.method} (mean, per_correct); {quants.method} (median, p95)", mc_se=mc_se)
def cost_ratios(
    data: pd.DataFrame | Prepared,
    *,
    quantities: Sequence[str] | None = None,
    reference: str | None = None,
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """Ratios of mean per-query cost between systems, with paired intervals: speed-ups and token
    savings (Raw-RAG paper §4.3 RQ3: "5.1× faster than the next system", Table 6, Table 32; SPEC §7.9).

    Parameters
    ----------
    data
        :func:`memdiag.prepare` output, or canonical verdicts (prepared with the defaults), with
        per-query cost columns; the scheme's selection, the systems and the missing-data
        policies are chosen there, as for :func:`costs`.
    quantities
        The cost columns (default: every column of :data:`QUANTITIES` present).
    reference
        A system's name: each other system against it; None (default): every unordered pair,
        in system order.
    options
        :class:`memdiag.Options` (None: the defaults); reads every field, as
        :func:`memdiag.compare`: design (None: the prepared data's), inference, n_resamples (at
        least 1), seed, confidence_level, and the correction over the pairs of one quantity
        (``holm``, ``bonferroni``, ``fdr_bh``).

    Returns
    -------
    pandas.DataFrame
        One row per (quantity, pair) where both systems have values: ``quantity, system_a,
        system_b, n`` (queries where both have a value), ``mean_a, mean_b``, ``ratio`` =
        mean_a / mean_b with ``ci_low, ci_high``, ``p`` (ratio = 1), ``p_adj``, ``p_floor``,
        ``test``, ``method``. With a ``reference``, system_b is the reference and ratio is
        how many times the reference's cost system_a takes: a latency ratio of 5.1 means the
        reference is 5.1× faster.

    Raises
    ------
    VerdictError
        Fewer than two systems, an unknown ``reference``, no per-query cost column
        (or a named one the verdicts lack), no pair with costs on the same queries, a negative
        cost, bad verdicts, an unknown policy, ``inference`` or ``correction``, bad options
        (``n_resamples=0``).
    SchemeError
        An unknown scheme, or one that keeps no query of the data.
    ValueError
        An unknown ``design``.

    Notes
    -----
    ratio = Σ_{i∈H} c_ai / Σ_{i∈H} c_bi over the queries H where both have a value (paired: the
    same queries, the same replicates); its interval and test follow the SPEC §4.1 rule (cluster
    jackknife t interval and wild cluster bootstrap-t under a cluster design with fewer than 200
    clusters; percentile bootstrap and sign test otherwise), clipped at 0. A reference without
    the quantity gives no rows for it (noted).

    References
    ----------
    SPEC §7.9 (ratios between systems), SPEC §4.1 (the interval and test rule) and SPEC §5.3
    (Holm within each quantity); Raw-RAG paper §4.3 RQ3 ("5.1× faster than the next system"),
    Table 6 and Table 32.
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scandinavian
    Journal of Statistics 6(2), 65–70.
    Cameron, A. C., Gelbach, J. B. & Miller, D. L. (2008). Bootstrap-based improvements for
    inference with clustered errors. Review of Economics and Statistics 90(3), 414–427.

    Examples
    --------
    >>> df = pd.DataFrame({"system": ["rag"] * 4 + ["mem"] * 4, "query_id": list("abcd") * 2,
    ...                    "score": 1, "latency_s": [1.0, 1.0, 2.0, 2.0, 5.0, 4.0, 9.0, 12.0]})
    >>> out = cost_ratios(df, reference="rag", options={"n_resamples": 200})
    >>> out[["quantity", "system_a", "system_b", "mean_a", "mean_b", "ratio"]]
        quantity system_a system_b  mean_a  mean_b  ratio
    0  latency_s      mem      rag     7.5     1.5    5.0
    """
    from memdiag.analyses.compare import index_pairs

    opts = as_options(options)
    prepared = as_prepared(data, design=opts.design)
    seed, n_resamples, confidence_level = opts.seed, opts.resampled("cost_ratios"), opts.confidence_level
    inference, correction = opts.inference, opts.correction
    panel = prepared.panel
    if len(panel.systems) < 2:
        raise VerdictError(f"a ratio needs at least two systems; the data hold {len(panel.systems)}.")
    chosen = index_pairs(panel.systems, reference)
    quantities = quantities_of(prepared, quantities)
    if not quantities:
        raise VerdictError(f"the verdicts carry no per-query cost ({', '.join(QUANTITIES)}). Add one, or map a "
                           "column with --field latency_s=<column>.")
    rows, columns, notes = [], [], []
    for q in quantities:
        values = cost_values(prepared, q)
        for a, b in chosen:
            both = ~np.isnan(values[:, a]) & ~np.isnan(values[:, b])
            if not both.any():
                continue
            rows.append({"quantity": q, "system_a": panel.systems[a], "system_b": panel.systems[b],
                         "n": int(both.sum())})
            columns += [np.where(both, values[:, a], 0.0), np.where(both, values[:, b], 0.0)]
        if reference is not None and np.isnan(values[:, panel.systems.index(reference)]).all():
            notes.append(Note(f"the reference '{reference}' has no {q}: no ratios of {q}", code="cost-missing",
                              concerns=(reference,)))
    if not rows:
        raise VerdictError("no pair of systems has a cost on the same queries: nothing to compare.")
    X = np.column_stack(columns)

    def ratio(sums: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return sums[:, 0::2] / sums[:, 1::2]

    res = infer(X, prepared.resampling, ratio, inference=inference, test=True, null=1.0, n_resamples=n_resamples,
                seed=seed, confidence_level=confidence_level, bounds=(0.0, np.inf))
    out = pd.DataFrame(rows)
    sums = X.sum(axis=0)
    out["mean_a"], out["mean_b"] = sums[0::2] / out["n"], sums[1::2] / out["n"]
    out["ratio"], out["ci_low"], out["ci_high"] = res.estimate, res.ci_low, res.ci_high
    out["p"], out["p_floor"], out["test"] = res.p_value, res.p_floor, list(res.tests)
    out["p_adj"] = np.nan
    for _, index in out.groupby("quantity", sort=False).groups.items():
        out.loc[index, "p_adj"] = adjust(out.loc[index, "p"].to_numpy(), method=correction)
    out["method"] = res.method
    out = out[["quantity", "system_a", "system_b", "n", "mean_a", "mean_b", "ratio", "ci_low", "ci_high",
               "p", "p_adj", "p_floor", "test", "method"]]
    notes = [describe(res, prepared.n_clusters)] + notes + undefined_notes(
        res, [f"{r.quantity} {r.system_a} / {r.system_b}" for r in out.itertuples()])
    kinds = declare({"p": P_FLOORED, "p_adj": P_FLOORED, **dict.fromkeys(("ratio", "ci_low", "ci_high"), RATIO)},
                    real=("mean_a", "mean_b"))
    return stamp(out, "cost_ratios", prepared, kinds=kinds, notes=notes, metric="ratio of mean per-query cost",
                 n_resamples=n_resamples, seed=seed, confidence_level=confidence_level, correction=correction,
                 **provenance_of(res, inference))


def system_costs(table: pd.DataFrame, reference: str | None = None,
                 columns: Sequence[str] | None = None) -> pd.DataFrame:
    """System-level costs of whole runs with their ratios to the reference (Raw-RAG paper Table 32:
    LLM calls, prompt/completion tokens, Add and Search time; Table 6: Add-to-ready, Search, Total).

    Parameters
    ----------
    table
        A systems table keyed by ``system`` (SPEC §1), e.g. ``ingestion_hours``,
        ``ingestion_tokens``, ``tokens_per_query``, ``store_tokens``, ``llm_calls``.
    reference
        The system the ratios are taken to (its own ratio is 1).
    columns
        The numeric columns to report (default: every numeric column).

    Returns
    -------
    pandas.DataFrame
        One row per (system, column) with a value: ``system, quantity, value`` and ``ratio`` =
        value / the reference's value (NaN without a reference, or when the reference's value is
        0 or missing). Each is one measurement per system: no interval can be attached, and
        ``attrs["notes"]`` says so.

    Raises
    ------
    VerdictError
        A table without a ``system`` column, a named column it lacks, a system listed twice, or
        a ``reference`` not in the table.

    References
    ----------
    SPEC §1.1 (the systems table) and SPEC §7.9 (system-level costs: one measurement per
    system, no interval); Raw-RAG paper Table 6 (Add-to-ready, Search, Total) and Table 32 (LLM
    calls, prompt/completion tokens).

    Examples
    --------
    >>> t = pd.DataFrame({"system": ["raw-rag", "mem0"], "ingestion_hours": [0.33, 3.25]})
    >>> system_costs(t, reference="raw-rag")
        system         quantity  value     ratio
    0  raw-rag  ingestion_hours   0.33  1.000000
    1     mem0  ingestion_hours   3.25  9.848485
    """
    if "system" not in table:
        raise VerdictError(f"the systems table needs a 'system' column (have: {', '.join(map(str, table.columns))}).")
    if columns is None:
        columns = [c for c in table.columns if c != "system" and pd.api.types.is_numeric_dtype(table[c])]
    lacking = [c for c in columns if c not in table]
    if lacking:
        raise VerdictError(f"the systems table has no column {lacking[0]!r} (it has "
                           f"{', '.join(map(str, table.columns))}).")
    twice = table.loc[table["system"].duplicated(), "system"]
    if len(twice):
        raise VerdictError(f"the systems table lists system '{twice.iloc[0]}' more than once: give one row per system.")
    if reference is not None and reference not in set(table["system"]):
        raise VerdictError(f"the reference '{reference}' is not in the systems table (systems: "
                           f"{', '.join(map(str, table['system']))}).")
    long = table[["system", *columns]].melt(id_vars="system", var_name="quantity", value_name="value")
    long["value"] = pd.to_numeric(long["value"], errors="coerce")
    long = long.dropna(subset=["value"]).reset_index(drop=True)
    if reference is not None:
        base = long[long["system"] == reference].set_index("quantity")["value"]
        denominator = long["quantity"].map(base).replace(0, np.nan)
        long["ratio"] = long["value"] / denominator
    else:
        long["ratio"] = np.nan
    notes = [Note("one measurement per system (a whole run): no interval", code="no-interval")]
    if reference is not None:
        notes.append(Note(f"ratio = value / the value of {reference}", code="ratio-definition"))
    return stamp(long, "system_costs", kinds=declare({"ratio": RATIO}, real=("value",)), notes=notes, resampled=False)
