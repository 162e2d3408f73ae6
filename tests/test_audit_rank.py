"""Rank stability: bootstrap rank distributions from one set of shared replicates."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import rankdata

import memdiag as md

TRPC = "trpc-group__trpc-agent-go/data_nohistory_gpt4omini"


def _verdicts(seed: int = 0, n: int = 120) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    accuracy = {"a": 0.62, "b": 0.60, "c": 0.50, "d": 0.61}
    return pd.DataFrame([{"system": s, "query_id": f"q{i:03d}", "cluster": f"c{i % 12}",
                          "score": float(rng.random() < p)} for s, p in accuracy.items() for i in range(n)])


def test_rank_stability_is_deterministic_for_a_seed():
    # iid: bootstrap replicates, which the seed fixes (the 12 clusters of _verdicts would make the
    # default the wild cluster bootstrap over all 4,096 sign patterns, which needs no seed)
    df = _verdicts()
    a = md.rank_stability(df, options=dict(design="iid", n_resamples=3_000, seed=5))
    b = md.rank_stability(df, options=dict(design="iid", n_resamples=3_000, seed=5))
    pd.testing.assert_frame_equal(a, b)
    assert not md.rank_stability(df, options=dict(design="iid", n_resamples=3_000, seed=6))["p_first"].equals(a["p_first"])
    clustered = md.rank_stability(df, options=dict(n_resamples=3_000, seed=5))
    pd.testing.assert_frame_equal(clustered.drop(columns="seed"),
                                  md.rank_stability(df, options=dict(n_resamples=3_000, seed=6)).drop(columns="seed"))


def test_rank_probabilities_sum_to_one_over_systems_and_ranks():
    out = md.rank_stability(_verdicts(), options=dict(design="cluster", n_resamples=2_000))
    shares = out[[f"p_rank_{r}" for r in range(1, 5)]].to_numpy()
    np.testing.assert_allclose(shares.sum(axis=0), 1.0)
    np.testing.assert_allclose(shares.sum(axis=1), 1.0)
    np.testing.assert_allclose(out["mean_rank"], shares @ np.arange(1, 5))
    assert out["p_first"].equals(out["p_rank_1"])
    assert (out["rank_low"] <= out["mean_rank"]).all() and (out["mean_rank"] <= out["rank_high"]).all()


def test_mean_rank_and_p_first_agree_with_scipy_rankdata_on_the_same_replicates():
    df = _verdicts(seed=2)
    out = md.rank_stability(df, options=dict(design="iid", n_resamples=2_000, seed=3)).set_index("system")
    # the oracle: the engine's replicates, ranked by scipy (average ranks, 1 = best); md.bootstrap with
    # a callable statistic hands them over (same data, design and seed: the same replicates)
    s, systems, replicates = df["system"].nunique(), [], []

    def per_system_means(panel):
        systems.extend(panel.systems)

        def g(sums):
            if len(sums) > 1:                                   # a chunk of replicates, not the estimate
                replicates.append(sums[:, :s] / sums[:, s:])
            return sums[:, :s] / sums[:, s:]
        return np.hstack([panel.scores, np.ones((panel.n, 1))]), g   # per-system sums and the query count

    md.bootstrap(df, per_system_means, options=dict(design="iid", n_resamples=2_000, seed=3))
    dist = np.vstack(replicates)
    assert dist.shape == (2_000, s)
    ranks = rankdata(-dist, method="average", axis=1)
    for j, system in enumerate(systems):
        assert out.loc[system, "mean_rank"] == pytest.approx(ranks[:, j].mean(), rel=1e-12)
        best = dist.max(axis=1)
        ties = (dist == best[:, None]).sum(axis=1)
        assert out.loc[system, "p_first"] == pytest.approx(np.mean((dist[:, j] == best) / ties), rel=1e-12)


def test_tied_systems_split_the_credit():
    df = _verdicts(n=60)
    twin = df[df["system"] == "a"].assign(system="a-copy")
    out = md.rank_stability(pd.concat([df, twin]), options=dict(n_resamples=1_000)).set_index("system")
    assert out.loc["a", "p_first"] == pytest.approx(out.loc["a-copy", "p_first"])
    assert out.loc["a", "rank"] == out.loc["a-copy", "rank"]
    # three systems tied in every replicate: each holds each of the first three ranks a third of the time
    triplets = pd.concat([df[df["system"] == "a"].assign(system=name) for name in ("a", "a2", "a3")])
    out = md.rank_stability(triplets, options=dict(design="iid", n_resamples=200))
    np.testing.assert_allclose(out[["p_rank_1", "p_rank_2", "p_rank_3"]].to_numpy(), np.full((3, 3), 1 / 3), rtol=1e-12)


def test_long_context_ranks_first_on_trpc_locomo(real_data):
    runs = ["long_context", "rag_observation_pgvector", "rag_observation_mysql", "auto_pgvector", "auto_mysql"]
    df = md.read_verdicts([real_data / TRPC / run / "results.json" for run in runs])
    out = md.rank_stability(md.prepare(df, scheme="locomo"), options=dict(design="cluster", n_resamples=2_000))
    assert out.loc[0, "system"] == "long_context" and out.loc[0, "p_first"] == 1.0
    assert out.loc[0, "n"] == 1540 and out.loc[0, "design"] == "cluster"
    # the two RAG backends (19.81 vs 19.42 points over 1,540 questions) swap places often
    rag = out.set_index("system").loc[["rag_observation_pgvector", "rag_observation_mysql"]]
    assert rag["estimate"].round(2).tolist() == [19.81, 19.42]
    assert (rag["p_rank_4"].between(0.2, 0.8)).all()


def test_few_clusters_rank_from_all_wild_sign_patterns_of_the_cluster_contributions():
    """The oracle: each system's plain mean θ_s and its cluster contributions ψ_gs = (S_gs − θ_s n_g)/N,
    centred and scaled by √(G/(G − 1)), every one of the 2^12 sign patterns written out with
    itertools, replicates θ_s + Σ_g v_g ψ̃_gs ranked by scipy."""
    import itertools

    df = _verdicts(seed=4)
    out = md.rank_stability(df, options=dict(n_resamples=500)).set_index("system")
    assert out.attrs["method"].startswith("wild cluster bootstrap (all 4096 sign flips")
    wide = df.pivot(index="query_id", columns="system", values="score")
    cluster = df.drop_duplicates("query_id").set_index("query_id").loc[wide.index, "cluster"]
    sums = wide.groupby(cluster.to_numpy()).sum().to_numpy()            # (G, S)
    sizes = wide.groupby(cluster.to_numpy()).size().to_numpy()[:, None]
    N, G = len(wide), len(sizes)
    theta = sums.sum(axis=0) / N
    psi = (sums - theta * sizes) / N
    psi = np.sqrt(G / (G - 1)) * (psi - psi.mean(axis=0))
    signs = np.array(list(itertools.product([1.0, -1.0], repeat=G)))
    replicates = theta + signs @ psi
    ranks = rankdata(-replicates, method="average", axis=1)
    for j, system in enumerate(wide.columns):
        assert out.loc[system, "mean_rank"] == pytest.approx(ranks[:, j].mean(), rel=1e-9)
