"""Paper tables (issue 19, item 4): ``--columns`` keeps the columns named, in that order, in every
format; ``--columns paper`` is the compact table of each result; short names (``--alias``, a
recipe's ``labels:``) replace the system names in the formats for people and not in CSV or JSON;
category columns and groups come in the benchmark's order with their integers.

Each expectation is written out by hand from the columns the functions produce (the example data,
B = 200), never derived from :func:`memdiag.tables.paper_columns` itself.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from cli_run import run

import memdiag as md
from memdiag.tables import paper_columns, render, select

REPO = Path(__file__).resolve().parents[1]
VERDICTS = REPO / "data" / "example" / "verdicts"
B = 200
#: LoCoMo's categories in the dataset's order (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop).
LOCOMO_ORDER = ["multi-hop", "temporal", "open-domain", "single-hop"]



@pytest.fixture(scope="module")
def verdicts() -> pd.DataFrame:
    return md.read_verdicts(VERDICTS)


@pytest.fixture(scope="module")
def compared(verdicts) -> pd.DataFrame:
    return md.compare(verdicts, reference="raw-rag", options=dict(n_resamples=B))


def headers(text: str, fmt: str) -> list[str]:
    """The column headers of a rendered table, as printed."""
    if fmt == "table":
        return re.split(r"\s{2,}", text.splitlines()[0].strip())
    if fmt == "md":
        return [h.strip().replace("\\", "") for h in text.splitlines()[0].strip("|").split("|")]
    if fmt == "latex":
        row = text.splitlines()[2].removesuffix(" \\\\")
        return [h.strip().replace("\\", "") for h in row.split(" & ")]
    if fmt == "html":
        first = text.split("</thead>")[0]
        return re.findall(r"<th class=\"\w+\">(.*?)</th>", first.replace("<wbr>", ""))
    if fmt == "csv":
        return text.splitlines()[0].split(",")
    return list(json.loads(text)["rows"][0])


FORMATS = ("table", "md", "latex", "html", "csv", "json")
#: ``--columns system_b,p_adj,system_a,diff`` as each format writes it: the formats for people fold
#: the interval into the estimate (and p_floor into p_adj); CSV and JSON write them after it.
SELECTED = {"people": ["system_b", "p_adj", "system_a", "diff [95% CI]"],
            "machines": ["system_b", "p_adj", "p_floor", "system_a", "diff", "ci_low", "ci_high"]}


@pytest.mark.parametrize("fmt", FORMATS)
def test_columns_keep_the_named_columns_in_their_order_in_every_format(compared, fmt):
    text = render(compared, fmt, columns=["system_b", "p_adj", "system_a", "diff"])
    expected = SELECTED["machines" if fmt in ("csv", "json") else "people"]
    assert headers(text, fmt) == expected


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_command_line_columns_option_acts_in_every_format(fmt):
    code, out, err = run("compare", VERDICTS, "--pairs", "reference", "--reference", "raw-rag", "--resamples", B,
                         "--quiet", "--format", fmt, "--columns", "system_b,p_adj,system_a,diff")
    assert code == 0, err
    assert headers(out, fmt) == SELECTED["machines" if fmt in ("csv", "json") else "people"]


def test_a_selection_keeps_every_number(compared):
    kept = select(compared, ["diff", "system_a"])
    assert kept["diff"].tolist() == compared["diff"].tolist()
    assert kept["ci_low"].tolist() == compared["ci_low"].tolist()
    assert kept.attrs["correction"] == compared.attrs["correction"]


def test_a_column_the_signature_states_is_shown_when_named(compared):
    # the design equals the run's in every row: left out of the full table, shown when asked for
    assert "design" not in headers(render(compared, "md"), "md")
    assert headers(render(compared, "md", columns=["system_a", "design"]), "md") == ["system_a", "design"]


def test_an_unknown_column_is_a_usage_error_naming_the_columns():
    code, out, err = run("compare", VERDICTS, "--pairs", "reference", "--reference", "raw-rag", "--resamples", B,
                         "--columns", "system_a,delta")
    assert code == 2 and out == ""
    assert "--columns: no column 'delta' in this table" in err
    assert "its columns: system_a, system_b, estimate_a, estimate_b, diff, ci_low, ci_high" in err


def test_an_empty_column_name_is_refused_by_the_parser():
    code, _, err = run("score", VERDICTS, "--columns", "system,,overall")
    assert code == 2 and "expected column names separated by commas" in err


def test_a_paper_table_of_a_table_without_an_estimate_is_a_usage_error():
    code, _, err = run("validate", VERDICTS, "--columns", "paper")
    assert code == 2 and "no estimate to show in a compact paper table" in err and "mean_score" in err


def test_the_paper_presets_of_score_compare_and_flows(verdicts, compared):
    score = md.score(md.prepare(verdicts, scheme="locomo"), options=dict(n_resamples=B))
    flows = md.flows(verdicts, reference="raw-rag", options=dict(n_resamples=B))
    by = md.flows(md.prepare(verdicts, scheme="locomo"), reference="raw-rag", by="category",
                  options=dict(n_resamples=B))
    assert paper_columns(score) == ["system", "overall"]
    assert paper_columns(compared) == ["system_a", "system_b", "diff", "p_adj"]
    assert paper_columns(flows) == ["system", "reference", "benefit", "tax", "net_rate", "p_adj"]
    assert paper_columns(by) == ["group", "category_id", "system", "reference", "benefit", "tax", "net_rate", "p_adj"]


@pytest.mark.parametrize(("argv", "expected"), [
    (("score", "--scheme", "locomo"), ["system", "overall [95% CI]"]),
    (("compare", "--pairs", "reference", "--reference", "raw-rag"),
     ["system_a", "system_b", "diff [95% CI]", "p_adj"]),
    (("flows", "--reference", "raw-rag"),
     ["system", "reference", "benefit", "tax", "net_rate [95% CI]", "p_adj"]),
    (("leaderboard",), ["system", "estimate [95% CI]", "tier"]),
])
def test_the_paper_table_on_the_command_line(argv, expected):
    code, out, err = run(argv[0], VERDICTS, *argv[1:], "--resamples", B, "--quiet", "--columns", "paper")
    assert code == 0, err
    assert headers(out, "table") == expected


def test_paper_leaves_a_table_without_an_estimate_whole():
    code, out, err = run("compare", VERDICTS, "--resamples", B, "--quiet", "--omnibus", "--format", "json",
                         "--columns", "paper")
    assert code == 0, err
    pairs, omnibus = json.loads(out)
    assert list(pairs["rows"][0]) == ["system_a", "system_b", "diff", "ci_low", "ci_high", "p_adj", "p_floor"]
    assert "statistic" in omnibus["rows"][0] and "test" in omnibus["rows"][0]


def cells(text: str, fmt: str) -> list[str]:
    """The first cell of every body row of a rendered table."""
    if fmt == "md":
        rows = [line for line in text.splitlines()[2:] if line.startswith("|")]
        return [row.strip("|").split("|")[0].strip() for row in rows]
    if fmt == "latex":
        body = text.split("\\midrule\n")[1].split("\\bottomrule")[0]
        return [row.split(" & ")[0] for row in body.splitlines()]
    if fmt == "html":
        first = text.split("</table>")[0]   # the second table (under "More columns") repeats the names
        return re.findall(r"<tr><td class=\"text\">(.*?)</td>", first.replace("<wbr>", ""))
    if fmt == "csv":
        return [line.split(",")[0] for line in text.splitlines()[1:]]
    return [row["system"] for row in json.loads(text)["rows"]]


@pytest.mark.parametrize("fmt", ["md", "latex", "html"])
def test_an_alias_replaces_the_name_in_the_formats_for_people(fmt):
    code, out, err = run("score", VERDICTS, "--resamples", B, "--quiet", "--format", fmt,
                         "--alias", "mem0=Mem0", "--alias", "full-context=FC")
    assert code == 0, err
    assert cells(out, fmt) == ["a-mem", "FC", "Mem0", "mem0+raw", "memobase", "raw-rag", "zep"]


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_csv_and_json_keep_the_full_names(fmt):
    code, out, err = run("score", VERDICTS, "--resamples", B, "--quiet", "--format", fmt, "--alias", "mem0=Mem0")
    assert code == 0, err
    assert cells(out, fmt) == ["a-mem", "full-context", "mem0", "mem0+raw", "memobase", "raw-rag", "zep"]
    assert "Mem0" not in out


def test_an_alias_names_the_systems_of_every_column_of_a_pair_table():
    code, out, err = run("compare", VERDICTS, "--pairs", "reference", "--reference", "raw-rag", "--resamples", B,
                         "--quiet", "--format", "md", "--alias", "raw-rag=RAG", "--columns", "system_a,system_b")
    assert code == 0, err
    rows = [line.strip("|").split("|") for line in out.splitlines()[2:8]]
    assert [b.strip() for _, b in rows] == ["RAG"] * 6


def test_a_recipe_labels_the_systems_of_the_tables(tmp_path):
    recipe = tmp_path / "release.yaml"
    recipe.write_text(f"sources:\n  - files: ['{VERDICTS}/*.csv']\n    format: auto\n    system: '{{stem}}'\n"
                      "labels:\n  mem0+raw: Mem0 + raw\n", encoding="utf-8")
    code, out, err = run("score", "--recipe", recipe, "--resamples", B, "--quiet", "--format", "md",
                         "--allow-outside")
    assert code == 0, err
    assert "Mem0 + raw" in cells(out, "md") and "mem0+raw" not in cells(out, "md")
    code, out, err = run("score", "--recipe", recipe, "--resamples", B, "--quiet", "--format", "csv",
                         "--allow-outside")
    assert code == 0, err
    assert "mem0+raw" in cells(out, "csv") and "Mem0 + raw" not in out


def test_an_alias_without_verdicts_is_a_usage_error():
    code, _, err = run("audit", "--summaries", REPO / "data" / "example" / "summaries_memory_tax.yaml",
                       "--alias", "mem0=M")
    assert code == 2 and "--alias names systems of the verdicts read" in err


@pytest.mark.parametrize("fmt", ["table", "md", "latex", "html"])
def test_score_categories_in_the_benchmark_order_with_their_integers(fmt):
    code, out, err = run("score", VERDICTS, "--scheme", "locomo", "--resamples", B, "--quiet", "--format", fmt)
    assert code == 0, err
    shown = [h.removesuffix(" [95% CI]") for h in headers(out, fmt) if "(" in h and not h.startswith("n ")]
    assert shown == ["1 (multi-hop)", "2 (temporal)", "3 (open-domain)", "4 (single-hop)"]


def test_score_csv_keeps_the_names_in_the_benchmark_order(verdicts):
    text = render(md.score(md.prepare(verdicts, scheme="locomo"), options=dict(n_resamples=B)), "csv")
    named = [c for c in headers(text, "csv") if c in LOCOMO_ORDER]
    assert named == LOCOMO_ORDER


@pytest.mark.parametrize("command", ["flows", "compare"])
def test_groups_of_a_by_category_table_in_the_benchmark_order(command, verdicts):
    prep, arguments = md.prepare(verdicts, scheme="locomo"), dict(reference="raw-rag", by="category",
                                                                    options={"n_resamples": B})
    table = (md.flows(prep, **arguments) if command == "flows"
             else md.compare(prep, **arguments))
    order = list(dict.fromkeys(zip(table["group"], table["category_id"])))
    assert order == [("multi-hop", 1), ("temporal", 2), ("open-domain", 3), ("single-hop", 4)]
    # the formats for people print the integer beside the name
    body = render(table, "md", columns=["group", "category_id", "system" if command == "flows" else "system_a"])
    rows = [tuple(c.strip() for c in line.split("|")[1:3]) for line in body.splitlines()[2:] if line.startswith("|")]
    assert list(dict.fromkeys(rows)) == [("multi-hop", "1"), ("temporal", "2"), ("open-domain", "3"),
                                         ("single-hop", "4")]
