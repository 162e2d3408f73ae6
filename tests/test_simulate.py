"""simulate(): synthetic verdicts whose realised rates match the truth they were drawn from."""

from __future__ import annotations

import filecmp
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import memdiag as md
from memdiag.synthetic import EXAMPLE_SEED, write_example

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "data" / "example"


def labels(df: pd.DataFrame) -> pd.DataFrame:
    """(N, S) binary correctness of the first judgment."""
    return df[df["repeat"] == 0].pivot(index="query_id", columns="system", values="score")


def anova_icc(values: np.ndarray, clusters: np.ndarray) -> float:
    """One-way ANOVA ICC estimator (unequal cluster sizes): (MSB − MSW) / (MSB + (n0 − 1) MSW)."""
    frame = pd.DataFrame({"y": values, "k": clusters})
    groups = frame.groupby("k")["y"]
    sizes, means = groups.size().to_numpy(), groups.mean().to_numpy()
    n, k = len(values), len(sizes)
    msb = (sizes * (means - values.mean()) ** 2).sum() / (k - 1)
    msw = ((frame["y"] - groups.transform("mean")) ** 2).sum() / (n - k)
    n0 = (n - (sizes ** 2).sum() / n) / (k - 1)
    return (msb - msw) / (msb + (n0 - 1) * msw)


def test_same_seed_gives_identical_frames_and_different_seeds_differ():
    args = dict(n_queries=200, n_repeats=3, judge_error=0.1, missing_rate=0.05, icc=0.2,
                sufficiency={"raw-rag": (0.7, 0.8), "mem0": (0.5, 0.9), "zep": (0.6, 0.8)})
    first, second = md.simulate(seed=7, **args), md.simulate(seed=7, **args)
    pd.testing.assert_frame_equal(first, second)
    assert first.attrs["truth"] == second.attrs["truth"]
    assert not first["score"].equals(md.simulate(seed=8, **args)["score"])
    pd.testing.assert_frame_equal(first, md.simulate(seed=np.random.default_rng(7), **args))


def test_simulate_never_touches_the_global_rng():
    np.random.seed(123)
    expected = np.random.random()
    np.random.seed(123)
    md.simulate(n_queries=50, seed=1)
    assert np.random.random() == expected


def test_output_is_canonical_and_alignable():
    df = md.simulate(n_queries=120, n_strata=3, n_repeats=2, missing_rate=0.05, seed=2,
                     sufficiency={"raw-rag": (0.7, 0.8), "mem0": (0.5, 0.9), "zep": (0.6, 0.8)})
    checked = md.check(df)
    assert list(checked.columns) == ["system", "query_id", "score", "repeat", "cluster", "stratum", "category",
                                     "sufficient", "input_tokens", "output_tokens", "evidence_tokens", "latency_s"]
    panel = md.align(df)
    assert panel.n == 120 and panel.systems == ("mem0", "raw-rag", "zep")
    # clusters nest in strata; every cluster has at least one query
    assert (df.groupby("cluster")["stratum"].nunique() == 1).all() and df["cluster"].nunique() == 30
    # per-answer columns are constant over the judge repetitions of that answer
    assert (df.groupby(["system", "query_id"])[["sufficient", "input_tokens"]].nunique() == 1).all().all()


def test_realised_benefit_tax_and_accuracy_match_the_requested_rates():
    n = 40_000
    benefit, tax = {"mem0": 0.08, "zep": 0.15}, {"mem0": 0.14, "zep": 0.05}
    df = md.simulate(n_queries=n, systems=("raw-rag", "mem0", "zep"), accuracy=0.62, benefit=benefit, tax=tax,
                     n_clusters=400, costs=False, seed=5)
    truth = df.attrs["truth"]
    y = labels(df)
    for system in ("mem0", "zep"):
        cells = {"a": ((y["raw-rag"] == 1) & (y[system] == 1)).mean(),
                 "b": ((y["raw-rag"] == 0) & (y[system] == 1)).mean(),
                 "c": ((y["raw-rag"] == 1) & (y[system] == 0)).mean(),
                 "d": ((y["raw-rag"] == 0) & (y[system] == 0)).mean()}
        for cell, p in truth["cells"][system].items():
            se = np.sqrt(p * (1 - p) / n)  # binomial SE of a cell proportion
            assert abs(cells[cell] - p) < 4.5 * se, (system, cell, cells[cell], p)
        assert truth["benefit"][system] == benefit[system] and truth["tax"][system] == tax[system]
        acc = truth["accuracy"][system]
        assert acc == pytest.approx(0.62 + benefit[system] - tax[system])
        assert abs(y[system].mean() - acc) < 4.5 * np.sqrt(acc * (1 - acc) / n)


def test_any_two_of_accuracy_benefit_tax_fix_the_third():
    truth = md.simulate(n_queries=40, systems=("r", "a", "b", "c", "d"), reference="r",
                        accuracy={"r": 0.6, "a": 0.7, "b": 0.5, "c": 0.6},
                        benefit={"a": 0.2, "d": 0.05}, tax={"b": 0.3}, seed=0).attrs["truth"]
    assert truth["tax"]["a"] == pytest.approx(0.6 + 0.2 - 0.7)          # accuracy + benefit
    assert truth["benefit"]["b"] == pytest.approx(0.5 - 0.6 + 0.3)      # accuracy + tax
    assert truth["benefit"]["c"] == pytest.approx(0.4 * 0.6)            # accuracy alone: independent errors
    assert truth["tax"]["c"] == pytest.approx(0.6 * 0.4)
    assert truth["tax"]["d"] == 0.10 and truth["accuracy"]["d"] == pytest.approx(0.55)  # default tax


def test_intra_cluster_correlation_roughly_as_requested():
    df = md.simulate(n_queries=12_000, systems=("raw-rag", "mem0"), accuracy=0.6, benefit=0.05, tax=0.2,
                     n_clusters=400, icc=0.2, costs=False, seed=9)
    y = df[df["repeat"] == 0]
    for system in ("raw-rag", "mem0"):
        part = y[y["system"] == system]
        estimate = anova_icc(part["score"].to_numpy(), part["cluster"].to_numpy())
        assert abs(estimate - df.attrs["truth"]["icc_by_system"][system]) < 0.05, (system, estimate)
    assert df.attrs["truth"]["icc_by_system"]["raw-rag"] == 0.2
    flat = md.simulate(n_queries=12_000, systems=("raw-rag", "mem0"), n_clusters=400, costs=False, seed=9)
    part = flat[flat["system"] == "raw-rag"]
    assert abs(anova_icc(part["score"].to_numpy(), part["cluster"].to_numpy())) < 0.03


def test_judge_noise_and_missing_verdicts_at_the_requested_rates():
    n = 20_000
    df = md.simulate(n_queries=n, systems=("raw-rag", "m"), n_repeats=3, judge_error=0.1, missing_rate=0.02,
                     costs=False, seed=3)
    assert abs(df["score"].isna().mean() - 0.02) < 4.5 * np.sqrt(0.02 * 0.98 / len(df))
    judged = df.dropna(subset=["score"]).pivot_table(index=["system", "query_id"], columns="repeat",
                                                     values="score")
    # two repetitions of one answer disagree when exactly one flipped: 2 e (1 − e) = 0.18
    pair = judged[[0, 1]].dropna()
    disagree = (pair[0] != pair[1]).mean()
    assert abs(disagree - 0.18) < 4.5 * np.sqrt(0.18 * 0.82 / len(pair))


def test_sufficiency_gives_requested_coverage_and_utilization():
    n = 30_000
    requested = {"raw-rag": (0.7, 0.8), "mem0": (0.5, 0.9)}
    df = md.simulate(n_queries=n, systems=("raw-rag", "mem0"), accuracy=0.6, benefit=0.1, tax=0.15,
                     sufficiency=requested, costs=False, seed=6)
    y = df[df["repeat"] == 0]
    for system, (cov, util) in requested.items():
        part = y[y["system"] == system]
        covered = part["sufficient"] == 1
        assert abs(covered.mean() - cov) < 4.5 * np.sqrt(cov * (1 - cov) / n)
        m = covered.sum()
        assert abs(part.loc[covered, "score"].mean() - util) < 4.5 * np.sqrt(util * (1 - util) / m)


def test_default_sufficiency_rule_and_its_truth():
    n = 30_000
    df = md.simulate(n_queries=n, systems=("raw-rag", "mem0"), accuracy=0.6, benefit=0.1, tax=0.2, costs=False,
                     seed=8)
    truth = df.attrs["truth"]
    # P(C=1 | Y=1) = 0.9, P(C=1 | Y=0) = 0.3: coverage = 0.3 + 0.6 acc; mem0 acc = 0.5 -> 0.6
    assert truth["coverage"] == pytest.approx({"raw-rag": 0.66, "mem0": 0.6})
    assert truth["utilization"]["mem0"] == pytest.approx(0.9 * 0.5 / 0.6)
    part = df[(df["repeat"] == 0) & (df["system"] == "mem0")]
    assert abs(part["sufficient"].mean() - 0.6) < 4.5 * np.sqrt(0.24 / n)
    assert "sufficient" not in md.simulate(n_queries=50, sufficiency=False).columns


def test_impossible_parameters_are_value_errors():
    with pytest.raises(ValueError, match="benefit .* must lie in"):
        md.simulate(accuracy=0.9, benefit=0.2)
    with pytest.raises(ValueError, match="reference 'rag' is not among"):
        md.simulate(reference="rag")
    with pytest.raises(ValueError, match="coverage 0.95 and utilization 0.95 are impossible"):
        md.simulate(sufficiency={"raw-rag": (0.95, 0.95), "mem0": (0.5, 0.5), "zep": (0.5, 0.5)})
    with pytest.raises(ValueError, match="accuracy 0.5 != reference"):
        md.simulate(accuracy={"raw-rag": 0.6, "mem0": 0.5}, benefit={"mem0": 0.1}, tax={"mem0": 0.1})


def test_costs_follow_the_per_system_token_means():
    df = md.simulate(n_queries=5000, systems=("raw-rag", "mem0"), costs={"raw-rag": 4000, "mem0": 800}, seed=1)
    means = df[df["repeat"] == 0].groupby("system")["evidence_tokens"].mean()
    assert means["raw-rag"] == pytest.approx(4000, rel=0.03) and means["mem0"] == pytest.approx(800, rel=0.03)
    assert (df["input_tokens"] > df["evidence_tokens"]).all() and (df["latency_s"] > 0).all()
    assert df.attrs["truth"]["tokens_per_query"] == {"raw-rag": 4000.0, "mem0": 800.0}


def test_systems_table_is_consistent_with_the_verdicts():
    df = md.simulate(n_queries=300, systems=("raw-rag", "mem0", "full-context", "mem0+raw"), seed=2)
    table = md.simulate_systems_table(df, seed=2).set_index("system")
    assert list(table.columns) == ["family", "store_tokens", "tokens_per_query", "ingestion_tokens",
                                   "ingestion_hours"]
    assert table["family"].to_dict() == {"raw-rag": "rag", "mem0": "memory", "full-context": "full-context",
                                         "mem0+raw": "hybrid"}
    means = df[df["repeat"] == 0].groupby("system")["input_tokens"].mean()
    np.testing.assert_allclose(table["tokens_per_query"], means[table.index], atol=0.05)
    assert table.loc["raw-rag", "ingestion_tokens"] == 0 < table.loc["mem0", "ingestion_tokens"]
    store = table["store_tokens"]
    assert store["mem0+raw"] > store["raw-rag"] > store["mem0"]


def test_example_data_is_regenerated_exactly_by_its_recorded_command(tmp_path):
    written = write_example(tmp_path, seed=EXAMPLE_SEED)
    for path in written:
        bundled = EXAMPLE / path.relative_to(tmp_path)
        assert filecmp.cmp(path, bundled, shallow=False), bundled
    # every generated file of the bundle is regenerated: LoCoMo-like, MEME and MemoryAgentBench
    relative = {p.relative_to(tmp_path).as_posix() for p in written}
    for folder in ("verdicts", "meme", "memoryagentbench"):
        bundled = {p.relative_to(EXAMPLE).as_posix() for p in (EXAMPLE / folder).glob("*.csv")}
        assert bundled and bundled <= relative, folder
    assert {"truth.json", "truth_meme.json", "truth_memoryagentbench.json", "systems.csv"} <= relative
    readme = (EXAMPLE / "README.md").read_text(encoding="utf-8")
    assert "memdiag simulate --write data/example" in readme and str(EXAMPLE_SEED) in readme
    assert "simulate_meme" in readme and "simulate_memoryagentbench" in readme


def test_example_data_is_small_and_realistic():
    total = sum(p.stat().st_size for p in EXAMPLE.rglob("*") if p.is_file())
    assert total < 2_000_000
    df = md.check(pd.concat([pd.read_csv(p) for p in sorted((EXAMPLE / "verdicts").glob("*.csv"))]))
    assert df["system"].nunique() == 7 and df["query_id"].nunique() == 600 and df["repeat"].nunique() == 3
    assert df["cluster"].nunique() == 30 and df["category"].nunique() == 4
    assert 0 < df["score"].isna().sum() < 100  # a few missing verdicts, so the policies show
    assert json.loads((EXAMPLE / "truth.json").read_text())["reference"] == "raw-rag"
    assert set(pd.read_csv(EXAMPLE / "systems.csv")["system"]) == set(df["system"])
