"""LoCoMo category conventions (SPEC §6.2): every convention is checked against a released file or
a published number, and check_aggregate finds the one that reproduces a published overall."""

from __future__ import annotations

import glob
import itertools

import pandas as pd
import pytest

import memdiag as md
from memdiag.errors import VerdictError
from memdiag.io.schema import LOCOMO_CATEGORIES
from memdiag.panel import conventions as _conventions

# Mem0's published LoCoMo GPT-4o-mini category scores and overall (the Raw-RAG paper's A.1.3 quotes them)
MEM0 = {"single-hop": 67.13, "multi-hop": 51.15, "temporal": 55.51, "open-domain": 72.93}


def per_integer(df: pd.DataFrame) -> dict[int, float]:
    """Accuracy in points per LoCoMo integer of a release read by memdiag (canonical names -> integers)."""
    df = df[df["category"] != "adversarial"]
    ids = _conventions.category_ids(df["category"].unique())
    return {ids[c]: 100 * v for c, v in df.groupby("category")["score"].mean().items()}


def published_by_integer(published: dict[str, float], convention: str) -> dict[int, float]:
    return {_conventions.integer_of(name, convention): value for name, value in published.items()}


def test_canonical_convention_is_the_schema_and_the_counts_are_locomo10s(real_data):
    assert _conventions.canonical().names == LOCOMO_CATEGORIES
    assert _conventions.canonical().name == "locomo-paper"
    zep = md.read_verdicts(real_data / "getzep__zep-papers" / "zep_locomo_grades.json")
    counts = zep.groupby("category")["query_id"].nunique()
    ids = _conventions.category_ids(counts.index)
    assert {ids[c]: int(n) for c, n in counts.items()} == _conventions.counts(scored=True)
    assert sum(_conventions.counts(scored=True).values()) == 1540
    trpc = md.read_verdicts(real_data / "trpc-group__trpc-agent-go" / "data_nohistory_gpt4omini" / "long_context")
    assert int((trpc["category"] == "adversarial").sum()) == _conventions.counts()[5] == 446


def test_every_convention_maps_each_integer_to_one_name():
    for conv in _conventions.conventions().values():
        assert sorted(conv.names) == [1, 2, 3, 4, 5]
        assert len({_conventions._key(n) for n in conv.names.values()}) == 5, conv.name
        assert conv.sources, conv.name


def test_memobase_readme_scores_are_its_release_under_the_mem0_convention(real_data):
    # memodb-io/memobase README (SOURCE.md): v0.0.37 and v0.0.32
    readme = {"memobase_eval_0710_3000.json": {"Single-Hop": 70.92, "Multi-Hop": 46.88, "Open Domain": 77.17,
                                               "Temporal": 85.05},
              "memobase_eval_0503_3000.json": {"Single-Hop": 63.83, "Multi-Hop": 52.08, "Open Domain": 71.82,
                                               "Temporal": 80.37}}
    for name, published in readme.items():
        data = per_integer(md.read_verdicts(real_data / "memodb-io__memobase" / name))
        by_integer = published_by_integer(published, "mem0")
        assert by_integer == pytest.approx({k: data[k] for k in by_integer}, abs=0.0051)
        assert published_by_integer(published, "locomo-paper") != pytest.approx(
            {k: data[k] for k in by_integer}, abs=0.0051)


def test_backboard_labels_and_readme_follow_the_mem0_convention(real_data):
    df = md.read_verdicts(sorted(glob.glob(str(real_data / "Backboard-io__Backboard-Locomo-Benchmark" / "*.json"))))
    ids = _conventions.category_ids(df["category"].unique())
    labels = df.drop_duplicates("category").set_index("category")["source_category"]
    assert _conventions.identify({ids[c]: labels[c] for c in ids if c in labels}) == ["mem0"]
    readme = {"Single-Hop": 89.36, "Multi-Hop": 75.00, "Open Domain": 91.20, "Temporal": 91.90}
    assert published_by_integer(readme, "mem0") == pytest.approx(per_integer(df), abs=0.0051)
    # memdiag prints the README's "Single-Hop 89.36" as category 1 with its canonical name, never bare
    assert _conventions.labelled(LOCOMO_CATEGORIES[1]) == "1 (multi-hop)"


def test_trpc_labels_follow_the_trpc_convention(real_data):
    df = md.read_verdicts(real_data / "trpc-group__trpc-agent-go" / "data_nohistory_gpt4omini" / "long_context")
    df = df[df["category"] != "adversarial"]
    ids = _conventions.category_ids(df["category"].unique())
    labels = df.drop_duplicates("category").set_index("category")["source_category"]
    assert _conventions.identify({ids[c]: labels[c] for c in ids}) == ["trpc-agent-go"]


def test_zep_numbers_under_the_zep_readme_and_memobase_zep_row_conventions(real_data):
    data = per_integer(md.read_verdicts(real_data / "getzep__zep-papers" / "zep_locomo_grades.json"))
    assert data == pytest.approx({1: 74.11, 2: 66.04, 3: 67.71, 4: 79.79}, abs=0.0051)   # SOURCE.md
    zep_readme = {"Single-Hop": 79.79, "Multi-Hop": 74.11, "Open Domain": 66.04, "Temporal": 67.71}
    memobase_row = {"Single-Hop": 74.11, "Multi-Hop": 66.04, "Open Domain": 67.71, "Temporal": 79.79}
    assert published_by_integer(zep_readme, "zep-papers") == pytest.approx(data, abs=0.0051)
    assert published_by_integer(memobase_row, "memobase-zep-row") == pytest.approx(data, abs=0.0051)


def test_mem0_overall_is_consistent_only_under_mem0s_convention():
    # by hand under Mem0's names (single-hop 1: 282, multi-hop 3: 96, temporal 2: 321, open-domain 4: 841):
    # 67.13·282 + 51.15·96 + 55.51·321 + 72.93·841 = 18,930.66 + 4,910.40 + 17,818.71 + 61,334.13
    # = 102,993.90 over 1,540 = 66.87916 -> 66.88 (published)
    out = md.check_aggregate(MEM0, reported_overall=66.88, convention="infer")
    assert len(out) == 24 and int(out["consistent"].sum()) == 1
    top = out.iloc[0]
    assert top["convention"] == "mem0" and top["recomputed"] == pytest.approx(102_993.90 / 1540, abs=1e-9)
    assert top["assignment"] == "single-hop = 1 (282), multi-hop = 3 (96), temporal = 2 (321), open-domain = 4 (841)"
    assert out.attrs["consistent_conventions"] == ["mem0"]
    # an independent search: every permutation of the four counts, by hand
    counts = [282, 321, 96, 841]
    hits = [perm for perm in itertools.permutations(counts)
            if abs(sum(s * n for s, n in zip(MEM0.values(), perm)) / 1540 - 66.88) <= 0.01]
    assert hits == [(282, 96, 321, 841)]
    # the Raw-RAG paper's reading (LoCoMo paper names) gives 62.14: named as a mismatch
    paper = md.check_aggregate(MEM0, reported_overall=66.88, convention="locomo-paper")
    assert len(paper) == 1 and round(paper.loc[0, "recomputed"], 2) == 62.14 and not paper.loc[0, "consistent"]
    assert "the locomo-paper convention gives 62.14 (mismatch)" in out.attrs["notes"]


def test_memobase_readme_overalls_are_jointly_consistent_only_under_mem0s_convention():
    v37 = md.check_aggregate({"Single-Hop": 70.92, "Multi-Hop": 46.88, "Open Domain": 77.17, "Temporal": 85.05},
                             reported_overall=75.78, convention="infer")
    v32 = md.check_aggregate({"Single-Hop": 63.83, "Multi-Hop": 52.08, "Open Domain": 71.82, "Temporal": 80.37},
                             reported_overall=70.91, convention="infer")
    assert v37.attrs["consistent_conventions"] == ["mem0"] and int(v37["consistent"].sum()) == 1
    # 70.91 alone admits a second assignment (70.911 with the names of Memobase's Zep row), but
    # only Mem0's convention reproduces both published overalls
    assert set(v32.attrs["consistent_conventions"]) == {"mem0", "memobase-zep-row"}
    both = set(v37.loc[v37["consistent"], "assignment"]) & set(v32.loc[v32["consistent"], "assignment"])
    assert len(both) == 1 and v37.loc[0, "convention"] == "mem0"


def test_backboard_readme_overall_is_consistent_only_under_mem0s_convention():
    out = md.check_aggregate({"Single-Hop": 89.36, "Multi-Hop": 75.00, "Open Domain": 91.20, "Temporal": 91.90},
                             reported_overall=90.00, convention="infer")
    assert out.attrs["consistent_conventions"] == ["mem0"] and int(out["consistent"].sum()) == 1


def test_integer_labels_and_bad_names():
    out = md.check_aggregate({"1": 70.92, "2": 85.05, "3": 46.88, "4": 77.17}, reported_overall=75.78,
                             convention="dataset")
    assert out.loc[0, "consistent"] and out.loc[0, "n"] == 1540
    with pytest.raises(VerdictError, match="'reasoning' name no distinct category"):
        md.check_aggregate({"reasoning": 50.0, "temporal": 60.0}, reported_overall=55.0, convention="mem0")
    with pytest.raises(VerdictError, match="unknown locomo category convention 'nope'"):
        md.check_aggregate(MEM0, reported_overall=66.88, convention="nope")
    with pytest.raises(VerdictError, match="not both"):
        md.check_aggregate(MEM0, {k: 1 for k in MEM0}, 66.88, convention="mem0")


def test_flows_by_locomo_category_carry_the_integer(real_data):
    df = md.read_verdicts([real_data / "getzep__zep-papers" / "zep_locomo_grades.json",
                           real_data / "memodb-io__memobase" / "memobase_eval_0710_3000.json"],
                          system={"zep_locomo_grades.json": "zep", "memobase_eval_0710_3000.json": "memobase"})
    out = md.flows(df, reference="zep", by="category", options=dict(n_resamples=200))
    assert list(out.columns[:4]) == ["by", "group", "category_id", "system"]
    assert dict(zip(out["group"], out["category_id"])) == {"multi-hop": 1, "temporal": 2, "open-domain": 3,
                                                            "single-hop": 4}
    assert out.attrs["convention"] == "locomo-paper"
    plain = md.flows(md.simulate(n_queries=60, n_clusters=3, seed=1), reference="raw-rag", by="category",
                     options=dict(n_resamples=200))
    assert "category_id" not in plain       # categories of no benchmark with integer categories
