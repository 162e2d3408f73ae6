"""Judge reliability (SPEC §7): κ against statsmodels on real runs, simulated raters with known κ."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa, fleiss_kappa

import memdiag as md
from memdiag.errors import VerdictError

TRPC = "trpc-group__trpc-agent-go/data_nohistory_gpt4omini"


@pytest.fixture(scope="module")
def trpc_two_runs(real_data) -> pd.DataFrame:
    """auto_pgvector and auto_mysql, two runs of one scenario, as repetitions 0 and 1 (built by hand)."""
    rows = []
    for repeat, run in enumerate(["auto_pgvector", "auto_mysql"]):
        content = json.loads((real_data / TRPC / run / "results.json").read_text())
        for sample in content["sample_results"]:
            for item in sample["qa_results"]:
                llm = (item.get("metrics") or {}).get("llm_score", 0)   # omitempty: missing = 0
                rows.append({"system": "trpc-auto", "query_id": item["question_id"], "repeat": repeat,
                             "judge": run, "score": float(llm > 0)})
    return pd.DataFrame(rows)


def test_kappas_match_statsmodels_on_trpc_runs(trpc_two_runs):
    out = md.agreement(trpc_two_runs, by="repeat", options=dict(n_resamples=1_000)).set_index("kind")
    wide = trpc_two_runs.pivot(index="query_id", columns="repeat", values="score")
    assert len(wide) == 1986
    table = pd.crosstab(wide[0], wide[1]).to_numpy()
    expected = cohens_kappa(table)
    cohen = out.loc["cohen"]
    assert cohen["n"] == 1986
    assert cohen["agreement"] == pytest.approx(100 * np.trace(table) / 1986, rel=1e-12)  # points
    assert cohen["kappa"] == pytest.approx(expected.kappa, rel=1e-12)
    assert cohen["se"] == pytest.approx(expected.std_kappa, rel=1e-12)
    assert (cohen["ci_low"], cohen["ci_high"]) == pytest.approx((expected.kappa_low, expected.kappa_upp), rel=1e-9)
    counts, _ = aggregate_raters(wide.to_numpy().astype(int))
    assert out.loc["fleiss", "kappa"] == pytest.approx(fleiss_kappa(counts), rel=1e-12)
    # the two runs agree on 78.65% of the 1,986 questions; κ = 0.546 (moderate)
    assert round(cohen["agreement"], 2) == 78.65 and round(cohen["kappa"], 3) == 0.546
    # the bootstrap over questions agrees with the asymptotic interval to within ±0.01
    assert cohen["boot_ci_low"] == pytest.approx(cohen["ci_low"], abs=0.01)
    assert cohen["boot_ci_high"] == pytest.approx(cohen["ci_high"], abs=0.01)


def test_judge_column_gives_the_same_kappas_as_repeat(trpc_two_runs):
    by_repeat = md.agreement(trpc_two_runs, by="repeat", options=dict(n_resamples=0))
    by_judge = md.agreement(trpc_two_runs.drop(columns="repeat"), by="judge", options=dict(n_resamples=0))
    np.testing.assert_allclose(by_judge["kappa"], by_repeat["kappa"], rtol=1e-12)
    assert by_judge.loc[0, ["rater_a", "rater_b"]].tolist() == ["auto_mysql", "auto_pgvector"]


def test_vectorised_kappas_used_in_the_bootstrap_equal_statsmodels():
    # All answers belong to one query, and the bootstrap draws a query's answers together: every
    # resample is the whole panel, so the bootstrap interval collapses onto the κ the bootstrap
    # computes from its sums — which must be statsmodels' κ of the same table.
    rng = np.random.default_rng(5)
    for _ in range(20):
        m, n = int(rng.integers(2, 6)), int(rng.integers(30, 80))
        ratings = (rng.random((n, m)) < rng.uniform(0.2, 0.8)).astype(int)
        df = pd.DataFrame({"system": np.repeat([f"s{i}" for i in range(n)], m), "query_id": "q",
                           "repeat": np.tile(np.arange(m), n), "score": ratings.ravel().astype(float)})
        out = md.agreement(df, options=dict(n_resamples=100))
        for row in out.itertuples():
            if row.kind == "cohen":
                table = pd.crosstab(ratings[:, int(row.rater_a)], ratings[:, int(row.rater_b)])
                table = table.reindex(index=[0, 1], columns=[0, 1], fill_value=0).to_numpy()
                expected = cohens_kappa(table).kappa
            else:
                expected = fleiss_kappa(aggregate_raters(ratings, n_cat=2)[0])
            assert (row.boot_ci_low, row.boot_ci_high) == pytest.approx((expected, expected), rel=1e-12, abs=1e-15)


def _simulated_raters(n: int, m: int, copy: float, prevalence: float, seed: int) -> pd.DataFrame:
    """m raters; each copies a latent label with probability `copy`, else guesses Bernoulli(prevalence).

    Two such raters agree beyond chance only when both copy, so the true pairwise κ is copy²
    (marginals are all `prevalence`, so Fleiss' κ has the same limit).
    """
    rng = np.random.default_rng(seed)
    truth = rng.random(n) < prevalence
    frames = []
    for r in range(m):
        copies = rng.random(n) < copy
        label = np.where(copies, truth, rng.random(n) < prevalence)
        frames.append(pd.DataFrame({"system": "s", "query_id": np.arange(n).astype(str), "repeat": r,
                                    "score": label.astype(float)}))
    return pd.concat(frames, ignore_index=True)


def test_simulated_raters_recover_the_known_kappa():
    df = _simulated_raters(n=20_000, m=3, copy=0.8, prevalence=0.6, seed=11)
    out = md.agreement(df, options=dict(n_resamples=0))
    cohen = out[out["kind"] == "cohen"]
    assert len(cohen) == 3
    for _, row in cohen.iterrows():   # true κ = 0.64; within 4 asymptotic standard errors
        assert abs(row["kappa"] - 0.64) < 4 * row["se"]
    fleiss = out[out["kind"] == "fleiss"].iloc[0]
    assert fleiss["kappa"] == pytest.approx(0.64, abs=0.02)


def test_bootstrap_interval_brackets_the_truth_on_simulated_raters():
    df = _simulated_raters(n=3_000, m=2, copy=math.sqrt(0.5), prevalence=0.4, seed=2)   # κ = 0.5
    out = md.agreement(df, options=dict(n_resamples=2_000, seed=1))
    for _, row in out.iterrows():
        assert row["boot_ci_low"] < 0.5 < row["boot_ci_high"]
        assert row["boot_ci_high"] - row["boot_ci_low"] == pytest.approx(2 * 1.96 * out.loc[0, "se"], rel=0.15)


def test_kappa_against_human_labels_on_the_labelled_subset():
    df = pd.DataFrame({"system": "s", "query_id": list("abcdefgh") * 2, "repeat": [0] * 8 + [1] * 8,
                       "score": [1, 1, 0, 0, 1, 0, 1, 0] + [1, 0, 0, 0, 1, 0, 1, 1]})
    human = pd.DataFrame({"query_id": list("abcdef"), "label": [1, 1, 0, 0, 0, 0]})   # g, h unlabelled
    out = md.agreement(df, human=human, options=dict(n_resamples=0))
    rows = out[out["kind"] == "human"].set_index("rater_a")
    # rater 0 on a-f: 1 1 0 0 1 0 vs human 1 1 0 0 0 0
    expected = cohens_kappa(pd.crosstab(np.array([1, 1, 0, 0, 1, 0]), np.array([1, 1, 0, 0, 0, 0])).to_numpy())
    assert rows.loc["0", "kappa"] == pytest.approx(expected.kappa, rel=1e-12)
    assert rows.loc["0", "n"] == 6 and rows.loc["0", "missing_b"] == 2
    as_column = md.agreement(df.assign(h=df["query_id"].map(dict(zip(human["query_id"], human["label"])))), human="h",
                             options=dict(n_resamples=0))
    np.testing.assert_allclose(as_column["kappa"], out["kappa"], rtol=1e-12)
    as_series = md.agreement(df, human=human.set_index("query_id")["label"], options=dict(n_resamples=0))
    np.testing.assert_allclose(as_series["kappa"], out["kappa"], rtol=1e-12)


def test_missing_verdicts_are_counted_per_rater_and_unjudged_answers_never_scored():
    df = pd.DataFrame({"system": "s", "query_id": list("abcdabcd"), "repeat": [0] * 4 + [1] * 4,
                       "score": [1, np.nan, 0, 1, 1, 0, 0, np.nan]}).iloc[:-1]   # rater 1 lacks d entirely
    wrong = md.agreement(df, verdict_missing="as-wrong", options=dict(n_resamples=0))
    assert wrong.attrs["missing_per_rater"] == {"0": 1, "1": 0}
    # d was never judged by rater 1: left out, not scored 0. as-wrong: b of rater 0 counts 0, so
    # rater 0 = 1 0 0, rater 1 = 1 0 0 on a, b, c -> agree on 3 of 3
    assert wrong.loc[0, ["n", "missing_a", "missing_b", "n_left_out"]].tolist() == [3, 1, 0, 1]
    assert wrong.loc[0, "agreement"] == pytest.approx(100.0)
    excluded = md.agreement(df, options=dict(n_resamples=0))          # the default leaves b out too
    assert excluded.attrs["verdict_missing"] == "exclude"
    assert excluded.loc[0, ["n", "n_left_out"]].tolist() == [2, 2] and excluded.loc[0, "agreement"] == 100.0
    assert "left out: 0 vs 1 2; all 2 raters (Fleiss) 2" in excluded.attrs["notes"][1]


def test_raters_of_one_system_are_not_compared_on_systems_they_did_not_judge():
    # issue 12: system 'mem' judged three times, 'rag' and 'zep' once. Scoring the absent
    # repetitions of rag/zep as wrong gave κ = 0.046 and Fleiss 0.27 on the release; the κ must be
    # that of mem's answers alone (statsmodels on mem's 40 x 3 verdicts).
    rng = np.random.default_rng(3)
    truth = rng.random(40) < 0.6
    repeats = [truth, truth ^ (rng.random(40) < 0.08), truth ^ (rng.random(40) < 0.08)]
    rows = [{"system": "mem", "query_id": f"q{k}", "repeat": r, "score": float(v[k])}
            for r, v in enumerate(repeats) for k in range(40)]
    rows += [{"system": name, "query_id": f"q{k}", "repeat": 0, "score": float(rng.random() < 0.5)}
             for name in ("rag", "zep") for k in range(40)]
    out = md.agreement(pd.DataFrame(rows), options=dict(n_resamples=200))
    mem = np.column_stack(repeats).astype(int)
    for _, row in out[out["kind"] == "cohen"].iterrows():
        a, b = mem[:, int(row["rater_a"])], mem[:, int(row["rater_b"])]
        assert row["kappa"] == pytest.approx(cohens_kappa(pd.crosstab(a, b).to_numpy()).kappa, rel=1e-12)
        # rag and zep were judged by repetition 0 only: left out of 0 vs 1 and 0 vs 2, not part of 1 vs 2
        assert row["n"] == 40 and row["n_left_out"] == (80 if row["rater_a"] == "0" else 0)
    fleiss = out.set_index("kind").loc["fleiss"]
    assert fleiss["kappa"] == pytest.approx(fleiss_kappa(aggregate_raters(mem)[0]), rel=1e-12)
    assert fleiss["n"] == 40 and fleiss["n_left_out"] == 80
    assert fleiss["kappa"] > 0.7 and (out.loc[out["kind"] == "cohen", "kappa"] > 0.7).all()


def test_a_column_that_does_not_name_raters_of_the_same_answers_is_refused():
    df = pd.DataFrame({"system": ["a"] * 3 + ["b"] * 3, "query_id": list("xyz") * 2, "score": [1, 0, 1, 1, 1, 0]})
    with pytest.raises(VerdictError, match="'system' does not name raters of the same answers"):
        md.agreement(df, by="system")


def test_fractional_scores_are_binarised_above_one_half():
    df = pd.DataFrame({"system": "s", "query_id": list("abab"), "repeat": [0, 0, 1, 1],
                       "score": [0.5, 0.9, 0.0, 0.6]})
    out = md.agreement(df, options=dict(n_resamples=0))
    assert out.loc[0, "agreement"] == 100.0        # 0.5 -> wrong, 0.9 and 0.6 -> correct


def test_a_rater_with_two_verdicts_for_one_answer_is_an_error():
    df = pd.DataFrame({"system": "s", "query_id": ["a", "a", "a"], "judge": ["j1", "j1", "j2"],
                       "score": [1, 0, 1]})
    with pytest.raises(VerdictError, match="second verdict of rater 'j1'"):
        md.agreement(df, by="judge")
    with pytest.raises(VerdictError, match="at least two raters"):
        md.agreement(df.iloc[:1], by="judge")


def test_missing_verdict_effect_by_hand():
    df = pd.DataFrame({"system": ["a"] * 4 + ["b"] * 4, "query_id": list("wxyz") * 2,
                       "score": [1, 1, 0, np.nan, 1, np.nan, 0, 1]})
    out = md.missing_verdict_effect(df).set_index("system")
    # a: as-wrong 2/4 = 50; excluding its missing z: 2/3; paired exclusion drops x and z: a on w, y = 1/2
    assert out.loc["a", "score_as_wrong"] == pytest.approx(50.0)
    assert out.loc["a", "score_excluded"] == pytest.approx(200 / 3)
    assert out.loc["a", "difference"] == pytest.approx(200 / 3 - 50)
    assert out.loc["a", "score_excluded_paired"] == pytest.approx(50.0)
    # b: as-wrong 2/4; excluding x: 2/3; paired (w, y): 1/2
    assert out.loc["b", ["n_missing", "n_excluded"]].tolist() == [1, 1]
    assert out.loc["b", "score_excluded_paired"] == pytest.approx(50.0)



def test_missing_verdict_effect_per_judge_by_hand():
    nan = np.nan
    scores = {("j1", "a"): [1, nan, 0], ("j1", "b"): [1, 1, nan], ("j2", "a"): [0, 1, 0], ("j2", "b"): [nan, nan, 1]}
    df = pd.DataFrame([{"judge": j, "system": s, "query_id": q, "score": v}
                       for (j, s), values in scores.items() for q, v in zip(("q1", "q2", "q3"), values)])
    out = md.missing_verdict_effect(df)
    assert list(out.columns[:2]) == ["judge", "system"]
    got = out.set_index(["judge", "system"])
    # columns: n_missing, as wrong (NaN = 0 over 3), excluded (own usable verdicts), n_excluded, paired
    # j1: a 1 0 -> 1/3, 1/2; b 1 1 -> 2/3, 2/2; only q1 has both systems' verdicts: a 1, b 1
    # j2: a 0 1 0 -> 1/3, 1/3; b 1 -> 1/3, 1/1; only q3 has both: a 0, b 1
    expected = {("j1", "a"): (1, 100 / 3, 50.0, 1, 100.0), ("j1", "b"): (1, 200 / 3, 100.0, 1, 100.0),
                ("j2", "a"): (0, 100 / 3, 100 / 3, 0, 0.0), ("j2", "b"): (2, 100 / 3, 100.0, 2, 100.0)}
    assert list(got.index) == list(expected)
    for key, (n_missing, as_wrong, excluded, n_excluded, paired) in expected.items():
        row = got.loc[key]
        assert row["n"] == 3 and row["n_missing"] == n_missing and row["n_excluded"] == n_excluded
        assert row["score_as_wrong"] == pytest.approx(as_wrong)
        assert row["score_excluded"] == pytest.approx(excluded)
        assert row["difference"] == pytest.approx(excluded - as_wrong)
        assert row["score_excluded_paired"] == pytest.approx(paired)
    assert "judge j1: 1 of 3 queries have a verdict from every system (score_excluded_paired)" in out.attrs["notes"]
    one = md.missing_verdict_effect(md.prepare(df, judges="j2"))
    pd.testing.assert_frame_equal(one, out[out["judge"] == "j2"].reset_index(drop=True))
    mean = md.missing_verdict_effect(md.prepare(df, judges="mean"))
    pd.testing.assert_frame_equal(mean, out)
    assert mean.attrs["notes"][0].startswith("judges mean: one row per judge (j1, j2)")
    with pytest.raises(VerdictError, match="j3"):
        md.missing_verdict_effect(md.prepare(df, judges="j3"))
    # unlabelled verdicts belong to no judge: left out, counted
    extra = pd.concat([df, pd.DataFrame({"system": ["a"], "query_id": ["q1"], "score": [1.0]})], ignore_index=True)
    with_extra = md.missing_verdict_effect(extra)
    pd.testing.assert_frame_equal(with_extra, out)
    assert "1 verdict without a judge label left out of the per-judge rows" in with_extra.attrs["notes"]

@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans(), st.booleans()), min_size=4, max_size=40), st.randoms())
def test_permuting_rows_changes_no_kappa(labels, random):
    rows = [{"system": "s", "query_id": f"q{i}", "repeat": r, "score": float(v[r])}
            for i, v in enumerate(labels) for r in range(3)]
    shuffled = rows[:]
    random.shuffle(shuffled)
    a = md.agreement(pd.DataFrame(rows), options=dict(n_resamples=0))
    b = md.agreement(pd.DataFrame(shuffled), options=dict(n_resamples=0))
    np.testing.assert_array_equal(a["kappa"].to_numpy(), b["kappa"].to_numpy())
    np.testing.assert_array_equal(a["agreement"].to_numpy(), b["agreement"].to_numpy())


def test_example_fleiss_kappa_leaves_missing_verdicts_out_by_default():
    # issue 14: a missing verdict is not a "wrong" rating; the example's Fleiss κ is 0.8415 on the
    # 4,170 answers all three judge calls rated (30 missing verdicts left out, counted), 0.8364 when
    # they count as wrong -- both checked against statsmodels' fleiss_kappa on the same answers
    from pathlib import Path

    df = md.read_verdicts(Path(__file__).resolve().parents[1] / "data" / "example" / "verdicts")
    default = md.agreement(df, by="repeat", options=dict(n_resamples=200))
    fleiss = default[default["kind"] == "fleiss"].iloc[0]
    wide = df.pivot_table(index=["system", "query_id"], columns="repeat", values="score", dropna=False)
    complete = wide.dropna()
    right = (complete > 0.5).sum(axis=1).to_numpy()
    assert fleiss["n"] == len(complete) == 4170
    assert fleiss["kappa"] == pytest.approx(fleiss_kappa(np.column_stack([3 - right, right])), abs=1e-12)
    assert round(fleiss["kappa"], 4) == 0.8415
    assert "missing verdicts per rater: 0 8, 1 11, 2 11 (exclude)" in default.attrs["notes"][0]
    as_wrong = md.agreement(df, by="repeat", verdict_missing="as-wrong", options=dict(n_resamples=200))
    right_all = (wide.fillna(0) > 0.5).sum(axis=1).to_numpy()
    kappa = as_wrong.loc[as_wrong["kind"] == "fleiss", "kappa"].iloc[0]
    assert kappa == pytest.approx(fleiss_kappa(np.column_stack([3 - right_all, right_all])), abs=1e-12)
    assert round(kappa, 4) == 0.8364
