"""Exact tests on paired binary outcomes: exact and mid-p McNemar, Cochran's Q (SPEC §5; Raw-RAG paper C.6).

Thin, validated wrappers: the probabilities come from ``scipy.stats.binom`` and
``statsmodels.stats.contingency_tables.cochrans_q``; this module adds the naming that guards
against swapped cells, input checks with clear messages, the conventions for degenerate tables,
and small frozen result objects.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from scipy import stats

from memdiag.engine.pairs import binary_outcomes

__all__ = ["MCNEMAR_METHODS", "CochransQResult", "McNemarResult", "cochrans_q", "exact_p_value", "mcnemar"]


@dataclass(frozen=True)
class McNemarResult:
    """Result of :func:`mcnemar`.

    Attributes
    ----------
    statistic
        ``min(benefit, tax)`` for the exact and mid-p tests (as statsmodels); the chi-square
        statistic for the asymptotic test.
    p_value
        Two-sided p-value.
    benefit, tax
        The discordant counts: reference wrong & system right; reference right & system wrong.
    n_discordant
        ``benefit + tax``, the number of queries the test rests on.
    method
        ``"exact"``, ``"mid-p"``, ``"chi2"`` or ``"chi2-corrected"``.
    """

    statistic: float
    p_value: float
    benefit: int
    tax: int
    n_discordant: int
    method: str


@dataclass(frozen=True)
class CochransQResult:
    """Result of :func:`cochrans_q`: ``statistic``, ``df`` = k − 1, ``p_value``; shape ``n``, ``k``."""

    statistic: float
    df: int
    p_value: float
    n: int
    k: int


def _count(value: object, name: str) -> int:
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a count, got the boolean {value!r}.")
    if isinstance(value, numbers.Integral):
        out = int(value)
    elif isinstance(value, numbers.Real) and float(value).is_integer():
        out = int(value)
    else:
        raise ValueError(f"{name} must be a whole-number count, got {value!r}.")
    if out < 0:
        raise ValueError(f"{name} must be a non-negative count, got {out}.")
    return out


def exact_p_value(k: object, n: object, mid_p: bool = False) -> np.ndarray:
    """Two-sided exact (or mid-p) McNemar p-value of min(b, c) = k among n = b + c > 0 discordant pairs.

    The one place the exact test's p-value is computed: :func:`mcnemar` calls it on one table,
    :func:`memdiag.engine.inference.power.mcnemar_power` on whole arrays of k and n to find where the
    test rejects. Arguments broadcast as numpy arrays.

    Notes
    -----
    p = min(1, 2·BinomCDF(k; n, ½)); mid-p: p = min(1, 2·[BinomCDF(k; n, ½) − ½·BinomPMF(k; n, ½)])
    (SPEC §5; Fagerland, Lydersen & Laake 2013 for the mid-p).

    Examples
    --------
    >>> exact_p_value([4, 3], 16).round(6).tolist()
    [0.076813, 0.021271]
    """
    cdf = stats.binom.cdf(k, n, 0.5)
    if mid_p:
        cdf = cdf - 0.5 * stats.binom.pmf(k, n, 0.5)
    return np.minimum(1.0, 2.0 * cdf)


#: The variants of :func:`mcnemar` -> the ``method`` its result reports.
MCNEMAR_METHODS: dict[str, str] = {"exact": "exact", "mid-p": "mid-p", "asymptotic": "chi2",
                                   "asymptotic-cc": "chi2-corrected"}


def mcnemar(*, benefit: int | None = None, tax: int | None = None, reference: object = None,
            system: object = None, method: str = "exact") -> McNemarResult:
    """McNemar's test of a paired binary difference, from its discordant counts or from the two
    outcome vectors (SPEC §5).

    The counts are keyword-only and named after SPEC §2's cells, so they cannot be swapped
    silently (the test is symmetric in them, but the reported direction is not).

    Parameters
    ----------
    benefit
        b: queries the reference got wrong and the system got right.
    tax
        c: queries the reference got right and the system got wrong.
    reference, system
        Instead of the counts: the reference's and the system's aligned 0/1 outcomes per query
        (1 = correct), same queries in the same order; b = #{reference 0, system 1},
        c = #{reference 1, system 0}.
    method
        ``"exact"`` (default): the exact binomial test; ``"mid-p"``: its mid-p variant (less
        conservative; not size-guaranteed); ``"asymptotic"``: the chi-square test;
        ``"asymptotic-cc"``: the chi-square test with the continuity correction.

    Returns
    -------
    McNemarResult
        ``statistic``, ``p_value`` (two-sided), the counts ``benefit``, ``tax``,
        ``n_discordant`` = b + c and the ``method`` (``exact``, ``mid-p``, ``chi2`` or
        ``chi2-corrected``: :data:`MCNEMAR_METHODS`).

    Raises
    ------
    TypeError
        A count given as a boolean; both counts and outcomes, or neither.
    ValueError
        A count that is negative or not a whole number; outcome vectors that are not 1-D, differ
        in length or hold a value other than 0/1 (NaN included); an unknown ``method``.

    Notes
    -----
    With n = b + c and k = min(b, c), under H0 the benefit count is Binomial(n, ½) given n:

    - exact: p = min(1, 2·BinomCDF(k; n, ½))  (as ``statsmodels.stats.contingency_tables.mcnemar
      (exact=True)``);
    - mid-p: p = min(1, 2·[BinomCDF(k; n, ½) − ½·BinomPMF(k; n, ½)]);
    - asymptotic-cc: X² = (|b − c| − 1)²/(b + c), df = 1; asymptotic: without the −1.

    When b + c = 0 there is no evidence either way: p = 1 (statistic 0), for every method.
    :func:`memdiag.clustered_mcnemar` is the test for queries that come in clusters, and
    :func:`~memdiag.audit.published.mcnemar_bounds` the audit of a published difference without per-query data.

    References
    ----------
    SPEC §5.1 (McNemar's test) and SPEC §2 (the cells benefit and tax); Raw-RAG paper C.6 (exact
    paired McNemar tests after Cochran's Q).
    McNemar, Q. (1947). Note on the sampling error of the difference between correlated
    proportions or percentages. Psychometrika 12(2), 153–157.
    Fagerland, M. W., Lydersen, S. & Laake, P. (2013). The McNemar test for binary matched-pairs
    data: mid-p and asymptotic are better than exact conditional. BMC Medical Research
    Methodology 13, 91.

    Examples
    --------
    >>> r = mcnemar(benefit=12, tax=4)
    >>> r.statistic, round(r.p_value, 6), r.n_discordant, r.method
    (4, 0.076813, 16, 'exact')
    >>> round(mcnemar(benefit=12, tax=4, method="mid-p").p_value, 6)
    0.049042
    >>> mcnemar(benefit=0, tax=0).p_value
    1.0
    >>> r = mcnemar(reference=[1, 1, 0, 0, 1, 0], system=[1, 0, 1, 1, 1, 1])
    >>> r.benefit, r.tax, round(r.p_value, 4)
    (3, 1, 0.625)
    """
    counts = benefit is not None or tax is not None
    outcomes = reference is not None or system is not None
    if counts == outcomes or (counts and (benefit is None or tax is None)) \
            or (outcomes and (reference is None or system is None)):
        raise TypeError("mcnemar() takes either the counts benefit= and tax= or the outcomes reference= and "
                        "system=, both of one pair.")
    if method not in MCNEMAR_METHODS:
        raise ValueError(f"method must be one of {', '.join(map(repr, MCNEMAR_METHODS))}, got {method!r}.")
    if outcomes:
        benefit, tax = _discordant(reference, system)
    b = _count(benefit, "benefit")
    c = _count(tax, "tax")
    n = b + c
    reported = MCNEMAR_METHODS[method]
    if method in ("exact", "mid-p"):
        k = min(b, c)
        if n == 0:
            return McNemarResult(0, 1.0, b, c, 0, reported)
        return McNemarResult(k, float(exact_p_value(k, n, method == "mid-p")), b, c, n, reported)
    if n == 0:
        return McNemarResult(0.0, 1.0, b, c, 0, reported)
    statistic = (abs(b - c) - int(method == "asymptotic-cc")) ** 2 / n
    return McNemarResult(float(statistic), float(stats.chi2.sf(statistic, 1)), b, c, n, reported)


def _discordant(reference: object, system: object) -> tuple[int, int]:
    """(benefit, tax) of two aligned 0/1 outcome vectors, checked."""
    ref = binary_outcomes(reference, "reference")
    sysm = binary_outcomes(system, "system")
    if ref.ndim != 1 or sysm.ndim != 1:
        raise ValueError(f"reference and system must be 1-D outcome vectors, got shapes {ref.shape} "
                         f"and {sysm.shape}.")
    if ref.shape != sysm.shape:
        raise ValueError(f"reference has {ref.size} outcomes and system {sysm.size}: they must be the "
                         "same queries in the same order (align the verdicts first).")
    return int(np.sum((ref == 0) & (sysm == 1))), int(np.sum((ref == 1) & (sysm == 0)))


def cochrans_q(matrix: object) -> CochransQResult:
    """Cochran's Q test that k ≥ 3 systems have the same accuracy on paired binary outcomes.

    Parameters
    ----------
    matrix
        ``(N, k)`` 0/1 outcomes: one row per query, one column per system.

    Returns
    -------
    CochransQResult
        ``statistic`` Q, ``df`` = k − 1, ``p_value`` (upper χ² tail) and the shape ``n``, ``k``.

    Raises
    ------
    ValueError
        Not 2-D, fewer than 3 systems (use :func:`mcnemar` for two), no query, a value other
        than 0/1.

    Notes
    -----
    With column totals C_j, row totals R_i and T = Σ R_i:
    Q = (k − 1)(k Σ_j C_j² − T²)/(k T − Σ_i R_i²), referred to χ² with k − 1 df
    (computed by ``statsmodels.stats.contingency_tables.cochrans_q``). When no row is
    discordant (every query all right or all wrong) the denominator is 0: there is no evidence
    of a difference and memdiag reports Q = 0, p = 1 (statsmodels returns NaN), the same
    convention as McNemar with b + c = 0.

    References
    ----------
    SPEC §5.2 (Cochran's Q); Raw-RAG paper C.6 (the omnibus for MemoryAgentBench coverage).
    Cochran, W. G. (1950). The comparison of percentages in matched samples. Biometrika 37,
    256–266.

    Examples
    --------
    >>> m = [[1, 1, 0], [1, 0, 0], [1, 1, 1], [0, 0, 0], [1, 0, 0], [1, 1, 0]]
    >>> r = cochrans_q(m)
    >>> round(r.statistic, 4), r.df, round(r.p_value, 4)
    (6.0, 2, 0.0498)
    """
    x = binary_outcomes(matrix, "matrix")
    if x.ndim != 2:
        raise ValueError(f"matrix must be (N, k): one row per query, one column per system; got shape "
                         f"{x.shape}.")
    n, k = x.shape
    if k < 3:
        raise ValueError(f"Cochran's Q needs k >= 3 systems (got {k}); for two systems use mcnemar().")
    if n == 0:
        raise ValueError("matrix has no query (row).")
    rows = x.sum(axis=1)
    if np.all((rows == 0) | (rows == k)):
        return CochransQResult(0.0, k - 1, 1.0, n, k)
    from statsmodels.stats.contingency_tables import cochrans_q as sm_cochrans_q

    res = sm_cochrans_q(x)
    return CochransQResult(float(res.statistic), int(res.df), float(res.pvalue), n, k)
