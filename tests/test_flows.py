"""Benefit/tax flows (SPEC §2) against independent computations: crosstabs, statsmodels, by hand."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.multitest import multipletests

import memdiag as md
from memdiag.cli import main

TRPC = "trpc-group__trpc-agent-go/data_nohistory_gpt4omini"


@pytest.fixture(scope="module")
def trpc_runs(real_data):
    runs = ["auto_pgvector", "rag_observation_pgvector", "long_context", "agentic_pgvector"]
    return md.read_verdicts([real_data / TRPC / run / "results.json" for run in runs])


def _crosstab(df: pd.DataFrame, reference: str, system: str) -> pd.DataFrame:
    wide = df.pivot_table(index="query_id", columns="system", values="score", aggfunc="mean") > 0.5
    return pd.crosstab(wide[reference], wide[system])


def test_flows_match_crosstab_on_trpc_locomo(trpc_runs):
    out = md.flows(trpc_runs, reference="rag_observation_pgvector", options=dict(n_resamples=2_000)).set_index("system")
    # published in the issue: auto vs RAG 258 / 236, long-context vs RAG 539 / 197 over 1,986 questions
    assert (out.loc["auto_pgvector", "benefit"], out.loc["auto_pgvector", "tax"]) == (258, 236)
    assert (out.loc["long_context", "benefit"], out.loc["long_context", "tax"]) == (539, 197)
    for system in out.index:
        table = _crosstab(trpc_runs, "rag_observation_pgvector", system)
        assert out.loc[system, "both"] == table.loc[True, True]
        assert out.loc[system, "benefit"] == table.loc[False, True]
        assert out.loc[system, "tax"] == table.loc[True, False]
        assert out.loc[system, "neither"] == table.loc[False, False]
        assert out.loc[system, "n"] == 1986
        p = sm_mcnemar(table.to_numpy(), exact=True).pvalue
        # LoCoMo's conversations make the cluster design's test the headline p; exact McNemar is
        # kept beside it, and is the headline under iid
        assert out.loc[system, "p_mcnemar"] == pytest.approx(p, rel=1e-12)
    assert out["test"].str.startswith("wild cluster bootstrap-t").all()
    iid = md.flows(trpc_runs, reference="rag_observation_pgvector", options=dict(design="iid", n_resamples=500))
    np.testing.assert_array_equal(iid["p"], iid["p_mcnemar"])
    assert (iid["test"] == "exact McNemar").all()


def test_net_equals_accuracy_difference_times_n(trpc_runs):
    out = md.flows(trpc_runs, reference="rag_observation_pgvector", options=dict(n_resamples=500))
    acc = trpc_runs.groupby("system")["score"].mean()
    for _, row in out.iterrows():
        diff = acc[row["system"]] - acc["rag_observation_pgvector"]
        assert row["net"] == pytest.approx(diff * row["n"], abs=1e-9)
        assert row["net_rate"] == pytest.approx(100 * diff, abs=1e-10)  # points


def test_holm_adjustment_across_systems_matches_statsmodels(trpc_runs):
    out = md.flows(trpc_runs, reference="rag_observation_pgvector", options=dict(n_resamples=500))
    expected = multipletests(out["p"], method="holm")[1]
    np.testing.assert_allclose(out["p_adj"], expected, rtol=1e-12)


def test_flows_by_hand_small_case_with_rates_and_undefined_recovery():
    # reference right on q1..q3, wrong on q4; mem right on q1, q2, q4 -> a=2, b=1, c=1, d=0
    df = pd.DataFrame({"system": ["rag"] * 4 + ["mem"] * 4, "query_id": ["q1", "q2", "q3", "q4"] * 2,
                       "score": [1, 1, 1, 0, 1, 1, 0, 1]})
    row = md.flows(df, reference="rag", options=dict(n_resamples=300)).iloc[0]
    assert (row["both"], row["benefit"], row["tax"], row["neither"], row["net"]) == (2, 1, 1, 0, 0)
    # rates in points: b/N = 1/4, c/N = 1/4, a/(a + c) = 2/3, b/(b + d) = 1/1
    assert row["benefit_rate"] == 25.0 and row["tax_rate"] == 25.0 and row["net_rate"] == 0
    assert row["retention"] == pytest.approx(200 / 3) and row["recovery"] == 100.0
    assert row["p"] == 1.0  # 2 * P(Bin(2, .5) <= 1) = 1.5 -> capped at 1


def test_flows_threshold_binarises_fractional_scores():
    df = pd.DataFrame({"system": ["rag", "rag", "mem", "mem"], "query_id": ["a", "b", "a", "b"],
                       "score": [0.6, 0.6, 0.7, 0.9]})
    assert md.flows(df, reference="rag", options=dict(n_resamples=100)).iloc[0]["both"] == 2
    strict = md.flows(md.prepare(df, threshold=0.65), reference="rag", options=dict(n_resamples=100)).iloc[0]
    assert (strict["both"], strict["benefit"]) == (0, 2)


def test_flows_by_category_equals_flows_on_each_category_subset():
    df = md.simulate(n_queries=400, seed=3)
    reference = df.attrs["truth"]["reference"]
    by = md.flows(df, reference=reference, by="category", options=dict(n_resamples=300, seed=1))
    for group, part in by.groupby("group"):
        alone = md.flows(df[df["category"] == group], reference=reference, options=dict(n_resamples=300, seed=1))
        pd.testing.assert_frame_equal(part.drop(columns=["by", "group"]).reset_index(drop=True),
                                      alone, check_dtype=False)


def test_several_references_stack_one_block_each():
    df = md.simulate(n_queries=300, seed=5)
    systems = sorted(df["system"].unique())
    out = md.flows(df, reference=systems[:2], options=dict(n_resamples=200))
    assert set(out["reference"]) == set(systems[:2])
    assert len(out) == 2 * (len(systems) - 1)


def test_rate_intervals_contain_the_estimate_and_are_seeded():
    df = md.simulate(n_queries=500, seed=7)
    reference = df.attrs["truth"]["reference"]
    for design in ("iid", None):     # None: the simulated 30 conversations, cluster jackknife intervals
        a = md.flows(df, reference=reference, options=dict(design=design, n_resamples=1_000, seed=11))
        b = md.flows(df, reference=reference, options=dict(design=design, n_resamples=1_000, seed=11))
        pd.testing.assert_frame_equal(a, b)
        for rate in ("benefit_rate", "tax_rate", "net_rate", "retention", "recovery"):
            assert (a[f"{rate}_ci_low"] <= a[rate]).all() and (a[rate] <= a[f"{rate}_ci_high"]).all()
        c = md.flows(df, reference=reference, options=dict(design=design, n_resamples=1_000, seed=12))
        # bootstrap intervals move with the seed; jackknife intervals have none
        assert np.allclose(a["net_rate_ci_low"], c["net_rate_ci_low"]) == (design is None)


def test_unknown_reference_is_a_clear_error():
    df = pd.DataFrame({"system": ["a", "b"], "query_id": ["q", "q"], "score": [1, 0]})
    with pytest.raises(md.VerdictError, match="system 'rag' is not in the data"):
        md.flows(df, reference="rag", options=dict(n_resamples=100))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=60))
def test_benefit_minus_tax_is_n_times_accuracy_difference(pairs):
    ref = [float(r) for r, _ in pairs]
    mem = [float(m) for _, m in pairs]
    ids = [f"q{i}" for i in range(len(pairs))]
    df = pd.DataFrame({"system": ["rag"] * len(ids) + ["mem"] * len(ids), "query_id": ids * 2,
                       "score": ref + mem})
    row = md.flows(df, reference="rag", options=dict(n_resamples=50)).iloc[0]
    assert row["benefit"] - row["tax"] == pytest.approx(sum(mem) - sum(ref))
    assert row["both"] + row["benefit"] + row["tax"] + row["neither"] == len(ids)


def test_replay_lists_every_query_in_the_cell_the_flows_count(tmp_path):
    verdicts = Path(__file__).resolve().parents[1] / "data" / "example" / "verdicts"
    df = md.read_verdicts(verdicts)
    cells = md.replay(df, "raw-rag")
    table = md.flows(df, reference="raw-rag", options=dict(n_resamples=200)).set_index("system")
    counts = cells.groupby(["system", "cell"]).size().unstack()
    for system, row in table.iterrows():  # the same cells as the flows, query by query
        assert [int(counts.loc[system, c]) for c in ("both", "benefit", "tax", "neither")] == \
            [row["both"], row["benefit"], row["tax"], row["neither"]]
    one = cells[(cells["system"] == "mem0") & (cells["cell"] == "benefit")]
    assert ((one["score_system"] > 0.5) & (one["score_reference"] <= 0.5)).all()
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["flows", str(verdicts), "--reference", "raw-rag", "--resamples", "200",
                     "--replay", str(tmp_path / "replay")])
    assert code == 0 and "per-query replay of every flow cell written to" in err.getvalue()
    written = pd.read_csv(tmp_path / "replay" / "replay.csv")
    assert len(written) == len(cells) and list(written.columns) == list(cells.columns)
    lines = (tmp_path / "replay" / "replay.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(cells) and json.loads(lines[0])["cell"] == "benefit"
    with redirect_stdout(out), redirect_stderr(err):  # the files exist now: refused without --force
        assert main(["flows", str(verdicts), "--reference", "raw-rag", "--resamples", "200",
                     "--replay", str(tmp_path / "replay")]) == 2


def test_replay_keeps_question_expected_answer_and_responses_of_the_real_release(real_data):
    files = [real_data / "getzep__zep-papers" / "zep_locomo_grades.json",
             real_data / "memodb-io__memobase" / "memobase_eval_0710_3000.json"]
    cells = md.replay(md.read_verdicts(files), "memobase_eval_0710_3000")
    first = cells[cells["query_id"] == "locomo:conv-26:000"].iloc[0]
    assert first["question"] == "When did Caroline go to the LGBTQ support group?"
    assert first["expected"] == "7 May 2023"
    assert first["response_system"] == "Caroline went to the LGBTQ support group on May 7, 2023."  # Zep's answer
    assert first["response_reference"] == "7 May 2023"  # Memobase's answer
