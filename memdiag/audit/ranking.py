"""Rank stability: how sure is a leaderboard's order? (SPEC §4, §6).

One job: :func:`rank_stability` resamples all systems together under the benchmark's design
and scheme and gives each system its bootstrap probability of ranking first and its whole rank
distribution, ties splitting the rank credit (:func:`_rank_credit`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from memdiag.core.kinds import declare, real
from memdiag.core.notes import Note
from memdiag.core.provenance import stamp
from memdiag.engine.inference.intervals import linearize
from memdiag.engine.inference.rule import method_for
from memdiag.engine.inference.wild import wild_replicates
from memdiag.engine.options import Options, as_options
from memdiag.engine.resampling import bootstrap_sums, unit_sums
from memdiag.panel.metrics import metric_columns
from memdiag.panel.prepare import Prepared, as_prepared

#: The kinds of the rank columns: ranks (averaged over ties, so not always whole) and the
#: probability of ranking first.
RANK_KINDS = declare(dict.fromkeys(("rank", "mean_rank", "rank_low", "rank_high"), real("rank")),
                     probability=("p_first",))


def _rank_credit(values: np.ndarray) -> np.ndarray:
    """Rank credit ``(B, S, S)`` per replicate from values ``(B, S)``: [b, s, r − 1] (rank 1 = largest).

    A tie among k systems over ranks r..r+k−1 (equal within a relative 1e-12) gives each of them
    1/k of each of those ranks, so Σ_r credit = 1 per system and Σ_s credit = 1 per rank, and
    Σ_r r·credit is the average ("fractional") rank.

    >>> _rank_credit(np.array([[3.0, 2.0, 1.0], [2.0, 2.0, 1.0]])).mean(axis=0).tolist()
    [[0.75, 0.25, 0.0], [0.25, 0.75, 0.0], [0.0, 0.0, 1.0]]
    """
    tol = 1e-12 * np.maximum(1.0, np.abs(values))[:, :, None]
    gap = values[:, None, :] - values[:, :, None]          # [b, s, t] = v_t − v_s
    above = (gap > tol).sum(axis=-1)
    tied = (np.abs(gap) <= tol).sum(axis=-1)                # includes s itself
    ranks = np.arange(1, values.shape[1] + 1)[None, None, :]
    inside = (ranks > above[..., None]) & (ranks <= (above + tied)[..., None])
    return inside / tied[..., None]
def rank_stability(
    data: pd.DataFrame | Prepared,
    *,
    metric: str = "accuracy",
    higher_is_better: bool = True,
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """How stable is the ranking? Bootstrap rank distribution of every system (SPEC §4, §6).

    Parameters
    ----------
    data
        :func:`memdiag.prepare` output, or canonical verdicts (prepared with the defaults). The
        data choices are made there: the scheme (whose official aggregation is recomputed in
        every replicate), the systems ranked (default: all), the alignment policies of
        SPEC §1.4 and the threshold (as in :func:`memdiag.compare`).
    metric
        As in :func:`memdiag.compare`: the per-system statistic.
    higher_is_better
        Rank 1 is the largest value (False: the smallest, e.g. for costs).
    options
        :class:`memdiag.Options` (or a mapping of its fields; None: the defaults); reads design
        (None: the prepared data's — the scheme's or the data's clusters), inference (``auto``:
        under a cluster design with fewer than 200 clusters the replicates come from the wild
        cluster bootstrap, below; otherwise, and with ``percentile``, from the percentile
        bootstrap; ``jackknife`` and ``cr2`` also use the wild replicates), n_resamples (at
        least 1), seed (the same seed gives the same table) and confidence_level (of the rank
        interval); not correction.

    Returns
    -------
    pandas.DataFrame
        One row per system, best observed first: ``system, estimate`` (points), ``rank``
        (observed, ties averaged), ``p_first`` = P(rank = 1), ``mean_rank``, ``rank_low``,
        ``rank_high`` (percentile interval of the replicate rank), ``p_rank_1 … p_rank_S``,
        ``n, design, n_resamples, seed``.

    Raises
    ------
    VerdictError
        Bad verdicts or ``n_resamples`` 0 (bad options are refused by
        :class:`memdiag.Options`).
    SchemeError
        A scheme the data cannot satisfy.

    Notes
    -----
    One set of shared replicates (paired: all systems resampled with the same indices, SPEC §4)
    gives θ*_bs for every system; within each replicate systems are ranked by θ*. Ties (equal
    within a relative 1e-12) split the credit: k systems tied over ranks r..r+k−1 each get 1/k
    of each rank, so P(rank = r) sums to 1 over systems and over ranks, ``p_first`` counts a
    two-way tie for first as ½, and ``mean_rank`` = Σ r·P(rank = r) is the mean fractional rank.
    A replicate where some θ* is undefined (NaN) is left out and counted in the notes.

    With few clusters the cluster bootstrap's replicates are too narrow (SPEC §4.1), which would
    make a ranking look more certain than it is. Under a cluster design with G < 200 the
    replicates are instead θ*_s = θ̂_s + Σ_g v_g ψ̃_gs: the clusters' linearised contributions
    ψ_gs, centred and scaled by √(G/(G − 1)) so that each system's replicate variance is its CR1
    variance, times wild weights v_g shared by all systems (paired) — every one of the 2^G sign
    patterns once when G ≤ 16, else B Rademacher draws.

    References
    ----------
    SPEC §4.7 (rank stability), SPEC §4.1 (few clusters: wild replicates) and SPEC §4.2 (paired
    resampling); Raw-RAG paper C.6 (shared indices across systems, the official aggregation
    recomputed in each replicate).
    Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.
    Webb, M. D. (2014). Reworking wild bootstrap based inference for clustered errors. Queen's
    Economics Department Working Paper 1315.

    Examples
    --------
    >>> df = pd.DataFrame({"system": ["a"] * 6 + ["b"] * 6, "query_id": list("uvwxyz") * 2,
    ...                    "score": [1, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 1]})
    >>> out = rank_stability(df, options={"n_resamples": 2000})
    >>> out[["system", "estimate", "rank", "p_first", "mean_rank"]].round(3)
      system  estimate  rank  p_first  mean_rank
    0      a    66.667   1.0    0.716      1.284
    1      b    50.000   2.0    0.284      1.716
    """
    opts = as_options(options)
    prepared = as_prepared(data, metric=metric, design=opts.design)
    seed, n_resamples, confidence_level = opts.seed, opts.resampled("rank_stability"), opts.confidence_level
    inference = opts.inference
    threshold = prepared.threshold
    panel = prepared.panel
    notes = [Note("ties split rank credit equally", code="rank-ties")]
    cols = metric_columns(prepared, metric, threshold)
    design_ = prepared.resampling
    kind = method_for(prepared.design, design_.n_units if design_.clustered else None, inference)
    if kind == "percentile":
        res = bootstrap_sums(cols.X, design_, cols.statistic, n_resamples=n_resamples,
                             seed=seed, ci=confidence_level, return_distribution=True)
        estimate, dist = res.estimate, res.distribution
        how = f"percentile bootstrap ({prepared.design})"
    else:
        units = unit_sums(cols.X, design_)
        total = units.sum(axis=0)
        estimate = cols.statistic(total[None, :])[0]
        strata = design_.unit_stratum if design_.kind == "stratified-cluster" else None
        dist, exact = wild_replicates(linearize(cols.statistic, total, units), estimate, strata=strata,
                                      n_resamples=n_resamples, seed=seed)
        how = (f"wild cluster bootstrap ({'all ' + str(len(dist)) + ' sign flips' if exact else 'B = ' + str(len(dist))}"
               f"; {design_.n_units} clusters: fewer than 200, SPEC §4.1)")
    notes.append(Note(f"replicates: {how}", code="inference-method"))
    sign = 1.0 if higher_is_better else -1.0
    defined = ~np.isnan(dist).any(axis=1)
    if not defined.all():
        notes.append(Note(f"{int((~defined).sum())} of {len(dist)} replicates had an undefined statistic "
                          "for some system and were left out", code="undefined-replicates", severity="caution"))
    credit = _rank_credit(sign * dist[defined])
    shares = credit.mean(axis=0)
    ranks = np.arange(1, len(panel.systems) + 1)
    observed = _rank_credit(sign * estimate[None, :])[0] @ ranks
    replicate_rank = credit @ ranks
    alpha = (1 - confidence_level) / 2
    out = pd.DataFrame({"system": list(panel.systems), "estimate": 100 * estimate, "rank": observed,
                        "p_first": shares[:, 0], "mean_rank": shares @ ranks,
                        "rank_low": np.quantile(replicate_rank, alpha, axis=0),
                        "rank_high": np.quantile(replicate_rank, 1 - alpha, axis=0)})
    for r in ranks:
        out[f"p_rank_{r}"] = shares[:, r - 1]
    out["n"], out["design"], out["n_resamples"], out["seed"] = panel.n, prepared.design, n_resamples, seed
    out = out.sort_values(["rank", "system"], kind="stable").reset_index(drop=True)
    kinds = {**RANK_KINDS, **declare(points=("estimate",), probability=[f"p_rank_{r}" for r in ranks])}
    return stamp(out, "rank_stability", prepared, kinds=kinds, notes=notes, metric=cols.label, n_resamples=n_resamples,
                 seed=seed, confidence_level=confidence_level, threshold=threshold, unit="points",
                 inference=inference, method=how)
