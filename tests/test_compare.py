"""md.compare / md.omnibus / md.bootstrap against statsmodels, scipy and direct resampling."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import cochrans_q
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.multitest import multipletests

import memdiag as md

TRPC = "trpc-group__trpc-agent-go/data_nohistory_gpt4omini"
MEME_TASKS = ("ER", "Agg", "Tr", "Del", "Cas", "Abs")


@pytest.fixture(scope="module")
def trpc(real_data):
    runs = ["long_context", "rag_observation_pgvector", "auto_pgvector"]
    return md.read_verdicts([real_data / TRPC / r / "results.json" for r in runs])


def _wide(df: pd.DataFrame) -> pd.DataFrame:
    return df.pivot_table(index="query_id", columns="system", values="score", aggfunc="mean")


def test_compare_binary_iid_uses_exact_mcnemar_matching_statsmodels(trpc):
    # LoCoMo's 10 conversations make cluster the default; iid chosen by the user is said to ignore them
    out = md.compare(trpc, options=dict(design="iid", n_resamples=2_000))
    assert out.attrs["notes"][0] == ("design iid (chosen by the user; it treats the queries of the 10 clusters "
                                     "as independent)")
    wide = _wide(trpc) > 0.5
    assert len(out) == 3 and (out["test"] == "exact McNemar").all()
    for _, row in out.iterrows():
        a, b = wide[row["system_a"]], wide[row["system_b"]]
        table = pd.crosstab(a, b).reindex(index=[False, True], columns=[False, True], fill_value=0)
        assert row["p"] == pytest.approx(sm_mcnemar(table.to_numpy(), exact=True).pvalue, rel=1e-12)
        assert row["diff"] == pytest.approx(100 * (a.mean() - b.mean()), abs=1e-9)
        assert row["estimate_a"] - row["estimate_b"] == pytest.approx(row["diff"], abs=1e-9)
        assert row["n"] == 1986
    np.testing.assert_allclose(out["p_adj"], multipletests(out["p"], method="holm")[1], rtol=1e-12)


def test_compare_interval_agrees_with_scipy_paired_bootstrap_on_real_locomo(trpc):
    out = md.compare(trpc, reference="rag_observation_pgvector",
                     options=dict(design="iid", n_resamples=20_000))
    row = out.set_index("system_a").loc["long_context"]
    wide = _wide(trpc)
    res = stats.bootstrap((wide["long_context"].to_numpy(), wide["rag_observation_pgvector"].to_numpy()),
                          lambda x, y, axis: 100 * (x.mean(axis=axis) - y.mean(axis=axis)),
                          paired=True, vectorized=True, n_resamples=20_000, method="percentile",
                          random_state=np.random.default_rng(1))
    # Monte-Carlo error of a 2.5% quantile at B = 20,000 is ~0.1 points here; allow 0.3
    assert row["ci_low"] == pytest.approx(res.confidence_interval.low, abs=0.3)
    assert row["ci_high"] == pytest.approx(res.confidence_interval.high, abs=0.3)


def test_compare_is_deterministic_for_a_seed(trpc):
    a = md.compare(trpc, options=dict(design="iid", n_resamples=1_000, seed=4))
    b = md.compare(trpc, options=dict(design="iid", n_resamples=1_000, seed=4))
    pd.testing.assert_frame_equal(a, b)
    c = md.compare(trpc, options=dict(design="iid", n_resamples=1_000, seed=5))
    assert not np.allclose(a["ci_low"], c["ci_low"])
    # 10 conversations: jackknife intervals need no seed; the Webb wild bootstrap p-values do
    a, b = md.compare(trpc, options=dict(n_resamples=1_000, seed=4)), md.compare(trpc, options=dict(n_resamples=1_000, seed=4))
    pd.testing.assert_frame_equal(a, b)
    c = md.compare(trpc, options=dict(n_resamples=1_000, seed=5))
    np.testing.assert_array_equal(a["ci_low"], c["ci_low"])
    assert a["test"].str.contains("webb weights").all() and not np.array_equal(a["p"], c["p"])


def test_omnibus_cochrans_q_matches_statsmodels(trpc):
    out = md.omnibus(trpc, options=dict(design="iid")).iloc[0]
    q = cochrans_q((_wide(trpc) > 0.5).to_numpy().astype(int))
    assert out["test"] == "Cochran's Q" and out["df"] == 2
    assert out["statistic"] == pytest.approx(q.statistic, rel=1e-12)
    assert out["p"] == pytest.approx(q.pvalue, rel=1e-9, abs=1e-300)


def test_fractional_metric_uses_bootstrap_sign_test(trpc):
    out = md.compare(trpc, metric="f1", options=dict(design="iid", n_resamples=2_000))
    assert (out["test"] == "bootstrap sign test (iid)").all()
    wide = trpc.pivot_table(index="query_id", columns="system", values="f1")
    row = out.iloc[0]
    assert row["diff"] == pytest.approx(100 * (wide[row["system_a"]].mean() - wide[row["system_b"]].mean()))


def test_clustered_data_are_analysed_as_clustered_and_forcing_iid_is_said_not_warned():
    df = md.simulate(n_queries=1_200, n_clusters=20, icc=0.3, seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clustered = md.compare(df, reference="raw-rag", options=dict(n_resamples=2_000))
        iid = md.compare(df, reference="raw-rag", options=dict(design="iid", n_resamples=2_000))
    assert (clustered["design"] == "cluster").all() and clustered.attrs["n_clusters"] == 20
    assert (clustered["method"] == "cluster jackknife, t(19)").all()
    assert clustered.attrs["notes"][0] == "design cluster (default: the queries come in 20 clusters, resampled whole)"
    assert iid.attrs["notes"][0].endswith("it treats the queries of the 20 clusters as independent)")
    assert not {"ci_low_cluster", "ci_high_cluster"} & set(iid.columns)
    # with icc 0.3 the honest intervals are wider
    assert ((clustered["ci_high"] - clustered["ci_low"]) > (iid["ci_high"] - iid["ci_low"])).all()


def test_every_query_its_own_cluster_is_iid_without_warnings():
    df = md.simulate(n_queries=400, n_clusters=400, icc=0.0, seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = md.compare(df, options=dict(n_resamples=500))
    assert out.attrs["design"] == "iid" and (out["test"] == "exact McNemar").all()
    assert out.attrs["notes"][0] == "design iid (default: every query is its own cluster)"


def _meme(n_episodes: int = 100, seed: int = 0) -> pd.DataFrame:
    """Episodes with 6 tasks; Del/Cas/Abs have before-phase twins (shared pair_id)."""
    rng = np.random.default_rng(seed)
    rows = []
    for system, skill in (("raw-rag", 0.55), ("mem0", 0.45)):
        for e in range(n_episodes):
            effect = rng.normal(0, 0.8)
            for task in MEME_TASKS:
                for k in range(2):
                    qid = f"ep{e:03d}-{task}-{k}"
                    p = 1 / (1 + np.exp(-(np.log(skill / (1 - skill)) + effect)))
                    rows.append((system, qid + "-after", float(rng.random() < p), f"ep{e:03d}", task,
                                 "after", qid))
                    if task in ("Del", "Cas", "Abs"):
                        rows.append((system, qid + "-before", float(rng.random() < 0.8), f"ep{e:03d}", task,
                                     "before", qid))
    return pd.DataFrame(rows, columns=["system", "query_id", "score", "cluster", "category", "phase", "pair_id"])


def _meme_gated(df: pd.DataFrame) -> pd.DataFrame:
    """Direct pandas MEME gate: after-phase rows, Del/Cas/Abs zeroed when the before twin failed."""
    after = df[df["phase"] == "after"].set_index(["system", "pair_id"])
    before = df[df["phase"] == "before"].set_index(["system", "pair_id"])["score"]
    gate = before.reindex(after.index).fillna(1.0)
    gated = after["score"] * np.where(after["category"].isin(["Del", "Cas", "Abs"]), gate > 0.5, 1.0)
    return after.assign(score=gated).reset_index()


def test_meme_cluster_contrast_reproduces_episode_bootstrap_by_direct_resampling():
    df = _meme()
    # the paper's percentile episode bootstrap, asked for by name
    out = md.compare(md.prepare(df, scheme="meme"), reference="raw-rag",
                     options=dict(inference="percentile", n_resamples=4_000, seed=3))
    row = out.iloc[0]
    assert row["design"] == "cluster" and row["test"] == "bootstrap sign test (cluster)"
    assert row["method"] == "percentile bootstrap (cluster)"
    gated = _meme_gated(df)
    point = gated.groupby(["system", "category"])["score"].mean().groupby(level=0).mean()
    assert row["diff"] == pytest.approx(100 * (point["mem0"] - point["raw-rag"]), abs=1e-9)
    # the paper's procedure (C.6) done directly: draw 100 episodes with replacement, pool their
    # after-phase questions, recompute each task mean and the six-task macro in both systems
    cube = gated.pivot_table(index="cluster", columns=["system", "category"], values="score", aggfunc="sum")
    count = gated[gated["system"] == "raw-rag"].pivot_table(index="cluster", columns="category",
                                                           values="score", aggfunc="size")
    rng = np.random.default_rng(99)
    diffs = []
    for _ in range(3_000):
        pick = rng.integers(0, len(cube), size=len(cube))
        n = count.iloc[pick].sum()
        macro = {s: (cube[s].iloc[pick].sum() / n).mean() for s in ("mem0", "raw-rag")}
        diffs.append(100 * (macro["mem0"] - macro["raw-rag"]))
    lo, hi = np.percentile(diffs, [2.5, 97.5])
    width = hi - lo
    assert row["ci_low"] == pytest.approx(lo, abs=0.1 * width)
    assert row["ci_high"] == pytest.approx(hi, abs=0.1 * width)


def test_meme_default_is_the_episode_jackknife_recomputed_by_leaving_out_each_episode():
    df = _meme()
    row = md.compare(md.prepare(df, scheme="meme"), reference="raw-rag",
                     options=dict(n_resamples=2_000)).iloc[0]
    assert row["method"] == "cluster jackknife, t(99)" and row["test"].startswith("wild cluster bootstrap-t")
    # the oracle: drop each of the 100 episodes, gate and macro-average again with pandas
    gated = _meme_gated(df)
    episodes = sorted(gated["cluster"].unique())
    leave_out = []
    for episode in episodes:
        kept = gated[gated["cluster"] != episode]
        macro = kept.groupby(["system", "category"])["score"].mean().groupby(level=0).mean()
        leave_out.append(100 * (macro["mem0"] - macro["raw-rag"]))
    leave_out = np.array(leave_out)
    G = len(episodes)
    se = np.sqrt((G - 1) / G * ((leave_out - leave_out.mean()) ** 2).sum())
    half = stats.t.ppf(0.975, G - 1) * se
    assert row["se"] == pytest.approx(se, rel=1e-9)
    assert row["ci_low"] == pytest.approx(row["diff"] - half, rel=1e-9)
    assert row["ci_high"] == pytest.approx(row["diff"] + half, rel=1e-9)


def test_bootstrap_reports_per_system_intervals_and_bca_for_iid(trpc):
    out = md.bootstrap(trpc, "accuracy", options=dict(design="iid", inference="bca", n_resamples=5_000)).set_index("system")
    acc = 100 * _wide(trpc).mean()
    for system in out.index:
        assert out.loc[system, "estimate"] == pytest.approx(acc[system])
        assert out.loc[system, "ci_low"] < acc[system] < out.loc[system, "ci_high"]
        # binomial SE in points
        se = 100 * np.sqrt(acc[system] / 100 * (1 - acc[system] / 100) / 1986)
        assert out.loc[system, "se"] == pytest.approx(se, rel=0.1)


def test_unknown_reference_and_single_system_are_clear_errors(trpc):
    with pytest.raises(md.VerdictError, match="reference 'zep' is not in the data"):
        md.compare(trpc, reference="zep")
    with pytest.raises(md.VerdictError, match="at least two systems"):
        md.compare(trpc[trpc["system"] == "long_context"])


def test_scheme_exclusions_are_shown_with_the_comparison(trpc):
    out = md.compare(md.prepare(trpc, scheme="locomo"), options=dict(n_resamples=300))
    assert "scheme locomo: 446 queries of category 'adversarial' excluded" in out.attrs["notes"]
    assert (out["n"] == 1540).all()
    flows = md.flows(md.prepare(trpc, scheme="locomo"), reference="rag_observation_pgvector",
                     options=dict(n_resamples=300))
    assert "scheme locomo: 446 queries of category 'adversarial' excluded" in flows.attrs["notes"]
