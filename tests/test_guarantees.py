"""README "What memdiag guarantees": one test per promise, run through the command as a user runs it."""

from __future__ import annotations

import csv
import hashlib
import importlib
import io
import json
import os
import re
import shutil
import signal
import stat
import warnings
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_run import run
from markdown_it import MarkdownIt

import memdiag as md

publish = importlib.import_module("memdiag.reporting.publish")  # where _publish looks up _save_figures
resolve = importlib.import_module("memdiag.panel.schemes._resolve")  # where PATTERN_SECONDS is read

README = Path(__file__).resolve().parents[1] / "README.md"
EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "example"



def one_line(err: str) -> bool:
    return err.count("\n") == 1 and "Traceback" not in err


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Path:
    """Two systems, 40 queries in 8 conversations, one CSV each."""
    folder = tmp_path_factory.mktemp("small") / "verdicts"
    folder.mkdir()
    df = md.simulate(n_queries=40, systems=("raw-rag", "mem0"), n_clusters=8, sufficiency=False, costs=False,
                     seed=4)
    for system, part in df.groupby("system"):
        part.to_csv(folder / f"{system}.csv", index=False)
    return folder


@pytest.fixture(scope="module")
def earlier(small, tmp_path_factory) -> Path:
    """A report memdiag wrote (copied by the tests that replace it)."""
    out = tmp_path_factory.mktemp("earlier") / "report"
    code, _, err = run("report", small, "--reference", "raw-rag", "--out", out, "--resamples", 100)
    assert code == 0, err
    return out


def report_args(small: Path, out: Path, *extra: object) -> list[object]:
    return ["report", small, "--reference", "raw-rag", "--out", out, "--resamples", 100, *extra]


@pytest.fixture
def no_analysis(monkeypatch):
    """Fail loudly if the analysis starts: a refused --out must cost nothing."""
    import memdiag.reporting as report_package

    def analyse(*args, **kwargs):
        raise AssertionError("the analysis ran although --out is refused")

    monkeypatch.setattr(report_package, "_analyse", analyse)


def test_the_readme_lists_every_exit_status_main_returns():
    text = README.read_text(encoding="utf-8")
    section = text.split("## What memdiag guarantees")[1].split("\n## ")[0]
    for status in ("| 0 |", "| 1 |", "| 2 |", "| 3 |", "| 130 / 143 |"):
        assert status in section
    assert "tests/test_guarantees.py" in section and "tests/test_fuzz.py" in section


# --------------------------------------------------------------------------------------------
# exit status and messages
# --------------------------------------------------------------------------------------------
def test_exit_0_prints_the_result_and_nothing_on_stderr(small):
    code, out, err = run("validate", small)
    assert code == 0 and err == "" and "mem0" in out


def test_exit_1_when_a_claim_is_not_supported(small, tmp_path):
    claims = tmp_path / "claims.yaml"
    claims.write_text("- {id: c, system_a: mem0, threshold: 99.5, direction: greater}\n", encoding="utf-8")
    code, out, err = run("audit", claims, "--verdicts", small, "--resamples", 100, "--format", "csv")
    assert code == 1 and err == ""
    assert pd.read_csv(io.StringIO(out))["verdict"].tolist() != ["supported"]


@pytest.mark.parametrize("option, value, says", [
    ("--resamples", "0", "B must be at least 100"), ("--resamples", "-5", "B must be at least 100"),
    ("--resamples", "99", "B must be at least 100"), ("--resamples", "1000000000", "at most 10,000,000"),
    ("--resamples", "1e3", "whole number"), ("--seed", "-1", "[0, 2**64)"),
    ("--seed", str(2**64), "[0, 2**64)"), ("--seed", "1.5", "whole number"),
    ("--ci", "0", "strictly between 0 and 1"), ("--ci", "1", "strictly between 0 and 1"),
    ("--ci", "1.5", "strictly between 0 and 1"), ("--ci", "nan", "finite"), ("--threshold", "-0.1", "[0, 1)"),
    ("--threshold", "1", "[0, 1)"), ("--threshold", "2", "[0, 1)"), ("--threshold", "nan", "finite"),
    ("--threshold", "inf", "finite"),
])
def test_exit_2_with_one_line_for_every_bad_numeric_option(small, option, value, says):
    code, out, err = run("flows", small, "--reference", "raw-rag", option, value)
    assert code == 2 and out == "" and one_line(err)
    assert err.startswith("memdiag flows: error: argument ") and option in err and says in err


@pytest.mark.parametrize("argv, says", [
    (("evidence", "{small}", "--budget", "-5"), "0 or more"),
    (("evidence", "{small}", "--budget", "inf"), "finite"),
    (("audit", "claims.yaml", "--verdicts", "{small}", "--alpha", "2"), "alpha must be strictly between"),
    (("audit", "claims.yaml", "--verdicts", "{small}", "--alpha", "0"), "alpha must be strictly between"),
    (("score", "{small}", "--resamples", "50"), "or 0 for no interval"),
    (("nope",), "invalid choice"),
])
def test_exit_2_with_one_line_for_other_bad_options(small, argv, says):
    code, out, err = run(*[a.format(small=small) for a in argv])
    assert code == 2 and out == "" and one_line(err) and says in err


def test_exit_3_saves_the_traceback_of_an_internal_error(small, monkeypatch):
    def broken(df):
        raise RuntimeError("a bug")

    monkeypatch.setattr(md, "validate", broken)
    code, out, err = run("validate", small)
    assert code == 3 and one_line(err) and "internal error: RuntimeError: a bug" in err
    saved = Path(re.search(r"saved in (\S+) ", err).group(1))
    try:
        assert "Traceback" in saved.read_text(encoding="utf-8") and "a bug" in saved.read_text(encoding="utf-8")
    finally:
        saved.unlink()


def test_exit_130_on_ctrl_c(small, monkeypatch):
    def interrupted(df):
        raise KeyboardInterrupt

    monkeypatch.setattr(md, "validate", interrupted)
    code, _, err = run("validate", small)
    assert code == 130 and one_line(err) and "interrupted (SIGINT)" in err


def test_warnings_are_one_line_each(small, monkeypatch):
    real = md.validate

    def noisy(df):
        warnings.warn("first\nsecond line", RuntimeWarning)
        return real(df)

    monkeypatch.setattr(md, "validate", noisy)
    code, _, err = run("validate", small)
    assert code == 0 and err == "memdiag validate: warning: first second line\n"


def test_python_api_warns_below_100_resamples_and_refuses_bad_values(small):
    df = md.read_verdicts(small)
    # the warning names the caller's own line, not memdiag's code or a generated __init__
    for call in (lambda: md.flows(df, "raw-rag", options=dict(n_resamples=1)), lambda: md.Options(n_resamples=1),
                 lambda: md.compare(df, options=md.Options(n_resamples=1))):
        with pytest.warns(RuntimeWarning, match="n_resamples=1 is too few") as caught:
            call()
        assert [Path(w.filename).name for w in caught] == [Path(__file__).name] * len(caught)
    for bad in (lambda: md.prepare(df, threshold=2.0), lambda: md.prepare(df, threshold=float("nan")),
                lambda: md.flows(df, "raw-rag", options={"confidence_level": 1.5}),
                lambda: md.flows(df, "raw-rag", options={"n_resamples": np.int64(0)})):
        with pytest.raises(md.VerdictError) as caught:
            bad()
        assert "np." not in str(caught.value)


def test_messages_show_numpy_values_as_plain_numbers():
    df = pd.DataFrame({"system": ["a", "a"], "query_id": ["q1", "q1"], "score": [1, 0], "repeat": [0, 0]})
    with pytest.raises(md.VerdictError) as caught:
        md.check(df)
    assert "('a', 'q1', 0)" in str(caught.value) and "np." not in str(caught.value)


def test_read_verdicts_given_a_frame_says_it_wants_paths():
    with pytest.raises(md.VerdictError, match="expected paths .* got a DataFrame"):
        md.read_verdicts(pd.DataFrame({"system": ["a"], "query_id": ["q"], "score": [1]}))


def test_degenerate_data_are_refused_with_a_reason(tmp_path):
    for system, ids in (("a", ["q1", "q2"]), ("b", ["q3", "q4"])):
        pd.DataFrame({"system": system, "query_id": ids, "score": [1, 0]}).to_csv(tmp_path / f"{system}.csv",
                                                                                   index=False)
    code, _, err = run("compare", tmp_path / "a.csv", tmp_path / "b.csv", "--missing", "drop")
    assert code == 2 and one_line(err) and "no query is left to analyse" in err
    one = pd.DataFrame({"system": ["a", "b", "c"], "query_id": "q1", "score": [1, 0, 1]})
    with pytest.raises(md.VerdictError, match="omnibus test needs at least two queries"):
        md.omnibus(one, options=dict(n_resamples=100))


@pytest.mark.parametrize("field, value, says", [
    ("threshold", ".inf", "not a finite number"), ("tolerance", "-5", "negative"),
    ("reported_p", "1.5", "not a p-value"), ("threshold", "yes", "not a number"),
])
def test_claims_with_impossible_numbers_are_refused(tmp_path, field, value, says):
    claims = tmp_path / "claims.yaml"
    other = "" if field == "threshold" else ", system_b: b"
    claims.write_text(f"- {{id: c, system_a: a{other}, direction: greater, {field}: {value}}}\n", encoding="utf-8")
    with pytest.raises(md.VerdictError, match=f"field '{field}': .*{says}"):
        md.read_claims(claims)


@pytest.mark.parametrize("content", [b"", b"\x00\x01\xff\x89PNG", b'cluster,decision\n"a,b\n', b"\xff\xfe text"])
@pytest.mark.parametrize("kind", ["claims", "log", "systems"])
def test_broken_side_files_are_one_line_naming_the_file(small, tmp_path, content, kind):
    path = tmp_path / f"{kind}.csv"
    path.write_bytes(content)
    argv = {"claims": ("audit", path, "--verdicts", small, "--resamples", 100),
            "log": ("writes", path),
            "systems": ("plot", "bubble", small, "--systems-table", path, "-o", tmp_path / "b", "--resamples", 100)}
    code, _, err = run(*argv[kind])
    assert code == 2 and one_line(err) and str(path) in err


def test_non_utf8_scheme_file_is_a_scheme_error_naming_it(small, tmp_path):
    scheme = tmp_path / "s.yaml"
    scheme.write_bytes(b"name: s\n\xff: 1\n")
    code, _, err = run("score", small, "--scheme", scheme)
    assert code == 2 and one_line(err) and f"{scheme}: not UTF-8" in err


def test_all_zero_sufficient_prints_undefined_without_numpy_warnings(tmp_path):
    rng = np.random.default_rng(1)
    files = []
    for system in "abc":
        path = tmp_path / f"{system}.csv"
        pd.DataFrame({"system": system, "query_id": [f"q{i}" for i in range(20)],
                      "score": rng.integers(0, 2, 20), "sufficient": 0}).to_csv(path, index=False)
        files.append(path)
    code, out, err = run("evidence", *files, "--tests", "--resamples", 100)
    assert code == 0 and "nan [nan" not in out and "All-NaN" not in err
    code, _, err = run("plot", "matrix", *files, "--metric", "utilization", "--lower", "utilization",
                       "-o", tmp_path / "m", "--resamples", 100)
    assert code == 0 and "All-NaN" not in err


# --------------------------------------------------------------------------------------------
# nothing you have is overwritten
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("command", ["table", "plot", "simulate"])
def test_no_command_overwrites_an_existing_file_without_force(small, tmp_path, command):
    mine = tmp_path / ("mine.pdf" if command == "plot" else "mine.csv")
    mine.write_text("keep me", encoding="utf-8")
    argv = {"table": ("score", small, "-o", mine),
            "plot": ("plot", "forest", small, "--reference", "raw-rag", "-o", tmp_path / "mine", "--resamples", 100),
            "simulate": ("simulate", "--write", tmp_path)}[command]
    code, _, err = run(*argv)
    assert code == 2 and one_line(err) and "--force" in err
    assert mine.read_text(encoding="utf-8") == "keep me" and sorted(p.name for p in tmp_path.iterdir()) == [mine.name]
    if command != "simulate":
        code, _, err = run(*argv, "--force")
        assert code == 0, err
        assert mine.read_bytes() != b"keep me"


@pytest.mark.parametrize("spelling", ["same", "dotted", "symlink"])
def test_an_input_is_never_an_output_even_with_force(small, tmp_path, spelling):
    data = tmp_path / "data"
    shutil.copytree(small, data)
    target = data / "mem0.csv"
    before = sha256(target)
    output = {"same": target, "dotted": data / ".." / "data" / "mem0.csv", "symlink": tmp_path / "link.csv"}[spelling]
    if spelling == "symlink":
        output.symlink_to(target)
    for inputs in ([data / "mem0.csv", data / "raw-rag.csv"], [data]):
        code, _, err = run("score", *inputs, "-o", output, "--force")
        assert code == 2 and one_line(err) and "is one of the inputs" in err
    assert sha256(target) == before


def test_report_writes_a_manifest_of_every_file_with_its_hash(earlier):
    listed = json.loads((earlier / "manifest.json").read_text(encoding="utf-8"))["files"]
    files = {p.relative_to(earlier).as_posix(): sha256(p) for p in earlier.rglob("*") if p.is_file()}
    files.pop("manifest.json")
    assert listed == files and "analysis.json" in listed and "report.md" in listed


def test_an_earlier_report_is_replaced(small, earlier, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(earlier, out)
    (out / "tables" / "scores.csv").unlink()  # a file the user removed: still a memdiag report
    code, _, err = run(*report_args(small, out, "--seed", 1))
    assert code == 0, err
    assert "seed=1" in (out / "report.md").read_text(encoding="utf-8") and (out / "tables" / "scores.csv").is_file()


@pytest.mark.parametrize("case", ["foreign file", "foreign folder", "changed file", "no manifest", "a link"])
def test_a_folder_with_anything_memdiag_did_not_write_is_refused_before_the_analysis(
        small, earlier, tmp_path, no_analysis, case):
    out = tmp_path / "out"
    shutil.copytree(earlier, out)
    if case == "foreign file":
        (out / "figures" / "thesis.tex").write_text("mine", encoding="utf-8")
        named = "figures/thesis.tex was not written by memdiag"
    elif case == "foreign folder":
        (out / "data").mkdir()
        named = "folder data was not written by memdiag"
    elif case == "changed file":
        (out / "report.md").write_text("my edits", encoding="utf-8")
        named = "report.md changed since memdiag wrote it"
    elif case == "no manifest":
        (out / "manifest.json").unlink()
        named = "holds no manifest.json"
    else:
        (out / "notes").symlink_to(tmp_path)
        named = "notes is a link memdiag did not make"
    before = snapshot(out)
    code, _, err = run(*report_args(small, out))
    assert code == 2 and one_line(err) and named in err and "--force" in err
    assert snapshot(out) == before


def test_force_replaces_a_foreign_folder_but_never_one_that_holds_an_input(small, tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    code, _, err = run(*report_args(small, out, "--force"))
    assert code == 0, err
    assert not (out / "notes.txt").exists() and (out / "manifest.json").is_file()
    holder = tmp_path / "holder"
    shutil.copytree(small, holder / "verdicts")
    before = snapshot(holder)
    code, _, err = run(*report_args(holder / "verdicts", holder, "--force"))
    assert code == 2 and one_line(err) and "holds the input" in err
    assert snapshot(holder) == before


def test_a_read_only_empty_folder_is_refused_and_left_as_it_is(small, tmp_path, no_analysis):
    out = tmp_path / "locked"
    out.mkdir()
    out.chmod(0o555)
    try:
        before = out.stat()
        for force in ((), ("--force",)):
            code, _, err = run(*report_args(small, out, *force))
            assert code == 2 and one_line(err) and "read-only" in err
        after = out.stat()
        assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode) and not any(out.iterdir())
    finally:
        out.chmod(0o755)


def test_an_empty_writable_folder_keeps_its_permissions(small, tmp_path):
    out = tmp_path / "empty"
    out.mkdir()
    out.chmod(0o750)
    code, _, err = run(*report_args(small, out))
    assert code == 0, err
    assert stat.S_IMODE(out.stat().st_mode) == 0o750 and (out / "report.html").is_file()


def test_a_symlinked_out_is_resolved_and_a_dangling_one_refused_before_the_analysis(small, tmp_path,
                                                                                      monkeypatch):
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    code, out, err = run(*report_args(small, link))
    assert code == 0, err
    assert link.is_symlink() and (real / "report.html").is_file() and out.strip() == str(real / "report.html")
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")
    import memdiag.reporting as report_package

    monkeypatch.setattr(report_package, "_analyse", lambda *a, **k: pytest.fail("analysis ran"))
    code, _, err = run(*report_args(small, dangling))
    assert code == 2 and one_line(err) and "symbolic link" in err and not (tmp_path / "nowhere").exists()


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_writing_removes_the_staging_folder_and_keeps_the_old_report(small, earlier, tmp_path,
                                                                                    monkeypatch, signum):
    out = tmp_path / "out"
    shutil.copytree(earlier, out)
    before = snapshot(out)
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}

    def killed(*args, **kwargs):
        assert len(leftovers(tmp_path)) == 1 and leftovers(tmp_path)[0].endswith(".partial")
        os.kill(os.getpid(), signum)

    monkeypatch.setattr(publish, "_save_figures", killed)
    code, _, err = run(*report_args(small, out, "--seed", 2))
    assert code == 128 + signum and one_line(err) and signal.Signals(signum).name in err
    assert snapshot(out) == before and leftovers(tmp_path) == []
    assert {s: signal.getsignal(s) for s in handlers} == handlers


def test_a_signal_between_the_renames_waits_until_the_new_report_is_in_place(small, earlier, tmp_path,
                                                                            monkeypatch):
    out = tmp_path / "out"
    shutil.copytree(earlier, out)
    real_replace = os.replace
    calls = []

    def replace(source, target):
        real_replace(source, target)
        if Path(target).suffix == ".tmp" or Path(source).suffix == ".tmp":
            return  # a file written whole (a temporary file renamed), not the folders' swap
        calls.append((Path(source).name, Path(target).name))
        if len(calls) == 1:  # the old report is aside, the new one not yet in: the one gap
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(os, "replace", replace)
    code, _, err = run(*report_args(small, out, "--seed", 3))
    monkeypatch.undo()
    assert code == 130 and one_line(err)
    assert calls[0][0] == "out" and calls[1][1] == "out"  # aside, then in
    assert "seed=3" in (out / "report.md").read_text(encoding="utf-8")
    listed = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["files"]
    assert all(sha256(out / name) == digest for name, digest in listed.items())
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("tamper, says", [
    (lambda doc: doc["settings"].pop("seed"), "settings.seed': missing"),
    (lambda doc: doc["settings"].update(seed="7"), "seed must be a whole number"),
    (lambda doc: doc["settings"].update(n_resamples=2.5), "n_resamples must be"),
    (lambda doc: doc["settings"].update(extra=1), "settings.extra': not a setting"),
    (lambda doc: doc.pop("inputs"), "field 'inputs'"),
    (lambda doc: doc["inputs"]["verdicts"]["rerun"]["files"][0].pop("sha256"), "rerun.files[0]"),
    (lambda doc: doc["inputs"].update(scheme=5), "inputs.scheme"),
])
def test_rerun_refuses_a_missing_or_mistyped_setting_or_input(earlier, tmp_path, tamper, says):
    doc = json.loads((earlier / "analysis.json").read_text(encoding="utf-8"))
    tamper(doc)
    path = tmp_path / "analysis.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    code, _, err = run("report", "--rerun", path, "--out", tmp_path / "again")
    assert code == 2 and one_line(err) and says in err and not (tmp_path / "again").exists()


def test_rerun_into_its_own_folder_is_refused(earlier, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(earlier, out)
    code, _, err = run("report", "--rerun", out / "analysis.json", "--out", out)
    assert code == 2 and one_line(err) and "holds the input" in err


# --------------------------------------------------------------------------------------------
# nothing dropped or merged without a note; patterns cannot hang
# --------------------------------------------------------------------------------------------
def test_flows_by_keeps_unlabelled_queries_as_their_own_none_group():
    rng = np.random.default_rng(7)
    ids = [f"q{i}" for i in range(40)]
    category = ["a" if i < 15 else "b" if i < 30 else None for i in range(40)]
    df = pd.concat([pd.DataFrame({"system": s, "query_id": ids, "score": rng.integers(0, 2, 40),
                                  "category": category}) for s in ("rag", "mem")], ignore_index=True)
    table = md.flows(df, "rag", by="category", options=dict(n_resamples=100)).set_index("group")
    assert table["n"].to_dict() == {"a": 15, "b": 15, "(none)": 10}
    wide = df.pivot(index="query_id", columns="system", values="score")
    none = wide.loc[[q for q, c in zip(ids, category) if c is None]]
    assert table.loc["(none)", "benefit"] == int(((none["mem"] == 1) & (none["rag"] == 0)).sum())
    assert table.loc["(none)", "tax"] == int(((none["mem"] == 0) & (none["rag"] == 1)).sum())


def test_label_conflicts_that_validate_reports_reach_flows_and_compare():
    df = pd.DataFrame({"system": ["rag"] * 4 + ["mem"] * 4, "query_id": ["q1", "q2", "q3", "q4"] * 2,
                       "score": [1, 0, 1, 0, 0, 1, 1, 1],
                       "category": ["x", "y", "x", "y", "x", "x", "x", "y"]})
    conflict = [n for n in md.validate(df).attrs["notes"] if "different 'category' values" in n]
    assert conflict == ["1 queries carry different 'category' values across systems (the first non-missing "
                        "value is used): q2"]
    assert conflict[0] in md.flows(df, "rag", options=dict(n_resamples=100)).attrs["notes"]
    assert conflict[0] in md.compare(df, options=dict(n_resamples=100)).attrs["notes"]


def test_a_catastrophic_exclude_ids_pattern_is_a_scheme_error_not_a_hang(small, tmp_path, monkeypatch):
    monkeypatch.setattr(resolve, "PATTERN_SECONDS", 0.2)
    ids = pd.DataFrame({"system": ["a", "b"] * 30, "query_id": [f"{'a' * 40}b{i // 2}" for i in range(60)],
                        "score": [1, 0] * 30})
    data = tmp_path / "ids.csv"
    ids.to_csv(data, index=False)
    scheme = tmp_path / "slow.yaml"
    scheme.write_text("name: slow\ngroup_by: null\nexclude_ids: '^(a|aa)+$'\n", encoding="utf-8")
    code, _, err = run("score", data, "--scheme", scheme)
    assert code == 2 and one_line(err) and f"{scheme}, key 'exclude_ids'" in err and "longer than 0.2 s" in err


# --------------------------------------------------------------------------------------------
# names are data, never markup
# --------------------------------------------------------------------------------------------
NAMES = ["raw-rag", "x](javascript:alert(1)) <script>alert(1)</script>", "=HYPERLINK(\"http://e\")",
         "a\n\\input{/etc/passwd}", "<img src=x onerror=alert(1)> $\\foo{$ | *b* `c`"]


class _Html(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags, self.text = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def test_a_report_shows_hostile_names_as_text_in_every_format(tmp_path):
    rng = np.random.default_rng(11)
    df = pd.concat([pd.DataFrame({"system": name, "query_id": [f"q{i}" for i in range(30)],
                                  "score": rng.integers(0, 2, 30), "cluster": [f"c{i % 5}" for i in range(30)],
                                  "category": [NAMES[i % 5] if i % 4 else None for i in range(30)]})
                    for name in NAMES], ignore_index=True)
    out = md.report(df, "raw-rag", tmp_path / "out", prepare=dict(scheme={"name": NAMES[1], "group_by": "category"}),
                    options=dict(n_resamples=100))
    html = _Html()
    html.feed((out / "report.html").read_text(encoding="utf-8"))
    assert not [t for t, _ in html.tags if t in ("script", "iframe", "object", "embed")]
    assert all(a["href"].startswith("#") or a["href"] in ("replay/replay.csv", "replay/replay.jsonl")
               for t, a in html.tags if t == "a")
    assert not [a for _, a in html.tags if any(k.startswith("on") for k in a)]
    text = "".join(html.text)
    assert "<script>alert(1)</script>" in text and "<img src=x onerror=alert(1)>" in text  # shown, as text
    rendered = MarkdownIt("commonmark").enable("table").render((out / "report.md").read_text(encoding="utf-8"))
    markdown = _Html()
    markdown.feed(rendered)
    assert {t for t, _ in markdown.tags} <= {"h1", "h2", "h3", "p", "code", "ul", "li", "em", "img", "table",
                                             "thead", "tbody", "tr", "th", "td", "a"}
    assert all(re.fullmatch(r"figures/\w+\.png", a["src"]) for t, a in markdown.tags if t == "img")
    assert [a["href"] for t, a in markdown.tags if t == "a"] == ["replay/replay.csv", "replay/replay.jsonl"]
    replay_cells = [c for row in csv.reader(io.StringIO((out / "replay" / "replay.csv").read_text(encoding="utf-8")))
                    for c in row]
    assert "'=HYPERLINK(\"http://e\")" in replay_cells and "=HYPERLINK(\"http://e\")" not in replay_cells
    for svg in (out / "figures").glob("*.svg"):
        picture = _Html()
        picture.feed(svg.read_text(encoding="utf-8"))
        assert not [t for t, _ in picture.tags if t in ("script", "foreignobject", "a")]
    forest = _Html()
    forest.feed((out / "figures" / "forest.svg").read_text(encoding="utf-8"))
    assert "<img src=x onerror=alert(1)> $\\foo{$ | *b* `c`" in "".join(forest.text)  # not mathtext
    tex = (out / "tables" / "scores.tex").read_text(encoding="utf-8")
    assert "\n\\input" not in tex and "\\textbackslash{}input" in tex
    cells = [row[0] for row in csv.reader(io.StringIO((out / "tables" / "scores.csv").read_text(encoding="utf-8")))]
    assert "'=HYPERLINK(\"http://e\")" in cells and "=HYPERLINK(\"http://e\")" not in cells
