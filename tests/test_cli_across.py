"""``memdiag across``, ``memdiag fragility`` and ``memdiag plot critical``: the same numbers as the API,
one-line errors with exit 2."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout

import pandas as pd
import pytest

import memdiag as md
from memdiag.cli import main


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def settings(tmp_path_factory):
    folder = tmp_path_factory.mktemp("settings")
    paths = {}
    for name, p_mem, seed in (("a", 0.7, 1), ("b", 0.64, 2), ("c", 0.68, 3)):
        df = md.simulate(n_queries=150, systems=("rag", "mem", "zep"), accuracy={"rag": 0.6, "mem": p_mem, "zep": 0.62},
                         reference="rag", n_clusters=10, seed=seed)
        path = folder / f"{name}.csv"
        df[["system", "query_id", "score", "cluster"]].to_csv(path, index=False)
        paths[name] = path
    return paths


def test_across_json_equals_the_api(settings):
    argv = [x for name, path in settings.items() for x in ("--setting", f"{name}={path}")]
    code, out, err = run("across", *argv, "--reference", "rag", "--resamples", "500", "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert len(doc) == 3
    data = {(name, ""): md.read_verdicts(str(path)) for name, path in settings.items()}
    diffs = md.setting_differences(data, reference="rag", options=dict(n_resamples=500))
    pooled = md.pool_settings(diffs)
    got = {r["system"]: r for r in doc[1]["rows"]}
    for row in pooled.itertuples():
        assert got[row.system]["estimate"] == pytest.approx(row.estimate)
        assert got[row.system]["beats_in"] == row.beats_in
    cd = md.critical_difference(md.overview(data, reference="rag", options=dict(n_resamples=500)))
    assert [r["system"] for r in doc[2]["rows"]] == list(cd["system"])
    code, out, _ = run("across", *argv, "--reference", "rag", "--resamples", "500", "--format", "json", "--cd", "none",
                       "--tau2", "dl", "--interval", "z")
    doc = json.loads(out)
    assert len(doc) == 2 and {r["interval"] for r in doc[1]["rows"]} == {"z"}


def test_across_errors_are_one_line(settings):
    path = settings["a"]
    code, _, err = run("across", "--setting", f"a={path}", "--reference", "nobody", "--resamples", "500")
    assert code == 2 and "in no setting" in err and err.count("\n") == 1
    code, _, err = run("across", "--setting", f"a={path}", "--resamples", "500")
    assert code == 2 and "--reference" in err


def test_fragility_command_equals_the_api(settings):
    code, out, err = run("fragility", str(settings["a"]), "--pairs", "reference", "--reference", "rag",
                         "--format", "json")
    assert code == 0, err
    api = md.fragility(md.read_verdicts(str(settings["a"])), reference="rag")
    rows = json.loads(out)["rows"]
    assert [r["flips_significance"] for r in rows] == api["flips_significance"].tolist()
    assert [r["removal_sign"] for r in rows] == api["removal_sign"].tolist()


def test_plot_critical_writes_three_files(settings, tmp_path, capsys):
    argv = [x for name, path in settings.items() for x in ("--setting", f"{name}={path}")]
    assert main(["plot", "critical", *argv, "-o", str(tmp_path / "cd")]) == 0
    assert (tmp_path / "cd.png").stat().st_size > 1000
    # ranks of point estimates: the same mean ranks as from bootstrapped scores, nothing resampled
    data = {tuple(name.split("/")) if "/" in name else (name, ""): md.read_verdicts(path)
            for name, path in settings.items()}
    points = md.overview(data, options={"n_resamples": 0})
    assert points["ci_low"].isna().all() and points.attrs["n_resamples"] == 0
    pd.testing.assert_frame_equal(md.critical_difference(points),
                                  md.critical_difference(md.overview(data, options={"n_resamples": 200})))


def test_plot_overview_pooled_adds_the_panel(settings, tmp_path, capsys):
    argv = [x for name, path in settings.items() for x in ("--setting", f"{name}={path}")]
    assert main(["plot", "overview", *argv, "--reference", "rag", "--pooled", "--resamples", "200",
                 "-o", str(tmp_path / "ov")]) == 0
    svg = (tmp_path / "ov.svg").read_text(encoding="utf-8")
    assert svg.count("overview-pooled-ci-") == 2 and "95% interval" in svg
    # --ci sets the pooled panel's interval too (it was always 95% before)
    assert main(["plot", "overview", *argv, "--reference", "rag", "--pooled", "--resamples", "200", "--ci", "0.8",
                 "-o", str(tmp_path / "ov80")]) == 0
    svg80 = (tmp_path / "ov80.svg").read_text(encoding="utf-8")
    assert "80% interval" in svg80 and "95% interval" not in svg80
    assert main(["plot", "overview", *argv, "--pooled", "--resamples", "200", "-o", str(tmp_path / "x")]) == 2
    assert "the pooled difference needs the reference" in capsys.readouterr().err
    assert main(["plot", "venn", *argv, "--pooled", "-o", str(tmp_path / "y")]) == 2


def test_across_clusters_and_combine_options(settings):
    argv = [x for name, path in settings.items() for x in ("--setting", f"{name}={path}")]
    code, out, err = run("across", *argv, "--reference", "rag", "--resamples", "500", "--format", "json", "--cd", "none",
                         "--clusters", "benchmark", "--combine", "simes")
    assert code == 0, err
    doc = json.loads(out)
    assert {r["interval"] for r in doc[1]["rows"]} == {"robust"}
    assert "simes" in json.dumps(doc[1])
    code, _, err = run("across", *argv, "--reference", "rag", "--resamples", "500", "--clusters", "model")
    assert code == 2 and "at least 2" in err
