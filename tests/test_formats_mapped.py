"""Mapped reader: any per-query records through an explicit field mapping."""

from __future__ import annotations

import json

import numpy as np
import pytest

import memdiag as md
from memdiag.errors import VerdictError

RECORDS = [
    {"question_id": "q1", "question_type": "temporal", "evaluation": {"is_correct": True}, "model": "m"},
    {"question_id": "q2", "question_type": "multi-session", "evaluation": {"is_correct": False}, "model": "m"},
    {"question_id": "q3", "question_type": "temporal", "evaluation": {"is_correct": "CORRECT"}, "model": "m"},
    {"question_id": "q4", "question_type": "temporal", "evaluation": {"is_correct": "WRONG"}, "model": "m"},
    {"question_id": "q5", "question_type": "temporal", "evaluation": {}, "model": "m"},
]
FIELDS = {"query_id": "question_id", "score": "evaluation.is_correct", "category": "question_type"}


def test_fields_map_nested_booleans_and_verdict_words(tmp_path):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(RECORDS))
    df = md.read_verdicts(path, fields=FIELDS)
    assert df.attrs["format"] == "mapped"
    assert df["system"].eq("run").all() and df["query_id"].tolist() == ["q1", "q2", "q3", "q4", "q5"]
    np.testing.assert_array_equal(df["score"], [1, 0, 1, 0, np.nan])  # q5 has no verdict: kept as NaN
    assert df["category"].tolist()[:2] == ["temporal", "multi-session"]
    assert list(df.columns) == ["system", "query_id", "score", "repeat", "category", "source_file", "source_record"]


def test_fields_on_jsonl_and_csv_with_a_system_column(tmp_path):
    jsonl = tmp_path / "run.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    assert md.read_verdicts(jsonl, fields={**FIELDS, "system": "model"})["system"].eq("m").all()
    csv = tmp_path / "run.csv"
    csv.write_text("id,ok,model\nq1,yes,m\nq2,no,m\n")
    df = md.read_verdicts(csv, fields={"query_id": "id", "score": "ok", "system": "model"}, system="renamed")
    assert df["score"].tolist() == [1.0, 0.0] and df["system"].eq("renamed").all()


def test_field_absent_from_every_record_lists_what_the_file_has(tmp_path):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(RECORDS))
    with pytest.raises(VerdictError, match=r"field 'evaluation\.verdict'.*no record has this field.*question_id"):
        md.read_verdicts(path, fields={"query_id": "question_id", "score": "evaluation.verdict"})


def test_mapping_needs_query_id_and_score_and_no_other_named_format(tmp_path):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(RECORDS))
    with pytest.raises(VerdictError, match="at least query_id and score"):
        md.read_verdicts(path, fields={"query_id": "question_id"})
    with pytest.raises(VerdictError, match="fields= selects the mapped reader"):
        md.read_verdicts(path, format="long", fields=FIELDS)


def test_unparsable_verdict_text_names_the_source_field_in_a_note(tmp_path):
    path = tmp_path / "run.json"
    path.write_text(json.dumps([{"id": "q1", "v": {"ok": "CORRECT?"}}, {"id": "q2", "v": {"ok": "No."}}]))
    df = md.read_verdicts(path, fields={"query_id": "id", "score": "v.ok"})
    assert df["score"].isna().tolist() == [True, False] and df["score"].iloc[1] == 0
    assert "field 'v.ok': 1 verdict text could not be read as a verdict ('CORRECT?' ×1; first at record 1)" \
        in df.attrs["read_notes"][0]


def test_a_null_mapped_question_id_is_an_error_and_a_null_category_stays_missing(tmp_path):
    # pandas < 3 turns None into the text "None" in astype("str"): record 2 became query "None"
    path = tmp_path / "run.jsonl"
    records = [dict(RECORDS[0], question_type=None), dict(RECORDS[1], question_id=None)]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    with pytest.raises(VerdictError, match=r"run\.jsonl, record 2, field 'question_id': no query_id"):
        md.read_verdicts(path, fields=FIELDS)
    path.write_text(json.dumps(records[0]) + "\n")
    assert md.read_verdicts(path, fields=FIELDS)["category"].isna().tolist() == [True]
