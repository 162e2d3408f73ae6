"""The seeds' remaining figures (issue 15, item 9) and what they draw: source augmentation (three-set
Venn, Memory Tax review), native vs complete store vs raw evidence (Raw-RAG paper Figure 5), the
overview across benchmark × model settings (Figure 1 left), the write-action distribution and the
sensitivity figure in the command line and the report.

Oracles: pandas cross-tabulations of the binarised scores, md.flows' cells, leave-one-cluster-out
differences computed with pandas and scipy's t quantile, statsmodels' Holm adjustment, the
published overall scores of the real LoCoMo releases, and the artists drawn read back from the
figures.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

import memdiag as md
from memdiag import plots
from memdiag.cli import main
from memdiag.errors import VerdictError
from memdiag.plots.ingestion import total_text

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "data" / "example"


def by_gid(fig, gid: str):
    """The first artist of ``fig`` with id ``gid``."""
    return next(a for a in fig.findobj(lambda x: getattr(x, "get_gid", lambda: None)() == gid))


@pytest.fixture(scope="module")
def example() -> pd.DataFrame:
    return md.read_verdicts(EXAMPLE / "verdicts")


def _store_runs(seed: int = 2) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Native and complete-store runs of two memory systems and one raw-evidence control on 20
    clustered queries per conversation, with the systems table that tags them."""
    df = md.simulate(n_queries=240, n_clusters=12, accuracy={"raw evidence": 0.75, "mem0": 0.45, "mem0 (C)": 0.6,
                                                             "zep": 0.5, "zep (C)": 0.58},
                     systems=("raw evidence", "mem0", "mem0 (C)", "zep", "zep (C)"), reference="raw evidence",
                     sufficiency=False, costs=False, seed=seed)
    tags = pd.DataFrame({"system": ["mem0", "mem0 (C)", "zep", "zep (C)", "raw evidence"],
                         "base": ["mem0", "mem0", "zep", "zep", None],
                         "variant": ["native", "complete", "native", "complete", "raw"]})
    return df, tags


# --------------------------------------------------------------------------------------------
# source augmentation
# --------------------------------------------------------------------------------------------
def test_augmentation_regions_equal_a_crosstab_of_the_binarised_scores_and_the_flows(example):
    out = md.augmentation(example, "mem0", reference="raw-rag")
    per_query = example.groupby(["query_id", "system"])["score"].mean().unstack()
    correct = (per_query[["raw-rag", "mem0", "mem0+raw"]].fillna(0) > 0.5).astype(int).astype(str)
    codes = correct.agg("".join, axis=1).value_counts()
    assert out.set_index("region")["count"].to_dict() == {r: int(codes.get(r, 0)) for r in out["region"]}
    assert out["count"].sum() == 600 and out["share"].sum() == pytest.approx(100)
    flows = md.flows(example, reference="raw-rag", options=dict(n_resamples=200)).set_index("system")
    for system in ("mem0", "mem0+raw"):
        assert out.attrs["flows"]["tax"][system] == flows.loc[system, "tax"]
        assert out.attrs["flows"]["benefit"][system] == flows.loc[system, "benefit"]


def test_venn3_draws_the_same_regions_from_the_augmentation_table_and_from_per_query_rows(example):
    table = md.augmentation(example, "mem0", reference="raw-rag")
    scores = example.groupby(["system", "query_id"], as_index=False)["score"].mean()
    rows = scores[scores["system"].isin(["raw-rag", "mem0", "mem0+raw"])].assign(
        correct=lambda d: (d["score"].fillna(0) > 0.5).astype(int))[["query_id", "system", "correct"]]
    a = plots.venn3(table)
    b = plots.venn3(rows, reference="raw-rag")
    for region in ("100", "010", "110", "001", "101", "011", "111", "none", "tax"):
        assert by_gid(a, f"venn3-{region}").get_text() == by_gid(b, f"venn3-{region}").get_text(), region
    counts = table.set_index("region")["count"]
    tax = by_gid(a, "venn3-tax").get_text()
    assert f"mem0 {counts['100'] + counts['101']}, mem0+raw {counts['100'] + counts['110']}" in " ".join(tax.split())


# --------------------------------------------------------------------------------------------
# native vs complete store vs raw evidence
# --------------------------------------------------------------------------------------------
def test_store_gap_scores_differences_and_jackknife_intervals_equal_independent_computations():
    df, tags = _store_runs()
    out = md.store_gap(df, tags, options=dict(n_resamples=500)).set_index("system")
    wide = df.groupby(["query_id", "system"])["score"].mean().unstack()
    cluster = df.drop_duplicates("query_id").set_index("query_id")["cluster"]
    t = stats.t.ppf(0.975, 11)
    for base, complete in (("mem0", "mem0 (C)"), ("zep", "zep (C)")):
        assert out.loc[base, "native"] == pytest.approx(100 * wide[base].mean())
        assert out.loc[base, "complete"] == pytest.approx(100 * wide[complete].mean())
        assert out.loc[base, "raw"] == pytest.approx(100 * wide["raw evidence"].mean())
        for kind, a, b in (("gain", complete, base), ("gap", "raw evidence", complete)):
            d = 100 * (wide[a] - wide[b])
            assert out.loc[base, kind] == pytest.approx(d.mean())
            leave = np.array([d[cluster[d.index] != c].mean() for c in sorted(cluster.unique())])
            se = np.sqrt(11 / 12 * ((leave - leave.mean()) ** 2).sum())
            assert (out.loc[base, f"{kind}_ci_low"], out.loc[base, f"{kind}_ci_high"]) == pytest.approx(
                (d.mean() - t * se, d.mean() + t * se))
    for kind in ("gain", "gap"):
        holm = multipletests(out[f"{kind}_p"], method="holm")[1]
        assert out[f"{kind}_p_adj"].tolist() == pytest.approx(holm.tolist())


def test_store_variants_refuse_tables_that_do_not_say_which_run_is_which():
    df, tags = _store_runs()
    with pytest.raises(VerdictError, match="exactly one"):
        md.store_gap(df, tags.assign(variant=tags["variant"].replace("raw", "complete")),
                     options=dict(n_resamples=200))
    with pytest.raises(VerdictError, match="unknown variant 'oracle'"):
        md.store_gap(df, tags.replace({"variant": {"raw": "oracle"}}), options=dict(n_resamples=200))
    with pytest.raises(VerdictError, match="no complete-store run"):
        md.store_gap(df, tags[tags["system"] != "zep (C)"], options=dict(n_resamples=200))
    with pytest.raises(VerdictError, match="'variant' columns"):
        md.store_gap(df, tags.drop(columns="variant"), options=dict(n_resamples=200))


def test_store_gap_figure_draws_the_frames_scores_and_differences():
    df, tags = _store_runs()
    frame = md.store_gap(df, tags, options=dict(n_resamples=300))
    fig = plots.store_gap(frame)
    for row in frame.itertuples():
        assert by_gid(fig, f"gap-native-{row.system}").get_xdata()[0] == pytest.approx(row.native)
        assert by_gid(fig, f"gap-complete-{row.system}").get_xdata()[0] == pytest.approx(row.complete)
        gap = next(t for t in fig.texts if t.get_gid() == f"gap-text-gap-{row.system}").get_text()
        assert gap.startswith(f"+{row.gap:.1f} [")


# --------------------------------------------------------------------------------------------
# scores across settings
# --------------------------------------------------------------------------------------------
def test_overview_scores_every_setting_under_its_benchmarks_scheme():
    meme = md.read_verdicts(EXAMPLE / "meme")
    mab = md.read_verdicts(EXAMPLE / "memoryagentbench")
    out = md.overview({"MEME": meme, ("MemoryAgentBench", "synthetic reader"): mab}, reference="raw-rag",
                      options=dict(n_resamples=200))
    assert out.drop_duplicates("setting")["scheme"].tolist() == ["meme", "memoryagentbench"]
    assert out["setting"].unique().tolist() == ["MEME", "MemoryAgentBench · synthetic reader"]
    for setting, frame, scheme in (("MEME", meme, "meme"), ("MemoryAgentBench · synthetic reader", mab,
                                                               "memoryagentbench")):
        official = md.score(md.prepare(frame, scheme=scheme), options=dict(n_resamples=0)).set_index("system")["overall"]
        part = out[out["setting"] == setting].set_index("system")
        assert part["estimate"].to_dict() == pytest.approx(official.to_dict())
        assert part["rank"].to_dict() == part["estimate"].rank(ascending=False, method="min").astype(int).to_dict()
    grouped = md.overview(pd.concat([meme, mab], ignore_index=True), options=dict(n_resamples=200))
    assert grouped["estimate"].tolist() == pytest.approx(out["estimate"].tolist())


def test_overview_reproduces_the_published_locomo_scores_of_the_real_releases(real_data):
    frames = [md.read_verdicts(real_data / "getzep__zep-papers" / "zep_locomo_grades.json").assign(system="zep"),
              md.read_verdicts(real_data / "memodb-io__memobase" / "memobase_eval_0710_3000.json")
              .assign(system="memobase"),
              md.read_verdicts(real_data / "Backboard-io__Backboard-Locomo-Benchmark").assign(system="backboard")]
    out = md.overview({"LoCoMo": pd.concat(frames, ignore_index=True)}, options=dict(n_resamples=200)).set_index("system")
    assert out["scheme"].iloc[0] == "locomo"
    assert out["estimate"].round(2).to_dict() == {"backboard": 90.00, "memobase": 75.78, "zep": 75.13}
    assert out.loc["backboard", "rank"] == 1


def test_overview_figure_puts_each_setting_on_its_own_scale_with_the_frames_dots():
    f = pd.DataFrame({"setting": ["A"] * 3 + ["B"] * 3, "system": ["rag", "mem", "zep"] * 2,
                      "estimate": [80.0, 70.0, 75.0, 20.0, 30.0, 25.0], "ci_low": [78.0, 68.0, 73.0, 18.0, 28.0, 23.0],
                      "ci_high": [82.0, 72.0, 77.0, 22.0, 32.0, 27.0]})
    fig = plots.overview(f, reference="rag")
    first, second = fig.axes
    assert first.get_xlim()[1] > 80 > first.get_xlim()[0] > 50 and second.get_xlim()[1] < 50
    for row in f.itertuples():
        assert by_gid(fig, f"overview-{row.setting}-{row.system}").get_xdata()[0] == row.estimate


# --------------------------------------------------------------------------------------------
# the ingestion curve drawn
# --------------------------------------------------------------------------------------------
def test_ingestion_figure_draws_the_cumulative_hours_and_labels_each_total():
    log = md.read_ingestion_log(EXAMPLE / "ingestion_log.csv")
    curve = md.ingestion_curve(log)
    fig = plots.ingestion(curve, reference="raw-rag")
    assert fig.axes[0].get_yscale() == "log"  # totals span 43 s to 3 h
    for system, part in curve.groupby("system"):
        np.testing.assert_allclose(by_gid(fig, f"ingestion-{system}").get_ydata(), part["cumulative_s"] / 3600)
        label = next(t.get_text() for t in fig.texts if t.get_gid() == f"ingestion-label-{system}")
        assert label.endswith(total_text(part["cumulative_s"].iloc[-1]))


# --------------------------------------------------------------------------------------------
# command line and report
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("args", [
    ["actions", str(EXAMPLE / "write_log.csv")],
    ["ingestion", str(EXAMPLE / "ingestion_log.csv"), "--reference", "raw-rag"],
    ["venn3", str(EXAMPLE / "verdicts"), "--reference", "raw-rag"],
    ["venn3", str(EXAMPLE / "verdicts"), "--reference", "raw-rag", "--memory", "zep", "--augmented", "mem0+raw"],
    ["overview", "--setting", f"MEME={EXAMPLE / 'meme'}", "--setting", f"LoCoMo-like={EXAMPLE / 'verdicts'}",
     "--resamples", "200"],
])
def test_cli_plot_draws_the_new_figures(tmp_path, capsys, args):
    assert main(["plot", *args, "-o", str(tmp_path / "fig")]) == 0
    assert [Path(p).suffix for p in capsys.readouterr().out.split()] == [".pdf", ".svg", ".png"]


def test_cli_plot_store_gap_reads_the_variants_from_the_systems_table(tmp_path, capsys):
    df, tags = _store_runs()
    df.to_csv(tmp_path / "runs.csv", index=False)
    tags.to_csv(tmp_path / "systems.csv", index=False)
    assert main(["plot", "store-gap", str(tmp_path / "runs.csv"), "--systems-table", str(tmp_path / "systems.csv"),
                 "--resamples", "200", "-o", str(tmp_path / "gap")]) == 0
    assert (tmp_path / "gap.png").stat().st_size > 1000
    assert main(["plot", "venn3", str(tmp_path / "runs.csv"), "-o", str(tmp_path / "v")]) == 2
    assert "plot venn3: error: the following arguments are required: --reference" in capsys.readouterr().err


def test_report_adds_the_sweep_the_store_gap_and_the_cost_sections_when_the_data_hold_them(tmp_path):
    df, tags = _store_runs()
    sweep = md.simulate(n_queries=240, n_clusters=12, systems=("final_k=5", "final_k=15", "final_k=30"),
                        reference="final_k=15", accuracy={"final_k=5": 0.55, "final_k=15": 0.6, "final_k=30": 0.61},
                        sufficiency=False, costs=True, seed=2)
    both = pd.concat([df, sweep], ignore_index=True)  # the same 240 queries in the same 12 conversations
    out = md.report(both, "final_k=15", tmp_path / "out", systems_table=tags, progress=False,
                    options=dict(n_resamples=200))
    text = (out / "report.md").read_text(encoding="utf-8")
    for title in ("Parameter sensitivity", "Native retrieval, complete store and raw evidence", "Cost and latency"):
        assert f". {title}\n" in text, title
    for name in ("sensitivity", "store_gap", "cost_summary", "cost_ratios"):
        assert (out / "tables" / f"{name}.csv").is_file(), name
    for name in ("sensitivity", "store_gap"):
        assert (out / "figures" / f"{name}.png").is_file(), name
    sens = pd.read_csv(out / "tables" / "sensitivity.csv")
    assert sorted(sens["value"]) == [5.0, 15.0, 30.0]


def test_readme_quotes_the_augmentation_numbers_of_the_example(example):
    import re

    text = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    match = re.search(r"augmentation repairs (\d+) of mem0's (\d+) taxed questions", text)
    assert match, "README.md lacks the source-augmentation sentence"
    counts = md.augmentation(example, "mem0", reference="raw-rag").set_index("region")["count"]
    assert (int(match[1]), int(match[2])) == (counts["101"], counts["100"] + counts["101"])


def test_the_reports_sweep_is_the_runs_of_the_references_system_and_parameter():
    from memdiag.views.sweeps import sweep

    systems = ("raw-rag final_k=5", "raw-rag final_k=15", "raw-rag final_k=30", "mem0 final_k=5", "zep")
    assert sweep(systems, "raw-rag final_k=15") == ("final_k", "15",
                                                    ["raw-rag final_k=5", "raw-rag final_k=15", "raw-rag final_k=30"])
    assert sweep(systems, "zep") is None                   # the reference is no setting
    assert sweep(systems[:2], "raw-rag final_k=15") is None  # one other setting is no sweep


def test_report_cost_section_without_a_pair_to_compare_keeps_its_table(tmp_path):
    df = md.simulate(n_queries=60, systems=("raw-rag", "mem0"), n_clusters=6, sufficiency=False, costs=True, seed=4)
    df.loc[df["system"] == "mem0", ["latency_s", "input_tokens", "output_tokens", "evidence_tokens"]] = np.nan
    out = md.report(df, "raw-rag", tmp_path / "out", progress=False, options=dict(n_resamples=200))
    assert (out / "tables" / "cost_summary.csv").is_file()
    assert not (out / "tables" / "cost_ratios.csv").exists()  # only the reference has a cost: no ratio
