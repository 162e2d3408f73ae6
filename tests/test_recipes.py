"""Release recipes (issue 12): the bundled recipes reproduce the dedicated readers on the real
releases; records paths, fields, joins, judges and errors on small hand-made files."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from recipe_files import pointed_at, source_files, write_recipe

import memdiag as md
from memdiag.cli import main
from memdiag.errors import VerdictError

RECIPES = Path(__file__).resolve().parents[1] / "data" / "recipes"

#: bundled recipe -> (real release folder, its files the dedicated reader reads)
REAL = {
    "mem0-locomo": "memodb-io__memobase",
    "zep-locomo": "getzep__zep-papers",
    "backboard-locomo": "Backboard-io__Backboard-Locomo-Benchmark",
    "trpc-locomo": "trpc-group__trpc-agent-go",
    "persona-longmemeval": "saxenauts__persona",
}


def canonical(df: pd.DataFrame) -> pd.DataFrame:
    """Rows in key order, columns sorted; ``source_record`` (each reader's own locator) dropped."""
    keys = ["system", "query_id", *(["judge"] if "judge" in df else []), "repeat"]
    df = df.drop(columns=["source_record"]).sort_values(keys, kind="mergesort")
    return df.reset_index(drop=True)[sorted(df.columns)]


@pytest.mark.parametrize("name", sorted(REAL))
def test_bundled_recipe_reproduces_the_dedicated_reader_on_the_real_release(real_data, name):
    base = real_data / REAL[name]
    recipe = pointed_at(RECIPES / f"{name}.yaml", base)
    files = source_files(recipe)
    by_recipe = md.read_verdicts(recipe=recipe)
    by_reader = md.read_verdicts(files)
    pd.testing.assert_frame_equal(canonical(by_recipe), canonical(by_reader))
    assert len(by_recipe) > 100


def test_trpc_runs_with_one_folder_name_are_named_after_the_folders_that_differ(real_data):
    base = real_data / REAL["trpc-locomo"]
    df = md.read_verdicts(recipe=pointed_at(RECIPES / "trpc-locomo.yaml", base))
    assert "data_history300_gpt4omini/auto_mysql" in set(df["system"]) and "long_context" in set(df["system"])
    assert any("named after its folder" in n for n in df.attrs["read_notes"])


def test_longmemeval_recipe_reproduces_its_reader(tmp_path):
    lines = [{"question_id": f"q{i}" + ("_abs" if i == 3 else ""), "question_type": "multi-session",
              "hypothesis": "x", "autoeval_label": {"model": "gpt-4o", "label": i % 2 == 0}} for i in range(4)]
    path = tmp_path / "my_run.jsonl.eval-results-gpt-4o"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    by_recipe = md.read_verdicts(recipe=pointed_at(RECIPES / "longmemeval-autoeval.yaml", tmp_path))
    pd.testing.assert_frame_equal(canonical(by_recipe), canonical(md.read_verdicts(path)))
    assert by_recipe["system"].eq("my_run").all()


# --------------------------------------------------------------------------------------------
# records, fields, ids
# --------------------------------------------------------------------------------------------
def write(path: Path, value: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))
    return path


def test_records_under_a_key_nested_and_bracketed_fields_and_constant_columns(tmp_path):
    write(tmp_path / "run-a" / "eval.json", {"overall_accuracy": 0.5, "data": {"items": [
        {"qid": "q1", "eval": {"ok": "Yes."}, "judge.v2": "no", "meta": {"type": "t1"}},
        {"qid": "q2", "eval": {"ok": "No, off by one day"}, "judge.v2": "yes", "meta": {"type": "t2"}}]}})
    recipe = {"sources": [{"files": "run-a/eval.json", "records": "data.items",
                           "fields": {"query_id": "qid", "score": "eval.ok", "category": "meta.type",
                                      "second": '["judge.v2"]'}, "columns": {"benchmark": "mine"}}]}
    df = md.read_verdicts(recipe=write_recipe(tmp_path, recipe))
    assert df["system"].tolist() == ["run-a", "run-a"]               # default: the file's folder
    assert df["score"].tolist() == [1.0, 0.0] and df["category"].tolist() == ["t1", "t2"]
    assert df["second"].tolist() == ["no", "yes"] and df["benchmark"].eq("mine").all()
    assert df["source_record"].tolist() == ["data.items item 1", "data.items item 2"]


def test_an_object_keyed_by_id_gives_its_keys_as_query_ids(tmp_path):
    write(tmp_path / "r.json", {"questions": {"q1": {"correct": True}, "q2": {"correct": False}}})
    recipe = {"sources": [{"files": "r.json", "records": "questions", "system": "{stem}",
                           "fields": {"score": "correct"}}]}
    df = md.read_verdicts(recipe=write_recipe(tmp_path, recipe))
    assert df[["system", "query_id", "score"]].values.tolist() == [["r", "q1", 1.0], ["r", "q2", 0.0]]


def test_a_records_path_that_misses_names_what_is_there(tmp_path):
    write(tmp_path / "r.json", {"overall_accuracy": 0.7, "results": [{"id": "q1", "ok": 1}]})
    with pytest.raises(VerdictError, match=r"r\.json: records '\(top level\)': the top level is an object "
                                           r"with keys overall_accuracy, results.*Use records: results"):
        md.read_verdicts(tmp_path / "r.json", fields={"query_id": "id", "score": "ok"}, records="")
    with pytest.raises(VerdictError, match=r"records 'result': the top level has no key 'result'"):
        md.read_verdicts(tmp_path / "r.json", fields={"query_id": "id", "score": "ok"}, records="result")


@pytest.mark.parametrize("recipe, message", [
    ({"sources": [{"files": "a.json", "fields": {"query_id": "id", "score": "ok"}}], "joins": []},
     r"<recipe>: unknown key 'joins' \(known: description, sources, join, labels, dataset\)"),
    ({"sources": [{"files": "a.json", "feilds": {}}]}, r"<recipe>, sources entry 1: unknown key 'feilds'"),
    ({"sources": [{"files": "a.json", "fields": {"query_id": "id", "score": {"from": "ok", "scale": 2}}}]},
     r"sources entry 1, field 'score': unknown key 'scale'"),
    ({"sources": [{"files": "a.json", "fields": {"query_id": "id"}}]}, r"fields need 'score'"),
    ({"sources": [{"files": "a.json", "fields": {"score": "ok"}, "system": "{run}"}]}, r"uses \{run\}"),
    ({"sources": [{"files": "a.json", "fields": {"score": "ok"}}], "join": [{"files": "c.json", "on": "x",
                                                                              "fields": {"sufficient": "c"}}]},
     r"<recipe>, join entry 1: unknown key 'on'"),
])
def test_unknown_or_malformed_keys_are_errors_naming_the_key_and_the_recipe(recipe, message):
    with pytest.raises(VerdictError, match=message):
        md.read_verdicts(recipe=recipe)


def test_an_unknown_key_in_a_recipe_file_names_the_file(tmp_path):
    path = tmp_path / "release.yaml"
    path.write_text("sources:\n  - files: a.json\n    fields: {query_id: id, score: ok}\n    sytem: x\n")
    with pytest.raises(VerdictError, match=rf"{path}, sources entry 1: unknown key 'sytem'"):
        md.read_verdicts(recipe=path)


def test_value_transforms(tmp_path):
    write(tmp_path / "r.json", [
        {"id": "q1", "m": {"llm": 0.8}, "ms": 1500, "type": "single-hop", "err": None, "ok": True},
        {"id": "q2", "m": {}, "ms": 500, "type": "multi-hop", "err": "timeout", "ok": True},
        {"id": "q3", "m": {"llm": None}, "ms": None, "type": "single-hop", "err": None, "ok": False}])
    recipe = {"sources": [{"files": "r.json", "system": "x", "fields": {
        "query_id": "id", "score": {"from": "m.llm", "absent": 0, "above": 0},
        "latency_s": {"from": "ms", "divide": 1000}, "stratum": {"from": "type", "map": {"single-hop": "s", "multi-hop": "m"}},
        "sufficient": {"from": "ok", "null_if": "err"}, "tokens_used": {"from": "tokens", "optional": True}}}]}
    df = md.read_verdicts(recipe=write_recipe(tmp_path, recipe))
    np.testing.assert_array_equal(df["score"], [1.0, 0.0, np.nan])     # absent -> 0; null stays missing
    np.testing.assert_array_equal(df["latency_s"], [1.5, 0.5, np.nan])
    assert df["stratum"].tolist() == ["s", "m", "s"] and "tokens_used" not in df
    np.testing.assert_array_equal(df["sufficient"], [1.0, np.nan, 0.0])
    bad = dict(recipe["sources"][0], fields={"query_id": "id", "score": "ok", "stratum": {"from": "type", "map": {"x": 1}}})
    with pytest.raises(VerdictError, match=r"r\.json, record 1, field 'type': 'single-hop' is not in the map"):
        md.read_verdicts(recipe=write_recipe(tmp_path, {"sources": [bad]}))


# --------------------------------------------------------------------------------------------
# joins
# --------------------------------------------------------------------------------------------
def test_join_attaches_side_columns_by_query_and_system_and_counts_what_is_missing(tmp_path):
    for run in ("a", "b"):
        write(tmp_path / run / "eval.json", {"results": [{"q": f"q{i}", "ok": i % 2} for i in range(3)]})
    write(tmp_path / "a" / "cov.json", {"questions": {"q0": {"c": True}, "q1": {"c": None}, "q9": {"c": True}}})
    write(tmp_path / "b" / "cov.json", {"questions": {"q0": {"c": False}, "q1": {"c": True}, "q2": {"c": True}}})
    write(tmp_path / "tokens.json", [{"q": "q0", "t": 100}, {"q": "q1", "t": 200}, {"q": "q2", "t": 300}])
    recipe = {"sources": [{"files": "*/eval.json", "records": "results", "fields": {"query_id": "q", "score": "ok"}}],
              "join": [{"files": "*/cov.json", "records": "questions", "system": "{folder}", "fields": {"sufficient": "c"}},
                       {"files": "tokens.json", "fields": {"query_id": "q", "evidence_tokens": "t"}}]}
    df = md.read_verdicts(recipe=write_recipe(tmp_path, recipe)).set_index(["system", "query_id"])
    np.testing.assert_array_equal(df["sufficient"], [1, np.nan, np.nan, 0, 1, 1])
    assert df["evidence_tokens"].tolist() == [100, 200, 300] * 2          # one side file for every system
    notes = " ".join(md.read_verdicts(recipe=write_recipe(tmp_path, recipe)).attrs["read_notes"])
    assert "join entry 1: 1 answers are not in the side files (per system: a 1); their sufficient stay " \
           "missing: q2" in notes
    assert "1 side records match no verdict and are not used: q9" in notes


def test_two_side_records_for_one_query_are_an_error(tmp_path):
    write(tmp_path / "e.json", [{"q": "q0", "ok": 1}])
    write(tmp_path / "t.json", [{"q": "q0", "t": 1}, {"q": "q0", "t": 2}])
    recipe = {"sources": [{"files": "e.json", "fields": {"query_id": "q", "score": "ok"}}],
              "join": [{"files": "t.json", "fields": {"query_id": "q", "evidence_tokens": "t"}}]}
    with pytest.raises(VerdictError, match=r"join entry 1: two side records for query_id = \('q0',\)"):
        md.read_verdicts(recipe=write_recipe(tmp_path, recipe))


# --------------------------------------------------------------------------------------------
# several files, one system; judges
# --------------------------------------------------------------------------------------------
def long_file(path: Path, system: str, queries=("q1", "q2"), **extra) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    frame = pd.DataFrame({"system": system, "query_id": list(queries), "score": 1, **extra})
    frame.to_csv(path, index=False)
    return path


def test_two_files_of_one_folder_naming_one_system_are_an_error(tmp_path):
    long_file(tmp_path / "runs" / "a.csv", "mem0", ["q1"])
    long_file(tmp_path / "runs" / "b.csv", "mem0", ["q2"])
    with pytest.raises(VerdictError, match=r"b\.csv: system 'mem0' is also given by .*a\.csv.*--judge PATH=NAME"):
        md.read_verdicts(tmp_path / "runs")


def test_files_of_one_system_by_different_judges_are_kept_apart_as_raters(tmp_path):
    long_file(tmp_path / "runs" / "a.csv", "mem0")
    long_file(tmp_path / "runs" / "b.csv", "mem0")
    df = md.read_verdicts(tmp_path / "runs", judge={"a.csv": "gpt-4o", "b.csv": "claude"})
    assert sorted(df["judge"]) == ["claude", "claude", "gpt-4o", "gpt-4o"]
    assert any("one per judge (claude, gpt-4o)" in n for n in df.attrs["read_notes"])
    with pytest.raises(VerdictError, match=r"duplicate verdict for \(system, query_id, judge, repeat\)"):
        md.check(pd.concat([df, df.iloc[:1]]))


def test_a_system_or_judge_key_matching_no_file_is_an_error(tmp_path):
    path = long_file(tmp_path / "a.csv", "mem0")
    with pytest.raises(VerdictError, match=r"--system 'nope\.csv': matches no input file"):
        md.read_verdicts(path, system={"nope.csv": "x"})
    with pytest.raises(VerdictError, match=r"--judge 'b\.csv': matches no input file"):
        md.read_verdicts(path, judge={"b.csv": "x"})


def test_files_with_one_name_in_several_folders_are_named_after_their_folders(tmp_path):
    for run in ("run-a", "run-b"):
        write(tmp_path / run / "eval_results.json", [{"question_id": "q1", "correct": True}])
    df = md.read_verdicts(sorted(tmp_path.glob("*/eval_results.json")),
                          fields={"query_id": "question_id", "score": "correct"})
    assert sorted(df["system"]) == ["run-a", "run-b"]
    assert df.attrs["read_notes"] == ["2 files in 2 folders give the system name 'eval_results': each is named "
                                      "after its folder (run-a, run-b)"]


def test_records_and_judge_flags_in_the_cli_read_like_a_recipe(tmp_path, capsys):
    for judge in ("j1", "j2"):
        write(tmp_path / "run" / f"eval_{judge}.json", {"results": [{"id": "q1", "ok": "Yes."}, {"id": "q2", "ok": "no"}]})
    write(tmp_path / "run" / "cov.json", {"questions": {"q1": {"c": True}, "q2": {"c": None}}})
    code = main(["validate", str(tmp_path / "run" / "eval_j1.json"), str(tmp_path / "run" / "eval_j2.json"),
                 "--records", "results", "--field", "query_id=id", "--field", "score=ok",
                 "--system", "eval_j1.json=run", "--system", "eval_j2.json=run",
                 "--judge", "eval_j1.json=j1", "--judge", "eval_j2.json=j2",
                 "--join", f"{tmp_path / 'run' / 'cov.json'},records=questions,sufficient=c", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    row = json.loads(out)["rows"][0]
    assert (row["system"], row["rows"], row["judges"], row["missing_sufficient"]) == ("run", 4, "j1, j2", 1)


# --------------------------------------------------------------------------------------------
# inspect
# --------------------------------------------------------------------------------------------
def test_inspect_drafts_a_recipe_that_reads_the_release_unchanged(tmp_path, capsys):
    from synthetic_release import write_release

    write_release(tmp_path)
    code = main(["inspect", *map(str, sorted(tmp_path.glob("run-*/*.json"))), "--write", str(tmp_path / "draft.yaml")])
    out, _ = capsys.readouterr()
    assert code == 0 and "every choice had one candidate" in out and "judges of one run: claude, gpt-4o, llama" in out
    drafted = md.read_verdicts(recipe=tmp_path / "draft.yaml")
    written = md.read_verdicts(recipe=tmp_path / "release.yaml")
    pd.testing.assert_frame_equal(canonical(drafted).drop(columns="source_file"),
                                  canonical(written.drop(columns="benchmark")).drop(columns="source_file"))


def test_inspect_says_plainly_what_it_could_not_decide(tmp_path, capsys):
    write(tmp_path / "mystery.json", {"meta": {"n": 2}, "rows": [
        {"a": "x1", "b": "y1", "correct": True, "llm_score": 0}, {"a": "x2", "b": "y2", "correct": False, "llm_score": 1}]})
    code = main(["inspect", str(tmp_path / "mystery.json")])
    out, _ = capsys.readouterr()
    assert code == 0 and "mystery.json: 2 records, a list under 'rows'" in out
    assert "could not decide:" in out and "which field is the query id? (a, b)" in out
    assert "which field is the verdict? (correct, llm_score)" in out and "query_id: TODO" in out


def test_a_template_recipe_finds_its_side_files_beside_the_given_files(tmp_path):
    # review of issue 22: `memdiag score --recipe data/recipes/zep-locomo.yaml grades.json` looked for the
    # join file beside the template (data/recipes/zep_locomo_responses.json) and failed
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "eval.json").write_text(json.dumps([{"id": "a", "ok": True}, {"id": "b", "ok": False}]))
    (tmp_path / "runs" / "cost.json").write_text(json.dumps([{"id": "a", "ms": 1500}, {"id": "b", "ms": 500}]))
    (tmp_path / "templates").mkdir()
    template = tmp_path / "templates" / "t.yaml"
    template.write_text(json.dumps({"sources": [{"files": ["x.json"], "fields": {"query_id": "id", "score": "ok"}}],
                                    "join": [{"files": ["cost.json"],
                                              "fields": {"query_id": "id",
                                                         "latency_s": {"from": "ms", "divide": 1000}}}]}))
    df = md.read_verdicts(recipe=template, paths=[tmp_path / "runs" / "eval.json"])
    assert df.set_index("query_id")["latency_s"].to_dict() == {"a": 1.5, "b": 0.5}


def test_the_bundled_zep_template_reads_the_grades_with_latencies(real_data):
    grades = real_data / REAL["zep-locomo"] / "zep_locomo_grades.json"
    if not grades.is_file():
        pytest.skip(f"{grades} is absent")
    df = md.read_verdicts(recipe=RECIPES / "zep-locomo.yaml", paths=[grades])
    pd.testing.assert_frame_equal(canonical(df), canonical(md.read_verdicts([grades])))
    assert df["latency_s"].notna().sum() == 1540
