"""Across settings (memdiag.synthesis.settings, SPEC §10.1–10.2): per-setting differences are compare's, pooling
agrees with statsmodels, the u-of-N count with Holm, exclusions are counted, and the real trpc panel."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.meta_analysis import combine_effects
from statsmodels.stats.multitest import multipletests

import memdiag as md
from memdiag.errors import VerdictError


def _runs():
    return {(b, "gpt"): md.simulate(n_queries=200, systems=("rag", "mem", "m2"), accuracy={"rag": 0.6, "mem": p, "m2": 0.62},
                                    reference="rag", seed=s)
            for b, p, s in (("a", 0.72, 1), ("b", 0.66, 2), ("c", 0.7, 3))}


def test_setting_differences_are_compare_per_setting():
    runs = _runs()
    out = md.setting_differences(runs, reference="rag", options=dict(n_resamples=400, seed=4))
    assert len(out) == 6 and set(out["reference"]) == {"rag"}
    one = md.compare(runs[("b", "gpt")], reference="rag", options=dict(n_resamples=400, seed=4))
    got = out[out["setting"] == "b · gpt"].set_index("system")
    for row in one.itertuples():
        assert got.loc[row.system_a, "diff"] == row.diff and got.loc[row.system_a, "se"] == row.se
        assert got.loc[row.system_a, "p"] == row.p
        assert got.loc[row.system_a, "p_greater"] == pytest.approx(row.p / 2 if row.diff > 0 else 1 - row.p / 2)


def test_settings_without_the_reference_are_counted():
    runs = _runs()
    runs[("d", "gpt")] = md.simulate(n_queries=100, systems=("x", "mem"), accuracy={"x": 0.5, "mem": 0.6}, reference="x", seed=9)
    out = md.setting_differences(runs, reference="rag", options=dict(n_resamples=200))
    assert "d · gpt" not in set(out["setting"])
    [note] = [n for n in out.attrs["notes"] if getattr(n, "code", "") == "settings-without-reference"]
    assert "d · gpt" in note
    with pytest.raises(VerdictError, match="in no setting"):
        md.setting_differences(runs, reference="nobody", options=dict(n_resamples=200))


def _frame():
    # five settings of one system: differences (points), standard errors, two-sided p
    return pd.DataFrame({"setting": list("abcde"), "system": "mem", "reference": "rag",
                         "diff": [4.0, 6.5, 5.0, -1.0, 2.0], "se": [1.5, 2.0, 1.8, 2.2, 1.0],
                         "p": [0.008, 0.001, 0.006, 0.65, 0.04], "benchmark": ["x", "x", "y", "y", "z"]})


def test_pooled_columns_match_statsmodels_and_holm():
    d = _frame()
    out = md.pool_settings(d, tau2="dl").iloc[0]
    sm = combine_effects(d["diff"].to_numpy(), d["se"].to_numpy() ** 2, method_re="dl", use_t=True)
    assert out["estimate"] == pytest.approx(sm.mean_effect_re)
    assert (out["ci_low"], out["ci_high"]) == pytest.approx(tuple(sm.conf_int(use_t=True)[3]))   # HKSJ, k = 5
    assert out["interval"] == "hksj" and out["df"] == 4 and out["tau2"] == pytest.approx(sm.tau2)
    # one-sided p = p/2 for a positive difference: (.004, .0005, .003, 1 − .325, .02);
    # Holm at .05: .0005·5, .003·4, .004·3, .02·2 = .04 ≤ .05, then .675 > .05: 4 settings
    greater = np.where(d["diff"] > 0, d["p"] / 2, 1 - d["p"] / 2)
    assert out["beats_in"] == multipletests(greater, method="holm")[0].sum() == 4
    assert out["beats_settings"] == "b, c, a, e" and out["worse_in"] == 0
    assert out["p_beats_one"] == pytest.approx(5 * 0.0005)


def test_pooled_level_and_count_read_the_options():
    d = _frame()
    out = md.pool_settings(d, tau2="dl", options={"confidence_level": 0.99}).iloc[0]
    sm = combine_effects(d["diff"].to_numpy(), d["se"].to_numpy() ** 2, method_re="dl", use_t=True)
    assert (out["ci_low"], out["ci_high"]) == pytest.approx(tuple(sm.conf_int(alpha=0.01, use_t=True)[3]))
    # Holm at α = .01 on the one-sided p: .0005·5 = .0025 ≤ .01, then .003·4 = .012 > .01: 1 setting
    assert out["beats_in"] == 1 and out["beats_settings"] == "b"


def test_robust_clusters_and_exclusions():
    d = _frame()
    robust = md.pool_settings(d, clusters="benchmark").iloc[0]
    assert robust["interval"] == "robust" and robust["df"] < 3
    d.loc[4, "se"] = 0.0
    out = md.pool_settings(d)
    row = out.iloc[0]
    assert row["k"] == 4 and row["n_excluded"] == 1 and row["n_settings"] == 5
    assert any(getattr(n, "code", "") == "setting-not-pooled" and "e" in n.concerns for n in out.attrs["notes"])
    with pytest.raises(VerdictError, match="missing: se"):
        md.pool_settings(d.drop(columns="se"))
    with pytest.raises(VerdictError, match="tau2"):
        md.pool_settings(_frame(), tau2="ml")


def test_one_setting_is_not_pooled_but_counted():
    out = md.pool_settings(_frame().iloc[:1])
    assert out["k"].iloc[0] == 1 and np.isnan(out["estimate"].iloc[0]) and out["beats_in"].iloc[0] == 1
    assert any(getattr(n, "code", "") == "too-few-settings" for n in out.attrs["notes"])


def test_real_trpc_agentic_vs_auto_across_six_settings(real_data):
    # trpc-agent-go's LoCoMo runs: agentic vs auto memory under 3 history settings × 2 backends
    root = real_data / "trpc-group__trpc-agent-go"
    runs = {}
    for run in ("nohistory", "history300", "history700"):
        for backend in ("mysql", "pgvector"):
            frames = [md.read_verdicts(root / f"data_{run}_gpt4omini" / f"{s}_{backend}" / "results.json")
                      for s in ("agentic", "auto")]
            df = pd.concat(frames, ignore_index=True)
            df["system"] = df["system"].astype(str).str.split("_").str[0]
            runs[(run, backend)] = df
    d = md.setting_differences(runs, reference="auto", options=dict(n_resamples=1000, seed=0))
    assert len(d) == 6 and (d["n"] == 1540).all()
    # the six settings ask the same 1,540 LoCoMo questions: one question group and a warning (issue 30 item 5)
    assert d["questions"].nunique() == 1
    assert any(n.code == "settings-share-questions" and len(n.concerns) == 6 for n in d.attrs["notes"])
    # nohistory · mysql: agentic − auto over the 1,540 non-adversarial questions, a plain mean of binary
    # verdicts: computed here straight from the verdicts
    mysql = runs[("nohistory", "mysql")]
    mysql = mysql[mysql["category"] != "adversarial"]
    means = mysql.groupby("system")["score"].apply(lambda s: (s > 0.5).mean() * 100)
    assert d.loc[d["setting"] == "nohistory · mysql", "diff"].iloc[0] == pytest.approx(means["agentic"] - means["auto"])
    out = md.pool_settings(d).iloc[0]
    assert out["k"] == 6 and out["interval"] == "hksj" and out["ci_high"] < 0
    assert out["beats_in"] == 0 and out["worse_in"] == 4 and out["i2"] > 0.9


def test_overview_figure_draws_the_pooled_panel_from_the_frames():
    runs = _runs()
    scores = md.overview(runs, reference="rag", options=dict(n_resamples=300))
    pooled = md.pool_settings(md.setting_differences(runs, reference="rag", options=dict(n_resamples=300)))
    fig = md.plot.overview(scores, reference="rag", pooled=pooled)
    artists = {a.get_gid(): a for ax in fig.axes for a in [*ax.lines, *ax.texts] if a.get_gid()}
    for row in pooled.itertuples():
        assert artists[f"overview-pooled-{row.system}"].get_xdata()[0] == pytest.approx(row.estimate)
        assert list(artists[f"overview-pooled-ci-{row.system}"].get_xdata()) == pytest.approx([row.ci_low, row.ci_high])
        assert list(artists[f"overview-pooled-pi-{row.system}"].get_xdata()) == pytest.approx([row.pi_low, row.pi_high])
        assert artists[f"overview-beats-{row.system}"].get_text() == f"{row.beats_in}/3"
    assert "overview-pooled-rag" not in artists
    assert any(t.get_gid() == "overview-title-pooled" and t.get_text() == "pooled Δ vs rag" for t in fig.texts)


def test_a_setting_without_a_p_value_counts_as_p_one():
    d = _frame()
    d.loc[0, "p"] = np.nan
    out = md.pool_settings(d)
    # one-sided p: (1, .0005, .003, .675, .02); Holm: .0025, .012, .06 > .05 → 2 settings
    assert out["beats_in"].iloc[0] == 2 and out["k"].iloc[0] == 5
    assert any(getattr(n, "code", "") == "setting-without-p" for n in out.attrs["notes"])
