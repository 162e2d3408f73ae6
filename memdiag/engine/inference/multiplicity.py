"""Multiplicity adjustment over a declared family of p-values (SPEC §5; Raw-RAG paper C.6).

Written here rather than called from ``statsmodels.stats.multitest.multipletests`` because that
function runs ``gc.collect()`` on every call (0.04–0.16 s), more than the whole bootstrap of a
family; the three step-up/step-down formulas are a few lines of numpy, and the tests check them
against statsmodels on 10,000 random p-vectors.
"""

from __future__ import annotations

import numpy as np

__all__ = ["ADJUST_METHODS", "adjust"]

#: Multiplicity corrections :func:`adjust` offers (statsmodels names).
ADJUST_METHODS = ("holm", "bonferroni", "fdr_bh")


def adjust(pvalues: object, *, method: str = "holm") -> np.ndarray:
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

    Equal to ``statsmodels.stats.multitest.multipletests(p, method=method)[1]`` (to 1e-15; note
    that statsmodels' own default is Holm–Šidák, not Holm).

    References
    ----------
    SPEC §5.3 (multiplicity); Raw-RAG paper C.6 (Holm over one benchmark × metric family, e.g.
    the 21 pairs of seven systems).
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scand. J. Stat. 6(2).
    Benjamini, Y. & Hochberg, Y. (1995). Controlling the false discovery rate. JRSS B 57(1).

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
        out[present] = _adjusted(flat[present], method)
    return out.reshape(p.shape)


def _adjusted(p: np.ndarray, method: str) -> np.ndarray:
    """The adjusted values of a family of m non-missing p-values (formulas in :func:`adjust`)."""
    m = p.size
    if method == "bonferroni":
        return np.minimum(1.0, m * p)
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    if method == "holm":
        steps = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * ranked))
    else:  # fdr_bh
        steps = np.minimum.accumulate(np.minimum(1.0, m * ranked / np.arange(1, m + 1))[::-1])[::-1]
    out = np.empty(m)
    out[order] = steps
    return out
