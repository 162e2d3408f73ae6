"""``memdiag inspect`` is right or says it is unsure (issue 22): one test per misclassification.

Every file is classified as verdicts, side file (joined by id), summary (checked against, not
read) or manifest (skipped, noted); identical query sets are recognised; two runs in one folder
are runs; a detected conversation field stays active; graded fields are verdict candidates.
"""

from __future__ import annotations

import json
import random

import pandas as pd
import pytest
from cli_inspect import inspect

import memdiag as md


def _write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def _results(n=8, seed=0, shuffle=False, key="correct"):
    rng = random.Random(seed)
    rows = [{"question_id": f"q{i:04d}", "question_type": ["a", "b"][i % 2], key: rng.random() < 0.5}
            for i in range(n)]
    if shuffle:
        rng.shuffle(rows)
    return {"results": rows}


def _role(result, name):
    return result.roles[name]


def test_a_per_question_side_file_is_joined_not_a_system(tmp_path):
    _write(tmp_path / "run" / "eval.json", _results())
    _write(tmp_path / "run" / "retrieval.json", {"items": [
        {"question_id": f"q{i:04d}", "context_tokens": 100 + i, "retrieval_hit": i % 3 == 0} for i in range(8)]})
    result = inspect([str(tmp_path / "run")], recipe_dir=tmp_path)
    assert _role(result, "retrieval.json") == "side" and _role(result, "eval.json") == "verdicts"
    assert result.recipe.count("  - files:") == 2 and "join:" in result.recipe
    (tmp_path / "draft.yaml").write_text(result.recipe)
    df = md.read_verdicts(recipe=tmp_path / "draft.yaml")
    assert list(pd.unique(df["system"])) == ["eval"]            # two files, one system
    assert df["evidence_tokens"].tolist() == [100.0 + i for i in range(8)]
    assert df["sufficient"].tolist() == [float(i % 3 == 0) for i in range(8)]


def test_a_summary_file_is_not_read_as_verdicts(tmp_path):
    _write(tmp_path / "run" / "eval.json", _results())
    _write(tmp_path / "run" / "summary.json", {"overall_accuracy": 0.625, "n": 8,
                                               "by_type": {"a": {"accuracy": 0.5, "n": 4},
                                                           "b": {"accuracy": 0.75, "n": 4}}})
    result = inspect([str(tmp_path / "run")])
    assert _role(result, "summary.json") == "summary"
    assert "summary.json" not in result.recipe and "summary.json (summary)" in result.text
    assert "check published numbers against it" in result.text and result.complete


def test_four_files_with_the_same_queries_in_different_orders(tmp_path):
    # 1,200 records (more than inspect samples), each file in its own order: the same query set
    for k, judge in enumerate(("gpt-4o", "claude", "llama", "qwen")):
        _write(tmp_path / "run" / f"eval_{judge}.json", _results(1200, seed=k, shuffle=True))
    result = inspect([str(tmp_path / "run")])
    assert "different queries" not in result.text
    assert "all 4 verdict files hold the same 1200 query ids" in result.text
    assert "judges of one run: claude, gpt-4o, llama, qwen" in result.text and result.complete


def test_two_runs_in_one_folder_are_runs_not_judges(tmp_path):
    _write(tmp_path / "mem" / "run1.json", _results(seed=1))
    _write(tmp_path / "mem" / "run2.json", _results(seed=2))
    result = inspect([str(tmp_path / "mem")], recipe_dir=tmp_path)
    assert "run: run1" in result.recipe and "run: run2" in result.recipe and "judge:" not in result.recipe
    assert "runs of one system: run1, run2" in result.text
    (tmp_path / "draft.yaml").write_text(result.recipe)
    df = md.read_verdicts(recipe=tmp_path / "draft.yaml")
    assert set(df["system"]) == {"mem"} and sorted(df["run"].unique()) == ["run1", "run2"]
    assert md.score(df, options=dict(n_resamples=0))["runs"].iloc[0] == 2


def test_files_that_could_be_judges_or_runs_are_undecided(tmp_path):
    _write(tmp_path / "mem" / "alpha.json", _results(seed=1))
    _write(tmp_path / "mem" / "beta.json", _results(seed=2))
    result = inspect([str(tmp_path / "mem")])
    assert not result.complete and "judges of one run (judge: NAME) or runs of one system" in result.text
    assert "every choice had one candidate" not in result.text


def test_a_detected_conversation_field_stays_active(tmp_path):
    rows = [{"question_id": f"q{i}", "conversation_id": f"c{i // 3}", "correct": i % 2 == 0} for i in range(9)]
    _write(tmp_path / "run" / "eval.json", {"results": rows})
    result = inspect([str(tmp_path / "run" / "eval.json")], recipe_dir=tmp_path)
    assert "\n      cluster: conversation_id" in result.recipe and "# cluster" not in result.recipe
    (tmp_path / "draft.yaml").write_text(result.recipe)
    assert md.read_verdicts(recipe=tmp_path / "draft.yaml")["cluster"].nunique() == 3


def test_a_run_manifest_does_not_abort_the_folder(tmp_path):
    _write(tmp_path / "run" / "eval.json", _results())
    _write(tmp_path / "run" / "config.json", {"model": "gpt-4o-mini", "seed": 3, "temperature": 0})
    result = inspect([str(tmp_path / "run")])
    assert _role(result, "config.json") == "manifest" and "config.json (manifest)" in result.text
    assert "config.json" not in result.recipe and result.complete
    (tmp_path / "run" / "broken.json").write_text("{not json")
    _write(tmp_path / "run" / "names.json", ["run-a", "run-b"])
    result = inspect([str(tmp_path / "run")])
    assert _role(result, "broken.json") == "manifest" and _role(result, "names.json") == "manifest"
    assert "eval.json" in result.recipe and "broken.json: manifest or other file (not read:" in result.text


def test_never_says_one_candidate_when_it_chose(tmp_path):
    rows = [{"question_id": f"q{i}", "question_type": "ab"[i % 2], "task_kind": "xyz"[i % 3],
             "correct": i % 2 == 0} for i in range(9)]
    _write(tmp_path / "run" / "eval.json", {"results": rows})
    result = inspect([str(tmp_path / "run" / "eval.json")])
    assert "every choice had one candidate" not in result.text
    assert "chosen by rule among several candidates" in result.text and "category is" in result.text


def test_graded_fields_and_word_labels(tmp_path):
    labels = ["correct", "partial", "wrong", "", "correct", "wrong"]
    rows = [{"question_id": f"q{i}", "judge_label": label,
             "judge_score": {"correct": 1, "partial": 0.5, "wrong": 0, "": 0}[label]} for i, label in enumerate(labels)]
    _write(tmp_path / "run" / "eval.json", {"results": rows})
    result = inspect([str(tmp_path / "run" / "eval.json")])
    assert set(result.candidates("verdict")) == {"judge_label", "judge_score"}     # the graded 0/0.5/1 field too
    assert not result.complete                                      # which one: asked, not guessed
    assert "judge_label is empty in 1 of the 6 records examined (a judge failure" in result.text
    df = md.read_verdicts(tmp_path / "run" / "eval.json", records="results",
                          fields={"query_id": "question_id", "score": "judge_label"})
    # correct 1, partial 0.5, wrong 0; the empty label is a missing verdict, not a wrong answer
    assert df["score"].tolist()[:3] == [1.0, 0.5, 0.0] and pd.isna(df["score"].iloc[3])
    assert md.validate(df)["missing_verdicts"].iloc[0] == 1
    assert md.score(md.prepare(df, verdict_missing="exclude"), options=dict(n_resamples=0))["overall"].iloc[0] == pytest.approx(100 * 2.5 / 5)


def test_a_chosen_record_list_is_reported(tmp_path):
    data = _results(6)
    data["errors"] = [{"question_id": "q9", "message": "timeout"}]
    _write(tmp_path / "run" / "eval.json", data)
    result = inspect([str(tmp_path / "run" / "eval.json")])
    assert "records is results (also possible: errors)" in result.text
    assert "every choice had one candidate" not in result.text


def test_backboard_one_file_per_conversation_drafts_a_recipe_that_reads(real_data, tmp_path):
    """Review of issue 22: the draft listed the ten per-conversation files as ten ``format:`` sources
    and said every choice had one candidate, but reading it failed ("system ... is also given by"):
    a recipe read dropped the layout's parts-of-one-run marker. Published: 1386/1540 = 90.00."""
    folder = real_data / "Backboard-io__Backboard-Locomo-Benchmark"
    if not folder.is_dir():
        pytest.skip(f"{folder} is absent")
    result = inspect([str(folder)], recipe_dir=tmp_path)
    assert "every choice had one candidate" in result.text
    (tmp_path / "draft.yaml").write_text(result.recipe)
    df = md.read_verdicts(recipe=tmp_path / "draft.yaml", allow_outside=True)
    assert df["system"].nunique() == 1 and df["query_id"].nunique() == 1540
    assert int(df["score"].sum()) == 1386


def test_a_companion_file_a_reader_recognises_but_holds_no_verdicts_is_not_drafted(real_data, tmp_path):
    """Review of issue 22: Zep's responses file (answers and durations, no grade) was drafted as a
    verdict source beside the grades, and the draft failed to read. Published: 1157/1540 = 75.13."""
    folder = real_data / "getzep__zep-papers"
    if not folder.is_dir():
        pytest.skip(f"{folder} is absent")
    result = inspect([str(folder)], recipe_dir=tmp_path)
    assert "zep_locomo_responses.json" not in result.recipe
    assert "zep_locomo_responses.json (no verdicts)" in result.text
    (tmp_path / "draft.yaml").write_text(result.recipe)
    df = md.read_verdicts(recipe=tmp_path / "draft.yaml", allow_outside=True)
    assert df["query_id"].nunique() == 1540 and int(df["score"].sum()) == 1157


def test_a_dataset_given_for_records_with_ids_says_it_is_not_used(tmp_path):
    # review of issue 22: inspect --dataset on a release whose records have their own ids ignored the option silently
    dataset = _write(tmp_path / "data.json", [{"sample_id": "conv-26", "qa": [{"question": "Q?", "answer": "a",
                                                                               "category": 4}]}])
    _write(tmp_path / "run" / "eval.json", _results())
    result = inspect([str(tmp_path / "run")], dataset=dataset)
    assert "dataset:" not in result.recipe and "--dataset not used: the verdict records have their own query ids and no question" \
        in result.text
    assert "--dataset not used" not in inspect([str(tmp_path / "run")]).text


def test_a_verdict_field_named_judge_is_not_offered_as_the_judge(tmp_path):
    # review of issue 22: with 40 records the draft said "# judge: judge_label" (a verdict field, not a judge name)
    labels = ["correct", "partial", "wrong", ""] * 10
    _write(tmp_path / "run" / "eval.json", {"results": [{"question_id": f"q{i}", "judge_label": label}
                                                         for i, label in enumerate(labels)]})
    result = inspect([str(tmp_path / "run" / "eval.json")])
    assert result.candidates("verdict") == ["judge_label"] and result.candidates("judge") == []
    assert "judge:" not in result.recipe and "      score: judge_label" in result.recipe


def test_a_dataset_given_for_records_with_ids_and_question_text_drafts_the_canonical_ids(tmp_path):
    # review of issue 22: locomo-audit's records carry their own ids (locomo_0_qa0) and question texts; with
    # --dataset the draft kept the own ids, which pair with no other LoCoMo release
    qa = [{"question": "Where?", "answer": "Paris", "category": 4}, {"question": "Who?", "answer": "Ann", "category": 1},
          {"question": "Why?", "adversarial_answer": "no", "category": 5}]
    dataset = _write(tmp_path / "data.json", [{"sample_id": "conv-26", "qa": qa}, {"sample_id": "conv-30", "qa": qa[:1]}])
    records = [{"question_id": f"locomo_0_qa{k}", "question": q["question"], "ok": k % 2 == 0} for k, q in enumerate(qa)]
    _write(tmp_path / "sys" / "eval.json", {"detailed_results": {
        "locomo_exp_user_0": records[::-1], "locomo_exp_user_1": [{"question_id": "locomo_1_qa0", "question": "Where?",
                                                                   "ok": False}]}})
    result = inspect([str(tmp_path / "sys")], recipe_dir=tmp_path, dataset=dataset)
    assert "# query_id: question_id" in result.recipe and "      question: question" in result.recipe
    (tmp_path / "draft.yaml").write_text(result.recipe)
    df = md.read_verdicts(recipe=tmp_path / "draft.yaml").set_index("query_id")
    assert df["score"].to_dict() == {"locomo:conv-26:adv000": 1.0, "locomo:conv-26:001": 0.0, "locomo:conv-26:000": 1.0,
                                     "locomo:conv-30:000": 0.0}
    assert "# query_id" not in inspect([str(tmp_path / "sys")], recipe_dir=tmp_path).recipe   # no dataset: own ids


def test_a_draft_written_outside_the_release_says_how_to_read_it(tmp_path):
    # a recipe reads only files in its own folder (issue 21); a draft written elsewhere says so
    release = tmp_path / "release"
    release.mkdir()
    pd.DataFrame({"query_id": ["a", "b"], "score": [1, 0]}).to_csv(release / "mem0.csv", index=False)
    outside = inspect([release], recipe_dir=tmp_path / "drafts")
    assert "outside its own folder (../release/mem0.csv" in outside.text and "--allow-outside" in outside.text
    inside = inspect([release], recipe_dir=release)
    assert "outside its own folder" not in inside.text
