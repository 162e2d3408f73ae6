"""The report's section across settings (SPEC §10.1–§10.2): data with several benchmarks get the
per-benchmark differences, the pooled difference and the u-of-N count, the same numbers as
md.setting_differences and md.pool_settings; data with one benchmark say why it is omitted."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import memdiag as md


def _three_benchmarks() -> pd.DataFrame:
    parts = []
    for bench, p, seed in (("bench-a", 0.75, 1), ("bench-b", 0.72, 2), ("bench-c", 0.7, 3)):
        d = md.simulate(n_queries=120, systems=("rag", "mem", "zep"), accuracy={"rag": 0.55, "mem": p, "zep": 0.5},
                        reference="rag", n_clusters=8, seed=seed, sufficiency=False, costs=False)
        parts.append(d.assign(query_id=bench + ":" + d["query_id"].astype(str),
                              cluster=bench + ":" + d["cluster"].astype(str), benchmark=bench))
    return pd.concat(parts, ignore_index=True)


def test_report_pools_the_benchmarks_and_counts_them(tmp_path):
    df = _three_benchmarks()
    md.report(df, reference="rag", out=tmp_path / "r", progress=False, options=dict(n_resamples=400))
    text = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    analysis = json.loads((tmp_path / "r" / "analysis.json").read_text(encoding="utf-8"))
    diffs = md.setting_differences(df, reference="rag", options=dict(n_resamples=400))
    pooled = md.pool_settings(diffs).set_index("system")
    assert "Across settings" in text
    table = pd.read_csv(tmp_path / "r" / "tables" / "settings_pooled.csv").set_index("system")
    for system in ("mem", "zep"):
        assert table.loc[system, "estimate"] == pytest.approx(pooled.loc[system, "estimate"])
        assert table.loc[system, "ci_high"] == pytest.approx(pooled.loc[system, "ci_high"])
        assert table.loc[system, "beats_in"] == pooled.loc[system, "beats_in"]
    k = int(pooled.loc["mem", "beats_in"])
    assert k >= 1 and f"mem in at least {k} of 3" in text
    assert "settings" in json.dumps(analysis)


def test_one_benchmark_omits_the_section_and_says_why(tmp_path):
    df = _three_benchmarks()
    df = df[df["benchmark"] == "bench-b"]
    md.report(df, reference="rag", out=tmp_path / "r", progress=False, options=dict(n_resamples=200))
    text = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    assert "one setting: the data carry no 'benchmark' column with two or more benchmarks" in text
