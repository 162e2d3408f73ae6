"""The commands of the named presets: ``robustness`` (A.5.2's sensitivity checks), ``evidence
--procedure`` (C.6) and ``agreement``'s per-judge missing-verdict effect — the numbers they print
equal the Python functions', and every refusal is one line and exit 2."""

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

EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "example"
VERDICTS = str(EXAMPLE / "verdicts")


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def tables(out: str) -> list[dict]:
    doc = json.loads(out)
    return doc if isinstance(doc, list) else [doc]


def column(table: dict, name: str) -> list:
    """A column of a JSON table, null as NaN."""
    return [np.nan if r[name] is None else r[name] for r in table["rows"]]


def refused(argv: tuple[str, ...], message: str) -> None:
    code, out, err = run(*argv)
    assert code == 2 and out == "", err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err, err


@pytest.fixture()
def small(tmp_path) -> Path:
    """Two systems, four queries, no repeats, no missing verdict; ``blocked`` marks mem's ``d``."""
    df = pd.DataFrame({"system": ["rag"] * 4 + ["mem"] * 4, "query_id": list("abcd") * 2,
                       "score": [1, 1, 0, 1, 1, 0, 1, 0], "blocked": [0, 0, 0, 0, 0, 0, 0, 1]})
    df.to_csv(tmp_path / "small.csv", index=False)
    return tmp_path / "small.csv"


# --------------------------------------------------------------------------------------------
# memdiag robustness
# --------------------------------------------------------------------------------------------
def test_robustness_runs_every_check_the_example_allows_with_the_apis_numbers():
    # the example has three judge calls per answer and 30 missing verdicts, and no --filtered
    code, out, err = run("robustness", VERDICTS, "--reference", "raw-rag", "--resamples", "200",
                         "--format", "json")
    assert code == 0, err
    got = tables(out)
    assert [t["provenance"]["function"] for t in got] == ["judge_repetition_sensitivity", "missing_verdict_bounds"]
    df = md.read_verdicts(VERDICTS)
    for table, call in zip(got, (md.judge_repetition_sensitivity, md.missing_verdict_bounds)):
        api = call(df, reference="raw-rag", options={"n_resamples": 200})
        assert [r["quantity"] for r in table["rows"]] == api["quantity"].tolist()
        for name in ("baseline", "variant", "change", "baseline_ci_low", "variant_ci_high", "variant_p_adj"):
            assert column(table, name) == pytest.approx(api[name].tolist(), abs=1e-12, nan_ok=True)


def test_robustness_check_option_picks_one_table():
    code, out, err = run("robustness", VERDICTS, "--check", "missing-verdicts", "--resamples", "0",
                         "--format", "csv")
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out))
    api = md.missing_verdict_bounds(md.read_verdicts(VERDICTS), options=dict(n_resamples=0))
    np.testing.assert_allclose(got["variant"], api["variant"], atol=1e-12)
    assert "baseline_ci_low" not in got      # B = 0: point estimates only


def test_content_filter_from_a_column_and_from_files_gives_the_hand_computed_moves(small, tmp_path):
    # mem's answer to d was blocked: d leaves both systems. Baseline rag 3/4, mem 2/4; variant on a, b, c:
    # rag 2/3, mem 2/3, so mem − rag moves from −25 to 0 points
    (tmp_path / "by_system.csv").write_text("query_id,system,reason\nd,mem,filter\n", encoding="utf-8")
    (tmp_path / "ids.csv").write_text("query_id\nd\n", encoding="utf-8")
    (tmp_path / "any_system.csv").write_text("system,query_id\n,d\n", encoding="utf-8")
    expected = {("score", "mem"): (50.0, 200 / 3), ("score", "rag"): (75.0, 200 / 3), ("mem − rag", "mem"): (-25.0, 0.0)}
    for filtered in ("blocked", "by_system.csv", "ids.csv", "any_system.csv"):
        source = filtered if filtered == "blocked" else str(tmp_path / filtered)
        code, out, err = run("robustness", str(small), "--filtered", source, "--reference", "rag",
                             "--resamples", "0", "--format", "json")
        assert code == 0, err
        (table,) = tables(out)
        assert table["provenance"]["function"] == "content_filter_sensitivity"
        got = {(r["quantity"], r["system"]): (r["baseline"], r["variant"]) for r in table["rows"]}
        assert got.keys() == expected.keys()
        for key, (baseline, variant) in expected.items():
            assert got[key] == pytest.approx((baseline, variant)), filtered
        assert [r["n_variant"] for r in table["rows"]] == [3, 3, 3]
    api = md.content_filter_sensitivity(md.read_verdicts(str(small)), {"mem": ["d"]}, reference="rag",
                                        options=dict(n_resamples=200))
    code, out, _ = run("robustness", str(small), "--filtered", str(tmp_path / "by_system.csv"), "--reference", "rag",
                       "--resamples", "200", "--format", "json")
    (table,) = tables(out)
    assert [r["variant_ci_low"] for r in table["rows"]] == pytest.approx(api["variant_ci_low"].tolist(), abs=1e-12)
    assert "filtered answers: mem 1, on 1 queries: d" in table["provenance"]["notes"]


def test_content_filter_decides_other_missing_verdicts_by_the_policy_in_both_analyses(tmp_path):
    df = pd.DataFrame({"system": ["rag"] * 4 + ["mem"] * 4, "query_id": list("abcd") * 2,
                       "score": [1, None, 0, 1, 1, 0, 1, 0]})
    df.to_csv(tmp_path / "v.csv", index=False)
    (tmp_path / "f.csv").write_text("query_id,system\nd,mem\n", encoding="utf-8")
    argv = ("robustness", str(tmp_path / "v.csv"), "--check", "content-filter", "--filtered", str(tmp_path / "f.csv"),
            "--resamples", "0", "--format", "json")
    code, out, err = run(*argv)
    assert code == 0, err
    rows = {r["system"]: r for r in tables(out)[0]["rows"]}
    # as-wrong (default): rag's missing b counts 0: baseline a..d 2/4, variant a, b, c 1/3;
    # mem: baseline 2/4, variant 2/3
    assert (rows["rag"]["baseline"], rows["rag"]["variant"]) == pytest.approx((50.0, 100 / 3))
    assert (rows["mem"]["baseline"], rows["mem"]["variant"]) == pytest.approx((50.0, 200 / 3))
    assert ("1 verdict missing for other reasons scored 0 in both analyses (verdict_missing as-wrong)"
            in tables(out)[0]["provenance"]["notes"])
    code, out, err = run(*argv, "--verdict-missing", "exclude")
    assert code == 0, err
    table = tables(out)[0]
    rows = {r["system"]: r for r in table["rows"]}
    # exclude: b leaves both analyses: baseline a, c, d (rag 1, 0, 1: 2/3; mem 1, 1, 0: 2/3);
    # variant a, c (rag 1/2, mem 2/2)
    assert (rows["rag"]["baseline"], rows["rag"]["variant"]) == pytest.approx((200 / 3, 50.0))
    assert (rows["mem"]["baseline"], rows["mem"]["variant"]) == pytest.approx((200 / 3, 100.0))
    assert [r["n_baseline"] for r in table["rows"]][:2] == [3, 3]
    assert any(n.startswith("1 query with a verdict missing for other reasons") and n.endswith(": b")
               for n in table["provenance"]["notes"])


def test_robustness_refuses_what_it_cannot_check_in_one_line(small, tmp_path):
    bad_header = tmp_path / "bad_header.csv"
    bad_header.write_text("question,system\nd,mem\n", encoding="utf-8")
    empty_id = tmp_path / "empty_id.csv"
    empty_id.write_text("query_id,system\nd,mem\n,rag\n", encoding="utf-8")
    odd_system = tmp_path / "odd_system.csv"
    odd_system.write_text("query_id,system\nd,mem\nc,memo\n", encoding="utf-8")
    header_only = tmp_path / "header_only.csv"
    header_only.write_text("query_id\n", encoding="utf-8")
    s = str(small)
    for argv, message in [
        (("robustness", s, "--check", "judge-repeats"), "every answer has one judge call"),
        (("robustness", s, "--check", "missing-verdicts"), "no verdict is missing"),
        (("robustness", s, "--check", "content-filter"), "--check content-filter needs --filtered"),
        (("robustness", s), "nothing to check"),
        (("robustness", s, "--filtered", str(bad_header)), f"{bad_header}, field 'query_id': no 'query_id' column"),
        (("robustness", s, "--filtered", str(empty_id)), f"{empty_id}, row 2, field 'query_id': empty"),
        (("robustness", s, "--filtered", str(odd_system)),
         f"{odd_system}, row 2, field 'system': 'memo' is not a system of the verdicts (mem, rag)"),
        (("robustness", s, "--filtered", str(header_only)), "lists no blocked answer"),
        (("robustness", s, "--filtered", "nope"), "--filtered 'nope' is neither a column of the verdicts"),
        (("robustness", s, "--filtered", "query_id"), "--filtered query_id: record 1 holds 'a', not 0 or 1"),
        (("robustness", VERDICTS, "--check", "judge-repeats", "--filtered", "x.csv"),
         "--filtered is for --check content-filter"),
        (("robustness", s, "--check", "spelling"), "invalid choice: 'spelling'"),
        (("robustness", s, "--filtered", str(header_only), "-o", str(header_only), "--force"),
         "is one of the inputs"),
    ]:
        refused(argv, message)
    assert header_only.read_text(encoding="utf-8") == "query_id\n"


def test_robustness_checks_one_judge_of_several(tmp_path):
    df = pd.DataFrame({"system": ["rag", "rag", "mem", "mem"] * 2, "query_id": list("abab") * 2,
                       "judge": ["j1"] * 4 + ["j2"] * 4, "score": [1, None, 1, 0, 1, 1, None, 0]})
    df.to_csv(tmp_path / "judges.csv", index=False)
    refused(("robustness", str(tmp_path / "judges.csv")), "choose one with --judges NAME")
    refused(("robustness", str(tmp_path / "judges.csv"), "--judges", "mean"), "--judges mean: the verdicts hold")
    code, out, err = run("robustness", str(tmp_path / "judges.csv"), "--judges", "j2", "--resamples", "0",
                         "--format", "json")
    assert code == 0, err
    rows = {r["system"]: r for r in tables(out)[0]["rows"]}
    # judge j2: rag 1 1, mem NaN 0 -> mem 0/2 as wrong, 1/2 as right
    assert (rows["mem"]["baseline"], rows["mem"]["variant"]) == pytest.approx((0.0, 50.0))
    assert (rows["rag"]["baseline"], rows["rag"]["variant"]) == pytest.approx((100.0, 100.0))


# --------------------------------------------------------------------------------------------
# memdiag evidence --procedure
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def mab(tmp_path_factory) -> str:
    df = md.simulate_memoryagentbench(n_per_source=3, systems=("raw-rag", "mem0", "zep"), seed=1)
    path = tmp_path_factory.mktemp("mab") / "mab.csv"
    df.to_csv(path, index=False)
    return str(path)


def test_evidence_procedure_prints_the_procedures_three_tables(mab):
    code, out, err = run("evidence", mab, "--procedure", "raw-rag-c6", "--design", "stratified",
                         "--resamples", "300", "--format", "json")
    assert code == 0, err
    got = tables(out)
    api = md.evidence_procedure(md.read_verdicts(mab), "raw-rag-c6",
                                options=dict(design="stratified", n_resamples=300))
    assert [t["provenance"]["function"] for t in got[1:]] == ["omnibus", "pairwise_matrix", "compare"]
    omnibus, matrix, pairs = got[1:]
    assert [r["test"] for r in omnibus["rows"]] == api.omnibus["test"].tolist()
    assert column(omnibus, "p") == pytest.approx(api.omnibus["p"].astype(float).tolist(), abs=1e-12)
    assert [r["holm_significant"] for r in omnibus["rows"]] == api.omnibus["holm_significant"].tolist()
    assert [r["p_adj"] for r in pairs["rows"]] == pytest.approx(api.pairs["p_adj"].tolist(), abs=1e-12)
    assert [r["ci_low"] for r in pairs["rows"]] == pytest.approx(api.pairs["ci_low"].tolist(), abs=1e-12)
    assert [r["row − column"] for r in matrix["rows"]] == api.matrix.index.tolist()
    assert [r["zep"] for r in matrix["rows"]] == api.matrix["zep"].fillna("").tolist()
    assert any(n.startswith("procedure raw-rag-c6: ") for n in omnibus["provenance"]["notes"])
    # the coverage table beside them follows the procedure: its B and percentile intervals
    assert got[0]["provenance"]["inference"] == "percentile" and got[0]["provenance"]["n_resamples"] == 300


def test_evidence_procedure_defaults_to_its_own_replicates(mab):
    code, out, err = run("evidence", mab, "--procedure", "raw-rag-c6", "--design", "stratified", "--format", "json")
    assert code == 0, err
    got = tables(out)
    assert got[0]["provenance"]["n_resamples"] == 50_000
    assert [r["n_resamples"] for r in got[1]["rows"]][1] == 50_000   # utilization's max-range bootstrap


def test_evidence_procedure_refusals_are_one_line(mab):
    refused(("evidence", mab, "--procedure", "paper-x", "--resamples", "200"), "unknown procedure 'paper-x'")
    refused(("evidence", mab, "--procedure", "raw-rag-c6", "--inference", "jackknife"), "drop --inference")
    refused(("evidence", mab, "--procedure", "raw-rag-c6", "--correction", "bonferroni"), "drop --correction")
    refused(("evidence", mab, "--procedure", "raw-rag-c6", "--tests"), "drop --tests")


# --------------------------------------------------------------------------------------------
# memdiag agreement with several judges
# --------------------------------------------------------------------------------------------
def test_agreement_prints_the_missing_verdict_effect_per_judge(tmp_path):
    nan = np.nan
    scores = {("j1", "a"): [1, nan, 0], ("j1", "b"): [1, 1, nan], ("j2", "a"): [0, 1, 0], ("j2", "b"): [nan, nan, 1]}
    df = pd.DataFrame([{"judge": j, "system": s, "query_id": q, "score": v}
                       for (j, s), values in scores.items() for q, v in zip(("q1", "q2", "q3"), values)])
    df.to_csv(tmp_path / "judges.csv", index=False)
    code, out, err = run("agreement", str(tmp_path / "judges.csv"), "--resamples", "100", "--format", "json")
    assert code == 0, err
    kappas, effect = tables(out)
    assert kappas["provenance"]["function"] == "agreement"
    rows = {(r["judge"], r["system"]): r for r in effect["rows"]}
    # by hand (tests/test_agreement.py): as wrong j1 a 1/3, j1 b 2/3, j2 a 1/3, j2 b 1/3; excluded 1/2, 1, 1/3, 1
    assert {k: r["score_as_wrong"] for k, r in rows.items()} == pytest.approx(
        {("j1", "a"): 100 / 3, ("j1", "b"): 200 / 3, ("j2", "a"): 100 / 3, ("j2", "b"): 100 / 3})
    assert {k: r["score_excluded"] for k, r in rows.items()} == pytest.approx(
        {("j1", "a"): 50.0, ("j1", "b"): 100.0, ("j2", "a"): 100 / 3, ("j2", "b"): 100.0})
    code, out, err = run("agreement", str(tmp_path / "judges.csv"), "--resamples", "100", "--judges", "j1",
                         "--format", "json")
    assert code == 0, err
    assert {r["judge"] for r in tables(out)[1]["rows"]} == {"j1"}
    code, out, err = run("agreement", str(tmp_path / "judges.csv"), "--resamples", "100", "--judges", "mean",
                         "--format", "json")
    assert code == 0, err
    assert len(tables(out)[1]["rows"]) == 4 and tables(out)[1]["provenance"]["notes"][0].startswith("judges mean")
    refused(("agreement", str(tmp_path / "judges.csv"), "--judges", "j3"), "'j3' is not a judge")
