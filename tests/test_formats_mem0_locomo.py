"""mem0-evaluation / Memobase LoCoMo layout: reproduces Memobase's published LoCoMo numbers."""

from __future__ import annotations

import json

import numpy as np
import pytest
from locomo_facts import PAPER_CATEGORIES

import memdiag as md

MEMOBASE = "memodb-io__memobase"

# docs/experiments/locomo-benchmark/README.md; memobase's own labels are
# 1 single_hop, 2 temporal, 3 multi_hop, 4 open_domain (generate_scores.py).
PUBLISHED = {
    "memobase_eval_0710_3000": ("75.78", {1: "70.92", 2: "85.05", 3: "46.88", 4: "77.17"}),
    "memobase_eval_0503_3000": ("70.91", {1: "63.83", 2: "80.37", 3: "52.08", 4: "71.82"}),
}


def percent(x: float) -> str:
    return f"{100 * x:.2f}"


@pytest.mark.parametrize("stem", sorted(PUBLISHED))
def test_memobase_overall_and_category_accuracy_match_readme(real_data, stem):
    df = md.read_verdicts(real_data / MEMOBASE / f"{stem}.json")
    overall, by_integer = PUBLISHED[stem]
    assert len(df) == 1540 and df["query_id"].is_unique
    assert percent(df["score"].mean()) == overall
    per_integer = df.groupby(df["source_category"].astype(int))["score"].mean()
    assert {k: percent(v) for k, v in per_integer.items()} == by_integer
    # the canonical category is the LoCoMo-paper name of the same integer
    assert (df["category"] == df["source_category"].astype(int).map(PAPER_CATEGORIES)).all()


def test_memobase_keeps_f1_bleu_and_defaults_system_to_file_stem(real_data):
    path = real_data / MEMOBASE / "memobase_eval_0710_3000.json"
    df = md.read_verdicts(path)
    raw = json.loads(path.read_text())
    first = raw["0"][0]
    row = df.iloc[0]
    assert row["system"] == "memobase_eval_0710_3000"
    assert row["query_id"] == "locomo:conv-26:000" and row["cluster"] == "conv-26"
    assert (row["f1"], row["bleu"]) == (first["f1_score"], first["bleu_score"])
    assert row["source_record"] == "conversation 0, item 1"
    assert df["benchmark"].eq("locomo").all()
    assert md.read_verdicts(path, system="memobase-v0.0.37")["system"].eq("memobase-v0.0.37").all()


def test_unsorted_keys_are_read_as_conversation_indices(tmp_path):
    item = {"question": "q", "answer": "a", "response": "r", "category": "4",
            "bleu_score": 0.5, "f1_score": 0.5, "llm_score": 1}
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"2": [item], "0": [item, dict(item, category=1)]}))
    df = md.read_verdicts(path)
    assert df["query_id"].tolist() == ["locomo:conv-26:000", "locomo:conv-26:001", "locomo:conv-41:000"]
    assert df["category"].tolist() == ["single-hop", "multi-hop", "single-hop"]


def test_null_llm_score_becomes_nan_and_row_is_kept(tmp_path):
    item = {"question": "q", "category": "2", "bleu_score": 0, "f1_score": 0, "llm_score": None}
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"0": [item, dict(item, llm_score=1)]}))
    df = md.read_verdicts(path)
    assert len(df) == 2
    assert np.isnan(df["score"].iloc[0]) and df["score"].iloc[1] == 1.0
