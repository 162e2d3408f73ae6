"""saxenauts/persona LongMemEval layout: several systems per file, grades >= 4 correct, text-derived ids."""

from __future__ import annotations

import json

import numpy as np
import pytest

import memdiag as md
from memdiag.errors import VerdictError

PERSONA = "saxenauts__persona"


def test_correct_counts_match_evals_readme(real_data):
    vector = md.read_verdicts(real_data / PERSONA / "benchmark_mem0_vector_final.json")
    both = md.read_verdicts(real_data / PERSONA / "benchmark_persona_sampled_valid.json")
    zep = md.read_verdicts(real_data / PERSONA / "benchmark_zep_initial_single_session.json")
    assert vector["system"].unique().tolist() == ["Mem0 (Vector)"]
    assert both["system"].unique().tolist() == ["Persona", "Mem0"]
    correct = both.groupby("system", sort=False)["score"].sum().to_dict()
    assert (vector["score"].sum(), correct["Persona"], correct["Mem0"]) == (41, 40, 34)
    assert f"{100 * vector['score'].mean():.1f}" == "51.2"  # README: correct rate 51.2%
    assert f"{100 * both.loc[both['system'] == 'Persona', 'score'].mean():.1f}" == "50.0"
    # README average grades: Mem0 Vector 3.35 = 268/80, Persona 3.33 = 266/80 = 3.325 rounded half up
    # (the Mem0 column: 235/80 = 2.94, not reported)
    grades = both.groupby("system", sort=False)["grade"].sum().to_dict()
    assert (vector["grade"].sum(), grades["Persona"], grades["Mem0"]) == (268, 266, 235)
    assert zep["system"].unique().tolist() == ["Zep (Graphiti)"] and zep["score"].sum() == 22
    assert "grade" not in zep and len(zep) == 40


def test_query_ids_pair_the_two_80_question_files_and_carry_type(real_data):
    vector = md.read_verdicts(real_data / PERSONA / "benchmark_mem0_vector_final.json")
    both = md.read_verdicts(real_data / PERSONA / "benchmark_persona_sampled_valid.json")
    assert vector["query_id"].is_unique and vector["query_id"].str.match(r"^lme:[0-9a-f]{12}$").all()
    for system in ("Persona", "Mem0"):
        assert both.loc[both["system"] == system, "query_id"].tolist() == vector["query_id"].tolist()
    assert vector["category"].value_counts().to_dict() == {"temporal-reasoning": 40, "multi-session": 40}
    assert vector["benchmark"].eq("longmemeval").all()


def test_system_argument_renames_a_single_system_file_only(real_data):
    renamed = md.read_verdicts(real_data / PERSONA / "benchmark_mem0_vector_final.json", system="mem0-vector")
    assert renamed["system"].eq("mem0-vector").all()
    with pytest.raises(VerdictError, match=r"several systems \(Persona, Mem0\)"):
        md.read_verdicts(real_data / PERSONA / "benchmark_persona_sampled_valid.json", system="x")


def test_null_grade_becomes_nan_and_row_is_kept(tmp_path):
    records = [{"question": "Where do I live?", "X_ans": "a", "X_grade": None},
               {"question": "What is my job?", "X_ans": "b", "X_grade": 4}]
    path = tmp_path / "p.json"
    path.write_text(json.dumps(records))
    df = md.read_verdicts(path)
    assert len(df) == 2 and np.isnan(df["score"].iloc[0]) and df["score"].iloc[1] == 1.0
    assert df["category"].tolist() == ["unknown", "unknown"]


def test_two_records_with_the_same_question_are_an_error(tmp_path):
    records = [{"question": "Where do I live?", "X_ans": "a", "X_correct": True},
               {"question": " where do  I live? ", "X_ans": "b", "X_correct": False}]
    path = tmp_path / "p.json"
    path.write_text(json.dumps(records))
    with pytest.raises(VerdictError, match=r"record 2, field 'question'.*same question.*record 1"):
        md.read_verdicts(path)
