"""Each note said once (issue 19, item 2): the CLI groups the notes of its tables, warnings
first, with --quiet (warnings only) and --verbose (every note under every table); the 19-run
real LoCoMo report has no repeated note line and is at most half its 0.2.0 length."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import memdiag as md
from memdiag.cli import main


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(map(str, argv)))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory) -> Path:
    """Two systems on 6 clusters of 10 queries; the reference answers cluster c0 all wrong (a
    warning of the flows), and 2 verdicts are missing (a caution)."""
    rng = np.random.default_rng(5)
    rows = []
    for system in ("ref", "mem"):
        for k in range(60):
            score = float(rng.random() < 0.6) if not (system == "ref" and k < 10) else 0.0
            rows.append({"system": system, "query_id": f"q{k:02d}", "cluster": f"c{k // 10}",
                         "score": np.nan if (system == "mem" and k in (20, 31)) else score})
    path = tmp_path_factory.mktemp("notes") / "verdicts.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def note_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.split(":")[0] in ("note", "caution", "warning")]


def test_flows_prints_each_note_once_warnings_first(verdicts):
    code, out, _ = run("flows", verdicts, "--reference", "ref", "--resamples", 200)
    assert code == 0
    lines = note_lines(out)
    assert len(lines) == len(set(lines))
    kinds = [line.split(":")[0] for line in lines]
    assert kinds == sorted(kinds, key=["warning", "caution", "note"].index)
    assert kinds[0] == "warning" and "the reference ref answers whole clusters all wrong" in lines[0]
    assert "caution" in kinds   # the missing verdicts scored 0


def test_quiet_prints_only_warnings_and_verbose_every_note(verdicts):
    _, default, _ = run("flows", verdicts, "--reference", "ref", "--resamples", 200)
    _, quiet, _ = run("flows", verdicts, "--reference", "ref", "--resamples", 200, "--quiet")
    _, verbose, _ = run("flows", verdicts, "--reference", "ref", "--resamples", 200, "--verbose")
    assert [line.split(":")[0] for line in note_lines(quiet)] == ["warning"]
    assert len(note_lines(default)) > 1
    # --verbose: every note as the table carries it, in its order ("note: " lines)
    table = md.flows(md.read_verdicts(verdicts), reference="ref", options=dict(n_resamples=200))
    assert [line.removeprefix("note: ") for line in verbose.splitlines() if line.startswith("note: ")] == \
        [str(n) for n in table.attrs["notes"]]
    # the table itself is the same in all three
    assert default.splitlines()[:4] == quiet.splitlines()[:4] == verbose.splitlines()[:4]
    code, _, err = run("flows", verdicts, "--reference", "ref", "--quiet", "--verbose")
    assert code == 2 and "not allowed with" in err


def test_notes_several_tables_share_are_printed_once_with_their_count(verdicts):
    code, out, _ = run("compare", verdicts, "--resamples", 200, "--omnibus")
    assert code == 0
    lines = note_lines(out)
    assert len(lines) == len(set(lines))
    shared = [line for line in lines if line.endswith("(applies to 2 tables)")]
    assert any("design cluster" in line for line in shared)


def test_markdown_notes_are_list_items_with_their_severity(verdicts):
    _, out, _ = run("flows", verdicts, "--reference", "ref", "--resamples", 200, "--format", "md")
    items = [line for line in out.splitlines() if line.startswith("- ")]
    assert items[0].startswith("- warning: ") and len(items) == len(set(items))


def test_validate_prints_reading_notes_once(tmp_path):
    folder = tmp_path / "runs"
    folder.mkdir()
    for system in ("a", "b"):
        pd.DataFrame({"system": system, "query_id": ["q1", "q2"], "score": [1, 0]}).to_csv(
            folder / f"{system}.csv", index=False)
    (folder / "README.txt").write_text("not verdicts")
    code, out, err = run("validate", folder)
    assert code == 0
    assert err.count("1 file skipped") + out.count("1 file skipped") == 1


def test_the_cli_json_keeps_each_notes_record(verdicts):
    import json

    _, out, _ = run("flows", verdicts, "--reference", "ref", "--resamples", 200, "--format", "json")
    provenance = json.loads(out)["provenance"]
    records = provenance["note_records"]
    assert len(records) == len(provenance["notes"])
    assert {"code": "reference-fails-clusters", "severity": "warning", "concerns": ["ref"]} in records


def test_note_records_survive_a_copy_and_a_pickle(verdicts):
    import copy
    import pickle

    frame = md.flows(md.read_verdicts(verdicts), reference="ref", options=dict(n_resamples=200))
    expected = [(n.code, n.severity, n.concerns) for n in frame.attrs["notes"]]
    assert ("reference-fails-clusters", "warning", ("ref",)) in expected
    for other in (frame.copy(), copy.deepcopy(frame), pickle.loads(pickle.dumps(frame)), frame[["system"]]):
        assert [(n.code, n.severity, n.concerns) for n in other.attrs["notes"]] == expected


@pytest.mark.slow
def test_the_real_19_run_locomo_report_says_each_note_once(real_data, tmp_path):
    """The 15 trpc-agent-go runs, Zep, the two Memobase runs and Backboard: 0.2.0 wrote 1,314 lines
    and repeated the category-naming note under each of 17 tables."""
    out = tmp_path / "report"
    code, _, err = run("report", real_data / "trpc-group__trpc-agent-go",
                       real_data / "getzep__zep-papers" / "zep_locomo_grades.json",
                       real_data / "memodb-io__memobase", real_data / "Backboard-io__Backboard-Locomo-Benchmark",
                       "--reference", "rag_observation_pgvector", "--scheme", "locomo", "--out", out)
    assert code == 0, err
    lines = (out / "report.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 1314 // 2
    notes = [line for line in lines if line.startswith("- ")]
    assert len(notes) == len(set(notes))
    warnings = lines[lines.index("Warnings:") + 2]
    assert warnings.startswith("- the reference rag\\_observation\\_pgvector answers whole clusters all wrong")
    # --rerun gives the same bytes (the first reading's notes are recorded, not the re-read files')
    again = tmp_path / "again"
    code, _, err = run("report", "--rerun", out / "analysis.json", "--out", again)
    assert code == 0, err
    for name in ("report.md", "analysis.json", "tables/validation.md"):
        assert (again / name).read_bytes() == (out / name).read_bytes(), name


def test_a_rerun_says_the_first_readings_notes_with_their_codes(verdicts, tmp_path):
    """The notes of reading a folder (a file skipped) are recorded in analysis.json as records and
    said again by --rerun with their code and severity (0.4 before this fix re-read them as bare
    text: code 'note', severity 'info', and report.md moved them from the cautions)."""
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "verdicts.csv").write_bytes(verdicts.read_bytes())
    (folder / "README.md").write_text("not verdicts\n", encoding="utf-8")
    out, again = tmp_path / "out", tmp_path / "again"
    code, _, err = run("report", folder, "--reference", "ref", "--resamples", "200", "--out", out)
    assert code == 0, err
    recorded = json.loads((out / "analysis.json").read_text(encoding="utf-8"))["inputs"]["verdicts"]["read_notes"]
    assert [(n["code"], n["severity"]) for n in recorded] == [("files-skipped", "info")]
    code, _, err = run("report", "--rerun", out / "analysis.json", "--out", again)
    assert code == 0, err
    for name in ("report.md", "analysis.json"):
        assert (again / name).read_bytes() == (out / name).read_bytes(), name
    damaged = json.loads((out / "analysis.json").read_text(encoding="utf-8"))
    damaged["inputs"]["verdicts"]["read_notes"] = [{"text": "x", "code": "c", "severity": "loud", "concerns": []}]
    (out / "damaged.json").write_text(json.dumps(damaged), encoding="utf-8")  # beside, for its relative paths
    code, _, err = run("report", "--rerun", out / "damaged.json", "--out", tmp_path / "third")
    assert code == 2 and "field 'inputs.verdicts.read_notes'" in err and "severity" in err, err
