"""Every file through one strict reader (memdiag.io): the side files — claims, summaries, decision and
ingestion logs, systems tables, lists of query ids and of blocked answers — get the verdict files'
guarantees: compression, binary content and UTF-8 refused naming the file, a key twice, a header
line twice, cells read as written (no type guessing), and the file, row and field in every error."""

from __future__ import annotations

import bz2
import gzip
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import memdiag as md
from memdiag.errors import VerdictError
from memdiag.io.csv_text import flag, numbers, read_csv
from memdiag.io.query_lists import read_blocked_answers, read_id_list
from memdiag.io.strict import read_json, read_json_lines, read_yaml
from memdiag.io.systems_table import read_systems_table

EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "example"


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------------------------
# the CSV text reader
# --------------------------------------------------------------------------------------------
def test_csv_cells_are_text_as_written_and_empty_cells_missing(tmp_path):
    path = write(tmp_path / "t.csv", "id,flag,n,label\n007,no,1.50,NA\n012,,2,\n")
    table = read_csv(path, "table")
    assert table.fillna("<empty>").to_dict("list") == {"id": ["007", "012"], "flag": ["no", "<empty>"],
                                                       "n": ["1.50", "2"], "label": ["NA", "<empty>"]}
    assert (table.dtypes == object).all()


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
def test_csv_line_ends_and_a_trailing_comma_keep_the_columns(tmp_path, ending):
    path = tmp_path / "t.csv"
    path.write_bytes(ending.join(["system,label", "raw-rag,R,", "mem0,M,", ""]).encode())
    assert read_csv(path, "systems table").to_dict("list") == {"system": ["raw-rag", "mem0"], "label": ["R", "M"]}


@pytest.mark.parametrize("text, says", [
    ("a,b\n1,2\na,b\n3,4\n", r"t\.csv, row 2: repeats the header line \(a, b\)"),
    ("a,a\n1,2\n", r"t\.csv, field 'a': this column appears twice in the header of the table \(columns 1 and 2\)"),
    ("a,b\n1,2\n3,4,5\n", r"t\.csv, row 2: the row has more fields than the 2 columns of the header"),
    ('a,b\n"1,2\n', r"t\.csv: the table is not a readable CSV \(line 2"),
    ("\n\n", r"t\.csv: the table is empty"),
])
def test_csv_shapes_that_would_mislead_are_errors_naming_file_and_row(tmp_path, text, says):
    with pytest.raises(VerdictError, match=says):
        read_csv(write(tmp_path / "t.csv", text), "table")


def test_csv_fields_longer_than_the_csv_modules_limit_are_read_and_the_limit_restored(tmp_path):
    import csv

    before = csv.field_size_limit()
    text = "x" * 300_000  # longer than the csv module's default limit of 131,072 characters
    table = read_csv(write(tmp_path / "log.csv", f"cluster,new_text\nc1,{text}\n"), "decision log")
    assert table["new_text"].tolist() == [text] and csv.field_size_limit() == before


def test_a_csv_of_blank_cells_only_is_empty(tmp_path):
    with pytest.raises(VerdictError, match=r"t\.csv: the table is empty"):
        read_csv(write(tmp_path / "t.csv", " , ,\n\n"), "table")


def test_csv_rows_are_named_with_their_line_when_blank_lines_come_before(tmp_path):
    with pytest.raises(VerdictError, match=r"row 2 \(line 5\): repeats the header line"):
        read_csv(write(tmp_path / "t.csv", "a,b\n1,2\n\n\na,b\n"), "table")


def test_a_verdict_csv_that_repeats_its_header_line_is_refused(tmp_path):
    # two verdict files concatenated: 0.3.0 read the second header as system 'system', query 'query_id'
    path = write(tmp_path / "v.csv", "system,query_id,score\nrag,q1,1\nsystem,query_id,score\nmem,q1,0\n")
    with pytest.raises(VerdictError, match=r"v\.csv, record 2: repeats the header line"):
        md.read_verdicts(path)


def test_flag_spellings():
    assert [flag(v) for v in ("true", "False", "YES", "no", "1", "0", "t", "F", "y", "N")] == [True, False] * 5
    assert [flag(v) for v in ("", " ", "maybe", "2", "1.0", None, float("nan"), 2)] == [None] * 8
    assert [flag(v) for v in (True, False, 1, 0, 1.0, np.int64(0))] == [True, False, True, False, True, False]


def test_numbers_are_read_exactly_as_pandas_reads_them():
    cells = ["0.1", "1e-7", "123456.789", "2.5", "-0", "1.7976931348623157e308"]
    # the same values as pandas' own CSV parser (exact: pandas 3 parses floats correctly rounded)
    expected = pd.read_csv(pd.io.common.StringIO("x\n" + "\n".join(cells)))["x"]
    got = numbers(pd.Series(cells, dtype=object), "t.csv", "x")
    assert got.dtype == np.float64 and got.tolist() == expected.tolist()
    assert numbers(pd.Series(["1000", "2000"], dtype=object), "t.csv", "x").dtype == np.int64


# --------------------------------------------------------------------------------------------
# JSON, JSON lines, YAML
# --------------------------------------------------------------------------------------------
def test_json_and_yaml_keys_written_twice_are_errors_naming_file_line_and_key(tmp_path):
    with pytest.raises(VerdictError, match=r"d\.json, field 'a': the key 'a' appears twice"):
        read_json(write(tmp_path / "d.json", '{"a": 1, "a": 2}'), "file")
    with pytest.raises(VerdictError, match=r"l\.jsonl, line 3, field 'a': the key 'a' appears twice"):
        read_json_lines(write(tmp_path / "l.jsonl", '{"a": 1}\n\n{"a": 1, "a": 2}\n'), "log")
    with pytest.raises(VerdictError, match=r"y\.yaml: not valid YAML at line 2, column 1: duplicate key 'a'.*Fix "
                                           r"the recipe\."):
        read_yaml(write(tmp_path / "y.yaml", "a: 1\na: 2\n"), "recipe")


def test_json_lines_keep_their_line_numbers_and_break_at_lf_only(tmp_path):
    path = write(tmp_path / "l.jsonl", '{"a": "x\u2028y"}\n\n{"a": 2}\n')
    assert read_json_lines(path, "log") == [(1, {"a": "x\u2028y"}), (3, {"a": 2})]


def test_a_yaml_alias_bomb_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMDIAG_MAX_YAML_NODES", "100")
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b]\n"
    with pytest.raises(VerdictError, match=r"s\.yaml: not valid YAML at line .*more than 100 nodes"):
        read_yaml(write(tmp_path / "s.yaml", bomb), "summaries file")


# --------------------------------------------------------------------------------------------
# every kind of side file gets the guarantees
# --------------------------------------------------------------------------------------------
CLAIMS_CSV = "id,system_a,system_b,direction\nc1,mem0,raw-rag,greater\n"
LOG_CSV = "cluster,decision,persisted,old_text,new_text\nc1,ADD,yes,,likes tea\n"
INGESTION_CSV = "system,item,duration_s\nrag,1,1.5\nrag,2,2.0\n"
SYSTEMS_CSV = "system,family,store_tokens\nraw-rag,rag,600000\nmem0,memory,117130\n"
READERS = {
    "claims": (lambda p: md.read_claims(p), CLAIMS_CSV),
    "decision log": (lambda p: md.read_write_log(p), LOG_CSV),
    "ingestion log": (lambda p: md.read_ingestion_log(p), INGESTION_CSV),
    "systems table": (read_systems_table, SYSTEMS_CSV),
    "blocked answers": (lambda p: read_blocked_answers(p, ["mem0", "raw-rag"]), "query_id,system\nq1,mem0\n"),
    "gold errors": (lambda p: md.read_gold_errors(p), "query_id,corrupting\nq1,yes\n"),
}


@pytest.mark.parametrize("kind", sorted(READERS))
@pytest.mark.parametrize("codec", ["gz", "bz2"])
def test_every_side_file_may_be_compressed(tmp_path, kind, codec):
    reader, text = READERS[kind]
    plain = write(tmp_path / "plain.csv", text)
    packed = tmp_path / f"packed.csv.{codec}"
    packed.write_bytes((gzip.compress(text.encode(), mtime=0) if codec == "gz" else bz2.compress(text.encode())))
    one, other = reader(plain), reader(packed)
    if isinstance(one, pd.DataFrame):
        columns = [c for c in one.columns if c != "source_file"]
        pd.testing.assert_frame_equal(one[columns], other[columns])
    else:
        assert one == other


@pytest.mark.parametrize("kind", sorted(READERS))
@pytest.mark.parametrize("content, says", [
    (b"\x89PNG\r\n\x1a\n" + bytes(40), "is a PNG image, not a"),
    (b"PK\x03\x04" + bytes(40), "is a zip archive"),
    (b"id,name\nq1,caf\xe9\n", r"not UTF-8 text \(byte 14, line 2"),
    (b"", "is empty"),
])
def test_every_side_file_refuses_binary_non_utf8_and_empty_content_naming_it(tmp_path, kind, content, says):
    reader, _ = READERS[kind]
    path = tmp_path / "side.csv"
    path.write_bytes(content)
    with pytest.raises(VerdictError, match=says) as error:
        reader(path)
    assert str(error.value).startswith(str(path))


@pytest.mark.parametrize("kind", sorted(READERS))
def test_every_side_file_refuses_a_repeated_header_line(tmp_path, kind):
    reader, text = READERS[kind]
    header = text.split("\n", 1)[0]
    path = write(tmp_path / "side.csv", text + header + "\n")
    with pytest.raises(VerdictError, match=r"side\.csv, row \d+: repeats the header line"):
        reader(path)


def test_claims_json_with_a_key_twice_is_refused(tmp_path):
    path = write(tmp_path / "c.json", '[{"id": "c1", "system_a": "a", "system_a": "b", "threshold": 50, '
                                      '"direction": "greater"}]')
    with pytest.raises(VerdictError, match=r"c\.json, field 'system_a': the key 'system_a' appears twice"):
        md.read_claims(path)


def test_summaries_with_a_key_twice_name_the_line(tmp_path):
    path = write(tmp_path / "s.yaml", "checks:\n  - id: a\n    check: mcnemar\n    check: floor\n")
    with pytest.raises(VerdictError, match=r"s\.yaml: not valid YAML at line 4, column 5: duplicate key 'check'"):
        md.read_summaries(path)


def test_the_summary_check_names_are_the_checks_audit_summaries_runs():
    from memdiag.audit.summaries import CHECKS
    from memdiag.io.summaries import CHECK_NAMES

    assert tuple(CHECKS) == CHECK_NAMES


def test_a_duration_that_is_not_a_number_names_file_row_and_field(tmp_path):
    path = write(tmp_path / "ingestion.csv", "system,duration_s\nrag,1.5\nrag,fast\n")
    with pytest.raises(VerdictError, match=r"ingestion\.csv, row 2, field 'duration_s': 'fast' is not a "
                                           r"number"):
        md.read_ingestion_log(path)


def test_the_example_ingestion_log_reads_the_same_numbers_as_pandas():
    log = md.read_ingestion_log(EXAMPLE / "ingestion_log.csv")
    plain = pd.read_csv(EXAMPLE / "ingestion_log.csv")
    assert log["duration_s"].tolist() == plain["duration_s"].tolist()
    assert log["system"].tolist() == plain["system"].tolist()


def test_a_systems_table_keeps_its_system_names_as_written_and_reads_number_columns(tmp_path):
    path = write(tmp_path / "systems.csv", "system,family,store_tokens,cost\n007,memory,1000,0.25\n7,rag,2000,NA\n")
    table = read_systems_table(path)
    # 0.3.0 inferred the system column as integers: 007 and 7 both became '7'
    assert table["system"].tolist() == ["007", "7"]
    assert table["store_tokens"].dtype == np.int64 and table["store_tokens"].tolist() == [1000, 2000]
    assert table["cost"].dtype == np.float64 and table["cost"].tolist()[0] == 0.25 and np.isnan(table["cost"][1])
    assert table["family"].tolist() == ["memory", "rag"]


def test_the_example_systems_table_reads_as_pandas_reads_it():
    table = read_systems_table(EXAMPLE / "systems.csv")
    plain = pd.read_csv(EXAMPLE / "systems.csv")
    for column in plain.columns:
        assert table[column].tolist() == plain[column].tolist(), column
        assert pd.api.types.is_numeric_dtype(table[column]) == pd.api.types.is_numeric_dtype(plain[column])


def test_a_systems_table_without_system_names_is_refused(tmp_path):
    with pytest.raises(VerdictError, match=r"systems\.csv, field 'system': the systems table needs a 'system'"):
        read_systems_table(write(tmp_path / "systems.csv", "name,cost\na,1\n"))
    with pytest.raises(VerdictError, match=r"systems\.csv, row 2, field 'system': empty"):
        read_systems_table(write(tmp_path / "systems.csv", "system,cost\na,1\n,2\n"))


# --------------------------------------------------------------------------------------------
# the two files the command line reads itself: @FILE id lists and blocked answers
# --------------------------------------------------------------------------------------------
def test_an_id_list_keeps_ids_as_written_and_skips_comments_and_blank_lines(tmp_path):
    path = write(tmp_path / "ids.txt", "# changed inputs\n007\n\n  q12  \n#q13\n")
    assert read_id_list(path) == ["007", "q12"]


@pytest.mark.parametrize("content, says", [
    (b"007\nq12\n007\n", r"ids\.txt, line 3: query id '007' is listed twice \(also line 1\)"),
    (b"# nothing\n\n", r"ids\.txt: the list of query ids holds no query id"),
    (b"q1\ncaf\xe9\n", r"ids\.txt: not UTF-8 text \(byte 6, line 2"),
    (b"\x89PNG\r\n\x1a\n" + bytes(40), r"ids\.txt: is a PNG image, not a list of query ids"),
])
def test_a_bad_id_list_is_one_error_naming_it(tmp_path, content, says):
    path = tmp_path / "ids.txt"
    path.write_bytes(content)
    with pytest.raises(VerdictError, match=says):
        read_id_list(path)
    with pytest.raises(VerdictError, match="no such list of query ids"):
        read_id_list(tmp_path / "absent.txt")


def test_blocked_answers_without_a_system_column_are_query_ids(tmp_path):
    path = write(tmp_path / "blocked.csv", "query_id,reason\n007,filter\nq12,filter\n")
    assert read_blocked_answers(path, ["mem", "rag"]) == ["007", "q12"]


def test_blocked_answers_with_a_system_column_give_each_systems_ids(tmp_path):
    # an empty system cell blocks the query for every system
    path = write(tmp_path / "blocked.csv", " query_id , system \nq1,mem\nq2,\n\nq3,rag\n")
    assert read_blocked_answers(path, ["mem", "rag"]) == {"mem": ["q1", "q2"], "rag": ["q2", "q3"]}


@pytest.mark.parametrize("text, says", [
    ("query_id,system\nq1,mem\n,rag\n", r"blocked\.csv, row 2, field 'query_id': empty"),
    ("query_id,system\nq1,zep\n", r"blocked\.csv, row 1, field 'system': 'zep' is not a system of the "
                                  r"verdicts \(mem, rag\)"),
    ("id,system\nq1,mem\n", r"blocked\.csv, field 'query_id': no 'query_id' column \(header: id, system\)"),
    ("query_id,system\n", r"blocked\.csv: lists no blocked answer"),
    ("query_id,query_id \nq1,q2\n", r"blocked\.csv, field 'query_id': this column appears twice"),
])
def test_bad_blocked_answers_name_file_row_and_field(tmp_path, text, says):
    with pytest.raises(VerdictError, match=says):
        read_blocked_answers(write(tmp_path / "blocked.csv", text), ["mem", "rag"])


def test_side_file_readers_read_json_lines_strictly(tmp_path):
    path = write(tmp_path / "log.jsonl", json.dumps({"cluster": "c1", "decision": "ADD", "persisted": True,
                                                     "old_text": None, "new_text": "x"}) + "\n[1, 2]\n")
    with pytest.raises(VerdictError, match=r"log\.jsonl, line 2: expected a JSON object"):
        md.read_write_log(path)
