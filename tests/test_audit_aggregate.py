"""Aggregate consistency (SPEC §7): recompute a published overall from its categories, by hand."""

from __future__ import annotations

import pytest

import memdiag as md
from memdiag.errors import SchemeError, VerdictError

# Mem0's published LoCoMo GPT-4o-mini categories (Raw-RAG paper A.1.3) and LoCoMo's counts (D.1.1)
MEM0 = {"single-hop": 67.13, "multi-hop": 51.15, "temporal": 55.51, "open-domain": 72.93}
COUNTS = {"single-hop": 841, "multi-hop": 282, "temporal": 321, "open-domain": 96}


def test_mem0_locomo_aggregate_is_flagged_62_14_vs_66_88():
    # by hand: 67.13·841 = 56,456.33; 51.15·282 = 14,424.30; 55.51·321 = 17,818.71;
    # 72.93·96 = 7,001.28; sum 95,700.62 over 1,540 questions = 62.1432..., not 66.88
    out = md.check_aggregate(MEM0, COUNTS, reported_overall=66.88)
    row = out.iloc[0]
    assert row["recomputed"] == pytest.approx(95_700.62 / 1_540, abs=1e-9)
    assert round(row["recomputed"], 2) == 62.14
    assert row["n"] == 1540 and row["n_categories"] == 4
    assert row["difference"] == pytest.approx(66.88 - 95_700.62 / 1_540)
    assert not row["consistent"] and row["status"] == "mismatch"
    # neither standard weighting reproduces 66.88
    assert "macro weighting gives 61.68, which does not match" in out.attrs["notes"][0]


def test_consistent_aggregate_passes():
    # category scores rounded to 2 decimals and an overall computed from the unrounded ones:
    # exact 80.1234, 65.2468, 70.0913, 55.2077 -> printed 80.12 / 65.25 / 70.09 / 55.21;
    # exact overall (67,383.7794 + 18,399.5976 + 22,499.3073 + 5,299.9392)/1540 = 113,582.6235/1540
    # = 73.75495 -> printed 73.75; from the printed categories 113,580.47/1540 = 73.75355, which
    # is 0.0036 from 73.75: within 0.01
    scores = {"single-hop": 80.12, "multi-hop": 65.25, "temporal": 70.09, "open-domain": 55.21}
    out = md.check_aggregate(scores, COUNTS, reported_overall=73.75)
    assert out.loc[0, "consistent"] and out.loc[0, "status"] == "consistent"
    assert abs(out.loc[0, "difference"]) <= 0.01


def test_macro_weighting_by_hand():
    # (67.13 + 51.15 + 55.51 + 72.93)/4 = 246.72/4 = 61.68
    out = md.check_aggregate(MEM0, None, reported_overall=61.68, weighting="macro")
    assert out.loc[0, "recomputed"] == pytest.approx(61.68, abs=1e-12)
    assert out.loc[0, "consistent"]
    assert out.attrs["weights"] == {k: 0.25 for k in MEM0}


def test_tolerance_is_a_hundredth_of_a_point_by_default():
    scores, counts = {"a": 60.0, "b": 70.0}, {"a": 1, "b": 1}        # exactly 65
    assert md.check_aggregate(scores, counts, 65.01).loc[0, "consistent"]
    assert not md.check_aggregate(scores, counts, 65.02).loc[0, "consistent"]
    assert md.check_aggregate(scores, counts, 65.3, tolerance=0.5).loc[0, "consistent"]


def test_scheme_weighting_uses_the_schemes_rule():
    # LoCoMo's scheme drops adversarial questions and weights the rest by their counts
    scores = {**MEM0, "adversarial": 10.0}
    counts = {**COUNTS, "adversarial": 446}
    out = md.check_aggregate(scores, counts, reported_overall=62.14, weighting="locomo")
    assert out.loc[0, "recomputed"] == pytest.approx(95_700.62 / 1_540)
    assert out.loc[0, "n"] == 1540 and out.loc[0, "consistent"]
    assert out.attrs["weights"]["adversarial"] == 0.0
    # MEME's six-task macro-average: (90 + 80 + 70 + 60 + 50 + 40)/6 = 65
    tasks = {"ER": 90, "Agg": 80, "Tr": 70, "Del": 60, "Cas": 50, "Abs": 40}
    assert md.check_aggregate(tasks, None, 65.0, weighting="meme").loc[0, "recomputed"] == pytest.approx(65.0)
    with pytest.raises(SchemeError, match="Abs"):
        md.check_aggregate({k: v for k, v in tasks.items() if k != "Abs"}, None, 65.0, weighting="meme")


def test_sequences_pair_scores_with_counts_by_position_and_bad_input_is_an_error():
    out = md.check_aggregate([67.13, 51.15, 55.51, 72.93], [841, 282, 321, 96], 66.88)
    assert round(out.loc[0, "recomputed"], 2) == 62.14
    with pytest.raises(VerdictError, match="differ"):
        md.check_aggregate({"a": 1.0}, {"b": 1}, 1.0)
    with pytest.raises(VerdictError, match="pass counts"):
        md.check_aggregate({"a": 1.0}, None, 1.0)
