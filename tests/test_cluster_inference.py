"""Small-cluster inference (SPEC §4.1) against independent oracles: statsmodels' cluster-robust
OLS, brute-force CR2 matrices, leave-one-cluster-out recomputation with pandas, every sign pattern
written out with itertools, scipy's binomial test, and simulation."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy import stats
from scipy.linalg import sqrtm
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

import memdiag as md
from memdiag.analyses.flows import RATES
from memdiag.engine.designs import Design, resolve_design
from memdiag.engine.inference.cluster import (
    bell_mccaffrey_df,
    cr1_variance,
    cr2_variance,
    jackknife_variance,
)
from memdiag.engine.inference.intervals import infer, jackknife, linearize
from memdiag.engine.inference.power import design_detectable_effect, design_power
from memdiag.engine.inference.wild import (
    _WEBB,
    weights_for,
    wild_max_range,
    wild_test,
    wild_weights,
)

LOCOMO_SIZES = [152, 81, 152, 199, 178, 123, 150, 191, 156, 158]


def _clustered_pair(seed: int, sizes=LOCOMO_SIZES):
    """Binary outcomes of two systems on clusters of the given sizes, with a cluster-level effect."""
    rng = np.random.default_rng(seed)
    cluster = np.repeat(np.arange(len(sizes)), sizes)
    p = np.clip(0.6 + 0.08 * rng.standard_normal(len(sizes)), 0.1, 0.9)
    q = np.clip(p + 0.02 + 0.05 * rng.standard_normal(len(sizes)), 0.05, 0.95)
    y = np.column_stack([rng.random(len(cluster)) < q[cluster], rng.random(len(cluster)) < p[cluster]]).astype(float)
    return y, cluster


def _difference(sums: np.ndarray) -> np.ndarray:
    """System 0 − system 1 as a ratio of replicate sums [y0, y1, 1]."""
    return (sums[:, :1] - sums[:, 1:2]) / sums[:, 2:]


# --------------------------------------------------------------------------------------------
# variance formulas
# --------------------------------------------------------------------------------------------
def test_cr1_of_the_linearised_difference_is_statsmodels_cluster_robust_ols():
    for seed in range(5):
        y, cluster = _clustered_pair(seed)
        d = y[:, 0] - y[:, 1]
        fit = sm.OLS(d, np.ones((len(d), 1))).fit(cov_type="cluster", cov_kwds={"groups": cluster})
        X = np.column_stack([y, np.ones(len(d))])
        units = pd.DataFrame(X).groupby(cluster).sum().to_numpy()
        psi = linearize(_difference, units.sum(axis=0), units)
        assert cr1_variance(psi)[0] == pytest.approx(fit.cov_params()[0, 0], rel=1e-9)
        # the contributions are (D_g − Δ̂ n_g)/N
        D = np.bincount(cluster, d)
        n = np.bincount(cluster)
        np.testing.assert_allclose(psi[:, 0], (D - d.mean() * n) / len(d), rtol=1e-9, atol=1e-15)


def _cr2_brute_force(d: np.ndarray, cluster: np.ndarray) -> tuple[float, float]:
    """CR2 variance of the intercept and its Bell–McCaffrey df from the N × N matrices themselves."""
    N = len(d)
    H = np.full((N, N), 1.0 / N)
    e = d - d.mean()
    meat, columns = 0.0, []
    for g in np.unique(cluster):
        idx = np.flatnonzero(cluster == g)
        A = np.real(np.linalg.inv(sqrtm(np.eye(len(idx)) - H[np.ix_(idx, idx)])))
        meat += (np.ones(len(idx)) @ A @ e[idx] / N) ** 2
        a = np.zeros(N)
        a[idx] = A @ np.ones(len(idx)) / N
        columns.append((np.eye(N) - H) @ a)
    Q = np.column_stack(columns)
    lam = np.linalg.eigvalsh(Q.T @ Q)
    return meat, lam.sum() ** 2 / (lam ** 2).sum()


def test_cr2_and_bell_mccaffrey_df_match_the_brute_force_matrices():
    rng = np.random.default_rng(3)
    for sizes in ([3, 5, 2, 7, 4], [10, 10, 10, 10], [1, 2, 3, 30]):
        cluster = np.repeat(np.arange(len(sizes)), sizes)
        d = rng.integers(-1, 2, size=len(cluster)).astype(float)
        variance, df = _cr2_brute_force(d, cluster)
        n = np.bincount(cluster)
        psi = (np.bincount(cluster, d) - d.mean() * n) / len(d)
        assert cr2_variance(psi, n / len(d)) == pytest.approx(variance, rel=1e-10)
        assert bell_mccaffrey_df(n / len(d)) == pytest.approx(df, rel=1e-10)
    assert bell_mccaffrey_df(np.full(4, 0.25)) == pytest.approx(3.0)


def test_cluster_jackknife_is_leaving_each_cluster_out_with_pandas():
    y, cluster = _clustered_pair(7)
    frame = pd.DataFrame({"a": y[:, 0], "b": y[:, 1], "cluster": cluster})
    leave = np.array([(part["a"].mean() - part["b"].mean())
                      for _, part in ((g, frame[frame["cluster"] != g]) for g in range(10))])
    units = frame.groupby("cluster")[["a", "b"]].sum().assign(one=frame.groupby("cluster").size()).to_numpy()
    np.testing.assert_allclose(jackknife(_difference, units)[:, 0], leave, rtol=1e-12)
    expected = 9 / 10 * ((leave - leave.mean()) ** 2).sum()
    assert jackknife_variance(jackknife(_difference, units))[0] == pytest.approx(expected, rel=1e-12)


def test_stratified_jackknife_reweights_the_other_clusters_of_the_stratum():
    rng = np.random.default_rng(1)
    units = rng.integers(1, 20, size=(7, 2)).astype(float)      # (A_g, B_g)
    strata = np.array([0, 0, 0, 1, 1, 1, 1])
    ratio = lambda s: s[:, :1] / s[:, 1:]                         # noqa: E731
    leave = jackknife(ratio, units, strata)[:, 0]
    for g in range(7):                                            # JKn written out
        weights = np.ones(7)
        weights[g] = 0.0
        inside = strata == strata[g]
        weights[inside & (np.arange(7) != g)] = inside.sum() / (inside.sum() - 1)
        assert leave[g] == pytest.approx((weights @ units[:, 0]) / (weights @ units[:, 1]), rel=1e-12)
    expected = sum((h.size - 1) / h.size * ((h - h.mean()) ** 2).sum() for h in (leave[:3], leave[3:]))
    assert jackknife_variance(leave, strata) == pytest.approx(expected, rel=1e-12)


def test_linearisation_is_the_analytic_influence_of_ratios_and_macro_averages():
    rng = np.random.default_rng(5)
    units = rng.integers(1, 30, size=(9, 2)).astype(float)
    theta = units[:, 0].sum() / units[:, 1].sum()
    psi = linearize(lambda s: s[:, :1] / s[:, 1:], units.sum(axis=0), units)[:, 0]
    np.testing.assert_allclose(psi, (units[:, 0] - theta * units[:, 1]) / units[:, 1].sum(), rtol=1e-9)
    # a macro-average of three group means with weights w: Σ_k w_k (S_gk − m_k n_gk)/n_k
    S, n = rng.integers(0, 10, size=(9, 3)).astype(float), rng.integers(10, 20, size=(9, 3)).astype(float)
    w = np.array([0.5, 0.3, 0.2])
    macro = lambda s: ((s[:, :3] / s[:, 3:]) @ w)[:, None]          # noqa: E731
    psi = linearize(macro, np.hstack([S, n]).sum(axis=0), np.hstack([S, n]))[:, 0]
    m = S.sum(axis=0) / n.sum(axis=0)
    np.testing.assert_allclose(psi, ((S - m * n) / n.sum(axis=0)) @ w, rtol=1e-9)


# --------------------------------------------------------------------------------------------
# clustered McNemar
# --------------------------------------------------------------------------------------------
def test_durkalski_with_one_query_per_cluster_is_mcnemar_and_obuchowski_is_its_g_minus_1_over_g():
    rng = np.random.default_rng(2)
    for _ in range(20):
        cells = rng.multinomial(60, [0.4, 0.15, 0.1, 0.35])
        b, c = cells[1], cells[2]
        if b + c < 2:
            continue
        benefit = np.r_[np.ones(b), np.zeros(c)]
        tax = np.r_[np.zeros(b), np.ones(c)]
        chi2 = sm_mcnemar([[cells[0], c], [b, cells[3]]], exact=False, correction=False)
        durkalski = md.clustered_mcnemar(benefit, tax, np.ones(b + c), method="durkalski")
        assert durkalski.statistic == pytest.approx(chi2.statistic, rel=1e-12)
        assert durkalski.p_value == pytest.approx(chi2.pvalue, rel=1e-10)
        G = b + c
        assert md.clustered_mcnemar(benefit, tax).statistic == pytest.approx((G - 1) / G * chi2.statistic, rel=1e-12)


def test_obuchowski_is_the_ratio_estimator_variance_about_the_pooled_proportion():
    # Obuchowski (1998): p̂_k = Σ_g x_kg / N, variance from the cluster totals about the pooled p̄,
    # var(p̂_1 − p̂_2) = G/((G − 1) N²) Σ_g ((x_1g − n_g p̄) − (x_2g − n_g p̄))²
    rng = np.random.default_rng(9)
    n = rng.integers(5, 40, size=12)
    x1 = rng.binomial(n, 0.6)
    x2 = np.minimum(n, rng.binomial(n, 0.55))
    both = np.minimum(x1, x2) - rng.binomial(np.minimum(x1, x2), 0.1)
    b, c = x1 - both, x2 - both                       # discordant counts consistent with x1, x2
    G, N = len(n), n.sum()
    pooled = (x1.sum() + x2.sum()) / (2 * N)
    variance = G / ((G - 1) * N ** 2) * (((x1 - n * pooled) - (x2 - n * pooled)) ** 2).sum()
    expected = ((x1.sum() - x2.sum()) / N) ** 2 / variance
    assert md.clustered_mcnemar(b, c).statistic == pytest.approx(expected, rel=1e-12)


# --------------------------------------------------------------------------------------------
# the wild cluster bootstrap
# --------------------------------------------------------------------------------------------
def _wcr_by_loops(D: np.ndarray, n: np.ndarray) -> float:
    """The restricted wild bootstrap-t p over all sign patterns, re-estimating Δ and its CR1
    variance from the flipped cluster totals in plain loops."""
    N, G = n.sum(), len(n)

    def t_of(totals):
        est = totals.sum() / N
        resid = totals - est * n
        return est / np.sqrt(G / (G - 1) * (resid ** 2).sum() / N ** 2)

    t0 = abs(t_of(D))
    hits = sum(abs(t_of(np.array(signs) * D)) >= t0 - 1e-12 * max(1, t0)
               for signs in itertools.product([1, -1], repeat=G))
    return hits / 2 ** G


def test_enumerated_wild_bootstrap_is_the_loop_over_every_sign_pattern():
    rng = np.random.default_rng(4)
    for G in (5, 7, 12, 13):
        n = rng.integers(5, 30, size=G).astype(float)
        D = rng.integers(-6, 7, size=G).astype(float)
        D[D == 0] = 1.0
        out = wild_test((D / n.sum())[:, None], n / n.sum())
        assert bool(out.exact[0]) and out.n_draws[0] == 2 ** G
        assert out.p_value[0] == pytest.approx(_wcr_by_loops(D, n), abs=1e-15)


def test_sign_flips_over_queries_are_exact_mcnemar_for_binary_differences():
    # one query per unit, d_i = ±1 on the m discordant queries: the sign-flip p is the exact
    # two-sided binomial p of McNemar (scipy), for every table with m ≤ 16 discordant queries
    for b in range(0, 9):
        for c in range(0, 9):
            if b + c == 0:
                continue
            n_total = b + c + 7                             # 7 concordant queries contribute 0
            d = np.r_[np.ones(b), -np.ones(c), np.zeros(7)] / n_total
            out = wild_test(d[:, None], np.full(n_total, 1 / n_total), weights="exact")
            assert out.p_value[0] == pytest.approx(stats.binomtest(b, b + c, 0.5).pvalue, rel=1e-12)


def test_five_one_sided_discordant_queries_give_exact_0_0625_not_the_bootstrap_floor():
    # issue 13: a fractional metric where five queries favour a and none b
    ids = [f"q{i}" for i in range(12)]
    f1 = {"a": [0.9] * 5 + [0.5] * 7, "b": [0.2] * 5 + [0.5] * 7}
    df = pd.DataFrame({"system": ["a"] * 12 + ["b"] * 12, "query_id": ids * 2, "score": 1.0,
                       "f1": f1["a"] + f1["b"]})
    out = md.compare(df, metric="f1", options=dict(n_resamples=20_000)).iloc[0]
    assert out["p"] == 0.0625 and not out["p_floor"]
    assert out["test"] == "exact sign-flip randomization (32 patterns)"
    clustered = md.compare(df.assign(cluster=[f"c{i}" for i in range(12)] * 2).iloc[[*range(5), *range(12, 17)]],
                           metric="f1", options=dict(design="cluster")).iloc[0]
    assert clustered["p"] == 0.0625 and clustered["test"] == "wild cluster bootstrap-t, exact (32 sign flips)"


def test_webb_weights_have_six_equally_likely_points_with_mean_0_and_variance_1():
    draws = np.concatenate(list(wild_weights(10, 60_000, seed=3, kind="webb")))
    values, counts = np.unique(draws, return_counts=True)
    np.testing.assert_allclose(values, _WEBB)
    assert stats.chisquare(counts).pvalue > 1e-3
    assert _WEBB.mean() == pytest.approx(0.0, abs=1e-15) and (_WEBB ** 2).mean() == pytest.approx(1.0)


def test_weights_follow_the_number_of_informative_clusters():
    assert [weights_for(g) for g in (1, 7, 8, 11, 12, 16, 17, 100)] == [
        "exact", "exact", "webb", "webb", "exact", "exact", "rademacher", "rademacher"]


def test_sampled_wild_p_is_deterministic_chunk_free_and_flags_its_floor(monkeypatch):
    import memdiag.engine.inference.wild as wild

    y, cluster = _clustered_pair(11, sizes=[40] * 30)
    n = np.bincount(cluster).astype(float)
    D = np.bincount(cluster, y[:, 0] - y[:, 1])
    r = np.column_stack([D, D + 25 * n / n.sum() * 40]) / n.sum()     # the second far from the null
    a = wild_test(r, n / n.sum(), n_resamples=3_000, seed=5)
    monkeypatch.setattr(wild, "_CHUNK_ENTRIES", 97)
    b = wild_test(r, n / n.sum(), n_resamples=3_000, seed=5)
    np.testing.assert_array_equal(a.p_value, b.p_value)
    assert a.weights == ("rademacher", "rademacher") and not a.exact.any()
    assert a.floor.tolist() == [False, True] and a.p_value[1] == pytest.approx(1 / 3_001)
    np.testing.assert_allclose(a.mc_se, np.sqrt(a.p_value * (1 - a.p_value) / 3_000))
    assert wild_test(r, n / n.sum(), n_resamples=3_000, seed=6).p_value[0] != a.p_value[0]


def test_wild_max_range_is_the_loop_over_every_sign_pattern():
    rng = np.random.default_rng(8)
    psi = rng.normal(size=(6, 3)) / 50
    psi -= psi.mean(axis=0)
    estimate = np.array([0.50, 0.53, 0.55])
    T, p, draws, exact, weights = wild_max_range(psi, estimate)
    scaled = np.sqrt(6 / 5) * psi
    ranges = [np.ptp(np.array(signs) @ scaled) for signs in itertools.product([1, -1], repeat=6)]
    expected = (1 + sum(r >= T - 1e-12 for r in ranges)) / (1 + 64)
    assert (T, draws, exact, weights) == (pytest.approx(0.05), 64, True, "exact")
    assert p == pytest.approx(expected)


# --------------------------------------------------------------------------------------------
# the dispatcher and the public functions
# --------------------------------------------------------------------------------------------
def test_default_cluster_interval_is_the_jackknife_t_and_cr2_the_bell_mccaffrey_t():
    y, cluster = _clustered_pair(12)
    d = y[:, 0] - y[:, 1]
    df = pd.DataFrame({"system": ["a"] * len(d) + ["b"] * len(d),
                       "query_id": [f"q{i:04d}" for i in range(len(d))] * 2,
                       "cluster": np.tile(cluster, 2), "score": np.r_[y[:, 0], y[:, 1]]})
    row = md.compare(df, options=dict(n_resamples=1_000)).iloc[0]
    frame = pd.DataFrame({"d": d, "cluster": cluster})
    leave = np.array([frame.loc[frame["cluster"] != g, "d"].mean() for g in range(10)])
    se = np.sqrt(0.9 * ((leave - leave.mean()) ** 2).sum())
    assert row["method"] == "cluster jackknife, t(9)"
    assert row["ci_low"] == pytest.approx(100 * (d.mean() - stats.t.ppf(0.975, 9) * se), rel=1e-9)
    variance, nu = _cr2_brute_force(d, cluster)
    cr2 = md.compare(df, options=dict(inference="cr2", n_resamples=1_000)).iloc[0]
    assert cr2["method"] == f"CR2, Bell–McCaffrey t({nu:.1f})"
    assert cr2["ci_high"] == pytest.approx(100 * (d.mean() + stats.t.ppf(0.975, nu) * np.sqrt(variance)), rel=1e-9)
    assert cr2["p"] == row["p"]                                   # same wild test


def test_cluster_flows_rates_are_jackknifed_and_undefined_shares_are_columns():
    # retention = a/(a + c) is undefined without cluster 0, where all of the reference's successes are
    rows = []
    for g in range(8):
        for i in range(6):
            ref = 1.0 if g == 0 and i < 3 else 0.0
            mem = 1.0 if (g + i) % 3 == 0 else 0.0
            rows += [("rag", f"c{g}-q{i}", ref, f"c{g}"), ("mem", f"c{g}-q{i}", mem, f"c{g}")]
    df = pd.DataFrame(rows, columns=["system", "query_id", "score", "cluster"])
    out = md.flows(df, "rag", options=dict(n_resamples=500)).iloc[0]
    assert out["retention_undefined"] == pytest.approx(1 / 8)
    assert np.isnan(out["retention_ci_low"]) and not np.isnan(out["retention"])
    assert any("retention undefined (empty denominator) in 12.5% of the leave-one-cluster-out" in n
               for n in md.flows(df, "rag", options=dict(n_resamples=500)).attrs["notes"])
    # recovery b/(b + d): the jackknife from cluster crosstabs done with pandas
    wide = df.pivot(index="query_id", columns="system", values="score")
    wide["cluster"] = wide.index.str.split("-").str[0]
    leave = []
    for g in sorted(wide["cluster"].unique()):
        part = wide[wide["cluster"] != g]
        leave.append(100 * ((part["rag"] == 0) & (part["mem"] == 1)).sum() / (part["rag"] == 0).sum())
    leave = np.array(leave)
    se = np.sqrt(7 / 8 * ((leave - leave.mean()) ** 2).sum())
    assert out["recovery_ci_high"] == pytest.approx(min(100.0, out["recovery"] + stats.t.ppf(0.975, 7) * se))
    assert out["recovery_undefined"] == 0.0


def test_percentile_mc_se_of_interval_ends_matches_the_spread_over_seeds():
    df = md.simulate(n_queries=600, systems=("raw-rag", "mem0"), reference="raw-rag", seed=3)
    ends = [md.compare(df, options=dict(design="iid", n_resamples=1_000, seed=s)) for s in range(30)]
    spread = np.std([e["ci_low"].iloc[0] for e in ends], ddof=1)
    reported = np.mean([e.attrs["mc_se"]["ci_low"][0] for e in ends])
    assert 0.5 < reported / spread < 2.0
    assert md.compare(df, options=dict(n_resamples=1_000)).attrs["mc_se"]["ci_low"] == [0.0]      # jackknife: exact


def test_design_power_survives_scipys_nan_far_tail():
    # scipy's noncentral t cdf is NaN far in the tail (df 3, noncentrality 8); that tail is ~0
    power = design_power(52.39, 6.548881, 3.0)
    t = stats.t.isf(0.025, 3.0)
    assert power == pytest.approx(stats.nct.sf(t, 3.0, 52.39 / 6.548881), abs=1e-12)
    assert design_power(-52.39, 6.548881, 3.0) == power
    assert 0 < design_detectable_effect(6.548881, 3.0) < 52.39


def test_design_power_matches_simulated_noncentral_t_and_inverts():
    rng = np.random.default_rng(0)
    se, df, delta = 2.0, 9, 5.0
    z = rng.standard_normal(200_000) + delta / se
    t = z / np.sqrt(rng.chisquare(df, 200_000) / df)
    simulated = np.mean(np.abs(t) > stats.t.ppf(0.975, df))
    assert design_power(delta, se, df) == pytest.approx(simulated, abs=4e-3)
    detectable = design_detectable_effect(se, df, power=0.8)
    assert design_power(detectable, se, df) == pytest.approx(0.8, abs=1e-9)
    assert design_detectable_effect(se, np.inf) == pytest.approx(se * (stats.norm.isf(0.025) + stats.norm.ppf(0.8)),
                                                                    rel=1e-3)


def test_the_default_design_and_its_reason():
    q = pd.DataFrame
    assert resolve_design(q({"cluster": ["a", "b", "c"]}), None)[1] == "design iid (default: every query is its own cluster)"
    assert resolve_design(q({"cluster": ["a", "a"]}), None)[1] == "design iid (default: all queries are in one cluster)"
    assert resolve_design(q({"cluster": ["a", None]}), None)[0] == "iid"
    locomo = md.get_scheme("locomo")
    assert resolve_design(q({"cluster": ["a", "a"]}), None, locomo)[1] == (
        "design iid (scheme locomo asks for cluster resampling by 'cluster', but the data hold one cluster)")
    assert resolve_design(q({"cluster": list("aabb")}), None, locomo)[1] == (
        "design cluster (default for scheme locomo: resample by cluster, 2 clusters)")
    mab = md.get_scheme("memoryagentbench")
    assert resolve_design(q({"stratum": list("aabb"), "cluster": list("xxyy")}), None, mab)[0] == "stratified-cluster"
    assert resolve_design(q({"stratum": list("aabb"), "cluster": list("xyxy")}), None, mab)[1] == (
        "design stratified (default for scheme memoryagentbench: resample by stratum; the data's 2 clusters "
        "cross strata, so they are not resampled whole)")


def test_inference_options_are_checked():
    df = md.simulate(n_queries=100, systems=("raw-rag", "mem0"), reference="raw-rag", seed=1)
    with pytest.raises(md.VerdictError, match="needs a cluster design"):
        md.compare(df, options=dict(design="iid", inference="jackknife"))
    with pytest.raises(md.VerdictError, match="unknown inference 'wild'"):
        md.compare(df, options=dict(inference="wild"))


def test_signature_names_the_number_of_clusters_and_floored_p_prints_as_a_bound():
    from memdiag.tables import render, signature

    df = md.simulate(n_queries=300, systems=("raw-rag", "mem0"), reference="raw-rag", n_clusters=12, seed=2)
    out = md.compare(df, options=dict(n_resamples=500))
    assert "| design=cluster | G=12 |" in signature(out.attrs)
    forced = out.assign(p=1 / 501, p_floor=True)
    assert "< 0.0020 |" in render(forced, "md")  # 1/501 = 0.001996, a bound: two digits rounded up


def test_stratified_cluster_jackknife_uses_g_minus_h_degrees_of_freedom():
    rng = np.random.default_rng(6)
    cluster = np.repeat(np.arange(12), 20)
    stratum = cluster % 3
    X = np.column_stack([rng.random((240, 2)) < 0.6, np.ones(240)]).astype(float)
    res = infer(X, Design("stratified-cluster", cluster=cluster, stratum=stratum), _difference, n_resamples=500)
    assert res.df == 9 and res.method == "cluster jackknife, t(9)"


def test_stratified_binary_contrast_with_few_discordant_queries_is_exact_mcnemar():
    ids = [f"q{i:02d}" for i in range(40)]
    a = [1.0] * 5 + [1.0, 0.0] * 17 + [0.0]
    b = [0.0] * 5 + [1.0, 0.0] * 17 + [0.0]
    df = pd.DataFrame({"system": ["a"] * 40 + ["b"] * 40, "query_id": ids * 2, "score": a + b,
                       "stratum": [f"s{i % 4}" for i in range(40)] * 2})
    row = md.compare(df, options=dict(design="stratified", n_resamples=20_000)).iloc[0]
    assert row["test"] == "exact McNemar" and row["p"] == pytest.approx(0.0625) and not row["p_floor"]
    flows = md.flows(df, "b", options=dict(design="stratified", n_resamples=2_000)).iloc[0]
    assert flows["test"] == "exact McNemar" and flows["p"] == pytest.approx(0.0625)


def test_every_resampled_number_has_its_monte_carlo_error_in_attrs():
    df = md.simulate(n_queries=300, systems=("raw-rag", "mem0", "zep"), reference="raw-rag", seed=4)
    iid = md.flows(df, "raw-rag", options=dict(design="iid", n_resamples=1_000))
    assert set(iid.attrs["mc_se"]) == {"p"} | {f"{r}_{e}" for r in RATES for e in ("ci_low", "ci_high")}
    assert all(len(v) == len(iid) for v in iid.attrs["mc_se"].values())
    assert iid.attrs["mc_se"]["p"] == [0.0, 0.0]                       # exact McNemar
    assert all(v > 0 for v in iid.attrs["mc_se"]["net_rate_ci_low"])   # percentile ends
    clustered = md.flows(df, "raw-rag", options=dict(n_resamples=1_000))             # 30 conversations
    assert all(v == 0 for v in clustered.attrs["mc_se"]["net_rate_ci_low"])   # jackknife: exact
    for frame in (md.evidence(df, options=dict(design="iid", n_resamples=500)),
                  md.score(df, options=dict(design="iid", n_resamples=500)),
                  md.bootstrap(df, options=dict(design="iid", n_resamples=500))):
        assert frame.attrs["mc_se"] and all(np.isfinite(v).all() for v in frame.attrs["mc_se"].values())
