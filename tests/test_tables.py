"""Tables for people share one formatter (terminal, Markdown, LaTeX, HTML); CSV and JSON keep full precision."""

from __future__ import annotations

import csv
import io
import re
import shutil
import subprocess
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import memdiag as md
from memdiag.cli import main
from memdiag.core.kinds import (
    COUNT,
    P_FLOORED,
    P_VALUE,
    POINTS,
    PROBABILITY,
    real,
)
from memdiag.core.result import as_result
from memdiag.tables import (
    HTML_WIDTH,
    MISSING,
    column_px,
    columns,
    format_p,
    html,
    render,
)
from memdiag.tables.pages import _split

EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "example"
VERDICTS = str(EXAMPLE / "verdicts")


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


# --------------------------------------------------------------------------------------------
# p-values, counts, missing values
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("p, shown", [
    (0.43, "0.43"), (0.5, "0.50"), (0.0042, "0.0042"), (0.00426, "0.0043"),  # two significant digits
    (1.0, "1"), (0.999, "1"),
    (0.0504, "0.0504"), (0.0496, "0.0496"), (0.05, "0.050"),  # two digits would print 0.050
    (0.0099995, "0.009999"),          # four digits still print 0.01000: cut on the side p is on
    (0.0010, "0.0010"), (0.00025, "0.00025"), (1e-4, "0.00010"),
    (4.2e-5, "4.2e-5"), (3.15e-14, "< 1e-12"), (0.0, "< 1e-12"), (float("nan"), MISSING),
])
def test_p_values_have_two_significant_digits(p, shown):
    assert format_p(p) == shown


@pytest.mark.parametrize("p, shown", [(1 / 20_001, "< 5.0e-5"), (1 / 501, "< 0.0020"), (0.00225, "< 0.0023"),
                                      (9 / 20_001, "< 0.00045")])
def test_a_p_at_its_monte_carlo_floor_is_a_bound_rounded_up(p, shown):
    # 1/20001 = 4.99975e-5 -> 5.0e-5; 1/501 = 0.001996 -> 0.0020; 9/20001 = 0.00044998 -> 0.00045
    assert format_p(p, bound=True) == shown


def awkward_frame() -> pd.DataFrame:
    """What the result frames hold: counts as floats (a NaN made them so), nullable integers,
    ranks, p-values from 0 to 1 with a floored one, -0.001 points, rank probabilities reaching 1,
    each column with the kind its maker declares."""
    df = pd.DataFrame({
        "system": ["mem0", "zep", "raw-rag"],
        "n": [1500.0, 1500.0, np.nan],
        "missing_b": pd.array([11, None, 3], dtype="Int64"),
        "rank": [1.0, 2.0, 3.0],
        "diff": [-0.001, -8.372, 0.444],
        "ci_low": [-1.0, -12.0, -0.5],
        "ci_high": [1.0, -4.0, 1.5],
        "p": [0.0, 1 / 20_001, 0.43],
        "p_floor": [False, True, False],
        "p_mcnemar": [3.15e-14, 1.0, 0.0042],
        "p_first": [1.0, 0.0, 0.0],
        "note": ["x", None, "y"],
        "design": ["cluster"] * 3,
        "seed": [0, 0, 0],
    })
    df = as_result(df, {"n": COUNT, "rank": real("rank"), "diff": POINTS, "ci_low": POINTS, "ci_high": POINTS,
                        "p": P_FLOORED, "p_mcnemar": P_VALUE, "p_first": PROBABILITY})
    df.attrs = {"design": "cluster", "seed": 0, "confidence_level": 0.95, "n_resamples": 20000}
    return df


def test_every_format_for_people_shows_the_same_cells():
    df = awkward_frame()
    shown = {c.header: c.joined() for c in columns(df)}
    assert shown == {
        "system": ["mem0", "zep", "raw-rag"],
        "n": ["1500", "1500", MISSING],
        "missing_b": ["11", MISSING, "3"],
        "rank": ["1", "2", "3"],
        "diff [95% CI]": ["0.00 [-1.00, 1.00]", "-8.37 [-12.00, -4.00]", "0.44 [-0.50, 1.50]"],
        "p": ["< 1e-12", "< 5.0e-5", "0.43"],
        "p_mcnemar": ["< 1e-12", "1", "0.0042"],
        "p_first": ["1.000", "0.000", "0.000"],
        "note": ["x", MISSING, "y"],
    }  # design and seed are in the signature line; p_floor is the "<"
    for fmt in ("table", "md"):
        text = render(df, fmt, columns="all")
        for cell in ("1500", "< 5.0e-5", "0.00 [-1.00, 1.00]", "-8.37 [-12.00, -4.00]", "< 1e-12", "1.000"):
            assert cell in text.replace("\\<", "<").replace("\\[", "[").replace("\\]", "]"), (fmt, cell)
    page = html(df)
    for cell in ("1500", "&lt; 5.0e\u22125", "\u22128.37", "[\u221212.00, \u22124.00]", "0.0042", MISSING):
        assert cell in page, cell
    latex = render(df, "latex")
    assert "\\textminus{}8.37 [\\textminus{}12.00, \\textminus{}4.00]" in latex


@pytest.mark.parametrize("fmt", ["table", "md", "latex", "html"])
def test_no_format_for_people_prints_nan_na_zero_exponents_or_negative_zero(fmt):
    text = render(awkward_frame(), fmt, columns="all")
    for bad in ("nan", "NaN", "<NA>", "None", "e+00", "-0.00", "1500.00", "1.00 ", "0.00e"):
        assert bad not in text, (fmt, bad)


def test_csv_and_json_keep_full_precision():
    df = awkward_frame()
    rows = list(csv.DictReader(io.StringIO(render(df, "csv"))))
    assert [float(r["diff"]) for r in rows] == [-0.001, -8.372, 0.444]
    # a count held as a float (a NaN made it so) is written as the integer it is
    assert float(rows[1]["p"]) == 1 / 20_001 and rows[0]["n"] == "1500" and rows[2]["n"] == ""
    assert "p_floor" in rows[0] and "design" in rows[0]


def test_latex_right_aligns_numbers_and_writes_minus_signs():
    text = render(awkward_frame(), "latex")
    assert "\\begin{tabular}{lrrrrrrrl}" in text
    body = text.split("\\midrule")[1].split("\\bottomrule")[0]
    assert not re.search(r"(?<![\w.])-\d", body)  # every minus of a number is \textminus{}


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_latex_tables_compile(tmp_path):
    df = md.flows(md.read_verdicts(VERDICTS), reference="raw-rag", options=dict(n_resamples=200))
    document = ("\\documentclass{article}\n\\usepackage{booktabs}\n\\usepackage[margin=1cm,landscape]{geometry}\n"
                "\\begin{document}\n\\tiny\n" + render(df, "latex") + render(awkward_frame(), "latex")
                + "\\end{document}\n")
    (tmp_path / "t.tex").write_text(document, encoding="utf-8")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:]


# --------------------------------------------------------------------------------------------
# one table per CSV file
# --------------------------------------------------------------------------------------------
def test_two_tables_as_csv_go_to_two_files(tmp_path):
    target = tmp_path / "X.csv"
    code, out, err = run("compare", VERDICTS, "--omnibus", "--resamples", "200", "--format", "csv", "-o", str(target))
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["X.csv", "X.omnibus.csv"]
    pairs, omnibus = pd.read_csv(target), pd.read_csv(tmp_path / "X.omnibus.csv")
    assert len(pairs) == 21 and list(pairs.columns[:2]) == ["system_a", "system_b"]
    assert len(omnibus) == 1 and omnibus.loc[0, "k"] == 7


def test_two_tables_as_csv_on_stdout_are_refused_and_an_existing_second_file_is_kept(tmp_path):
    code, out, err = run("compare", VERDICTS, "--omnibus", "--resamples", "200", "--format", "csv")
    assert code == 2 and out == "" and "a CSV file holds one" in err and "-o FILE.csv" in err
    (tmp_path / "X.omnibus.csv").write_text("mine\n", encoding="utf-8")
    code, _, err = run("compare", VERDICTS, "--omnibus", "--resamples", "200", "--format", "csv",
                       "-o", str(tmp_path / "X.csv"))
    assert code == 2 and "X.omnibus.csv" in err
    assert (tmp_path / "X.omnibus.csv").read_text(encoding="utf-8") == "mine\n" and not (tmp_path / "X.csv").exists()


def test_html_format_writes_one_page_with_every_table(tmp_path):
    code, out, _ = run("compare", VERDICTS, "--omnibus", "--resamples", "200", "--format", "html")
    assert code == 0 and out.count("<!DOCTYPE html>") == 1 and out.count("<table>") >= 2
    assert out.count('<p class="signature">') == 2


# --------------------------------------------------------------------------------------------
# HTML: key columns first, the rest under <details>, every piece within the page
# --------------------------------------------------------------------------------------------
def test_html_flows_table_shows_the_key_columns_first():
    df = md.flows(md.read_verdicts(VERDICTS), reference="raw-rag", options=dict(n_resamples=200))
    first, rest = _split(columns(df), HTML_WIDTH)
    assert [c.name for c in first] == ["system", "benefit", "tax", "net", "benefit_rate", "tax_rate", "net_rate",
                                       "retention", "recovery", "p", "p_adj"]
    moved = [c.name for piece in rest for c in piece if c.name != "system"]
    assert {"both", "neither", "test", "method", "p_mcnemar", "reference", "n"} <= set(moved)
    page = html(df)
    assert page.index("<table>") < page.index('<details class="more">') < page.rindex("<table>")


def test_html_pieces_fit_the_page_whatever_the_number_of_columns():
    wide = pd.DataFrame({"system": ["Backboard-io__Backboard-Locomo-Benchmark", "zep"],
                         **{f"p_rank_{k}": [0.5, 0.5] for k in range(1, 21)},
                         "estimate": [75.2, 70.1], "ci_low": [70.0, 66.0], "ci_high": [80.0, 74.0]})
    first, rest = _split(columns(wide), HTML_WIDTH)
    assert "estimate" in [c.name for c in first]  # the headline number stays
    for piece in [first, *rest]:
        assert sum(column_px(c) for c in piece) <= HTML_WIDTH
    assert sorted(c.name for piece in [first, *rest] for c in piece if c.name != "system") == sorted(
        ["estimate", *(f"p_rank_{k}" for k in range(1, 21))])


def test_a_column_label_in_attrs_names_the_column_for_people_only():
    df = pd.DataFrame({"group": ["1"], "estimate": [50.0], "ci_low": [40.0], "ci_high": [60.0]})
    df.attrs = {"column_labels": {"group": "category", "estimate": "1 (multi-hop)"}, "confidence_level": 0.95}
    assert [c.header for c in columns(df)] == ["category", "1 (multi-hop) [95% CI]"]
    assert render(df, "csv").splitlines()[0] == "group,estimate,ci_low,ci_high"


@pytest.mark.parametrize("n_rows", [0, 1, 7])
def test_latex_tables_are_byte_for_byte_what_pandas_to_latex_writes(n_rows):
    # memdiag writes the booktabs tabular itself (pandas renders it through a slow Styler): the
    # bytes must stay those of DataFrame.to_latex(index=False, escape=False) on the same cells
    from memdiag.tables.text import _booktabs

    rng = np.random.default_rng(n_rows)
    headers = ["system", "diff [95\\% CI]", "p", "n \\& m"]
    pool = ["mem0", "a\\_b", "\\textbackslash{}input", "−1.2 [−3.0, 0.5]", "< 1e-12", "", "{}", "x & y"]
    columns = [[str(rng.choice(pool)) for _ in range(n_rows)] for _ in headers]
    spec = "lrrl"
    expected = pd.DataFrame(dict(zip(headers, columns)), columns=headers).to_latex(
        index=False, escape=False, column_format=spec)
    assert _booktabs(headers, columns, spec) == expected
