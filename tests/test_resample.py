"""The resampling engine (memdiag.engine.resampling): designs, weights, intervals, determinism, fast path."""

from __future__ import annotations

import inspect
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scipy import stats

import memdiag as md
from memdiag.engine.designs import Design
from memdiag.engine.pairs import cell_codes, cell_counts
from memdiag.engine.resampling import (
    BootstrapResult,
    _block_rows,
    _jackknife_levels,
    _sign_test,
    bootstrap_sums,
    cell_replicates,
    omnibus_max_range,
    paired_binary_bootstrap,
    replicate_weights,
    unit_sums,
)

FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def diff_of_means(n: int):
    """Statistic: columns 1.. minus column 0, as means over n queries."""
    return lambda s: (s[:, 1:] - s[:, :1]) / n


def simulated_pair(n: int, seed: int, p_ref=0.6, p_sys=0.68, rho=0.4):
    """Two paired 0/1 systems with correlated outcomes (latent normal), known accuracies."""
    rng = np.random.default_rng(seed)
    z = rng.standard_normal(n)
    e = rng.standard_normal((n, 2))
    latent = np.sqrt(rho) * z[:, None] + np.sqrt(1 - rho) * e
    mu = stats.norm.ppf([p_ref, p_sys])
    y = (latent < mu).astype(float)
    return y[:, 0], y[:, 1]


# ---------------------------------------------------------------------------------- designs
def test_design_rejects_unknown_kind_and_missing_codes():
    with pytest.raises(ValueError, match="unknown kind"):
        Design("bootstrap")
    with pytest.raises(ValueError, match="needs cluster codes"):
        Design("cluster")
    with pytest.raises(ValueError, match="needs stratum codes"):
        Design("stratified")
    with pytest.raises(ValueError, match="needs stratum codes"):
        Design("stratified-cluster", cluster=[0, 1])


def test_design_rejects_a_cluster_spanning_two_strata():
    with pytest.raises(ValueError, match=r"cluster code 1 is in strata \[0, 1\]"):
        Design("stratified-cluster", cluster=[0, 0, 1, 1, 2], stratum=[0, 0, 0, 1, 1])
    # the same labels are fine for the plain cluster design
    assert Design("cluster", cluster=[0, 0, 1, 1, 2], stratum=[0, 0, 0, 1, 1]).n_units == 3


def test_design_rejects_missing_labels_non_integers_and_length_mismatch():
    with pytest.raises(ValueError, match="2 queries have no 'cluster'"):
        Design("cluster", cluster=[0, -1, 1, -1])
    with pytest.raises(ValueError, match="integers"):
        Design("stratified", stratum=[0.5, 1.0])
    with pytest.raises(ValueError, match="disagree"):
        Design("stratified-cluster", cluster=[0, 1, 2], stratum=[0, 0])
    with pytest.raises(ValueError, match="disagree"):
        Design("cluster", cluster=[0, 1, 2], n=4)


def test_iid_design_binds_n_from_the_data_and_checks_it():
    X = np.ones((5, 2))
    assert bootstrap_sums(X, Design("iid"), lambda s: s, n_resamples=10).design.n == 5
    with pytest.raises(ValueError, match="has 4 queries but the data has 5 rows"):
        bootstrap_sums(X, Design("iid", n=4), lambda s: s, n_resamples=10)
    with pytest.raises(ValueError, match="does not know N"):
        next(replicate_weights(Design("iid"), 10, seed=0))
    with pytest.raises(ValueError, match="needs cluster/stratum codes"):
        bootstrap_sums(X, "cluster", lambda s: s, n_resamples=10)


def test_design_from_panel_reads_cluster_and_stratum_codes():
    df = pd.DataFrame({
        "system": ["a"] * 5 + ["b"] * 5,
        "query_id": [f"q{i}" for i in range(5)] * 2,
        "score": [1, 0, 1, 1, 0, 1, 1, 0, 0, 1],
        "cluster": ["e1", "e1", "e2", "e3", "e3"] * 2,
        "stratum": ["s1", "s1", "s1", "s2", "s2"] * 2,
    })
    panel = md.align(df)
    d = Design.from_panel(panel, "stratified-cluster")
    assert d.n == 5 and d.n_units == 3 and d.n_strata == 2
    assert d.unit_of.tolist() == [0, 0, 1, 2, 2] and d.unit_stratum.tolist() == [0, 0, 1]
    assert Design.from_panel(panel, "iid").n == 5
    assert repr(d) == "Design(kind='stratified-cluster', n=5, units=3 clusters, strata=2)"


# ---------------------------------------------------------------------------------- weights
def test_iid_weights_are_multinomial_counts_over_queries():
    d = Design("iid", n=50)
    W = np.concatenate(list(replicate_weights(d, 4000, seed=3)))
    assert W.shape == (4000, 50) and W.dtype.kind == "i"
    assert np.all(W.sum(axis=1) == 50)
    # multinomial(50, 1/50): mean 1, variance 1 - 1/50 = 0.98 per query
    assert W.mean() == pytest.approx(1.0, abs=0.01)
    assert W.var() == pytest.approx(0.98, abs=0.03)


def test_stratified_weights_sum_to_each_stratum_size():
    # strata sizes n_0 = 2 (queries 0, 4), n_1 = 3 (queries 1, 2, 3): every replicate draws
    # exactly 2 queries from stratum 0 and 3 from stratum 1.
    d = Design("stratified", stratum=[7, 9, 9, 9, 7])
    W = np.concatenate(list(replicate_weights(d, 500, seed=1)))
    assert np.all(W[:, [0, 4]].sum(axis=1) == 2)
    assert np.all(W[:, [1, 2, 3]].sum(axis=1) == 3)
    assert W[:, [0, 4]].max() == 2 and W[:, [1, 2, 3]].max() == 3  # with replacement


def test_cluster_weights_keep_cluster_members_together():
    # X = identity: the replicate sums are then the implied per-query weights. Clusters
    # {0,1,2}, {3}, {4,5}: members of a cluster always carry the same weight, and the cluster
    # counts sum to G = 3 in every replicate.
    cluster = np.array([0, 0, 0, 1, 2, 2])
    res = bootstrap_sums(np.eye(6), Design("cluster", cluster=cluster), lambda s: s,
                         n_resamples=300, seed=2, return_distribution=True)
    w = res.distribution
    assert np.all(w[:, 0] == w[:, 1]) and np.all(w[:, 1] == w[:, 2]) and np.all(w[:, 4] == w[:, 5])
    assert np.all(w[:, 0] + w[:, 3] + w[:, 4] == 3)
    assert len(np.unique(w[:, 0])) > 1


def test_stratified_cluster_weights_draw_each_stratums_own_number_of_clusters():
    # stratum 0 holds clusters 10, 11, 12 (3 clusters); stratum 1 holds clusters 20, 21 (2)
    cluster = np.array([10, 10, 11, 12, 12, 20, 21, 21])
    stratum = np.array([0, 0, 0, 0, 0, 1, 1, 1])
    d = Design("stratified-cluster", cluster=cluster, stratum=stratum)
    W = np.concatenate(list(replicate_weights(d, 400, seed=5)))
    assert W.shape == (400, 5)
    assert np.all(W[:, :3].sum(axis=1) == 3) and np.all(W[:, 3:].sum(axis=1) == 2)


def test_unit_sums_add_queries_of_each_cluster():
    X = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
    d = Design("cluster", cluster=[2, 0, 2, 0])
    # cluster 0 = rows 1, 3 -> (10, 12); cluster 2 = rows 0, 2 -> (6, 8)
    np.testing.assert_array_equal(unit_sums(X, d), [[10.0, 12.0], [6.0, 8.0]])
    np.testing.assert_array_equal(unit_sums(X, Design("iid")), X)  # queries are their own units


@FAST
@given(st.integers(1, 700), st.integers(1, 3000), st.integers(0, 2**32))
def test_replicate_weights_do_not_depend_on_chunk_size(chunk, n_resamples, seed):
    d = Design("stratified", stratum=np.arange(40) % 3)
    whole = np.concatenate(list(replicate_weights(d, n_resamples, seed)))
    chunked = list(replicate_weights(d, n_resamples, seed, chunk_size=chunk))
    assert all(len(c) == chunk for c in chunked[:-1])
    assert np.concatenate(chunked).tobytes() == whole.tobytes()


def test_rng_blocks_stay_small_enough_for_bounded_memory():
    for units in (1, 10, 100, 5_000, 10**6):
        rows = _block_rows(units)
        assert 1 <= rows <= 1024 and rows * units <= max(2**20, units)


# ---------------------------------------------------------------------------------- statistics
def test_sign_test_p_value_from_a_tiny_replicate_set():
    # B = 4 replicates (-0.1, 0, 0.2, 0.3), null 0: #{<= 0} = 2, #{>= 0} = 3
    # p- = (1 + 2) / 5 = 0.6, p+ = (1 + 3) / 5 = 0.8, p = min(1, 2 * 0.6) = 1
    dist = np.array([[-0.1], [0.0], [0.2], [0.3]])
    assert _sign_test(dist, np.array([0.0]), np.array([4]))[0] == 1.0
    # all four above 0: p- = 1/5, p = 2/5
    assert _sign_test(dist + 0.5, np.array([0.0]), np.array([4]))[0] == pytest.approx(0.4)
    # against null = 0.25: #{<= .25} = 3, #{>= .25} = 1 -> p = 2 * 2/5 = 0.8
    assert _sign_test(dist, np.array([0.25]), np.array([4]))[0] == pytest.approx(0.8)


def test_sign_test_with_a_single_query_has_p_two_over_b_plus_one():
    # N = 1: every replicate redraws the one query, so Δ* = Δ̂ = 1 > 0 in all B = 9 replicates:
    # p- = (1 + 0)/10, p = 2/10
    res = bootstrap_sums(np.array([[0.0, 1.0]]), "iid", diff_of_means(1), n_resamples=9)
    assert res.p_value[0] == pytest.approx(0.2)
    assert res.ci_low[0] == res.ci_high[0] == 1.0 and res.standard_error[0] == 0.0


def test_sign_test_counts_float_noise_at_the_null_as_a_tie():
    # a macro-average of three equal tasks: mathematically 0 in every replicate, float noise aside
    X = np.array([[0.1, 0.1, 0.7, 0.7, 0.2, 0.2]] * 3)
    stat = lambda s: ((s[:, 1] / 3 + s[:, 3] / 3 + s[:, 5] / 3)
                      - (s[:, 0] / 3 + s[:, 2] / 3 + s[:, 4] / 3))[:, None]
    res = bootstrap_sums(X, "iid", stat, n_resamples=99)
    assert res.p_value[0] == 1.0


def test_max_range_statistic_by_hand_and_p_against_an_explicit_resampling_loop():
    # θ̂ = (3/6, 4/6, 5/6): T = 5/6 - 3/6 = 1/3
    X = np.array([[1, 1, 1], [1, 1, 1], [1, 1, 1], [0, 1, 1], [0, 0, 1], [0, 0, 0]], dtype=float)
    B = 4000
    res = omnibus_max_range(X, "iid", lambda s: s / 6, n_resamples=B, seed=4)
    assert res.statistic == pytest.approx(1 / 3)
    np.testing.assert_allclose(res.estimate, [0.5, 2 / 3, 5 / 6])
    # the oracle: resample the six rows with an independent generator, one replicate at a time
    rng = np.random.default_rng(2024)
    hits = 0
    for _ in range(B):
        theta = X[rng.integers(0, 6, 6)].mean(axis=0) - res.estimate
        hits += theta.max() - theta.min() >= res.statistic - 1e-12
    loop_p = (1 + hits) / (1 + B)
    assert res.p_value == pytest.approx(loop_p, abs=5 * np.sqrt(2 * loop_p * (1 - loop_p) / B))
    # identical systems: T = 0 and every centered range T* >= 0, so p = 1
    same = omnibus_max_range(np.repeat(X[:, :1], 3, axis=1), "iid", lambda s: s / 6, n_resamples=50)
    assert same.statistic == 0.0 and same.p_value == 1.0


def test_omnibus_centers_the_same_replicates_bootstrap_sums_draws():
    cluster = np.repeat(np.arange(30), 4)
    rng = np.random.default_rng(0)
    X = rng.random((120, 3))
    d = Design("cluster", cluster=cluster)
    stat = lambda s: s / 120
    boot = bootstrap_sums(X, d, stat, n_resamples=500, seed=9, return_distribution=True)
    omni = omnibus_max_range(X, d, stat, n_resamples=500, seed=9, return_distribution=True)
    centred = boot.distribution - boot.estimate
    np.testing.assert_allclose(omni.distribution, centred.max(axis=1) - centred.min(axis=1), atol=1e-15)


def test_undefined_replicates_are_counted_and_excluded():
    # utilization-like ratio Σ C·Y / Σ C where only query 0 is sufficient (C = 1): a replicate
    # that does not draw query 0 has 0/0. P(miss) = (4/5)^5 = 0.328.
    C = np.array([1.0, 0, 0, 0, 0])
    Y = np.array([1.0, 1, 0, 1, 0])
    X = np.column_stack([C * Y, C])
    with np.errstate(invalid="ignore", divide="ignore"):
        res = bootstrap_sums(X, "iid", lambda s: s[:, 0] / s[:, 1], n_resamples=4000, seed=1,
                             return_distribution=True)
    W = np.concatenate(list(replicate_weights(Design("iid", n=5), 4000, seed=1)))
    assert res.n_undefined[0] == np.sum(W[:, 0] == 0)
    assert res.n_undefined[0] / 4000 == pytest.approx(0.328, abs=0.03)
    assert res.estimate[0] == 1.0 and res.ci_low[0] == res.ci_high[0] == 1.0
    defined = 4000 - res.n_undefined[0]
    assert res.p_value[0] == pytest.approx(min(1.0, 2 * 1 / (1 + defined)))


def test_point_estimate_is_the_statistic_of_the_totals():
    X = np.random.default_rng(1).random((40, 4))
    res = bootstrap_sums(X, "iid", lambda s: s[:, :2] / s[:, 2:], n_resamples=20)
    np.testing.assert_allclose(res.estimate, X[:, :2].sum(0) / X[:, 2:].sum(0))
    assert isinstance(res, BootstrapResult) and res.confidence_interval.low.shape == (2,)


def test_statistic_must_be_vectorised_and_inputs_finite():
    X = np.ones((10, 2))
    with pytest.raises(ValueError, match="vectorised"):
        bootstrap_sums(X, "iid", lambda s: s.sum(), n_resamples=10)
    with pytest.raises(ValueError, match="non-finite"):
        bootstrap_sums(np.array([[1.0], [np.nan]]), "iid", lambda s: s, n_resamples=10)
    with pytest.raises(ValueError, match="method"):
        bootstrap_sums(X, "iid", lambda s: s, method="basic")
    with pytest.raises(ValueError, match="ci"):
        bootstrap_sums(X, "iid", lambda s: s, ci=95)


def test_bca_is_refused_outside_the_iid_design():
    d = Design("cluster", cluster=np.arange(10) // 2)
    with pytest.raises(ValueError, match="BCa"):
        bootstrap_sums(np.ones((10, 1)), d, lambda s: s, method="bca")


def test_bca_levels_follow_efron_for_the_mean():
    # for the mean, θ_(i) = (n x̄ - x_i)/(n - 1), so a = Σ (x_i - x̄)^3 / (6 (Σ (x_i - x̄)^2)^1.5)
    x = np.random.default_rng(2).exponential(size=60)
    X = x[:, None]
    res = bootstrap_sums(X, "iid", lambda s: s / 60, n_resamples=3000, seed=0, return_distribution=True)
    lo, hi = _jackknife_levels(X, lambda s: s / 60, res.estimate, res.distribution, 0.95, None)
    dev = x - x.mean()
    a = np.sum(dev**3) / (6 * np.sum(dev**2) ** 1.5)
    dist = res.distribution[:, 0]
    z0 = stats.norm.ppf((np.sum(dist < x.mean()) + np.sum(dist <= x.mean())) / (2 * 3000))
    z = stats.norm.ppf([0.025, 0.975])
    expected = stats.norm.cdf(z0 + (z0 + z) / (1 - a * (z0 + z)))
    np.testing.assert_allclose([lo[0], hi[0]], expected, rtol=1e-10)


# ---------------------------------------------------------------------------------- determinism
def test_seed_must_be_an_int_or_a_generator():
    X = np.ones((5, 1))
    with pytest.raises(TypeError, match="seed"):
        bootstrap_sums(X, "iid", lambda s: s, n_resamples=10, seed=None)
    with pytest.raises(TypeError, match="seed"):
        bootstrap_sums(X, "iid", lambda s: s, n_resamples=10, seed=1.5)
    with pytest.raises(ValueError, match="non-negative"):
        bootstrap_sums(X, "iid", lambda s: s, n_resamples=10, seed=-1)


def test_generator_seed_is_recorded_so_the_run_can_be_repeated():
    ref, sysm = simulated_pair(200, seed=0)
    X = np.column_stack([ref, sysm])
    first = bootstrap_sums(X, "iid", diff_of_means(200), n_resamples=500,
                           seed=np.random.default_rng(42), return_distribution=True)
    again = bootstrap_sums(X, "iid", diff_of_means(200), n_resamples=500, seed=first.seed,
                           return_distribution=True)
    assert again.distribution.tobytes() == first.distribution.tobytes()
    # the global RNG is never touched
    state = np.random.get_state()[1].copy()
    bootstrap_sums(X, "iid", diff_of_means(200), n_resamples=100, seed=3)
    paired_binary_bootstrap(ref, sysm, n_resamples=100, seed=3)
    assert np.array_equal(np.random.get_state()[1], state)


@pytest.mark.parametrize("path", ["general", "fast"])
def test_same_seed_gives_identical_results_and_different_seeds_differ(path):
    ref, sysm = simulated_pair(300, seed=1)

    def run(seed):
        if path == "fast":
            return paired_binary_bootstrap(ref, sysm, n_resamples=2000, seed=seed, return_distribution=True)
        return bootstrap_sums(np.column_stack([ref, sysm]), "iid", diff_of_means(300),
                              n_resamples=2000, seed=seed, return_distribution=True)

    a, b, c = run(11), run(11), run(12)
    assert a.distribution.tobytes() == b.distribution.tobytes()
    assert (a.ci_low, a.ci_high, a.p_value) == (b.ci_low, b.ci_high, b.p_value)
    assert a.distribution.tobytes() != c.distribution.tobytes()


@FAST
@given(kind=st.sampled_from(["iid", "stratified", "cluster", "stratified-cluster"]),
       chunk=st.integers(1, 5000), n_resamples=st.integers(1, 2500), seed=st.integers(0, 2**40),
       method=st.sampled_from(["percentile", "bca"]))
def test_bootstrap_sums_is_byte_identical_whatever_the_chunk_size(kind, chunk, n_resamples, seed, method):
    assume(kind == "iid" or method == "percentile")
    rng = np.random.default_rng(seed % 1000)
    n = 90
    X = rng.random((n, 3)) * np.array([1.0, 1 / 3, 7.1])  # non-dyadic floats: summation order shows
    cluster = np.arange(n) // 3
    d = Design(kind, cluster=cluster, stratum=cluster % 4)
    stat = lambda s: np.column_stack([s[:, 1] / s[:, 0], s[:, 2] - s[:, 0]])
    whole = bootstrap_sums(X, d, stat, n_resamples=n_resamples, seed=seed, method=method,
                           return_distribution=True)
    chunked = bootstrap_sums(X, d, stat, n_resamples=n_resamples, seed=seed, method=method,
                             chunk_size=chunk, return_distribution=True)
    assert chunked.distribution.tobytes() == whole.distribution.tobytes()
    for name in ("ci_low", "ci_high", "p_value", "standard_error"):
        assert getattr(chunked, name).tobytes() == getattr(whole, name).tobytes()


# ---------------------------------------------------------------------------------- vs scipy
def _read_locomo_pair(real_data):
    base = real_data / "trpc-group__trpc-agent-go" / "data_nohistory_gpt4omini"
    runs = []
    for name in ("auto_pgvector", "rag_observation_pgvector"):
        doc = json.loads((base / name / "results.json").read_text())
        ids, correct = [], []
        for sample in doc["sample_results"]:
            for qa in sample["qa_results"]:
                score = (qa.get("metrics") or {}).get("llm_score")
                ids.append(qa["question_id"])
                correct.append(1.0 if score is not None and score > 0 else 0.0)
        runs.append((ids, np.array(correct)))
    assert runs[0][0] == runs[1][0], "question_id sequences must be identical across the two files"
    return runs[0][1], runs[1][1]


def _endpoint_tolerance(se: float, n_resamples: int, n: int) -> float:
    """5 Monte-Carlo SDs of the difference of two independent 2.5% quantile estimates, plus
    one grid step 1/N of the discrete statistic. SD(q̂_α) ≈ sqrt(α(1-α)/B) / φ(z_α) · se."""
    mc_sd = np.sqrt(0.025 * 0.975 / n_resamples) / stats.norm.pdf(1.96) * se
    return 5 * np.sqrt(2) * mc_sd + 1.0 / n


def _scipy_generator(seed: int) -> dict:
    """scipy.stats.bootstrap's keyword for a seeded Generator: ``rng`` from scipy 1.15 on,
    ``random_state`` before (the floor, scipy 1.11, has only that)."""
    keyword = "rng" if "rng" in inspect.signature(stats.bootstrap).parameters else "random_state"
    return {keyword: np.random.default_rng(seed)}


@pytest.mark.parametrize("method", ["percentile", "BCa"])
def test_iid_intervals_agree_with_scipy_bootstrap_on_trpc_locomo(real_data, method):
    auto, rag = _read_locomo_pair(real_data)
    n, B = len(auto), 20_000
    assert n == 1986
    ours = bootstrap_sums(np.column_stack([rag, auto]), "iid", diff_of_means(n), n_resamples=B,
                          seed=0, method=method.lower())
    theirs = stats.bootstrap((rag, auto), lambda x, y, axis=-1: y.mean(axis) - x.mean(axis),
                             paired=True, vectorized=True, n_resamples=B, batch=2000,
                             method=method, **_scipy_generator(1))
    tol = _endpoint_tolerance(theirs.standard_error, B, n)
    assert ours.estimate[0] == pytest.approx(auto.mean() - rag.mean(), abs=1e-15)
    assert ours.ci_low[0] == pytest.approx(theirs.confidence_interval.low, abs=tol)
    assert ours.ci_high[0] == pytest.approx(theirs.confidence_interval.high, abs=tol)
    assert ours.standard_error[0] == pytest.approx(theirs.standard_error, rel=0.05)


@pytest.mark.parametrize("method", ["percentile", "BCa"])
def test_iid_intervals_agree_with_scipy_bootstrap_on_a_simulated_ratio(method):
    # utilization Σ C·Y / Σ C of skewed F1-like scores: a non-linear statistic where BCa matters
    rng = np.random.default_rng(5)
    n, B = 150, 20_000
    C = (rng.random(n) < 0.4).astype(float)
    Y = rng.beta(0.6, 2.0, size=n)
    ours = bootstrap_sums(np.column_stack([C * Y, C]), "iid", lambda s: s[:, 0] / s[:, 1],
                          n_resamples=B, seed=0, method=method.lower())
    theirs = stats.bootstrap((C, Y), lambda c, y, axis=-1: (c * y).sum(axis) / c.sum(axis),
                             paired=True, vectorized=True, n_resamples=B, batch=5000,
                             method=method, **_scipy_generator(2))
    tol = _endpoint_tolerance(theirs.standard_error, B, 10**6)
    assert ours.n_undefined[0] == 0
    assert ours.ci_low[0] == pytest.approx(theirs.confidence_interval.low, abs=tol)
    assert ours.ci_high[0] == pytest.approx(theirs.confidence_interval.high, abs=tol)


# ---------------------------------------------------------------------------------- fast path
def test_paired_cells_by_hand():
    # ref 1 1 0 0 1 / sys 1 0 1 0 1 -> both: q1, q5 (2); benefit: q3 (1); tax: q2 (1); neither: q4 (1)
    assert cell_counts(cell_codes(np.array([1, 1, 0, 0, 1]), np.array([1, 0, 1, 0, 1]))).tolist() \
        == [[[2, 1, 1, 1]]]
    codes = cell_codes(np.array([1, 0, 1, 0]), np.array([[1, 1], [1, 0], [0, 1], [0, 0]]))
    cells = cell_counts(codes, np.array([0, 0, 1, 1]))
    # group 0: q1 (1,1) q2 (0,1)|(0,0); group 1: q3 (1,0)|(1,1), q4 (0,0)
    assert cells.tolist() == [[[1, 1, 0, 0], [1, 0, 0, 1]], [[0, 0, 1, 1], [1, 0, 0, 1]]]


def test_fast_path_rejects_bad_input():
    with pytest.raises(ValueError, match="0/1"):
        paired_binary_bootstrap([1, 0, 2], [1, 0, 1])
    with pytest.raises(ValueError, match="system must be"):
        paired_binary_bootstrap([1, 0, 1], [1, 0])
    with pytest.raises(ValueError, match="cell codes"):
        cell_replicates(np.array([0, 1, 4]), "iid", 10)
    with pytest.raises(ValueError, match="keys"):
        cell_replicates(np.array([[0, 1], [2, 3]]), "iid", 10, keys=[1])


def _moments_agree(a: np.ndarray, b: np.ndarray) -> None:
    """Mean within 5 MC SDs; variance ratio within 5 MC SDs of log-variance (≈ sqrt(2/B))."""
    B = len(a)
    se = np.sqrt(a.var() / B + b.var() / B)
    assert abs(a.mean() - b.mean()) <= 5 * se + 1e-12
    if a.var() > 0:
        assert abs(np.log(a.var() / b.var())) <= 5 * np.sqrt(2 / B + 2 / B)
    else:
        assert b.var() == 0


@pytest.mark.parametrize("kind", ["iid", "stratified"])
def test_fast_path_and_general_path_give_the_same_distribution(kind):
    ref, sysm = simulated_pair(400, seed=3)
    stratum = (np.arange(400) * 7) % 5
    d = Design("stratified", stratum=stratum) if kind == "stratified" else "iid"
    B = 20_000
    fast = paired_binary_bootstrap(ref, sysm, d, n_resamples=B, seed=1, return_distribution=True)
    general = bootstrap_sums(np.column_stack([ref, sysm]), d, diff_of_means(400), n_resamples=B,
                             seed=2, return_distribution=True)
    assert fast.estimate[0] == pytest.approx(general.estimate[0], abs=1e-15)
    a, b = fast.distribution[:, 0], general.distribution[:, 0]
    _moments_agree(a, b)
    assert stats.ks_2samp(a, b).pvalue > 1e-3
    tol = _endpoint_tolerance(general.standard_error[0], B, 400)
    np.testing.assert_allclose([fast.ci_low[0], fast.ci_high[0]], [general.ci_low[0], general.ci_high[0]],
                               atol=tol)


@FAST
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1), st.integers(0, 2)), min_size=2,
                max_size=120), st.integers(0, 10**6))
def test_fast_and_general_paths_agree_in_distribution_on_any_data(rows, seed):
    ref, sysm, stratum = (np.array(v) for v in zip(*rows))
    d = Design("stratified", stratum=stratum)
    n, B = len(ref), 4000
    fast = paired_binary_bootstrap(ref, sysm, d, n_resamples=B, seed=seed, return_distribution=True)
    general = bootstrap_sums(np.column_stack([ref, sysm]).astype(float), d, diff_of_means(n),
                             n_resamples=B, seed=seed + 1, return_distribution=True)
    _moments_agree(fast.distribution[:, 0], general.distribution[:, 0])


@FAST
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1), st.integers(0, 1), st.integers(0, 3)),
                min_size=1, max_size=300), st.randoms(use_true_random=False), st.integers(0, 2**31))
def test_permuting_query_order_leaves_fast_path_results_unchanged(rows, shuffler, seed):
    data = np.array(rows)
    perm = list(range(len(data)))
    shuffler.shuffle(perm)
    results = []
    for arr in (data, data[perm]):
        d = Design("stratified", stratum=arr[:, 3])
        results.append(paired_binary_bootstrap(arr[:, 0], arr[:, 1:3], d, n_resamples=500, seed=seed))
    a, b = results
    for name in ("estimate", "ci_low", "ci_high", "p_value", "standard_error"):
        assert getattr(a, name).tobytes() == getattr(b, name).tobytes()


def test_fast_path_contrasts_do_not_depend_on_the_other_contrasts():
    rng = np.random.default_rng(0)
    ref = (rng.random(500) < 0.6).astype(int)
    S = (rng.random((500, 3)) < 0.65).astype(int)
    together = paired_binary_bootstrap(ref, S, n_resamples=1000, seed=4)
    alone = paired_binary_bootstrap(ref, S[:, 0], n_resamples=1000, seed=4)
    assert together.ci_low[0] == alone.ci_low[0] and together.p_value[0] == alone.p_value[0]


def test_fast_path_under_a_cluster_design_is_the_general_path():
    ref, sysm = simulated_pair(200, seed=6)
    d = Design("cluster", cluster=np.arange(200) // 5)
    fast = paired_binary_bootstrap(ref, sysm, d, n_resamples=800, seed=3, return_distribution=True)
    general = bootstrap_sums(np.column_stack([ref, sysm]), d, diff_of_means(200), n_resamples=800,
                             seed=3, return_distribution=True)
    assert fast.distribution.tobytes() == general.distribution.tobytes()


def test_fast_path_p_value_and_interval_match_an_explicit_resampling_loop():
    # the oracle: SPEC §4 applied to a plain loop that resamples query indices with an independent
    # generator; p-values and interval ends agree within Monte-Carlo error
    ref, sysm = simulated_pair(250, seed=8, p_sys=0.6)
    B = 4000
    res = paired_binary_bootstrap(ref, sysm, n_resamples=B, seed=0)
    rng = np.random.default_rng(77)
    loop = np.empty(B)
    for b in range(B):
        rows = rng.integers(0, 250, 250)
        loop[b] = sysm[rows].mean() - ref[rows].mean()
    p_loop = min(1.0, 2 * min(1 + np.sum(loop <= 0), 1 + np.sum(loop >= 0)) / (1 + B))
    assert res.p_value[0] == pytest.approx(p_loop, abs=5 * np.sqrt(2 * p_loop * (1 - p_loop) / B) + 2 / B)
    tol = _endpoint_tolerance(loop.std(ddof=1), B, 250)
    np.testing.assert_allclose([res.ci_low[0], res.ci_high[0]], np.quantile(loop, [0.025, 0.975]), atol=tol)
    assert res.estimate[0] == pytest.approx(sysm.mean() - ref.mean())


def test_replicate_sums_are_exact_for_whole_number_contributions():
    # binary/count X takes the single-precision product (exact below 2**24): it must equal the
    # float64 product of the same weights bit for bit
    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, size=(300, 5)).astype(float)
    d = Design("cluster", cluster=np.arange(300) // 3)
    res = bootstrap_sums(X, d, lambda s: s, n_resamples=700, seed=8, return_distribution=True)
    W = np.concatenate(list(replicate_weights(d, 700, seed=8))).astype(np.float64)
    assert res.distribution.tobytes() == (W @ unit_sums(X, d)).tobytes()
