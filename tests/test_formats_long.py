"""Canonical long layout: CSV / JSONL / JSON / Parquet, verdict coercion, speed."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow
import pyarrow.csv
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import memdiag as md
from memdiag.errors import VerdictError

FRAME = pd.DataFrame({
    "system": ["raw-rag", "raw-rag", "mem0", "mem0"],
    "query_id": ["q1", "NA", "q1", "NA"],
    "score": [1.0, 0.0, np.nan, 1.0],
    "category": ["temporal", "single-hop", "temporal", "single-hop"],
    "latency_s": [1.5, 2.0, np.nan, 0.5],
    "judge_note": ["a", "b", "c", "d"],
})


def _write(frame: pd.DataFrame, path) -> None:
    if path.suffix == ".csv":
        frame.to_csv(path, index=False)
    elif path.suffix == ".parquet":
        frame.to_parquet(path)
    else:
        records = json.loads(frame.to_json(orient="records"))
        text = json.dumps(records) if path.suffix == ".json" else "".join(json.dumps(r) + "\n" for r in records)
        path.write_text(text)


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".json", ".parquet"])
def test_every_container_reads_to_the_same_canonical_frame(tmp_path, suffix):
    path = tmp_path / f"verdicts{suffix}"
    _write(FRAME, path)
    df = md.read_verdicts(path)
    assert df.attrs["format"] == "long"
    assert list(df.columns) == ["system", "query_id", "score", "repeat", "category", "latency_s",
                                "judge_note", "source_file", "source_record"]
    assert df["query_id"].tolist() == ["q1", "NA", "q1", "NA"]  # "NA" is an id, not a missing value
    np.testing.assert_array_equal(df["score"], FRAME["score"])
    assert df["repeat"].eq(0).all() and df["source_record"].tolist() == [1, 2, 3, 4]
    assert df["source_file"].eq(str(path)).all()


def test_verdict_words_and_booleans_become_zero_one_and_blank_is_nan(tmp_path):
    path = tmp_path / "v.csv"
    path.write_text("system,query_id,score,sufficient\n"
                    "a,q1,CORRECT,yes\na,q2,wrong,No\na,q3,True,false\na,q4,,\na,q5,0.25,1\n")
    df = md.read_verdicts(path)
    np.testing.assert_array_equal(df["score"], [1, 0, 1, np.nan, 0.25])
    np.testing.assert_array_equal(df["sufficient"], [1, 0, 0, np.nan, 1])


def test_score_text_that_is_no_verdict_is_missing_and_counted_in_a_note(tmp_path):
    path = tmp_path / "v.csv"
    path.write_text("system,query_id,score\na,q1,1\na,q2,CORRECT?\na,q3,Yes.\n")
    df = md.read_verdicts(path)
    np.testing.assert_array_equal(df["score"], [1, np.nan, 1])
    assert df.attrs["read_notes"] == [
        f"{path}, field 'score': 1 verdict text could not be read as a verdict ('CORRECT?' ×1; first "
        "at record 2); kept as missing verdicts"]


def test_bad_repeat_and_missing_query_id_are_errors(tmp_path):
    path = tmp_path / "v.csv"
    path.write_text("system,query_id,score,repeat\na,q1,1,0.5\n")
    with pytest.raises(VerdictError, match=r"record 1, field 'repeat'"):
        md.read_verdicts(path)
    path.write_text("system,query_id,score\na,,1\n")
    with pytest.raises(VerdictError, match=r"record 1, field 'query_id': no query_id"):
        md.read_verdicts(path)


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".json", ".parquet"])
def test_missing_ids_and_attributes_stay_missing_in_every_format(tmp_path, suffix):
    # pandas < 3 turns None/NaN into the text "None"/"nan" in astype("str"): a missing query id
    # became query "None" (JSON) or "nan" (CSV), and a missing category the category "nan"
    path = tmp_path / f"v{suffix}"
    frame = pd.DataFrame({"system": ["a", "a"], "query_id": ["q1", "q2"], "score": [1.0, 0.0],
                          "category": ["temporal", None]})
    _write(frame, path)
    df = md.read_verdicts(path)
    assert df["category"].iloc[0] == "temporal" and pd.isna(df["category"].iloc[1])
    _write(frame.assign(query_id=["q1", None]), path)
    with pytest.raises(VerdictError, match=r"record 2, field 'query_id': no query_id"):
        md.read_verdicts(path)


def test_system_argument_renames_one_system_and_refuses_to_merge_several(tmp_path):
    path = tmp_path / "v.csv"
    _write(FRAME[FRAME["system"] == "mem0"], path)
    assert md.read_verdicts(path, system="mem0-v2")["system"].eq("mem0-v2").all()
    _write(FRAME, path)
    with pytest.raises(VerdictError, match="several systems"):
        md.read_verdicts(path, system="x")


def test_one_million_csv_rows_read_whole(tmp_path):
    """Every row and score of a million-row file (its speed is measured in benchmarks/bench_load.py)."""
    n = 1_000_000
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({
        "system": np.repeat(["raw-rag", "mem0", "zep", "a-mem"], n // 4),
        "query_id": np.tile(np.char.add("q", np.arange(n // 4).astype(str)), 4),
        "score": rng.integers(0, 2, n).astype(float),
        "repeat": 0,
        "category": rng.choice(["temporal", "multi-hop"], n),
        "latency_s": rng.random(n).round(3),
    })
    path = tmp_path / "big.csv"
    pyarrow.csv.write_csv(pyarrow.Table.from_pandas(frame, preserve_index=False), path)  # fast writer
    df = md.read_verdicts(path)
    assert len(df) == n and df["score"].sum() == frame["score"].sum()
    assert df.groupby("system")["latency_s"].sum().round(3).equals(frame.groupby("system")["latency_s"].sum().round(3))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(scores=st.lists(st.one_of(st.none(), st.sampled_from([0.0, 1.0]), st.floats(0, 1)), min_size=1, max_size=30))
def test_csv_round_trip_preserves_scores_and_order(tmp_path, scores):
    frame = pd.DataFrame({"system": "s", "query_id": [f"q{i}" for i in range(len(scores))],
                          "score": pd.array(scores, dtype=float)})
    path = tmp_path / "rt.csv"
    frame.to_csv(path, index=False)
    df = md.read_verdicts(path)
    np.testing.assert_allclose(df["score"], frame["score"], rtol=1e-15)
    assert df["query_id"].tolist() == frame["query_id"].tolist()
