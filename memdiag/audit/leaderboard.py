"""A leaderboard with tiers "statistically tied with the best" and rank intervals (SPEC §4.7, §5.6).

One job: :func:`leaderboard` orders the systems, puts the leader and every system whose
difference from it is not significant (or, with a margin, within the margin) in tier 1, then
repeats on the rest, and shows each system's rank interval and probability of ranking first from
:func:`memdiag.rank_stability`'s shared replicates. A table that says "A is best" must say from
which systems the data cannot tell it apart.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from memdiag.analyses.compare import bootstrap, compare
from memdiag.audit.ranking import RANK_KINDS, rank_stability
from memdiag.core.kinds import COUNT_OR_NONE, declare, with_intervals
from memdiag.core.notes import Note
from memdiag.core.provenance import stamp
from memdiag.engine.options import Options, as_options
from memdiag.errors import VerdictError
from memdiag.panel.metrics import metric_columns
from memdiag.panel.prepare import Prepared, as_prepared
from memdiag.synthesis.fragility import (
    FRAGILITY_COLUMNS,
    FRAGILITY_KINDS,
    leader_fragility,
    pair_fragility,
    tier_flips,
)

__all__ = ["leaderboard"]
def leaderboard(
    data: pd.DataFrame | Prepared,
    *,
    metric: str = "accuracy",
    margin: float | None = None,
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """Systems in tiers of "statistically tied with the best", with rank intervals.

    Parameters
    ----------
    data
        :func:`memdiag.prepare` output, or canonical verdicts (prepared with the defaults). The
        data choices (scheme, systems, missing-data policies, threshold) are made there.
    metric
        As in :func:`memdiag.compare`.
    margin
        A margin in points: a system is also tied with its tier's leader when it is shown not
        worse than the leader by more than the margin (the non-inferiority test of
        :func:`memdiag.compare`).
    options
        :class:`memdiag.Options` (or a mapping of its fields; None: the defaults). Reads all its
        fields, as :func:`memdiag.compare` does: design, inference, n_resamples, seed,
        confidence_level (α = 1 − ``confidence_level``) and correction (over each tier leader's
        comparisons).

    Returns
    -------
    pandas.DataFrame
        One row per system, by tier and then estimate: ``system, estimate, ci_low, ci_high``
        (points), ``tier`` (1 = tied with the best), ``leader`` (its tier's best system),
        ``diff, diff_ci_low, diff_ci_high`` (system − leader; empty for a leader), ``p_adj`` (the difference test,
        adjusted over the leader's comparisons), with a margin ``p_margin_adj`` and
        ``within_margin``, ``tied`` (in its leader's tier for either reason), ``rank``,
        ``rank_low``, ``rank_high``, ``p_first`` (:func:`memdiag.rank_stability`) and ``n``. For a
        metric that is a per-query plain mean, the fragility of each system's comparison with the
        leader it was compared with (leader − system; SPEC §10.3, :func:`memdiag.fragility`; empty
        for a tier's leader, and the flip columns empty unless the values are 0/1):
        ``flips_sign, flips_significance, p_after_flips, removal_sign, removal_significance,
        removal_significance_lower, removal_method`` — exact McNemar and the cluster jackknife
        interval, unadjusted, not the tier's own test —, ``flips_tier`` (the fewest verdict flips
        that change whether the system is tied with that leader, the leader's other comparisons
        held fixed; only where the tier's test is exact McNemar with Holm, i.e. the iid design of a
        binary plain mean, else NaN) and on the best system's row
        ``removal_rank1`` (the fewest clusters whose removal lets ``rank1_challenger`` tie or pass it).

    Raises
    ------
    VerdictError
        Fewer than two systems, bad verdicts, ``n_resamples`` 0 or a bad
        ``margin`` (bad options are refused by :class:`memdiag.Options`).
    SchemeError
        A scheme the data cannot satisfy.

    Notes
    -----
    Tier k: the best system not yet placed leads; every remaining system whose difference from
    it has an adjusted p > α (not significantly worse), or — with a margin — whose
    non-inferiority test against it has an adjusted p ≤ α, joins it. The adjustment is over the
    leader's comparisons with the systems still unplaced (one family per tier). Not separating
    two systems is not evidence that they are equal: for that, give a margin (SPEC §5.6).

    References
    ----------
    SPEC §4.7 (rank stability and leaderboard tiers), SPEC §5.3 (Holm over the leader's
    comparisons) and SPEC §5.6 (non-inferiority margins); Raw-RAG paper C.6 (the paired tests).
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scandinavian
    Journal of Statistics 6(2), 65–70.
    Schuirmann, D. J. (1987). A comparison of the two one-sided tests procedure and the power
    approach for assessing the equivalence of average bioavailability. Journal of
    Pharmacokinetics and Biopharmaceutics 15(6), 657–680.

    Examples
    --------
    >>> import memdiag as md
    >>> df = md.simulate(systems=("raw-rag", "a", "b", "c"), seed=3,
    ...                  accuracy={"raw-rag": 0.6, "a": 0.75, "b": 0.74, "c": 0.5})
    >>> md.leaderboard(df, options={"n_resamples": 1000})[["system", "tier", "leader", "rank_low", "rank_high"]]
        system  tier   leader  rank_low  rank_high
    0        b     1        b       1.0        2.0
    1        a     1        b       1.0        2.0
    2  raw-rag     2  raw-rag       3.0        3.0
    3        c     3        c       4.0        4.0
    """
    opts = as_options(options)
    prepared = as_prepared(data, metric=metric, design=opts.design)
    seed, n_resamples, confidence_level = opts.seed, opts.resampled("leaderboard"), opts.confidence_level
    inference, correction = opts.inference, opts.correction
    alpha = 1 - confidence_level
    threshold = prepared.threshold
    if len(prepared.systems) < 2:
        raise VerdictError(f"a leaderboard needs at least two systems; the data hold {len(prepared.systems)}.")
    cols = metric_columns(prepared, metric, threshold=threshold)
    scores = bootstrap(prepared, metric, options=opts).set_index("system")
    ranks = rank_stability(prepared, metric=metric, options=opts).set_index("system")
    remaining = list(scores.sort_values("estimate", ascending=False, kind="stable").index)
    rows, notes, tier = {}, [], 0
    while remaining:
        tier += 1
        leader = remaining[0]
        rows[leader] = {"tier": tier, "leader": leader, "diff": np.nan, "diff_ci_low": np.nan, "diff_ci_high": np.nan,
                        "p_adj": np.nan, "tied": True, "flips_tier": np.nan}
        if len(remaining) > 1:
            table = compare(prepared.restrict(remaining), metric=metric, reference=leader,
                            test="noninferiority" if margin is not None else "difference",
                            margin=margin, options=opts)
            exact_holm = (margin is None and correction == "holm" and (table["test"] == "exact McNemar").all()
                          and cols.binary)
            for i, (_, r) in enumerate(table.iterrows()):
                flips_tier = (tier_flips(prepared, leader, r["system_a"], table["p"].drop(table.index[i]).tolist(),
                                         confidence_level=confidence_level, values=cols.per_query)
                              if exact_holm else np.nan)
                within = bool(r["within_margin"]) if margin is not None else False
                tied = bool(r["p_adj"] > alpha) or within
                rows[r["system_a"]] = {"tier": tier if tied else None, "leader": leader if tied else None,
                                       "diff": r["diff"], "diff_ci_low": r["ci_low"], "diff_ci_high": r["ci_high"],
                                       "p_adj": r["p_adj"], "tied": tied, "_against": leader,
                                       "flips_tier": flips_tier,
                                       **({"p_margin_adj": r["p_margin_adj"], "within_margin": within}
                                          if margin is not None else {})}
            notes.append(Note(f"tier {tier}: {leader} against {len(table)} systems, {table.attrs['method']}",
                              code="tier", concerns=(leader,)))
        remaining = [s for s in remaining if s != leader and not rows[s]["tied"]]
    for system, row in rows.items():           # how little overturns each standing (SPEC §10.3)
        against = row.pop("_against", None)
        empty = {**dict.fromkeys(FRAGILITY_COLUMNS, np.nan), "removal_method": ""}
        row.update(empty if against is None or cols.plain is None else
                   pair_fragility(prepared, against, system, confidence_level=confidence_level, values=cols.plain))
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "system"
    out["removal_rank1"], out["rank1_challenger"] = np.nan, ""
    if cols.plain is not None:
        top = scores["estimate"].idxmax()
        k, challenger = leader_fragility(prepared, values=cols.plain)
        out.loc[top, ["removal_rank1", "rank1_challenger"]] = [k, challenger]
    out = out.join(scores[["estimate", "ci_low", "ci_high", "n"]]).join(
        ranks[["rank", "rank_low", "rank_high", "p_first"]]).reset_index()
    out = out.sort_values(["tier", "estimate"], ascending=[True, False], kind="stable").reset_index(drop=True)
    out["tier"] = out["tier"].astype(int)
    columns = ["system", "estimate", "ci_low", "ci_high", "tier", "leader", "diff", "diff_ci_low", "diff_ci_high",
               "p_adj"] + (["p_margin_adj", "within_margin"] if margin is not None else []) + \
        ["tied", "rank", "rank_low", "rank_high", "p_first", "n", *FRAGILITY_COLUMNS, "flips_tier", "removal_rank1",
         "rank1_challenger"]
    rule = Note(f"tied: the difference from the tier's leader is not significant ({correction}-adjusted p > "
                f"{alpha:g})" + (f", or it is shown not worse than the leader by more than {margin:g} points"
                                 if margin is not None else "; not separating two systems does not make them equal "
                                                            "(give a margin for that)"), code="tie-rule")
    kinds = {**FRAGILITY_KINDS, **RANK_KINDS, "flips_tier": COUNT_OR_NONE, "removal_rank1": COUNT_OR_NONE,
             **declare(points=("estimate", "ci_low", "ci_high", *with_intervals("diff")), p=("p_adj", "p_margin_adj"))}
    return stamp(out[columns], "leaderboard", prepared, kinds=kinds, notes=[rule, *notes] + ranks.attrs["notes"],
                 metric=metric, n_resamples=n_resamples, seed=seed, confidence_level=confidence_level,
                 correction=correction, threshold=threshold, unit="points", inference=inference, margin=margin)
