"""The report through the views: it leads with its answers, names every system by its alias in every
text for people, states every level from the options, and carries each result's warnings to its
figure's caption.

One report, built once: three systems with an alias each, a 90% confidence level, a reference
that answers one conversation all wrong and a memory system that answers another all right, a
systems table without a store size and two claims.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd
import pytest

import memdiag as md

REF = "ragbase"
LABELS = {"ragbase": "RAG", "memx": "MemoryX", "memy": "MemoryY"}
RAW = re.compile(r"(?<![\w+\-/@=.])(ragbase|memx|memy)(?![\w+\-/@=])")
SVG_NS = "{http://www.w3.org/2000/svg}"
#: Statements of a level that are facts about something else: SPEC §4.1's simulation at α = 0.05,
#: and TOST, which reads a test at α off the 1 − 2α interval.
OTHER_LEVELS = ("8% at α = 0.05 with ten conversations", "TOST")


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("views")
    df = md.simulate(n_queries=240, systems=tuple(LABELS), reference=REF,
                     accuracy={"ragbase": 0.7, "memx": 0.6, "memy": 0.55}, n_clusters=8, seed=3)
    clusters = sorted(df["cluster"].unique())
    df.loc[(df["system"] == REF) & (df["cluster"] == clusters[0]), "score"] = 0.0
    df.loc[(df["system"] == "memx") & (df["cluster"] == clusters[1]), "score"] = 1.0
    df.to_csv(folder / "verdicts.csv", index=False)  # one file: no file is named after a system
    table = pd.DataFrame({"system": list(LABELS), "tokens_per_query": [4000.0, 900.0, 1500.0]})
    claims = [{"id": "claim-one", "family": "f", "system_a": "memx", "system_b": REF, "direction": "greater"},
              {"id": "claim-two", "system_a": "memy", "system_b": REF, "direction": "equivalent", "margin": 10}]
    return md.report(folder / "verdicts.csv", REF, folder / "out", options={"n_resamples": 200, "confidence_level": 0.9},
                     systems_table=table, claims=claims, labels=LABELS, progress=False)


def _without_validation(text: str, start: str, end: str) -> str:
    """``text`` less the validation table (it shows each label beside its name)."""
    i = text.index(start)
    return text[:i] + text[text.index(end, i + len(start)):]


def test_the_report_leads_with_its_answers(report):
    text = (report / "report.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## .*$", text, flags=re.MULTILINE)
    assert headings[0] == "## 1. Answers: each system against RAG"
    assert text.index(headings[0]) < text.index("Policies applied:") < text.index("## 2. Data and validation")
    doc = json.loads((report / "analysis.json").read_text(encoding="utf-8"))
    assert doc["sections"][0]["key"] == "answers"
    sections = {s["key"]: s for s in doc["sections"]}
    answers = pd.DataFrame(sections["answers"]["tables"]["answers"]["rows"]).set_index("system")
    flows = pd.DataFrame(sections["flows"]["tables"]["flows"]["rows"]).set_index("system")
    columns = ["n", "net", "net_rate", "net_rate_ci_low", "net_rate_ci_high", "p_adj"]
    pd.testing.assert_frame_equal(answers[columns], flows.loc[answers.index, columns])
    assert list(answers["significant"]) == list(flows.loc[answers.index, "p_adj"] < 0.1)
    independence = pd.DataFrame(sections["clustering"]["tables"]["independence"]["rows"])
    for system, row in answers.iterrows():
        pair = independence[independence[["system_a", "system_b"]].isin([system, REF]).all(axis=1)]
        assert row["design_outcome"] == pair["outcome"].iloc[0]
    lines = sections["answers"]["lines"]
    assert len(lines) == 2 and all(line.startswith(("memx: net benefit", "memy: net benefit")) for line in lines)
    x = answers.loc["memx"]
    assert f"{x['net_rate']:+.1f} points".replace("-", "−") in lines[0]


def test_the_answers_name_the_warnings_that_bear_on_each_system(report):
    doc = json.loads((report / "analysis.json").read_text(encoding="utf-8"))
    answers = doc["sections"][0]
    assert "Warnings on ragbase bear on every row: the reference ragbase answers whole clusters all wrong" in \
        answers["sentence"]
    assert "ragbase answers whole clusters all wrong (or all right), far from" not in answers["sentence"]  # said once
    memx, memy = answers["lines"]
    assert "warnings: memx answers whole clusters all wrong (or all right)" in memx
    assert "warnings:" not in memy
    rows = {r["system"]: r for r in answers["tables"]["answers"]["rows"]}
    assert rows["memx"]["warnings"] == rows["memy"]["warnings"] + 1


def test_no_raw_system_name_for_people_outside_the_validation_table(report):
    text = (report / "report.md").read_text(encoding="utf-8")
    rest = _without_validation(text, "### Validation summary", "\n### ")
    found = sorted({(line[:120]) for line in rest.splitlines() if RAW.search(line)})
    assert not found, found
    html = (report / "report.html").read_text(encoding="utf-8")
    html = re.sub(r'<img src="data:[^"]*"', "<img", html)
    found = sorted(set(RAW.findall(_without_validation(html, 'id="table-validation"', "<h3 "))))
    assert not found, found
    for name in ("flows", "pairwise", "claims"):
        assert not RAW.search((report / "tables" / f"{name}.md").read_text(encoding="utf-8")), name
    # the machine formats keep the full names
    assert REF in (report / "tables" / "flows.csv").read_text(encoding="utf-8")
    doc = (report / "analysis.json").read_text(encoding="utf-8")
    assert '"system": "memx"' in doc and '"MemoryX"' in doc  # the names, and the labels recorded as an input


def _svg_text(path: Path) -> str:
    return "\n".join("".join(t.itertext()) for t in ET.parse(path).getroot().iter(f"{SVG_NS}text"))


def test_every_statement_of_a_level_reads_it_from_the_options(report):
    text = (report / "report.md").read_text(encoding="utf-8")
    figures = {p.stem: _svg_text(p) for p in sorted((report / "figures").glob("*.svg"))}
    assert {"venn", "forest", "matrix", "bubble"} <= set(figures)
    for where, body in [("report.md", text), *figures.items()]:
        for line in body.splitlines():
            if any(other in line for other in OTHER_LEVELS):
                continue
            assert "95%" not in line, (where, line)
            for value in re.findall(r"α = (0\.\d+)|\bp < (0\.\d+)", line):
                assert float(value[0] or value[1]) == 0.1, (where, line)
            for value in re.findall(r"(\d+(?:\.\d+)?)% (?:interval|CI)", line):
                assert value == "90", (where, line)
    for name in ("forest", "matrix"):
        assert "< 0.10" in figures[name] and "90% interval" in figures[name]
    doc = json.loads((report / "analysis.json").read_text(encoding="utf-8"))
    tables = {n: t for s in doc["sections"] for n, t in s["tables"].items()}
    assert tables["power"]["provenance"]["alpha"] == 0.1
    assert tables["independence"]["provenance"]["alpha"] == 0.1
    assert tables["claims"]["provenance"]["alpha"] == 0.1
    assert any("α = 0.1" in n for n in tables["power"]["provenance"]["notes"])


def test_a_warning_on_a_result_is_in_its_figures_caption_and_figure(report):
    doc = json.loads((report / "analysis.json").read_text(encoding="utf-8"))
    captions = {name: f["caption"] for s in doc["sections"] for name, f in s["figures"].items()}
    for name in ("venn", "forest", "matrix"):
        assert "Warning: the reference ragbase answers whole clusters" in captions[name] or \
            "Warning: ragbase answers whole clusters" in captions[name], name
        assert "Warning:" in _svg_text(report / "figures" / f"{name}.svg"), name
    text = (report / "report.md").read_text(encoding="utf-8")
    assert "*Figure (forest): " in text and "Warning: the reference RAG answers whole clusters" in text


def test_bubble_without_a_store_size_in_the_report(report):
    doc = json.loads((report / "analysis.json").read_text(encoding="utf-8"))
    costs = next(s for s in doc["sections"] if s["key"] == "costs")
    assert "equal bubbles: no store size reported" in costs["figures"]["bubble"]["caption"]
    assert "Equal bubbles: no store size reported." in _svg_text(report / "figures" / "bubble.svg")
