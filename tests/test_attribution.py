"""Change attribution (SPEC §7; paper A.4.4) against hand-worked cases and direct pandas sums."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import memdiag as md


def test_paper_a44_arithmetic_is_reproduced_by_construction():
    # 1,540 LoCoMo-sized queries; 41 changed contexts gain one question net (1/1540 = +0.065 pts),
    # the 1,499 unchanged gain 4.33 questions net in expectation: pick +5 and -1 -> 4/1540 = +0.260.
    n, k = 1540, 41
    ids = [f"q{i:04d}" for i in range(n)]
    before = np.zeros(n)
    after = np.zeros(n)
    after[0] = 1.0                        # one changed query gains
    after[k:k + 5] = 1.0                  # five unchanged queries gain
    before[k + 5] = 1.0                   # one unchanged query loses
    b = pd.DataFrame({"system": "rag", "query_id": ids, "score": before})
    a = pd.DataFrame({"system": "rag", "query_id": ids, "score": after})
    out = md.attribute_change(b, a, changed=ids[:k], options=dict(n_resamples=500)).set_index("part")
    assert out.loc["changed", "n"] == 41 and out.loc["unchanged", "n"] == 1499
    assert out.loc["changed", "contribution"] == pytest.approx(100 / 1540)      # +0.065 points
    assert out.loc["unchanged", "contribution"] == pytest.approx(400 / 1540)    # +0.260 points
    assert out.loc["total", "contribution"] == pytest.approx(500 / 1540)


def test_parts_add_up_to_the_score_change_on_simulated_runs():
    df = md.simulate(n_queries=500, systems=("before-run", "after-run"), reference="before-run", seed=4)
    before, after = df[df["system"] == "before-run"], df[df["system"] == "after-run"]
    after = after.assign(system="before-run")
    changed = sorted(df["query_id"].unique())[::7]
    out = md.attribute_change(before, after, changed=changed, options=dict(n_resamples=1_000)).set_index("part")
    s_before = before.assign(score=before["score"].fillna(0)).groupby("query_id")["score"].mean()
    s_after = after.assign(score=after["score"].fillna(0)).groupby("query_id")["score"].mean()
    delta = (s_after - s_before)
    assert out.loc["total", "contribution"] == pytest.approx(100 * delta.mean())
    assert out.loc["changed", "contribution"] == pytest.approx(100 * delta[changed].sum() / len(delta))
    assert out.loc["changed", "contribution"] + out.loc["unchanged", "contribution"] == \
        pytest.approx(out.loc["total", "contribution"])
    for part in out.index:
        assert out.loc[part, "ci_low"] <= out.loc[part, "contribution"] <= out.loc[part, "ci_high"]


def test_changed_flags_may_come_from_a_column():
    before = pd.DataFrame({"system": "m", "query_id": list("abc"), "score": [0, 0, 1]})
    after = before.assign(score=[1, 0, 1], changed=[1, 0, 0])
    out = md.attribute_change(before, after, changed="changed", options=dict(n_resamples=100)).set_index("part")
    assert out.loc["changed", "contribution"] == pytest.approx(100 / 3)


def test_macro_weighted_scheme_is_refused_and_unknown_ids_are_an_error():
    before = pd.DataFrame({"system": "m", "query_id": list("abc"), "score": [0, 0, 1]})
    with pytest.raises(md.SchemeError, match="does not split"):
        md.attribute_change(md.prepare(before.assign(stratum="EventQA"), scheme="memoryagentbench"), before,
                            changed=["a"])
    with pytest.raises(md.VerdictError, match="none of the 1 changed query ids"):
        md.attribute_change(before, before, changed=["zz"], options=dict(n_resamples=100))
