"""Coverage, utilization, decomposition, path retention, evidence length (SPEC §3, §7)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.contingency_tables import cochrans_q
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

import memdiag as md


@pytest.fixture(scope="module")
def sim():
    return md.simulate(n_queries=600, seed=21)


def test_decomposition_identity_holds_exactly(sim):
    out = md.evidence(sim, options=dict(n_resamples=500))
    np.testing.assert_allclose(out["covered_term"] + out["uncovered_term"], out["accuracy"], atol=1e-9)
    np.testing.assert_allclose(out["coverage"] * out["utilization"] / 100, out["covered_term"], atol=1e-9)


def test_evidence_point_estimates_match_pandas(sim):
    out = md.evidence(sim, options=dict(n_resamples=300)).set_index("system")
    per_query = sim.assign(score=sim["score"].fillna(0)).groupby(["system", "query_id"]).agg(
        y=("score", "mean"), c=("sufficient", "first"))
    for system, part in per_query.groupby(level="system"):
        c, y = part["c"].to_numpy(), part["y"].to_numpy()
        assert out.loc[system, "coverage"] == pytest.approx(100 * c.mean())
        assert out.loc[system, "utilization"] == pytest.approx(100 * (c * y).sum() / c.sum())
        assert out.loc[system, "accuracy"] == pytest.approx(100 * y.mean())
        assert out.loc[system, "n_sufficient"] == int(c.sum())


def test_utilization_is_undefined_not_zero_without_sufficient_evidence():
    df = pd.DataFrame({"system": ["a"] * 3 + ["b"] * 3, "query_id": list("xyz") * 2,
                       "score": [1, 0, 1, 1, 1, 0], "sufficient": [0, 0, 0, 1, 0, 1]})
    out = md.evidence(df, options=dict(n_resamples=200)).set_index("system")
    assert np.isnan(out.loc["a", "utilization"])
    assert out.loc["b", "utilization"] == 50.0
    assert any("utilization of 'a' is undefined" in n for n in out.attrs["notes"])


def test_missing_evidence_columns_name_the_column():
    df = pd.DataFrame({"system": ["a"], "query_id": ["q"], "score": [1]})
    with pytest.raises(md.VerdictError, match="'sufficient'"):
        md.evidence(df)
    with pytest.raises(md.VerdictError, match="'result_covered', 'path_covered'"):
        md.path_given_result(df)
    with pytest.raises(md.VerdictError, match="'evidence_tokens'"):
        md.evidence_length(df)


def test_coverage_tests_agree_with_statsmodels(sim):
    # sim has clusters: iid by choice
    pairs, omni = md.evidence_tests(sim, options=dict(design="iid", n_resamples=500))
    wide = sim.groupby(["query_id", "system"])["sufficient"].first().unstack()
    q = cochrans_q(wide.to_numpy())
    row = omni.set_index("metric").loc["coverage"]
    assert row["test"] == "Cochran's Q"
    assert row["statistic"] == pytest.approx(q.statistic, rel=1e-12)
    assert row["p"] == pytest.approx(q.pvalue, rel=1e-9)
    coverage = pairs[pairs["metric"] == "coverage"]
    for _, r in coverage.iterrows():
        a, b = wide[r["system_a"]], wide[r["system_b"]]
        table = pd.crosstab(a, b).reindex(index=[0, 1], columns=[0, 1], fill_value=0).to_numpy()
        assert r["p"] == pytest.approx(sm_mcnemar(table, exact=True).pvalue, rel=1e-12)
    util = pairs[pairs["metric"] == "utilization"]
    assert (util["test"] == "bootstrap sign test (iid)").all()
    assert omni.set_index("metric").loc["utilization", "test"].startswith("centered max-range")


def test_path_given_result_by_hand_and_inconsistency_policy():
    # system a: result 1,1,1,0 path 1,0,1,0 -> 2/3; system b: result 1,0,0,0 path 1,1,0,0 -> one inconsistent
    df = pd.DataFrame({"system": ["a"] * 4 + ["b"] * 4, "query_id": list("wxyz") * 2, "score": 1,
                       "result_covered": [1, 1, 1, 0, 1, 0, 0, 0], "path_covered": [1, 0, 1, 0, 1, 1, 0, 0]})
    with pytest.raises(md.VerdictError, match="1 rows have path_covered = 1 but result_covered = 0"):
        md.path_given_result(df)
    out = md.path_given_result(df, allow_inconsistent=True, options=dict(n_resamples=200)).set_index("system")
    assert out.loc["a", "retention"] == pytest.approx(200 / 3)
    assert out.loc["b", "n_inconsistent"] == 1 and out.loc["b", "retention"] == 100.0


def test_evidence_length_percentile_is_linear_interpolation(sim):
    out = md.evidence_length(sim, budget=1_000).set_index("system")
    for system, part in sim.groupby("system"):
        v = part.groupby("query_id")["evidence_tokens"].mean().to_numpy()
        assert out.loc[system, "p95"] == pytest.approx(np.quantile(v, 0.95))
        assert out.loc[system, "n_over_budget"] == int((v > 1_000).sum())


def test_pairwise_matrix_puts_coverage_above_and_utilization_below(sim):
    pairs, _ = md.evidence_tests(sim, options=dict(n_resamples=300))
    cov, util = pairs[pairs["metric"] == "coverage"], pairs[pairs["metric"] == "utilization"]
    table = md.pairwise_matrix(cov, util)
    systems = list(table.index)
    for _, r in cov.iterrows():
        i, j = systems.index(r["system_a"]), systems.index(r["system_b"])
        assert i < j
        star = "*" if r["p_adj"] < 0.05 else ""
        assert table.iloc[i, j] == f"{r['diff']:.2f}{star} [{r['ci_low']:.2f}, {r['ci_high']:.2f}]"
    for _, r in util.iterrows():
        i, j = systems.index(r["system_a"]), systems.index(r["system_b"])
        # lower triangle: row b minus column a, the interval flipped
        assert table.iloc[j, i].startswith(f"{-r['diff']:.2f}")
        assert table.iloc[j, i].endswith(f"[{-r['ci_high']:.2f}, {-r['ci_low']:.2f}]")
    assert (np.diag(table.to_numpy()) == "").all()


def test_a_missing_label_under_label_missing_error_names_the_system_and_query():
    df = pd.DataFrame({"system": ["a", "a", "b", "b"], "query_id": ["x", "y", "x", "y"], "score": 1,
                       "sufficient": [1, None, 0, 1], "result_covered": [1, 1, None, 1], "path_covered": 0})
    with pytest.raises(md.VerdictError, match=r"'sufficient' is missing for 1 .* system 'a', query 'y'.*"
                                              r"label_missing='exclude'"):
        md.evidence(md.prepare(df, label_missing="error"), options=dict(n_resamples=50))
    with pytest.raises(md.VerdictError, match=r"'result_covered' is missing for 1 .* system 'b', query 'x'"):
        md.path_given_result(md.prepare(df, label_missing="error"), options=dict(n_resamples=50))


def test_queries_without_a_label_are_left_out_of_that_diagnostic_only_and_counted():
    # 6 queries; 'a' lacks the label of q2, 'b' of q2 and q5: q2 and q5 leave the evidence diagnostic
    df = pd.DataFrame({"system": ["a"] * 6 + ["b"] * 6, "query_id": [f"q{i}" for i in range(6)] * 2,
                       "score": [1, 1, 0, 1, 0, 1, 0, 1, 1, 1, 1, 0],
                       "sufficient": [1, 1, None, 0, 0, 1, 1, 0, None, 1, 0, None]})
    out = md.evidence(df, options=dict(n_resamples=50))
    # kept queries q0 q1 q3 q4: a: C = 1,1,0,0 and Y = 1,1,1,0 -> coverage 50, utilization 100,
    # accuracy 75; b: C = 1,0,1,0 and Y = 0,1,1,1 -> coverage 50, utilization 50, accuracy 75
    assert out["n"].tolist() == [4, 4] and out["coverage"].tolist() == [50.0, 50.0]
    assert out["utilization"].tolist() == [100.0, 50.0] and out["accuracy"].tolist() == [75.0, 75.0]
    note = next(n for n in out.attrs["notes"] if n.startswith("label missing exclude"))
    assert note == ("label missing exclude: 2 of 6 queries without 'sufficient' labels for some system left "
                    "out of this diagnostic (missing per system: a 1, b 2): q2, q5")
    # accuracy elsewhere keeps all six queries: a 4/6, b 4/6
    assert md.score(df, options=dict(n_resamples=0))["overall"].tolist() == [pytest.approx(400 / 6)] * 2


def test_data_choices_in_the_options_are_sent_to_prepare(sim):
    with pytest.raises(md.errors.VerdictError, match="go to md.prepare"):
        md.evidence(sim, options={"scheme": "locomo"})
