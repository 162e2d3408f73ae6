"""Wide score table layout: one column per system."""

from __future__ import annotations

import numpy as np
import pytest

import memdiag as md
from memdiag.errors import VerdictError


def test_wide_table_melts_to_one_row_per_system_and_query(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("query_id,category,raw-rag,mem0\nq1,temporal,1,0\nq2,single-hop,0,\nq3,temporal,CORRECT,true\n")
    df = md.read_verdicts(path)
    assert df.attrs["format"] == "wide"
    assert df["system"].tolist() == ["raw-rag"] * 3 + ["mem0"] * 3
    assert df["query_id"].tolist() == ["q1", "q2", "q3"] * 2
    np.testing.assert_array_equal(df["score"], [1, 0, 1, 0, np.nan, 1])
    assert df["category"].tolist()[:3] == ["temporal", "single-hop", "temporal"]
    assert df["source_record"].tolist() == [1, 2, 3] * 2


def test_cell_that_is_no_verdict_is_missing_and_named_with_file_row_and_column(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("query_id,raw-rag,mem0\nq1,1,0\nq2,1,maybe\n")
    df = md.read_verdicts(path)
    assert df.loc[df["system"] == "mem0", "score"].isna().tolist() == [False, True]
    assert df.attrs["read_notes"] == [f"{path}, field 'mem0': 1 verdict text could not be read as a "
                                      "verdict ('maybe' ×1; first at record 2); kept as missing verdicts"]


def test_system_argument_renames_a_single_score_column_only(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("query_id,repeat,score_a\nq1,0,1\nq1,1,0\n")
    df = md.read_verdicts(path, system="mem0")
    assert df["system"].eq("mem0").all() and df["repeat"].tolist() == [0, 1]
    path.write_text("query_id,a,b\nq1,1,0\n")
    with pytest.raises(VerdictError, match="several systems"):
        md.read_verdicts(path, system="mem0")
