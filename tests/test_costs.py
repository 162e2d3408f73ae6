"""Cost and latency (issue 15, item 8): per-query costs with mean, median, P95 and intervals, cost
per correct answer, ratios between systems, system-level costs and sequential ingestion time.

Oracles: pandas group-bys and numpy quantiles of the data; the quantile bootstrap against the same
replicate weights applied by physically repeating the values (np.repeat) and np.quantile; the
jackknife intervals against leave-one-cluster-out estimates computed with pandas and scipy's t
quantile; the real trpc-agent-go release read with the json module.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import memdiag as md
from memdiag.cli import main
from memdiag.engine.designs import Design
from memdiag.engine.resampling import (
    quantile_bootstrap,
    replicate_weights,
    weighted_quantiles,
)
from memdiag.errors import VerdictError


def _frame(seed: int = 0, n_clusters: int = 6, per: int = 8) -> pd.DataFrame:
    """Three systems on the same clustered queries with latencies, tokens and 0/1 scores; system
    'slow' lacks the latency of its first two queries."""
    rng = np.random.default_rng(seed)
    n = n_clusters * per
    queries = [f"q{i:03d}" for i in range(n)]
    cluster = np.repeat([f"c{k}" for k in range(n_clusters)], per)
    rows = []
    for system, scale in (("rag", 1.0), ("mem", 3.0), ("slow", 8.0)):
        latency = np.round(rng.lognormal(np.log(scale), 0.5, n), 3)
        if system == "slow":
            latency[:2] = np.nan
        rows.append(pd.DataFrame({"system": system, "query_id": queries, "cluster": cluster,
                                  "score": (rng.random(n) < 0.6).astype(float), "latency_s": latency,
                                  "input_tokens": rng.integers(100, 5000, n).astype(float)}))
    return pd.concat(rows, ignore_index=True)


# --------------------------------------------------------------------------------------------
# the quantile engine
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n_units", [3, 40, 400])  # per-unit cumulative counts, and the block path
def test_weighted_quantiles_equal_numpy_on_the_physically_repeated_sample(n_units):
    rng = np.random.default_rng(n_units)
    for _ in range(40):
        n = int(rng.integers(1, 150))
        units = rng.integers(0, n_units, n)
        values = np.round(rng.normal(size=n), 1)  # ties included
        weights = rng.integers(0, 4, (6, n_units))
        levels = [0.0, 0.25, 0.5, 0.95, 1.0]
        got = weighted_quantiles(values, units, n_units, weights, levels)
        for b in range(6):
            sample = np.repeat(values, weights[b, units])
            want = np.quantile(sample, levels) if sample.size else np.full(len(levels), np.nan)
            np.testing.assert_allclose(got[b], want, rtol=0, atol=1e-12)


def test_quantile_bootstrap_replicates_are_quantiles_of_the_designs_resampled_data():
    rng = np.random.default_rng(5)
    cluster = np.repeat(np.arange(7), 9)
    design = Design("cluster", cluster=cluster)
    values = rng.lognormal(size=63)
    rows = np.flatnonzero(np.arange(63) % 5 != 0)  # a series with some queries missing
    res = quantile_bootstrap([(rows, values[rows])], design, (0.5, 0.95), n_resamples=300, seed=11,
                             return_distribution=True)
    weights = np.concatenate(list(replicate_weights(design, 300, seed=11)))
    expected = np.array([np.quantile(np.repeat(values[rows], w[cluster[rows]]), (0.5, 0.95)) for w in weights])
    np.testing.assert_allclose(res.distribution, expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res.estimate, np.quantile(values[rows], (0.5, 0.95)))
    np.testing.assert_allclose([res.ci_low[0], res.ci_high[0]], np.quantile(expected[:, 0], [0.025, 0.975]))


# --------------------------------------------------------------------------------------------
# md.costs
# --------------------------------------------------------------------------------------------
def test_costs_point_estimates_equal_pandas_on_the_queries_with_a_value():
    df = _frame()
    out = md.costs(df, options=dict(n_resamples=200)).set_index(["system", "quantity"])
    for (system, quantity), row in out.iterrows():
        part = df[df["system"] == system]
        have = part[part[quantity].notna()]
        assert row["n"] == len(have) and row["n_missing"] == len(part) - len(have)
        assert row["total"] == pytest.approx(have[quantity].sum())
        assert row["mean"] == pytest.approx(have[quantity].mean())
        assert row["median"] == pytest.approx(have[quantity].median())
        assert row["p95"] == pytest.approx(np.percentile(have[quantity], 95))
        assert row["correct"] == pytest.approx(have["score"].sum())
        assert row["per_correct"] == pytest.approx(have[quantity].sum() / have["score"].sum())
    assert out.loc[("slow", "latency_s"), "n_missing"] == 2
    assert any("slow: latency_s missing for 2" in n for n in out.attrs["notes"])


def test_costs_mean_and_per_correct_intervals_are_the_cluster_jackknife():
    df = _frame()
    out = md.costs(df, quantities=["latency_s"], options=dict(n_resamples=200)).set_index("system")
    assert out.attrs["design"] == "cluster" and "cluster jackknife, t(5)" in out.attrs["method"]
    t = stats.t.ppf(0.975, 5)
    for system in ("rag", "slow"):
        part = df[(df["system"] == system) & df["latency_s"].notna()]
        for column, value in (("mean", lambda p: p["latency_s"].sum() / len(p)),
                              ("per_correct", lambda p: p["latency_s"].sum() / p["score"].sum())):
            leave = np.array([value(part[part["cluster"] != c]) for c in sorted(part["cluster"].unique())])
            se = np.sqrt((len(leave) - 1) / len(leave) * ((leave - leave.mean()) ** 2).sum())
            estimate = out.loc[system, column]
            assert out.loc[system, f"{column}_ci_low"] == pytest.approx(max(estimate - t * se, 0.0))
            assert out.loc[system, f"{column}_ci_high"] == pytest.approx(estimate + t * se)


def test_costs_quantile_intervals_are_the_cluster_bootstrap_and_say_so():
    df = _frame()
    out = md.costs(df, quantities=["input_tokens"], options=dict(n_resamples=500, seed=3)).set_index("system")
    design = Design("cluster", cluster=np.repeat(np.arange(6), 8))
    weights = np.concatenate(list(replicate_weights(design, 500, seed=3)))
    values = df[df["system"] == "mem"].sort_values("query_id")["input_tokens"].to_numpy()
    medians = [np.median(np.repeat(values, w[design.unit_of])) for w in weights]
    low, high = np.quantile(medians, [0.025, 0.975])
    assert out.loc["mem", "median_ci_low"] == pytest.approx(low)
    assert out.loc["mem", "median_ci_high"] == pytest.approx(high)
    assert any("median and p95: percentile bootstrap (cluster)" in n and "under-covers" in n
               for n in out.attrs["notes"])


def test_costs_are_reproducible_for_a_seed_and_refuse_negative_costs():
    df = _frame()
    a, b = md.costs(df, options=dict(n_resamples=300, seed=4)), md.costs(df, options=dict(n_resamples=300, seed=4))
    pd.testing.assert_frame_equal(a, b)
    bad = df.copy()
    bad.loc[5, "latency_s"] = -1.0
    with pytest.raises(VerdictError, match="field 'latency_s': -1.0 is outside >= 0.0"):
        md.costs(bad, options=dict(n_resamples=200))
    with pytest.raises(VerdictError, match="column 'tokens_used' is negative"):
        md.costs(df.assign(tokens_used=np.where(df.index == 3, -5.0, 1.0)), options=dict(n_resamples=200))
    with pytest.raises(VerdictError, match="no per-query cost"):
        md.costs(df.drop(columns=["latency_s", "input_tokens"]), options=dict(n_resamples=200))


# --------------------------------------------------------------------------------------------
# ratios between systems
# --------------------------------------------------------------------------------------------
def test_cost_ratios_are_ratios_of_sums_on_the_shared_queries_with_jackknife_intervals():
    df = _frame()
    out = md.cost_ratios(df, quantities=["latency_s"], reference="rag", options=dict(n_resamples=500))
    assert list(out["system_a"]) == ["mem", "slow"] and (out["system_b"] == "rag").all()
    wide = df.pivot(index="query_id", columns="system", values="latency_s")
    clusters = df.drop_duplicates("query_id").set_index("query_id")["cluster"]
    t = stats.t.ppf(0.975, 5)
    for row in out.itertuples():
        both = wide[[row.system_a, "rag"]].dropna()
        assert row.n == len(both)
        assert row.ratio == pytest.approx(both[row.system_a].sum() / both["rag"].sum())
        leave = np.array([both.loc[clusters[both.index] != c, row.system_a].sum()
                          / both.loc[clusters[both.index] != c, "rag"].sum() for c in sorted(clusters.unique())])
        se = np.sqrt(5 / 6 * ((leave - leave.mean()) ** 2).sum())
        assert (row.ci_low, row.ci_high) == pytest.approx((row.ratio - t * se, row.ratio + t * se))
    assert out["p_adj"].tolist() == pytest.approx(md.adjust(out["p"].to_numpy()).tolist())


def test_cost_ratios_between_all_pairs_and_a_reference_without_the_quantity():
    df = _frame()
    out = md.cost_ratios(df, quantities=["latency_s"], options=dict(n_resamples=200))
    assert [(r.system_a, r.system_b) for r in out.itertuples()] == [("mem", "rag"), ("mem", "slow"), ("rag", "slow")]
    no_ref = df.assign(latency_s=np.where(df["system"] == "rag", np.nan, df["latency_s"]))
    out = md.cost_ratios(no_ref, reference="rag", options=dict(n_resamples=200))
    assert set(out["quantity"]) == {"input_tokens"}
    assert any("the reference 'rag' has no latency_s" in n for n in out.attrs["notes"])


def test_system_costs_give_each_value_and_its_ratio_to_the_reference():
    table = pd.DataFrame({"system": ["raw-rag", "mem0", "zep"], "family": ["rag", "memory", "memory"],
                          "ingestion_hours": [0.33, 3.25, 26.95], "ingestion_tokens": [0, 5e6, 2e6]})
    out = md.system_costs(table, reference="raw-rag")
    hours = out[out["quantity"] == "ingestion_hours"].set_index("system")
    assert hours["ratio"].to_dict() == pytest.approx({"raw-rag": 1.0, "mem0": 3.25 / 0.33, "zep": 26.95 / 0.33})
    assert out[out["quantity"] == "ingestion_tokens"]["ratio"].isna().all()  # the reference's value is 0
    assert set(out["quantity"]) == {"ingestion_hours", "ingestion_tokens"}  # family is not a number
    with pytest.raises(VerdictError, match="not in the systems table"):
        md.system_costs(table, reference="nope")


# --------------------------------------------------------------------------------------------
# sequential ingestion
# --------------------------------------------------------------------------------------------
def test_ingestion_curve_cumulates_durations_in_item_order_and_names_runs_that_stopped():
    log = pd.DataFrame({"system": ["rag", "rag", "rag", "mem", "mem"], "item": [3, 1, 2, 1, 2],
                        "duration_ms": [3000, 1000, 2000, 10_000, 20_000]})
    curve = md.ingestion_curve(log)
    assert curve[curve["system"] == "rag"]["cumulative_s"].tolist() == [1.0, 3.0, 6.0]  # items 1, 2, 3
    assert curve[curve["system"] == "mem"]["cumulative_s"].tolist() == [10.0, 30.0]
    assert any("mem at item 2" in n for n in curve.attrs["notes"])
    summary = md.ingestion(log, reference="rag").set_index("system")
    assert summary.loc["mem", "total_s"] == 30.0 and summary.loc["mem", "ratio"] == 5.0
    assert not summary.loc["mem", "complete"] and summary.loc["rag", "complete"]


def test_ingestion_reads_start_and_end_timestamps_and_refuses_bad_rows(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [
        {"system": "rag", "start": "2026-01-01T00:00:00Z", "end": "2026-01-01T00:00:02Z"},
        {"system": "rag", "start": "2026-01-01T00:00:02Z", "end": "2026-01-01T00:00:05Z"}]) + "\n")
    curve = md.ingestion_curve(md.read_ingestion_log(path))
    assert curve["cumulative_s"].tolist() == [2.0, 5.0]
    bad = tmp_path / "bad.csv"
    bad.write_text("system,item,duration_s\nrag,1,1.0\nrag,1,2.0\n")
    with pytest.raises(VerdictError, match=r"bad.csv, row 2: item 1 of system 'rag' is listed twice"):
        md.ingestion_curve(md.read_ingestion_log(bad))
    bad.write_text("system,duration_s\nrag,1.0\nrag,-2.0\n")
    with pytest.raises(VerdictError, match=r"row 2: the ingestion time .* negative"):
        md.ingestion_curve(md.read_ingestion_log(bad))
    with pytest.raises(VerdictError, match="needs duration_s"):
        md.ingestion_curve(pd.DataFrame({"system": ["a"], "when": [1]}))


def test_the_example_ingestion_log_sums_to_the_systems_tables_ingestion_hours():
    from memdiag.reporting import EXAMPLE

    table = pd.read_csv(EXAMPLE / "systems.csv").set_index("system")
    summary = md.ingestion(md.read_ingestion_log(EXAMPLE / "ingestion_log.csv")).set_index("system")
    assert (summary["n_items"] == 600).all()
    np.testing.assert_allclose(summary["total_hours"], table.loc[summary.index, "ingestion_hours"], atol=1e-5)


# --------------------------------------------------------------------------------------------
# real data and the command line
# --------------------------------------------------------------------------------------------
def test_costs_of_the_real_trpc_long_context_run_equal_its_released_latencies_and_tokens(real_data):
    path = real_data / "trpc-group__trpc-agent-go" / "data_nohistory_gpt4omini" / "long_context" / "results.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    items = [q for sample in raw["sample_results"] for q in sample["qa_results"]]
    latency = np.array([q["latency_ms"] for q in items]) / 1000
    tokens = np.array([q["tokens_used"] for q in items], dtype=float)
    out = md.costs(md.read_verdicts(path), options=dict(n_resamples=200)).set_index("quantity")
    assert out.loc["latency_s", "n"] == len(items) == 1986
    assert out.loc["latency_s", "mean"] == pytest.approx(latency.mean())
    assert out.loc["latency_s", "p95"] == pytest.approx(np.percentile(latency, 95))
    assert out.loc["tokens_used", "median"] == pytest.approx(np.median(tokens))


def test_cli_costs_prints_the_costs_ratios_system_costs_and_ingestion_tables(capsys):
    from memdiag.reporting import EXAMPLE

    code = main(["costs", str(EXAMPLE / "verdicts"), "--reference", "raw-rag", "--quantity", "latency_s",
                 "--systems-table", str(EXAMPLE / "systems.csv"), "--ingestion-log",
                 str(EXAMPLE / "ingestion_log.csv"), "--resamples", "200", "--format", "json"])
    assert code == 0
    tables = json.loads(capsys.readouterr().out)
    assert [t["provenance"]["function"] for t in tables] == ["costs", "cost_ratios", "system_costs", "ingestion"]
    assert {r["system_a"] for r in tables[1]["rows"]} == {"mem0", "zep", "memobase", "a-mem", "full-context",
                                                          "mem0+raw"}


def test_costs_flag_latencies_no_answer_could_have_and_keep_them(real_data):
    folder = real_data / "saxenauts__persona"
    df = md.read_verdicts([folder / "benchmark_persona_sampled_valid.json",
                           folder / "benchmark_mem0_vector_final.json"])
    out = md.costs(df, options=dict(n_resamples=200))
    assert (out["median"] < 1e-3).all() and len(out) == 3  # the release's ~1e-6 s values, reported as they are
    flagged = [n for n in out.attrs["notes"] if "check the unit or the timer" in n]
    assert sorted(n.split(":")[0] for n in flagged) == ["Mem0", "Mem0 (Vector)", "Persona"]
    zep = md.costs(md.read_verdicts(folder / "benchmark_zep_initial_single_session.json"),
                   options=dict(n_resamples=200))
    assert not any("check the unit" in n for n in zep.attrs["notes"])


def test_costs_make_the_totals_of_their_parts_as_tables_6_and_32_do():
    df = _frame().assign(output_tokens=lambda d: (d["input_tokens"] // 10).astype(float),
                         add_latency_s=lambda d: d["latency_s"] * 2, search_latency_s=lambda d: d["latency_s"])
    out = md.costs(df, options=dict(n_resamples=200)).set_index(["system", "quantity"])
    quantities = list(dict.fromkeys(q for _, q in out.index))
    assert quantities == ["latency_s", "add_latency_s", "search_latency_s", "total_latency_s", "input_tokens",
                          "output_tokens", "total_tokens"]
    mem = df[df["system"] == "mem"]
    assert out.loc[("mem", "total_tokens"), "total"] == (mem["input_tokens"] + mem["output_tokens"]).sum()
    assert out.loc[("slow", "total_latency_s"), "n"] == 46  # a part missing leaves the total missing
    assert out.loc[("rag", "total_latency_s"), "mean"] == pytest.approx(3 * df[df["system"] == "rag"]["latency_s"].mean())
