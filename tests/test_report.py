"""`memdiag report` / `memdiag demo`: the whole analysis as a folder, re-runnable, and safe on bad input."""

from __future__ import annotations

import hashlib
import importlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import memdiag as md
from memdiag.cli import main
from memdiag.reporting import report, report_from_json

# the module that writes the staged folder (where _write_report looks up _save_figures)
publish_module = importlib.import_module("memdiag.reporting.publish")

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "data" / "example"

FIGURES = ("venn", "venn3", "forest", "forest_by_category", "matrix", "evidence_matrix", "bubble", "ingestion",
           "mutation_rates", "write_actions")
TABLES = ("answers", "inputs", "validation", "scores", "accuracy", "flows", "flows_by_category", "augmentation", "pairwise",
          "pairwise_vs_reference", "omnibus", "rank_stability", "power", "independence", "contrasts_by_category",
          "leaderboard", "evidence", "evidence_omnibus", "evidence_pairs", "evidence_length", "costs", "cost_summary",
          "cost_ratios", "system_costs", "ingestion",
          "agreement", "write_audit", "claims")
SECTIONS = ("Answers: each system against raw-rag", "Data and validation", "Official scores", "Memory benefit and tax against raw-rag", "Source augmentation",
            "Pairwise tests, omnibus and ranking", "Clustered queries: which iid conclusions survive",
            "Per-category differences and ties with the best", "Evidence diagnostics", "Cost and accuracy",
            "Cost and latency",
            "Judge agreement", "Write-action audit", "Claims audit")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """`memdiag demo --out DIR` run once, as a user runs it, with stderr piped (no progress bar)."""
    out = tmp_path_factory.mktemp("demo") / "memdiag-demo"
    done = subprocess.run([sys.executable, "-m", "memdiag.cli", "demo", "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return out, done


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Path:
    """Two systems, 60 queries, one verdict file each: fast reports for the failure tests."""
    folder = tmp_path_factory.mktemp("small") / "verdicts"
    folder.mkdir()
    df = md.simulate(n_queries=60, systems=("raw-rag", "mem0"), n_clusters=6, sufficiency=False,
                     costs=False, seed=3)
    for system, part in df.groupby("system"):
        part.to_csv(folder / f"{system}.csv", index=False)
    return folder


@pytest.fixture(scope="module")
def small_report(small, tmp_path_factory) -> Path:
    """`memdiag report` on the small files (no sufficiency labels, costs, repetitions, log or claims)."""
    out = tmp_path_factory.mktemp("small-report") / "out"
    assert main(["report", str(small), "--reference", "raw-rag", "--out", str(out), "--resamples", "200"]) == 0
    return out


# --------------------------------------------------------------------------------------------
# the demo report
# --------------------------------------------------------------------------------------------
def test_demo_writes_every_listed_file(demo):
    out, done = demo
    assert done.stdout.strip() == str(out / "report.html")
    for name in ("report.md", "report.html", "analysis.json"):
        assert (out / name).stat().st_size > 0, name
    for figure in FIGURES:
        for fmt in ("pdf", "svg", "png"):
            assert (out / "figures" / f"{figure}.{fmt}").stat().st_size > 1000, (figure, fmt)
    for table in TABLES:
        for fmt in ("tex", "csv", "md"):
            assert (out / "tables" / f"{table}.{fmt}").stat().st_size > 0, (table, fmt)
    assert sorted(p.name for p in (out / "figures").iterdir()) == sorted(
        f"{f}.{x}" for f in FIGURES for x in ("pdf", "svg", "png"))
    assert sorted(p.name for p in (out / "replay").iterdir()) == ["replay.csv", "replay.jsonl"]
    assert not list(out.parent.glob(".*partial")), "the staging folder was left behind"


def test_demo_is_quiet_when_piped(demo):
    _, done = demo
    assert done.stderr == ""


def test_report_md_has_every_section_with_a_sentence_and_signatures(demo):
    out, _ = demo
    text = (out / "report.md").read_text(encoding="utf-8")
    for k, title in enumerate(SECTIONS, start=1):
        assert f"## {k}. {title}\n\n" in text
    # the report's settings once, at the top; under a table only what differs from them (issue 19, item 2)
    signatures = [line for line in text.splitlines() if f"memdiag {md.__version__} | " in line]
    assert len(signatures) == 1 and "design=cluster" in signatures[0] and "B=20000 | seed=0" in signatures[0]
    differs = [line for line in text.splitlines() if line.startswith("Settings of this table beyond the report's: ")]
    assert 0 < len(differs) < len(TABLES) and not any("B=20000" in line for line in differs)
    assert any("design=iid" in line for line in differs)           # judge agreement resamples queries
    # a df column is not repeated under its table; a by-category table gives its groups' range of G
    assert not any("df=" in line for line in differs)
    assert "Settings of this table beyond the report's: `G=23–30`" in differs
    # a setting several tables of a section share is said once, under the section's sentence, naming them
    assert not any("metric=coverage, utilization" in line for line in differs)
    shared = [line for line in text.splitlines() if line.startswith("Settings of several tables of this section")]
    assert shared == ["Settings of several tables of this section beyond the report's: `metric=coverage, utilization` "
                      "(Coverage, utilization and the accuracy decomposition; Evidence omnibus tests; Evidence "
                      "pairwise tests)"]
    lines = [line for line in text.splitlines() if line and not line.startswith(("|", "#"))]
    assert len(lines) == len(set(lines))     # no line of prose, note or settings is said twice
    for table in TABLES:
        md_table = (out / "tables" / f"{table}.md").read_text(encoding="utf-8")
        assert "B=20000 | seed=0" in md_table.splitlines()[-1], table
        assert f"% memdiag {md.__version__}" in (out / "tables" / f"{table}.tex").read_text(encoding="utf-8")
        assert "\\toprule" in (out / "tables" / f"{table}.tex").read_text(encoding="utf-8")
    for figure in FIGURES:
        assert f"](figures/{figure}.png)" in text


def test_report_md_says_every_note_once_most_severe_first(demo):
    out, _ = demo
    lines = (out / "report.md").read_text(encoding="utf-8").splitlines()
    notes = [line for line in lines if line.startswith("- ")]
    repeated = sorted({line for line in notes if notes.count(line) > 1})
    assert not repeated, repeated
    start = lines.index("Notes shared by several tables (each said once, here):")
    headings = [line for line in lines[start:lines.index("## 2. Data and validation")] if line.endswith(":")]
    order = ["Warnings:", "Cautions:", "Information:"]
    assert headings[1:] == sorted(headings[1:], key=order.index) and "Information:" in headings
    shared = [line for line in lines[start:] if re.search(r" \(applies to \d+ tables\)$", line)]
    assert any("design cluster" in line for line in shared)  # the design reason: once, not under every table
    doc = json.loads((out / "analysis.json").read_text())
    records = [r for s in doc["sections"] for t in s["tables"].values()
               for r in t["provenance"].get("note_records", [])]
    assert {"design", "inference-method"} <= {r["code"] for r in records}
    assert {r["severity"] for r in records} <= {"info", "caution", "warning"}


def test_analysis_json_records_version_hashes_settings_and_numbers(demo):
    out, _ = demo
    doc = json.loads((out / "analysis.json").read_text(encoding="utf-8"))
    assert doc["memdiag_version"] == md.__version__
    assert doc["settings"] == {"reference": "raw-rag", "design": "cluster", "n_resamples": 20000, "seed": 0,
                               "confidence_level": 0.95, "correction": "holm", "threshold": 0.5,
                               "missing": "error", "verdict_missing": "as-wrong", "judges": None,
                               "label_missing": "exclude", "inference": "auto", "cluster_missing": "error"}
    assert doc["design"]["used"] == "cluster"
    files = doc["inputs"]["verdicts"]["rerun"]["files"]
    # paths relative to the report folder: no absolute path is written, and they resolve from there
    assert len(files) == 7 and all(f["sha256"] == sha256(out / f["path"]) for f in files)
    for side in ("systems_table", "claims", "write_log", "ingestion_log"):
        assert doc["inputs"][side]["sha256"] == sha256(out / doc["inputs"][side]["path"])
    assert '"path": "/' not in (out / "analysis.json").read_text(encoding="utf-8")
    assert any("missing verdicts" in p for p in doc["policies"])
    # three judge repetitions averaged: the flows' binary outcomes are a statistic of their own, said once
    assert sum("not all 0/1" in p for p in doc["policies"]) == 1
    tables = {name: t for s in doc["sections"] for name, t in s["tables"].items()}
    assert set(tables) == set(TABLES)
    flows = pd.DataFrame(tables["flows"]["rows"]).set_index("system")
    # the numbers are the library's: benefit - tax = net, and they match md.flows on the same data
    assert (flows["benefit"] - flows["tax"] == flows["net"]).all()
    direct = md.flows(md.read_verdicts(EXAMPLE / "verdicts"), reference="raw-rag",
                      options=dict(design="cluster", n_resamples=20_000, seed=0)).set_index("system")
    pd.testing.assert_series_equal(flows["net_rate_ci_low"], direct["net_rate_ci_low"], check_names=False)


def test_rerun_from_analysis_json_reproduces_byte_identical_tables(demo, tmp_path, capsys):
    out, _ = demo
    again = tmp_path / "again"
    assert main(["report", "--rerun", str(out / "analysis.json"), "--out", str(again)]) == 0
    assert capsys.readouterr().err == ""
    first = sorted(p.relative_to(out) for p in (out / "tables").iterdir())
    assert first == sorted(p.relative_to(again) for p in (again / "tables").iterdir())
    for rel in first:
        assert (out / rel).read_bytes() == (again / rel).read_bytes(), rel
    assert (out / "analysis.json").read_bytes() == (again / "analysis.json").read_bytes()
    assert (out / "report.md").read_bytes() == (again / "report.md").read_bytes()


def test_html_is_self_contained(demo):
    out, _ = demo
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "<link" not in html and "<script" not in html
    assert not re.search(r"""(src|href)=["'](?!data:|#|replay/replay\.(csv|jsonl)["'])""", html)
    assert html.count('<a href="replay/replay.csv">') == 1  # the per-query replay, beside the report
    assert html.count('<img src="data:image/png;base64,') == len(FIGURES)


# --------------------------------------------------------------------------------------------
# the HTML in a real browser
# --------------------------------------------------------------------------------------------
def chromium() -> str:
    found = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)),
                 None)
    if found is None:
        pytest.skip("no chromium/chrome on PATH (apt-get install chromium): the browser check needs one")
    return found


def browse(html: Path, profile: Path, *args: str) -> subprocess.CompletedProcess:
    command = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
               f"--user-data-dir={profile}", "--virtual-time-budget=10000", *args, html.as_uri()]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


PROBE = """<script>
window.addEventListener("load", function () {
  for (const img of document.images) { img.setAttribute("data-natural-width", String(img.naturalWidth)); }
  document.body.setAttribute("data-probe", "loaded");
});
</script>
</body>"""


def test_every_image_loads_in_headless_chromium(demo, tmp_path):
    out, _ = demo
    probe = tmp_path / "probe.html"
    probe.write_text((out / "report.html").read_text(encoding="utf-8").replace("</body>", PROBE),
                     encoding="utf-8")
    done = browse(probe, tmp_path / "profile", "--dump-dom")
    assert 'data-probe="loaded"' in done.stdout, done.stderr[-2000:]
    widths = [int(w) for w in re.findall(r'<img [^>]*data-natural-width="(\d+)"', done.stdout)]
    assert len(widths) == len(FIGURES) and min(widths) > 0, widths


WIDTHS = """<script>
window.addEventListener("load", function () {
  document.querySelectorAll("details").forEach(function (d) { d.open = true; });
  const main = document.querySelector("main"), style = getComputedStyle(main);
  const room = main.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const over = [];
  document.querySelectorAll("table").forEach(function (t, k) {
    const width = t.getBoundingClientRect().width;
    if (width > room + 0.5) { over.push(t.closest("[id]").id + "#" + k + ":" + Math.round(width)); }
  });
  document.body.setAttribute("data-tables", String(document.querySelectorAll("table").length));
  document.body.setAttribute("data-over", over.join(" ") + "|" + Math.round(room));
  document.body.setAttribute("data-page", String(document.documentElement.scrollWidth));
});
</script>
</body>"""


def tables_wider_than_the_page(html: Path, tmp_path: Path, width: int = 1280) -> tuple[int, str, int]:
    """(number of tables, the tables wider than the text column, page width) at a ``width`` px window,
    every <details> opened."""
    probe = tmp_path / "widths.html"
    probe.write_text(html.read_text(encoding="utf-8").replace("</body>", WIDTHS), encoding="utf-8")
    done = browse(probe, tmp_path / "profile-widths", f"--window-size={width},900", "--dump-dom")
    found = re.search(r'data-tables="(\d+)"[^>]*data-over="([^"]*)"[^>]*data-page="(\d+)"', done.stdout)
    assert found, done.stderr[-2000:]
    return int(found.group(1)), found.group(2), int(found.group(3))


def test_no_table_scrolls_sideways_at_a_normal_width(demo, tmp_path):
    out, _ = demo
    count, over, page = tables_wider_than_the_page(out / "report.html", tmp_path)
    assert count >= len(TABLES) and over.split("|")[0] == "" and page <= 1280, over


def test_screenshot_of_the_report(demo, tmp_path):
    out, _ = demo
    shot = tmp_path / "report.png"
    browse(out / "report.html", tmp_path / "profile", "--window-size=1280,2400", f"--screenshot={shot}")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 50_000


# --------------------------------------------------------------------------------------------
# bad input: one line on stderr, exit 2, no folder that looks complete
# --------------------------------------------------------------------------------------------
def run_bad(args: list[str], capsys) -> str:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("memdiag report: error: ")
    return err


def no_output(out: Path) -> bool:
    return not out.exists() and not list(out.parent.glob(f".{out.name}.*"))


def test_unreadable_file_exits_2_without_a_folder(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    out = tmp_path / "out"
    assert "bad.json" in run_bad(["report", str(bad), "--reference", "raw-rag", "--out", str(out)], capsys)
    assert no_output(out)


def test_reference_not_in_the_data_exits_2_without_a_folder(small, tmp_path, capsys):
    out = tmp_path / "out"
    err = run_bad(["report", str(small), "--reference", "zep", "--out", str(out)], capsys)
    assert "reference 'zep' is not in the data (systems: mem0, raw-rag)" in err
    assert no_output(out)


@pytest.mark.parametrize("how", ["glob", "scheme"])
def test_empty_selection_exits_2_without_a_folder(how, small, tmp_path, capsys):
    out = tmp_path / "out"
    if how == "glob":
        args = [str(small / "nothing-*.csv")]
    else:
        scheme = tmp_path / "only.yaml"
        scheme.write_text("name: only\ninclude: [no-such-category]\n", encoding="utf-8")
        args = [str(small), "--scheme", str(scheme)]
    err = run_bad(["report", *args, "--reference", "raw-rag", "--out", str(out)], capsys)
    assert ("no file matches" if how == "glob" else "keeps no query") in err
    assert no_output(out)


def test_a_folder_that_is_not_a_report_is_never_replaced(small, tmp_path, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me", encoding="utf-8")
    assert "not a memdiag report" in run_bad(["report", str(small), "--reference", "raw-rag", "--out", str(out),
                                              "--resamples", "200"], capsys)
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


def test_failure_while_writing_leaves_the_earlier_report_and_no_staging(small, small_report, tmp_path,
                                                                       monkeypatch):
    out = tmp_path / "out"
    shutil.copytree(small_report, out)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(publish_module, "_save_figures", broken)  # after the tables are written
    with pytest.raises(RuntimeError, match="disk full"):
        report(small, "raw-rag", out, options=dict(n_resamples=300))
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert not list(tmp_path.glob(".out.*"))


def test_a_report_moved_with_its_inputs_reruns_from_its_new_place(small, tmp_path, capsys):
    # data and report side by side, both moved to another folder: the recorded relative paths follow
    first = tmp_path / "one"
    shutil.copytree(small, first / "verdicts")
    assert main(["report", str(first / "verdicts"), "--reference", "raw-rag", "--out", str(first / "report"),
                 "--resamples", "200"]) == 0
    doc = json.loads((first / "report" / "analysis.json").read_text(encoding="utf-8"))
    assert {f["path"] for f in doc["inputs"]["verdicts"]["rerun"]["files"]} == {
        f"../verdicts/{p.name}" for p in (first / "verdicts").iterdir()}
    assert set(doc["inputs"]["verdicts"]["rerun"]["system"]) == {
        f"../verdicts/{p.name}" for p in (first / "verdicts").iterdir()}
    moved = tmp_path / "elsewhere" / "deeper"
    shutil.move(str(first), str(moved))
    capsys.readouterr()
    assert main(["report", "--rerun", str(moved / "report" / "analysis.json"), "--out", str(moved / "again")]) == 0
    for name in ("analysis.json", "tables/flows.csv", "report.md"):
        assert (moved / "again" / name).read_bytes() == (moved / "report" / name).read_bytes()


def test_an_analysis_json_with_absolute_paths_still_reruns(small, small_report, tmp_path):
    # memdiag 0.2 recorded absolute paths: they are read as they are
    doc = json.loads((small_report / "analysis.json").read_text(encoding="utf-8"))
    spec = doc["inputs"]["verdicts"]["rerun"]
    for entry in spec["files"]:
        entry["path"] = str((small_report / entry["path"]).resolve())
    spec["system"] = {str((small_report / k).resolve()): v for k, v in spec["system"].items()}
    old = tmp_path / "old" / "analysis.json"
    old.parent.mkdir()
    old.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["report", "--rerun", str(old), "--out", str(tmp_path / "again")]) == 0
    assert (tmp_path / "again" / "tables" / "flows.csv").read_bytes() == \
        (small_report / "tables" / "flows.csv").read_bytes()


def test_rerun_refuses_a_changed_input(small, small_report, tmp_path, capsys):
    data = tmp_path / "verdicts"
    shutil.copytree(small, data)
    doc = json.loads((small_report / "analysis.json").read_text(encoding="utf-8"))
    for entry in doc["inputs"]["verdicts"]["rerun"]["files"]:
        entry["path"] = str(data / Path(entry["path"]).name)
    moved = tmp_path / "analysis.json"
    moved.write_text(json.dumps(doc), encoding="utf-8")
    path = data / "mem0.csv"
    changed = pd.read_csv(path)
    changed.loc[0, "score"] = 1 - changed.loc[0, "score"]
    changed.to_csv(path, index=False)
    err = run_bad(["report", "--rerun", str(moved), "--out", str(tmp_path / "again")], capsys)
    assert "mem0.csv: changed since the report was made" in err
    assert no_output(tmp_path / "again")


# --------------------------------------------------------------------------------------------
# sections the data cannot support
# --------------------------------------------------------------------------------------------
def test_sections_without_data_are_omitted_with_one_line(small_report):
    text = (small_report / "report.md").read_text(encoding="utf-8")
    for title, why in [("Source augmentation", "no system is named"),
                       ("Parameter sensitivity", "no parameter sweep"),
                       ("Evidence diagnostics", "no 'sufficient'"),
                       ("Native retrieval, complete store and raw evidence", "needs a systems table that tags each run"),
                       ("Cost and accuracy", "no cost"), ("Cost and latency", "no per-query cost"),
                       ("Judge agreement", "one judgment per answer"),
                       ("Write-action audit", "no memory decision log"), ("Claims audit", "no claims file"),
                       ("Judge error: corrected scores and differences", "no calibration labels"),
                       ("Across settings: pooled differences and the u-of-N count", "one setting")]:
        assert re.search(rf"^\*{title} — omitted: [^\n]*{re.escape(why)}[^\n]*\*$", text, re.MULTILINE), title
    assert "## 5. Pairwise tests, omnibus and ranking" in text
    doc = json.loads((small_report / "analysis.json").read_text(encoding="utf-8"))
    assert [s["key"] for s in doc["sections"] if s["omitted"]] == ["augmentation", "sensitivity", "evidence",
                                                                   "store_gap", "costs", "efficiency", "agreement",
                                                                   "writes", "claims", "judge_error", "settings"]


def test_in_memory_verdicts_give_the_bubble_from_per_query_tokens_but_no_rerun(tmp_path):
    df = md.simulate(n_queries=60, systems=("raw-rag", "mem0", "zep"), n_clusters=6, seed=5)
    out = report(df, "raw-rag", tmp_path / "out", options=dict(n_resamples=200))
    costs = pd.read_csv(out / "tables" / "costs.csv")
    per_query = (df["input_tokens"] + df["output_tokens"]).groupby([df["system"], df["query_id"]]).mean()
    expected = per_query.groupby(level="system").mean()
    assert costs.set_index("system")["tokens_per_query"].to_dict() == pytest.approx(expected.to_dict())
    assert (out / "figures" / "bubble.png").is_file()
    doc = json.loads((out / "analysis.json").read_text(encoding="utf-8"))
    assert doc["inputs"]["verdicts"]["rerun"] is None
    with pytest.raises(md.VerdictError, match="cannot re-run: the verdicts were not read from files"):
        report_from_json(out / "analysis.json", tmp_path / "again")


def test_report_inference_option_is_recorded_and_used(small, tmp_path):
    out = tmp_path / "out"
    assert main(["report", str(small), "--reference", "raw-rag", "--out", str(out), "--resamples", "200",
                 "--inference", "percentile"]) == 0
    doc = json.loads((out / "analysis.json").read_text(encoding="utf-8"))
    assert doc["settings"]["inference"] == "percentile"
    assert "percentile intervals" in doc["policies"][0]
    assert "| inference=percentile |" in (out / "report.md").read_text(encoding="utf-8")


def test_rerun_reads_files_whose_extra_columns_come_in_another_order(tmp_path):
    # the report read b.csv before a.csv (columns ..., latency_s, f1); the rerun reads them sorted
    df = md.simulate(n_queries=40, systems=("raw-rag", "mem0"), n_clusters=4, sufficiency=False, costs=False, seed=8)
    a = df[df["system"] == "raw-rag"].assign(f1=0.5)
    b = df[df["system"] == "mem0"].assign(latency_s=1.0)
    a.to_csv(tmp_path / "a.csv", index=False)
    b.to_csv(tmp_path / "b.csv", index=False)
    out = tmp_path / "out"
    assert main(["report", str(tmp_path / "b.csv"), str(tmp_path / "a.csv"), "--reference", "raw-rag",
                 "--out", str(out), "--resamples", "200"]) == 0
    assert main(["report", "--rerun", str(out / "analysis.json"), "--out", str(tmp_path / "again")]) == 0
    assert (out / "tables" / "flows.csv").read_bytes() == (tmp_path / "again" / "tables" / "flows.csv").read_bytes()


def test_warnings_raised_during_the_analysis_are_listed_in_the_report(small, small_report, tmp_path):
    for page in ("report.md", "report.html"):  # a clean analysis lists none
        assert "Warnings raised" not in (small_report / page).read_text(encoding="utf-8")
    with pytest.warns(RuntimeWarning, match="too few"):
        out = report(small, "raw-rag", tmp_path / "out", progress=False, options=dict(n_resamples=50))
    recorded = json.loads((out / "analysis.json").read_text(encoding="utf-8"))["warnings"]
    assert any(w.startswith("n_resamples=50 is too few for a bootstrap") for w in recorded)
    md_text = (out / "report.md").read_text(encoding="utf-8")
    html_text = (out / "report.html").read_text(encoding="utf-8")
    assert "Warnings raised during the analysis:" in md_text and "Warnings raised during the analysis:" in html_text
    assert "n\\_resamples=50 is too few" in md_text and "n_resamples=50 is too few" in html_text


@pytest.fixture(scope="module")
def one_unlabelled(tmp_path_factory) -> Path:
    """The small files with the cluster label of one query (conv-2-q020, both systems) left blank."""
    folder = tmp_path_factory.mktemp("one-unlabelled") / "verdicts"
    folder.mkdir()
    df = md.simulate(n_queries=60, systems=("raw-rag", "mem0"), n_clusters=6, sufficiency=False,
                     costs=False, seed=3)
    blank = df["query_id"] == df["query_id"].iloc[20]
    assert blank.sum() == 2  # one query, answered by both systems
    df["cluster"] = df["cluster"].where(~blank, None)
    for system, part in df.groupby("system"):
        part.to_csv(folder / f"{system}.csv", index=False)
    (folder.parent / "claims.yaml").write_text(
        "claims:\n  - id: mem-beats-rag\n    system_a: mem0\n    system_b: raw-rag\n    direction: greater\n",
        encoding="utf-8")
    return folder


def test_report_cluster_missing_own_is_recorded_shown_and_rerun_byte_identical(one_unlabelled, tmp_path, capsys):
    qid = pd.read_csv(one_unlabelled / "mem0.csv")["query_id"].iloc[20]
    claims = one_unlabelled.parent / "claims.yaml"
    base = ["report", str(one_unlabelled), "--reference", "raw-rag", "--resamples", "200", "--claims", str(claims)]
    # the default refuses in one line naming the query and the option, before any folder exists
    assert main([*base, "--out", str(tmp_path / "refused")]) == 2
    err = capsys.readouterr().err
    assert qid in err and "--cluster-missing own" in err and not (tmp_path / "refused").exists()
    out = tmp_path / "own"
    assert main([*base, "--out", str(out), "--cluster-missing", "own"]) == 0
    doc = json.loads((out / "analysis.json").read_text(encoding="utf-8"))
    assert doc["settings"]["cluster_missing"] == "own"
    assert any("queries without a cluster label: own" in p for p in doc["policies"])
    # 6 conversations + the unlabelled query on its own = 7 clusters, in the design and every table
    assert doc["design"]["used"] == "cluster" and "7 clusters" in doc["policies"][0]
    text = (out / "report.md").read_text(encoding="utf-8")
    counted = [line for line in text.splitlines()
               if "cluster missing own: 1 of 60 queries without a cluster label are each a cluster of their own" in line]
    assert counted and all(qid in line for line in counted)
    assert "queries without a cluster label: own" in text
    tables = {name: t for s in doc["sections"] for name, t in s["tables"].items()}
    assert tables["claims"]["rows"][0]["verdict"] != "not checkable"  # the claims audit takes the policy too
    # the re-run applies it: byte-identical tables, analysis.json and report.md
    again = tmp_path / "again"
    assert main(["report", "--rerun", str(out / "analysis.json"), "--out", str(again)]) == 0
    for rel in sorted(p.relative_to(out) for p in (out / "tables").iterdir()):
        assert (out / rel).read_bytes() == (again / rel).read_bytes(), rel
    for name in ("analysis.json", "report.md"):
        assert (out / name).read_bytes() == (again / name).read_bytes(), name
    # changing the recorded policy changes the re-run: the setting is applied, not only recorded
    doc["settings"]["cluster_missing"] = "error"
    (out / "analysis.json").write_text(json.dumps(doc), encoding="utf-8")
    assert main(["report", "--rerun", str(out / "analysis.json"), "--out", str(tmp_path / "third")]) == 2
    assert qid in capsys.readouterr().err


def test_rerun_of_an_analysis_json_written_before_cluster_missing_existed(small_report, tmp_path):
    doc = json.loads((small_report / "analysis.json").read_text(encoding="utf-8"))
    del doc["settings"]["cluster_missing"]  # as every analysis.json before the setting was added
    old = small_report.parent / "before-cluster-missing" / "analysis.json"  # beside it: same relative paths
    old.parent.mkdir(exist_ok=True)
    old.write_text(json.dumps(doc), encoding="utf-8")
    again = report_from_json(old, tmp_path / "again", progress=False)
    assert json.loads((again / "analysis.json").read_text(encoding="utf-8"))["settings"]["cluster_missing"] == "error"
    for rel in sorted(p.relative_to(small_report) for p in (small_report / "tables").iterdir()):
        assert (small_report / rel).read_bytes() == (again / rel).read_bytes(), rel
