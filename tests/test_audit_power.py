"""Exact McNemar power and detectable effect against brute-force simulation and statsmodels."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

import memdiag as md


def _simulated_power(n: int, p_benefit: float, p_tax: float, alpha: float, draws: int, seed: int) -> float:
    """Brute force: draw the 2x2 table, run statsmodels' exact McNemar test, count rejections."""
    rng = np.random.default_rng(seed)
    tables = rng.multinomial(n, [p_benefit, p_tax, 1 - p_benefit - p_tax], size=draws)
    p_values: dict[tuple[int, int], float] = {}
    rejected = 0
    for b, c, _ in tables:
        if (b, c) not in p_values:
            p_values[b, c] = sm_mcnemar([[0, b], [c, 0]], exact=True).pvalue if b + c else 1.0
        rejected += p_values[b, c] <= alpha
    return rejected / draws


@pytest.mark.parametrize("n, p_benefit, p_tax, alpha", [
    (200, 0.12, 0.05, 0.05),
    (500, 0.10, 0.05, 0.05),
    (1540, 0.09, 0.08, 0.05),
    (60, 0.20, 0.05, 0.01),
])
def test_mcnemar_power_matches_brute_force_simulation(n, p_benefit, p_tax, alpha):
    draws = 20_000
    exact = md.mcnemar_power(n, p_benefit, p_tax, alpha=alpha)
    simulated = _simulated_power(n, p_benefit, p_tax, alpha, draws, seed=n)
    mc_error = math.sqrt(exact * (1 - exact) / draws)
    assert abs(simulated - exact) < 4 * mc_error + 1e-12


def test_detectable_effect_has_the_target_power_in_simulation():
    n, psi = 1_000, 0.25
    delta = md.detectable_effect(n, psi, alpha=0.05, power=0.8)
    assert md.mcnemar_power(n, (psi + delta) / 2, (psi - delta) / 2) == pytest.approx(0.8, abs=1e-8)
    draws = 20_000
    simulated = _simulated_power(n, (psi + delta) / 2, (psi - delta) / 2, 0.05, draws, seed=7)
    assert abs(simulated - 0.8) < 4 * math.sqrt(0.8 * 0.2 / draws)
    # a smaller difference has less power, a larger one more
    assert md.mcnemar_power(n, (psi + 0.8 * delta) / 2, (psi - 0.8 * delta) / 2) < 0.8
    assert md.mcnemar_power(n, (psi + 1.2 * delta) / 2, (psi - 1.2 * delta) / 2) > 0.8


def test_detectable_effect_is_close_to_the_normal_approximation_for_large_n():
    n, psi = 20_000, 0.2
    approx = (stats.norm.isf(0.025) + stats.norm.ppf(0.8)) * math.sqrt(psi / n)
    assert md.detectable_effect(n, psi) == pytest.approx(approx, rel=0.03)


@pytest.mark.parametrize("method", ["exact", "mid-p"])
def test_power_counts_exactly_the_tables_where_memdiags_mcnemar_rejects(method):
    # Every query discordant (p_benefit + p_tax = 1): D = N, b ~ Binomial(N, 0.3), and the power is the
    # probability of the b where md.mcnemar itself rejects, both tails, each b's probability from scipy.
    for n in range(1, 80):
        b = np.arange(n + 1)
        p = np.array([md.mcnemar(benefit=int(k), tax=int(n - k), method=method).p_value for k in b])
        for alpha in (0.05, 0.01):
            expected = stats.binom.pmf(b, n, 0.3)[p <= alpha].sum()
            power = md.mcnemar_power(n, 0.3, 0.7, alpha=alpha, method=method)
            assert power == pytest.approx(expected, rel=1e-9, abs=1e-13), (alpha, n)


def test_power_under_the_null_is_at_most_alpha_and_mid_p_is_more_powerful():
    assert md.mcnemar_power(300, 0.1, 0.1) <= 0.05
    assert md.mcnemar_power(300, 0.0, 0.0) == 0.0
    assert md.mcnemar_power(300, 0.12, 0.06, method="mid-p") > md.mcnemar_power(300, 0.12, 0.06)


def test_undetectable_or_invalid_settings():
    assert math.isnan(md.detectable_effect(10, 0.2))       # at most 2 discordant pairs: never significant
    assert math.isnan(md.detectable_effect(500, 0.0))
    with pytest.raises(ValueError, match="positive whole number"):
        md.mcnemar_power(0, 0.1, 0.1)
    with pytest.raises(ValueError, match="probabilities"):
        md.mcnemar_power(10, 0.7, 0.5)
    with pytest.raises(ValueError, match="exact"):
        md.mcnemar_power(10, 0.1, 0.1, method="wald")
