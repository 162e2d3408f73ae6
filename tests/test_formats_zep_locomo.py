"""Zep LoCoMo grades layout: reproduces Zep's 1157/1540, attaches latencies, rejects the responses file."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

import memdiag as md
from memdiag.errors import VerdictError

ZEP = "getzep__zep-papers"


def percent(x: float) -> str:
    return f"{100 * x:.2f}"


def test_zep_accuracy_and_per_integer_category_match_source(real_data):
    df = md.read_verdicts(real_data / ZEP / "zep_locomo_grades.json")
    assert len(df) == 1540 and df["score"].sum() == 1157
    assert percent(df["score"].mean()) == "75.13"
    per_integer = df.groupby(df["source_category"].astype(int))["score"].mean()
    assert [percent(v) for v in per_integer] == ["74.11", "66.04", "67.71", "79.79"]
    assert df["system"].eq("zep_locomo_grades").all()


def test_latency_is_attached_from_the_responses_file_beside_it(real_data):
    df = md.read_verdicts(real_data / ZEP / "zep_locomo_grades.json")
    responses = json.loads((real_data / ZEP / "zep_locomo_responses.json").read_text())
    first = responses["locomo_experiment_user_0"][0]["duration_ms"]
    last = responses["locomo_experiment_user_9"][-1]["duration_ms"]
    assert df["latency_s"].notna().all()
    assert df["latency_s"].iloc[0] == pytest.approx(first / 1000)
    assert df["latency_s"].iloc[-1] == pytest.approx(last / 1000)


def test_grades_alone_have_no_latency(real_data, tmp_path):
    shutil.copy(real_data / ZEP / "zep_locomo_grades.json", tmp_path / "zep_locomo_grades.json")
    df = md.read_verdicts(tmp_path / "zep_locomo_grades.json")
    assert "latency_s" not in df and len(df) == 1540


def test_responses_file_is_an_error_pointing_to_the_grades_file(real_data):
    with pytest.raises(VerdictError, match=r"zep_locomo_responses\.json.*no 'grade'.*zep_locomo_grades\.json"):
        md.read_verdicts(real_data / ZEP / "zep_locomo_responses.json")


def test_companion_that_lists_other_questions_is_an_error(tmp_path):
    grades = {"locomo_experiment_user_0": [{"question": "a", "grade": True, "category": 1}]}
    responses = {"locomo_experiment_user_0": [{"question": "b", "duration_ms": 10}]}
    (tmp_path / "x_grades.json").write_text(json.dumps(grades))
    (tmp_path / "x_responses.json").write_text(json.dumps(responses))
    with pytest.raises(VerdictError, match="same questions"):
        md.read_verdicts(tmp_path / "x_grades.json")


def test_null_grade_becomes_nan_and_row_is_kept(tmp_path):
    grades = {"locomo_experiment_user_3": [{"question": "a", "grade": None, "category": 4},
                                           {"question": "b", "grade": False, "category": 4}]}
    (tmp_path / "g.json").write_text(json.dumps(grades))
    df = md.read_verdicts(tmp_path / "g.json")
    assert len(df) == 2 and np.isnan(df["score"].iloc[0]) and df["score"].iloc[1] == 0.0
    assert df["query_id"].tolist() == ["locomo:conv-42:000", "locomo:conv-42:001"]
    assert df["source_record"].iloc[1] == "locomo_experiment_user_3, item 2"
