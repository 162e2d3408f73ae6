"""The gold-error file of ``judge-error --gold-errors`` through the strict reader (SPEC §9.4): the
``corrupting`` flag read as written (0.3.0 counted ``no`` and ``false`` as corrupted), ids kept as
text (0.3.0 read ``007`` as 7), and every broken file one VerdictError naming the file (and row)."""

from __future__ import annotations

import gzip
import json

import pandas as pd
import pytest
from cli_run import run

import memdiag as md
from memdiag.errors import VerdictError

#: 40 questions: ids 001..040, category "a" for 001..020 and "b" for 021..040.
IDS = [f"{i:03d}" for i in range(1, 41)]


def questions() -> pd.DataFrame:
    return pd.DataFrame({"query_id": IDS, "category": ["a"] * 20 + ["b"] * 20})


def verdicts() -> pd.DataFrame:
    rows = [{"system": system, "query_id": q, "score": float((k + i) % 3 != 0), "category": "a" if i < 20 else "b"}
            for k, system in enumerate(("mem", "rag")) for i, q in enumerate(IDS)]
    return pd.DataFrame(rows)


def write(tmp_path, text: str, name: str = "errors.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------------------------
# corrupting: the usual spellings, and nothing guessed
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("yes, no", [("true", "false"), ("yes", "no"), ("1", "0"), ("TRUE", "False"),
                                     ("Yes", "NO"), (" y ", "n")])
def test_corrupting_reads_the_usual_spellings_of_true_and_false(tmp_path, yes, no):
    path = write(tmp_path, f"query_id,corrupting\n007,{yes}\n012,{no}\n")
    errors = md.read_gold_errors(path)
    assert errors["corrupting"].tolist() == [True, False] and errors["corrupting"].dtype == bool


def test_one_corrupting_question_of_forty_gives_the_ceiling_97_50(tmp_path):
    # 40 questions, 1 corrupting: 100 * (40 - 1) / 40 = 97.50 overall; it is in category a (20
    # questions): 100 * 19 / 20 = 95.00; category b keeps 100.00
    path = write(tmp_path, "query_id,corrupting\n007,yes\n")
    ceilings = md.gold_ceilings(questions(), md.read_gold_errors(path)).set_index("group")["ceiling"]
    assert ceilings.to_dict() == {"overall": 97.5, "a": 95.0, "b": 100.0}


def test_rows_marked_no_or_false_do_not_lower_the_ceiling(tmp_path):
    # the same one corrupting question, three more listed as not corrupting (no, false, 0): still
    # 97.50, not 0.3.0's 100 * (40 - 4) / 40 = 90.00 (its astype(bool) read every non-empty text as true)
    path = write(tmp_path, "query_id,corrupting,error_type\n007,yes,WRONG_GOLD\n012,no,WRONG_CITATION\n"
                           "025,false,WRONG_CITATION\n033,0,WRONG_CITATION\n")
    errors = md.read_gold_errors(path)
    assert errors["corrupting"].tolist() == [True, False, False, False]
    ceilings = md.gold_ceilings(questions(), errors).set_index("group")["ceiling"]
    assert ceilings["overall"] == 97.5 and ceilings["overall"] != 90.0
    assert ceilings.to_dict() == {"overall": 97.5, "a": 95.0, "b": 100.0}


@pytest.mark.parametrize("cell, says", [("", "empty"), ("maybe", "'maybe' is not true or false"),
                                        ("2", "'2' is not true or false")])
def test_an_empty_or_unknown_corrupting_cell_names_file_row_and_field(tmp_path, cell, says):
    path = write(tmp_path, f"query_id,corrupting\n007,yes\n012,{cell}\n")
    with pytest.raises(VerdictError) as error:
        md.read_gold_errors(path)
    message = str(error.value)
    assert message.startswith(f"{path}, row 2, field 'corrupting': {says}")
    assert "Write true or false (yes/no, 1/0)" in message


def test_without_a_corrupting_column_every_listed_question_corrupts(tmp_path):
    path = write(tmp_path, "query_id\n007\n012\n")
    # 2 of 40: 100 * 38 / 40 = 95.00
    errors = md.read_gold_errors(path)
    assert errors["corrupting"].tolist() == [True, True]
    assert md.gold_ceilings(questions(), errors, by=None)["ceiling"].tolist() == [95.0]


# --------------------------------------------------------------------------------------------
# ids as written
# --------------------------------------------------------------------------------------------
def test_zero_padded_ids_stay_as_written_and_match_the_verdicts(tmp_path):
    path = write(tmp_path, "query_id,corrupting\n007,true\n")
    errors = md.read_gold_errors(path)
    assert errors["query_id"].tolist() == ["007"] and errors["audit_id"].tolist() == ["007"]
    ceilings = md.gold_ceilings(md.prepare(verdicts()), errors).set_index("group")
    assert ceilings.loc["overall", "n_corrupted"] == 1 and ceilings.loc["overall", "ceiling"] == 97.5
    assert not any(getattr(n, "code", "") == "gold-errors-outside" for n in ceilings.attrs["notes"])


def test_an_empty_id_or_a_question_listed_twice_names_the_rows(tmp_path):
    with pytest.raises(VerdictError, match=r"errors\.csv, row 2, field 'query_id': empty"):
        md.read_gold_errors(write(tmp_path, "query_id,corrupting\n007,yes\n,no\n"))
    with pytest.raises(VerdictError, match=r"errors\.csv, row 3, field 'query_id': question '007' is "
                                           r"listed twice \(also row 1\)"):
        md.read_gold_errors(write(tmp_path, "query_id,corrupting\n007,yes\n012,no\n007,no\n"))


# --------------------------------------------------------------------------------------------
# broken files: one VerdictError naming the file
# --------------------------------------------------------------------------------------------
def test_a_repeated_json_key_is_an_error_naming_the_file_and_key(tmp_path):
    path = write(tmp_path, '[{"question_id": "q1", "error_type": "A", "question_id": "q2"}]', "errors.json")
    with pytest.raises(VerdictError, match=r"errors\.json, field 'question_id': the key 'question_id' appears "
                                           r"twice"):
        md.read_gold_errors(path)


def test_a_repeated_csv_header_row_is_an_error_naming_the_file_and_row(tmp_path):
    # two lists concatenated: the second header would be read as a question called 'query_id'
    path = write(tmp_path, "query_id,corrupting\n007,yes\nquery_id,corrupting\n012,no\n")
    with pytest.raises(VerdictError, match=r"errors\.csv, row 2: repeats the header line"):
        md.read_gold_errors(path)


def test_a_column_named_twice_is_an_error_naming_the_file(tmp_path):
    path = write(tmp_path, "query_id,corrupting,corrupting\n007,yes,no\n")
    with pytest.raises(VerdictError, match=r"errors\.csv, field 'corrupting': this column appears twice"):
        md.read_gold_errors(path)


@pytest.mark.parametrize("name, content, says", [
    ("errors.csv", b"query_id,corrupting\n007,yes\ncaf\xe9,no\n", r"not UTF-8 text \(byte 31, line 3"),
    ("errors.json", b'[{"question_id": "q\xff"}]', "not UTF-8 text"),
    ("errors.json", b'[{"question_id": "q1",', "not valid JSON at line 1"),
    ("errors.csv", b'query_id,corrupting\n"007,yes\n', "not a readable CSV"),
    ("errors.csv", b"\x89PNG\r\n\x1a\n" + bytes(32), "is a PNG image, not a gold-error file"),
    ("errors.csv", b"", "the gold-error file is empty"),
    ("errors.json", b'{"question_id": "q1"}', "expected a list of error records"),
    ("errors.csv", b"question,corrupting\nq1,yes\n", "needs a 'query_id' column"),
])
def test_an_unreadable_file_is_one_error_naming_it(tmp_path, name, content, says):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(VerdictError, match=says) as error:
        md.read_gold_errors(path)
    assert str(error.value).startswith(str(path))


def test_a_compressed_list_is_read_like_a_plain_one(tmp_path):
    path = tmp_path / "errors.csv.gz"
    path.write_bytes(gzip.compress(b"query_id,corrupting\n007,yes\n012,no\n", mtime=0))
    assert md.read_gold_errors(path)[["query_id", "corrupting"]].values.tolist() == [["007", True], ["012", False]]


def test_json_error_types_decide_corrupting_as_before(tmp_path):
    path = write(tmp_path, json.dumps([{"question_id": "q1", "error_type": "HALLUCINATION"},
                                       {"question_id": "q2", "error_type": "WRONG_CITATION"},
                                       {"question_id": "q3"}]), "errors.json")
    errors = md.read_gold_errors(path)
    assert errors[["query_id", "error_type", "corrupting"]].values.tolist() == [
        ["q1", "HALLUCINATION", True], ["q2", "WRONG_CITATION", False], ["q3", "listed", True]]


# --------------------------------------------------------------------------------------------
# through the command line
# --------------------------------------------------------------------------------------------
def test_judge_error_gold_errors_gives_the_right_ceiling(tmp_path):
    data = tmp_path / "verdicts.csv"
    verdicts().to_csv(data, index=False)
    errors = write(tmp_path, "query_id,corrupting\n007,yes\n012,no\n025,false\n033,0\n")
    out = tmp_path / "judge.json"
    code, _, err = run("judge-error", data, "--gold-errors", errors, "--reference", "rag", "--resamples", 200,
                       "--format", "json", "-o", out)
    assert code == 0, err
    tables = json.loads(out.read_text(encoding="utf-8"))
    ceilings = next(t for t in tables if t["provenance"]["function"] == "gold_ceilings")
    # 1 corrupting question of 40 (007, category a of 20): 97.50 overall, 95.00 in a, 100.00 in b
    assert {r["group"]: r["ceiling"] for r in ceilings["rows"]} == {"overall": 97.5, "a": 95.0, "b": 100.0}
    assert {r["group"]: r["n_corrupted"] for r in ceilings["rows"]} == {"overall": 1, "a": 1, "b": 0}


@pytest.mark.parametrize("text, says", [
    ("query_id,corrupting\n007,yes\n012,\n", "row 2, field 'corrupting': empty"),
    ("query_id,corrupting\n007,yes\nquery_id,corrupting\n", "row 2: repeats the header line"),
])
def test_judge_error_refuses_a_bad_gold_error_file_in_one_line_naming_it(tmp_path, text, says):
    data = tmp_path / "verdicts.csv"
    verdicts().to_csv(data, index=False)
    errors = write(tmp_path, text)
    code, _, err = run("judge-error", data, "--gold-errors", errors, "--reference", "rag", "--resamples", 200)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"{errors}, {says}" in err


def test_judge_error_gold_errors_with_one_system_gives_ceilings_flags_and_clean_scores(tmp_path):
    # 0.3.0 exited 2 ("comparing needs at least two systems"); only the comparison needs two
    one = verdicts()[lambda d: d["system"] == "mem"]
    data = tmp_path / "verdicts.csv"
    one.to_csv(data, index=False)
    errors = write(tmp_path, "query_id,corrupting\n007,yes\n")
    out = tmp_path / "judge.json"
    code, _, err = run("judge-error", data, "--gold-errors", errors, "--resamples", 200, "--format", "json", "-o", out)
    assert code == 0, err
    tables = json.loads(out.read_text(encoding="utf-8"))
    functions = [t["provenance"]["function"] for t in tables]
    assert functions == ["gold_ceilings", "ceiling_flags", "clean_rescore"]   # no differences table
    ceilings = {r["group"]: r["ceiling"] for r in tables[0]["rows"]}
    assert ceilings == {"overall": 97.5, "a": 95.0, "b": 100.0}
    # mem scores 1 where (0 + i) % 3 != 0: 26 of 40 (i = 0, 3, ..., 39 are 0: 14 zeros); question 007 is
    # i = 6, a zero, so the clean score is 26 of 39
    overall = next(r for r in tables[2]["rows"] if r["group"] == "overall")
    assert overall["full"] == pytest.approx(100 * 26 / 40) and overall["clean"] == pytest.approx(100 * 26 / 39)
    assert overall["n_clean"] == 39
    assert any("one system (mem)" in n for n in tables[2]["provenance"]["notes"])


def test_one_system_clean_scores_equal_its_rows_in_the_two_system_run():
    # the comparison-free part does not depend on the other system: the same numbers as with two systems
    errors = pd.DataFrame({"query_id": ["007", "025"]})
    both = md.clean_rescore(verdicts(), errors, options={"n_resamples": 200, "design": "iid"})
    alone = md.clean_rescore(verdicts()[lambda d: d["system"] == "mem"], errors,
                             options={"n_resamples": 200, "design": "iid"})
    expected = both["scores"][both["scores"]["system"] == "mem"].reset_index(drop=True)
    pd.testing.assert_frame_equal(pd.DataFrame(alone["scores"]), pd.DataFrame(expected))
    assert alone["differences"].empty and "changed" in alone["differences"]
    [note] = [n for n in alone["scores"].attrs["notes"] if getattr(n, "code", "") == "gold-errors-one-system"]
    assert "paired differences" in note
    with pytest.raises(VerdictError, match="reference 'rag' is not in the data"):
        md.clean_rescore(verdicts()[lambda d: d["system"] == "mem"], errors, reference="rag")
