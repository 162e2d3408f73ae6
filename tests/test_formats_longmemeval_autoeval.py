"""LongMemEval evaluate_qa.py output layout (``<hyp>.eval-results-<judge>`` JSONL)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import memdiag as md
from memdiag.errors import VerdictError


def _write(path, records) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_labels_become_scores_and_system_comes_from_the_file_name(tmp_path):
    path = tmp_path / "mem0_run.jsonl.eval-results-gpt-4o"
    _write(path, [
        {"question_id": "gpt4_2655b836", "hypothesis": "Paris", "autoeval_label": {"model": "gpt-4o-2024-08-06", "label": True}},
        {"question_id": "e47becba", "hypothesis": "no", "autoeval_label": {"model": "gpt-4o-2024-08-06", "label": False}},
        {"question_id": "gpt4_2655b836_abs", "hypothesis": "?", "autoeval_label": {"model": "gpt-4o-2024-08-06", "label": None}},
    ])
    df = md.read_verdicts(path)
    assert df.attrs["format"] == "longmemeval-autoeval"
    assert df["system"].eq("mem0_run").all() and df["benchmark"].eq("longmemeval").all()
    assert df["query_id"].tolist() == ["gpt4_2655b836", "e47becba", "gpt4_2655b836_abs"]
    assert df["score"].iloc[:2].tolist() == [1.0, 0.0] and np.isnan(df["score"].iloc[2])
    assert df["source_record"].tolist() == [1, 2, 3] and "category" not in df


def test_question_type_is_kept_as_category_when_present(tmp_path):
    path = tmp_path / "run.eval-results-gpt-4o-mini.jsonl"
    _write(path, [{"question_id": "q1", "question_type": "multi-session", "hypothesis": "x",
                   "autoeval_label": {"model": "gpt-4o-mini-2024-07-18", "label": True}}])
    df = md.read_verdicts(path, system="zep")
    assert df["category"].tolist() == ["multi-session"] and df["system"].tolist() == ["zep"]


def test_a_null_question_id_is_an_error_naming_the_line_not_the_query_none(tmp_path):
    # pandas < 3 turns None into the text "None" in astype("str"): the line became query "None"
    path = tmp_path / "run.eval-results-gpt-4o.jsonl"
    _write(path, [
        {"question_id": "q1", "hypothesis": "a", "autoeval_label": {"model": "gpt-4o", "label": True}},
        {"question_id": None, "hypothesis": "b", "autoeval_label": {"model": "gpt-4o", "label": False}},
    ])
    with pytest.raises(VerdictError, match=rf"^{re.escape(str(path))}, record 2, field 'question_id': no query_id"):
        md.read_verdicts(path)
