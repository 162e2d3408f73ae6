"""Layout detection and file-level errors of md.read_verdicts, one file at a time.

That every real file is claimed by exactly one layout's sniffer is in tests/test_internals_io.py."""

from __future__ import annotations

import json

import pytest

import memdiag as md
from memdiag.errors import VerdictError


def test_known_formats_are_listed_once_with_generic_ones_last_and_each_describes_itself_on_one_line(tmp_path):
    path = tmp_path / "runs.csv"
    path.write_text("system,query_id,score\na,q1,1\n")
    with pytest.raises(VerdictError, match=r"unknown format 'zep'") as error:
        md.read_verdicts(path, format="zep")
    names = str(error.value).split("one of: ")[1].rstrip(".").split(", ")
    assert names == ["mem0-locomo", "zep-locomo", "backboard-locomo", "trpc-locomo", "persona-longmemeval",
                     "longmemeval-autoeval", "wide", "long", "mapped"]
    # a layout the file does not fit names itself with its one-line description
    for name in names[:-2]:
        with pytest.raises(VerdictError, match=rf"is not a {name} file \([^\n)]") as error:
            md.read_verdicts(path, format=name)
        assert "\n" not in str(error.value)


def test_unknown_layout_says_what_the_file_is_and_points_to_inspect_and_fields(tmp_path):
    path = tmp_path / "mystery.json"
    path.write_text(json.dumps([{"id": 1, "ok": True}]))
    with pytest.raises(VerdictError) as error:
        md.read_verdicts(path)
    message = str(error.value)
    assert message.startswith(f"{path}: unknown layout (a list of 1 records, the first with id, ok)")
    assert f"memdiag inspect {path}" in message
    assert "--field query_id=<column> --field score=<column>" in message and "fields=" in message
    # not 1,500 characters of layout descriptions (issue 11); the path is counted once, whatever its length
    assert len(message.replace(str(path), "FILE")) < 300


@pytest.mark.parametrize("name, text", [("a.json", ""), ("a.csv", "\n"), ("a.jsonl", "  \n"), ("a.json", "[]"),
                                        ("a.csv", "system,query_id,score\n")])
def test_empty_file_is_an_error(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(VerdictError, match=r"the file is empty"):
        md.read_verdicts(path)


def test_unparsable_json_names_line_and_column(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{\n  "0": [\n    {"question": "q",, }\n  ]\n}\n')
    with pytest.raises(VerdictError, match=r"bad\.json: not valid JSON at line 3, column 22"):
        md.read_verdicts(path)


def test_broken_json_line_names_the_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"system": "a", "query_id": "q1", "score": 1}\n{"system": "a", "query_id": \n')
    with pytest.raises(VerdictError, match=r"bad\.jsonl, line 2: not valid JSON at column \d+"):
        md.read_verdicts(path)


def test_json_lines_in_a_json_file_are_read(tmp_path):
    path = tmp_path / "lines.json"
    path.write_text('{"system": "a", "query_id": "q1", "score": 1}\n{"system": "a", "query_id": "q2", "score": 0}\n')
    assert md.read_verdicts(path)["score"].tolist() == [1.0, 0.0]


def test_named_format_must_exist_and_fit_the_file(real_data, tmp_path):
    grades = real_data / "getzep__zep-papers" / "zep_locomo_grades.json"
    assert md.read_verdicts(grades, format="zep-locomo").attrs["format"] == "zep-locomo"
    with pytest.raises(VerdictError, match=r"unknown format 'zep'.*zep-locomo"):
        md.read_verdicts(grades, format="zep")
    with pytest.raises(VerdictError, match=r"is not a trpc-locomo file"):
        md.read_verdicts(grades, format="trpc-locomo")


def test_missing_file_is_an_error(tmp_path):
    with pytest.raises(VerdictError, match="no such file"):
        md.read_verdicts(tmp_path / "nope.csv")


def test_jsonl_line_with_two_values_is_an_error(tmp_path):
    path = tmp_path / "two.jsonl"
    path.write_text('{"system": "a", "query_id": "q1", "score": 1}, {"system": "a", "query_id": "q2", "score": 0}\n')
    with pytest.raises(VerdictError, match="line 1: not valid JSON at column 46 \\(Extra data\\)"):
        md.read_verdicts(path)


def test_ragged_csv_row_is_an_error_naming_the_line(tmp_path):
    path = tmp_path / "ragged.csv"
    path.write_text("system,query_id,score\na,q1,1\na,q2,0,extra\n")
    with pytest.raises(VerdictError, match=r"ragged\.csv: (cannot be read as a long table: |is not a readable CSV ).*line 3"):
        md.read_verdicts(path)
