"""One number per contrast (issue 15, item 7): in a report, every section that shows a pair of systems —
flows, pairwise differences, differences from the reference and the forest plot drawn from them, the
clustered-queries table, the claims — gives it the same difference, interval and test, from the same
replicates. Checked on the real LoCoMo panel (skipped without ../shared) and on the example under iid."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd
import pytest

import memdiag as md

REFERENCE = "rag_observation_pgvector"
EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "example"
CLAIMS = """\
- {id: long-context-beats-rag, family: vs-rag, system_a: long_context, system_b: rag_observation_pgvector,
   direction: greater}
- {id: auto-beats-rag, family: vs-rag, system_a: auto_mysql, system_b: rag_observation_pgvector, direction: greater}
- {id: zep-vs-memobase, family: top, system_a: zep_locomo_grades, system_b: memobase_eval_0710_3000,
   direction: different}
"""


@pytest.fixture(scope="module")
def real_report(real_data, tmp_path_factory) -> Path:
    """`memdiag report` on the real LoCoMo panel (the 7 trpc no-history runs, Zep, Memobase, Backboard),
    with claims that name no scheme."""
    folder = tmp_path_factory.mktemp("real")
    claims = folder / "claims.yaml"
    claims.write_text(CLAIMS, encoding="utf-8")
    files = [real_data / "trpc-group__trpc-agent-go" / "data_nohistory_gpt4omini",
             real_data / "getzep__zep-papers" / "zep_locomo_grades.json",
             real_data / "memodb-io__memobase" / "memobase_eval_0710_3000.json",
             real_data / "Backboard-io__Backboard-Locomo-Benchmark"]
    return md.report([str(f) for f in files], REFERENCE, folder / "out", claims=str(claims), progress=False,
                     prepare=dict(scheme="locomo"), options=dict(n_resamples=2000))


def tables(out: Path) -> dict[str, pd.DataFrame]:
    doc = json.loads((out / "analysis.json").read_text(encoding="utf-8"))
    return {name: pd.DataFrame(t["rows"]) for s in doc["sections"] for name, t in s["tables"].items()}


def oriented(pairs: pd.DataFrame, system: str, reference: str) -> pd.Series:
    """The row of pair (system, reference) of an all-pairs table, as system − reference."""
    row = pairs[(pairs["system_a"] == system) & (pairs["system_b"] == reference)]
    if len(row):
        return row.iloc[0]
    row = pairs[(pairs["system_a"] == reference) & (pairs["system_b"] == system)].iloc[0].copy()
    row["diff"], row["ci_low"], row["ci_high"] = -row["diff"], -row["ci_high"], -row["ci_low"]
    return row


def test_every_section_gives_a_pair_the_same_difference_interval_and_test(real_report):
    t = tables(real_report)
    flows = t["flows"].set_index("system")
    versus = t["pairwise_vs_reference"].set_index("system_a")
    assert len(flows) == 9 and set(flows.index) == set(versus.index)
    for system in flows.index:
        f, v = flows.loc[system], versus.loc[system]
        a, i = oriented(t["pairwise"], system, REFERENCE), oriented(t["independence"], system, REFERENCE)
        for diff, low, high, p in ((v["diff"], v["ci_low"], v["ci_high"], v["p"]),
                                   (a["diff"], a["ci_low"], a["ci_high"], a["p"]),
                                   (i["diff"], i["ci_low"], i["ci_high"], i["p"])):
            assert (diff, low, high, p) == pytest.approx(
                (f["net_rate"], f["net_rate_ci_low"], f["net_rate_ci_high"], f["p"]), abs=1e-12), system
        assert f["test"] == v["test"] == a["test"] == i["test"]
        assert f["p_adj"] == pytest.approx(v["p_adj"], abs=1e-12)  # one family: the systems against the reference
    claims = t["claims"].set_index("id")
    for claim, system in (("long-context-beats-rag", "long_context"), ("auto-beats-rag", "auto_mysql")):
        c, f = claims.loc[claim], flows.loc[system]
        assert (c["scheme"], c["design"]) == ("locomo", "cluster")  # the report's, the claim naming none
        assert (c["diff"], c["ci_low"], c["ci_high"], c["p"]) == pytest.approx(
            (f["net_rate"], f["net_rate_ci_low"], f["net_rate_ci_high"], f["p"]), abs=1e-12), claim
    top = oriented(t["pairwise"], "zep_locomo_grades", "memobase_eval_0710_3000")
    assert (claims.loc["zep-vs-memobase", "diff"], claims.loc["zep-vs-memobase", "p"]) == pytest.approx(
        (top["diff"], top["p"]), abs=1e-12)


def test_the_forest_plot_draws_the_differences_from_the_reference(real_report):
    versus = tables(real_report)["pairwise_vs_reference"].set_index("system_a")
    root = ET.parse(real_report / "figures" / "forest.svg").getroot()
    texts = {g.attrib["id"]: "".join(t for text in g.iter("{http://www.w3.org/2000/svg}text") for t in text.itertext())
             for g in root.iter("{http://www.w3.org/2000/svg}g")
             if g.attrib.get("id", "").startswith("forest-estimate-") and g.attrib["id"] != "forest-estimate-header"}
    assert len(texts) == len(versus)
    for gid, text in texts.items():
        row = versus.loc[gid.removeprefix("forest-estimate-")]
        shown = [float(x.replace("\u2212", "-")) for x in re.findall(r"[+\u2212-]?\d+\.\d", text)]
        assert shown == pytest.approx([round(row[c], 1) for c in ("diff", "ci_low", "ci_high")], abs=1e-9), gid


def test_the_test_is_stated_once_for_every_pair(real_report):
    doc = json.loads((real_report / "analysis.json").read_text(encoding="utf-8"))
    [line] = [line for line in doc["policies"] if line.startswith("one number per pair:")]
    assert "not all 0/1" not in line  # LoCoMo verdicts are 0/1: the flows' net rate is the accuracy difference
    flows_section = next(s for s in doc["sections"] if s["key"] == "flows")
    assert "exact McNemar" not in flows_section["sentence"]  # under clustering the test is the design's


def test_the_failed_reference_is_named_in_the_data_and_flows_sections(real_report):
    t = tables(real_report)
    failed = t["failed_clusters"]
    mine = failed[failed["system"] == REFERENCE]
    assert sorted(mine["cluster"]) == ["conv-30", "conv-43", "conv-44", "conv-47", "conv-48"]
    assert (mine["correct"] == 0).all() and mine.set_index("cluster").loc["conv-30", "n"] == 81
    text = (real_report / "report.md").read_text(encoding="utf-8")
    assert "the reference rag\\_observation\\_pgvector answers whole clusters all wrong" in text
    assert "conv-30 \\(0/81, all wrong\\)" in text


def test_the_real_report_fits_the_page_in_a_browser(real_report, tmp_path):
    from test_report import tables_wider_than_the_page

    count, over, page = tables_wider_than_the_page(real_report / "report.html", tmp_path)
    assert count > 10 and over.split("|")[0] == "" and page <= 1280, over


def test_flows_and_compare_agree_on_a_pair_under_iid():
    # the example's verdicts average three judge repetitions: binarised at 0.5 they are the flows' outcomes
    df = md.read_verdicts(EXAMPLE / "verdicts")
    flows = md.flows(df, reference="raw-rag", options=dict(design="iid", n_resamples=2000)).set_index("system")
    versus = md.compare(md.prepare(df, threshold=0.5), reference="raw-rag",
                        options=dict(design="iid", n_resamples=2000))
    for row in versus.itertuples():
        f = flows.loc[row.system_a]
        assert row.test == f["test"] == "exact McNemar"
        assert (row.diff, row.ci_low, row.ci_high, row.p, row.p_adj) == pytest.approx(
            (f["net_rate"], f["net_rate_ci_low"], f["net_rate_ci_high"], f["p"], f["p_adj"]), abs=1e-12)
