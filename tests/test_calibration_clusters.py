"""Calibration with few clusters (SPEC §4.1): coverage of the default interval and size of the
default test under the cluster design, by simulation.

The calibration itself is slow (``pytest -m slow``); the check that md.compare runs the same
engine calls is fast. The data and the engine calls are those of ``benchmarks/calibration.py``
(which writes the side-by-side table ``benchmarks/calibration_table.md``): LoCoMo's conversation
sizes (recycled for 30 and 100 conversations) with a conversation-level system difference of sd 5
points, the same sizes with independent queries, and MEME-like episodes scored by a six-task
macro-average; G = 10, 30 and 100. 2,000 data sets each with the true difference (2 points) for
coverage and 2,000 without for size; acceptance as in the issue: coverage in [0.935, 0.965] (the
exact binomial band for 2,000 sets at level 0.001 is [0.934, 0.965]) and size ≤ 0.065 at α = 0.05.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import memdiag as md

_SPEC = importlib.util.spec_from_file_location(
    "calibration", Path(__file__).resolve().parents[1] / "benchmarks" / "calibration.py")
calibration = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(calibration)

N_SETS = 2_000
B = 999


@pytest.mark.slow
@pytest.mark.parametrize("n_clusters", [10, 30, 100])
@pytest.mark.parametrize("kind", calibration.KINDS)
def test_default_interval_covers_and_default_test_keeps_its_size(kind, n_clusters):
    coverage, size = calibration.calibrate(kind, n_clusters, n_sets=N_SETS, n_resamples=B,
                                           methods=("default",))["default"]
    print(f"\n{kind}, G = {n_clusters}: default coverage {coverage:.4f}, size {size:.4f} "
          f"({N_SETS} data sets each, B = {B})")
    assert 0.935 <= coverage <= 0.965, f"{kind} G={n_clusters}: coverage {coverage:.4f}"
    assert size <= 0.065, f"{kind} G={n_clusters}: size {size:.4f}"


def test_md_compare_runs_exactly_the_calibrated_engine_calls():
    """The public path gives the numbers the calibration measures."""
    rng = np.random.default_rng(5)
    y, cluster = calibration.simulate_conversations(rng, 10, 0.02)
    ids = [f"q{i:04d}" for i in range(len(cluster))]
    df = pd.DataFrame({"system": ["mem"] * len(ids) + ["rag"] * len(ids), "query_id": ids * 2,
                       "cluster": np.tile(cluster, 2), "score": np.r_[y[:, 0], y[:, 1]]})
    row = md.compare(df, n_resamples=B, seed=3).iloc[0]
    low, high, p = calibration._one("conversations", y, cluster, "default", B, seed=3)
    assert (row["ci_low"], row["ci_high"], row["p"]) == (pytest.approx(100 * low), pytest.approx(100 * high),
                                                          pytest.approx(p))
