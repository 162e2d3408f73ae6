"""score(): official per-system tables under a scheme, in points, with counts and notes."""

from __future__ import annotations

import glob
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import memdiag as md
from memdiag.errors import SchemeError, VerdictError
from memdiag.tables import render

REPO = Path(__file__).resolve().parents[1]


def frame(rows: list[tuple], columns: str) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=columns.split())


def locomo_two_runs() -> pd.DataFrame:
    """'full' kept the adversarial questions (like trpc-agent-go's 1,986), 'short' dropped them (like Zep)."""
    included = [("q1", "multi-hop", 1, 0), ("q2", "multi-hop", 0, 0), ("q3", "temporal", 1, 1),
                ("q4", "open-domain", 0, 1), ("q5", "single-hop", 1, 1), ("q6", "single-hop", 1, 0)]
    rows = [("full", q, s_full, c) for q, c, s_full, _ in included] + \
           [("short", q, s_short, c) for q, c, _, s_short in included] + \
           [("full", "a1", 1, "adversarial"), ("full", "a2", 1, "adversarial")]
    return frame(rows, "system query_id score category")


def test_locomo_score_excludes_adversarial_before_alignment():
    table = md.score(md.prepare(locomo_two_runs(), scheme="locomo")).set_index("system")
    # full: q1 q3 q5 q6 correct = 4 of 6 included = 66.67 points (6 of 8 = 75 with adversarial)
    # short: q3 q4 q5 = 3 of 6 = 50 points
    assert table.loc["full", "overall"] == pytest.approx(400 / 6)
    assert table.loc["short", "overall"] == pytest.approx(50.0)
    # categories: full multi-hop 1/2, temporal 1/1, open-domain 0/1, single-hop 2/2
    assert table.loc["full", ["multi-hop", "temporal", "open-domain", "single-hop"]].tolist() == [50, 100, 0, 100]
    assert table.loc["full", ["n", "n_multi-hop", "n_temporal", "n_open-domain", "n_single-hop"]].tolist() \
        == [6, 2, 1, 1, 2]
    assert "adversarial" not in table.columns
    assert not table["complete"].any()  # 6 questions, not the official 1,540


def test_score_records_scheme_policies_and_notes():
    df = locomo_two_runs()
    df.loc[(df["system"] == "short") & (df["query_id"] == "q5"), "score"] = np.nan
    table = md.score(md.prepare(df, scheme="locomo"))
    assert table.attrs["scheme"] == "locomo" and table.attrs["verdict_missing"] == "as-wrong"
    notes = "\n".join(table.attrs["notes"])
    assert "2 queries of category 'adversarial' excluded" in notes
    assert "1 verdict without a usable score scored 0 (full 0, short 1)" in notes
    assert "official denominator is 1540 queries, these data have 6" in notes
    assert table.set_index("system").loc["short", "overall"] == pytest.approx(200 / 6)  # q5 now wrong
    excluded = md.score(md.prepare(df, scheme="locomo", verdict_missing="exclude")).set_index("system")
    assert excluded.loc["short", "n"] == 5 and excluded.loc["short", "overall"] == pytest.approx(40.0)


def test_score_other_metric_column_the_same_way():
    df = locomo_two_runs().assign(f1=[0.5, 0.0, 1.0, 0.2, 0.8, 0.6, 0.1, 0.1, 0.9, 0.3, 0.7, 0.4, 1.0, 1.0])
    table = md.score(md.prepare(df, scheme="locomo", metric="f1"), metric="f1").set_index("system")
    # full: (0.5 + 0 + 1 + 0.2 + 0.8 + 0.6) / 6 = 3.1 / 6; adversarial f1 (1.0, 1.0) excluded
    assert table.loc["full", "overall"] == pytest.approx(100 * 3.1 / 6)
    assert table.attrs["metric"] == "f1"
    with pytest.raises(VerdictError, match="outside \\[0, 1\\]"):
        md.score(md.prepare(df.assign(f1=df["f1"] * 100), scheme="locomo", metric="f1"), metric="f1")


def test_score_memoryagentbench_reports_capabilities():
    sources = {"LongMemEval": 1, "EventQA": 1, "RULER-QA1": 0, "RULER-QA2": 0, "ReDial": 1, "Banking77": 1,
               "CLINC150": 0, "NLU": 0, "TREC-coarse": 0, "TREC-fine": 0, "DetectiveQA": 0, "InfBench-Sum": 1,
               "FactConsolidation-SH": 1, "FactConsolidation-MH": 1}
    df = frame([("rag", s, v, s) for s, v in sources.items()], "system query_id score stratum")
    row = md.score(md.prepare(df, scheme="memoryagentbench")).iloc[0]
    # AR = (1+1+0+0)/4 = .5; ICL = 1/5 = .2; TTL = (1 + .2)/2 = .6; LRU = .5; CR = 1
    # Overall = (.5 + .6 + .5 + 1)/4 = .65
    assert row[["overall", "AR", "TTL", "ICL", "LRU", "CR"]].tolist() == pytest.approx([65, 50, 60, 20, 50, 100])
    assert row["n"] == 14 and row["n_ReDial"] == 1


def test_score_meme_gated_table():
    rows = [("m", "d-a", 1, "Del", "after", "p1"), ("m", "d-b", 0, "Del", "before", "p1"),
            *[("m", f"{t}-a", 1, t, "after", None) for t in ("ER", "Agg", "Tr")],
            ("m", "c-a", 1, "Cas", "after", "p2"), ("m", "c-b", 1, "Cas", "before", "p2"),
            ("m", "x-a", 1, "Abs", "after", "p3"), ("m", "x-b", 1, "Abs", "before", "p3")]
    row = md.score(md.prepare(frame(rows, "system query_id score category phase pair_id"), scheme="meme")).iloc[0]
    # Del gated to 0 (before failed); the other five tasks 1: Overall = 5/6
    assert row["overall"] == pytest.approx(500 / 6) and row["Del"] == 0 and row["n"] == 6


def test_score_on_simulated_data_equals_pandas_mean_of_repetition_means():
    df = md.simulate(n_queries=300, systems=("rag", "m"), reference="rag", n_repeats=3, judge_error=0.1,
                     missing_rate=0.05, costs=False, seed=4)
    table = md.score(df).set_index("system")
    expected = df.assign(score=df["score"].fillna(0)).groupby(["system", "query_id"])["score"].mean() \
        .groupby("system").mean() * 100
    np.testing.assert_allclose(table["overall"], expected[table.index])
    per_category = df.assign(score=df["score"].fillna(0)).groupby(["system", "category", "query_id"])["score"] \
        .mean().groupby(["system", "category"]).mean().unstack() * 100
    np.testing.assert_allclose(table[per_category.columns], per_category.loc[table.index])


def test_score_unknown_scheme_and_missing_queries_are_errors():
    with pytest.raises(SchemeError, match="known: mean"):
        md.score(md.prepare(locomo_two_runs(), scheme="nope"))
    with pytest.raises(VerdictError, match="missing for some systems"):
        md.score(md.prepare(locomo_two_runs(), scheme="mean"))  # without the scheme's exclusion a1, a2 are unpaired
    assert len(md.score(md.prepare(locomo_two_runs(), scheme="mean", missing="drop"))) == 2


def test_score_example_data_with_the_example_scheme_file():
    df = pd.concat([pd.read_csv(f) for f in sorted(glob.glob(str(REPO / "data/example/verdicts/*.csv")))])
    plain = md.score(df).set_index("system")
    custom = md.score(md.prepare(df, scheme=REPO / "data/example/scheme_example.yaml")).set_index("system")
    # overall = ½ single-hop + ¼ multi-hop + ¼ temporal; open-domain excluded
    expected = plain["single-hop"] / 2 + plain["multi-hop"] / 4 + plain["temporal"] / 4
    np.testing.assert_allclose(custom["overall"], expected[custom.index])
    np.testing.assert_allclose(custom["reasoning"], (plain["multi-hop"] + plain["temporal"])[custom.index] / 2)
    assert custom["complete"].all() and (custom["n"] == plain["n"] - plain["n_open-domain"]).all()
    assert custom.attrs["scheme"] == "example-macro"


def _readers():
    formats = pytest.importorskip("memdiag.io.readers")
    if not hasattr(formats, "read_file"):
        pytest.skip("memdiag.io.readers.read_file is not written yet")
    from memdiag.io.verdicts import read_verdicts

    return read_verdicts


def test_score_real_locomo_runs_reproduce_published_numbers(real_data):
    read_verdicts = _readers()
    trpc = read_verdicts(real_data / "trpc-group__trpc-agent-go" / "data_nohistory_gpt4omini")  # 1,986 each
    others = read_verdicts(
        [real_data / "getzep__zep-papers" / "zep_locomo_grades.json",
         real_data / "memodb-io__memobase" / "memobase_eval_0710_3000.json",
         real_data / "Backboard-io__Backboard-Locomo-Benchmark"],
        system={"zep_locomo_grades.json": "zep", "memobase_eval_0710_3000.json": "memobase",
                "Backboard-io__Backboard-Locomo-Benchmark": "backboard"})
    table = md.score(md.prepare(pd.concat([trpc, others], ignore_index=True), scheme="locomo"),
                     options=dict(n_resamples=0)).set_index("system")
    # the 446 adversarial questions of the trpc runs are excluded before alignment: all pair on 1,540
    assert len(table) == 10 and (table["n"] == 1540).all() and table["complete"].all()
    assert table.attrs["notes"][0] == "scheme locomo: 446 queries of category 'adversarial' excluded"
    # the releases' own category names (see below) are what md.validate reports: named, not silent
    notes = table.attrs["notes"]
    assert "md.validate lists them" in notes[1]
    # ... with the convention each source follows, and the integer beside every name (SPEC §6.2):
    # Backboard's README "Single-Hop 89.36" is category 1, printed "1 (multi-hop)", never bare "multi-hop"
    assert "system 'backboard' names LoCoMo's categories by the mem0 convention: its 'single_hop' is " \
           "category 1, shown as '1 (multi-hop)' (SPEC §6.2)" in notes
    # the 7 trpc-agent-go runs share one note (said once), whose record names them all
    trpc_note = [n for n in notes if getattr(n, "code", None) == "category-convention" and "long_context" in n.concerns]
    assert len(trpc_note) == 1 and trpc_note[0].startswith("7 systems (") and len(trpc_note[0].concerns) == 7
    assert "name LoCoMo's categories by the trpc-agent-go convention" in trpc_note[0]
    assert notes[-1].startswith("locomo categories are the dataset's integers, shown with the locomo-paper names")
    assert table.attrs["category_ids"] == {"multi-hop": 1, "temporal": 2, "open-domain": 3, "single-hop": 4}
    assert table.attrs["convention"] == "locomo-paper"
    shown = render(table.reset_index(), "table").splitlines()[0]   # the header row
    assert "1 (multi-hop)" in shown and " multi-hop" not in shown.replace("(multi-hop)", "")
    # published (SOURCE.md of each release), canonical categories 1 multi-hop, 2 temporal,
    # 3 open-domain, 4 single-hop (the releases' own names for them differ); abs = half the last digit
    cats = ["overall", "multi-hop", "temporal", "open-domain", "single-hop"]
    assert table.loc["zep", "overall"] == pytest.approx(100 * 1157 / 1540)  # README 75.14 ± .17
    assert table.loc["zep", cats[1:]].tolist() == pytest.approx([74.11, 66.04, 67.71, 79.79], abs=0.0051)
    assert table.loc["memobase", cats].tolist() == pytest.approx([75.78, 70.92, 85.05, 46.88, 77.17], abs=0.0051)
    assert table.loc["backboard", cats].tolist() == pytest.approx([90.00, 89.36, 91.90, 75.00, 91.20], abs=0.0051)


def test_score_real_trpc_metrics_reproduce_report_over_all_1986_questions(real_data):
    trpc = _readers()(real_data / "trpc-group__trpc-agent-go" / "data_nohistory_gpt4omini")
    # REPORT.md Table 3.1 (F1 / BLEU / LLM): mean per-question metric over 1,986 questions
    published = {"long_context": (0.472, 0.429, 0.523), "rag_observation_pgvector": (0.325, 0.304, 0.359),
                 "agentic_pgvector": (0.294, 0.279, 0.287)}
    for k, metric in enumerate(("f1", "bleu", "llm_confidence")):
        table = md.score(trpc, metric=metric).set_index("system")
        assert (table["n"] == 1986).all()
        for system, values in published.items():
            assert table.loc[system, "overall"] == pytest.approx(100 * values[k], abs=0.05), (system, metric)
