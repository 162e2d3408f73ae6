"""Calibration by simulation: interval coverage per design and the size of exact McNemar.

Slow (``pytest -m slow``; about a minute on 2 cores). Every data set is simulated FROM the
design under test with a known true accuracy difference, by the small generator below:

    latent z_is = √ρc·c_g + √ρs·d_gs + √ρq·v_i + √(1 − ρc − ρs − ρq)·e_is   (all N(0, 1))
    y_is = 1{z_is < μ_hs}           so  P(y_is = 1) = Φ(μ_hs) exactly,

for query i in cluster g of stratum h and system s ∈ {reference, system}: c_g is a cluster
effect shared by both systems, d_gs a system-specific cluster effect (it makes the *difference*
clustered), v_i a query difficulty shared by the two systems (pairing), e_is noise. The true
difference, conditional on the design (cluster sizes and strata), is the mean over queries of
Φ(μ_h,system) − Φ(μ_h,reference): the estimator (question-weighted accuracy difference) is
unbiased for it.

Acceptance band: with R data sets and hit count h, the coverage passes when the exact two-sided
binomial test of h against the nominal 0.95 has p ≥ 0.001. For R = 2,000 that band is
[0.934, 0.965]; each test prints its band. Sizes are chosen so the nominal design is fair
(n_h ≥ 60 per stratum, ≥ 150 clusters): the percentile bootstrap with few clusters under-covers.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import memdiag as md
from memdiag.engine.designs import Design
from memdiag.engine.resampling import bootstrap_sums, paired_binary_bootstrap

pytestmark = pytest.mark.slow

NOMINAL = 0.95
LEVEL = 0.001      # the binomial test level that defines the acceptance band
B = 1_000          # replicates inside each simulated data set
R = 2_000          # simulated data sets per design


def acceptance_band(n_sets: int, nominal: float = NOMINAL, level: float = LEVEL) -> tuple[float, float]:
    """Coverages h/R that the two-sided exact binomial test against ``nominal`` does not reject."""
    ok = [h for h in range(n_sets + 1) if stats.binomtest(h, n_sets, nominal).pvalue >= level]
    return ok[0] / n_sets, ok[-1] / n_sets


def simulate(rng: np.random.Generator, *, clusters_per_stratum, sizes, accuracy, rho_common=0.0,
             rho_system=0.0, rho_query=0.3):
    """One data set: (y (N, 2) 0/1, cluster (N,), stratum (N,), true difference).

    ``accuracy`` is (H, 2): true accuracies of (reference, system) per stratum; ``sizes`` a
    (low, high) range of cluster sizes (inclusive), (1, 1) for unclustered queries.
    """
    H = len(clusters_per_stratum)
    cluster_stratum = np.repeat(np.arange(H), clusters_per_stratum)
    G = len(cluster_stratum)
    size = rng.integers(sizes[0], sizes[1] + 1, size=G)
    cluster = np.repeat(np.arange(G), size)
    stratum = cluster_stratum[cluster]
    n = len(cluster)
    rest = 1.0 - rho_common - rho_system - rho_query
    latent = (np.sqrt(rho_common) * rng.standard_normal(G)[cluster, None]
              + np.sqrt(rho_system) * rng.standard_normal((G, 2))[cluster]
              + np.sqrt(rho_query) * rng.standard_normal(n)[:, None]
              + np.sqrt(rest) * rng.standard_normal((n, 2)))
    acc = np.asarray(accuracy, dtype=float)
    y = (latent < stats.norm.ppf(acc)[stratum]).astype(float)
    truth = float(np.mean(acc[stratum, 1] - acc[stratum, 0]))
    return y, cluster, stratum, truth


def covers(res, truth: float) -> bool:
    return bool(res.ci_low[0] <= truth <= res.ci_high[0])


def with_count(y: np.ndarray) -> np.ndarray:
    """Columns [reference, system, 1]: the replicate's own query count is the denominator."""
    return np.column_stack([y, np.ones(len(y))])


def diff(s: np.ndarray) -> np.ndarray:
    """Accuracy difference system − reference as a ratio of replicate sums (as md.compare does)."""
    return (s[:, 1:2] - s[:, :1]) / s[:, 2:]


SETTINGS = {
    "iid": dict(clusters_per_stratum=[400], sizes=(1, 1), accuracy=[[0.62, 0.68]]),
    "stratified": dict(clusters_per_stratum=[60, 100, 140, 100], sizes=(1, 1),
                       accuracy=[[0.3, 0.36], [0.5, 0.62], [0.7, 0.7], [0.9, 0.85]]),
    "cluster": dict(clusters_per_stratum=[150], sizes=(3, 12), accuracy=[[0.6, 0.66]],
                    rho_common=0.2, rho_system=0.15),
    "stratified-cluster": dict(clusters_per_stratum=[40, 40, 40, 40], sizes=(3, 12),
                               accuracy=[[0.3, 0.36], [0.5, 0.62], [0.7, 0.7], [0.9, 0.85]],
                               rho_common=0.2, rho_system=0.15),
}


@pytest.mark.parametrize("kind", list(SETTINGS))
def test_95_percent_intervals_cover_the_true_difference_at_the_nominal_rate(kind):
    rng = np.random.default_rng(2024)
    hits_general = hits_fast = 0
    for r in range(R):
        y, cluster, stratum, truth = simulate(rng, **SETTINGS[kind])
        design = Design(kind, cluster=cluster, stratum=stratum, n=len(y))
        res = bootstrap_sums(with_count(y), design, diff, n_resamples=B, seed=r)
        hits_general += covers(res, truth)
        if not design.clustered:
            fast = paired_binary_bootstrap(y[:, 0], y[:, 1], design, n_resamples=B, seed=r)
            hits_fast += covers(fast, truth)
    low, high = acceptance_band(R)
    coverage = hits_general / R
    print(f"\n{kind}: general-path coverage {coverage:.4f}" + (
        f", fast-path coverage {hits_fast / R:.4f}" if kind in ("iid", "stratified") else "")
        + f" (R = {R}, B = {B}); acceptance band [{low:.4f}, {high:.4f}]")
    assert low <= coverage <= high, f"{kind}: coverage {coverage:.4f} outside [{low:.4f}, {high:.4f}]"
    if kind in ("iid", "stratified"):
        assert low <= hits_fast / R <= high, f"{kind} fast path: coverage {hits_fast / R:.4f}"


def test_iid_intervals_under_cover_on_strongly_clustered_data_and_cluster_intervals_do_not():
    rng = np.random.default_rng(7)
    n_sets = 1_000
    setting = dict(clusters_per_stratum=[150], sizes=(20, 20), accuracy=[[0.6, 0.66]],
                   rho_common=0.2, rho_system=0.35, rho_query=0.2)
    hits = {"iid": 0, "cluster": 0}
    for r in range(n_sets):
        y, cluster, _, truth = simulate(rng, **setting)
        for kind in hits:
            design = Design(kind, cluster=cluster, n=len(y))
            hits[kind] += covers(bootstrap_sums(with_count(y), design, diff, n_resamples=B, seed=r), truth)
    low, high = acceptance_band(n_sets)
    iid, clustered = hits["iid"] / n_sets, hits["cluster"] / n_sets
    print(f"\nstrongly clustered (150 clusters x 20): iid coverage {iid:.4f}, cluster coverage "
          f"{clustered:.4f} (R = {n_sets}); acceptance band [{low:.4f}, {high:.4f}]")
    assert low <= clustered <= high
    assert iid < 0.90
    assert stats.binomtest(hits["iid"], n_sets, NOMINAL, alternative="less").pvalue < 1e-6


def exact_mcnemar_size(n: int, q: float, alpha: float = 0.05) -> float:
    """Exact size of the exact McNemar test for n pairs when P(benefit) = P(tax) = q.

    size = Σ_m P(M = m) Σ_b 1{p(b, m − b) ≤ α} C(m, b) / 2^m, with M ~ Binomial(n, 2q) the
    number of discordant pairs and b | M = m ~ Binomial(m, ½) under H0.
    """
    size = 0.0
    for m in range(n + 1):
        b = np.arange(m + 1)
        reject = np.array([md.mcnemar(benefit=int(k), tax=int(m - k)).p_value <= alpha for k in b])
        size += stats.binom.pmf(m, n, 2 * q) * stats.binom.pmf(b[reject], m, 0.5).sum()
    return float(size)


def test_exact_mcnemar_size_is_at_most_alpha_under_the_null():
    sizes = {(n, q): exact_mcnemar_size(n, q) for n in (20, 50, 100, 300) for q in (0.02, 0.1, 0.3)}
    print("\nexact McNemar size at alpha = 0.05: " + ", ".join(
        f"n={n} q={q}: {s:.4f}" for (n, q), s in sizes.items()))
    assert all(s <= 0.05 + 1e-12 for s in sizes.values())

    # and by simulation: 20,000 data sets of 100 pairs with P(benefit) = P(tax) = 0.1
    rng = np.random.default_rng(11)
    cells = rng.multinomial(100, [0.45, 0.1, 0.1, 0.35], size=20_000)
    rejections = sum(md.mcnemar(benefit=int(b), tax=int(c)).p_value <= 0.05 for b, c in cells[:, 1:3])
    print(f"simulated size (n = 100, q = 0.1, 20,000 sets): {rejections / 20_000:.4f}")
    assert stats.binomtest(rejections, 20_000, 0.05, alternative="greater").pvalue >= LEVEL


def test_compare_cluster_intervals_cover_the_true_difference_on_simulated_conversations():
    """The public path end to end: md.simulate (conversation effects, judge repetitions) ->
    md.compare(design="cluster"). The truth is the generating accuracy difference."""
    n_sets = 600
    hits = 0
    for r in range(n_sets):
        df = md.simulate(n_queries=600, systems=("raw-rag", "mem0"), reference="raw-rag",
                         accuracy={"raw-rag": 0.62, "mem0": 0.58}, n_clusters=120, icc=0.1,
                         missing_rate=0.0, sufficiency=False, costs=False, seed=10_000 + r)
        truth = 100 * (df.attrs["truth"]["accuracy"]["mem0"] - df.attrs["truth"]["accuracy"]["raw-rag"])
        out = md.compare(md.prepare(df, threshold=0.5), reference="raw-rag",
                         options=dict(design="cluster", n_resamples=B, seed=r)).iloc[0]
        hits += out["ci_low"] <= truth <= out["ci_high"]
    low, high = acceptance_band(n_sets)
    print(f"\nmd.compare cluster design on md.simulate data: coverage {hits / n_sets:.4f} "
          f"(R = {n_sets}); acceptance band [{low:.4f}, {high:.4f}]")
    assert low <= hits / n_sets <= high
