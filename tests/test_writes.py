"""Write-action audit (SPEC §7; Raw-RAG paper C.2, Figure 2): rates by hand, labels, duplicates, I/O."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import memdiag as md
from memdiag.errors import VerdictError

EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "example" / "write_log.csv"


def _log(rows: list[tuple]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["cluster", "decision", "persisted", "old_text", "new_text"])


def test_rates_by_hand_on_small_log():
    log = _log([
        # conversation A: 5 decisions
        ("A", "ADD", True, None, "likes tea"),
        ("A", "UPDATE", True, "likes tea", "likes green tea"),       # effective
        ("A", "UPDATE", True, "lives in Oslo", "lives in Oslo"),     # same text: not effective
        ("A", "UPDATE", False, "has a dog", "has two dogs"),         # not persisted: not effective
        ("A", "NONE", False, None, None),
        # conversation B: 3 decisions
        ("B", "DELETE", True, "has a cat", None),                    # effective
        ("B", "DELETE", False, "plays chess", None),                  # not persisted
        ("B", "ADD", True, None, "moved to Bergen"),
    ])
    out = md.write_audit(log).set_index("cluster")
    # A: proposed (3 UPDATE + 0 DELETE)/5 = 0.6; effective 1/5 = 0.2
    # B: proposed (0 + 2)/3; effective 1/3
    # overall: proposed 5/8, effective 2/8 (decision-weighted)
    assert out.loc["A", "proposed_rate"] == pytest.approx(100 * 3 / 5)
    assert out.loc["A", "effective_rate"] == pytest.approx(100 * 1 / 5)
    assert out.loc["B", "proposed_rate"] == pytest.approx(100 * 2 / 3)
    assert out.loc["B", "effective_rate"] == pytest.approx(100 * 1 / 3)
    assert out.loc["overall", "proposed_rate"] == pytest.approx(100 * 5 / 8)
    assert out.loc["overall", "effective_rate"] == pytest.approx(100 * 2 / 8)
    assert out.loc["overall", ["n_decisions", "n_add", "n_update", "n_delete", "n_none"]].tolist() == [8, 2, 3, 2, 1]
    assert out.loc["overall", ["n_effective_update", "n_effective_delete"]].tolist() == [1, 1]
    # ADD/NONE-only counterfactual: UPDATE -> ADD (2 + 3), DELETE -> NONE (1 + 2)
    assert out.loc["overall", ["cf_add", "cf_none"]].tolist() == [5, 3]
    assert out.loc["A", ["cf_add", "cf_none"]].tolist() == [4, 1]


def test_overall_row_is_the_decision_weighted_mean_of_clusters():
    rng = np.random.default_rng(3)
    log = _log([(f"c{rng.integers(5)}", rng.choice(["ADD", "UPDATE", "DELETE", "NONE"]), bool(rng.integers(2)),
                 "old", str(rng.choice(["old", "new"]))) for _ in range(300)])
    out = md.write_audit(log)
    clusters, overall = out.iloc[:-1], out.iloc[-1]
    for rate in ("proposed_rate", "effective_rate"):
        weighted = np.average(clusters[rate], weights=clusters["n_decisions"])
        assert overall[rate] == pytest.approx(weighted, rel=1e-12)


def test_unknown_decision_labels_are_reported_not_guessed():
    log = _log([("A", "ADD", True, None, "x"), ("A", "UPSERT", True, "x", "y"), ("A", "UPDATED", True, "x", "z"),
                ("A", None, False, None, None), ("A", "UPDATE", True, "x", "w")])
    out = md.write_audit(log).set_index("cluster")
    # UPSERT and UPDATED are not mapped to UPDATE; the missing label is malformed too
    assert out.loc["A", "n_malformed"] == 3
    assert out.loc["A", "n_update"] == 1
    assert out.loc["A", "n_decisions"] == 5                       # malformed rows stay in the denominator
    assert out.loc["A", "proposed_rate"] == pytest.approx(100 * 1 / 5)
    note = md.write_audit(log).attrs["notes"][0]
    assert "3 decisions with an unknown label" in note
    assert "'UPSERT' (1)" in note and "'UPDATED' (1)" in note


def test_case_and_whitespace_variants_are_normalised_and_noted():
    log = _log([("A", " update", True, "x", "y"), ("A", "Delete ", True, "x", None), ("A", "none", False, None, None)])
    out = md.write_audit(log)
    row = out.set_index("cluster").loc["A"]
    assert (row["n_update"], row["n_delete"], row["n_none"], row["n_malformed"]) == (1, 1, 1, 0)
    assert any("3 labels differ from the known ones in case or whitespace" in n for n in out.attrs["notes"])


def test_custom_labels_map_to_roles():
    log = _log([("A", "NOOP", False, None, None), ("A", "ADD", True, None, "x"), ("A", "NONE", False, None, None)])
    out = md.write_audit(log, decisions={"ADD": "ADD", "UPDATE": "UPDATE", "DELETE": "DELETE",
                                         "NONE": "NONE", "NOOP": "NONE"})
    assert out.set_index("cluster").loc["A", ["n_none", "n_malformed"]].tolist() == [2, 0]
    with pytest.raises(ValueError, match="four labels"):
        md.write_audit(log, decisions=("ADD", "UPDATE"))


def test_duplicates_are_counted_and_never_effective():
    log = pd.DataFrame({
        "cluster": ["A"] * 6,
        "decision_id": ["d1", "d2", "d3", "d3", "d4", "d5"],
        "memory_id": ["m1", "m1", "m2", "m2", "m1", "m2"],
        "decision": ["ADD", "UPDATE", "DELETE", "DELETE", "UPDATE", "DELETE"],
        "persisted": [True] * 6,
        "old_text": [None, "a", "b", "b", "a", "b"],
        "new_text": ["a", "a2", None, None, "a2", None],
    })
    out = md.write_audit(log)
    row = out.set_index("cluster").loc["A"]
    # d3 logged twice (same decision_id); d4 repeats d2's update of m1 to 'a2'; d5 deletes m2 again
    assert row["n_duplicate"] == 3
    assert (row["n_effective_update"], row["n_effective_delete"]) == (1, 1)
    assert row["n_decisions"] == 6 and row["proposed_rate"] == pytest.approx(100 * 5 / 6)
    assert row["effective_rate"] == pytest.approx(100 * 2 / 6)
    assert any("3 duplicate decisions" in n for n in out.attrs["notes"])


def test_without_id_columns_duplicates_are_not_checked_and_say_so():
    out = md.write_audit(_log([("A", "ADD", True, None, "x"), ("A", "ADD", True, None, "x")]))
    assert out["n_duplicate"].tolist() == [0, 0]
    assert "duplicates not checked" in out.attrs["notes"][-1]


def test_example_write_log_rates():
    out = md.write_audit(md.read_write_log(EXAMPLE)).set_index("cluster")
    # 45 decisions: 6 UPDATE + 2 DELETE proposed; effective: conv-26 d006 (text change), conv-26 d014
    # and conv-41 d006 (deletes), conv-30 d005 (text change; d006 repeats it, d009 not persisted)
    assert out.loc["overall", ["n_decisions", "n_update", "n_delete", "n_malformed", "n_duplicate"]].tolist() \
        == [45, 6, 2, 1, 2]
    assert out.loc["overall", "proposed_rate"] == pytest.approx(100 * 8 / 45)
    assert out.loc["overall", "effective_rate"] == pytest.approx(100 * 4 / 45)
    assert list(out.index) == ["conv-26", "conv-30", "conv-41", "overall"]


def test_csv_and_jsonl_logs_read_alike(tmp_path):
    log = md.read_write_log(EXAMPLE)
    path = tmp_path / "log.jsonl"
    columns = [c for c in log.columns if not c.startswith("source_")]
    with path.open("w") as handle:
        for record in log[columns].to_dict("records"):
            handle.write(json.dumps({k: (None if pd.isna(v) else v) for k, v in record.items()}) + "\n")
    a, b = md.write_audit(log), md.write_audit(md.read_write_log(path))
    pd.testing.assert_frame_equal(a, b)


def test_bad_log_errors_name_file_row_and_field(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("cluster,decision,persisted,old_text,new_text\nA,ADD,yes,,x\nA,UPDATE,maybe,x,y\n")
    with pytest.raises(VerdictError, match=r"bad\.csv, row 2, field 'persisted': 'maybe'"):
        md.read_write_log(bad)
    missing = tmp_path / "missing.csv"
    missing.write_text("cluster,decision,old_text,new_text\nA,ADD,,x\n")
    with pytest.raises(VerdictError, match=r"missing\.csv, field 'persisted': required column is missing"):
        md.read_write_log(missing)
    broken = tmp_path / "broken.jsonl"
    first = {"cluster": "A", "decision": "ADD", "persisted": True, "old_text": None, "new_text": "x"}
    broken.write_text(json.dumps(first) + "\n{oops\n")
    with pytest.raises(VerdictError, match=r"broken\.jsonl, line 2: not valid JSON"):
        md.read_write_log(broken)
    with pytest.raises(VerdictError, match="cluster"):
        md.write_audit(_log([(None, "ADD", True, None, "x")]))


labels = st.sampled_from(["ADD", "UPDATE", "DELETE", "NONE", "add", "Bogus", None])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abc"), labels, st.booleans(), st.sampled_from(["x", "y", None]),
                          st.sampled_from(["x", "y", None])), min_size=1, max_size=40))
def test_counts_add_up_and_effective_never_exceeds_proposed(rows):
    out = md.write_audit(_log(rows))
    roles = out[["n_add", "n_update", "n_delete", "n_none", "n_malformed"]].sum(axis=1)
    assert (roles == out["n_decisions"]).all()
    assert (out["cf_add"] + out["cf_none"] + out["n_malformed"] == out["n_decisions"]).all()
    assert (out["effective_rate"] <= out["proposed_rate"] + 1e-12).all()
    clusters, overall = out.iloc[:-1], out.iloc[-1]
    for column in ("n_decisions", "n_update", "n_delete", "n_effective_update", "n_effective_delete", "cf_add"):
        assert clusters[column].sum() == overall[column]


def test_rates_carry_clopper_pearson_intervals_from_beta_quantiles():
    from scipy.stats import beta

    out = md.write_audit(md.read_write_log(EXAMPLE), options=md.Options(confidence_level=0.9))
    assert out.attrs["confidence_level"] == 0.9 and out.attrs["interval"] == "Clopper-Pearson"
    for rate, events in (("proposed", out["n_update"] + out["n_delete"]),
                         ("effective", out["n_effective_update"] + out["n_effective_delete"])):
        for k, n, low, high in zip(events, out["n_decisions"], out[f"{rate}_rate_ci_low"],
                                   out[f"{rate}_rate_ci_high"]):
            # exact interval: Beta(k, n-k+1) 5% and Beta(k+1, n-k) 95% quantiles (0 / 1 at the edges)
            assert low == pytest.approx(0.0 if k == 0 else 100 * beta.ppf(0.05, k, n - k + 1), abs=1e-9)
            assert high == pytest.approx(100.0 if k == n else 100 * beta.ppf(0.95, k + 1, n - k), abs=1e-9)
        assert (out[f"{rate}_rate_ci_low"] <= out[f"{rate}_rate"]).all()
        assert (out[f"{rate}_rate"] <= out[f"{rate}_rate_ci_high"]).all()
