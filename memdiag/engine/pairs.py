"""The paired 2x2 table and the a − b orientation, one definition for every caller (SPEC §2, §5).

For a reference R and a system M on the same queries, each query falls in one cell:
a = both right, b = benefit (only M right), c = tax (only R right), d = neither. Flows,
comparisons, audits, judge agreement and the pairwise figures all count cells and orient
differences through this module.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
import pandas as pd

from memdiag.core.checks import alpha_of, alpha_text
from memdiag.core.kinds import POINTS
from memdiag.core.notes import Note
from memdiag.core.result import as_result
from memdiag.engine.options import Options

__all__ = ["CELLS", "THRESHOLD", "binarize", "binary_outcomes", "cell_codes", "cell_counts",
           "cell_indicators", "canonical_pair", "contrast_codes", "oriented_pairs", "pair_key", "pairwise_matrix"]

#: The cells of the paired 2x2 table in their fixed order (SPEC §2): a, b, c, d.
CELLS: tuple[str, ...] = ("both", "benefit", "tax", "neither")

#: A query is correct when its score (mean over judge repetitions) is > THRESHOLD (SPEC §2).
THRESHOLD = 0.5


def binarize(scores: np.ndarray, threshold: float | None = None) -> np.ndarray:
    """Correctness ``score > threshold`` as a bool array (``threshold`` None: :data:`THRESHOLD`).

    >>> binarize(np.array([0.0, 0.5, 0.51, 1.0])).tolist()
    [False, False, True, True]
    """
    return np.asarray(scores) > (THRESHOLD if threshold is None else threshold)


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


def cell_codes(reference: np.ndarray, systems: np.ndarray) -> np.ndarray:
    """Each query's cell against the reference, ``(N, k)`` int8: 0 both, 1 benefit, 2 tax, 3 neither.

    ``reference`` is ``(N,)`` correctness of the reference, ``systems`` ``(N,)`` or ``(N, k)``
    correctness of the compared system(s) (bool or 0/1).

    >>> cell_codes(np.array([1, 1, 0, 0]), np.array([1, 0, 1, 0])).ravel().tolist()
    [0, 2, 1, 3]
    """
    r = np.asarray(reference, dtype=bool)
    m = np.asarray(systems, dtype=bool)
    m = m[:, None] if m.ndim == 1 else m
    # a: r & m -> 0; b: ~r & m -> 1; c: r & ~m -> 2; d: ~r & ~m -> 3
    return np.where(r[:, None], np.where(m, 0, 2), np.where(m, 1, 3)).astype(np.int8)


def cell_counts(codes: np.ndarray, groups: np.ndarray | None = None, n_groups: int | None = None) -> np.ndarray:
    """Counts of each cell per group and contrast, ``(G, k, 4)`` int64, from :func:`cell_codes`.

    ``groups`` ``(N,)`` holds each query's group index 0..G−1 (a stratum, a cluster); None
    counts all queries as one group.

    >>> cell_counts(cell_codes(np.array([1, 1, 0, 0, 1]), np.array([1, 0, 1, 0, 1]))).tolist()
    [[[2, 1, 1, 1]]]
    """
    codes = np.asarray(codes)
    codes = codes[:, None] if codes.ndim == 1 else codes
    n, k = codes.shape
    if groups is None:
        groups, n_groups = np.zeros(n, dtype=np.int64), 1
    groups = np.asarray(groups, dtype=np.int64)
    n_groups = int(groups.max()) + 1 if n_groups is None else int(n_groups)
    flat = (groups[:, None] * k + np.arange(k)[None, :]) * 4 + codes
    return np.bincount(flat.ravel(), minlength=n_groups * k * 4).reshape(n_groups, k, 4)


def canonical_pair(a: str, b: str) -> tuple[str, str, bool]:
    """The pair in name order ``(low, high)`` and whether ``(a, b)`` is reversed from it.

    A contrast between two systems is always drawn in this one orientation (``high`` against
    the reference ``low``), so the same pair gets the same bootstrap replicates in every table
    (flows, comparisons, claims), whichever side a table puts it on.

    >>> canonical_pair("zep", "mem0")
    ('mem0', 'zep', True)
    """
    return (a, b, False) if a <= b else (b, a, True)


def pair_key(a: str, b: str) -> int:
    """A 63-bit integer naming the unordered pair {a, b}, the same on every machine and run.

    It keys the pair's own random stream (``SeedSequence(seed, spawn_key=(1, key))``).

    >>> pair_key("raw-rag", "zep") == pair_key("zep", "raw-rag")
    True
    """
    low, high, _ = canonical_pair(a, b)
    digest = hashlib.sha256(f"{low}\x1f{high}".encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def contrast_codes(correct: np.ndarray, systems: Sequence[str],
                   contrasts: Sequence[tuple[int, int]]) -> tuple[np.ndarray, list[int], np.ndarray]:
    """Cell codes of contrasts "system a against reference b", drawn in each pair's one orientation.

    Parameters
    ----------
    correct
        ``(N, S)`` correctness of every system (bool or 0/1).
    systems
        The ``S`` system names (they fix each pair's orientation and random stream).
    contrasts
        ``(a, b)`` column pairs: system ``a`` against reference ``b``.

    Returns
    -------
    codes
        ``(N, k)`` :func:`cell_codes` of the higher-named system against the lower-named one.
    keys
        :func:`pair_key` of each contrast.
    swap
        ``(k,)`` bool: True where ``a`` is the lower-named system, so benefit and tax of the drawn
        orientation must be exchanged to read "a against b".

    >>> codes, keys, swap = contrast_codes(np.array([[1, 0], [0, 1]]), ["b", "a"], [(0, 1)])
    >>> codes.ravel().tolist(), swap.tolist()
    ([1, 2], [False])
    """
    correct = np.asarray(correct, dtype=bool)
    codes = np.empty((correct.shape[0], len(contrasts)), dtype=np.int8)
    keys, swap = [], np.zeros(len(contrasts), dtype=bool)
    for j, (a, b) in enumerate(contrasts):
        _, _, reversed_ = canonical_pair(systems[b], systems[a])
        low, high = (a, b) if reversed_ else (b, a)
        codes[:, j] = cell_codes(correct[:, low], correct[:, high])[:, 0]
        keys.append(pair_key(systems[a], systems[b]))
        swap[j] = reversed_
    return codes, keys, swap


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


def _adjusted(upper: pd.DataFrame, lower: pd.DataFrame | None) -> str:
    """``"Holm-adjusted"``, ``"Bonferroni-adjusted"`` … as the frames' ``attrs["correction"]`` say
    (both triangles' when they differ; ``"adjusted"`` when a frame does not say)."""
    from memdiag.core.checks import CORRECTION_NAMES

    names = list(dict.fromkeys(f.attrs.get("correction") for f in (upper, lower) if f is not None))
    if None in names:
        return "adjusted"
    return " / ".join("unadjusted" if n == "none" else f"{CORRECTION_NAMES.get(n, str(n))}-adjusted" for n in names)


def _alpha(upper: pd.DataFrame, lower: pd.DataFrame | None) -> float:
    """The α of the frames' provenance, as the figures read it: ``attrs["alpha"]`` where set, else
    1 − ``attrs["confidence_level"]``; md.Options' default level (α = 0.05) when neither says."""
    found = {float(f.attrs["alpha"]) if "alpha" in f.attrs else alpha_of(f.attrs["confidence_level"])
             for f in (upper, lower) if f is not None and ("alpha" in f.attrs or "confidence_level" in f.attrs)}
    if len(found) > 1:
        raise ValueError(f"the two triangles were computed at different levels (α = "
                         f"{' and '.join(f'{a:g}' for a in sorted(found))}); compute both with the same options.")
    return found.pop() if found else alpha_of(Options().confidence_level)


def pairwise_matrix(upper: pd.DataFrame, lower: pd.DataFrame | None = None,
                    systems: Sequence[str] | None = None) -> pd.DataFrame:
    """The pairwise matrix of the paper's Tables 27/28 (SPEC §5) as a square table.

    Each off-diagonal cell is the row − column difference in points, its interval and a star
    when the adjusted p (the frame's ``attrs["correction"]``: Holm, Bonferroni, ...) is below
    α = 1 − the frames' confidence level (their provenance, as the figures read it):
    ``upper`` (a :func:`memdiag.compare` frame of every pair, no
    ``reference``) fills the cells above the diagonal, ``lower`` (another metric, e.g.
    utilization under coverage) those below; without ``lower`` both triangles show ``upper``.

    Parameters
    ----------
    upper
        A :func:`memdiag.compare` result (``system_a, system_b, diff, ci_low, ci_high, p_adj``)
        for the cells above the diagonal.
    lower
        Another compare result for the cells below the diagonal (default: ``upper`` again).
    systems
        Rows and columns, in this order (default: the systems of the frames, in order of
        appearance).

    Returns
    -------
    pandas.DataFrame
        A square table of text cells ``"diff[*] [low, high]"``, each number written as points are
        (two decimals; ``"undefined"`` for a NaN difference, empty on the diagonal and for pairs
        the frames lack); ``attrs`` name the ``upper`` and ``lower`` metrics, carry the frames'
        ``confidence_level`` and ``alpha`` and a note on the reading.

    Raises
    ------
    ValueError
        A frame that lacks the compare columns; two frames at different levels.

    References
    ----------
    SPEC §5.4 (the pairwise matrix: a stored a − b gives b − a as its negation with the interval
    flipped, (d, [lo, hi]) → (−d, [−hi, −lo])) and SPEC §5.3 (Holm); Raw-RAG paper Tables 27/28
    (coverage above the diagonal, utilization below).

    Examples
    --------
    >>> cov = pd.DataFrame({"system_a": ["a"], "system_b": ["b"], "diff": [4.0], "ci_low": [1.0],
    ...                     "ci_high": [7.0], "p_adj": [0.01]})
    >>> util = cov.assign(diff=-1.5, ci_low=-4.0, ci_high=1.0, p_adj=0.4)
    >>> print(pairwise_matrix(cov, util).to_string())  # doctest: +NORMALIZE_WHITESPACE
                        a                   b
    a                      4.00* [1.00, 7.00]
    b  1.50 [-1.00, 4.00]
    >>> cov.attrs["confidence_level"] = 0.99                  # α = 0.01: 0.01 is not below it
    >>> pairwise_matrix(cov).loc["a", "b"]
    '4.00 [1.00, 7.00]'
    """
    alpha = _alpha(upper, lower)
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
                table.iloc[i, j] = ("undefined" if np.isnan(d) else  # e.g. utilization with no sufficient query
                                    f"{POINTS.format(d)}{star} [{POINTS.format(lo)}, {POINTS.format(hi)}]")
    level = next((f.attrs["confidence_level"] for f in (upper, lower) if f is not None and "confidence_level" in f.attrs),
                 None)
    table.attrs = {"upper": upper.attrs.get("metric", "upper"),
                   "lower": (lower if lower is not None else upper).attrs.get("metric", "lower"),
                   **({} if level is None else {"confidence_level": level}), "alpha": alpha,
                   "notes": [Note(f"row − column in points [interval]; * {_adjusted(upper, lower)} p < {alpha_text(alpha)}",
                                  code="matrix-cells")]}
    return as_result(table)
