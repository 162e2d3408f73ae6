"""Exact tests and multiplicity (memdiag.engine.inference) against statsmodels/scipy and by hand."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.contingency_tables import cochrans_q as sm_cochrans_q
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.multitest import multipletests

import memdiag as md

GRID = sorted(set(range(0, 26)) | {40, 57, 100, 250, 999})
PAIRS = [(b, c) for b in GRID for c in GRID]


# ---------------------------------------------------------------------------------- McNemar
def test_exact_mcnemar_matches_statsmodels_over_grid_including_zero_discordant_and_ties():
    for b, c in PAIRS:
        ours = md.mcnemar(benefit=b, tax=c)
        ref = sm_mcnemar(np.array([[7, b], [c, 3]]), exact=True)
        assert ours.p_value == pytest.approx(float(ref.pvalue), abs=1e-12, rel=1e-12), (b, c)
        assert ours.statistic == float(ref.statistic)
        assert (ours.benefit, ours.tax, ours.n_discordant, ours.method) == (b, c, b + c, "exact")


@pytest.mark.parametrize("method, correction, reported", [("asymptotic-cc", True, "chi2-corrected"),
                                                           ("asymptotic", False, "chi2")])
def test_asymptotic_mcnemar_matches_statsmodels(method, correction, reported):
    for b, c in PAIRS:
        if b + c == 0:
            continue  # statsmodels gives 0/0 = nan there; memdiag's convention is tested below
        ours = md.mcnemar(benefit=b, tax=c, method=method)
        ref = sm_mcnemar(np.array([[0, b], [c, 0]]), exact=False, correction=correction)
        assert ours.statistic == pytest.approx(float(ref.statistic), abs=1e-12)
        assert ours.p_value == pytest.approx(float(ref.pvalue), abs=1e-12)
        assert ours.method == reported


def _mid_p_by_hand(b: int, c: int) -> float:
    """2 * (sum_{i<k} C(n,i) + C(n,k)/2) / 2^n with exact fractions, capped at 1."""
    n, k = b + c, min(b, c)
    if n == 0:
        return 1.0
    tail = sum(Fraction(math.comb(n, i)) for i in range(k)) + Fraction(math.comb(n, k), 2)
    return float(min(Fraction(1), 2 * tail / 2**n))


def test_mid_p_mcnemar_matches_hand_formula():
    for b, c in PAIRS:
        result = md.mcnemar(benefit=b, tax=c, method="mid-p")
        assert result.p_value == pytest.approx(_mid_p_by_hand(b, c), abs=1e-12), (b, c)
        assert result.method == "mid-p"


def test_mcnemar_hand_worked_case():
    # b = 12, c = 4, n = 16: P(X <= 4) = (1 + 16 + 120 + 560 + 1820) / 65536 = 2517 / 65536,
    # exact p = 2 * 2517 / 65536 = 0.0768127...; mid-p = 2 * (2517 - 1820/2) / 65536 = 0.0490417...
    assert md.mcnemar(benefit=12, tax=4).p_value == pytest.approx(2 * 2517 / 65536, abs=1e-15)
    assert md.mcnemar(benefit=12, tax=4, method="mid-p").p_value == pytest.approx(2 * 1607 / 65536, abs=1e-15)
    # symmetric in the counts, which only name the direction
    assert md.mcnemar(benefit=4, tax=12).p_value == md.mcnemar(benefit=12, tax=4).p_value


def test_mcnemar_with_no_discordant_pair_has_p_one_for_every_method():
    for method in ("exact", "mid-p", "asymptotic", "asymptotic-cc"):
        res = md.mcnemar(benefit=0, tax=0, method=method)
        assert res.p_value == 1.0 and res.n_discordant == 0


def test_mcnemar_counts_are_keyword_only_and_validated():
    with pytest.raises(TypeError):
        md.mcnemar(12, 4)  # positional cells could be swapped silently: refused
    for bad in (-1, 2.5, float("nan")):
        with pytest.raises(ValueError):
            md.mcnemar(benefit=bad, tax=3)
    with pytest.raises(TypeError):
        md.mcnemar(benefit=True, tax=3)
    with pytest.raises(ValueError, match="method must be one of 'exact', 'mid-p', 'asymptotic', 'asymptotic-cc'"):
        md.mcnemar(benefit=3, tax=1, method="chi2")
    assert md.mcnemar(benefit=np.int64(5), tax=2.0).benefit == 5


def test_mcnemar_from_outcomes_counts_benefit_and_tax_by_hand():
    # query:     1  2  3  4  5  6  7
    # reference: 1  1  0  0  1  0  1
    # system:    1  0  1  1  1  0  0   -> benefit = queries 3, 4 (2); tax = queries 2, 7 (2)
    res = md.mcnemar(reference=[1, 1, 0, 0, 1, 0, 1], system=[1, 0, 1, 1, 1, 0, 0])
    assert (res.benefit, res.tax, res.p_value) == (2, 2, 1.0)
    res = md.mcnemar(reference=np.array([True, False]), system=np.array([False, True]))
    assert (res.benefit, res.tax) == (1, 1)


@pytest.mark.parametrize("reference, system, match", [
    ([1, 0, 1], [1, 0], "same queries"),
    ([1, 0, 2], [1, 0, 1], "0/1"),
    ([1, 0, np.nan], [1, 0, 1], "0/1"),
    ([[1, 0]], [[1, 0]], "1-D"),
    (["a", "b"], [1, 0], "0/1"),
])
def test_mcnemar_from_outcomes_rejects_bad_input(reference, system, match):
    with pytest.raises(ValueError, match=match):
        md.mcnemar(reference=reference, system=system)


def test_one_mcnemar_entry_point_and_the_removed_names_are_gone():
    ref, sysm = [1, 1, 0, 0, 1, 0, 1, 0, 0], [1, 0, 1, 1, 1, 0, 0, 1, 1]
    # 0.3's mcnemar_from_outcomes, mcnemar(correction=) and the booleans exact/mid_p/continuity went in 0.4
    assert not hasattr(md, "mcnemar_from_outcomes")
    for removed in ({"correction": True}, {"exact": False}, {"mid_p": True}, {"continuity": False}):
        with pytest.raises(TypeError, match=next(iter(removed))):
            md.mcnemar(benefit=9, tax=3, **removed)
    assert md.mcnemar(reference=ref, system=sysm) == md.mcnemar(benefit=4, tax=2)
    assert md.mcnemar(benefit=9, tax=3, method="asymptotic").statistic == pytest.approx(36 / 12)   # (9 − 3)²/12
    for bad in ({}, {"benefit": 1}, {"benefit": 1, "tax": 2, "reference": [1], "system": [0]}):
        with pytest.raises(TypeError, match="either the counts"):
            md.mcnemar(**bad)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), min_size=1, max_size=200))
def test_benefit_minus_tax_is_n_times_accuracy_difference(pairs):
    ref, sysm = (np.array(v) for v in zip(*pairs))
    res = md.mcnemar(reference=ref, system=sysm)
    assert res.benefit - res.tax == pytest.approx(len(ref) * (sysm.mean() - ref.mean()), abs=1e-9)


# ---------------------------------------------------------------------------------- Cochran's Q
def test_cochrans_q_matches_statsmodels_on_random_matrices():
    rng = np.random.default_rng(7)
    for n, k, p in itertools.product([5, 30, 400], [3, 4, 7], [0.2, 0.5, 0.9]):
        x = (rng.random((n, k)) < p).astype(int)
        rows = x.sum(axis=1)
        if np.all((rows == 0) | (rows == k)):
            continue
        ours = md.cochrans_q(x)
        ref = sm_cochrans_q(x)
        assert ours.statistic == pytest.approx(float(ref.statistic), abs=1e-12)
        assert ours.p_value == pytest.approx(float(ref.pvalue), abs=1e-12)
        assert (ours.df, ours.n, ours.k) == (k - 1, n, k)


def test_cochrans_q_hand_worked_case():
    # columns C = (5, 3, 1), T = 9; rows R = (2, 1, 3, 0, 1, 2), sum R^2 = 19;
    # Q = (k-1)(k sum C^2 - T^2) / (k T - sum R^2) = 2 (3*35 - 81) / (27 - 19) = 6; p = exp(-3)
    m = [[1, 1, 0], [1, 0, 0], [1, 1, 1], [0, 0, 0], [1, 0, 0], [1, 1, 0]]
    res = md.cochrans_q(m)
    assert res.statistic == pytest.approx(6.0, abs=1e-12)
    assert res.p_value == pytest.approx(math.exp(-3), abs=1e-12)


def test_cochrans_q_without_discordant_rows_reports_no_evidence():
    res = md.cochrans_q([[1, 1, 1], [0, 0, 0], [1, 1, 1]])
    assert (res.statistic, res.p_value, res.df) == (0.0, 1.0, 2)


@pytest.mark.parametrize("matrix, match", [
    ([[1, 0], [0, 1]], "k >= 3"),
    ([1, 0, 1], r"\(N, k\)"),
    ([[1, 0, 2]], "0/1"),
    (np.zeros((0, 3)), "no query"),
])
def test_cochrans_q_rejects_bad_input(matrix, match):
    with pytest.raises(ValueError, match=match):
        md.cochrans_q(matrix)


# ---------------------------------------------------------------------------------- adjust
P_FAMILIES = [
    [0.01, 0.04, 0.03],
    [0.05, 0.05, 0.05, 0.05],                         # all tied
    [0.0, 1.0, 0.5, 0.5, 0.001],                      # the edges, ties
    list(np.random.default_rng(3).uniform(size=21)),  # 21 pairs of 7 systems (C.6)
    list(np.random.default_rng(4).uniform(size=21) ** 4),
    [0.2],
]


@pytest.mark.parametrize("method", ["holm", "bonferroni", "fdr_bh"])
def test_adjust_matches_statsmodels_multipletests(method):
    for p in P_FAMILIES:
        expected = multipletests(p, method=method)[1]
        np.testing.assert_allclose(md.adjust(p, method=method), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("method", ["holm", "bonferroni", "fdr_bh"])
def test_adjust_matches_statsmodels_on_10000_random_families(method, monkeypatch):
    # statsmodels' multipletests runs gc.collect() on every call; switched off here, not in memdiag
    import gc

    monkeypatch.setattr(gc, "collect", lambda *args: 0)
    rng = np.random.default_rng(20261201)
    for _ in range(10_000):
        m = int(rng.integers(1, 40))
        p = rng.uniform(size=m) ** rng.uniform(0.2, 4.0)
        if m > 2 and rng.random() < 0.3:  # ties, and the edges 0 and 1
            p[rng.integers(0, m, 2)] = p[0]
            p[rng.integers(0, m)] = rng.choice([0.0, 1.0])
        np.testing.assert_allclose(md.adjust(p, method=method), multipletests(p, method=method)[1],
                                   rtol=0, atol=1e-14)


def test_adjust_defaults_to_holm_not_holm_sidak():
    p = [0.01, 0.02, 0.03, 0.04]
    np.testing.assert_allclose(md.adjust(p), multipletests(p, method="holm")[1], atol=1e-15)
    assert not np.allclose(md.adjust(p), multipletests(p)[1], atol=1e-6)  # statsmodels' default "hs"


def test_adjust_holm_hand_worked_case():
    # sorted 0.01, 0.03, 0.04 -> 3*0.01 = 0.03, 2*0.03 = 0.06, max(0.06, 1*0.04) = 0.06
    np.testing.assert_allclose(md.adjust([0.01, 0.04, 0.03]), [0.03, 0.06, 0.06], atol=1e-15)


def test_adjust_keeps_nan_and_adjusts_over_the_rest():
    p = np.array([[0.01, np.nan], [0.04, 0.03]])
    out = md.adjust(p, method="holm")
    assert out.shape == p.shape and np.isnan(out[0, 1])
    np.testing.assert_allclose(out[~np.isnan(p)], multipletests([0.01, 0.04, 0.03], method="holm")[1])
    assert np.isnan(md.adjust([np.nan, np.nan])).all()


def test_adjust_rejects_unknown_method_and_out_of_range_p():
    with pytest.raises(ValueError, match="unknown correction"):
        md.adjust([0.1], method="hs")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        md.adjust([0.1, 1.2])
