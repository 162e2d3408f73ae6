"""The Raw-RAG paper's C.6 procedure as one call (Tables 25, 27/28), checked against statsmodels."""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.contingency_tables import cochrans_q as sm_cochrans_q
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.multitest import multipletests

import memdiag as md
from memdiag.errors import VerdictError

SYSTEMS = ("raw-rag", "mem0", "zep", "memmachine")


def test_raw_rag_c6_on_memoryagentbench_is_cochran_then_exact_mcnemar_with_holm():
    df = md.simulate_memoryagentbench(n_per_source=15, systems=SYSTEMS, seed=4)
    out = md.evidence_procedure(df, options=dict(design="stratified", n_resamples=1000))
    suff = df.pivot_table(index="query_id", columns="system", values="sufficient")
    cov = out.pairs[out.pairs["metric"] == "coverage"]
    for row in cov.itertuples():
        a, b = suff[row.system_a] > 0.5, suff[row.system_b] > 0.5
        table = [[int((a & b).sum()), int((a & ~b).sum())], [int((~a & b).sum()), int((~a & ~b).sum())]]
        assert row.p == pytest.approx(sm_mcnemar(table, exact=True).pvalue, rel=1e-12)
    np.testing.assert_allclose(cov["p_adj"], multipletests(cov["p"].astype(float), method="holm")[1])
    q = sm_cochrans_q(suff[list(out.omnibus.attrs.get("systems", suff.columns))].to_numpy())
    row = out.omnibus.set_index("metric").loc["coverage"]
    assert row["test"] == "Cochran's Q" and row["statistic"] == pytest.approx(q.statistic)
    assert row["df"] == len(SYSTEMS) - 1 and row["p"] == pytest.approx(q.pvalue)
    assert row["n_pairs"] == 6 and row["holm_significant"] == int((cov["p_adj"] < 0.05).sum())
    # the intervals are the stratified percentile bootstrap; utilization keeps its sign tests
    util = out.pairs[out.pairs["metric"] == "utilization"]
    assert set(cov["method"]) == {"percentile bootstrap (stratified)"}
    assert all(t.startswith(("bootstrap sign test (stratified)", "exact sign-flip")) for t in util["test"])
    # Tables 27/28: coverage above the diagonal, utilization below
    first = cov.iloc[0]
    i, j = list(out.matrix.index).index(first["system_a"]), list(out.matrix.columns).index(first["system_b"])
    cell = out.matrix.loc[first["system_a"], first["system_b"]] if i < j else \
        out.matrix.loc[first["system_b"], first["system_a"]]
    assert f"{abs(first['diff']):.2f}" in cell
    assert any("treat the questions as independent" in n for n in out.omnibus.attrs["notes"])


def test_raw_rag_c6_on_meme_uses_the_episode_bootstrap_and_says_what_it_assumes():
    df = md.simulate_meme(n_episodes=20, systems=("raw-rag", "mem0", "zep"), seed=6)
    out = md.evidence_procedure(df, options=dict(n_resamples=500))
    assert set(out.omnibus["test"]) == {"centered max-range bootstrap (cluster)"}
    # (a pair on at most 16 differing episodes gets the exact sign-flip p, SPEC §4.1's rule for every method)
    assert all(t.startswith(("bootstrap sign test (cluster)", "wild cluster bootstrap-t, exact"))
               for t in out.pairs["test"])
    assert any("under-cover" in n for n in out.pairs.attrs["notes"])
    assert out.omnibus.attrs["procedure"] == "raw-rag-c6"


def test_holm_significant_counts_at_one_minus_the_options_level():
    df = md.simulate_memoryagentbench(n_per_source=6, systems=("raw-rag", "mem0", "zep", "letta"), seed=3)
    counts = []
    for level, alpha in ((0.95, 0.05), (0.5, 0.5)):
        out = md.evidence_procedure(df, options=dict(design="stratified", n_resamples=300, confidence_level=level))
        counted = out.pairs.assign(hit=out.pairs["p_adj"].astype(float) < alpha).groupby("metric")["hit"].sum()
        counts.append(out.omnibus.set_index("metric")["holm_significant"].to_dict())
        assert counts[-1] == counted.to_dict()
    assert counts[0] != counts[1]
    assert out.matrix.attrs["alpha"] == 0.5 and out.matrix.attrs["notes"][1].endswith("p < 0.50")


def test_procedure_defaults_and_errors():
    df = md.simulate_memoryagentbench(n_per_source=3, systems=("raw-rag", "mem0", "zep"), seed=1)
    out = md.evidence_procedure(df, options=dict(design="stratified"))
    assert out.omnibus["n_resamples"].dropna().tolist() == [50_000]
    with pytest.raises(VerdictError, match="unknown procedure"):
        md.evidence_procedure(df, "paper-x")


def test_procedure_keeps_its_own_settings_unless_the_options_set_them():
    df = md.simulate_memoryagentbench(n_per_source=3, systems=("raw-rag", "mem0"), seed=1)

    def b(options):
        return sorted(set(md.evidence_procedure(df, options=options).omnibus["n_resamples"].dropna()))

    assert b(md.Options(design="stratified")) == [50_000]          # the Options default stands for "not set"
    assert b({"design": "stratified", "n_resamples": 20_000}) == [20_000]   # a mapping that names it sets it
    assert b(md.Options(design="stratified", n_resamples=300)) == [300]
    assert b(md.Options(design="stratified", inference="percentile", n_resamples=300)) == [300]
    for options in ({"inference": "jackknife"}, {"correction": "bonferroni"}):
        with pytest.raises(VerdictError, match="the procedure fixes"):
            md.evidence_procedure(df, options=options)
