"""The typed result and the renderers that read it (issue "one house", item 3).

A result keeps its column kinds, notes and provenance through concatenation, selection, copies
and pickling; every renderer writes a column by its declared kind, never by its name: a count as
an integer, a sentinel as its word, every p-value by ``format_p``, a probability with 3 decimals,
I² as a percentage; CSV and JSON keep full precision and write a whole count as an integer.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import memdiag as md
from memdiag.core.kinds import (
    COUNT,
    COUNT_OR_NONE,
    FRACTION,
    LABEL,
    P_FLOORED,
    P_VALUE,
    PERCENT,
    POINTS,
    PROBABILITY,
    Kind,
    declare,
    real,
)
from memdiag.core.notes import Note
from memdiag.core.provenance import stamp
from memdiag.core.result import (
    Result,
    as_result,
    kinds_of,
    notes_of,
    provenance_of,
    undeclared,
)
from memdiag.tables import MISSING, columns, format_value, render

TABLES = Path(__file__).resolve().parents[1] / "memdiag" / "tables"


def two_results() -> tuple[Result, Result]:
    a = stamp(pd.DataFrame({"system": ["mem0", "zep"], "benefit": [10.0, np.nan], "diff": [1.5, -2.0]}), "flows",
              kinds=declare(count=("benefit",), points=("diff",)),
              notes=[Note("first", code="k1"), Note("shared", code="k0", severity="caution")], seed=0, scheme="locomo")
    b = stamp(pd.DataFrame({"system": ["rag"], "benefit": [3.0], "p": [0.04]}), "flows",
              kinds=declare(count=("benefit",), p=("p",)),
              notes=[Note("shared", code="k0", severity="caution"), Note("second", code="k2")], seed=1,
              scheme="locomo")
    return a, b


# --------------------------------------------------------------------------------------------
# the typed result travels
# --------------------------------------------------------------------------------------------
def test_a_result_is_a_dataframe_with_declared_kinds():
    a, _ = two_results()
    assert isinstance(a, pd.DataFrame) and isinstance(a, Result)
    assert {c: k.name for c, k in kinds_of(a).items()} == {"system": "label", "benefit": "count", "diff": "points"}
    assert a.attrs["function"] == "flows" and a.attrs["seed"] == 0


@pytest.mark.parametrize("operation", [
    lambda d: d[["benefit", "diff"]], lambda d: d.loc[:, ["benefit", "diff"]], lambda d: d.iloc[:1],
    lambda d: d.head(1), lambda d: d.sort_values("diff"), lambda d: d.reset_index(drop=True), lambda d: d.copy(),
    copy.deepcopy, copy.copy, lambda d: pickle.loads(pickle.dumps(d)), lambda d: d[d["diff"] > 0],
    lambda d: d.assign(extra=1), lambda d: d.set_index("system").reset_index(),
], ids=["columns", "loc", "iloc", "head", "sort_values", "reset_index", "copy", "deepcopy", "copy.copy", "pickle",
        "mask", "assign", "set_index"])
def test_kinds_notes_and_provenance_survive_selection_copies_and_pickling(operation):
    a, _ = two_results()
    out = operation(a)
    assert isinstance(out, Result)
    assert kinds_of(out)["benefit"] == COUNT and kinds_of(out)["diff"] == POINTS
    assert [(n.code, n.severity) for n in notes_of(out)] == [("k1", "info"), ("k0", "caution")]
    assert provenance_of(out)["seed"] == 0 and out.attrs["function"] == "flows"


def test_concatenation_keeps_both_notes_once_each_every_kind_and_the_agreed_provenance():
    a, b = two_results()
    both = pd.concat([a, b], ignore_index=True)
    assert isinstance(both, Result)
    # the notes of both, once each, in order (plain pandas drops them: the attrs differ)
    assert [n.code for n in notes_of(both)] == ["k1", "k0", "k2"]
    assert {c: k.name for c, k in kinds_of(both).items()} == {"system": "label", "benefit": "count",
                                                              "diff": "points", "p": "p"}
    provenance = provenance_of(both)
    assert provenance["scheme"] == "locomo" and provenance["function"] == "flows"
    assert "seed" not in provenance   # 0 and 1: not a fact about the whole table
    plain_a, plain_b = pd.DataFrame(a), pd.DataFrame(b)        # what plain pandas keeps: nothing
    plain_a.attrs, plain_b.attrs = dict(a.attrs), dict(b.attrs)
    assert "notes" not in pd.concat([plain_a, plain_b]).attrs


def test_a_plain_dataframe_has_the_kinds_its_dtypes_settle_and_its_floats_undeclared():
    plain = pd.DataFrame({"name": ["a"], "n": [3], "flag": [True], "x": [0.5], "mixed": [None]})
    assert [kinds_of(plain)[c].name for c in plain] == ["label", "count", "flag", "real", "label"]
    assert undeclared(plain) == ["x"]
    assert undeclared(pd.DataFrame({"k": pd.Series([None, 2.0], dtype=object)})) == ["k"]   # numbers in an object column
    assert not undeclared(as_result(plain, {"x": FRACTION}))


def test_a_kind_outside_the_closed_set_is_refused():
    with pytest.raises(ValueError, match="one of count, points"):
        Kind("percentage")
    with pytest.raises(ValueError, match="only a numeric kind"):
        Kind("label", special=((-1.0, "none"),))
    with pytest.raises(ValueError, match="only a p-value"):
        Kind("count", floor="p_floor")
    with pytest.raises(ValueError, match="one of count"):
        declare(percent=("x",))


# --------------------------------------------------------------------------------------------
# renderers read kinds, never names
# --------------------------------------------------------------------------------------------
def kinds_frame() -> Result:
    """Column names chosen to mislead a renderer that reads names: ``n`` in points, ``rate`` a
    count, ``p_first`` a p-value, ``q_p`` a p-value, ``score`` a probability."""
    df = pd.DataFrame({
        "system": ["a", "b", "c"],
        "n": [66.875, 0.25, 100.0],                 # points, though named like a count
        "rate": [10.0, np.nan, 3.0],                # a count held as a float (a NaN made it so)
        "flips": [-1.0, 4.0, 0.0],                  # a count whose -1 means "none"
        "p_first": [0.0099995, 3.15e-14, 0.43],     # a p-value, though named like a probability
        "q_p": [0.0504, 1.0, np.nan],
        "score": [1.0, 0.0, 0.5],                   # a probability that is not a p-value
        "i2": [0.4523, 0.0, 1.0],                   # I² as a fraction; shown as a percentage
        "ratio": [1.5, 12.25, 2.0],
    })
    return as_result(df, {"n": POINTS, "rate": COUNT, "flips": COUNT_OR_NONE, "p_first": P_VALUE, "q_p": P_VALUE,
                          "score": PROBABILITY, "i2": PERCENT, "ratio": real("ratio")})


def test_every_column_is_written_by_its_kind_whatever_its_name():
    shown = {c.name: list(c.cells) for c in columns(kinds_frame())}
    assert shown == {
        "system": ["a", "b", "c"],
        "n": ["66.88", "0.25", "100.00"],
        "rate": ["10", MISSING, "3"],
        "flips": ["none", "4", "0"],
        "p_first": ["0.009999", "< 1e-12", "0.43"],
        "q_p": ["0.0504", "1", MISSING],
        "score": ["1.000", "0.000", "0.500"],
        "i2": ["45.2%", "0.0%", "100.0%"],
        "ratio": ["1.50", "12.25", "2.00"],
    }


@pytest.mark.parametrize("fmt", ["table", "md", "latex", "html"])
def test_the_formats_for_people_agree_on_the_cells(fmt):
    text = render(kinds_frame(), fmt, columns="all").replace("\\textless{}", "<").replace("\\<", "<")
    text = text.replace("&lt;", "<").replace("\u2212", "-")   # HTML's escapes and minus signs
    for cell in ("66.88", "none", "0.009999", "< 1e-12", "45.2", "12.25"):
        assert cell in text, (fmt, cell)
    for bad in ("10.00", "-1.00", " -1 ", "0.0100", "0.452"):
        assert bad not in text, (fmt, bad)


def test_csv_and_json_keep_full_precision_and_write_whole_counts_as_integers():
    frame = kinds_frame()
    rows = list(csv.DictReader(io.StringIO(render(frame, "csv"))))
    assert [r["rate"] for r in rows] == ["10", "", "3"]
    assert [r["flips"] for r in rows] == ["-1", "4", "0"]           # a sentinel keeps its number
    assert [float(r["i2"]) for r in rows] == [0.4523, 0.0, 1.0]     # I² stays a fraction for machines
    assert [float(r["n"]) for r in rows] == [66.875, 0.25, 100.0]
    records = json.loads(render(frame, "json"))["rows"]
    assert [r["rate"] for r in records] == [10, None, 3] and isinstance(records[0]["rate"], int)
    assert records[0]["n"] == 66.875 and records[2]["n"] == 100.0 and isinstance(records[2]["n"], float)


def test_format_value_gives_figures_the_tables_text():
    frame = kinds_frame()
    assert format_value(frame, "rate", 12.0) == "12"
    assert format_value(frame, "flips", -1) == "none"
    assert format_value(frame, "p_first", 0.00426) == "0.0043"
    assert format_value(frame, "i2", 0.5) == "50.0%"
    assert format_value(frame, "ratio", 3.0) == "3.00"   # with its column's decimals


def test_no_renderer_reads_a_column_name_to_choose_a_format():
    source = "\n".join(p.read_text(encoding="utf-8") for p in TABLES.glob("*.py"))
    for name in ("_COUNT", "_PROBABILITY", "_is_p", "_probability", "_integral", "re.compile(r\"^(n|k|df"):
        assert name not in source, name


def test_a_kind_declared_as_label_shows_numbers_as_they_are():
    frame = as_result(pd.DataFrame({"category_id": pd.array([1, None], dtype="Int64")}), {"category_id": LABEL})
    assert list(columns(frame)[0].cells) == ["1", MISSING]


def test_a_floored_p_is_a_bound_through_its_kind_and_an_unfloored_kind_ignores_the_flag():
    frame = pd.DataFrame({"p": [1 / 20_001, 0.5], "p_floor": [True, False], "other": [1 / 20_001, 0.5]})
    floored = as_result(frame, {"p": P_FLOORED, "other": P_VALUE})
    cells = {c.name: list(c.cells) for c in columns(floored)}
    assert cells == {"p": ["< 5.0e-5", "0.50"], "other": ["5.0e-5", "0.50"]}   # p_floor folded into p


# --------------------------------------------------------------------------------------------
# the public functions' results
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sim() -> pd.DataFrame:
    return md.simulate(n_queries=120, n_clusters=8, seed=3)


def test_flows_cells_are_counts_and_its_undefined_shares_fractions(sim):
    out = md.flows(sim, reference="raw-rag", options={"n_resamples": 200})
    kinds = kinds_of(out)
    assert all(kinds[c] == COUNT for c in ("n", "both", "benefit", "tax", "neither", "net"))
    assert kinds["p"].floor == "p_floor" and kinds["p_mcnemar"] == P_VALUE
    assert kinds["retention_undefined"] == FRACTION and kinds["net_rate_ci_low"] == POINTS
    shown = {c.name: c for c in columns(out)}
    assert all(cell.isdigit() for cell in shown["tax"].cells)


def test_fragility_sentinels_print_none(sim):
    out = md.fragility(sim)
    assert kinds_of(out)["flips_significance"] == COUNT_OR_NONE
    forced = out.assign(flips_significance=-1)
    assert set(columns(forced[["system_a", "flips_significance"]])[1].cells) == {"none"}
    assert json.loads(render(forced, "json"))["rows"][0]["flips_significance"] == -1


def test_pool_settings_writes_i2_as_a_percentage_beside_its_points():
    d = pd.DataFrame({"setting": list("abcd"), "system": "mem", "reference": "rag",
                      "diff": [4.0, 6.0, 5.0, -1.0], "se": [1.5, 2.0, 1.8, 2.2], "p": [0.008, 0.003, 0.006, 0.65]})
    out = md.pool_settings(d)
    i2 = float(out.loc[0, "i2"])
    shown = {c.name: c.cells[0] for c in columns(out)}
    assert shown["i2"] == f"{100 * i2:.1f}%"
    assert json.loads(render(out, "json"))["rows"][0]["i2"] == i2


# --------------------------------------------------------------------------------------------
# the compact terminal table
# --------------------------------------------------------------------------------------------
def test_the_terminal_shows_the_compact_table_and_all_columns_on_request(sim):
    out = md.flows(sim, reference="raw-rag", options={"n_resamples": 200})
    compact = render(out, "table").splitlines()[0]
    assert compact.split() == ["system", "reference", "benefit", "tax", "net_rate", "[95%", "CI]", "p_adj"]
    full = render(out, "table", columns="all").splitlines()[0]
    assert "both" in full and "p_mcnemar" in full and "retention" in full
    for fmt in ("md", "latex", "csv"):     # every other format keeps every column
        assert "mcnemar" in render(out, fmt)
    assert "retention" in render(out, "html")
