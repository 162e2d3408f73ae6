"""The paired 2x2 table and the a − b orientation, one definition for every caller (SPEC §2, §5).

For a reference R and a system M on the same queries, each query falls in one cell:
a = both right, b = benefit (only M right), c = tax (only R right), d = neither. Flows,
comparisons, audits, judge agreement and the pairwise figures all count cells and orient
differences through this module.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["binary_outcomes", "cell_indicators", "oriented_pairs", "pairwise_matrix"]


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
    when the Holm-adjusted p is below ``alpha``: ``upper`` (a :func:`memdiag._compare` frame with
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
