"""Reading any file safely (issues 11 and 12): compressed files, binary and non-UTF-8 content,
folders with other files or symlink loops, repeated headers, and judge verdict text."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import zstandard

import memdiag as md
from memdiag.cli import main
from memdiag.errors import VerdictError

CSV = "system,query_id,score\nmem0,q1,1\nmem0,q2,0\nmem0,q3,Yes.\n"
COMPRESS = {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress,
            ".zst": lambda data: zstandard.ZstdCompressor().compress(data)}


@pytest.mark.parametrize("suffix", sorted(COMPRESS))
@pytest.mark.parametrize("inner", [".csv", ".json", ".jsonl"])
def test_compressed_files_read_like_the_plain_file(tmp_path, suffix, inner):
    plain = tmp_path / f"plain{inner}"
    if inner == ".csv":
        plain.write_text(CSV)
    else:
        records = pd.read_csv(pd.io.common.StringIO(CSV)).to_dict("records")
        plain.write_text(json.dumps(records) if inner == ".json" else
                         "\n".join(json.dumps(r) for r in records) + "\n")
    packed = tmp_path / f"packed{inner}{suffix}"
    packed.write_bytes(COMPRESS[suffix](plain.read_bytes()))
    expected = md.read_verdicts(plain).drop(columns=["source_file"])
    got = md.read_verdicts(packed).drop(columns=["source_file"])
    pd.testing.assert_frame_equal(got, expected)
    assert got["score"].tolist() == [1.0, 0.0, 1.0]


def test_compressed_content_under_a_plain_name_is_found_by_its_magic_bytes(tmp_path):
    path = tmp_path / "v.csv"
    path.write_bytes(gzip.compress(CSV.encode()))
    assert md.read_verdicts(path)["score"].tolist() == [1.0, 0.0, 1.0]


def test_a_folder_reads_compressed_files_and_notes_the_files_it_skips(tmp_path):
    (tmp_path / "a.csv.gz").write_bytes(gzip.compress(CSV.encode()))
    (tmp_path / "b.tsv").write_text(CSV.replace(",", "\t").replace("mem0", "zep"))
    (tmp_path / "notes.txt").write_text("not verdicts")
    (tmp_path / "sheet.xlsx").write_bytes(b"PK\x03\x04")
    df = md.read_verdicts(tmp_path)
    assert sorted(df["system"].unique()) == ["mem0", "zep"]
    assert df.attrs["read_notes"] == [f"{tmp_path}: 2 files skipped (not .json/.jsonl/.csv/.tsv/.parquet, "
                                      "compressed or not): notes.txt, sheet.xlsx"]


@pytest.mark.parametrize("content, message", [
    (b"\x89PNG\r\n\x1a\n" + bytes(64), "is a PNG image, not a text file of verdicts"),
    (b"PK\x03\x04" + bytes(64), "is a zip archive"),
    ("system,query_id,score\nmem0,q1,1\n".encode() + "caf\xe9,q2,0\n".encode("latin-1"),
     r"v\.csv: not UTF-8 text \(byte 35, line 3: b'\\xe9,q2'\)\. Save it as UTF-8\."),
    (gzip.compress(b"\x00\x01\x02binary" * 10, mtime=0), r"is binary data \(NUL bytes\)"),
])
def test_binary_or_non_utf8_content_is_one_clear_error_naming_the_file(tmp_path, content, message):
    path = tmp_path / "v.csv"
    path.write_bytes(content)
    with pytest.raises(VerdictError, match=message) as error:
        md.read_verdicts(path)
    assert str(error.value).startswith(str(path)) and "unknown layout" not in str(error.value)


def test_non_utf8_bytes_deep_in_a_json_file_are_named(tmp_path):
    path = tmp_path / "v.json"
    path.write_bytes(json.dumps([{"system": "a", "query_id": f"q{i}", "score": 1} for i in range(2000)]).encode()
                     + b"\xff")
    with pytest.raises(VerdictError, match=r"v\.json: not UTF-8 text"):
        md.read_verdicts(path)


def test_a_corrupt_compressed_file_is_an_error(tmp_path):
    path = tmp_path / "v.csv.gz"
    path.write_bytes(gzip.compress(CSV.encode())[:20])
    with pytest.raises(VerdictError, match=r"v\.csv\.gz: is (not a readable|a cut) gzip file"):
        md.read_verdicts(path)


def test_a_repeated_column_header_is_an_error_naming_file_and_column(tmp_path):
    path = tmp_path / "v.csv"
    path.write_text("system,query_id,score,score\nmem0,q1,1,0\n")
    with pytest.raises(VerdictError, match=r"v\.csv, field 'score': this column appears twice in the header "
                                           r"\(columns 3 and 4\)"):
        md.read_verdicts(path)


def test_json_nested_too_deep_is_an_error(tmp_path):
    path = tmp_path / "v.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(VerdictError, match="nested too deeply"):
        md.read_verdicts(path)


def test_folder_and_glob_expansion_never_follows_a_symlink_loop(tmp_path):
    (tmp_path / "runs" / "a").mkdir(parents=True)
    (tmp_path / "runs" / "a" / "v.csv").write_text(CSV)
    os.symlink(tmp_path / "runs", tmp_path / "runs" / "a" / "loop")
    found: dict = {}

    def read() -> None:
        found["folder"] = md.read_verdicts(tmp_path / "runs")
        found["glob"] = md.read_verdicts(str(tmp_path / "runs" / "**" / "*.csv"))

    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    worker.join(timeout=20)
    assert not worker.is_alive(), "expanding a folder with a symlink loop did not finish"
    assert len(found["folder"]) == 3 and len(found["glob"]) == 3
    assert "symlink loop" in found["folder"].attrs["read_notes"][0]


def test_cli_system_path_matching_no_file_exits_2(tmp_path, capsys):
    path = tmp_path / "v.csv"
    path.write_text(CSV)
    assert main(["validate", str(path), "--system", "other.csv=x"]) == 2
    assert "--system 'other.csv': matches no input file" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------
# verdict text
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, value", [
    ("yes", 1.0), ("Yes.", 1.0), ("YES!", 1.0), ("no", 0.0), ("No.", 0.0), ("correct", 1.0), ("CORRECT", 1.0),
    ("Correct.", 1.0), ("incorrect", 0.0), ("INCORRECT.", 0.0), ("WRONG", 0.0), ("wrong!", 0.0),
    ("true", 1.0), ("False.", 0.0), ("1", 1.0), ("0", 0.0), ("1.0", 1.0), (" yes \n", 1.0), ('"Yes"', 1.0),
    ("**No**", 0.0), ("`correct`", 1.0), ("Yes, because the dates match.", 1.0),
    ("No. The answer names another city.", 0.0), ("CORRECT - same meaning", 1.0), ("Yes: it matches", 1.0),
    ("no\nthe model refused", 0.0), (True, 1.0), (False, 0.0), (1, 1.0), (0.0, 0.0),
])
def test_judge_outputs_are_read_as_verdicts(tmp_path, text, value):
    assert read_one(tmp_path, text) == (value, [])


@pytest.mark.parametrize("text", ["maybe", "CORRECT?", "yes and no", "The answer is correct", "Yes because",
                                  "partially correct", "N", "unsure.", "correctly", "[1]"])
def test_text_that_is_no_verdict_is_none_never_a_guess(tmp_path, text):
    score, notes = read_one(tmp_path, text)
    assert np.isnan(score) and len(notes) == 1 and "1 verdict text could not be read as a verdict" in notes[0]


@pytest.mark.parametrize("text", ["", "  ", None, "null", "None", "N/A", "nan"])
def test_empty_cells_are_missing_not_unparsable(tmp_path, text):
    score, notes = read_one(tmp_path, text)
    assert np.isnan(score) and notes == []


def read_one(folder: Path, value: object) -> tuple[float, list[str]]:
    """The score md.read_verdicts gives one JSON-lines record whose verdict is ``value``, and the
    reading notes."""
    path = folder / "one.jsonl"
    path.write_text(json.dumps({"system": "a", "query_id": "q1", "score": value}) + "\n")
    df = md.read_verdicts(path)
    return df["score"].iloc[0], list(df.attrs["read_notes"])


def test_unparsable_verdicts_are_counted_missing_and_shown_by_validate(tmp_path, capsys):
    path = tmp_path / "v.csv"
    path.write_text("system,query_id,score\nmem0,q1,Yes.\nmem0,q2,maybe\nmem0,q3,maybe\nmem0,q4,No\n")
    assert main(["validate", str(path)]) == 0
    out, err = capsys.readouterr()
    # said once: in validate's own notes, not again on stderr (issue 19)
    assert "2 verdict texts could not be read as a verdict ('maybe' ×2; first at record 2)" in out
    assert "could not be read" not in err
    assert md.read_verdicts(path)["score"].isna().sum() == 2


def test_read_verdicts_given_a_dataframe_says_what_to_do():
    frame = pd.DataFrame({"system": ["a"], "query_id": ["q1"], "score": [1]})
    with pytest.raises(VerdictError, match="a frame is already read: pass it to md.check"):
        md.read_verdicts(frame)
