"""Short names the figures draw (issue 15, item 1, the CLI and recipe side): --alias NAME=SHORT and
PATH=SHORT, a recipe's labels:, a label column in the systems table; the report records them."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd
import pytest
from cli_run import run

import memdiag as md
from memdiag.tables.aliases import alias_options, aliases

LONG = "Backboard-io__Backboard-Locomo-Benchmark"



@pytest.fixture()
def release(tmp_path) -> Path:
    """Three systems in three files: one with a 40-character name."""
    folder = tmp_path / "runs"
    folder.mkdir()
    df = md.simulate(n_queries=60, systems=("raw-rag", "mem0", LONG), reference="raw-rag", n_clusters=6,
                     sufficiency=False, costs=False, seed=4)
    for system, part in df.groupby("system"):
        part.to_csv(folder / f"{system}.csv", index=False)
    return folder


def svg_text(path: Path) -> str:
    return " ".join("".join(t.itertext()) for t in ET.parse(path).getroot().iter("{http://www.w3.org/2000/svg}text"))


def test_later_sources_win_and_unknown_systems_are_ignored():
    df = pd.DataFrame({"system": [LONG, "zep", "mem0"]})
    df.attrs["labels"] = {LONG: "BB", "zep": "Z", "absent": "X"}
    table = pd.DataFrame({"system": ["zep", "mem0"], "label": ["Zep", None]})
    assert aliases(df, table, {LONG: "Backboard"}) == {LONG: "Backboard", "zep": "Zep"}


def test_an_alias_names_a_system_or_the_file_it_was_read_from(release):
    df = md.read_verdicts(release)
    assert alias_options({str(release / f"{LONG}.csv"): "Backboard", "mem0": "Mem0"}, df) == {
        LONG: "Backboard", "mem0": "Mem0"}
    with pytest.raises(md.VerdictError, match="holds the systems"):
        alias_options({str(release): "all"}, df)  # a folder of three systems
    with pytest.raises(md.VerdictError, match="neither a system"):
        alias_options({"nope": "N"}, df)


def test_plot_draws_the_alias_and_the_systems_table_label(release, tmp_path):
    table = tmp_path / "systems.csv"
    pd.DataFrame({"system": ["mem0"], "label": ["Mem-Zero"]}).to_csv(table, index=False)
    code, _, err = run("plot", "forest", release, "--reference", "raw-rag", "--resamples", 200,
                       "--alias", f"{release / (LONG + '.csv')}=Backboard", "--systems-table", table,
                       "-o", tmp_path / "forest.pdf")
    assert code == 0, err
    text = svg_text(tmp_path / "forest.svg")
    assert "Backboard" in text and "Mem-Zero" in text and "Locomo-Benchmark" not in text.replace(
        f"Backboard = {LONG}", "")
    code, _, err = run("plot", "forest", release, "--reference", "raw-rag", "--alias", "x=y", "-o",
                       tmp_path / "other.pdf")
    assert code == 2 and "neither a system" in err


def test_a_recipe_names_its_systems(release, tmp_path):
    recipe = tmp_path / "release.yaml"
    recipe.write_text(f"sources:\n  - files: ['{release}/*.csv']\n    format: auto\n    system: '{{stem}}'\n"
                      f"labels:\n  {LONG}: Backboard\n", encoding="utf-8")
    df = md.read_verdicts(recipe=recipe)
    assert df.attrs["labels"] == {LONG: "Backboard"}
    bad = tmp_path / "bad.yaml"
    bad.write_text(f"sources:\n  - files: ['{release}/*.csv']\nlabels: [Backboard]\n", encoding="utf-8")
    with pytest.raises(md.VerdictError, match="labels: expected a mapping"):
        md.read_verdicts(recipe=bad)


def test_the_report_shows_records_and_reruns_the_aliases(release, tmp_path):
    out = tmp_path / "report"
    code, _, err = run("report", release, "--reference", "raw-rag", "--out", out, "--resamples", 200,
                       "--alias", f"{LONG}=Backboard")
    assert code == 0, err
    validation = pd.read_csv(out / "tables" / "validation.csv").set_index("system")
    assert validation.loc[LONG, "label"] == "Backboard" and pd.isna(validation.loc["mem0", "label"])
    assert json.loads((out / "analysis.json").read_text(encoding="utf-8"))["inputs"]["labels"] == {LONG: "Backboard"}
    assert "Backboard" in svg_text(out / "figures" / "forest.svg")
    # the tables for people show the short name; the CSV keeps the name, for joining
    for suffix in ("md", "tex"):
        text = (out / "tables" / f"flows.{suffix}").read_text(encoding="utf-8")
        assert "Backboard" in text and LONG.replace("_", "\\_") not in text and LONG not in text
    systems = pd.read_csv(out / "tables" / "flows.csv")["system"].tolist()
    assert LONG in systems and "Backboard" not in systems
    again = tmp_path / "again"
    assert run("report", "--rerun", out / "analysis.json", "--out", again)[0] == 0
    assert (again / "figures" / "forest.svg").read_bytes() == (out / "figures" / "forest.svg").read_bytes()
