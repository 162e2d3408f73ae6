"""Exact and mid-p McNemar, Cochran's Q and multiplicity adjustment (SPEC §5; Raw-RAG paper C.6).

Thin, validated wrappers: the probabilities come from ``scipy.stats.binom`` and
``statsmodels`` (``contingency_tables.cochrans_q``, ``multitest.multipletests``); this module
adds the naming that guards against swapped cells, input checks with clear messages, the
conventions for degenerate tables, and small frozen result objects.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.contingency_tables import cochrans_q as _sm_cochrans_q
from statsmodels.stats.multitest import multipletests

__all__ = ["ADJUST_METHODS", "CochransQResult", "McNemarResult", "adjust", "binary_outcomes", "cell_indicators", "cochrans_q",
           "mcnemar", "mcnemar_from_outcomes", "oriented_pairs", "pairwise_matrix"]

#: Multiplicity corrections :func:`adjust` offers (statsmodels names).
ADJUST_METHODS = ("holm", "bonferroni", "fdr_bh")


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


def mcnemar(*, benefit: int, tax: int, exact: bool = True, mid_p: bool = False,
            correction: bool = True) -> McNemarResult:
    """McNemar's test of a paired binary difference from its discordant counts (SPEC §5).

    The counts are keyword-only and named after SPEC §2's cells, so they cannot be swapped
    silently (the test is symmetric in them, but the reported direction is not).

    Parameters
    ----------
    benefit
        b: queries the reference got wrong and the system got right.
    tax
        c: queries the reference got right and the system got wrong.
    exact
        Exact binomial test (default). ``False`` gives the asymptotic chi-square test.
    mid_p
        Mid-p variant of the exact test (less conservative; not size-guaranteed).
    correction
        Continuity correction of the asymptotic test (ignored when ``exact``).

    Returns
    -------
    McNemarResult

    Notes
    -----
    With n = b + c and k = min(b, c), under H0 the benefit count is Binomial(n, ½) given n:

    - exact: p = min(1, 2·BinomCDF(k; n, ½))  (as ``statsmodels.stats.contingency_tables.mcnemar
      (exact=True)``);
    - mid-p: p = min(1, 2·[BinomCDF(k; n, ½) − ½·BinomPMF(k; n, ½)]);
    - chi2: X² = (|b − c| − 1)²/(b + c) (without the −1 when ``correction=False``), df = 1.

    When b + c = 0 there is no evidence either way: p = 1 (statistic 0), for every method.
    Sources: SPEC §5; Raw-RAG paper C.6 (exact paired McNemar tests after Cochran's Q);
    Fagerland, Lydersen & Laake (2013), BMC Med Res Methodol 13:91, for the mid-p test.

    Examples
    --------
    >>> r = mcnemar(benefit=12, tax=4)
    >>> r.statistic, round(r.p_value, 6), r.n_discordant, r.method
    (4, 0.076813, 16, 'exact')
    >>> round(mcnemar(benefit=12, tax=4, mid_p=True).p_value, 6)
    0.049042
    >>> mcnemar(benefit=0, tax=0).p_value
    1.0
    """
    b = _count(benefit, "benefit")
    c = _count(tax, "tax")
    n = b + c
    if exact:
        method = "mid-p" if mid_p else "exact"
        k = min(b, c)
        if n == 0:
            return McNemarResult(0, 1.0, b, c, 0, method)
        cdf = float(stats.binom.cdf(k, n, 0.5))
        if mid_p:
            cdf -= 0.5 * float(stats.binom.pmf(k, n, 0.5))
        return McNemarResult(k, min(1.0, 2.0 * cdf), b, c, n, method)
    if mid_p:
        raise ValueError("mid_p applies to the exact test only; pass exact=True.")
    method = "chi2-corrected" if correction else "chi2"
    if n == 0:
        return McNemarResult(0.0, 1.0, b, c, 0, method)
    statistic = (abs(b - c) - int(correction)) ** 2 / n
    return McNemarResult(float(statistic), float(stats.chi2.sf(statistic, 1)), b, c, n, method)


def binary_outcomes(values: object, name: str) -> np.ndarray:
    """``values`` as 0/1 int64, or a ValueError naming ``name`` and the first entry that is not 0/1."""
    arr = np.asarray(values)
    if arr.dtype == bool:
        return arr.astype(np.int64)
    try:
        num = arr.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must hold 0/1 outcomes, got dtype {arr.dtype}.") from None
    ok = (num == 0) | (num == 1)
    if not np.all(ok):
        where = np.argwhere(~ok)[0]
        position = int(where[0]) if len(where) == 1 else tuple(int(i) for i in where)
        raise ValueError(f"{name} must hold 0/1 outcomes; entry {position} is {num[tuple(where)]!r}. "
                         "Binarize the scores first (SPEC §2: correct = score > 0.5); a missing "
                         "verdict needs a policy (align).")
    return num.astype(np.int64)


def cell_indicators(reference: np.ndarray, system: np.ndarray) -> np.ndarray:
    """Per-query one-hot cells of the paired 2x2 table, ``(N, 4)`` float in the order
    (both, benefit, tax, neither) = (a, b, c, d) of SPEC §2: reference and system right; only the
    system right; only the reference right; both wrong. Summed over queries they are the table.

    >>> cell_indicators(np.array([True, True, False]), np.array([True, False, True])).tolist()
    [[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0]]
    """
    r, m = np.asarray(reference, dtype=bool), np.asarray(system, dtype=bool)
    return np.stack([r & m, ~r & m, r & ~m, ~r & ~m], axis=1).astype(np.float64)


def mcnemar_from_outcomes(reference: object, system: object, *, exact: bool = True,
                          mid_p: bool = False, correction: bool = True) -> McNemarResult:
    """:func:`mcnemar` from two aligned 0/1 outcome vectors (reference first, then system).

    Raises
    ------
    ValueError
        Not 1-D, different lengths, or a value other than 0/1 (NaN included).

    Examples
    --------
    >>> r = mcnemar_from_outcomes([1, 1, 0, 0, 1, 0], [1, 0, 1, 1, 1, 1])
    >>> r.benefit, r.tax, round(r.p_value, 4)
    (3, 1, 0.625)
    """
    ref = binary_outcomes(reference, "reference")
    sysm = binary_outcomes(system, "system")
    if ref.ndim != 1 or sysm.ndim != 1:
        raise ValueError(f"reference and system must be 1-D outcome vectors, got shapes {ref.shape} "
                         f"and {sysm.shape}.")
    if ref.shape != sysm.shape:
        raise ValueError(f"reference has {ref.size} outcomes and system {sysm.size}: they must be the "
                         "same queries in the same order (align the verdicts first).")
    benefit = int(np.sum((ref == 0) & (sysm == 1)))
    tax = int(np.sum((ref == 1) & (sysm == 0)))
    return mcnemar(benefit=benefit, tax=tax, exact=exact, mid_p=mid_p, correction=correction)


def cochrans_q(matrix: object) -> CochransQResult:
    """Cochran's Q test that k ≥ 3 systems have the same accuracy on paired binary outcomes.

    Parameters
    ----------
    matrix
        ``(N, k)`` 0/1 outcomes: one row per query, one column per system.

    Returns
    -------
    CochransQResult

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
    convention as McNemar with b + c = 0. Sources: SPEC §5; Raw-RAG paper C.6 (MemoryAgentBench
    coverage omnibus).

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
    res = _sm_cochrans_q(x)
    return CochransQResult(float(res.statistic), int(res.df), float(res.pvalue), n, k)


def adjust(pvalues: object, method: str = "holm") -> np.ndarray:
    """Adjust a declared family of p-values for multiplicity (SPEC §5; C.6: Holm over 21 pairs).

    Parameters
    ----------
    pvalues
        The family's p-values, any shape; NaN for a comparison that has none.
    method
        ``"holm"`` (default: Holm's step-down, family-wise error), ``"bonferroni"`` or
        ``"fdr_bh"`` (Benjamini–Hochberg false discovery rate).

    Returns
    -------
    numpy.ndarray
        Adjusted p-values, same shape. NaN inputs stay NaN and are not counted in the family:
        the adjustment runs over the non-NaN values only.

    Raises
    ------
    ValueError
        Unknown method; a p-value outside [0, 1].

    Notes
    -----
    With m p-values sorted ascending, p_(1) ≤ … ≤ p_(m):

    - holm: p̃_(i) = max_{j ≤ i} min(1, (m − j + 1) p_(j));
    - bonferroni: p̃_i = min(1, m p_i);
    - fdr_bh: p̃_(i) = min_{j ≥ i} min(1, m p_(j)/j).

    Computed by ``statsmodels.stats.multitest.multipletests`` with the method passed explicitly
    (its own default is Holm–Šidák, not Holm).

    Examples
    --------
    >>> adjust([0.01, 0.04, 0.03, np.nan]).tolist()
    [0.03, 0.06, 0.06, nan]
    >>> adjust([0.01, 0.04, 0.03], method="fdr_bh").round(4).tolist()
    [0.03, 0.04, 0.04]
    """
    if method not in ADJUST_METHODS:
        raise ValueError(f"unknown correction {method!r}; use one of {', '.join(ADJUST_METHODS)}.")
    p = np.asarray(pvalues, dtype=np.float64)
    flat = p.ravel()
    present = ~np.isnan(flat)
    if np.any((flat[present] < 0) | (flat[present] > 1)):
        bad = flat[present][(flat[present] < 0) | (flat[present] > 1)][0]
        raise ValueError(f"p-values must lie in [0, 1]; got {bad!r}.")
    out = np.full(flat.shape, np.nan)
    if present.any():
        out[present] = multipletests(flat[present], method=method)[1]
    return out.reshape(p.shape)


# --------------------------------------------------------------------------------------------
# pairwise matrices (Tables 27/28)
# --------------------------------------------------------------------------------------------
_PAIR_COLUMNS = ("system_a", "system_b", "diff", "ci_low", "ci_high", "p_adj")


def oriented_pairs(frame: pd.DataFrame) -> dict[tuple[str, str], tuple[float, float, float, float]]:
    """Every ordered pair of a compare frame as ``(row, column) -> (diff, ci_low, ci_high, p_adj)``,
    oriented row − column: a stored ``a − b`` gives (a, b) as is and (b, a) negated with the
    interval flipped.

    >>> f = pd.DataFrame({"system_a": ["x"], "system_b": ["y"], "diff": [2.0], "ci_low": [0.5],
    ...                   "ci_high": [3.0], "p_adj": [0.01]})
    >>> oriented_pairs(f)[("y", "x")]
    (-2.0, -3.0, -0.5, 0.01)
    """
    lacking = [c for c in _PAIR_COLUMNS if c not in frame]
    if lacking:
        raise ValueError(f"the compare frame lacks column(s) {', '.join(lacking)}: pass md.compare(...) output.")
    out = {}
    for rec in frame[list(_PAIR_COLUMNS)].to_dict("records"):
        a, b = rec["system_a"], rec["system_b"]
        d, lo, hi, p = (float(rec[c]) for c in ("diff", "ci_low", "ci_high", "p_adj"))
        out[(a, b)] = (d, lo, hi, p)
        out[(b, a)] = (-d, -hi, -lo, p)
    return out


def pairwise_matrix(upper: pd.DataFrame, lower: pd.DataFrame | None = None,
                    systems: Sequence[str] | None = None, alpha: float = 0.05,
                    decimals: int = 2) -> pd.DataFrame:
    """The pairwise matrix of the paper's Tables 27/28 (SPEC §5) as a square table.

    Each off-diagonal cell is the row − column difference in points, its interval and a star
    when the Holm-adjusted p is below ``alpha``: ``upper`` (a :func:`memdiag.compare` frame with
    ``pairs="all"``) fills the cells above the diagonal, ``lower`` (another metric, e.g.
    utilization under coverage) those below; without ``lower`` both triangles show ``upper``.

    Examples
    --------
    >>> cov = pd.DataFrame({"system_a": ["a"], "system_b": ["b"], "diff": [4.0], "ci_low": [1.0],
    ...                     "ci_high": [7.0], "p_adj": [0.01]})
    >>> util = cov.assign(diff=-1.5, ci_low=-4.0, ci_high=1.0, p_adj=0.4)
    >>> print(pairwise_matrix(cov, util).to_string())  # doctest: +NORMALIZE_WHITESPACE
                        a                   b
    a                      4.00* [1.00, 7.00]
    b  1.50 [-1.00, 4.00]
    """
    top = oriented_pairs(upper)
    bottom = oriented_pairs(lower) if lower is not None else top
    names = list(systems) if systems is not None else list(dict.fromkeys(
        s for f in (upper, lower) if f is not None for s in np.ravel(f[["system_a", "system_b"]].to_numpy())))
    table = pd.DataFrame("", index=names, columns=names)
    for i, row in enumerate(names):
        for j, col in enumerate(names):
            source = top if i < j else bottom
            if i != j and (row, col) in source:
                d, lo, hi, p = source[(row, col)]
                star = "*" if p < alpha else ""
                table.iloc[i, j] = f"{d:.{decimals}f}{star} [{lo:.{decimals}f}, {hi:.{decimals}f}]"
    table.attrs = {"upper": upper.attrs.get("metric", "upper"),
                   "lower": (lower if lower is not None else upper).attrs.get("metric", "lower"),
                   "notes": [f"row − column in points [interval]; * Holm-adjusted p < {alpha:g}"]}
    return table
