"""score(..., n_resamples=B): the official overall with a paired bootstrap interval under the
benchmark's design (SPEC §4, §6), checked against resampling done by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import memdiag as md

MEME_TASKS = ["ER", "Agg", "Tr", "Del", "Cas", "Abs"]


def nested_overall(source_means: pd.DataFrame) -> pd.Series:
    """MemoryAgentBench (SPEC §6; D.5 eq. 6) written out: rows = anything, columns = the 14 sources."""
    m = source_means
    ar = m[["LongMemEval", "EventQA", "RULER-QA1", "RULER-QA2"]].mean(axis=1)
    icl = m[["Banking77", "CLINC150", "NLU", "TREC-coarse", "TREC-fine"]].mean(axis=1)
    ttl = (m["ReDial"] + icl) / 2
    lru = m[["DetectiveQA", "InfBench-Sum"]].mean(axis=1)
    cr = m[["FactConsolidation-SH", "FactConsolidation-MH"]].mean(axis=1)
    return (ar + ttl + lru + cr) / 4


def meme_gated(df: pd.DataFrame) -> pd.DataFrame:
    """After-phase rows with the MEME gate applied by hand (Del/Cas/Abs need the before twin)."""
    after = df[df["phase"] == "after"]
    before = df.loc[df["phase"] == "before", ["system", "pair_id", "score"]].rename(columns={"score": "before"})
    rows = after.merge(before, on=["system", "pair_id"], how="left")
    gate = rows["category"].isin(["Del", "Cas", "Abs"])
    return rows.assign(credit=np.where(gate, rows["score"] * (rows["before"] > 0.5), rows["score"]))


def test_interval_brackets_the_estimate_and_records_design_b_seed_level():
    df = md.simulate_memoryagentbench(n_per_source=20, systems=("raw-rag", "mem0"), seed=1)
    plain = md.score(md.prepare(df, scheme="memoryagentbench"), options=dict(n_resamples=0))
    table = md.score(md.prepare(df, scheme="memoryagentbench"),
                     options=dict(n_resamples=1000, seed=3, confidence_level=0.9))
    assert table.columns[:4].tolist() == ["system", "overall", "overall_ci_low", "overall_ci_high"]
    assert (table["overall_ci_low"] < table["overall"]).all() and (table["overall"] < table["overall_ci_high"]).all()
    # the point estimates and every other column are those of the plain table; every node and group
    # score gets its interval too (issue 14), bracketing it
    ends = [c for c in table.columns if c.endswith(("_ci_low", "_ci_high"))]
    assert len(ends) == 2 * (1 + 5 + 14)          # overall, AR/TTL/ICL/LRU/CR, 14 sources
    pd.testing.assert_frame_equal(table.drop(columns=ends), plain)
    for name in ("AR", "TTL", "LongMemEval", "ReDial"):
        assert (table[f"{name}_ci_low"] <= table[name]).all() and (table[name] <= table[f"{name}_ci_high"]).all()
    assert {k: table.attrs[k] for k in ("design", "n_resamples", "seed", "confidence_level")} == \
        {"design": "stratified", "n_resamples": 1000, "seed": 3, "confidence_level": 0.9}
    reason = "design stratified (default for scheme memoryagentbench: resample by stratum)"
    assert table.attrs["design_reason"] == reason and table.attrs["notes"][0] == reason
    assert table.attrs["notes"][1:-1] == plain.attrs["notes"]
    assert table.attrs["notes"][-1] == "intervals: percentile bootstrap (stratified)"
    assert table.attrs["method"] == "percentile bootstrap (stratified)" and table.attrs["inference"] == "auto"
    # no interval with n_resamples=0: no columns, no design keys (the default Options give intervals)
    assert "overall_ci_low" in md.score(md.prepare(df, scheme="memoryagentbench"))
    assert "overall_ci_low" not in plain and "design" not in plain.attrs and "n_resamples" not in plain.attrs


def test_meme_interval_resamples_episodes_by_default_and_follows_a_chosen_design():
    df = md.simulate_meme(n_episodes=40, systems=("raw-rag", "mem0"), seed=2)
    clustered = md.score(md.prepare(df, scheme="meme"), options=dict(n_resamples=1000, seed=0))
    assert clustered.attrs["design"] == "cluster"
    assert clustered.attrs["design_reason"] == ("design cluster (default for scheme meme: resample by cluster, "
                                                "40 clusters)")
    assert clustered.attrs["method"] == "cluster jackknife, t(39)"
    assert ((clustered["overall_ci_low"] <= clustered["overall"])
            & (clustered["overall"] <= clustered["overall_ci_high"])).all()
    iid = md.score(md.prepare(df, scheme="meme"), options=dict(design="iid", n_resamples=1000, seed=0))
    assert iid.attrs["design"] == "iid" and iid.attrs["design_reason"] == (
        "design iid (chosen by the user; it treats the queries of the 40 clusters as independent)")
    np.testing.assert_array_equal(iid["overall"], clustered["overall"])
    # without the cluster column the default falls back to iid and says why
    fallback = md.score(md.prepare(df.drop(columns="cluster"), scheme="meme"), options=dict(n_resamples=200))
    assert fallback.attrs["design"] == "iid" and "which the data lack" in fallback.attrs["design_reason"]


def test_interval_is_deterministic_for_a_seed():
    df = md.simulate_memoryagentbench(n_per_source=15, systems=("raw-rag", "zep", "mem0"), seed=4)
    first = md.score(md.prepare(df, scheme="memoryagentbench"), options=dict(n_resamples=500, seed=7))
    pd.testing.assert_frame_equal(first, md.score(md.prepare(df, scheme="memoryagentbench"),
                                                  options=dict(n_resamples=500, seed=7)))
    other = md.score(md.prepare(df, scheme="memoryagentbench"), options=dict(n_resamples=500, seed=8))
    assert not np.array_equal(first["overall_ci_low"], other["overall_ci_low"])
    assert isinstance(first.attrs["seed"], int)


def test_memoryagentbench_interval_matches_physical_stratified_resampling():
    df = md.simulate_memoryagentbench(n_per_source=25, systems=("raw-rag", "mem0", "zep"), seed=11)
    table = md.score(md.prepare(df, scheme="memoryagentbench"), options=dict(n_resamples=4000, seed=1)).set_index("system")
    assert table.attrs["design"] == "stratified"

    # the paper's procedure (C.6) done directly: within each of the 14 sources draw its own n_h
    # questions with replacement (the same indices for every system), recompute the source means
    # and the nested overall with pandas
    wide = df.pivot(index="query_id", columns="system", values="score")
    source = df.drop_duplicates("query_id").set_index("query_id")["stratum"].reindex(wide.index).to_numpy()
    rng = np.random.default_rng(2024)
    b = 2000
    draws = np.concatenate([pos[rng.integers(0, len(pos), size=(b, len(pos)))]
                            for pos in (np.flatnonzero(source == h) for h in np.unique(source))], axis=1)
    n = draws.shape[1]
    long = pd.DataFrame(wide.to_numpy()[draws.ravel()], columns=wide.columns)
    long["rep"], long["source"] = np.repeat(np.arange(b), n), source[draws.ravel()]
    means = long.groupby(["rep", "source"]).mean()
    physical = pd.DataFrame({s: nested_overall(means[s].unstack()) for s in wide.columns}) * 100

    for system in wide.columns:
        dist = physical[system]
        sd = dist.std()
        low, high = dist.quantile([0.025, 0.975])
        # quantile MC error: ~0.06 sd (B = 2,000) and ~0.045 sd (B = 4,000); allow ~4 of it
        assert table.loc[system, "overall_ci_low"] == pytest.approx(low, abs=0.3 * sd), system
        assert table.loc[system, "overall_ci_high"] == pytest.approx(high, abs=0.3 * sd), system
        assert table.loc[system, "overall"] == pytest.approx(nested_overall(
            df[df["system"] == system].groupby("stratum")["score"].mean().to_frame().T).iloc[0] * 100)


def test_meme_interval_matches_physical_episode_resampling():
    df = md.simulate_meme(n_episodes=60, systems=("raw-rag", "a-mem"), seed=5)
    # the paper's percentile episode bootstrap, by name (60 episodes default to the jackknife)
    table = md.score(md.prepare(df, scheme="meme"), options=dict(inference="percentile", n_resamples=4000, seed=2)).set_index("system")
    # whole episodes drawn with replacement, gates applied in the data (twins share an episode)
    gated = meme_gated(df)
    totals = gated.pivot_table(index="cluster", columns=["system", "category"], values="credit", aggfunc="sum")
    counts = gated[gated["system"] == "raw-rag"].pivot_table(index="cluster", columns="category",
                                                             values="credit", aggfunc="size")
    totals, counts = totals.fillna(0), counts.reindex(totals.index).fillna(0)
    rng = np.random.default_rng(99)
    b = 2000
    picks = rng.integers(0, len(counts), size=(b, len(counts)))
    weights = np.zeros((b, len(counts)))
    np.add.at(weights, (np.repeat(np.arange(b), len(counts)), picks.ravel()), 1)
    n_task = pd.DataFrame(weights @ counts.to_numpy(), columns=counts.columns)
    for system in ("raw-rag", "a-mem"):
        sums = pd.DataFrame(weights @ totals[system].to_numpy(), columns=totals[system].columns)
        macro = (sums[MEME_TASKS] / n_task[MEME_TASKS]).mean(axis=1) * 100
        sd = macro.std()
        low, high = macro.quantile([0.025, 0.975])
        assert table.loc[system, "overall_ci_low"] == pytest.approx(low, abs=0.3 * sd), system
        assert table.loc[system, "overall_ci_high"] == pytest.approx(high, abs=0.3 * sd), system


def test_question_weighted_scheme_interval_is_the_iid_mean_interval():
    df = md.simulate(n_queries=200, systems=("rag", "m"), reference="rag", costs=False, seed=3)
    table = md.score(df, options=dict(design="iid", n_resamples=2000, seed=0)).set_index("system")   # 30 clusters: iid by choice
    assert table.attrs["design"] == "iid"
    # iid bootstrap of a mean of 0/1 verdicts: the interval is close to p ± 1.96 √(p(1 − p)/N)
    for system in ("rag", "m"):
        p = table.loc[system, "overall"] / 100
        half = 1.96 * np.sqrt(p * (1 - p) / 200) * 100
        assert table.loc[system, "overall_ci_low"] == pytest.approx(100 * p - half, abs=1.2)
        assert table.loc[system, "overall_ci_high"] == pytest.approx(100 * p + half, abs=1.2)
