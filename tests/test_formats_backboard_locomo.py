"""Backboard LoCoMo layout: reproduces Backboard's 90.00 and its per-category figures."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from locomo_facts import PAPER_CATEGORIES

import memdiag as md
from memdiag.errors import VerdictError

BACKBOARD = "Backboard-io__Backboard-Locomo-Benchmark"
CODE = {name: code for code, name in PAPER_CATEGORIES.items()}


def percent(x: float) -> str:
    return f"{100 * x:.2f}"


@pytest.fixture(scope="module")
def backboard(real_data) -> pd.DataFrame:
    return pd.concat([md.read_verdicts(real_data / BACKBOARD / f"locomo_conversation_{k}.json") for k in range(1, 11)])


def test_backboard_overall_and_category_accuracy_match_readme(backboard):
    assert len(backboard) == 1540 and backboard["score"].sum() == 1386
    assert percent(backboard["score"].mean()) == "90.00"
    per_integer = backboard.groupby(backboard["category"].map(CODE))["score"].mean()
    # README: Single-Hop 89.36 (1), Temporal 91.90 (2), Multi-Hop 75.00 (3), Open Domain 91.20 (4)
    assert {k: percent(v) for k, v in per_integer.items()} == {1: "89.36", 2: "91.90", 3: "75.00", 4: "91.20"}
    labels = backboard.groupby("source_category")["category"].unique().map(list).to_dict()
    assert labels == {"single_hop": ["multi-hop"], "temporal_reasoning": ["temporal"],
                      "multi_hop": ["open-domain"], "open_domain": ["single-hop"]}


def test_file_number_is_conversation_index_plus_one_and_system_is_folder(backboard):
    assert backboard["cluster"].unique().tolist() == [
        "conv-26", "conv-30", "conv-41", "conv-42", "conv-43", "conv-44", "conv-47", "conv-48", "conv-49", "conv-50"]
    assert backboard["system"].eq(BACKBOARD).all()
    assert backboard["source_record"].iloc[0] == "responses item 1"


def _conversation(**evaluation) -> dict:
    response = {"question_type": "single_hop", "category": 1, "question": "q",
                "evaluation": {"is_correct": True, "reasoning": "", "error": None, **evaluation}}
    return {"conversation_id": "conv-30", "total": 1, "by_type": {}, "responses": [response]}


@pytest.mark.parametrize("evaluation", [{"error": "timeout"}, {"is_correct": None}])
def test_failed_evaluation_gives_nan_and_row_is_kept(tmp_path, evaluation):
    path = tmp_path / "locomo_conversation_2.json"
    path.write_text(json.dumps(_conversation(**evaluation)))
    df = md.read_verdicts(path)
    assert len(df) == 1 and np.isnan(df["score"].iloc[0])
    assert df["query_id"].iloc[0] == "locomo:conv-30:000"


def test_file_name_and_conversation_id_that_disagree_are_an_error(tmp_path):
    path = tmp_path / "locomo_conversation_3.json"
    path.write_text(json.dumps(_conversation()))
    with pytest.raises(VerdictError, match=r"conversation_id.*'conv-30'.*conv-41"):
        md.read_verdicts(path)


def test_renamed_file_uses_conversation_id(tmp_path):
    path = tmp_path / "second.json"
    path.write_text(json.dumps(_conversation()))
    assert md.read_verdicts(path)["cluster"].tolist() == ["conv-30"]
