"""The memdiag command: exit codes, one-line errors, output formats, and the same numbers as the API."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pandas as pd
import pytest

import memdiag as md
from memdiag.cli import main

EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "example"
VERDICTS = str(EXAMPLE / "verdicts")


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_validate_prints_every_system_and_the_missing_verdicts():
    code, out, err = run("validate", VERDICTS)
    assert code == 0 and err == ""
    for system in ("raw-rag", "mem0", "zep", "memobase", "a-mem", "full-context", "mem0+raw"):
        assert system in out
    assert "7 files, 12600 verdict rows, 600 distinct queries, 7 systems" in out


def test_score_json_equals_the_python_api():
    code, out, _ = run("score", VERDICTS, "--scheme", "locomo", "--format", "json")
    assert code == 0
    doc = json.loads(out)
    api = md.score(md.prepare(md.read_verdicts(VERDICTS), scheme="locomo"))
    got = {row["system"]: row["overall"] for row in doc["rows"]}
    assert got == pytest.approx(dict(zip(api["system"], api["overall"])), abs=1e-12)
    assert doc["provenance"]["scheme"] == "locomo"


def test_csv_output_round_trips_to_the_same_frame(tmp_path):
    target = tmp_path / "flows.csv"
    code, _, _ = run("flows", VERDICTS, "--reference", "raw-rag", "--resamples", "300", "--format", "csv",
                     "-o", str(target))
    assert code == 0
    got = pd.read_csv(target)
    api = md.flows(md.read_verdicts(VERDICTS), reference="raw-rag", options=dict(n_resamples=300))
    pd.testing.assert_frame_equal(got[["system", "benefit", "tax"]], api[["system", "benefit", "tax"]],
                                  check_dtype=False, check_frame_type=False)   # api: a typed result (a subclass)
    assert got["net_rate_ci_low"].to_numpy() == pytest.approx(api["net_rate_ci_low"].to_numpy(), abs=1e-9)


def test_latex_output_is_booktabs_with_the_signature():
    code, out, _ = run("compare", VERDICTS, "--pairs", "reference", "--reference", "raw-rag",
                       "--design", "cluster", "--resamples", "300", "--format", "latex")
    assert code == 0
    assert "\\toprule" in out and "\\bottomrule" in out
    assert "% memdiag" in out and "design=cluster" in out and "B=300" in out


def test_tables_are_byte_identical_across_runs():
    argv = ("compare", VERDICTS, "--design", "cluster", "--resamples", "500", "--format", "csv")
    assert run(*argv)[1] == run(*argv)[1]


@pytest.mark.parametrize("argv, message", [
    (("validate", "no/such/file.json"), "no/such/file.json: no such file"),
    (("score", VERDICTS, "--field", "score"), "--field 'score': expected NAME=VALUE"),
    (("flows", VERDICTS, "--reference", "rag"), "system 'rag' is not in the data"),
    (("score", VERDICTS, "--scheme", "nope"), "nope"),
])
def test_bad_input_exits_2_with_one_line_and_no_traceback(argv, message):
    code, out, err = run(*argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_unknown_layout_lists_the_known_layouts(tmp_path):
    path = tmp_path / "odd.json"
    path.write_text(json.dumps([{"foo": 1, "bar": 2}]))
    code, _, err = run("validate", str(path))
    assert code == 2
    assert "memdiag inspect" in err and "--field query_id=" in err


def test_field_mapping_reads_an_unknown_layout(tmp_path):
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join(json.dumps({"question_id": f"q{i}", "correct": i % 2 == 0}) for i in range(6)))
    code, out, _ = run("score", str(path), "--field", "query_id=question_id", "--field", "score=correct",
                       "--system", "mine", "--format", "csv")
    assert code == 0
    assert pd.read_csv(io.StringIO(out)).loc[0, "overall"] == pytest.approx(50.0)


def test_audit_exits_1_when_a_claim_is_not_supported():
    code, out, _ = run("audit", str(EXAMPLE / "claims_example.yaml"), "--verdicts", VERDICTS,
                       "--resamples", "300", "--format", "csv")
    table = pd.read_csv(io.StringIO(out))
    assert code == 1 and (table["verdict"] != "supported").any()


def test_writes_prints_the_mutation_rates():
    code, out, _ = run("writes", str(EXAMPLE / "write_log.csv"), "--format", "csv")
    table = pd.read_csv(io.StringIO(out)).set_index("cluster")
    expected = md.write_audit(md.read_write_log(EXAMPLE / "write_log.csv")).set_index("cluster")
    assert code == 0
    assert table.loc["overall", "effective_rate"] == pytest.approx(expected.loc["overall", "effective_rate"])


@pytest.mark.parametrize("command, call", [
    (("compare", "--pairs", "reference", "--reference", "raw-rag"),
     lambda df, **kw: md.compare(df, reference="raw-rag", **kw)),
    (("flows", "--reference", "raw-rag"), lambda df, **kw: md.flows(df, reference="raw-rag", **kw)),
    (("score", "--scheme", "locomo"), lambda df, **kw: md.score(md.prepare(df, scheme="locomo"), **kw)),
])
@pytest.mark.parametrize("inference", ["percentile", "cr2"])
def test_inference_option_reaches_the_function(command, call, inference):
    code, out, err = run(*command[:1], VERDICTS, *command[1:], "--design", "cluster", "--resamples", "300",
                         "--inference", inference, "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    api = call(md.read_verdicts(VERDICTS), options=dict(design="cluster", n_resamples=300, inference=inference))
    low = "net_rate_ci_low" if command[0] == "flows" else ("overall_ci_low" if command[0] == "score" else "ci_low")
    assert [row[low] for row in doc["rows"]] == pytest.approx(api[low].tolist(), abs=1e-12)
    assert doc["provenance"]["inference"] == inference and f"| inference={inference} |" in doc["signature"]


def test_inference_needs_a_cluster_design_and_agreement_has_none():
    code, _, err = run("flows", VERDICTS, "--reference", "raw-rag", "--design", "iid", "--inference", "cr2",
                       "--resamples", "200")
    assert code == 2 and "needs a cluster design" in err
    code, _, err = run("agreement", VERDICTS, "--inference", "cr2")
    assert code == 2 and "unrecognized arguments: --inference" in err


# --------------------------------------------------------------------------------------------
# the functions that had no command (issue 15, item 12)
# --------------------------------------------------------------------------------------------
def test_rank_command_equals_the_python_api():
    code, out, err = run("rank", VERDICTS, "--scheme", "locomo", "--resamples", "300", "--format", "json")
    assert code == 0, err
    api = md.rank_stability(md.prepare(md.read_verdicts(VERDICTS), scheme="locomo"), options=dict(n_resamples=300))
    rows = json.loads(out)["rows"]
    assert [r["system"] for r in rows] == api["system"].tolist()
    assert [r["p_first"] for r in rows] == pytest.approx(api["p_first"].tolist(), abs=1e-12)


def test_power_command_gives_the_noncentral_t_detectable_effect():
    from scipy import stats

    code, out, err = run("power", VERDICTS, "--reference", "raw-rag", "--resamples", "300", "--delta", "5",
                         "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    compared = md.compare(md.read_verdicts(VERDICTS), reference="raw-rag",
                          options=dict(n_resamples=300))
    df = compared.attrs["df"]
    t = stats.t.isf(0.025, df)
    for row, se in zip(doc["rows"], compared["se"]):
        assert row["se"] == pytest.approx(se, abs=1e-12) and row["df"] == df
        # at the detectable effect the two-sided t test rejects with probability 0.8 (scipy's noncentral t)
        nc = row["detectable_effect"] / se
        assert stats.nct.sf(t, df, nc) + stats.nct.cdf(-t, df, nc) == pytest.approx(0.8, abs=1e-9)
        nc5 = 5 / se
        assert row["power_at_5"] == pytest.approx(stats.nct.sf(t, df, nc5) + stats.nct.cdf(-t, df, nc5), abs=1e-12)
    code, _, err = run("power", VERDICTS, "--resamples", "300")
    assert code == 2 and "--reference" in err


def test_independence_and_path_commands_equal_the_python_api():
    code, out, err = run("independence", VERDICTS, "--resamples", "300", "--format", "json")
    assert code == 0, err
    api = md.audit_independence(md.read_verdicts(VERDICTS), options=dict(n_resamples=300))
    assert [r["outcome"] for r in json.loads(out)["rows"]] == api["outcome"].tolist()
    meme = str(EXAMPLE / "meme")
    code, out, err = run("path", meme, "--categories", "Tr,Cas", "--resamples", "300", "--format", "json")
    assert code == 0, err
    api = md.path_given_result(md.read_verdicts(meme), categories=["Tr", "Cas"], options=dict(n_resamples=300))
    assert [r["retention"] for r in json.loads(out)["rows"]] == pytest.approx(api["retention"].tolist(), abs=1e-12)


def test_attribute_command_splits_the_change_of_two_runs(tmp_path):
    before = pd.DataFrame({"system": "rag", "query_id": [f"q{i}" for i in range(8)], "score": [0, 1, 0, 1, 0, 1, 0, 1]})
    after = before.assign(score=[1, 1, 1, 0, 0, 1, 0, 1])
    before.to_csv(tmp_path / "before.csv", index=False)
    after.to_csv(tmp_path / "after.csv", index=False)
    (tmp_path / "changed.txt").write_text("# the modified contexts\nq0\nq1\n", encoding="utf-8")
    for changed in ("q0,q1", f"@{tmp_path / 'changed.txt'}"):
        code, out, err = run("attribute", str(tmp_path / "before.csv"), str(tmp_path / "after.csv"),
                             "--changed", changed, "--resamples", "200", "--format", "json")
        assert code == 0, err
        rows = {r["part"]: r for r in json.loads(out)["rows"]}
        # by hand: changes +1 (q0), 0 (q1) | +1 (q2), -1 (q3), 0 ... over 8 queries
        assert rows["changed"]["contribution"] == pytest.approx(100 * 1 / 8)
        assert rows["unchanged"]["contribution"] == pytest.approx(0.0)
        assert rows["total"]["contribution"] == pytest.approx(100 * 1 / 8)
        assert (rows["changed"]["n"], rows["unchanged"]["n"]) == (2, 6)


def test_plot_forest_by_category_draws_one_block_per_category_under_its_integer(tmp_path):
    code, _, err = run("plot", "forest", VERDICTS, "--reference", "raw-rag", "--scheme", "locomo", "--by",
                       "category", "--resamples", "200", "-o", str(tmp_path / "forest.pdf"))
    assert code == 0, err
    svg = (tmp_path / "forest.svg").read_text(encoding="utf-8")
    table = md.compare(md.prepare(md.read_verdicts(VERDICTS), scheme="locomo"), reference="raw-rag", by="category", options=dict(n_resamples=200))
    for group, integer in table.groupby("group")["category_id"].first().items():
        assert f"{integer} ({group})" in svg
    assert "within each" in svg and "category over its 6 comparisons" in svg


def test_plot_by_is_offered_by_the_forest_alone(tmp_path):
    code, out, err = run("plot", "venn", VERDICTS, "--reference", "raw-rag", "--by", "category",
                         "-o", str(tmp_path / "venn.pdf"))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("memdiag plot venn: error: unrecognized arguments: --by category")
    assert not (tmp_path / "venn.pdf").exists()


def test_plot_forest_layout_draws_small_multiples_and_needs_by(tmp_path):
    out = tmp_path / "grid.svg"
    code, _, err = run("plot", "forest", VERDICTS, "--reference", "raw-rag", "--by", "category", "--arrange", "grid",
                       "--resamples", "200", "-o", str(out))
    assert code == 0, err
    svg = out.read_text(encoding="utf-8")
    stacked = tmp_path / "stacked.svg"
    code, _, err = run("plot", "forest", VERDICTS, "--reference", "raw-rag", "--by", "category", "--arrange",
                       "stacked", "--resamples", "200", "-o", str(stacked))
    assert code == 0, err
    assert 'id="forest-estimate-header"' in stacked.read_text(encoding="utf-8")   # text columns: stacked only
    assert 'id="forest-estimate-header"' not in svg
    code, _, err = run("plot", "forest", VERDICTS, "--reference", "raw-rag", "--arrange", "grid",
                       "-o", str(tmp_path / "none.svg"))
    assert code == 2 and "arrange= (--arrange) lays out the groups of by= (--by)" in err
