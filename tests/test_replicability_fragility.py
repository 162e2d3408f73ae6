"""Partial conjunction and the replicability count (SPEC §10.2) and fragility indices (SPEC §10.3):
hand-worked cases, Holm from statsmodels, scipy's exact tests and brute force on small cases."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from memdiag.engine.inference.fragility import (
    fisher_fragility,
    paired_fragility,
    removal_rank1,
    removal_sign,
    removal_significance,
    sign_fragility,
)
from memdiag.engine.inference.replicability import (
    one_sided,
    partial_conjunction,
    replicability_count,
)


def test_partial_conjunction_hand_worked():
    # p = (0.001, 0.01, 0.02, 0.04, 0.5), N = 5
    p = [0.04, 0.001, 0.5, 0.02, 0.01]
    # Bonferroni: u=1: 5·0.001 = 0.005; u=2: 4·0.01 = 0.04; u=3: 3·0.02 = 0.06; u=4: 2·0.04 = 0.08; u=5: 0.5
    assert partial_conjunction(p).tolist() == pytest.approx([0.005, 0.04, 0.06, 0.08, 0.5])
    # Simes u=3 over (0.02, 0.04, 0.5): min(3·0.02/1, 3·0.04/2, 3·0.5/3) = min(0.06, 0.06, 0.5) = 0.06
    # Simes u=2 over (0.01, 0.02, 0.04, 0.5): min(0.04, 0.04, 4·0.04/3 = 0.0533, 0.5) = 0.04
    assert partial_conjunction(p, method="simes")[1:3].tolist() == pytest.approx([0.04, 0.06])
    # Fisher u=4 over (0.04, 0.5): −2(log 0.04 + log 0.5) on χ²_4
    assert partial_conjunction(p, method="fisher")[3] == pytest.approx(
        stats.chi2.sf(-2 * (np.log(0.04) + np.log(0.5)), 4))
    assert replicability_count(p) == 2 and replicability_count(p, alpha=0.1) == 4
    assert replicability_count(p, method="fisher") >= replicability_count(p)


def test_replicability_count_stops_at_the_first_non_rejection():
    # Bonferroni p^{1/2} = 2·0.03 = 0.06 > .05 but p^{2/2} = 0.04 ≤ .05: the nested order stops at u = 1
    assert partial_conjunction([0.03, 0.04]).tolist() == pytest.approx([0.06, 0.04])
    assert replicability_count([0.03, 0.04]) == 0


def test_bonferroni_count_is_holms_number_of_rejections(no_gc_collect):
    rng = np.random.default_rng(11)
    for _ in range(40):          # multipletests runs gc.collect() on every call: keep the loop short
        n = int(rng.integers(1, 12))
        p = rng.uniform(0, 1, n) ** rng.uniform(0.5, 6)
        assert replicability_count(p) == int(multipletests(p, alpha=0.05, method="holm")[0].sum())


def test_one_sided_and_bad_input():
    assert one_sided([0.1, 0.1], [1.0, -1.0]).tolist() == [0.05, 0.95]
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        partial_conjunction([0.1, 1.2])
    with pytest.raises(ValueError, match="method"):
        partial_conjunction([0.1], method="stouffer")
    with pytest.raises(ValueError, match="alpha"):
        replicability_count([0.1], alpha=1.0)


def test_fisher_fragility_published_example():
    # 15/40 vs 5/40: p 0.0188 → (15/40 vs 6/40) 0.0406 → (15/40 vs 7/40) 0.0784, index 2
    index, path = fisher_fragility(15, 40, 5, 40)
    assert index == 2
    want = [stats.fisher_exact([[15, 25], [b, 40 - b]]).pvalue for b in (5, 6, 7)]
    assert path == pytest.approx(want) and [round(p, 4) for p in path] == [0.0188, 0.0406, 0.0784]
    assert fisher_fragility(5, 40, 15, 40)[0] == 2           # the arms swapped
    assert fisher_fragility(8, 40, 5, 40)[0] == -1           # not significant: no index


def _brute_paired(b0, c0, conc, alpha):
    """BFS over single verdict flips on explicit cells (b, c, concordant)."""
    def sig(b, c):
        return b + c > 0 and stats.binomtest(min(b, c), b + c).pvalue < alpha
    base = sig(b0, c0)
    frontier, seen = {(b0, c0, conc)}, {(b0, c0, conc)}
    for k in range(1, b0 + c0 + conc + 1):
        nxt = set()
        for b, c, m in frontier:
            for s in ((b - 1, c, m + 1), (b + 1, c, m - 1), (b, c - 1, m + 1), (b, c + 1, m - 1)):
                if min(s) >= 0 and s not in seen:
                    seen.add(s)
                    nxt.add(s)
        if any(sig(b, c) != base for b, c, _ in nxt):
            return k
        frontier = nxt
    return -1


@pytest.mark.parametrize("b, c, conc", [(13, 3, 84), (10, 0, 5), (6, 6, 20), (4, 0, 0), (20, 9, 3), (0, 0, 12),
                                        (9, 1, 1), (2, 1, 0)])
def test_paired_fragility_matches_brute_force(b, c, conc):
    k, b2, c2, p2 = paired_fragility(benefit=b, tax=c, n_concordant=conc)
    assert k == _brute_paired(b, c, conc, 0.05)
    if k > 0:
        assert abs(b2 - b) + abs(c2 - c) == k
        assert p2 == pytest.approx(stats.binomtest(min(b2, c2), b2 + c2).pvalue)


def test_sign_fragility():
    assert sign_fragility(benefit=12, tax=5) == 7 and sign_fragility(benefit=3, tax=3) == 0


def _brute_removal(d, n, condition):
    G = len(d)
    for k in range(0, G):
        for S in combinations(range(G), k):
            keep = np.array([g not in S for g in range(G)])
            if condition(np.asarray(d)[keep], np.asarray(n)[keep]):
                return k
    return -1


def test_removal_sign_and_rank1_match_brute_force():
    rng = np.random.default_rng(5)
    for _ in range(200):
        G = int(rng.integers(2, 8))
        n = rng.integers(1, 20, G)
        d = rng.integers(-6, 10, G).astype(float)
        want = _brute_removal(d, n, lambda dd, nn: dd.sum() / nn.sum() <= 0)
        assert removal_sign(d, n) == want
        S = rng.integers(0, 15, (3, G)).astype(float)
        lead = int(np.argmax(S.sum(axis=1)))

        def overturned(keep_idx):
            tot = S[:, keep_idx].sum(axis=1)
            return any(tot[j] >= tot[lead] for j in range(3) if j != lead)
        brute = next((k for k in range(G) for R in combinations(range(G), k)
                      if overturned([g for g in range(G) if g not in R])), -1)
        assert removal_rank1(S, n)[0] == brute


def _jack_state(d, n, level=0.95):
    """The cluster-jackknife t interval, written out plainly."""
    G = len(d)
    est = d.sum() / n.sum()
    loo = np.array([(d.sum() - d[g]) / (n.sum() - n[g]) for g in range(G)])
    se = np.sqrt((G - 1) / G * np.sum((loo - loo.mean()) ** 2))
    half = stats.t.ppf(1 - (1 - level) / 2, G - 1) * se
    return 1 if est - half > 0 else (-1 if est + half < 0 else 0)


def test_removal_significance_exact_matches_brute_force():
    rng = np.random.default_rng(9)
    checked = 0
    for _ in range(60):
        G = int(rng.integers(5, 10))
        n = rng.integers(3, 15, G).astype(float)
        d = rng.normal(1.0, 2.0, G) * n / 5
        base = _jack_state(d, n)
        want = next((k for k in range(1, G - 2) for S in combinations(range(G), k)
                     if _jack_state(np.delete(d, S), np.delete(n, S)) != base), -1)
        r = removal_significance(d, n)
        assert r.method == "exact" and r.k == want
        if want > 0:
            assert _jack_state(np.delete(d, list(r.removed)), np.delete(n, list(r.removed))) != base
            checked += 1
    assert checked > 20


def test_removal_significance_amip_is_verified_by_refit():
    rng = np.random.default_rng(2)
    G = 40
    n = rng.integers(5, 20, G).astype(float)
    d = rng.normal(0.4, 1.0, G) * n / 4
    r = removal_significance(d, n, max_subsets=1000)     # C(40, 2) = 780 ≤ 1000 < C(40, 3)
    assert r.method == "amip" and r.lower == 3 and r.k >= r.lower
    kept = np.delete(d, list(r.removed)), np.delete(n, list(r.removed))
    assert len(r.removed) == r.k and _jack_state(*kept) != _jack_state(d, n)
    # with the budget for exact search up to k, the exact answer is no larger than the AMIP one
    exact = removal_significance(d, n, max_subsets=10 ** 6)
    assert exact.k <= r.k


@pytest.mark.parametrize("method", ["bonferroni", "simes", "fisher"])
def test_the_count_overstates_the_true_number_rarely(method):
    # 6 independent settings, 2 with a real effect (z-test, effect 3.5), 4 nulls with uniform p (the
    # least favourable null: effect 0). The claim "at least û" is wrong when û > 2: its rate must stay ≤ α
    # (counting the settings with p < α would be wrong in about 1 − 0.95⁴ ≈ 19% of runs).
    rng = np.random.default_rng(8)
    reps, over = 3000, 0
    for _ in range(reps):
        z = rng.normal(0, 1, 6) + np.array([3.5, 3.5, 0, 0, 0, 0])
        over += replicability_count(stats.norm.sf(z), method=method) > 2
    assert stats.binomtest(over, reps, 0.05, alternative="greater").pvalue > 0.01
