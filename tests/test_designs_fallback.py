"""Designs that never fall back silently (issue 20; SPEC §4.1, §4.2, §4.4).

One test (at least) per item of the issue, each failing on memdiag 0.2.0:

1. a missing cluster label is refused (naming the queries) or, with ``cluster_missing="own"``,
   gives each unlabelled query its own cluster, counted in a note;
2. canonical LoCoMo ids and a scheme's ``cluster_from_id`` give the cluster; a clustered benchmark
   without clusters carries a warning;
3. unequal clusters get CR2 on Bell–McCaffrey degrees of freedom (ν beside G);
4. the symmetric-contributions assumption is stated beside every clustered test;
5. an interval and a test that disagree are flagged; G ≤ 4 is a warning;
6. zero-width flow intervals get a note;
7. the Monte-Carlo error of the bootstrap sign test's p is 2·√(p₁(1 − p₁)/B), and Monte-Carlo
   errors near a decision boundary are printed in a note.

Expected values come from independent computations: hand arithmetic, the brute-force N × N CR2
matrices, scipy's t quantiles, the cluster column written out by hand.
"""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.linalg import sqrtm

import memdiag as md
from memdiag.cli import main
from memdiag.core.notes import with_code
from memdiag.engine.designs import Design
from memdiag.engine.inference.boundary import near_boundary_notes
from memdiag.engine.inference.intervals import infer
from memdiag.errors import SchemeError, VerdictError
from memdiag.io.schema import locomo_query_id


def _frame(y: np.ndarray, ids, cluster=None, systems=("mem", "rag")) -> pd.DataFrame:
    """Long verdicts of two systems: ``y`` (N, 2) scores, one row per (system, query)."""
    n = len(ids)
    df = pd.DataFrame({"system": np.repeat(systems, n), "query_id": list(ids) * 2,
                       "score": np.r_[y[:, 0], y[:, 1]]})
    if cluster is not None:
        df["cluster"] = list(cluster) * 2
    return df


def _clustered(seed: int, sizes) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    cluster = np.repeat(np.arange(len(sizes)), sizes)
    base = np.clip(0.6 + 0.08 * rng.standard_normal(len(sizes)), 0.1, 0.9)
    shift = np.clip(base + 0.03 + 0.06 * rng.standard_normal(len(sizes)), 0.05, 0.95)
    y = np.column_stack([rng.random(len(cluster)) < shift[cluster], rng.random(len(cluster)) < base[cluster]])
    return y.astype(float), cluster


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


# --------------------------------------------------------------------------------------------
# 1. a missing cluster label
# --------------------------------------------------------------------------------------------
def _one_unlabelled():
    y, cluster = _clustered(1, [40] * 10)
    ids = [f"q{i:03d}" for i in range(len(cluster))]
    labels = np.array([f"c{g}" for g in cluster], dtype=object)
    labels[17] = None
    return _frame(y, ids, labels), ids


def test_one_missing_cluster_label_is_refused_naming_the_query():
    df, ids = _one_unlabelled()
    for call in (lambda: md.prepare(df), lambda: md.compare(df, options=dict(n_resamples=200)),
                 lambda: md.flows(df, "rag", options=dict(n_resamples=200)), lambda: md.score(df)):
        with pytest.raises(VerdictError) as err:
            call()
        text = str(err.value)
        assert "1 of 400 queries have no cluster label (q017)" in text and "cluster_missing='own'" in text
        assert "\n" not in text


def test_cluster_missing_own_makes_it_a_cluster_of_its_own_and_counts_it():
    df, ids = _one_unlabelled()
    prep = md.prepare(df, cluster_missing="own")
    assert prep.design == "cluster" and prep.n_clusters == 11
    notes = with_code(prep.notes, "cluster-missing-own")
    assert len(notes) == 1 and notes[0].severity == "caution" and notes[0].concerns == ("q017",)
    assert "1 of 400 queries" in notes[0]
    out = md.compare(prep, options=dict(n_resamples=500))
    # the same as writing the query's own cluster by hand
    by_hand = df.copy()
    by_hand.loc[by_hand["query_id"] == "q017", "cluster"] = "solo"
    expected = md.compare(by_hand, options=dict(n_resamples=500))
    cols = ["diff", "ci_low", "ci_high", "p", "method", "test"]
    pd.testing.assert_frame_equal(out[cols], expected[cols])
    assert out.attrs["n_clusters"] == 11 and "cluster-missing-own" in [n.code for n in with_code(
        out.attrs["notes"], "cluster-missing-own")]


def test_cli_refuses_a_missing_cluster_in_one_line_and_takes_cluster_missing_own(tmp_path):
    df, _ = _one_unlabelled()
    path = tmp_path / "verdicts.csv"
    df.to_csv(path, index=False)
    code, out, err = _run("compare", str(path), "--resamples", "200")
    assert code == 2 and out == "" and "q017" in err and "--cluster-missing own" in err
    assert len(err.strip().splitlines()) == 1
    code, out, err = _run("compare", str(path), "--resamples", "200", "--cluster-missing", "own")
    assert code == 0 and "G=11" in out and "cluster missing own: 1 of 400 queries" in out + err


# --------------------------------------------------------------------------------------------
# 2. clusters from canonical ids and from a scheme's declaration; a clustered benchmark without them
# --------------------------------------------------------------------------------------------
def test_canonical_locomo_ids_give_the_conversation_as_cluster():
    sizes = [30, 12, 25, 40, 33, 20, 28, 36, 31, 29]
    y, cluster = _clustered(4, sizes)
    position = np.concatenate([np.arange(n) for n in sizes])
    ids = [locomo_query_id(int(g), int(p)) for g, p in zip(cluster, position)]
    plain = _frame(y, ids).assign(category="single-hop")
    # the conversation written out by hand from the id's second field
    written = plain.assign(cluster=[qid.split(":")[1] for qid in plain["query_id"]])
    for scheme in (None, "locomo"):
        out = md.compare(md.prepare(plain, scheme=scheme), options=dict(n_resamples=999))
        expected = md.compare(md.prepare(written, scheme=scheme), options=dict(n_resamples=999))
        assert out.attrs["design"] == "cluster" and out.attrs["n_clusters"] == 10
        cols = ["diff", "ci_low", "ci_high", "p", "method", "test"]
        pd.testing.assert_frame_equal(out[cols], expected[cols])
        assert out["method"].iloc[0] == "cluster jackknife, t(9)"
        assert len(with_code(out.attrs["notes"], "cluster-from-ids")) == 1


def test_a_scheme_declares_where_its_ids_carry_the_cluster():
    scheme = md.Scheme(name="episodes", group_by=None, design="cluster", cluster_from_id=r"^ep(\d+)-")
    y, cluster = _clustered(5, [8] * 12)
    ids = [f"ep{g}-q{i}" for i, g in enumerate(cluster)]
    prep = md.prepare(_frame(y, ids), scheme=scheme)
    assert prep.design == "cluster" and prep.n_clusters == 12
    assert prep.panel.queries["cluster"].tolist() == [qid.split("-")[0][2:] for qid in prep.panel.query_ids]
    with pytest.raises(SchemeError, match="cluster_from_id.*2 groups"):
        md.Scheme(name="bad", group_by=None, cluster_from_id=r"^(ep)(\d+)")


def test_a_clustered_benchmark_without_clusters_warns_in_every_result():
    y, _ = _clustered(6, [20] * 10)
    df = _frame(y, [f"q{i}" for i in range(200)]).assign(category="single-hop")
    for out in (md.compare(md.prepare(df, scheme="locomo"), options=dict(n_resamples=200)), md.flows(md.prepare(df, scheme="locomo"), "rag",
                                                                           options=dict(n_resamples=200)),
                md.score(md.prepare(df, scheme="locomo"))):
        warning = with_code(out.attrs["notes"], "clusters-unknown")
        assert len(warning) == 1 and warning[0].severity == "warning" and "locomo" in warning[0]
    assert not with_code(md.compare(df, options=dict(n_resamples=200)).attrs["notes"], "clusters-unknown")  # no benchmark named


# --------------------------------------------------------------------------------------------
# 3. unequal clusters: CR2 with Bell–McCaffrey degrees of freedom, ν beside G
# --------------------------------------------------------------------------------------------
def _cr2_by_matrices(d: np.ndarray, cluster: np.ndarray) -> tuple[float, float]:
    """CR2 variance of the mean of d and its Bell–McCaffrey ν from the N × N matrices."""
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


def test_one_dominant_cluster_gets_cr2_on_bell_mccaffrey_df():
    sizes = [60, 7, 7, 6, 6, 6, 6, 6, 6, 6]     # one conversation holds half the questions
    y, cluster = _clustered(8, sizes)
    out = md.compare(_frame(y, [f"q{i:03d}" for i in range(len(cluster))], cluster), options=dict(n_resamples=999))
    variance, nu = _cr2_by_matrices(y[:, 0] - y[:, 1], cluster)
    assert nu < 0.8 * 9
    row = out.iloc[0]
    assert row["method"] == f"CR2, Bell–McCaffrey t({nu:.1f})"
    assert row["df"] == pytest.approx(nu, rel=1e-9) and out.attrs["df"] == pytest.approx(nu, rel=1e-9)
    half = stats.t.ppf(0.975, nu) * np.sqrt(variance) * 100
    assert (row["ci_low"], row["ci_high"]) == (pytest.approx(row["diff"] - half), pytest.approx(row["diff"] + half))
    assert f"df={nu:.3g}" in md.tables.signature(out.attrs) and "G=10" in md.tables.signature(out.attrs)
    assert len(with_code(out.attrs["notes"], "cr2-unequal-clusters")) == 1


def test_locomo_sizes_keep_the_jackknife_on_g_minus_1():
    y, cluster = _clustered(9, [152, 81, 152, 199, 178, 123, 150, 191, 156, 158])
    out = md.compare(_frame(y, [f"q{i:04d}" for i in range(len(cluster))], cluster), options=dict(n_resamples=999))
    assert out["method"].iloc[0] == "cluster jackknife, t(9)" and out["df"].iloc[0] == 9.0


# --------------------------------------------------------------------------------------------
# 4 and 5. the symmetric-contributions assumption; interval and test that disagree; G ≤ 4
# --------------------------------------------------------------------------------------------
def test_every_clustered_test_states_the_symmetric_contributions_assumption():
    y, cluster = _clustered(10, [30] * 10)
    df = _frame(y, [f"q{i:03d}" for i in range(300)], cluster)
    assert len(with_code(md.compare(df, options=dict(n_resamples=200)).attrs["notes"], "symmetric-contributions")) == 1
    assert len(with_code(md.flows(df, "rag", options=dict(n_resamples=200)).attrs["notes"], "symmetric-contributions")) == 1
    assert not with_code(md.compare(df, options=dict(design="iid", n_resamples=200)).attrs["notes"], "symmetric-contributions")


def test_an_interval_and_a_test_that_disagree_are_flagged_on_the_row():
    # 10 benefits, 2 taxes among 300 queries: exact McNemar p = 2·P(Bin(12, ½) ≤ 2) = 2·79/4096
    # = 0.0386 — and a case where the percentile interval includes 0 while p ≤ 0.05 is not needed:
    # 9 benefits and 2 taxes give p = 2·67/2048 = 0.0654 > 0.05, while the percentile interval of
    # (b − c)/N with B = 4000 excludes 0 (b* − c* ≤ 0 has bootstrap chance ≈ 1.6%).
    ref = np.r_[np.zeros(9), np.ones(2), np.ones(150), np.zeros(139)]
    mem = np.r_[np.ones(9), np.zeros(2), np.ones(150), np.zeros(139)]
    out = md.compare(_frame(np.column_stack([mem, ref]), [f"q{i:03d}" for i in range(300)]),
                     options=dict(n_resamples=4000))
    row = out.iloc[0]
    assert row["test"] == "exact McNemar" and row["p"] == pytest.approx(2 * 67 / 2048)
    assert row["ci_low"] > 0 and row["p"] > 0.05
    assert bool(row["disagree"]) is True
    note = with_code(out.attrs["notes"], "interval-test-disagree")
    assert len(note) == 1 and note[0].severity == "caution" and "excludes 0 but" in note[0]
    # the same data with a clear difference agree
    mem2 = np.r_[np.ones(11), np.ones(150), np.zeros(139)]
    agree = md.compare(_frame(np.column_stack([mem2, ref]), [f"q{i:03d}" for i in range(300)]),
                       options=dict(n_resamples=4000))
    assert bool(agree["disagree"].iloc[0]) is False


def test_four_clusters_or_fewer_warn_that_no_test_can_be_useful():
    for G, warned in ((3, True), (4, True), (5, False)):
        y, cluster = _clustered(11, [40] * G)
        out = md.compare(_frame(y, [f"q{i:03d}" for i in range(40 * G)], cluster), options=dict(n_resamples=200))
        notes = with_code(out.attrs["notes"], "too-few-clusters")
        assert bool(notes) is warned
        if warned:
            assert notes[0].severity == "warning" and f"2/2^{G} = {2 / 2 ** G:g}" in notes[0]


# --------------------------------------------------------------------------------------------
# 6. zero-width flow intervals
# --------------------------------------------------------------------------------------------
def test_flows_note_a_rate_interval_of_zero_width():
    ref = [1] * 8 + [0, 0]
    mem = [1] * 8 + [1, 1]                                  # recovers 2 of 2, keeps 8 of 8
    out = md.flows(_frame(np.column_stack([mem, ref]), [f"q{i}" for i in range(10)]), "rag",
                   options=dict(n_resamples=500))
    row = out.iloc[0]
    assert (row["recovery"], row["recovery_ci_low"], row["recovery_ci_high"]) == (100.0, 100.0, 100.0)
    notes = with_code(out.attrs["notes"], "zero-width-interval")
    text = " ".join(notes)
    assert "recovery 100 [100, 100] (2 of 2)" in text and "retention 100 [100, 100] (8 of 8)" in text
    assert all(n.severity == "caution" for n in notes)


# --------------------------------------------------------------------------------------------
# 7. Monte-Carlo error of the bootstrap sign test, and errors printed near a boundary
# --------------------------------------------------------------------------------------------
def _fractional(n: int, mean: float, sd: float) -> np.ndarray:
    """Per-query differences with exactly this mean and sd (a fixed standardised pattern)."""
    z = np.random.default_rng(0).standard_normal(n)
    z = (z - z.mean()) / z.std(ddof=1)
    return mean + sd * z


def test_the_sign_test_p_reports_its_observed_monte_carlo_spread():
    d = _fractional(200, 0.05, 0.45)                  # t ≈ 1.57: p ≈ 0.12
    X = np.column_stack([d, np.ones(200)])
    stat = lambda s: s[:, :1] / s[:, 1:]                # noqa: E731
    B, seeds = 999, 300
    runs = [infer(X, Design("iid", n=200), stat, n_resamples=B, seed=s) for s in range(seeds)]
    p = np.array([r.p_value[0] for r in runs])
    reported = np.array([r.mc_se["p"][0] for r in runs])
    # independent: the formula for the doubled one-sided share, at the mean p
    p1 = p.mean() / 2
    assert reported.mean() == pytest.approx(2 * np.sqrt(p1 * (1 - p1) / (B + 1)), rel=0.05)
    ratio = p.std(ddof=1) / reported.mean()
    # the sd of 300 draws is within ±12% of the truth with probability > 0.99; √(p(1 − p)/B) gives ≈ 0.73
    assert 0.85 <= ratio <= 1.15, ratio


def test_monte_carlo_errors_near_a_decision_boundary_are_printed():
    notes = near_boundary_notes(["a − b", "c − d"], alpha=0.05, p=[0.047, 0.3], p_se=[0.002, 0.004],
                                p_adj=[0.094, 0.3], ends={"ci_low": ([0.01, -2.0], [0.02, 0.05])}, unit=" points")
    assert len(notes) == 1 and notes[0].code == "mc-near-boundary" and notes[0].severity == "caution"
    # 0.047 is 1.5 errors from 0.05; 0.01 is 0.5 errors from 0; p_adj 0.094 ± 0.004 is 11 errors away
    assert "p = 0.0470 ± 0.0020" in notes[0] and "ci_low = 0.01 ± 0.02 points" in notes[0]
    assert "p_adj" not in notes[0]
    assert not near_boundary_notes(["x"], alpha=0.05, p=[0.05], p_se=[0.0])     # exact: no error
    # end to end: a fractional difference whose sign-test p sits at the boundary
    d = _fractional(100, 1.96 * 0.3 / 10, 0.3)           # mean / (sd/√N) = 1.96
    y = np.column_stack([0.5 + d / 2, 0.5 - d / 2])
    out = md.compare(_frame(y, [f"q{i:03d}" for i in range(100)]), options=dict(n_resamples=2000, seed=1))
    row, mc = out.iloc[0], out.attrs["mc_se"]
    assert row["test"].startswith("bootstrap sign test") and abs(row["p"] - 0.05) <= 2 * mc["p"][0]
    printed = with_code(out.attrs["notes"], "mc-near-boundary")
    assert len(printed) == 1 and f"p = {row['p']:.4f} ± {mc['p'][0]:.4f}" in printed[0]


# --------------------------------------------------------------------------------------------
# Obuchowski: the null-pooled variance (Yang et al. 2010) and the Wald form by name
# --------------------------------------------------------------------------------------------
def test_obuchowski_pools_the_variance_under_the_null_and_offers_the_wald_form():
    import statsmodels.api as sm

    b, c, n = np.array([4, 3, 2, 6]), np.array([1, 0, 2, 1]), np.array([10, 12, 9, 15])
    # null-pooled, by hand: D = (3, 3, 0, 5), ΣD = 11, ΣD² = 43: 3/4 · 121/43
    assert md.clustered_mcnemar(b, c).statistic == pytest.approx(0.75 * 121 / 43)
    # Wald form: the CR1 t² of the mean difference (statsmodels' cluster-robust OLS on the queries)
    d = np.concatenate([np.r_[np.ones(bg), -np.ones(cg), np.zeros(ng - bg - cg)] for bg, cg, ng in zip(b, c, n)])
    groups = np.repeat(np.arange(4), n)
    fit = sm.OLS(d, np.ones((len(d), 1))).fit(cov_type="cluster", cov_kwds={"groups": groups})
    # statsmodels' small-sample factor G/(G − 1)·(N − 1)/(N − K) is G/(G − 1) with K = 1, as the Wald form's
    t2 = float(fit.tvalues[0]) ** 2
    wald = md.clustered_mcnemar(b, c, n, method="obuchowski-wald").statistic
    assert wald == pytest.approx(t2, rel=1e-10)
    assert wald > md.clustered_mcnemar(b, c).statistic
    with pytest.raises(ValueError, match="needs n"):
        md.clustered_mcnemar(b, c, method="obuchowski-wald")


def test_clusters_unknown_warning_is_the_first_note_of_the_cli_output(tmp_path):
    y, _ = _clustered(6, [20] * 10)
    df = _frame(y, [f"q{i}" for i in range(200)]).assign(category="single-hop")
    path = tmp_path / "verdicts.csv"
    df.to_csv(path, index=False)
    code, out, _ = _run("compare", str(path), "--scheme", "locomo", "--resamples", "200")
    notes = [line for line in out.splitlines() if line.startswith(("warning:", "caution:", "note:"))]
    assert code == 0 and notes[0].startswith("warning: no clusters: locomo is a clustered benchmark")


def test_dataframe_only_diagnostics_take_cluster_missing():
    df, _ = _one_unlabelled()
    calls = {
        "sensitivity": lambda **kw: md.sensitivity(md.prepare(df.replace({"system": {"mem": "k=1", "rag": "k=2"}}),
                                                              **kw), parameter="k", default=2,
                                                   options={"n_resamples": 200}),
        "missing_verdict_bounds": lambda **kw: md.missing_verdict_bounds(
            md.prepare(df.assign(score=df["score"].where(df.index != 0)), **kw), reference="rag",
            options={"n_resamples": 200}),
        "attribute_change": lambda **kw: md.attribute_change(md.prepare(df[df["system"] == "rag"], **kw),
                                                             df[df["system"] == "mem"].assign(system="rag"), ["q001"],
                                                             options={"n_resamples": 200}),
    }
    for name, call in calls.items():
        with pytest.raises(VerdictError, match=r"q017.*cluster_missing='own' \(--cluster-missing own\)"):
            call()
        out = call(cluster_missing="own")
        assert out.attrs["n_clusters"] == 11 if "n_clusters" in out.attrs else True, name
        assert any("cluster missing own: 1 of 400" in n for n in out.attrs["notes"]) or name == "attribute_change", name
