"""Fragility on a panel (memdiag.synthesis.fragility, SPEC §10.3): md.fragility, and its columns in audit_claims and
the leaderboard, against hand counts and brute-force refits over removed clusters."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import memdiag as md


def _frame(a, b, clusters):
    n = len(a)
    return pd.DataFrame({"system": ["mem"] * n + ["rag"] * n, "query_id": [f"q{i:03d}" for i in range(n)] * 2,
                         "score": list(a) + list(b), "cluster": list(clusters) * 2})


def test_hand_worked_flips_without_clusters():
    # 10 benefit, 0 tax, 5 concordant: exact p = 2·½¹⁰ = 0.00195. One flip: 10|1 p = .0117 or 9|0 .0039;
    # two: 10|2 .0386, 9|1 .0215, 8|0 .0078; three: 7|1 p = .0703 ≥ .05 → index 3
    a = [1] * 10 + [1, 1, 0, 0, 0]
    b = [0] * 10 + [1, 1, 0, 0, 0]
    df = _frame(a, b, ["x"] * 15).drop(columns="cluster")
    out = md.fragility(df).iloc[0]
    assert (out["benefit"], out["tax"], out["flips_sign"], out["flips_significance"]) == (10, 0, 10, 3)
    # the overturning table reported is the one with the largest p among the 3-flip tables (10|3: p = .0923)
    tables = [(10 + db, dc) for db in range(-3, 4) for dc in (3 - abs(db), abs(db) - 3) if dc >= 0]
    assert out["p_after_flips"] == pytest.approx(max(stats.binomtest(min(t), sum(t)).pvalue for t in tables))
    assert np.isnan(out["removal_sign"]) and out["removal_method"] == ""
    assert any(getattr(n, "code", "") == "fragility-no-clusters" for n in md.fragility(df).attrs["notes"])


def _jackknife_state(frame):
    """Cluster jackknife t interval of mem − rag, from the verdict rows (no memdiag code)."""
    wide = frame.pivot(index="query_id", columns="system", values="score")
    d = (wide["mem"] - wide["rag"]).groupby(frame.drop_duplicates("query_id").set_index("query_id")["cluster"])
    D, n = d.sum(), d.count()
    G = len(D)
    est = D.sum() / n.sum()
    loo = np.array([(D.sum() - D.iloc[g]) / (n.sum() - n.iloc[g]) for g in range(G)])
    half = stats.t.ppf(0.975, G - 1) * np.sqrt((G - 1) / G * np.sum((loo - loo.mean()) ** 2))
    return 1 if est - half > 0 else (-1 if est + half < 0 else 0), est


def test_removal_columns_match_brute_force_refits():
    rng = np.random.default_rng(4)
    for trial in range(6):
        G = 7
        clusters = np.repeat([f"c{g}" for g in range(G)], rng.integers(4, 12, G))
        p_mem = rng.uniform(0.4, 0.9, G)[pd.factorize(clusters)[0]]
        a = (rng.uniform(size=len(clusters)) < p_mem).astype(int)
        b = (rng.uniform(size=len(clusters)) < 0.5).astype(int)
        df = _frame(a, b, clusters)
        out = md.fragility(df).iloc[0]
        base, est = _jackknife_state(df)
        names = sorted(set(clusters))
        sign_k = 0 if est == 0 else None
        sig_k = None
        for k in range(1, G - 2):
            for drop in combinations(names, k):
                kept = df[~df["cluster"].isin(drop)]
                state, e = _jackknife_state(kept)
                if sign_k is None and e * np.sign(est) <= 0:       # a tie overturns "better"
                    sign_k = k
                if sig_k is None and state != base:
                    sig_k = k
            if sign_k is not None and sig_k is not None:
                break
        assert out["removal_significance"] == (sig_k if sig_k is not None else -1)
        assert out["removal_method"] == "exact"
        if sign_k is not None:
            assert out["removal_sign"] == sign_k


def test_audit_claims_and_leaderboard_carry_the_columns():
    df = md.simulate(n_queries=240, systems=("raw-rag", "mem", "zep"),
                     accuracy={"raw-rag": 0.5, "mem": 0.68, "zep": 0.62}, n_clusters=8, seed=2)
    claims = [{"id": "c1", "system_a": "mem", "system_b": "raw-rag", "direction": "greater"}]
    audit = md.audit_claims(df, claims, options=dict(n_resamples=500)).iloc[0]
    frag = md.fragility(df, reference="raw-rag").set_index("system_a").loc["mem"]
    for col in ("flips_sign", "flips_significance", "removal_sign", "removal_significance"):
        assert audit[col] == frag[col]
    board = md.leaderboard(df, options=dict(n_resamples=500)).set_index("system")
    top = board["estimate"].idxmax()
    # brute force: the fewest conversations whose removal lets another system tie or pass the top one
    wide = df.pivot(index="query_id", columns="system", values="score") > 0.5
    cl = df.drop_duplicates("query_id").set_index("query_id")["cluster"]
    sums = wide.groupby(cl).sum()
    want = next(k for k in range(1, 8) for drop in combinations(sums.index, k)
                if (lambda t: (t.drop(top) >= t[top]).any())(sums.drop(list(drop)).sum()))
    assert board.loc[top, "removal_rank1"] == want
    assert board.drop(top)["removal_rank1"].isna().all()


def test_real_trpc_long_context_vs_rag_fragility(real_data):
    root = real_data / "trpc-group__trpc-agent-go" / "data_nohistory_gpt4omini"
    df = pd.concat([md.read_verdicts(root / s / "results.json") for s in ("long_context", "rag_observation_mysql")])
    out = md.fragility(md.prepare(df, scheme="locomo")).iloc[0]
    wide = df[df["category"] != "adversarial"].pivot(index="query_id", columns="system", values="score") > 0.5
    lc, rag = wide["long_context"], wide["rag_observation_mysql"]
    assert (out["benefit"], out["tax"]) == (int((lc & ~rag).sum()), int((~lc & rag).sum()))
    assert out["flips_sign"] == abs(out["benefit"] - out["tax"]) and out["n_clusters"] == 10
    # ten conversations: removal of the k largest per-conversation differences first (sign), checked by brute force
    cl = df.drop_duplicates("query_id").set_index("query_id")["cluster"].reindex(wide.index)
    D = (lc.astype(int) - rag.astype(int)).groupby(cl).sum()
    want = next((k for k in range(1, 10) for drop in combinations(D.index, k) if D.drop(list(drop)).sum() <= 0), -1)
    assert out["removal_sign"] == want and out["removal_method"] == "exact"


def test_holm_within_matches_statsmodels(no_gc_collect):
    from statsmodels.stats.multitest import multipletests

    from memdiag.engine.inference.fragility import holm_within
    rng = np.random.default_rng(1)
    for _ in range(25):          # multipletests runs gc.collect() on every call
        others = rng.uniform(0, 0.2, int(rng.integers(0, 5)))
        p = float(rng.uniform(0, 0.2))
        assert holm_within([p], others)[0] == pytest.approx(multipletests([p, *others], method="holm")[1][0])


def test_leaderboard_tier_flips_match_brute_force_under_iid():
    # Holm by md.adjust (itself checked against statsmodels; multipletests runs gc.collect per call)
    df = md.simulate(n_queries=300, systems=("raw-rag", "mem", "zep", "m3"),
                     accuracy={"raw-rag": 0.55, "mem": 0.7, "zep": 0.64, "m3": 0.6}, seed=1)
    board = md.leaderboard(df, options=dict(design="iid", n_resamples=500)).set_index("system")
    leader = board["estimate"].idxmax()
    wide = df.pivot(index="query_id", columns="system", values="score") > 0.5
    others = [s for s in wide.columns if s != leader]

    def p_of(b, c):   # exact McNemar: 2·BinomCDF(min(b, c); b + c, ½), capped at 1
        return min(1.0, 2 * stats.binom.cdf(min(b, c), b + c, 0.5)) if b + c else 1.0
    raw = {s: p_of(int((wide[s] & ~wide[leader]).sum()), int((~wide[s] & wide[leader]).sum())) for s in others}
    for s in others:
        if board.loc[s, "leader"] != leader:
            continue
        b0, c0 = int((wide[s] & ~wide[leader]).sum()), int((~wide[s] & wide[leader]).sum())
        rest = [raw[o] for o in others if o != s]

        def tied(b, c):
            return md.adjust([p_of(b, c), *rest], method="holm")[0] > 0.05
        base, conc = tied(b0, c0), 300 - b0 - c0
        want = next(k for k in range(1, 300) for db in range(-k, k + 1) for dc in {k - abs(db), abs(db) - k}
                    if b0 + db >= 0 and c0 + dc >= 0 and max(db, 0) + max(dc, 0) <= conc + max(-db, 0) + max(-dc, 0)
                    and tied(b0 + db, c0 + dc) != base)
        assert board.loc[s, "flips_tier"] == want
    assert md.leaderboard(df, options=dict(n_resamples=500))["flips_tier"].isna().all()      # cluster design: not computed


def test_report_says_how_fragile_the_claims_and_the_first_place_are(tmp_path):
    df = md.simulate(n_queries=200, systems=("raw-rag", "mem"), accuracy={"raw-rag": 0.5, "mem": 0.7},
                     n_clusters=8, sufficiency=False, costs=False, seed=3)
    claims = [{"id": "mem-wins", "system_a": "mem", "system_b": "raw-rag", "direction": "greater"}]
    md.report(df, reference="raw-rag", out=tmp_path / "r", claims=claims, progress=False,
              options=dict(n_resamples=1000))
    text = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    audit = md.audit_claims(df, claims, options=dict(n_resamples=1000)).iloc[0]
    assert audit["verdict"] == "supported"
    k = int(audit["flips_significance"])
    assert f"The most fragile supported claim, mem-wins, loses significance after {k} verdict flips" in text
    board = md.leaderboard(df, options=dict(n_resamples=1000))
    top = board[board["removal_rank1"].notna()].iloc[0]
    k = int(top["removal_rank1"])
    if k < 0:       # mem wins in every conversation here: no removal leaves raw-rag level with it
        assert f"No removal of clusters lets another system tie {top['system']}" in text
    else:
        assert f"Removing {k} cluster" in text and f"tie or pass {top['system']}" in text
    wide = df.pivot(index="query_id", columns="system", values="score")
    per = (wide["mem"] - wide["raw-rag"]).groupby(df.drop_duplicates("query_id").set_index("query_id")["cluster"]).sum()
    # no removal works exactly when mem is ahead in every conversation (keeping any one conversation keeps it ahead)
    assert (k < 0) == bool((per > 0).all())


def test_threshold_and_budget_have_their_effect():
    # graded scores: 0.4 counts as correct at threshold 0.3, not at the default 0.5
    a = [0.4] * 6 + [1.0] * 4 + [0.0] * 10
    b = [0.0] * 6 + [1.0] * 4 + [0.0] * 10
    df = _frame(a, b, [f"c{i % 5}" for i in range(20)])
    assert md.fragility(df)["benefit"].iloc[0] == 0
    assert md.fragility(md.prepare(df, threshold=0.3))["benefit"].iloc[0] == 6
    sim = md.simulate(n_queries=400, systems=("raw-rag", "mem"), accuracy={"raw-rag": 0.55, "mem": 0.62}, seed=5)
    assert md.fragility(sim, max_subsets=10)["removal_method"].iloc[0] == "amip"       # C(30, 1) = 30 > 10


def test_coverage_claims_count_the_sufficiency_labels_not_the_scores():
    # the scores are equal (no accuracy difference at all); the sufficiency labels differ: 9 benefit, 1 tax
    rng = np.random.default_rng(8)
    n = 40
    score = rng.integers(0, 2, n)
    cov_a = np.r_[[1] * 9, [0], [1] * 15, [0] * 15]
    cov_b = np.r_[[0] * 9, [1], [1] * 15, [0] * 15]
    clusters = [f"c{i % 5}" for i in range(n)]
    df = _frame(score, score, clusters).assign(sufficient=list(cov_a) + list(cov_b))
    frag = md.fragility(df, metric="coverage").iloc[0]
    assert (frag["benefit"], frag["tax"], frag["flips_sign"]) == (9, 1, 8)
    D = pd.Series(cov_a - cov_b).groupby(clusters).sum()
    want = next(k for k in range(1, 5) for drop in combinations(D.index, k) if D.drop(list(drop)).sum() <= 0)
    assert frag["removal_sign"] == want
    assert md.fragility(df).iloc[0]["flips_sign"] == 0            # accuracy: no difference to overturn
    claims = [{"id": "cov", "system_a": "mem", "system_b": "rag", "direction": "greater", "metric": "coverage"}]
    audit = md.audit_claims(df, claims, options=dict(n_resamples=200)).iloc[0]
    for col in ("flips_sign", "flips_significance", "removal_sign", "removal_significance"):
        assert audit[col] == frag[col], col


def test_a_continuous_metric_gets_removals_but_no_flips():
    rng = np.random.default_rng(3)
    n = 60
    clusters = [f"c{i % 6}" for i in range(n)]
    f1_a, f1_b = rng.uniform(0.3, 1.0, n), rng.uniform(0.0, 0.8, n)
    df = _frame(rng.integers(0, 2, n), rng.integers(0, 2, n), clusters).assign(f1=list(f1_a) + list(f1_b))
    out = md.fragility(df, metric="f1")
    row = out.iloc[0]
    assert np.isnan(row["flips_sign"]) and np.isnan(row["benefit"])
    assert row["diff"] == pytest.approx(100 * (f1_a.mean() - f1_b.mean()))
    D = pd.Series(f1_a - f1_b).groupby(clusters).sum()
    want = next((k for k in range(1, 6) for drop in combinations(D.index, k) if D.drop(list(drop)).sum() <= 0), -1)
    assert row["removal_sign"] == want
    assert "fragility-no-flips" in [n.code for n in out.attrs["notes"] if hasattr(n, "code")]
    board = md.leaderboard(df, metric="f1", options=dict(n_resamples=200)).set_index("system")
    assert board.loc["mem", "removal_rank1"] == want      # two systems: taking first place is the sign
    with pytest.raises(md.VerdictError, match="ratio"):
        md.fragility(df.assign(sufficient=1), metric="utilization")
