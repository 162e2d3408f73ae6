"""The data choices made once in md.prepare reach every diagnostic: the correctness threshold, the
systems, the missing-query and judge policies; a comparison of pairs takes ``reference=`` alone; the
independence audit's α is 1 − the options' confidence level. Numbers worked by hand in comments."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import memdiag as md
from memdiag.cli import main
from memdiag.errors import VerdictError

VERDICTS = str(Path(__file__).resolve().parents[1] / "data" / "example" / "verdicts")
FEW = dict(n_resamples=200, seed=1)


def graded() -> pd.DataFrame:
    """Four queries with graded scores: at > 0.65 rag is right on d only, mem on a, b and c;
    at the default 0.5 rag is right on a, b and d, mem on a, b and c."""
    return pd.DataFrame({"system": ["rag"] * 4 + ["mem"] * 4, "query_id": list("abcd") * 2,
                         "score": [0.6, 0.6, 0.2, 0.9, 0.7, 0.9, 0.8, 0.4], "latency_s": 1.0})


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_the_threshold_is_a_data_choice_recorded_and_kept():
    prep = md.prepare(graded(), threshold=0.65)
    assert prep.threshold == 0.65 and prep.choices["threshold"] == 0.65
    assert md.prepare(graded()).threshold is None
    assert prep.reprepare(missing="drop").threshold == 0.65          # re-preparing keeps the choice
    assert prep.restrict(["mem", "rag"]).threshold == 0.65 and prep.with_design("iid").threshold == 0.65
    assert prep.with_threshold(None).threshold is None and prep.with_threshold(0.65) is prep
    with pytest.raises(VerdictError, match=r"threshold must be a number in \[0, 1\)"):
        md.prepare(graded(), threshold=1.0)


def test_flows_replay_costs_and_the_venn_count_correct_at_the_prepared_threshold():
    prep = md.prepare(graded(), threshold=0.65)
    # > 0.65: rag 0001, mem 1110 -> both 0, benefit 3 (a, b, c), tax 1 (d), neither 0
    row = md.flows(prep, "rag", options=FEW).iloc[0]
    assert (row["both"], row["benefit"], row["tax"], row["neither"]) == (0, 3, 1, 0)
    assert md.flows(prep, "rag", options=FEW).attrs["threshold"] == 0.65
    # default 0.5: rag 1101, mem 1110 -> both 2, benefit 1, tax 1
    row = md.flows(graded(), "rag", options=FEW).iloc[0]
    assert (row["both"], row["benefit"], row["tax"]) == (2, 1, 1)
    cells = md.replay(prep, "rag")
    assert cells.groupby("cell")["query_id"].apply(list).to_dict() == {"benefit": ["a", "b", "c"], "tax": ["d"]}
    # cost per correct answer: 4 seconds over 3 correct at 0.65; over the scores' sum 2.8 without a threshold
    cost = md.costs(prep, options=FEW).set_index("system")
    assert cost.loc["mem", "per_correct"] == pytest.approx(4 / 3)
    assert md.costs(graded(), options=FEW).set_index("system").loc["mem", "per_correct"] == pytest.approx(4 / 2.8)
    venn = md.plot.view("venn", prep, reference="rag", options=FEW).tables["flows"].iloc[0]
    assert (venn["benefit"], venn["tax"]) == (3, 1)


def test_compare_at_the_prepared_threshold_equals_compare_on_scores_binarised_by_hand():
    df = md.simulate(n_queries=300, systems={"raw-rag": 0.6, "mem": 0.7}, n_repeats=3, seed=4)
    opts = dict(design="iid", n_resamples=500, seed=2)
    by_hand = df.assign(score=(df.groupby(["system", "query_id"])["score"].transform("mean") > 0.5).astype(float))
    ours = md.compare(md.prepare(df, threshold=0.5), options=opts)
    oracle = md.compare(by_hand, options=opts)
    for column in ("diff", "ci_low", "ci_high", "p"):
        assert ours[column].tolist() == pytest.approx(oracle[column].tolist())
    # without a threshold the scores are compared as given: the mean of the three judgments
    raw = md.compare(df, options=opts)
    means = df.groupby(["system", "query_id"])["score"].mean().groupby("system").mean()
    assert raw["diff"].iloc[0] == pytest.approx(100 * (means["mem"] - means["raw-rag"]))


def test_reference_alone_chooses_the_pairs():
    df = md.simulate(n_queries=120, systems={"a": 0.5, "b": 0.6, "c": 0.7}, reference="a", seed=3)
    every = md.compare(df, options=FEW)
    assert list(zip(every["system_a"], every["system_b"])) == [("a", "b"), ("a", "c"), ("b", "c")]
    against = md.compare(df, reference="b", options=FEW)
    assert list(zip(against["system_a"], against["system_b"])) == [("a", "b"), ("c", "b")]
    frag = md.fragility(df, reference="b")
    assert list(zip(frag["system_a"], frag["system_b"])) == [("a", "b"), ("c", "b")]
    with pytest.raises(VerdictError, match="reference 'zz' is not in the data"):
        md.compare(df, reference="zz", options=FEW)
    with pytest.raises(VerdictError, match="reference 'zz' is not in the data"):
        md.fragility(df, reference="zz")


def test_cost_ratios_without_a_reference_compare_every_pair():
    df = pd.DataFrame({"system": ["rag"] * 4 + ["mem"] * 4 + ["slow"] * 4, "query_id": list("abcd") * 3,
                       "score": 1, "latency_s": [1.0] * 4 + [2.0] * 4 + [4.0] * 4})
    out = md.cost_ratios(df, options=FEW)
    # every pair in system order (mem, rag, slow), ratio = mean_a / mean_b
    assert list(zip(out["system_a"], out["system_b"], out["ratio"])) == [
        ("mem", "rag", 2.0), ("mem", "slow", 0.5), ("rag", "slow", 0.25)]


def test_the_independence_audit_reads_alpha_from_the_confidence_level():
    df = md.simulate(n_queries=600, systems={"raw-rag": 0.55, "mem": 0.62, "zep": 0.6}, n_clusters=12,
                     icc=0.1, seed=6)
    for level, alpha in ((0.95, 0.05), (0.9, 0.1)):
        out = md.audit_independence(df, options=dict(n_resamples=300, confidence_level=level))
        assert out.attrs["alpha"] == alpha                          # exactly, not 0.09999999999999998
        significant = out["p_adj"] <= alpha
        assert (significant == out["outcome"].isin(["survives", "gained"])).all()
        assert f"significant at {alpha:g} under iid" in " ".join(map(str, out.attrs["notes"]))


def test_the_missing_verdict_effect_takes_the_prepared_policies():
    # a: w 1, x 0, y no verdict, z 1; b: w 1, x 1, y 0 (no z)
    df = pd.DataFrame({"system": ["a"] * 4 + ["b"] * 3, "query_id": list("wxyz") + list("wxy"),
                       "score": [1, 0, None, 1, 1, 1, 0]})
    with pytest.raises(VerdictError):
        md.missing_verdict_effect(df)                               # z is unpaired under missing="error"
    out = md.missing_verdict_effect(md.prepare(df, missing="drop")).set_index("system")
    # z dropped from the pairs: a as wrong (1 + 0 + 0)/3 on w, x, y; excluded on a's own queries with a
    # verdict, w, x, z: (1 + 0 + 1)/3; b (1 + 1 + 0)/3 either way
    assert out.loc["a", ["n", "n_missing", "score_as_wrong", "score_excluded"]].tolist() == pytest.approx(
        [3, 1, 100 / 3, 200 / 3])
    assert out.loc["b", "score_as_wrong"] == pytest.approx(200 / 3) == out.loc["b", "score_excluded"]
    one = md.missing_verdict_effect(md.prepare(df, missing="drop", systems=["b"]))
    assert one["system"].tolist() == ["b"] and one["n"].iloc[0] == 3


def test_variance_components_of_prepared_data_follow_its_systems():
    rng = np.random.default_rng(0)
    rows = pd.DataFrame([{"system": s, "cluster": f"c{g}", "query_id": f"c{g}q{q}", "repeat": j,
                          "score": float(rng.random() < p)}
                         for s, p in (("m1", 0.6), ("m2", 0.7), ("m3", 0.5))
                         for g in range(4) for q in range(10) for j in range(2)])
    ours = md.variance_components(md.prepare(rows, systems=["m3", "m1"]))
    oracle = md.variance_components(rows[rows["system"].isin(["m3", "m1"])].assign(
        system=lambda d: pd.Categorical(d["system"], ["m3", "m1"])).sort_values("system").astype({"system": str}))
    assert list(dict.fromkeys(ours["system"])) == ["m3", "m1"]
    pd.testing.assert_frame_equal(ours.reset_index(drop=True), oracle.reset_index(drop=True), check_like=False)


def test_the_command_line_maps_pairs_and_reference_onto_reference():
    code, _, err = run("compare", VERDICTS, "--pairs", "reference", "--resamples", "200")
    assert code == 2 and "compare --pairs reference needs --reference NAME" in err
    # --pairs all (the default) compares every pair, whatever --reference says
    code, out, _ = run("compare", VERDICTS, "--reference", "raw-rag", "--resamples", "200", "--format", "json")
    assert code == 0 and len(json.loads(out)["rows"]) == 21         # 7 systems: C(7, 2) pairs
    code, out, _ = run("compare", VERDICTS, "--pairs", "reference", "--reference", "raw-rag", "--resamples", "200",
                       "--format", "json")
    rows = json.loads(out)["rows"]
    assert code == 0 and len(rows) == 6 and {r["system_b"] for r in rows} == {"raw-rag"}


def test_the_command_line_threshold_prepares_the_verdicts():
    code, out, _ = run("flows", VERDICTS, "--reference", "raw-rag", "--threshold", "0.9", "--resamples", "200",
                       "--format", "json")
    api = md.flows(md.prepare(md.read_verdicts(VERDICTS), threshold=0.9), "raw-rag",
                   options=dict(n_resamples=200))
    got = {r["system"]: (r["benefit"], r["tax"]) for r in json.loads(out)["rows"]}
    assert code == 0 and got == {r.system: (r.benefit, r.tax) for r in api.itertuples()}


def test_the_reports_threshold_is_a_prepare_choice_its_flows_count_with(tmp_path):
    df = md.simulate(n_queries=200, systems={"raw-rag": 0.55, "mem": 0.65}, n_repeats=3, seed=8,
                     sufficiency=False, costs=False)
    df.to_csv(tmp_path / "verdicts.csv", index=False)
    opts = dict(n_resamples=200, seed=3)
    out = md.report(tmp_path / "verdicts.csv", "raw-rag", tmp_path / "r", prepare={"threshold": 0.7}, options=opts,
                    progress=False)
    analysis = json.loads((out / "analysis.json").read_text(encoding="utf-8"))
    assert analysis["settings"]["threshold"] == 0.7
    flows = pd.read_csv(out / "tables" / "flows.csv").set_index("system")
    # the report's flows count correct at > 0.7 (two of three judgments no longer make a query right)
    api = md.flows(md.prepare(df, threshold=0.7), "raw-rag", options=opts).set_index("system")
    assert flows.loc["mem", ["both", "benefit", "tax", "neither"]].tolist() == \
        api.loc["mem", ["both", "benefit", "tax", "neither"]].tolist()
    # its pairwise differences compare the scores as given (the mean of the judgments), as in 0.3
    pairs = pd.read_csv(out / "tables" / "pairwise_vs_reference.csv")
    assert pairs["diff"].iloc[0] == pytest.approx(md.compare(df, reference="raw-rag", options=opts)["diff"].iloc[0])
    # an analysis.json of 0.3 (settings.threshold, no prepare mapping) re-runs with the same threshold
    again = md.report_from_json(out / "analysis.json", tmp_path / "again", progress=False)
    assert (again / "tables" / "flows.csv").read_bytes() == (out / "tables" / "flows.csv").read_bytes()
