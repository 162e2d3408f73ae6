"""Every table a public function returns declares the kind of every column, and every note it
makes is a record with a real code (issue "one house", item 3: typed results).

Each public table-returning function of ``memdiag.__all__`` runs once on small data (the bundled
example, ``md.simulate`` and the small frames of its docstring); the test fails on a float column
without a declared kind (a float may be points, a p-value, a fraction or a count with missing
values), on a declared count that holds a number that is not whole, and on a note whose code is
the default ``"note"`` (a bare string).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import memdiag as md
from memdiag.core.result import Result, declared_kinds, notes_of, undeclared

EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "example"
B = {"n_resamples": 200}


def _sim(**kw) -> pd.DataFrame:
    return md.simulate(n_queries=120, n_clusters=8, seed=3, **kw)


def _repeats() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame([{"system": s, "cluster": f"c{g}", "query_id": f"c{g}q{q}", "repeat": j,
                          "score": float(rng.random() < (0.7 if s == "m" else 0.6))}
                         for s in ("m", "r") for g in range(5) for q in range(12) for j in range(3)])


def _labelled() -> pd.DataFrame:
    df = md.simulate(n_queries=200, seed=1)
    df["human"] = np.where(df["query_id"].str[-1] == "0", df["score"], np.nan)
    return df


def _wrong_answers() -> pd.DataFrame:
    return pd.DataFrame({"system": "wrong", "query_id": ["a", "a", "b", "b", "c", "c"], "repeat": [0, 1] * 3,
                         "score": [1, 1, 0, 1, 0, 0], "category": ["x", "x", "y", "y", "y", "y"],
                         "length": [3, 3, 40, 40, 12, 12]})


def _lengths() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    words = rng.integers(2, 60, size=(300, 2))
    accept = rng.random((300, 2)) < 1 / (1 + np.exp(-(np.log2(words) - 3)))
    return pd.DataFrame({"system": np.tile(["v1", "v2"], 300), "query_id": np.repeat(np.arange(300).astype(str), 2),
                         "score": accept.ravel().astype(float), "length": words.ravel()})


def _settings() -> dict:
    return {("a", "m1"): _sim(), ("b", "m1"): md.simulate(n_queries=120, n_clusters=8, seed=4),
            ("c", "m2"): md.simulate(n_queries=120, n_clusters=8, seed=5)}


def _store() -> tuple[pd.DataFrame, pd.DataFrame]:
    df = md.simulate(n_queries=120, n_clusters=8, accuracy={"raw": 0.75, "mem": 0.45, "mem/C": 0.6},
                     systems=("raw", "mem", "mem/C"), reference="raw", seed=2)
    tags = pd.DataFrame({"system": ["mem", "mem/C", "raw"], "base": ["mem", "mem", None],
                         "variant": ["native", "complete", "raw"]})
    return df, tags


def _sweep() -> pd.DataFrame:
    df = md.simulate(n_queries=120, n_clusters=8, systems=("final_k=5", "final_k=15", "final_k=30"),
                     reference="final_k=15", seed=6)
    return df


def _errors(df: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({"query_id": sorted(df["query_id"].unique())[:12]})


def _components() -> pd.DataFrame:
    return pd.DataFrame({"kind": "difference", "system": "a", "reference": "b",
                         "component": ["conversation", "question", "run", "judge"],
                         "sigma2": [4.0, 2500.0, 0.0, 400.0], "n_per_conversation": 150.0})


def _pooled_input() -> pd.DataFrame:
    return pd.DataFrame({"setting": list("abcd"), "system": "mem", "reference": "rag",
                         "diff": [4.0, 6.0, 5.0, -1.0], "se": [1.5, 2.0, 1.8, 2.2], "p": [0.008, 0.003, 0.006, 0.65]})


def _ranks() -> pd.DataFrame:
    return pd.DataFrame({"setting": np.repeat(list("abcdef"), 3), "system": list("xyz") * 6,
                         "estimate": [70, 60, 50, 71, 62, 55, 69, 50, 61, 72, 66, 52, 75, 61, 58, 70, 65, 49]})


def _example() -> pd.DataFrame:
    return md.read_verdicts(EXAMPLE / "verdicts")


MEM0 = {"single-hop": 67.13, "multi-hop": 51.15, "temporal": 55.51, "open-domain": 72.93}

#: Public function -> a call on small data returning its table(s).
CALLS: dict[str, Callable[[], object]] = {
    "agreement": lambda: md.agreement(_repeats(), options=B),
    "attribute_change": lambda: md.attribute_change(_sim(), _sim().assign(score=lambda d: d["score"][::-1].to_numpy()),
                                                    changed=sorted(_sim()["query_id"].unique())[:30],
                                                    system="mem0", options=B),
    "audit_claims": lambda: md.audit_claims(_example(), EXAMPLE / "claims_example.yaml", options=B),
    "audit_independence": lambda: md.audit_independence(_sim(), options=B),
    "audit_summaries": lambda: _summaries(),
    "augmentation": lambda: md.augmentation(_example(), "mem0", reference="raw-rag"),
    "bootstrap": lambda: md.bootstrap(_sim(), options=B),
    "calibration_size": lambda: md.calibration_size(50, 0.9, 0.9, 10_000, 5.0),
    "ceiling_flags": lambda: md.ceiling_flags(
        pd.DataFrame({"system": ["m"], "group": ["overall"], "published": [92.0]}),
        pd.DataFrame({"group": ["overall"], "n": [10], "n_corrupted": [1], "ceiling": [90.0]})),
    "check_aggregate": lambda: [md.check_aggregate(MEM0, reported_overall=66.88, convention="infer"),
                                md.check_aggregate(MEM0, reported_overall=66.88, convention="locomo-paper")],
    "clean_rescore": lambda: md.clean_rescore(_sim(), _errors(_sim()), reference="raw-rag", options=B),
    "cluster_accuracy": lambda: md.cluster_accuracy(_sim()),
    "compare": lambda: [md.compare(_sim(), options=B), md.compare(_sim(), by="category", options=B),
                        md.compare(_sim(), reference="raw-rag", test="equivalence", margin=5.0,
                                   options=B)],
    "comparison_power": lambda: md.comparison_power(md.compare(_sim(), options=B), delta=[3.0]),
    "content_filter_sensitivity": lambda: md.content_filter_sensitivity(
        _sim(), {"mem0": sorted(_sim()["query_id"].unique())[:5]}, reference="raw-rag", options=B),
    "cost_ratios": lambda: md.cost_ratios(_sim(), reference="raw-rag", options=B),
    "costs": lambda: md.costs(_sim(), options=B),
    "critical_difference": lambda: md.critical_difference(_ranks()),
    "evidence": lambda: md.evidence(_sim(), options=B),
    "evidence_length": lambda: md.evidence_length(_sim()),
    "evidence_procedure": lambda: list(md.evidence_procedure(_sim(), options=B)),
    "evidence_tests": lambda: list(md.evidence_tests(_sim(), options=B)),
    "flows": lambda: [md.flows(_sim(), reference="raw-rag", options=B),
                      md.flows(_sim(), reference="raw-rag", by="category", options=B)],
    "fragility": lambda: md.fragility(_sim()),
    "gold_ceilings": lambda: md.gold_ceilings(_sim(), _errors(_sim())),
    "ingestion": lambda: md.ingestion(md.read_ingestion_log(EXAMPLE / "ingestion_log.csv")),
    "ingestion_curve": lambda: md.ingestion_curve(md.read_ingestion_log(EXAMPLE / "ingestion_log.csv")),
    "judge_corrected": lambda: [md.judge_corrected(_labelled(), label="human", options=B),
                                md.judge_corrected(_sim(), sensitivity=0.95, specificity=0.8, n_correct=200,
                                                   n_incorrect=200, options=B)],
    "judge_leniency": lambda: md.judge_leniency(_wrong_answers()),
    "judge_repetition_sensitivity": lambda: md.judge_repetition_sensitivity(_repeats(), reference="r", options=B),
    "leaderboard": lambda: [md.leaderboard(_sim(), options=B), md.leaderboard(_sim(), margin=30.0, options=B)],
    "length_effect": lambda: md.length_effect(_lengths(), length="length"),
    "leniency_bound": lambda: md.leniency_bound(_sim(), md.judge_leniency(_wrong_answers()), options=B),
    "leniency_breakeven": lambda: md.leniency_breakeven(_sim(), "raw-rag", options=B),
    "missing_verdict_bounds": lambda: md.missing_verdict_bounds(_example(), reference="raw-rag", options=B),
    "missing_verdict_effect": lambda: md.missing_verdict_effect(_example()),
    "omnibus": lambda: md.omnibus(_sim(), options=B),
    "overview": lambda: md.overview(_settings(), reference="raw-rag", options=B),
    "pairwise_matrix": lambda: md.pairwise_matrix(md.compare(_sim(), options=B)),
    "path_given_result": lambda: md.path_given_result(md.read_verdicts(EXAMPLE / "meme"), options=B),
    "plan_evaluation": lambda: md.plan_evaluation(_components(), conversations=[10], runs=[1], judge_calls=[1, 3]),
    "pool_settings": lambda: md.pool_settings(_pooled_input()),
    "ppi": lambda: md.ppi(_labelled(), label="human", options=B),
    "rank_stability": lambda: md.rank_stability(_sim(), options=B),
    "repetition_scores": lambda: md.repetition_scores(_repeats()),
    "replay": lambda: md.replay(_sim(), "raw-rag"),
    "rogan_gladen": lambda: md.rogan_gladen(77.3, 1.0, 0.75, 1_000, 100, 100),
    "score": lambda: [md.score(_sim(), options=B), md.score(md.read_verdicts(EXAMPLE / "meme"), options=B),
                      md.score(md.read_verdicts(EXAMPLE / "memoryagentbench"), options={"n_resamples": 0})],
    "sensitivity": lambda: md.sensitivity(_sweep(), default=15, options=B),
    "setting_differences": lambda: md.setting_differences(_settings(), reference="raw-rag", options=B),
    "store_gap": lambda: md.store_gap(*_store(), options=B),
    "system_costs": lambda: md.system_costs(md.simulate_systems_table(_example()), reference="raw-rag"),
    "validate": lambda: md.validate(_example()),
    "variance_components": lambda: md.variance_components(_repeats()),
    "write_audit": lambda: md.write_audit(md.read_write_log(EXAMPLE / "write_log.csv")),
}

#: Public functions that return no result table, and why.
NOT_RESULTS = {
    # data, not results: verdicts, side files and synthetic inputs
    "align", "check", "locomo_questions", "prepare", "prepare_settings", "read_claims", "read_gold_errors",
    "read_ingestion_log", "read_summaries", "read_verdicts", "read_write_log", "simulate",
    "simulate_ingestion_log", "simulate_meme", "simulate_memoryagentbench", "simulate_systems_table",
    # numbers or result objects, not tables
    "adjust", "clustered_mcnemar", "cochrans_q", "design_effect",
    "detectable_effect", "mcnemar", "mcnemar_power", "get_scheme", "known_schemes",
    # folders: the report's tables are these functions' results (tests/test_report.py)
    "demo", "report", "report_from_json",
    # classes, modules and constants
    "Options", "Panel", "Prepared", "Scheme", "SchemeError", "VerdictError", "__version__", "plot",
}


def _summaries() -> list[pd.DataFrame]:
    """md.audit_summaries with every check's full table (``attrs["details"]``): the granularity, McNemar
    bounds, power, floor, family and aggregate checks of the bundled example and a mapping."""
    example = md.audit_summaries(EXAMPLE / "summaries_memory_tax.yaml")
    checks = md.audit_summaries({"benchmarks": {"B": {"n": 500}, "L": {"n": 1540, "clusters": 10}}, "checks": [
        {"id": "g", "check": "granularity", "benchmark": "B", "value": "12.3"},
        {"id": "m", "check": "mcnemar", "benchmark": "B", "accuracy_a": "55.0", "accuracy_b": "45.0"},
        {"id": "p", "check": "power", "benchmark": "L", "diff": 3.0, "discordance": 20, "icc": 0.02},
        {"id": "f", "check": "floor", "p": "0.0012", "n_resamples": 20_000},
        {"id": "h", "check": "family", "p": [0.001, 0.02, 0.04]}]})
    return [example, *example.attrs["details"].values(), checks, *checks.attrs["details"].values()]


def _tables(value: object) -> list[pd.DataFrame]:
    if isinstance(value, pd.DataFrame):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tables(v)]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tables(v)]
    return []


@pytest.fixture(scope="module")
def results() -> dict[str, list[pd.DataFrame]]:
    return {name: _tables(call()) for name, call in CALLS.items()}


def test_every_public_function_is_called_or_said_not_to_return_a_table():
    assert set(CALLS) | NOT_RESULTS == set(md.__all__), sorted(set(md.__all__) - set(CALLS) - NOT_RESULTS)
    assert not set(CALLS) & NOT_RESULTS


@pytest.mark.parametrize("name", sorted(CALLS))
def test_every_column_of_every_result_has_a_declared_kind(results, name):
    tables = results[name]
    assert tables, f"{name} returned no table"
    for table in tables:
        assert isinstance(table, Result) and isinstance(table, pd.DataFrame), (name, type(table))
        assert not undeclared(table), f"{name}: columns without a declared kind: {undeclared(table)}"


@pytest.mark.parametrize("name", sorted(CALLS))
def test_declared_counts_hold_whole_numbers(results, name):
    for table in results[name]:
        for column, kind in declared_kinds(table).items():
            if kind.name != "count" or table[column].dtype == bool:
                continue
            values = pd.to_numeric(table[column], errors="coerce").dropna().to_numpy(dtype=float)
            assert np.all(values == np.floor(values)), f"{name}: count column {column} holds {values}"


@pytest.mark.parametrize("name", sorted(CALLS))
def test_every_note_is_a_record_with_a_code(results, name):
    for table in results[name]:
        bare = [str(n) for n in notes_of(table) if n.code == "note"]
        assert not bare, f"{name}: notes without a code: {bare}"
