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


#: The issue-20 cells where a valid method exists: the default must be calibrated there.
VALID_DESIGN_CELLS = [("dominant", 10), ("dominant", 30), ("missing-label", 10), ("canonical-ids", 10)]


@pytest.mark.slow
@pytest.mark.parametrize("kind, n_clusters", VALID_DESIGN_CELLS)
def test_default_is_calibrated_on_unequal_unlabelled_and_id_only_clusters(kind, n_clusters):
    """One conversation with half the questions (CR2 on Bell–McCaffrey df), one missing label given
    its own cluster, canonical ids without a cluster column: 2,000 data sets each (issue 20)."""
    coverage, size = calibration.calibrate(kind, n_clusters, n_sets=N_SETS, n_resamples=B,
                                           methods=("default",))["default"]
    print(f"\n{kind}, G = {n_clusters}: default coverage {coverage:.4f}, size {size:.4f} ({N_SETS} data sets, B = {B})")
    assert 0.935 <= coverage <= 0.965, f"{kind} G={n_clusters}: coverage {coverage:.4f}"
    assert size <= 0.065, f"{kind} G={n_clusters}: size {size:.4f}"


@pytest.mark.slow
def test_the_jackknife_on_g_minus_1_under_covers_one_dominant_cluster_and_iid_under_covers_canonical_ids():
    """Why the defaults changed: what 0.2.0 did on these data (1,000 data sets each)."""
    dominant = calibration.calibrate("dominant", 10, n_sets=1000, n_resamples=B, methods=("jackknife",))
    ids = calibration.calibrate("canonical-ids", 10, n_sets=1000, n_resamples=B, methods=("iid",))
    print(f"\njackknife t(9), one dominant cluster: {dominant['jackknife']}; iid on canonical ids: {ids['iid']}")
    assert dominant["jackknife"][0] < 0.93
    assert ids["iid"][0] < 0.85 and ids["iid"][1] > 0.12


@pytest.mark.slow
def test_skewed_cluster_effects_are_the_stated_limitation():
    """SPEC §4.1 states that no method is calibrated when the difference sits in a fifth of ten
    conversations: the default over-rejects (about 9%) and under-covers (about 91%), and it is still
    the best of the methods offered (2,000 data sets)."""
    res = calibration.calibrate("skewed", 10, n_sets=N_SETS, n_resamples=B, methods=("default", "percentile"))
    (coverage, size), (p_coverage, p_size) = res["default"], res["percentile"]
    print(f"\nskewed, G = 10: default coverage {coverage:.4f}, size {size:.4f}; percentile {p_coverage:.4f}, "
          f"{p_size:.4f}")
    assert size > 0.065 and coverage < 0.935          # the limitation the spec states holds
    assert coverage >= p_coverage and size <= p_size  # and the default is the best available


def test_md_compare_runs_exactly_the_calibrated_engine_calls():
    """The public path gives the numbers the calibration measures."""
    rng = np.random.default_rng(5)
    y, cluster = calibration.simulate_conversations(rng, 10, 0.02)
    ids = [f"q{i:04d}" for i in range(len(cluster))]
    df = pd.DataFrame({"system": ["mem"] * len(ids) + ["rag"] * len(ids), "query_id": ids * 2,
                       "cluster": np.tile(cluster, 2), "score": np.r_[y[:, 0], y[:, 1]]})
    row = md.compare(df, options=dict(n_resamples=B, seed=3)).iloc[0]
    low, high, p = calibration._one("conversations", y, cluster, "default", B, seed=3)
    assert (row["ci_low"], row["ci_high"], row["p"]) == (pytest.approx(100 * low), pytest.approx(100 * high),
                                                          pytest.approx(p))


def test_the_id_and_label_cells_analyse_the_clusters_md_prepare_finds():
    """The canonical-ids and missing-label cells use the partition md.prepare makes of the same data."""
    rng = np.random.default_rng(3)
    y, codes = calibration.simulate_design(rng, "canonical-ids", 10, 0.02)
    sizes = np.bincount(codes)
    ids = [f"locomo:{calibration.LOCOMO_CONVERSATIONS[g]}:{p:03d}" for g, n in enumerate(sizes) for p in range(n)]
    df = pd.DataFrame({"system": ["mem"] * len(ids) + ["rag"] * len(ids), "query_id": ids * 2,
                       "score": np.r_[y[:, 0], y[:, 1]], "category": "single-hop"})
    prep = md.prepare(df, scheme="locomo")
    assert prep.design == "cluster" and prep.resampling.unit_of.tolist() == codes.tolist()
    rng = np.random.default_rng(4)
    y, codes = calibration.simulate_design(rng, "missing-label", 10, 0.02)
    assert codes.max() + 1 == 11 and np.bincount(codes).min() == 1     # the unlabelled query alone
