"""Repeated end-to-end runs of one system (issue 22): a ``run`` column, distinct from judge repeats."""

from __future__ import annotations

import json
import statistics

import numpy as np
import pandas as pd
import pytest
from recipe_files import write_recipe

import memdiag as md
from memdiag.errors import VerdictError


@pytest.fixture
def runs():
    # system "mem": three runs on four queries, each answer judged twice (repeat 0, 1)
    #   run r1: q1 1 1, q2 1 0, q3 0 0, q4 1 1  -> per-run mean over judgments 5/8 = 62.5
    #   run r2: q1 1 1, q2 1 1, q3 0 0, q4 0 0  -> 4/8 = 50.0
    #   run r3: q1 1 1, q2 0 0, q3 1 0, q4 1 1  -> 5/8 = 62.5
    # system "rag": one run: q1 1 1, q2 0 0, q3 0 0, q4 1 1 -> 50.0
    mem = {"r1": [(1, 1), (1, 0), (0, 0), (1, 1)], "r2": [(1, 1), (1, 1), (0, 0), (0, 0)],
           "r3": [(1, 1), (0, 0), (1, 0), (1, 1)]}
    rows = [{"system": "mem", "run": r, "query_id": f"q{i + 1}", "repeat": k, "score": v}
            for r, answers in mem.items() for i, pair in enumerate(answers) for k, v in enumerate(pair)]
    rows += [{"system": "rag", "query_id": f"q{i + 1}", "repeat": k, "score": v}
             for i, pair in enumerate([(1, 1), (0, 0), (0, 0), (1, 1)]) for k, v in enumerate(pair)]
    return pd.DataFrame(rows)


def test_score_is_the_mean_of_the_runs_with_their_sd(runs):
    table = md.score(runs, options=dict(n_resamples=0)).set_index("system")
    assert table.loc["mem", "overall"] == pytest.approx((62.5 + 50.0 + 62.5) / 3)
    assert table.loc["mem", "runs"] == 3 and table.loc["rag", "runs"] == 1
    assert table.loc["mem", "run_sd"] == pytest.approx(statistics.stdev([62.5, 50.0, 62.5]))   # ddof=1: 7.217
    assert np.isnan(table.loc["rag", "run_sd"])
    note = [n for n in table.attrs["notes"] if getattr(n, "code", None) == "runs"][0]
    assert "r1 62.50, r2 50.00, r3 62.50" in note and "ddof=1" in note


def test_rules_apply_within_each_run(runs):
    # majority within each run (a 1/0 tie scores 0): r1 q1 q4 -> 50, r2 q1 q2 -> 50, r3 q1 q4 -> 50
    table = md.score(md.prepare(runs, judges="majority"), options=dict(n_resamples=0)).set_index("system")
    assert table.loc["mem", "overall"] == pytest.approx(50.0)
    # judgment 1 alone: r1 1 0 0 1 (50), r2 1 1 0 0 (50), r3 1 0 0 1 (50)
    table = md.score(md.prepare(runs, judges="repeat:1"), options=dict(n_resamples=0)).set_index("system")
    assert table.loc["mem", "overall"] == pytest.approx(50.0)


def test_paired_analyses_use_the_per_query_mean_over_runs(runs):
    prep = md.prepare(runs, systems=["mem", "rag"])
    # per query: mean over runs of each run's mean over judgments
    # q1 (1+1+1)/3 = 1, q2 (.5+1+0)/3 = .5, q3 (0+0+.5)/3 = 1/6, q4 (1+0+1)/3 = 2/3
    assert prep.panel.scores[:, 0] == pytest.approx([1.0, 0.5, 1 / 6, 2 / 3])
    assert prep.n == 4 and prep.design == "iid"
    assert any(n.startswith("runs mean: each answer scored per run") for n in prep.notes)
    flows = md.flows(prep, "rag", options=dict(n_resamples=100))
    # correct = score > 0.5: mem 1 0 0 1, rag 1 0 0 1 -> no benefit, no tax
    assert flows[["benefit", "tax"]].iloc[0].tolist() == [0, 0]


def test_recipe_run_key_reads_runs_of_one_system(tmp_path):
    for run, votes in (("run1", [True, False]), ("run2", [True, True])):
        (tmp_path / run).mkdir()
        (tmp_path / run / "eval.json").write_text(json.dumps([{"id": "a", "ok": votes[0]}, {"id": "b", "ok": votes[1]}]))
    recipe = {"sources": [{"files": ["*/eval.json"], "system": "mem", "run": "{folder}",
                           "fields": {"query_id": "id", "score": "ok"}}]}
    df = md.read_verdicts(recipe=write_recipe(tmp_path, recipe))
    assert sorted(df["run"].unique()) == ["run1", "run2"] and set(df["repeat"]) == {0}
    table = md.score(df, options=dict(n_resamples=0))
    assert table["overall"].iloc[0] == pytest.approx(75.0) and table["runs"].iloc[0] == 2
    bad = {"sources": [{"files": ["*/eval.json"], "system": "mem", "fields": {"query_id": "id", "score": "ok"}}]}
    with pytest.raises(VerdictError, match="duplicate verdict"):   # two runs, no run label: refused
        md.read_verdicts(recipe=write_recipe(tmp_path, bad))


def test_validate_counts_runs_apart_from_repeats(runs):
    summary = md.validate(runs).set_index("system")
    assert summary.loc["mem", "repeats"] == "2" and summary.loc["mem", "runs"] == 3   # 2 judgments per run
    assert summary.loc["mem", "queries"] == 4 and summary.loc["rag", "runs"] == 1


def test_the_runs_note_counts_each_systems_own_runs():
    # review of issue 22: two systems with two runs each, four run names: the note said "its 4 runs"
    rows = [{"system": s, "run": f"{s}-{r}", "query_id": q, "score": 1.0}
            for s in ("a", "b") for r in (1, 2) for q in ("q1", "q2")]
    rows += [{"system": "c", "run": f"c-{r}", "query_id": q, "score": 0.0} for r in (1, 2, 3) for q in ("q1", "q2")]
    note = next(n for n in md.prepare(pd.DataFrame(rows)).notes if n.startswith("runs mean"))
    assert "over its system's runs (a 2; b 2; c 3; run names" in note
