"""LongMemEval task-averaged accuracy beside the overall and without abstention (issue 22).

The task-averaged score weights the six question types equally whatever their counts; checked
against a hand computation on a synthetic LongMemEval-S with the benchmark's exact counts.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import memdiag as md

COUNTS = {"single-session-user": 70, "single-session-assistant": 56, "single-session-preference": 30,
          "multi-session": 133, "knowledge-update": 78, "temporal-reasoning": 133}
ABSTENTION = {"single-session-user": 6, "multi-session": 12, "knowledge-update": 6, "temporal-reasoning": 6}
#: correct answers per type: among non-abstention questions, then among abstention questions
CORRECT = {"single-session-user": (50, 3), "single-session-assistant": (40, 0), "single-session-preference": (6, 0),
           "multi-session": (60, 10), "knowledge-update": (52, 0), "temporal-reasoning": (70, 6)}


@pytest.fixture(scope="module")
def verdicts():
    rows = []
    for qtype, n in COUNTS.items():
        n_abs = ABSTENTION.get(qtype, 0)
        right, right_abs = CORRECT[qtype]
        for i in range(n - n_abs):
            rows.append({"query_id": f"{qtype}-{i:03d}", "category": qtype, "score": float(i < right)})
        for i in range(n_abs):
            rows.append({"query_id": f"{qtype}-{i:03d}_abs", "category": qtype, "score": float(i < right_abs)})
    return pd.DataFrame(rows).assign(system="mem")


def test_task_average_by_hand(verdicts):
    # per type, all 500: (50+3)/70, 40/56, 6/30, (60+10)/133, 52/78, (70+6)/133
    per_type = [53 / 70, 40 / 56, 6 / 30, 70 / 133, 52 / 78, 76 / 133]
    task_avg = 100 * sum(per_type) / 6
    overall = 100 * (53 + 40 + 6 + 70 + 52 + 76) / 500
    assert md.score(md.prepare(verdicts, scheme="longmemeval-task-avg"), options=dict(n_resamples=0))["overall"].iloc[0] == pytest.approx(task_avg)
    assert md.score(md.prepare(verdicts, scheme="longmemeval"), options=dict(n_resamples=0))["overall"].iloc[0] == pytest.approx(overall)
    assert abs(task_avg - overall) > 1            # the two weightings differ here (57.26 vs 59.40)


def test_task_average_without_abstention_by_hand(verdicts):
    # without the 30 _abs questions: 50/64, 40/56, 6/30, 60/121, 52/72, 70/127
    per_type = [50 / 64, 40 / 56, 6 / 30, 60 / 121, 52 / 72, 70 / 127]
    table = md.score(md.prepare(verdicts, scheme="longmemeval-no-abs-task-avg"))
    assert table["overall"].iloc[0] == pytest.approx(100 * sum(per_type) / 6)
    assert int(table["n"].iloc[0]) == 470 and bool(table["complete"].iloc[0])
    no_abs = md.score(md.prepare(verdicts, scheme="longmemeval-no-abs"))["overall"].iloc[0]
    assert no_abs == pytest.approx(100 * (50 + 40 + 6 + 60 + 52 + 70) / 470)


def test_weights_are_one_sixth_each():
    weights = md.get_scheme("longmemeval-task-avg").group_weights
    assert np.allclose(list(weights.values()), 1 / 6) and set(weights) == set(COUNTS)
