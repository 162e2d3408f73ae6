"""simulate_meme() and simulate_memoryagentbench(): benchmark-shaped verdicts whose official
scores (SPEC §6) and diagnostics (SPEC §3) land on the truth they were drawn from."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import multivariate_normal

import memdiag as md
from memdiag.synthetic import MEMORYAGENTBENCH_SOURCES, _bvn

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "data" / "example"
MEME_TASKS = ["ER", "Agg", "Tr", "Del", "Cas", "Abs"]
GATED = ["Del", "Cas", "Abs"]


def meme_gated(df: pd.DataFrame) -> pd.DataFrame:
    """After-phase rows; ``credit`` = score, times 1[before twin > 0.5] for Del/Cas/Abs (D.1.3)."""
    after = df[df["phase"] == "after"]
    before = df.loc[df["phase"] == "before", ["system", "pair_id", "score"]].rename(columns={"score": "before"})
    rows = after.merge(before, on=["system", "pair_id"], how="left")
    gate = rows["category"].isin(GATED)
    return rows.assign(credit=np.where(gate, rows["score"] * (rows["before"] > 0.5), rows["score"]))


def nested(source_means: pd.DataFrame) -> pd.DataFrame:
    """MemoryAgentBench capabilities and overall (D.5 eq. 6) written out; columns = sources."""
    m = source_means
    out = pd.DataFrame({"AR": m[["LongMemEval", "EventQA", "RULER-QA1", "RULER-QA2"]].mean(axis=1),
                        "ICL": m[["Banking77", "CLINC150", "NLU", "TREC-coarse", "TREC-fine"]].mean(axis=1),
                        "LRU": m[["DetectiveQA", "InfBench-Sum"]].mean(axis=1),
                        "CR": m[["FactConsolidation-SH", "FactConsolidation-MH"]].mean(axis=1)})
    out["TTL"] = (m["ReDial"] + out["ICL"]) / 2
    out["overall"] = out[["AR", "TTL", "LRU", "CR"]].mean(axis=1)
    return out


def cluster_se(values: pd.Series, clusters: pd.Series) -> float:
    """Cluster-robust SE of a mean (ratio estimator over cluster totals)."""
    frame = pd.DataFrame({"y": values.to_numpy(), "k": clusters.to_numpy()})
    g = frame.groupby("k")["y"].agg(["sum", "size"])
    p = g["sum"].sum() / g["size"].sum()
    k = len(g)
    return float(np.sqrt(k / (k - 1) * ((g["sum"] - p * g["size"]) ** 2).sum()) / g["size"].sum())


# --------------------------------------------------------------------------------------------
# MEME
# --------------------------------------------------------------------------------------------
def test_meme_has_the_benchmark_shape_and_the_gate_convention_of_the_scheme():
    df = md.simulate_meme(seed=3)
    checked = md.check(df)
    queries = checked.drop_duplicates("query_id")
    assert len(queries) == 1188 and (queries["phase"] == "after").sum() == 694  # MEME: 1,188 / 694
    assert queries["cluster"].nunique() == 100 and set(queries["benchmark"]) == {"meme"}
    assert set(queries["category"]) == set(MEME_TASKS)
    assert (queries[queries["phase"] == "after"].groupby("cluster")["category"].nunique() == 6).all()
    # every gated after question has exactly one before twin, in its episode, of its task
    after, before = queries[queries["phase"] == "after"], queries[queries["phase"] == "before"]
    assert before["pair_id"].notna().all() and before["pair_id"].is_unique
    gated = after[after["category"].isin(GATED)]
    twins = gated.merge(before, on="pair_id", suffixes=("", "_before"))
    assert len(twins) == len(gated)
    assert (twins["cluster"] == twins["cluster_before"]).all() and (twins["category"] == twins["category_before"]).all()
    # before twins of the ungated tasks exist too (494 − gated), each pairing one after question
    assert set(before["pair_id"]) <= set(after["pair_id"].dropna())
    # result/path labels only on after-phase Tr and Cas, and never a path without its result
    assessed = (checked["phase"] == "after") & checked["category"].isin(["Tr", "Cas"])
    assert checked.loc[assessed, ["result_covered", "path_covered"]].notna().all().all()
    assert checked.loc[~assessed, ["result_covered", "path_covered"]].isna().all().all()
    assert (checked["path_covered"].fillna(0) <= checked["result_covered"].fillna(0)).all()
    # the scheme accepts it: a complete official result, gates noted
    table = md.score(md.prepare(df, scheme="meme"), options=dict(n_resamples=0))
    assert table["complete"].all() and (table["n"] == 694).all()
    assert any("gate" in note for note in table.attrs["notes"])


def test_meme_is_deterministic_for_a_seed_and_leaves_the_global_rng_alone():
    np.random.seed(5)
    expected = np.random.random()
    np.random.seed(5)
    first = md.simulate_meme(n_episodes=20, seed=9)
    assert np.random.random() == expected
    pd.testing.assert_frame_equal(first, md.simulate_meme(n_episodes=20, seed=9))
    pd.testing.assert_frame_equal(first, md.simulate_meme(n_episodes=20, seed=np.random.default_rng(9)))
    assert first.attrs["truth"] == md.simulate_meme(n_episodes=20, seed=9).attrs["truth"]
    assert not first["score"].equals(md.simulate_meme(n_episodes=20, seed=10)["score"])


def test_meme_score_equals_direct_pandas_gated_six_task_macro():
    df = md.simulate_meme(n_episodes=50, seed=4)
    table = md.score(md.prepare(df, scheme="meme"), options=dict(n_resamples=0)).set_index("system")
    tasks = meme_gated(df).groupby(["system", "category"])["credit"].mean().unstack()[MEME_TASKS] * 100
    np.testing.assert_allclose(table.loc[tasks.index, MEME_TASKS], tasks, atol=1e-9)
    np.testing.assert_allclose(table.loc[tasks.index, "overall"], tasks.mean(axis=1), atol=1e-9)


def test_meme_realised_task_scores_and_gate_effects_match_the_truth():
    systems = ("raw-rag", "mem0", "a-mem")
    df = md.simulate_meme(n_episodes=2500, systems=systems, seed=21)
    truth = df.attrs["truth"]
    gated = meme_gated(df)
    for system in systems:
        part = gated[gated["system"] == system]
        for task in MEME_TASKS:
            rows = part[part["category"] == task]
            # raw after-phase pass rate and gated task score, each within 4.5 cluster-robust SEs
            raw, credit = rows["score"], rows["credit"]
            assert abs(raw.mean() - truth["accuracy"][system][task]) < 4.5 * cluster_se(raw, rows["cluster"])
            assert abs(credit.mean() - truth["task_score"][system][task]) \
                < 4.5 * cluster_se(credit, rows["cluster"]), (system, task)
            effect = raw - credit  # credit the gate removed
            assert abs(effect.mean() - truth["gate_effect"][system][task]) \
                < 4.5 * max(cluster_se(effect, rows["cluster"]), 1e-3), (system, task)
        assert truth["gate_effect"][system]["ER"] == 0 and truth["gate_effect"][system]["Del"] > 0.02
    table = md.score(md.prepare(df, scheme="meme"), options=dict(n_resamples=0)).set_index("system")
    for system in systems:
        assert table.loc[system, "overall"] == pytest.approx(100 * truth["overall"][system], abs=1.2)


def test_meme_truth_of_the_gate_is_the_bivariate_normal_probability():
    # Φ₂ by quadrature against scipy's multivariate normal CDF
    for h, k, rho in ((0.3, -0.5, 0.5), (-1.2, 0.8, 0.2), (1.5, 1.5, 0.9)):
        expected = multivariate_normal(mean=[0, 0], cov=[[1, rho], [rho, 1]]).cdf([h, k])
        assert _bvn(h, k, rho) == pytest.approx(expected, abs=1e-6)
    assert _bvn(np.inf, 0.0, 0.3) == pytest.approx(0.5) and _bvn(-np.inf, 1.0, 0.3) == 0.0
    # independence between twins makes the gated score the product of the two pass rates
    truth = md.simulate_meme(n_episodes=3, systems=("raw-rag",), episode_var=0, store_var=0, pair_var=0,
                             accuracy=0.6, before_accuracy=0.5, seed=0).attrs["truth"]
    assert truth["task_score"]["raw-rag"]["Del"] == pytest.approx(0.3, abs=1e-9)
    assert truth["overall"]["raw-rag"] == pytest.approx((3 * 0.6 + 3 * 0.3) / 6, abs=1e-9)


def test_meme_benefit_tax_coverage_and_path_retention_match_the_truth():
    df = md.simulate_meme(n_episodes=1500, systems=("raw-rag", "zep"), seed=8)
    truth = df.attrs["truth"]
    after = df[df["phase"] == "after"].pivot(index="query_id", columns="system", values="score")
    queries = df[df["phase"] == "after"].drop_duplicates("query_id").set_index("query_id").reindex(after.index)
    for t in ("ER", "Cas"):
        y, episode = after[queries["category"] == t], queries.loc[queries["category"] == t, "cluster"]
        benefit = ((y["raw-rag"] == 0) & (y["zep"] == 1)).astype(float)
        tax = ((y["raw-rag"] == 1) & (y["zep"] == 0)).astype(float)
        for got, want in ((benefit, truth["benefit"]["zep"][t]), (tax, truth["tax"]["zep"][t])):
            assert abs(got.mean() - want) < 4.5 * cluster_se(got, episode), (t, got.mean(), want)
    for system in ("raw-rag", "zep"):
        part = df[df["system"] == system]
        cov = part["sufficient"].mean()
        assert abs(cov - truth["coverage"][system]) < 4.5 * cluster_se(part["sufficient"], part["cluster"])
        covered = part[part["sufficient"] == 1]
        assert abs(covered["score"].mean() - truth["utilization"][system]) \
            < 4.5 * cluster_se(covered["score"], covered["cluster"])
        result = part[part["result_covered"] == 1]
        assert abs(result["path_covered"].mean() - truth["path_given_result"][system]) \
            < 4.5 * np.sqrt(truth["path_given_result"][system] * 0.6 / len(result))


def test_meme_parameters_that_cannot_hold_are_value_errors():
    with pytest.raises(ValueError, match="sum to less than 1"):
        md.simulate_meme(pair_var=0.9)
    with pytest.raises(ValueError, match="n_before = 10 must lie in"):
        md.simulate_meme(n_episodes=10, n_before=10)
    with pytest.raises(ValueError, match="below one after question per task"):
        md.simulate_meme(n_episodes=10, n_after=50)
    with pytest.raises(ValueError, match=r"accuracy\['mem0'\]: no rate for"):
        md.simulate_meme(systems=("raw-rag", "mem0"), accuracy={"raw-rag": 0.5, "mem0": {"ER": 0.5}})
    with pytest.raises(ValueError, match="reference 'rag' is not among"):
        md.simulate_meme(reference="rag")


# --------------------------------------------------------------------------------------------
# MemoryAgentBench
# --------------------------------------------------------------------------------------------
def test_memoryagentbench_has_the_14_canonical_sources_as_strata():
    df = md.simulate_memoryagentbench(seed=2)
    queries = md.check(df).drop_duplicates("query_id")
    assert tuple(pd.unique(queries["stratum"])) == MEMORYAGENTBENCH_SOURCES
    scheme = md.get_scheme("memoryagentbench")
    assert all(scheme.canonical(s) == s for s in MEMORYAGENTBENCH_SOURCES)
    sizes = queries["stratum"].value_counts()
    assert len(queries) == 570 and 20 <= sizes.min() and sizes.max() <= 60
    assert set(queries["category"]) == {"AR", "TTL", "LRU", "CR"}
    assert set(df["sufficient"].unique()) == {0.0, 1.0}
    # fractional native metrics on ReDial and InfBench-Sum only, all scores in [0, 1]
    fractional = df.loc[~df["score"].isin([0.0, 1.0]), "stratum"]
    assert set(fractional) == {"ReDial", "InfBench-Sum"} and df["score"].between(0, 1).all()
    table = md.score(md.prepare(df, scheme="memoryagentbench"), options=dict(n_resamples=0))
    assert not table["complete"].any() and not table.attrs["missing_groups"]  # 570 of 2,071


def test_memoryagentbench_score_equals_direct_pandas_nested_overall():
    df = md.simulate_memoryagentbench(n_per_source=30, seed=6)
    table = md.score(md.prepare(df, scheme="memoryagentbench"), options=dict(n_resamples=0)).set_index("system")
    direct = nested(df.groupby(["system", "stratum"])["score"].mean().unstack()) * 100
    for column in ("overall", "AR", "TTL", "ICL", "LRU", "CR"):
        np.testing.assert_allclose(table.loc[direct.index, column], direct[column], atol=1e-9)


def test_memoryagentbench_realised_source_means_coverage_and_utilization_match_the_truth():
    n = 1500
    df = md.simulate_memoryagentbench(n_per_source=n, systems=("raw-rag", "a-mem"), seed=13)
    truth = df.attrs["truth"]
    means = df.groupby(["system", "stratum"])["score"].agg(["mean", "std"])
    for (system, source), row in means.iterrows():
        want = truth["source_score"][system][source]
        assert abs(row["mean"] - want) < 4.5 * row["std"] / np.sqrt(n), (system, source)
    # truth overall is the nested weighting of the source means (D.5 eq. 6)
    truth_means = pd.DataFrame(truth["source_score"]).T
    np.testing.assert_allclose(pd.Series(truth["overall"])[truth_means.index],
                               nested(truth_means)["overall"], atol=1e-9)
    table = md.score(md.prepare(df, scheme="memoryagentbench"), options=dict(n_resamples=0)).set_index("system")
    for system in ("raw-rag", "a-mem"):
        assert table.loc[system, "overall"] == pytest.approx(100 * truth["overall"][system], abs=1.0)
        part = df[df["system"] == system]
        cov = truth["coverage"][system]
        assert abs(part["sufficient"].mean() - cov) < 4.5 * np.sqrt(cov * (1 - cov) / len(part))
        covered = part.loc[part["sufficient"] == 1, "score"]
        assert abs(covered.mean() - truth["utilization"][system]) < 4.5 * covered.std() / np.sqrt(len(covered))


def test_memoryagentbench_subset_of_sources_is_an_incomplete_run():
    df = md.simulate_memoryagentbench(n_per_source={"icl_banking77": 10, "LongMemEval": 12}, systems=("raw-rag",),
                                      seed=0)
    assert set(df["stratum"]) == {"Banking77", "LongMemEval"}
    assert df.attrs["truth"]["overall"] == {"raw-rag": None}
    table = md.score(md.prepare(df, scheme="memoryagentbench"), options=dict(n_resamples=0))
    assert not table["complete"].any() and len(table.attrs["missing_groups"]) == 12
    with pytest.raises(ValueError, match="unknown sources"):
        md.simulate_memoryagentbench(n_per_source={"nope": 3})
    with pytest.raises(ValueError, match="fractional sources need a mean score"):
        md.simulate_memoryagentbench(accuracy=0.9)


# --------------------------------------------------------------------------------------------
# the bundled examples
# --------------------------------------------------------------------------------------------
def test_bundled_meme_example_scores_completely_and_has_consistent_path_labels():
    df = md.read_verdicts(EXAMPLE / "meme")
    assert sorted(df["system"].unique()) == ["a-mem", "mem0", "memmachine", "raw-rag", "zep"]
    table = md.score(md.prepare(df, scheme="meme"), options=dict(n_resamples=0))
    assert table["complete"].all() and (table["n"] == 694).all()
    truth = json.loads((EXAMPLE / "truth_meme.json").read_text())
    retention = md.path_given_result(df, categories=["Tr", "Cas"], options=dict(n_resamples=500)).set_index("system")
    assert (retention["n_inconsistent"] == 0).all()
    for system, row in retention.iterrows():
        r = truth["path_given_result"][system]
        assert abs(row["retention"] / 100 - r) < 4.5 * np.sqrt(r * (1 - r) / row["n_result"])


def test_bundled_memoryagentbench_example_scores_with_the_stratified_design():
    df = md.read_verdicts(EXAMPLE / "memoryagentbench")
    table = md.score(md.prepare(df, scheme="memoryagentbench"), options=dict(n_resamples=500))
    assert table.attrs["design"] == "stratified" and len(table) == 5 and (table["n"] == 570).all()
    assert json.loads((EXAMPLE / "truth_memoryagentbench.json").read_text())["n_per_source"]["DetectiveQA"] == 20
