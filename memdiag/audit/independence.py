"""Which conclusions that treat queries as independent survive the clustered analysis? (SPEC §4.1).

One job: :func:`audit_independence` runs the same pairwise comparisons twice on clustered data —
once the published way, treating queries as independent (``design="iid"``: exact McNemar for a
binary accuracy, percentile intervals, Holm over the pairs), once under the cluster design
(cluster jackknife intervals and the wild cluster bootstrap with few clusters) — and says, pair
by pair, whether a significant iid difference stays significant.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from memdiag.analyses.compare import compare
from memdiag.core.checks import alpha_of
from memdiag.core.kinds import declare, real
from memdiag.core.notes import Note, with_code
from memdiag.core.provenance import stamp
from memdiag.engine.options import Options, as_options
from memdiag.errors import VerdictError
from memdiag.panel.prepare import Prepared, as_prepared

#: What happened to each pair's conclusion, in the order of :func:`audit_independence`'s column.
OUTCOMES: tuple[str, ...] = ("survives", "lost", "gained", "neither")
def audit_independence(
    data: pd.DataFrame | Prepared,
    *,
    metric: str = "accuracy",
    reference: str | None = None,
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """The pairwise conclusions of an iid analysis beside those of the clustered one (SPEC §4.1).

    Parameters
    ----------
    data
        :func:`memdiag.prepare` output, or canonical verdicts (prepared with the defaults), whose
        queries carry a ``cluster`` (conversation, episode, persona). The data choices (scheme,
        systems, missing-data policies, threshold) are made there.
    metric, reference
        As in :func:`memdiag.compare` (``reference`` None: every pair).
    options
        :class:`memdiag.Options` (or a mapping of its fields; None: the defaults); reads every
        field: design (the clustered design; None: the prepared data's, ``cluster`` when that is
        ``iid``; it must resample clusters), inference (of the clustered analysis,
        :mod:`memdiag.engine.inference.rule`; the iid analysis is always ``percentile``), correction
        (over the pairs, the same in both analyses), n_resamples, seed and confidence_level
        (shared by both analyses; α = 1 − confidence_level, :func:`memdiag.core.checks.alpha_of`,
        is the significance level of the adjusted p-values: 0.95 gives exactly 0.05).

    Returns
    -------
    pandas.DataFrame
        One row per pair: ``system_a, system_b, diff`` (points), the iid analysis
        ``ci_low_iid, ci_high_iid, p_iid, p_adj_iid, test_iid``, the clustered one ``ci_low,
        ci_high, p, p_adj, p_floor, test, method``, ``width_ratio`` (clustered interval width over
        the iid one) and ``outcome``: ``survives`` (significant in both), ``lost`` (significant
        only under iid), ``gained`` (only clustered) or ``neither``. ``attrs`` add
        ``n_pairs``, ``n_significant_iid``, ``n_survive`` and ``alpha``.

    Raises
    ------
    VerdictError
        Data without clusters (nothing to compare), a design that does not resample clusters,
        or what :func:`memdiag.compare` raises.
    SchemeError
        An unknown scheme, or one the data cannot satisfy.

    References
    ----------
    SPEC §4.1 (few clusters: the cluster jackknife and the wild cluster bootstrap), SPEC §4.2
    (the paired principle and the default design), SPEC §5.1 and §5.3 (exact McNemar and
    Holm, the iid analysis); Raw-RAG paper C.6 (the published analysis treats queries as
    independent).
    Cameron, A. C., Gelbach, J. B. & Miller, D. L. (2008). Bootstrap-based improvements for
    inference with clustered errors. Review of Economics and Statistics 90(3), 414–427.
    MacKinnon, J. G., Nielsen, M. Ø. & Webb, M. D. (2023). Cluster-robust inference: a guide to
    empirical practice. Journal of Econometrics 232(2), 272–299.

    Examples
    --------
    >>> import memdiag as md
    >>> df = md.simulate(n_queries=1000, systems={"raw-rag": 0.55, "mem": 0.65}, n_clusters=10, icc=0.2, seed=2)
    >>> out = audit_independence(df, options={"n_resamples": 2000})
    >>> out[["system_a", "system_b", "diff", "p_adj_iid", "p_adj", "outcome"]].round(4)
      system_a system_b  diff  p_adj_iid   p_adj outcome
    0      mem  raw-rag  -6.3        0.0  0.1664    lost
    >>> out.attrs["n_significant_iid"], out.attrs["n_survive"]
    (1, 0)
    """
    opts = as_options(options)
    design = opts.design
    prepared = as_prepared(data, metric=metric, design=design)
    if (prepared.n_clusters or 0) < 2:
        raise VerdictError("audit_independence needs queries in at least two clusters (a 'cluster' column: "
                           "conversation, episode, persona); these data have none, so iid is their design.")
    clustered = prepared if prepared.design in ("cluster", "stratified-cluster") else prepared.with_design("cluster")
    if design is not None and clustered.design != design:
        raise VerdictError(f"audit_independence compares iid with a design that resamples clusters; got "
                           f"design {design!r}. Use 'cluster' or 'stratified-cluster'.")
    seed, n_resamples, confidence_level = opts.seed, opts.resampled("audit_independence"), opts.confidence_level
    inference, correction = opts.inference, opts.correction
    alpha, threshold = alpha_of(confidence_level), prepared.threshold
    common = dict(metric=metric, reference=reference)
    chosen = opts.replace(design=None)        # the designs are the prepared data's below
    iid = compare(clustered.with_design("iid"), options=chosen.replace(inference="percentile"), **common)
    design_ = compare(clustered, options=chosen, **common)
    out = design_[["system_a", "system_b", "diff"]].copy()
    for column in ("ci_low", "ci_high", "p", "p_adj", "test"):
        out[f"{column}_iid"] = iid[column].to_numpy()
    for column in ("ci_low", "ci_high", "p", "p_adj", "p_floor", "test", "method"):
        out[column] = design_[column].to_numpy()
    with np.errstate(invalid="ignore", divide="ignore"):
        out["width_ratio"] = (out["ci_high"] - out["ci_low"]) / (out["ci_high_iid"] - out["ci_low_iid"])
    before, after = out["p_adj_iid"] <= alpha, out["p_adj"] <= alpha
    out["outcome"] = np.select([before & after, before, after], list(OUTCOMES[:3]), default=OUTCOMES[3])
    n_before, n_after = int(before.sum()), int((before & after).sum())
    notes = [Note(f"iid analysis: {', '.join(sorted(set(iid['test'])))}, percentile intervals, {correction} over "
                  f"{len(out)} pairs", code="iid-method"), *with_code(design_.attrs["notes"], "inference-method"),
             *with_code(design_.attrs["notes"], "cr2-unequal-clusters"),
             Note(f"{n_after} of the {n_before} pairs significant at {alpha:g} under iid stay significant under the "
                  f"{clustered.design} design ({clustered.n_clusters} clusters)", code="significance-survives")]
    kinds = declare({"width_ratio": real("ratio")}, points=("ci_low_iid", "ci_high_iid"), p=("p_iid", "p_adj_iid"))
    return stamp(out, "audit_independence", clustered, kinds=kinds, notes=[n for n in notes if n], metric=design_.attrs["metric"],
                 n_resamples=n_resamples, seed=seed, confidence_level=confidence_level, correction=correction,
                 threshold=threshold, unit="points", inference=inference, alpha=alpha, n_pairs=len(out),
                 n_significant_iid=n_before, n_survive=n_after)
