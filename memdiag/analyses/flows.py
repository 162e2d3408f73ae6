"""Memory benefit and memory tax: per-query correctness flows against a reference (SPEC §2).

Against a reference R (usually raw-history RAG), each query of a system M falls in one cell:

    ============  ===========  ===========  ===========
    cell          R correct    M correct    name
    ============  ===========  ===========  ===========
    a             yes          yes          both
    b             no           yes          benefit
    c             yes          no           tax
    d             no           no           neither
    ============  ===========  ===========  ===========

and memdiag reports the counts, the rates b/N and c/N, net = b − c and (b − c)/N (the accuracy
difference for binary scores), retention a/(a + c) (share of R's successes kept) and recovery
b/(b + d) (share of R's failures fixed), each rate in points with a paired interval under the
benchmark's resampling design, and the design's test of net ≠ 0 — exact McNemar for independent
queries, the wild cluster bootstrap for clustered ones — with a family adjustment across the
systems compared with one reference (Memory Tax review; SPEC §2, §4.1, §5).

Every rate is a function of the four cell counts, so intervals and tests work on the cells
(:func:`memdiag.engine.inference.intervals.infer_cells`): the bootstrap draws conditional binomials per stratum
under the query-level designs; the cluster methods use each cluster's cell counts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from memdiag.analyses.clusters import reference_notes
from memdiag.analyses.groups import groups_of
from memdiag.core.kinds import P_FLOORED, declare, with_intervals
from memdiag.core.notes import Note, prefixed
from memdiag.core.provenance import stamp
from memdiag.engine.inference import adjust, mcnemar
from memdiag.engine.inference.boundary import near_boundary_notes
from memdiag.engine.inference.consistency import (
    disagree,
    disagreement_notes,
    few_clusters_note,
    symmetry_note,
)
from memdiag.engine.inference.intervals import describe, infer_cells
from memdiag.engine.inference.wild import EXACT_UP_TO
from memdiag.engine.options import Options, as_options
from memdiag.engine.pairs import CELLS, THRESHOLD, binarize, contrast_codes
from memdiag.errors import VerdictError
from memdiag.panel import conventions as _conventions
from memdiag.panel.prepare import Prepared, as_prepared

#: The rates that get intervals, in column order.
RATES: tuple[str, ...] = ("benefit_rate", "tax_rate", "net_rate", "retention", "recovery")
#: The range of each rate in points (t intervals are clipped to it).
_LOW = np.array([0.0, 0.0, -100.0, 0.0, 0.0])
_HIGH = np.full(len(RATES), 100.0)
#: The ratios whose denominator can be empty in a replicate: the share of replicates where each was
#: undefined is a column beside its interval.
RATIOS: tuple[str, ...] = ("retention", "recovery")
#: The kinds of the flows table's columns (the cells are counts; rates in points).
KINDS = declare({"p": P_FLOORED, "p_adj": P_FLOORED}, count=(*CELLS, "n", "net"), points=with_intervals(*RATES),
                p=("p_mcnemar",), fraction=[f"{r}_undefined" for r in RATIOS], label=("category_id",))


def flow_rates(cells: np.ndarray) -> np.ndarray:
    """Rates in points from cell counts ``(b, k, 4)`` -> ``(b, 5·k)``, five per contrast in
    :data:`RATES` order; retention and recovery are NaN where their denominator is 0.

    >>> flow_rates(np.array([[[1.0, 1.0, 1.0, 1.0]]])).tolist()
    [[25.0, 25.0, 0.0, 50.0, 50.0]]
    """
    a, b, c, d = (cells[..., k] for k in range(4))
    n = cells.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = 100 * np.stack([b / n, c / n, (b - c) / n, a / (a + c), b / (b + d)], axis=-1)
    return out.reshape(cells.shape[0], -1)


def _flows_table(prepared: Prepared, reference: str, names: list[str], threshold: float | None,
                 inference: str, n_resamples: int, seed: int, confidence_level: float,
                 correction: str) -> tuple[pd.DataFrame, list[str], dict]:
    """The flows of ``names`` against ``reference`` on prepared data, the notes it needs and the
    inference's provenance."""
    panel = prepared.panel
    correct = binarize(panel.scores, threshold)
    ref = panel.system_index(reference)
    contrasts = [(panel.system_index(s), ref) for s in names]
    codes, keys, swap = contrast_codes(correct, panel.systems, contrasts)
    tested = np.tile(np.array([rate == "net_rate" for rate in RATES]), len(names))
    result = infer_cells(codes, prepared.resampling, flow_rates, inference=inference, test=tested, keys=keys,
                         swap=swap, n_resamples=n_resamples, seed=seed, confidence_level=confidence_level,
                         bounds=(np.tile(_LOW, len(names)), np.tile(_HIGH, len(names))))
    counts = np.stack([(codes == k).sum(axis=0) for k in range(4)], axis=1)   # drawn orientation
    counts[swap] = counts[swap][:, [0, 2, 1, 3]]
    point, low, high, undefined = (v.reshape(-1, len(RATES)) for v in
                                   (result.estimate, result.ci_low, result.ci_high, result.undefined))
    net = RATES.index("net_rate")
    p_net, floor_net = (v.reshape(-1, len(RATES))[:, net] for v in (result.p_value, result.p_floor))
    test_net = np.array(result.tests, dtype=object).reshape(-1, len(RATES))[:, net]
    # iid: exact McNemar; stratified: exact where small (McNemar is the sign-flip test of ±1 differences)
    exact = np.array([prepared.design == "iid" or (not prepared.resampling.clustered
                                                   and counts[i, 1] + counts[i, 2] <= EXACT_UP_TO)
                      for i in range(len(names))])
    rows, notes = [], []
    for i, name in enumerate(names):
        a, b, c, d = (int(v) for v in counts[i])
        row = {"system": name, "reference": reference, "n": a + b + c + d,
               **dict(zip(CELLS, (a, b, c, d))), "net": b - c}
        for j, rate in enumerate(RATES):
            row[rate] = point[i, j]
            row[f"{rate}_ci_low"] = low[i, j]
            row[f"{rate}_ci_high"] = high[i, j]
        mcnemar_p = mcnemar(benefit=b, tax=c).p_value
        row["p"] = mcnemar_p if exact[i] else float(p_net[i])
        row["p_floor"] = False if exact[i] else bool(floor_net[i])
        row["test"] = "exact McNemar" if exact[i] else test_net[i]
        row["p_mcnemar"] = mcnemar_p
        for rate in RATIOS:
            row[f"{rate}_undefined"] = float(undefined[i, RATES.index(rate)])
        rows.append(row)
        notes += _zero_width_notes(name, reference, (a, b, c, d), point[i], low[i], high[i], result.kind)
        what = "leave-one-cluster-out estimates" if result.kind != "percentile" else "replicates"
        for rate in RATIOS:
            share = undefined[i, RATES.index(rate)]
            if 0 < share < 1:
                notes.append(Note(f"{name} vs {reference}: {rate} undefined (empty denominator) in {share:.1%} of "
                                  f"the {what}" + (", left out of its interval" if result.kind == "percentile"
                                                   else ", so its interval is undefined"),
                                  code="ratio-undefined", severity="caution", concerns=(name,)))
    out = pd.DataFrame(rows)
    out["p_adj"] = adjust(out["p"].to_numpy(), method=correction)
    out["method"] = result.method
    alpha = 1 - confidence_level
    out["disagree"] = disagree(out["net_rate_ci_low"], out["net_rate_ci_high"], out["p"], alpha)
    order = [c for c in out.columns if c not in ("p_adj", "p_floor", "disagree", "test", "method", "p_mcnemar")
             and not c.endswith("_undefined")]
    at = order.index("p") + 1
    order[at:at] = ["p_adj", "p_floor", "disagree", "test", "method", "p_mcnemar"] + [f"{r}_undefined" for r in RATIOS]
    mc_p = np.where(exact, 0.0, result.mc_se["p"].reshape(-1, len(RATES))[:, net])
    mc_se = {"p": [float(v) for v in mc_p]}
    for end in ("ci_low", "ci_high"):
        values = result.mc_se[end].reshape(-1, len(RATES))
        for j, rate in enumerate(RATES):
            mc_se[f"{rate}_{end}"] = [float(v) for v in values[:, j]]
    labels = [f"{name} vs {reference}" for name in names]
    notes += disagreement_notes(labels, out["disagree"], out["net_rate_ci_low"], out["net_rate_ci_high"], out["p"],
                                alpha, confidence_level, result.method, list(out["test"]), unit=" points (net rate)")
    if prepared.resampling.clustered:
        notes += few_clusters_note(prepared.n_clusters)
        if any(str(t).startswith("wild cluster") for t in out["test"]):
            notes.append(symmetry_note())
    notes += near_boundary_notes(labels, alpha=alpha, p=out["p"].to_numpy(), p_se=mc_p, p_adj=out["p_adj"].to_numpy(),
                                 ends={f"net_rate_{end}": (out[f"net_rate_{end}"].to_numpy(), mc_se[f"net_rate_{end}"])
                                       for end in ("ci_low", "ci_high")}, unit=" points")
    return (out[order], [describe(result, prepared.n_clusters, tests=out["test"])] + notes,
            {"method": result.method, "mc_se": mc_se})


def _zero_width_notes(name: str, reference: str, cells: tuple[int, int, int, int], point: np.ndarray,
                      low: np.ndarray, high: np.ndarray, kind: str) -> list[Note]:
    """A caution note per rate whose interval has zero width (recovery 100 [100, 100] with 2 of 2):
    no replicate or leave-one-cluster-out estimate varied, so the data cannot measure its
    uncertainty, which is not zero (as :func:`memdiag.analyses.compare.undefined_notes` says of a difference)."""
    a, b, c, d = cells
    n = a + b + c + d
    counts = {"benefit_rate": (b, n), "tax_rate": (c, n), "net_rate": (b - c, n), "retention": (a, a + c),
              "recovery": (b, b + d)}
    source = "leave-one-cluster-out estimate" if kind != "percentile" else "replicate"
    notes = []
    for j, rate in enumerate(RATES):
        if np.isfinite(low[j]) and low[j] == high[j]:
            k, of = counts[rate]
            notes.append(Note(f"{name} vs {reference}: {rate} {point[j]:.0f} [{low[j]:.0f}, {high[j]:.0f}] ({k} of {of}) "
                              f"has an interval of zero width because no {source} varied; the data cannot measure "
                              "its uncertainty, which is not zero", code="zero-width-interval", severity="caution",
                              concerns=(name,)))
    return notes
def flows(
    data: pd.DataFrame | Prepared,
    reference: str | Iterable[str],
    *,
    by: str | None = None,
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """Memory benefit and memory tax of every system against one or more references (SPEC §2, §4.1).

    Parameters
    ----------
    data
        :func:`memdiag.prepare` output, or canonical verdicts (prepared with the defaults). The
        scheme's query selection applies (e.g. ``locomo`` drops the adversarial category,
        ``meme`` keeps after-phase answers and their before twins); flows count queries, so
        group weights do not enter. Every system but the reference is compared (choose them with
        ``md.prepare(systems=...)``); a query is correct when its score (mean over judge
        repetitions) is > the prepared threshold (``md.prepare(threshold=...)``; None, the
        default: 0.5, SPEC §2).
    reference
        The reference system (e.g. ``"raw-rag"``), or several (e.g. RAG and full-context): the
        result stacks one block per reference.
    by
        A per-query column (e.g. ``"category"``): the same table per group, with a ``by`` and a
        ``group`` column; the adjustment is then within each (reference, group) family.
    options
        :class:`memdiag.Options`: the design (None: the prepared data's), the inference
        (:mod:`memdiag.engine.inference.rule`), the replicates (or wild draws) and seed for the rate
        intervals and the test, the interval level (SPEC §4, §4.1), and the multiplicity
        adjustment of ``p`` across the systems compared with one reference.

    Returns
    -------
    pandas.DataFrame
        One row per (reference, [group,] system): with ``by``, first ``by, group`` and, for
        LoCoMo categories, ``category_id`` (the dataset's integer beside the canonical name, SPEC
        §6.2; ``attrs["convention"]`` names the naming); then ``system, reference, n, both, benefit, tax,
        neither, net, benefit_rate, tax_rate, net_rate, retention, recovery`` (rates in points,
        each with ``_ci_low`` / ``_ci_high``); ``p``, the design's test of net ≠ 0 (named in
        ``test``: exact McNemar under ``iid``, the wild cluster bootstrap under a cluster design),
        ``p_adj`` (``p`` adjusted), ``p_floor`` (``p`` at its Monte-Carlo floor: read "< p"),
        ``disagree`` (the net-rate interval and the test disagree about 0; a caution note names
        both), ``test``, ``method`` (how the intervals were made), ``p_mcnemar`` (exact McNemar, which treats
        queries as independent — shown beside the design's test under clustering), and
        ``retention_undefined`` / ``recovery_undefined`` (the share of replicates, or of
        leave-one-cluster-out estimates, in which the ratio was undefined). ``attrs`` hold the
        provenance, ``attrs["mc_se"]`` the Monte-Carlo standard errors of p and every interval end.

    Raises
    ------
    VerdictError
        A reference or system not in the data, no system to compare, bad options or verdicts.
    SchemeError
        An unknown scheme, or one that keeps no query of the data.
    ValueError
        An unknown ``design``.
    TypeError
        ``seed`` is neither an int nor a :class:`numpy.random.Generator`.

    Notes
    -----
    With a = both, b = benefit, c = tax, d = neither and N = a + b + c + d:
    benefit_rate = b/N, tax_rate = c/N, net = b − c, net_rate = (b − c)/N (equal to the accuracy
    difference for binary scores), retention = a/(a + c), recovery = b/(b + d); McNemar
    p = min(1, 2·BinomCDF(min(b, c); b + c, ½)), 1 when b + c = 0. Retention or recovery is NaN
    (undefined) when its denominator is 0; the share of replicates where it is undefined is its
    ``_undefined`` column (and a note), and those replicates are left out of its interval.
    SPEC §2 and §5; Memory Tax review.

    McNemar's test treats queries as independent. Under a cluster design (LoCoMo conversations,
    MEME episodes) with fewer than 200 clusters the rates get cluster jackknife t intervals
    (clipped to their range) and ``p`` is the restricted wild cluster bootstrap-t on the
    clusters' net counts b_g − c_g, exact over all sign flips when at most 16 clusters have a
    nonzero net (SPEC §4.1).

    References
    ----------
    SPEC §2 (benefit and tax flows), SPEC §1.5 (the threshold), SPEC §4.1 (few clusters),
    SPEC §4.5 (binary contrasts through the 2×2 cells), SPEC §5.1 (exact McNemar) and SPEC §5.3
    (multiplicity); Memory Tax review (memory benefit and memory tax as per-query flows against a
    named RAG reference; net value as their balance).
    McNemar, Q. (1947). Note on the sampling error of the difference between correlated
    proportions or percentages. Psychometrika 12(2), 153–157.
    Cameron, A. C., Gelbach, J. B. & Miller, D. L. (2008). Bootstrap-based improvements for
    inference with clustered errors. Review of Economics and Statistics 90(3), 414–427.
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scandinavian
    Journal of Statistics 6(2), 65–70.

    Examples
    --------
    >>> df = pd.DataFrame({"system": ["rag"] * 4 + ["mem"] * 4, "query_id": list("abcd") * 2,
    ...                    "score": [1, 1, 0, 0, 1, 0, 1, 0]})
    >>> out = flows(df, reference="rag", options={"n_resamples": 200})
    >>> out[["system", "both", "benefit", "tax", "neither", "net", "retention", "recovery"]]
      system  both  benefit  tax  neither  net  retention  recovery
    0    mem     1        1    1        1    0       50.0      50.0
    """
    references = [reference] if isinstance(reference, str) else list(reference)
    opts = as_options(options)
    prepared = as_prepared(data, design=opts.design)
    seed, n_resamples, confidence_level = opts.seed, opts.resampled("flows"), opts.confidence_level
    inference, correction = opts.inference, opts.correction
    threshold = prepared.threshold
    for ref in references:
        prepared.panel.system_index(ref)
    blocks, notes, mc_se, method = [], [], {}, None
    benchmark = _conventions.benchmark_of(prepared.scheme.name if prepared.scheme else None,
                                          prepared.panel.queries.get("benchmark", ()))
    for ref in references:
        names = [s for s in prepared.systems if s != ref]
        if not names:
            raise VerdictError(f"no system to compare with the reference '{ref}': the data hold "
                               f"only {', '.join(prepared.systems)}.")
        # queries without a label form their own group, never dropped; categories in the benchmark's order
        groups = [(None, prepared)] if by is None else groups_of(prepared, by, benchmark)
        for label, part in groups:
            block, block_notes, mc = _flows_table(part, ref, names, threshold, inference, n_resamples, seed,
                                                  confidence_level, correction)
            method = method or mc["method"]
            for column, values in mc["mc_se"].items():
                mc_se.setdefault(column, []).extend(values)
            if by is not None:
                block.insert(0, "group", label)
                block.insert(0, "by", by)
                if by == "category" and benchmark is not None:   # the integer beside the name (SPEC §6.2)
                    block.insert(2, "category_id", _conventions.category_ids([label], benchmark).get(label))
                block_notes = block_notes[:1] + [prefixed(f"{by} {label}: ", n) for n in block_notes[1:]]
            blocks.append(block)
            notes += block_notes
    out = pd.concat(blocks, ignore_index=True)
    extra = {}
    if "category_id" in out:
        out["category_id"] = out["category_id"].astype("Int64")
        notes.append(_conventions.naming_note(benchmark))
        extra = {"convention": _conventions.canonical(benchmark).name}
    for ref in references:
        notes += reference_notes(prepared, ref)
    if prepared.design != "iid":
        notes.append(Note(f"p is the {prepared.design} design's test; p_mcnemar is exact McNemar, which treats "
                          "queries as independent", code="p-columns"))
    return stamp(out, "flows", prepared, kinds=KINDS, notes=list(dict.fromkeys(notes)), n_resamples=n_resamples, seed=seed,
                 confidence_level=confidence_level, correction=correction,
                 threshold=THRESHOLD if threshold is None else threshold, unit="points", inference=inference,
                 method=method, mc_se=mc_se, **extra)
