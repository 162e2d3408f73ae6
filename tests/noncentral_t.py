"""The power and detectable effect of a two-sided t test written out with scipy (an oracle for the
design's t test of SPEC §4.1): P(|T| > t_{1−α/2, df}) with T noncentral t(df, δ/se), and the δ
that gives a power."""

from __future__ import annotations

from scipy import optimize, stats


def t_power(delta: float, se: float, df: float, alpha: float = 0.05) -> float:
    """P(T > t) + P(T < −t), T ~ noncentral t(df, δ/se), t = t_{1−α/2, df}; the lower tail as
    P(T' > t) for T' ~ noncentral t(df, −δ/se), since scipy's cdf is NaN far in that tail."""
    t, nc = stats.t.isf(alpha / 2, df), delta / se
    return float(stats.nct.sf(t, df, nc) + stats.nct.sf(t, df, -nc))


def t_detectable(se: float, df: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """The δ ≥ 0 whose :func:`t_power` is ``power`` (Brent's root between 0 and 20·se)."""
    return float(optimize.brentq(lambda d: t_power(d, se, df, alpha) - power, 0.0, 20 * se, xtol=1e-12 * se))
