"""The worked example of docs/judge-error-example.md (SPEC §9): every number it quotes, recomputed from
data/example."""

from __future__ import annotations

from pathlib import Path

import pytest

import memdiag as md

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def prep():
    return md.prepare(md.read_verdicts(REPO / "data" / "example" / "verdicts"))


def test_non_differential_judge_error_changes_no_conclusion(prep):
    out = md.judge_corrected(prep, sensitivity=0.95, specificity=0.70, n_correct=150, n_incorrect=150,
                             reference="raw-rag")
    d = out[out["kind"] == "difference"].set_index("system").round(2)
    quoted = {"full-context": (7.33, 2.08, 12.58, 11.28, 3.07, 19.49), "mem0+raw": (4.50, 0.70, 8.30, 6.92, 1.01, 12.84),
              "zep": (-1.83, -7.19, 3.53, -2.82, -11.08, 5.43), "mem0": (-8.61, -13.45, -3.78, -13.25, -20.88, -5.61)}
    for system, numbers in quoted.items():
        assert tuple(d.loc[system, ["raw", "raw_ci_low", "raw_ci_high", "corrected", "ci_low", "ci_high"]]) == numbers
    assert any(getattr(n, "code", "") == "judge-error-no-change" for n in out.attrs["notes"])
    # "even at specificity 0.5 the conclusions survive"
    worse = md.judge_corrected(prep, sensitivity=0.90, specificity=0.50, n_correct=100, n_incorrect=100,
                               reference="raw-rag")
    assert not any(getattr(n, "code", "") == "judge-error-changes-conclusion" for n in worse.attrs["notes"])


def test_calibration_size_quoted(prep):
    optimal = md.calibration_size(65.28, 0.95, 0.70, 600, 15.0).iloc[0]
    assert (optimal["n_incorrect"], optimal["n_correct"], optimal["n_calibration"]) == (286, 161, 447)
    assert md.calibration_size(65.28, 0.95, 0.70, 600, 15.0, allocation="equal").iloc[0]["n_calibration"] == 482
    assert round(100 * float(prep.panel.scores[:, prep.panel.system_index("raw-rag")].mean()), 2) == 65.28


def test_breakeven_gaps_quoted(prep):
    out = md.leniency_breakeven(prep, "raw-rag", false_positive_rate=10.61).set_index("system")
    quoted = {"full-context": ("system", 6.50), "mem0+raw": ("system", 2.10), "memobase": ("reference", 3.84),
              "mem0": ("reference", 7.80), "a-mem": ("reference", 16.54)}
    for system, (side, gap) in quoted.items():
        assert out.loc[system, "favoured"] == side
        assert round(out.loc[system, "breakeven_gap"], 2) == gap
    assert out.loc["zep", "favoured"] == ""
