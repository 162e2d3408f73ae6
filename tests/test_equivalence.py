"""Equivalence (TOST) and non-inferiority under the design, margin claims, the "tied with the best"
leaderboard, and per-group contrasts (SPEC §5.6, §5.7)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.weightstats import ttost_paired

import memdiag as md
from memdiag.errors import VerdictError

SYSTEMS = ("raw-rag", "same", "better", "worse")
ACCURACY = {"raw-rag": 0.6, "same": 0.6, "better": 0.72, "worse": 0.52}


@pytest.fixture(scope="module")
def clustered() -> pd.DataFrame:
    return md.simulate(n_queries=900, n_clusters=30, systems=SYSTEMS, accuracy=ACCURACY, seed=5)


def test_tost_under_a_cluster_design_is_the_t_interval_inside_the_margin(clustered):
    for margin in (1.0, 3.0, 6.0, 12.0):
        out = md.compare(clustered, reference="raw-rag", test="equivalence", margin=margin,
                         options=dict(n_resamples=500))
        # duality (exact for t intervals): TOST p ≤ α  ⇔  the 90% interval inside (−m, m)
        inside = (out["tost_low"] > -margin) & (out["tost_high"] < margin)
        assert ((out["p_margin"] <= 0.05) == inside).all(), margin
        # the p-values by hand from the jackknife se on t(29)
        d, se = out["diff"].to_numpy(), out["se"].to_numpy()
        by_hand = np.maximum(stats.t.sf((d + margin) / se, 29), stats.t.sf((margin - d) / se, 29))
        np.testing.assert_allclose(out["p_margin"], by_hand, rtol=1e-9)
        np.testing.assert_allclose(out["p_margin_adj"], md.adjust(out["p_margin"].to_numpy()))
        assert (out["within_margin"] == (out["p_margin_adj"] <= 0.05)).all()
        t = stats.t.ppf(0.95, 29)
        np.testing.assert_allclose(out["tost_low"], np.clip(d - t * se, -100, 100), rtol=1e-9)


def test_noninferiority_is_the_lower_one_sided_test(clustered):
    out = md.compare(clustered, reference="raw-rag", test="noninferiority", margin=3.0,
                     options=dict(n_resamples=500)).set_index("system_a")
    d, se = out["diff"], out["se"]
    np.testing.assert_allclose(out["p_margin"], stats.t.sf((d + 3.0) / se, 29), rtol=1e-9)
    assert out.loc["better", "within_margin"] and not out.loc["worse", "within_margin"]
    assert ((out["p_margin"] <= 0.05) == (out["tost_low"] > -3.0)).all()


def test_tost_under_iid_agrees_with_the_paired_t_tost_of_statsmodels():
    df = md.simulate(n_queries=2000, n_clusters=2000, systems=("raw-rag", "same"), seed=8,
                     accuracy={"raw-rag": 0.6, "same": 0.6})
    out = md.compare(df, test="equivalence", margin=3.0, options=dict(design="iid", n_resamples=20_000)).iloc[0]
    wide = df.pivot_table(index="query_id", columns="system", values="score").fillna(0)
    p_t = ttost_paired(wide[out["system_a"]].to_numpy(), wide[out["system_b"]].to_numpy(), -0.03, 0.03)[0]
    assert out["p_margin"] == pytest.approx(p_t, abs=0.01)       # bootstrap vs t: close at n = 2,000
    # the percentile interval read by the test: 90% when the confidence level is 95%
    assert out["tost_low"] > md.compare(df, options=dict(design="iid", n_resamples=20_000)).loc[0, "ci_low"]


@pytest.mark.parametrize("kwargs, message", [
    ({"test": "equivalence"}, "needs a margin in points"),
    ({"test": "equivalence", "margin": -1}, "needs a margin in points"),
    ({"margin": 2.0}, "a margin is for test="),
    ({"test": "sameness", "margin": 2.0}, "unknown test"),
    ({"test": "equivalence", "margin": 2.0, "options": {"confidence_level": 0.4, "n_resamples": 200}}, "leaves none"),
])
def test_margin_options_are_checked(clustered, kwargs, message):
    with pytest.raises(VerdictError, match=message):
        md.compare(clustered, **{"options": {"n_resamples": 200}, **kwargs})


def test_equivalent_and_not_worse_claims(clustered):
    claims = [
        {"id": "same-matches", "system_a": "same", "system_b": "raw-rag", "direction": "equivalent", "margin": 6},
        {"id": "same-tight", "system_a": "same", "system_b": "raw-rag", "direction": "equivalent", "margin": 0.5},
        {"id": "better-ties", "system_a": "better", "system_b": "raw-rag", "direction": "equivalent", "margin": 2},
        {"id": "better-nw", "system_a": "better", "system_b": "raw-rag", "direction": "not-worse", "margin": 2},
        {"id": "worse-nw", "system_a": "worse", "system_b": "raw-rag", "direction": "not-worse", "margin": 1},
    ]
    out = md.audit_claims(clustered, claims, options=dict(n_resamples=500)).set_index("id")
    table = md.compare(clustered, reference="raw-rag", test="equivalence", margin=6,
                       options=dict(n_resamples=500)).set_index("system_a")
    assert out.loc["same-matches", "p"] == pytest.approx(table.loc["same", "p_margin"])
    assert out.loc["same-matches", "verdict"] == "supported"
    assert out.loc["same-tight", "verdict"] == "not significant"
    assert out.loc["better-ties", "verdict"] == "contradicted"         # differs by more than ±2
    assert out.loc["better-nw", "verdict"] == "supported"
    assert out.loc["worse-nw", "verdict"] == "contradicted"            # worse by more than 1 point
    assert "the 90% interval" in out.loc["same-matches", "reason"]
    with pytest.raises(VerdictError, match="needs a positive margin"):
        md.read_claims([{"id": "x", "system_a": "a", "system_b": "b", "direction": "equivalent"}])
    with pytest.raises(VerdictError, match="a margin is for the directions"):
        md.read_claims([{"id": "x", "system_a": "a", "system_b": "b", "direction": "greater", "margin": 1}])


def test_leaderboard_tiers_follow_the_comparisons_with_each_leader(clustered):
    board = md.leaderboard(clustered, options=dict(n_resamples=500)).set_index("system")
    first = md.compare(clustered, reference="better",
                       options=dict(n_resamples=500)).set_index("system_a")
    tied = set(first.index[first["p_adj"] > 0.05]) | {"better"}
    assert set(board.index[board["tier"] == 1]) == tied
    assert board.loc["better", "leader"] == "better" and board.loc["better", "rank"] == 1
    ranks = md.rank_stability(clustered, options=dict(n_resamples=500)).set_index("system")
    pd.testing.assert_series_equal(board["p_first"].sort_index(), ranks["p_first"].sort_index())
    assert (board["rank_low"] <= board["rank"]).all() and (board["rank"] <= board["rank_high"]).all()
    # with a margin a system shown not worse than the leader by more than it joins the leader's tier
    wide = md.leaderboard(clustered, margin=30.0, options=dict(n_resamples=500))     # worse is 19 points behind
    assert (wide["tier"] == 1).all() and wide["within_margin"].drop(index=0).all()


def test_compare_by_group_is_compare_on_each_groups_queries(clustered):
    out = md.compare(clustered, by="category", reference="raw-rag", options=dict(n_resamples=500))
    assert list(out.columns[:2]) == ["by", "group"] and "category_id" not in out
    for label, part in out.groupby("group"):
        ids = clustered.loc[clustered["category"] == label, "query_id"].unique()
        alone = md.compare(clustered[clustered["query_id"].isin(ids)], reference="raw-rag",
                           options=dict(n_resamples=500))
        np.testing.assert_allclose(part["diff"], alone["diff"])
        np.testing.assert_allclose(part["p_adj"], alone["p_adj"])      # Holm within the group
    assert out.attrs["family"] == "holm within each category group"


def test_score_group_intervals_are_each_groups_cluster_jackknife(clustered):
    table = md.score(clustered, options=dict(n_resamples=500)).set_index("system")
    queries = clustered[clustered["system"] == "same"]
    clusters = sorted(queries["cluster"].unique())
    g = len(clusters)
    for category in sorted(queries["category"].unique()):
        part = queries[queries["category"] == category]
        theta = part["score"].mean()
        leave = np.array([part.loc[part["cluster"] != c, "score"].mean() for c in clusters])
        se = np.sqrt((g - 1) / g * np.sum((leave - leave.mean()) ** 2))
        half = stats.t.ppf(0.975, g - 1) * se
        assert table.loc["same", category] == pytest.approx(100 * theta)
        assert table.loc["same", f"{category}_ci_low"] == pytest.approx(100 * (theta - half), rel=1e-6)
        assert table.loc["same", f"{category}_ci_high"] == pytest.approx(100 * (theta + half), rel=1e-6)


def test_cli_compare_margin_by_group_and_leaderboard(tmp_path, capsys):
    from memdiag.cli import main

    example = str(Path(__file__).resolve().parents[1] / "data" / "example" / "verdicts")
    assert main(["compare", example, "--pairs", "reference", "--reference", "raw-rag", "--test", "equivalence",
                 "--margin", "3", "--resamples", "200", "--format", "csv"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert {"tost_low", "tost_high", "p_margin_adj", "within_margin"} <= set(table.columns)
    assert main(["compare", example, "--by", "category", "--resamples", "200", "--format", "csv"]) == 0
    assert pd.read_csv(io.StringIO(capsys.readouterr().out))["group"].nunique() == 4
    assert main(["leaderboard", example, "--resamples", "200", "--format", "csv"]) == 0
    board = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert board.loc[0, "tier"] == 1 and board["tier"].is_monotonic_increasing
    assert main(["compare", example, "--test", "equivalence", "--resamples", "200"]) == 2
    assert "needs a margin" in capsys.readouterr().err
