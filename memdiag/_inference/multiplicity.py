"""Multiplicity adjustment over a declared family of p-values (SPEC §5; Raw-RAG paper C.6).
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
        from statsmodels.stats.multitest import multipletests

        out[present] = multipletests(flat[present], method=method)[1]
    return out.reshape(p.shape)
