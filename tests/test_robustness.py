"""Sensitivity presets (A.5.2): content-filter exclusion with gate twins, judge repetitions,
missing-verdict bounds — each checked against the same analysis run by hand on edited data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import memdiag as md
from memdiag.errors import VerdictError


@pytest.fixture(scope="module")
def meme() -> pd.DataFrame:
    return md.simulate_meme(n_episodes=30, systems=("raw-rag", "memmachine", "mem0"), seed=11)


def test_exclude_drops_a_gated_query_with_its_before_twin_instead_of_failing(meme):
    # before issue 14 a missing before-phase verdict made the meme scheme raise "gated after-phase
    # queries ... have no before-phase twin"; now the pair leaves together (A.5.2)
    twin = meme[(meme["category"] == "Cas") & (meme["phase"] == "before")]["query_id"].iloc[0]
    pair = twin.removesuffix("-before")
    data = meme.assign(score=meme["score"].where(~((meme["system"] == "mem0") & (meme["query_id"] == twin))))
    out = md.score(md.prepare(data, scheme="meme", verdict_missing="exclude"), options=dict(n_resamples=0))
    by_hand = md.score(md.prepare(meme[~meme["query_id"].str.startswith(pair + "-")], scheme="meme"), options=dict(n_resamples=0))
    pd.testing.assert_series_equal(out["overall"], by_hand["overall"])
    assert any("their 1 pair_id twins" in n and f"{pair}-after" in n for n in out.attrs["notes"])


def test_content_filter_sensitivity_matches_dropping_the_pairs_by_hand(meme):
    after = meme[(meme["phase"] == "after") & meme["pair_id"].notna()]["query_id"].unique()
    blocked = {"raw-rag": list(after[:3]), "memmachine": list(after[2:5])}     # 5 queries, one shared
    out = md.content_filter_sensitivity(md.prepare(meme, scheme="meme"), blocked, reference="raw-rag",
                                        options=dict(n_resamples=0))
    pairs = {q.removesuffix("-after") for q in after[:5]}
    kept = meme[~meme["pair_id"].isin(pairs)]                                  # 5 after + 5 before gone
    by_hand = md.score(md.prepare(kept, scheme="meme"), options=dict(n_resamples=0)).set_index("system")["overall"]
    full = md.score(md.prepare(meme, scheme="meme"), options=dict(n_resamples=0)).set_index("system")["overall"]
    scores = out[out["quantity"] == "score"].set_index("system")
    np.testing.assert_allclose(scores["variant"], by_hand[scores.index])
    np.testing.assert_allclose(scores["baseline"], full[scores.index])
    np.testing.assert_allclose(scores["change"], (by_hand - full)[scores.index])
    diff = out[out["quantity"] == "mem0 − raw-rag"].iloc[0]
    assert diff["variant"] == pytest.approx(by_hand["mem0"] - by_hand["raw-rag"])
    assert (scores["n_baseline"] - scores["n_variant"] == 5).all()
    assert out.attrs["variant"].startswith("the filtered queries and their pair_id twins dropped")


def test_content_filter_decides_other_missing_verdicts_by_hand_under_each_policy(meme):
    after = meme[(meme["phase"] == "after") & meme["pair_id"].notna()]["query_id"].unique()
    blocked = {"raw-rag": list(after[:2])}
    lost = after[5]                                        # a verdict missing for another reason
    data = meme.assign(score=meme["score"].where(~((meme["system"] == "mem0") & (meme["query_id"] == lost))))
    # verdicts (not prepared) leave the other missing verdicts undecided: refused, pointing at md.prepare
    with pytest.raises(VerdictError, match=r"1 verdicts are missing for other reasons; decide them with md.prepare"):
        md.content_filter_sensitivity(data, blocked, options=dict(n_resamples=0))
    gone = {q.removesuffix("-after") for q in after[:2]}
    for policy, decided in [("as-wrong", data.assign(score=data["score"].fillna(0.0))),
                            ("exclude", data[data["pair_id"] != lost.removesuffix("-after")])]:
        out = md.content_filter_sensitivity(md.prepare(data, scheme="meme", verdict_missing=policy), blocked,
                                            options=dict(n_resamples=0))
        scores = out[out["quantity"] == "score"].set_index("system")
        baseline = md.score(md.prepare(decided, scheme="meme"), options=dict(n_resamples=0)).set_index("system")["overall"]
        variant = md.score(md.prepare(decided[~decided["pair_id"].isin(gone)], scheme="meme"), options=dict(n_resamples=0)).set_index("system")["overall"]
        np.testing.assert_allclose(scores["baseline"], baseline[scores.index])
        np.testing.assert_allclose(scores["variant"], variant[scores.index])
        assert any(policy in n for n in out.attrs["notes"])


def test_judge_repetition_sensitivity_is_the_first_call_against_the_mean():
    df = md.simulate(n_queries=120, n_clusters=6, n_repeats=3, judge_error=0.1, seed=4)
    out = md.judge_repetition_sensitivity(df, reference="raw-rag", options=dict(n_resamples=500))
    scores = out[out["quantity"] == "score"].set_index("system")
    first = df[df["repeat"] == 0].groupby("system")["score"].apply(lambda s: 100 * s.fillna(0).mean())
    mean = df.groupby(["system", "query_id"])["score"].apply(lambda s: s.fillna(0).mean()).groupby("system").mean()
    np.testing.assert_allclose(scores["variant"], first[scores.index])
    np.testing.assert_allclose(scores["baseline"], 100 * mean[scores.index])
    assert {"baseline_ci_low", "variant_ci_high", "baseline_p_adj"} <= set(out.columns)
    with pytest.raises(VerdictError, match="one judge call"):
        md.judge_repetition_sensitivity(df[df["repeat"] == 0])


def test_missing_verdict_bounds_score_missing_as_wrong_then_as_right():
    df = md.simulate(n_queries=100, n_clusters=5, missing_rate=0.1, seed=2)
    out = md.missing_verdict_bounds(df, options=dict(n_resamples=0))
    low = df.assign(score=df["score"].fillna(0)).groupby("system")["score"].mean() * 100
    high = df.assign(score=df["score"].fillna(1)).groupby("system")["score"].mean() * 100
    np.testing.assert_allclose(out.set_index("system")["baseline"], low[out["system"]])
    np.testing.assert_allclose(out.set_index("system")["variant"], high[out["system"]])
    assert (out["change"] >= 0).all()
    with pytest.raises(VerdictError, match="no verdict is missing"):
        md.missing_verdict_bounds(df.dropna(subset=["score"]))
