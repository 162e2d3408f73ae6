"""How little it takes to overturn a claim: fragility indices of verdict flips and of removed
conversations (SPEC §10.3).

One job: counts and per-cluster sums in, the smallest change that overturns a result out. Nothing
here knows about systems; :mod:`memdiag.synthesis.fragility` reads the paired tables and cluster sums of a
panel and calls these. Hand-written because no library computes fragility indices; the tests check
each against brute force on small cases and the published Fisher example.

- :func:`fisher_fragility`: Walsh et al.'s (2014) unpaired index, Fisher's exact test.
- :func:`paired_fragility`: verdict flips in the paired 2×2 table that overturn exact McNemar.
- :func:`sign_fragility`: verdict flips that overturn the sign of a paired difference.
- :func:`removal_sign`, :func:`removal_rank1`: the fewest clusters whose removal overturns a
  difference's sign or the leader's first rank (exact: the conditions are linear in the removed
  set, so the largest contributions are removed first).
- :func:`removal_significance`: the fewest clusters whose removal overturns significance of the
  cluster-jackknife t interval — exact enumeration by size with early stop within a budget, then
  the approximate maximum influence perturbation (Broderick, Giordano & Meager 2023) verified by
  refit.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from math import comb

import numpy as np
from scipy import stats

from memdiag.engine.inference.exact import exact_p_value

__all__ = ["RemovalResult", "fisher_fragility", "holm_within", "paired_fragility", "removal_rank1",
           "removal_significance", "removal_sign", "sign_fragility"]


def _check_alpha(alpha: float) -> None:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}.")


def fisher_fragility(events_a: int, n_a: int, events_b: int, n_b: int, *,
                     alpha: float = 0.05) -> tuple[int, list[float]]:
    """Walsh's fragility index of a significant 2×2 comparison under Fisher's exact test.

    Parameters
    ----------
    events_a, n_a, events_b, n_b
        Events and group sizes of the two arms.
    alpha
        Significance level (two-sided Fisher p < α is significant).

    Returns
    -------
    tuple of (int, list of float)
        The index (events added one at a time to the arm with fewer events, non-events turned
        into events, until p ≥ α; −1 when the result is not significant to begin with) and the
        p-values along the way, the first being the observed one.

    Raises
    ------
    ValueError
        Counts that are negative or exceed their group, ``alpha`` outside (0, 1).

    Examples
    --------
    >>> index, path = fisher_fragility(15, 40, 5, 40)
    >>> index, [round(p, 4) for p in path]
    (2, [0.0188, 0.0406, 0.0784])
    """
    _check_alpha(alpha)
    if not (0 <= events_a <= n_a and 0 <= events_b <= n_b):
        raise ValueError(f"events must lie in 0..n: got {events_a}/{n_a} and {events_b}/{n_b}.")

    def p_of(a: int, b: int) -> float:
        return float(stats.fisher_exact([[a, n_a - a], [b, n_b - b]]).pvalue)

    a, b = events_a, events_b
    path = [p_of(a, b)]
    if path[0] >= alpha:
        return -1, path
    low_a = a / n_a <= b / n_b if a != b else n_a - a >= n_b - b
    while path[-1] < alpha:
        if low_a and a < n_a:
            a += 1
        elif not low_a and b < n_b:
            b += 1
        else:                                     # the arm is all events: no more flips possible there
            return -1, path
        path.append(p_of(a, b))
    return len(path) - 1, path


def sign_fragility(*, benefit: int, tax: int) -> int:
    """Verdict flips that overturn the sign of a paired difference: |b − c|.

    Parameters
    ----------
    benefit, tax
        The discordant counts b and c of the paired 2×2 table (SPEC §2).

    Returns
    -------
    int
        Δ = (b − c)/n; one verdict flip changes b or c by one, so the fewest flips that make the
        winner no longer ahead (a tie overturns "beats") is |b − c|; 0 when b = c.

    Raises
    ------
    ValueError
        A negative count.

    Examples
    --------
    >>> sign_fragility(benefit=12, tax=5)
    7
    """
    if benefit < 0 or tax < 0:
        raise ValueError(f"counts must be non-negative, got benefit={benefit}, tax={tax}.")
    return abs(int(benefit) - int(tax))


def holm_within(p: object, others: object) -> np.ndarray:
    """Holm-adjusted p of each candidate ``p`` in a family with the fixed p-values ``others``.

    With the others sorted, q_(1) ≤ … ≤ q_(m−1), and r of them below p, p takes position r + 1 and
    its adjusted value is min(1, max(max_{i ≤ r} (m − i + 1)·q_(i), (m − r)·p)) (ties give the same
    value whichever comes first).

    >>> holm_within([0.01, 0.03], [0.02, 0.5]).round(4).tolist()   # 3·.01; max(3·.02, 2·.03)
    [0.03, 0.06]
    """
    cand = np.asarray(p, dtype=np.float64)
    q = np.sort(np.asarray(others, dtype=np.float64).reshape(-1))
    m = q.size + 1
    prefix = np.concatenate([[0.0], np.maximum.accumulate((m - np.arange(m - 1)) * q)]) if q.size else np.zeros(1)
    r = np.searchsorted(q, cand, side="left")
    return np.minimum(1.0, np.maximum(prefix[r], (m - r) * cand))


def paired_fragility(*, benefit: int, tax: int, n_concordant: int, alpha: float = 0.05,
                     mid_p: bool = False, family: object = ()) -> tuple[int, int, int, float]:
    """The fewest verdict flips in the paired 2×2 table that change exact McNemar's verdict.

    Parameters
    ----------
    benefit, tax
        Discordant counts b (the system right, the reference wrong) and c (the reverse).
    n_concordant
        Queries both got right or both wrong (the reservoir a flip can move into b or c).
    alpha
        Significance level (p < α is significant).
    mid_p
        Use the mid-p exact test instead of the exact one.
    family
        The other p-values of a Holm family this test belongs to (held fixed): significance is
        then Holm's adjusted p < α (:func:`holm_within`), as a leaderboard's tier decides.

    Returns
    -------
    tuple of (int, int, int, float)
        ``(k, b', c', p')``: the index k (flips), the discordant counts after the flips and their
        p-value (Holm-adjusted with a ``family``); ``(-1, b, c, p)`` when no set of flips changes
        the verdict.

    Raises
    ------
    ValueError
        Negative counts, ``alpha`` outside (0, 1).

    Notes
    -----
    One flip changes one system's verdict on one query, which moves that query between a
    discordant cell and a concordant one: b or c changes by one (b ↔ c takes two flips). Changes
    (Δb, Δc) with |Δb| + |Δc| = k are searched for k = 1, 2, … until the test's verdict (p < α)
    changes; increases must come from the concordant queries plus those the decreases freed:
    Δb⁺ + Δc⁺ ≤ n_concordant + Δb⁻ + Δc⁻. A significant result is overturned by moving b and c
    towards each other; a non-significant one by moving them apart (the reverse index).

    Examples
    --------
    >>> k, b, c, p = paired_fragility(benefit=13, tax=3, n_concordant=84)   # p = 0.0213
    >>> k, b, c, round(p, 4)   # 1 flip: 12|3 p = .0352, 13|4 p = .0490; 2 flips: 11|3 .0574, 12|4 .0768
    (2, 13, 5, 0.0963)
    """
    _check_alpha(alpha)
    if min(benefit, tax, n_concordant) < 0:
        raise ValueError("benefit, tax and n_concordant must be non-negative counts.")
    b0, c0 = int(benefit), int(tax)

    def p_of(b: np.ndarray, c: np.ndarray) -> np.ndarray:
        n = b + c
        raw = np.where(n > 0, exact_p_value(np.minimum(b, c), np.maximum(n, 1), mid_p=mid_p), 1.0)
        return holm_within(raw, family) if np.size(family) else raw

    p0 = float(p_of(np.array([b0]), np.array([c0]))[0])
    significant = p0 < alpha
    total = b0 + c0 + int(n_concordant)
    for k in range(1, total + 1):
        db = np.arange(-k, k + 1)
        rest = k - np.abs(db)
        db = np.concatenate([db, db[rest > 0]])
        dc = np.concatenate([rest, -rest[rest > 0]])
        b, c = b0 + db, c0 + dc
        up = np.maximum(db, 0) + np.maximum(dc, 0)
        down = np.maximum(-db, 0) + np.maximum(-dc, 0)
        ok = (b >= 0) & (c >= 0) & (up <= n_concordant + down)
        if not ok.any():
            continue
        b, c = b[ok], c[ok]
        p = p_of(b, c)
        hit = (p >= alpha) if significant else (p < alpha)
        if hit.any():
            # the overturning table closest to the observed one: largest p (significant) or smallest
            i = int(np.argmax(np.where(hit, p, -np.inf)) if significant else np.argmin(np.where(hit, p, np.inf)))
            return k, int(b[i]), int(c[i]), float(p[i])
    return -1, b0, c0, p0


def _sums(contribution: object, size: object) -> tuple[np.ndarray, np.ndarray]:
    d = np.asarray(contribution, dtype=np.float64).reshape(-1)
    n = np.asarray(size, dtype=np.float64).reshape(-1)
    if d.shape != n.shape or d.size < 2:
        raise ValueError(f"contribution and size need one value per cluster (at least 2), got {d.size} and {n.size}.")
    if np.any(n <= 0):
        raise ValueError("every cluster must hold at least one query (size > 0).")
    return d, n


def removal_sign(contribution: object, size: object) -> int:
    """The fewest clusters whose removal stops a difference of means from being positive.

    Parameters
    ----------
    contribution
        Per cluster g, D_g: the sum of the per-query differences (system − reference).
    size
        Per cluster, n_g > 0 queries.

    Returns
    -------
    int
        The smallest k with Σ of the k largest D_g ≥ ΣD (so that the remaining mean ΣD'/N' ≤ 0);
        0 when ΣD ≤ 0 already, −1 when no removal of at most G − 1 clusters does it. Exact:
        ΣD' ≤ 0 is linear in the removed set and the denominator stays positive.

    Raises
    ------
    ValueError
        Fewer than 2 clusters, lengths that differ, an empty cluster.

    Examples
    --------
    >>> removal_sign([5, 1, -2, 3], [10, 10, 10, 10])     # ΣD = 7: remove 5, then 5 + 3 = 8 ≥ 7
    2
    """
    d, _ = _sums(contribution, size)
    total = d.sum()
    if total <= 0:
        return 0
    removed = np.cumsum(np.sort(d)[::-1])[: d.size - 1]
    hit = np.nonzero(removed >= total)[0]
    return int(hit[0] + 1) if hit.size else -1


def removal_rank1(sums: object, size: object) -> tuple[int, int]:
    """The fewest clusters whose removal takes first place from the leader.

    Parameters
    ----------
    sums
        ``(S, G)`` per system and cluster, the sum of the system's per-query scores.
    size
        ``(G,)`` queries per cluster (the same queries for every system: a paired panel).

    Returns
    -------
    tuple of (int, int)
        ``(k, challenger)``: the fewest clusters whose removal lets some other system tie or pass
        the leader (the system with the largest total), and the row of that system; ``(0, j)``
        when the lead is already shared with j; ``(-1, -1)`` when no removal does it. Exact: for
        each challenger j, :func:`removal_sign` of the leader − j contributions; the minimum over j.

    Raises
    ------
    ValueError
        Fewer than 2 systems or clusters, shapes that disagree.

    Examples
    --------
    >>> removal_rank1([[6, 6, 6], [4, 7, 6]], [10, 10, 10])   # leader − other = (2, −1, 0): drop cluster 0
    (1, 1)
    """
    s = np.asarray(sums, dtype=np.float64)
    if s.ndim != 2 or s.shape[0] < 2:
        raise ValueError(f"sums must be (systems, clusters) with at least 2 systems, got shape {s.shape}.")
    _sums(s[0], size)
    leader = int(np.argmax(s.sum(axis=1)))
    best = (-1, -1)
    for j in range(s.shape[0]):
        if j == leader:
            continue
        k = removal_sign(s[leader] - s[j], size)
        if k >= 0 and (best[0] < 0 or k < best[0]):
            best = (k, j)
    return best


@dataclass(frozen=True)
class RemovalResult:
    """The fewest clusters whose removal overturns significance (:func:`removal_significance`).

    >>> RemovalResult(k=2, lower=2, method="exact", removed=(0, 3)).k
    2
    """

    k: int
    lower: int
    method: str
    removed: tuple[int, ...]


def _jackknife_state(d: np.ndarray, n: np.ndarray, keep: np.ndarray, crit: np.ndarray) -> np.ndarray:
    """Per row of ``keep`` (subsets × G, 1 = kept): +1 (the jackknife t interval lies above 0), −1
    (below 0) or 0 (it covers 0)."""
    D = keep @ d
    N = keep @ n
    g = keep.sum(axis=1)
    est = D / N
    with np.errstate(divide="ignore", invalid="ignore"):
        loo = (D[:, None] - d[None, :]) / (N[:, None] - n[None, :])
    loo[keep == 0] = 0.0                      # the removed clusters have no leave-one-out value
    mean = loo.sum(axis=1) / g
    loo -= mean[:, None]
    loo *= keep
    var = (g - 1) / g * np.einsum("ij,ij->i", loo, loo)
    half = crit[g.astype(int)] * np.sqrt(var)
    return np.where(est - half > 0, 1, np.where(est + half < 0, -1, 0))


def removal_significance(contribution: object, size: object, *, confidence_level: float = 0.95,
                         max_subsets: int = 200_000) -> RemovalResult:
    """The fewest clusters whose removal changes whether the cluster-jackknife t interval excludes 0.

    Parameters
    ----------
    contribution
        Per cluster g, D_g: the sum of the per-query differences.
    size
        Per cluster, n_g > 0 queries.
    confidence_level
        Level of the interval Δ̂ ± t_{G'−1}·√V_J on the G' clusters kept.
    max_subsets
        Budget of subsets the exact search may refit; past it, the approximation takes over.

    Returns
    -------
    RemovalResult
        ``k`` (−1: no removal of up to G − 3 clusters found), ``lower`` (every removal of fewer than
        ``lower`` clusters was refitted and changes nothing: ``lower == k`` is an exact answer),
        ``method`` (``exact`` or ``amip``) and the ``removed`` clusters' positions.

    Raises
    ------
    ValueError
        Fewer than 4 clusters, lengths that differ, an empty cluster, a bad level or budget.

    Notes
    -----
    Exact: every subset of size k = 1, 2, … is refitted (vectorised), stopping at the first size
    where one changes the verdict or when the next size would exceed ``max_subsets``. AMIP
    (Broderick, Giordano & Meager 2023): the lower interval end (upper for a negative Δ̂) as a
    smooth function of cluster weights w, φ(w) = Δ(w) ∓ t·√V₁(w) with Δ(w) = Σw D/Σw n and the
    weighted CR1 variance V₁, is linearised at w = 1 (central differences); clusters are removed
    in the order of their first-order effect on φ and refitted with the jackknife interval after
    each removal; the first that overturns gives k, an upper bound verified by refit. At least 3
    clusters are always kept (the jackknife needs 2).

    Examples
    --------
    >>> d = [9, 8, 7, 6, 1, 0]; n = [10] * 6
    >>> r = removal_significance(d, n)
    >>> r.k, r.lower, r.method
    (1, 1, 'exact')
    """
    d, n = _sums(contribution, size)
    if d.size < 4:
        raise ValueError(f"removal_significance needs at least 4 clusters, got {d.size}.")
    if not 0.0 < confidence_level < 1.0:
        raise ValueError(f"confidence_level must be in (0, 1), got {confidence_level!r}.")
    if max_subsets < 1:
        raise ValueError(f"max_subsets must be positive, got {max_subsets!r}.")
    G = d.size
    alpha = 1.0 - confidence_level
    crit = np.full(G + 1, np.inf)
    crit[2:] = stats.t.ppf(1.0 - alpha / 2.0, np.arange(1, G))
    full = np.ones((1, G))
    base = int(_jackknife_state(d, n, full, crit)[0])
    lower = 1
    for k in range(1, G - 2):
        if comb(G, k) > max_subsets:
            break
        subsets = np.array(list(combinations(range(G), k)))
        keep = np.ones((len(subsets), G))
        np.put_along_axis(keep, subsets, 0.0, axis=1)
        sig = _jackknife_state(d, n, keep, crit)
        hit = np.nonzero(sig != base)[0]
        if hit.size:
            return RemovalResult(k=k, lower=k, method="exact", removed=tuple(int(i) for i in subsets[hit[0]]))
        lower = k + 1
    else:
        return RemovalResult(k=-1, lower=lower, method="exact", removed=())
    # AMIP: the first-order effect of each cluster's weight on the interval end nearest 0
    sign = float(base) if base else (1.0 if d.sum() >= 0 else -1.0)

    def phi(w: np.ndarray) -> float:
        N = w @ n
        est = (w @ d) / N
        gw = w.sum()
        v1 = gw / (gw - 1) * np.sum(w * (d - est * n) ** 2) / N ** 2
        return sign * est - stats.t.ppf(1.0 - alpha / 2.0, G - 1) * np.sqrt(v1)

    h = 1e-6
    grad = np.array([(phi(np.ones(G) + h * e) - phi(np.ones(G) - h * e)) / (2 * h) for e in np.eye(G)])
    # removing g changes φ by about −grad_g; a significant result is overturned by lowering φ
    order = np.argsort(-grad if base else grad, kind="stable")
    keep = np.ones((1, G))
    for k in range(1, G - 2):
        keep[0, order[k - 1]] = 0.0
        if int(_jackknife_state(d, n, keep, crit)[0]) != base:
            return RemovalResult(k=k, lower=lower, method="amip", removed=tuple(sorted(int(i) for i in order[:k])))
    return RemovalResult(k=-1, lower=lower, method="amip", removed=())
