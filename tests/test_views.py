"""memdiag.views: one view per diagnostic, shared by ``memdiag plot``, the report and ``md.plot``.

Each view computes its result with the report's call (checked against the public function called
on its own), draws it with the report's defaults, and writes a caption from the result: its level,
correction and design, and the warnings attached to it. The text of every figure is read back from
its SVG (svg.fonttype 'none' keeps text as text), as tests/test_plots.py does.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import PathCollection
from statsmodels.stats.proportion import proportion_confint

import memdiag as md
from memdiag.cli.commands.plot import FIGURES
from memdiag.reporting import EXAMPLE
from memdiag.views import VIEWS, Inputs, Unavailable

SVG_NS = "{http://www.w3.org/2000/svg}"
OPTIONS = {"n_resamples": 200, "seed": 1}
LEVEL90 = {**OPTIONS, "confidence_level": 0.9}
REF = "ragbase"
LABELS = {"ragbase": "RAG", "memx": "MemoryX", "memy": "MemoryY"}


def _verdicts(fail_cluster: bool = False) -> pd.DataFrame:
    """Three systems on 240 queries in 8 conversations; with ``fail_cluster`` the reference answers
    every query of conv-00 wrong (a failed run there)."""
    df = md.simulate(n_queries=240, systems=tuple(LABELS), reference=REF, accuracy={"ragbase": 0.7, "memx": 0.6,
                     "memy": 0.55}, n_clusters=8, seed=3)
    if fail_cluster:
        df.loc[(df["system"] == REF) & (df["cluster"] == df["cluster"].min()), "score"] = 0.0
    return df


@pytest.fixture(scope="module")
def data() -> pd.DataFrame:
    return _verdicts()


@pytest.fixture(scope="module")
def failing() -> pd.DataFrame:
    return _verdicts(fail_cluster=True)


def svg_text(fig, tmp_path, name: str = "figure") -> str:
    """Every text of the figure as its SVG holds it, one line each."""
    path = md.plot.save(fig, tmp_path / name, formats=("svg",))[0]
    root = ET.parse(path).getroot()
    return "\n".join("".join(t.itertext()) for t in root.iter(f"{SVG_NS}text"))


# --------------------------------------------------------------------------------------------
# the registry
# --------------------------------------------------------------------------------------------
def test_every_figure_of_memdiag_plot_has_a_view():
    # the CLI's plot KIND can become: look the view up, compute, draw, save
    assert set(FIGURES) <= set(VIEWS), sorted(set(FIGURES) - set(VIEWS))
    for view in VIEWS.values():
        assert view.summary and view.needs
        assert len({p.name for p in view.parameters}) == len(view.parameters)


def test_a_view_refuses_a_parameter_it_does_not_have(data):
    with pytest.raises(TypeError, match="has no parameter 'by'.*shared_scale"):
        md.plot.view("venn", data, reference=REF, options=OPTIONS, by="category")
    with pytest.raises(ValueError, match="arrange must be one of auto, stacked, grid"):
        md.plot.view("forest", data, reference=REF, options=OPTIONS, arrange="wide")
    with pytest.raises(KeyError, match="no view named 'pie'"):
        md.plot.view("pie", data)


def test_a_view_the_data_cannot_support_says_what_to_give(data):
    with pytest.raises(Unavailable, match="compares every system with a reference: name it"):
        md.plot.view("venn", data, options=OPTIONS)
    with pytest.raises(Unavailable, match="no parameter sweep: name the runs PARAM=VALUE"):
        md.plot.view("sensitivity", data, reference=REF, options=OPTIONS)
    with pytest.raises(Unavailable, match="no memory decision log was given"):
        md.plot.view("writes")
    with pytest.raises(Unavailable, match="no cost: give a systems table"):
        md.plot.view("bubble", data.drop(columns=["input_tokens", "output_tokens", "latency_s"]), options=OPTIONS)


# --------------------------------------------------------------------------------------------
# the report's call and defaults
# --------------------------------------------------------------------------------------------
def test_forest_and_matrix_compute_what_compare_computes(data):
    forest = md.plot.view("forest", data, reference=REF, options=OPTIONS)
    expected = md.compare(data, reference=REF, options=OPTIONS)
    pd.testing.assert_frame_equal(forest.tables["pairwise_vs_reference"], expected)
    matrix = md.plot.view("matrix", data, options=OPTIONS)
    pd.testing.assert_frame_equal(matrix.tables["pairwise"], md.compare(data, options=OPTIONS))


def test_venn_computes_the_flows_at_the_reports_threshold(data):
    shown = md.plot.view("venn", data, reference=REF, options=OPTIONS)
    pd.testing.assert_frame_equal(shown.tables["flows"], md.flows(data, REF, options=OPTIONS))


def test_matrix_takes_a_reference_and_draws_it_first(data):
    fig = md.plot.draw("matrix", data, reference="memy", options=OPTIONS)
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["memy", "memx", "ragbase"]
    fig = md.plot.draw("matrix", data, options=OPTIONS)
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["memx", "memy", "ragbase"]


def test_bubble_without_a_store_size_draws_equal_bubbles_with_the_reports_note(data, tmp_path):
    table = pd.DataFrame({"system": list(LABELS), "tokens_per_query": [4000.0, 900.0, 1500.0]})
    shown = md.plot.view("bubble", data, reference=REF, options=OPTIONS, systems_table=table)
    fig = shown.figure()
    sizes = [c.get_sizes()[0] for c in fig.axes[0].collections if isinstance(c, PathCollection)]
    assert len(sizes) == 3 and len(set(sizes)) == 1
    assert "Equal bubbles: no store size reported." in svg_text(fig, tmp_path)
    assert "equal bubbles: no store size reported" in shown.caption
    # a store size given by name must exist; a size column found is drawn as area
    with pytest.raises(md.VerdictError, match="no store-size column 'store_size'"):
        md.plot.view("bubble", data, options=OPTIONS, systems_table=table, size="store_size")
    sized = table.assign(store_tokens=[6e5, 1e5, 2e5])
    assert "bubble area ∝ store tokens" in md.plot.view("bubble", data, options=OPTIONS, systems_table=sized).caption


def test_bubble_without_a_systems_table_reads_the_per_query_tokens(data):
    shown = md.plot.view("bubble", data, reference=REF, options=OPTIONS)
    tokens = data.assign(t=data["input_tokens"] + data["output_tokens"]).groupby(["system", "query_id"])["t"].mean()
    expected = tokens.groupby(level="system").mean()
    got = shown.tables["costs"].set_index("system")["tokens_per_query"]
    np.testing.assert_allclose(got.loc[expected.index], expected.to_numpy())


def test_a_view_computes_a_shared_result_once(data):
    inputs = Inputs(md.prepare(data), md.Options(**OPTIONS), REF)
    first = VIEWS["venn"].show(inputs).tables["flows"]
    assert VIEWS["venn"].show(inputs, shared_scale=False).tables["flows"] is first


def test_writes_intervals_are_at_the_options_level(tmp_path):
    log = md.read_write_log(EXAMPLE / "write_log.csv")
    table = md.plot.view("writes", write_log=log, options={"confidence_level": 0.9}).tables["write_audit"]
    row = table[table["cluster"] == "overall"].iloc[0]
    low, high = proportion_confint(int(row["n_update"] + row["n_delete"]), int(row["n_decisions"]), alpha=0.1,
                                   method="beta")
    assert row["proposed_rate_ci_low"] == pytest.approx(100 * low) and row["proposed_rate_ci_high"] == pytest.approx(
        100 * high)


# --------------------------------------------------------------------------------------------
# captions and figures: level, aliases, warnings
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["venn", "forest", "matrix", "bubble", "evidence-matrix"])
def test_every_text_of_a_view_at_90_percent_says_90_and_0_10(data, tmp_path, kind):
    shown = md.plot.view(kind, data, reference=REF, options=LEVEL90)
    text = svg_text(shown.figure(), tmp_path, kind) + "\n" + shown.caption
    assert "90% interval" in text
    assert not re.search(r"95%|0\.05\b", text), text
    levels = re.findall(r"(?:p|α) < (0\.\d+)|α = (0\.\d+)", text)
    assert all(float(a or b) == 0.1 for a, b in levels)
    if kind in ("forest", "matrix", "evidence-matrix"):
        assert levels and "< 0.10" in text


def test_aliases_name_every_system_in_the_figure_and_the_caption(data, tmp_path):
    for kind in ("venn", "forest", "matrix"):
        shown = md.plot.view(kind, data, reference=REF, options=OPTIONS, labels=LABELS)
        text = svg_text(shown.figure(), tmp_path, kind) + "\n" + shown.caption
        assert "RAG" in text and "MemoryX" in text
        assert not re.search(r"\b(ragbase|memx|memy)\b", text), (kind, text)
        assert REF in shown.text  # the caption as analysis.json records it keeps the full names


def test_a_warning_on_the_result_reaches_its_caption_and_its_figure(failing, tmp_path):
    cluster = failing["cluster"].min()
    n = failing.loc[(failing["system"] == REF) & (failing["cluster"] == cluster), "query_id"].nunique()
    for kind in ("venn", "forest"):
        shown = md.plot.view(kind, failing, reference=REF, options=OPTIONS, labels=LABELS)
        assert [w.code for w in shown.warnings][:1] == ["reference-fails-clusters"]
        assert f"Warning: the reference RAG answers whole clusters all wrong (or all right): {cluster} (0/{n}, all " \
               "wrong)" in shown.caption
        assert "Warning: the reference RAG answers whole clusters" in svg_text(shown.figure(), tmp_path, kind)
        # the table itself is the analysis' result, unchanged (the figure's copy carries the warning)
        assert all(n.code != "reference-fails-clusters" for n in shown.tables.get("pairwise_vs_reference",
                                                                                     pd.DataFrame()).attrs.get("notes", []))


def test_draw_is_view_then_figure(data):
    fig = md.plot.draw("forest", data, reference=REF, options=OPTIONS, labels=LABELS)
    labels = {t.get_text() for t in fig.axes[0].get_yticklabels()}
    assert {"MemoryX", "MemoryY"} <= labels


def _sweep() -> pd.DataFrame:
    return md.simulate(n_queries=200, systems=("rag final_k=5", "rag final_k=15", "rag final_k=30"),
                       reference="rag final_k=15", n_clusters=8, seed=2)


def _settings() -> pd.DataFrame:
    return pd.concat([md.simulate(n_queries=120, systems=("rag", "memx", "memy"), reference="rag", n_clusters=6,
                                  seed=seed).assign(benchmark=name) for seed, name in ((1, "x"), (2, "y"), (3, "z"))])


@pytest.mark.parametrize(("kind", "make", "given"), [
    ("sensitivity", _sweep, {"reference": "rag final_k=15"}),
    ("critical", _settings, {}),
    ("overview", _settings, {"reference": "rag", "pooled": True}),
])
def test_the_views_across_runs_and_settings_state_the_options_level(tmp_path, kind, make, given):
    shown = md.plot.view(kind, make(), options=LEVEL90, **given)
    text = svg_text(shown.figure(), tmp_path, kind) + "\n" + shown.caption
    assert "90% interval" in text or "α = 0.10" in text, text
    assert not re.search(r"95%|0\.05\b", text), text
    assert all(float(v) == 0.1 for v in re.findall(r"α = (0\.\d+)", text))
