"""Defaults a newcomer expects (issue 19, item 5): LoCoMo rows use the LoCoMo scheme unless
another is named, said in a note; the missing-queries error names the fix that applies; ``score``
gives intervals by default; ``plot venn`` draws areas to scale by default; the forest prints a
p at its Monte-Carlo floor as a bound, as the tables do; ``plot --width column|page``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_run import run

import memdiag as md
from memdiag.cli import build_parser
from memdiag.core.kinds import P_FLOORED
from memdiag.core.result import as_result
from memdiag.io.schema import locomo_query_id
from memdiag.plots._reading import p_text
from memdiag.plots.forest import oriented


@pytest.fixture(scope="module")
def locomo(tmp_path_factory) -> Path:
    """Two runs on LoCoMo ids: 'full' kept the 3 adversarial questions of each of 10
    conversations, 'dropped' did not (as mem0's and trpc-agent-go's releases differ)."""
    rng = np.random.default_rng(1)
    rows = []
    for system in ("full", "dropped"):
        for conv in range(10):
            for k in range(6):
                rows.append({"system": system, "query_id": locomo_query_id(conv, k), "category": "single-hop",
                             "score": float(rng.random() < 0.6)})
            if system == "full":
                for k in range(3):
                    rows.append({"system": system, "query_id": locomo_query_id(conv, k, adversarial=True),
                                 "category": "adversarial", "score": 1.0})
    path = tmp_path_factory.mktemp("locomo") / "runs.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_locomo_ids_imply_the_locomo_scheme_with_a_note(locomo):
    code, out, err = run("flows", locomo, "--reference", "full", "--resamples", 100, "--format", "json")
    assert code == 0, err
    assert "scheme locomo applied because every query id is a canonical LoCoMo id" in err
    doc = json.loads(out)
    assert doc["provenance"]["scheme"] == "locomo" and {row["n"] for row in doc["rows"]} == {60}
    # the same as naming it
    _, named, _ = run("flows", locomo, "--reference", "full", "--resamples", 100, "--format", "json",
                      "--scheme", "locomo")
    assert json.loads(named)["rows"] == doc["rows"]


def test_a_named_scheme_wins_and_the_error_names_the_locomo_fix(locomo):
    code, _, err = run("flows", locomo, "--reference", "full", "--resamples", 100, "--scheme", "mean")
    assert code == 2
    assert "LoCoMo's adversarial questions" in err and "--scheme locomo" in err
    assert "--missing drop" not in err


def test_benchmark_column_implies_the_scheme_and_quiet_hides_the_note(locomo, tmp_path):
    df = pd.read_csv(locomo)
    df["query_id"] = df["query_id"].str.replace("locomo:", "q:")
    df["benchmark"] = "LoCoMo"
    path = tmp_path / "bench.csv"
    df.to_csv(path, index=False)
    code, out, err = run("score", path, "--resamples", 0, "--format", "json")
    assert code == 0 and "every row's benchmark is locomo" in err
    assert json.loads(out)["provenance"]["scheme"] == "locomo"
    _, _, quiet = run("score", path, "--resamples", 0, "--quiet")
    assert quiet == ""


def test_other_data_imply_no_scheme(tmp_path):
    path = tmp_path / "v.csv"
    pd.DataFrame({"system": ["a", "b"], "query_id": ["q1", "q1"], "score": [1, 0]}).to_csv(path, index=False)
    code, out, err = run("score", path, "--resamples", 0, "--format", "json")
    assert code == 0 and err == "" and json.loads(out)["provenance"].get("scheme") in (None, "mean")


def test_score_gives_intervals_by_default():
    args = build_parser().parse_args(["score", "x"])
    assert args.resamples == 20_000
    code, out, _ = run("score", Path(__file__).parents[1] / "data" / "example" / "verdicts", "--scheme", "locomo",
                       "--format", "json")
    assert code == 0 and "overall_ci_low" in json.loads(out)["rows"][0]


def test_plot_venn_draws_areas_to_scale_by_default():
    venn = ["plot", "venn", "x", "--reference", "r", "-o", "y"]
    assert build_parser().parse_args(venn).shared_scale is True
    assert build_parser().parse_args([*venn, "--no-shared-scale"]).shared_scale is False


def test_the_forest_prints_a_floored_p_as_a_bound_as_the_table_does():
    frame = pd.DataFrame({"system_a": ["mem0", "zep"], "system_b": ["rag", "rag"], "diff": [3.0, 1.0],
                          "ci_low": [1.0, -1.0], "ci_high": [5.0, 3.0], "p_adj": [0.0086, 0.4],
                          "p_floor": [True, False], "n": [100, 100]})
    rows, _ = oriented(frame, "rag")
    assert rows["p_floor"].tolist() == [True, False]
    texts = [p_text(p, 0.05, floor) for p, floor in zip(rows["p_adj"], rows["p_floor"])]
    floored = as_result(frame.assign(p=frame["p_adj"]), {"p": P_FLOORED, "p_adj": P_FLOORED})  # as compare declares
    table = md.tables.display(floored)["p_adj"].tolist()
    assert texts == ["< 0.0086", "0.40"] and table[0].startswith("< ")
    fig = md.plot.forest(frame, reference="rag")
    drawn = [t.get_text() for ax in fig.axes for t in ax.texts] + [t.get_text() for t in fig.texts]
    assert "< 0.0086" in drawn


def test_width_presets_draw_a_figure_a_column_or_a_page_wide(tmp_path):
    from PIL import Image

    from memdiag.plots.style import ONE_COLUMN, TWO_COLUMN, width_preset

    frame = pd.DataFrame({"system_a": ["mem0"], "system_b": ["rag"], "diff": [3.0], "ci_low": [1.0],
                          "ci_high": [5.0], "p_adj": [0.01], "n": [100]})
    assert md.plot.forest(frame, reference="rag").get_size_inches()[0] == ONE_COLUMN
    with width_preset("page"):
        assert md.plot.forest(frame, reference="rag").get_size_inches()[0] == TWO_COLUMN
    assert md.plot.forest(frame, reference="rag").get_size_inches()[0] == ONE_COLUMN  # the preset ends
    with pytest.raises(ValueError, match="unknown width preset"), width_preset("poster"):
        pass
    verdicts = tmp_path / "v.csv"
    md.simulate(n_queries=60, systems=("rag", "mem0"), reference="rag", n_clusters=6, seed=1).to_csv(verdicts,
                                                                                        index=False)
    for width, pixels in (("column", 300 * ONE_COLUMN), ("page", 300 * TWO_COLUMN)):
        code, _, err = run("plot", "forest", verdicts, "--reference", "rag", "--resamples", 100, "--width", width,
                           "-o", tmp_path / f"forest_{width}.png")
        assert code == 0, err
        assert Image.open(tmp_path / f"forest_{width}.png").size[0] == round(pixels)
