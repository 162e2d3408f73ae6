"""The wild cluster bootstrap (SPEC §4.1): per-cluster multipliers on cluster contributions,
vectorised and seeded like the count-weight engine (:mod:`memdiag.engine.resampling`).

Why a second weight scheme
--------------------------
The count-weight bootstrap redraws whole clusters; with few clusters its replicates are too
narrow (SPEC §4.1's table). The wild cluster bootstrap keeps every cluster and multiplies its
contribution ψ_g to θ̂ − θ by a random sign-like weight v_g. With the null imposed on the
contributions (*restricted*, WCR) and the statistic studentised in every replicate, it is the
best-calibrated p-value with few clusters (Cameron, Gelbach & Miller 2008; MacKinnon, Nielsen &
Webb 2023). A replicate is a ``(G,)`` weight vector, a chunk of replicates a ``(b, G)`` matrix,
and the replicate sums are one matrix product ``V @ r`` — the same shape of computation as
``W @ Xu`` in the engine.

Weights
-------
- ``rademacher``: v = ±1 with probability ½ each;
- ``webb``: Webb's six-point distribution ±√(3/2), ±1, ±√(1/2), probability 1/6 each;
- all sign flips: every one of the 2^G' sign patterns once instead of sampling. Under the null
  that each cluster's contribution is symmetric about 0 the p-value is then the exact
  randomization p (SPEC §4.1), with no Monte-Carlo error and no seed.

Which, by the number G' of clusters that carry a nonzero contribution (a cluster where the two
systems agree on every query contributes nothing to their difference), :func:`weights_for`:

========================  ================================================================
G' < 8                    all sign flips: too few informative clusters for any resampling
                          approximation (Webb's weights reject 6% at G = 6 in SPEC §4.1's
                          simulation); the exact p is at least 2/2^G'
8 ≤ G' < 12               Webb, B draws: Rademacher has only 2^G' patterns, too coarse for a
                          family of tests (2/1024 at G' = 10), and Webb's weights keep the size
                          at 5.0–5.7% in the same simulation (MacKinnon & Webb)
12 ≤ G' ≤ 16              all 2^G' sign flips (4,096 to 65,536 patterns): exact, fine enough
G' > 16                   Rademacher, B draws
========================  ================================================================

Determinism
-----------
Sampled weights come in fixed blocks of :func:`memdiag.engine.resampling._block_rows` rows (a function
of G only); block k is drawn from ``Generator(PCG64(SeedSequence(seed, spawn_key=(2, k))))`` —
the engine's convention with its own first key word (count-weight blocks use ``(k,)``, the
per-pair cell streams ``(1, key)``), so a wild replicate never reuses a count-weight stream. All
contrasts of a call share the weights, so a contrast's p-value depends only on its own
contributions and the seed, never on the other contrasts of the call.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from memdiag.engine.resampling import (
    _TIE_RTOL,
    _block_rows,
    _check_count,
    _generator,
    run_seed,
)

__all__ = ["EXACT_BELOW", "EXACT_UP_TO", "WEBB_BELOW", "WildTest", "nonzero_contributions", "sign_flips",
           "weights_for", "wild_max_range", "wild_replicates", "wild_test", "wild_weights"]

#: First word of the spawn key of the wild weight blocks (count-weight blocks: (k,); cells: (1, key)).
_WILD_STREAM = 2
#: Fewer informative clusters than this: enumerate all their sign patterns (exact where small).
EXACT_BELOW = 8
#: Sampled wild weights are Webb's six-point distribution below this many clusters, else Rademacher.
WEBB_BELOW = 12
#: From WEBB_BELOW up to this many informative clusters: enumerate all 2^G' Rademacher patterns.
EXACT_UP_TO = 16
#: Webb's six-point support (probability 1/6 each): mean 0, variance 1.
_WEBB = np.array([-math.sqrt(1.5), -1.0, -math.sqrt(0.5), math.sqrt(0.5), 1.0, math.sqrt(1.5)])
#: A contribution within this relative distance of 0 (of the terms it was computed from) is 0.
_ZERO_RTOL = 1e-9
#: Contribution entries (replicates x clusters) per chunk of a studentised wild test.
_CHUNK_ENTRIES = 1 << 20


def sign_flips(n: int) -> np.ndarray:
    """All 2^n sign patterns of n clusters, ``(2^n, n)`` float; row 0 is all +1 (the data).

    >>> sign_flips(2).tolist()
    [[1.0, 1.0], [-1.0, 1.0], [1.0, -1.0], [-1.0, -1.0]]
    """
    if not 0 <= n <= 24:
        raise ValueError(f"sign_flips enumerates at most 2^24 patterns, got n = {n}.")
    bits = (np.arange(2 ** n, dtype=np.int64)[:, None] >> np.arange(n)[None, :]) & 1
    return 1.0 - 2.0 * bits


def wild_weights(n_clusters: int, n_resamples: int, seed: int | np.random.Generator = 0,
                 kind: str = "rademacher") -> Iterator[np.ndarray]:
    """Wild weights ``(rows, G)`` float in fixed blocks (see the module notes on determinism).

    Parameters
    ----------
    n_clusters
        G.
    n_resamples
        Replicates B.
    seed
        Int or ``numpy.random.Generator`` (converted once with :func:`~memdiag.engine.resampling.run_seed`).
    kind
        ``rademacher`` or ``webb``.

    Examples
    --------
    >>> w = np.concatenate(list(wild_weights(3, 5, seed=1)))
    >>> w.shape, sorted(set(w.ravel().tolist()))
    ((5, 3), [-1.0, 1.0])
    """
    n_clusters = _check_count(n_clusters, "n_clusters")
    n_resamples = _check_count(n_resamples, "n_resamples")
    if kind not in ("rademacher", "webb"):
        raise ValueError(f"kind must be 'rademacher' or 'webb', got {kind!r}.")
    entropy = run_seed(seed)
    rows = _block_rows(n_clusters)
    for k, start in enumerate(range(0, n_resamples, rows)):
        b = min(rows, n_resamples - start)
        rng = _generator(entropy, _WILD_STREAM, k)
        if kind == "rademacher":
            yield 2.0 * rng.integers(0, 2, size=(b, n_clusters)) - 1.0
        else:
            yield _WEBB[rng.integers(0, 6, size=(b, n_clusters))]


def default_weights(n_clusters: int) -> str:
    """The sampled weight distribution for G clusters: ``webb`` below :data:`WEBB_BELOW`, else ``rademacher``."""
    return "webb" if n_clusters < WEBB_BELOW else "rademacher"


def weights_for(n_informative: int) -> str:
    """``exact`` (all sign flips), ``webb`` or ``rademacher`` for G' informative clusters (module notes).

    >>> [weights_for(g) for g in (5, 10, 12, 16, 17)]
    ['exact', 'webb', 'exact', 'exact', 'rademacher']
    """
    if n_informative < EXACT_BELOW or WEBB_BELOW <= n_informative <= EXACT_UP_TO:
        return "exact"
    return default_weights(n_informative)


def nonzero_contributions(restricted: np.ndarray, parts: np.ndarray) -> np.ndarray:
    """``(G, m)`` bool: contributions that are not 0 beyond the rounding of the ``parts`` they were
    summed from (a cluster whose two systems agree contributes exactly nothing to a difference)."""
    return np.abs(restricted) > _ZERO_RTOL * parts


@dataclass(frozen=True)
class WildTest:
    """Result of :func:`wild_test`, one entry per output.

    Attributes
    ----------
    statistic
        ``(m,)`` observed studentised statistic t = (θ̂ − θ₀)/SE (CR1 form).
    p_value
        ``(m,)`` two-sided p-value: #{|t*| ≥ |t|}/2^G' over all sign patterns when exact, else
        (1 + #{|t*| ≥ |t|})/(1 + B).
    n_draws
        ``(m,)`` patterns or draws the p-value rests on.
    exact
        ``(m,)`` True where all sign patterns were enumerated (exact randomization p).
    floor
        ``(m,)`` True where a sampled p-value sits at its Monte-Carlo floor 1/(B + 1) (no draw as
        extreme as the data): the true p is smaller than B draws resolve.
    mc_se
        ``(m,)`` Monte-Carlo standard error of the p-value, √(p(1 − p)/B); 0 when exact.
    weights
        ``(m,)`` how each output was tested: ``exact`` (all sign flips), ``webb`` or
        ``rademacher`` (sampled); ``""`` when not tested.
    """

    statistic: np.ndarray
    p_value: np.ndarray
    n_draws: np.ndarray
    exact: np.ndarray
    floor: np.ndarray
    mc_se: np.ndarray
    weights: tuple[str, ...]


def _studentized(V: np.ndarray, terms: tuple, unit: bool) -> np.ndarray:
    """t* of each weight row of ``V`` ``(b, z)`` for the z clusters with a nonzero contribution.

    With r_g those contributions and ω_g the clusters' shares: Δ* = Σ v_g r_g, residuals
    e*_g = v_g r_g − ω_g Δ* (for the clusters without a contribution −ω_g Δ*), and
    V* = Σ_h G_h/(G_h − 1) · (Σ_{g∈h} e*_g² − (Σ_{g∈h} e*_g)²/G_h). The sums are expanded so that
    a chunk of replicates costs three matrix products with per-stratum columns (``terms`` from
    :func:`_terms`; ``unit``: every |v_g| = 1, so Σ v_g² r_g² needs no product).
    """
    R, Rw, R2, w1, w2, sizes, scale = terms
    A = V @ R                                   # (b, H): Σ_{g∈h} v_g r_g
    C = V @ Rw                                  # Σ_{g∈h} v_g r_g ω_g
    Q = np.broadcast_to(R2.sum(axis=0), A.shape) if unit else (V * V) @ R2
    delta = A.sum(axis=1, keepdims=True)
    s1 = A - delta * w1
    s2 = Q - 2.0 * delta * C + delta ** 2 * w2
    var = ((s2 - s1 ** 2 / sizes) * scale).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return delta[:, 0] / np.sqrt(np.maximum(var, 0.0))


def _terms(r: np.ndarray, omega: np.ndarray, codes: np.ndarray, informative: np.ndarray, n_strata: int) -> tuple:
    """Per-stratum columns of the z informative clusters and the sums over all clusters that
    :func:`_studentized` needs (Σ ω and Σ ω² per stratum, G_h, G_h/(G_h − 1))."""
    z = np.flatnonzero(informative)
    member = np.zeros((z.size, n_strata))
    member[np.arange(z.size), codes[z]] = 1.0
    R = member * r[z, None]
    sizes = np.bincount(codes, minlength=n_strata).astype(np.float64)
    scale = np.where(sizes > 1, sizes / np.maximum(sizes - 1, 1), 0.0)
    w1 = np.bincount(codes, weights=omega, minlength=n_strata)
    w2 = np.bincount(codes, weights=omega ** 2, minlength=n_strata)
    return R, R * omega[z, None], R ** 2, w1, w2, sizes, scale


def wild_test(restricted: np.ndarray, omega: np.ndarray, *, parts: np.ndarray | None = None,
              strata: np.ndarray | None = None, n_resamples: int = 20_000,
              seed: int | np.random.Generator = 0, weights: str | None = None,
              exact_only: bool = False) -> WildTest:
    """Restricted wild cluster bootstrap-t test of θ = θ₀ (WCR; SPEC §4.1).

    Parameters
    ----------
    restricted
        ``(G, m)`` restricted contributions r_g = ψ_g + (θ̂ − θ₀)·ω_g, so Σ_g r_g = θ̂ − θ₀; for a
        difference of plain means r_g = D_g/N, the cluster's total difference over N.
    omega
        ``(G,)`` each cluster's share of the queries, n_g/N (sums to 1).
    parts
        ``(G, m)`` magnitude of the terms each r_g was summed from (|ψ_g| + |θ̂ − θ₀|·ω_g), to tell a
        zero contribution from rounding; None: r is exact.
    strata
        ``(G,)`` stratum of each cluster (stratified-cluster designs); None: one stratum.
    n_resamples, seed
        Sampled draws B and their seed (unused when every output is enumerated).
    weights
        None: by the number G' of clusters with a nonzero contribution (:func:`weights_for`);
        ``exact``, ``webb`` or ``rademacher`` to force one.
    exact_only
        Test only the outputs :func:`weights_for` enumerates (the others get NaN): the exact
        sign-flip test where the data are small, beside another method.

    Returns
    -------
    WildTest

    Notes
    -----
    For weights v (the data: v = 1), Δ*(v) = Σ_g v_g r_g, e*_g = v_g r_g − ω_g Δ*(v) (the
    replicate's own residuals after re-estimating θ) and t*(v) = Δ*(v)/√V*(v) with the CR1 form
    V* = Σ_h G_h/(G_h − 1) Σ_{g∈h} (e*_g − ē*_h)²; at v = 1 this is the observed t. The p-value
    is the share of |t*| ≥ |t| (ties within a relative 1e-12 count): over all sign patterns of the
    clusters with a nonzero contribution (the others' signs change nothing; the data are one of
    the patterns, so p ≥ 2/2^G'), or (1 + #)/(1 + B) over B draws. An output with no nonzero
    contribution has no evidence either way: t = 0 and p = 1 (SPEC §5.1's convention).

    References
    ----------
    Cameron, A. C., Gelbach, J. B. & Miller, D. L. (2008). Bootstrap-based improvements for
    inference with clustered errors. Review of Economics and Statistics 90(3), 414–427.
    Webb, M. D. (2023). Reworking wild bootstrap-based inference for clustered errors. Canadian
    Journal of Economics 56(3), 839–858 (working paper 2014).
    MacKinnon, J. G. & Webb, M. D. (2017). Wild bootstrap inference for wildly different cluster
    sizes. Journal of Applied Econometrics 32(2), 233–254.
    MacKinnon, J. G., Nielsen, M. Ø. & Webb, M. D. (2023). Cluster-robust inference: a guide to
    empirical practice. Journal of Econometrics 232(2), 272–299.

    Examples
    --------
    Five clusters, each one query that favours the system (r_g = 1/5): all 32 sign patterns, and
    only the data and its mirror image are as extreme, so p = 2/32 — exact McNemar's 0.0625.

    >>> out = wild_test(np.full((5, 1), 0.2), np.full(5, 0.2))
    >>> float(out.p_value[0]), bool(out.exact[0]), int(out.n_draws[0])
    (0.0625, True, 32)
    """
    r = np.asarray(restricted, dtype=np.float64)
    r = r[:, None] if r.ndim == 1 else r
    G, m = r.shape
    omega = np.asarray(omega, dtype=np.float64).reshape(-1)
    if omega.shape[0] != G:
        raise ValueError(f"omega must give one share per cluster ({G}), got {omega.shape[0]}.")
    if weights not in (None, "exact", "webb", "rademacher"):
        raise ValueError(f"weights must be None, 'exact', 'webb' or 'rademacher', got {weights!r}.")
    codes = (np.zeros(G, dtype=np.int64) if strata is None
             else np.unique(np.asarray(strata), return_inverse=True)[1].reshape(-1))
    sizes = np.bincount(codes)
    nonzero = np.abs(r) > 0 if parts is None else nonzero_contributions(r, np.asarray(parts, dtype=np.float64))
    t_obs, p = np.zeros(m), np.ones(m)
    n_draws = np.zeros(m, dtype=np.int64)
    exact = np.ones(m, dtype=bool)
    floor = np.zeros(m, dtype=bool)
    kinds: list[str] = [""] * m
    sampled: dict[str, list] = {"webb": [], "rademacher": []}
    for j in range(m):
        z = np.flatnonzero(nonzero[:, j])
        kind = weights or weights_for(z.size)
        if exact_only and kind != "exact":
            p[j], exact[j], kinds[j] = np.nan, False, ""
            continue
        kinds[j] = kind
        if z.size == 0:
            continue
        args = _terms(r[:, j], omega, codes, nonzero[:, j], len(sizes))
        t_obs[j] = _studentized(np.ones((1, z.size)), args, True)[0]
        if np.isnan(t_obs[j]):     # θ̂ = θ₀ with no spread: no evidence either way
            t_obs[j] = 0.0
            continue
        tol = _TIE_RTOL * max(1.0, abs(t_obs[j])) if np.isfinite(t_obs[j]) else 0.0
        if kind == "exact":
            t = np.concatenate([_studentized(V, args, True) for V in _flip_chunks(z.size)])
            p[j] = np.count_nonzero(np.abs(t) >= abs(t_obs[j]) - tol) / t.shape[0]
            n_draws[j] = t.shape[0]
        else:
            sampled[kind].append((j, z, args, tol))
    for kind, items in sampled.items():
        if not items:
            continue
        n_resamples = _check_count(n_resamples, "n_resamples")
        counts = np.zeros(len(items), dtype=np.int64)
        chunk = max(1, _CHUNK_ENTRIES // max(G, 1))
        for block in wild_weights(G, n_resamples, seed, kind):
            for start in range(0, block.shape[0], chunk):
                part = block[start:start + chunk]
                for i, (j, z, args, tol) in enumerate(items):
                    t = _studentized(part[:, z], args, kind == "rademacher")
                    counts[i] += np.count_nonzero(np.abs(t) >= abs(t_obs[j]) - tol)
        for i, (j, _, _, _) in enumerate(items):
            p[j] = (1.0 + counts[i]) / (1.0 + n_resamples)
            n_draws[j] = n_resamples
            exact[j] = False
            floor[j] = counts[i] == 0
    with np.errstate(invalid="ignore"):
        mc_se = np.where(exact, 0.0, np.sqrt(p * (1.0 - p) / np.maximum(n_draws, 1)))
    return WildTest(statistic=t_obs, p_value=p, n_draws=n_draws, exact=exact, floor=floor, mc_se=mc_se,
                    weights=tuple(kinds))


def _flip_chunks(n: int) -> Iterator[np.ndarray]:
    """All 2^n sign patterns (row 0 the data) in chunks of at most 2^16 rows."""
    full = sign_flips(n)
    step = 1 << 16
    for start in range(0, full.shape[0], step):
        yield full[start:start + step]


def _centred(contributions: np.ndarray, strata: np.ndarray | None) -> np.ndarray:
    """Contributions centred within strata and scaled by √(G_h/(G_h − 1)), so that Σ v_g·(these)
    has variance equal to the CR1 variance for weights of mean 0 and variance 1."""
    psi = np.asarray(contributions, dtype=np.float64)
    codes = (np.zeros(psi.shape[0], dtype=np.int64) if strata is None
             else np.unique(np.asarray(strata), return_inverse=True)[1].reshape(-1))
    out = np.zeros_like(psi)
    for h in np.unique(codes):
        inside = codes == h
        g = int(inside.sum())
        if g > 1:
            out[inside] = np.sqrt(g / (g - 1)) * (psi[inside] - psi[inside].mean(axis=0))
    return out


def _weight_rows(G: int, n_resamples: int, seed: int, weights: str | None) -> tuple[Iterator[np.ndarray], int, bool]:
    kind = weights or weights_for(G)
    if kind == "exact":
        return _flip_chunks(G), 2 ** G, True
    return wild_weights(G, n_resamples, seed, kind), n_resamples, False


def wild_replicates(contributions: np.ndarray, estimate: np.ndarray, *, strata: np.ndarray | None = None,
                    n_resamples: int = 20_000, seed: int | np.random.Generator = 0,
                    weights: str | None = None) -> tuple[np.ndarray, bool]:
    """Wild cluster bootstrap replicates θ* = θ̂ + Σ_g v_g ψ̃_g of several outputs at once.

    ``ψ̃`` are the contributions centred within strata and scaled by √(G_h/(G_h − 1)), so the
    replicates' variance is the CR1 variance (SPEC §4.1); the same v_g multiplies every output
    (paired). The weights follow :func:`weights_for` of G (every sign pattern once when
    enumerated: 2^G replicates, no seed). Returns the ``(B, m)`` replicates and whether they were
    enumerated.

    >>> reps, exact = wild_replicates(np.array([[0.1], [-0.1]]), np.array([0.5]))
    >>> sorted(reps[:, 0].round(6).tolist()), exact
    ([0.217157, 0.5, 0.5, 0.782843], True)
    """
    psi = _centred(contributions, strata)
    estimate = np.asarray(estimate, dtype=np.float64)
    rows, _, exact = _weight_rows(psi.shape[0], n_resamples, run_seed(seed), weights)
    return np.concatenate([estimate[None, :] + V @ psi for V in rows]), exact


def wild_max_range(contributions: np.ndarray, estimate: np.ndarray, *, strata: np.ndarray | None = None,
                   n_resamples: int = 20_000, seed: int | np.random.Generator = 0,
                   weights: str | None = None) -> tuple[float, float, int, bool, str]:
    """Centred max-range omnibus (SPEC §4.4) with wild cluster replicates (SPEC §4.1).

    T = max_s θ̂_s − min_s θ̂_s; each replicate's centred deviations are Σ_g v_g ψ̃_gs (see
    :func:`wild_replicates`), T* = their range, and p = (1 + #{T* ≥ T})/(1 + B) over B draws or
    over all 2^G sign patterns (weights by :func:`weights_for` of G). No covariance is inverted,
    so it works when S − 1 ≥ G, where a cluster-robust Wald test is singular. Returns ``(T, p,
    draws, exact, weights)``; p is NaN when some θ̂_s is undefined.

    >>> wild_max_range(np.array([[0.1, -0.1], [-0.1, 0.1]]), np.array([0.5, 0.5]))
    (0.0, 1.0, 4, True, 'exact')
    """
    psi = _centred(contributions, strata)
    estimate = np.asarray(estimate, dtype=np.float64)
    T = float(np.max(estimate) - np.min(estimate))
    kind = weights or weights_for(psi.shape[0])
    if np.isnan(T) or np.isnan(psi).any():
        return T, math.nan, 0, False, kind
    rows, n, exact = _weight_rows(psi.shape[0], n_resamples, run_seed(seed), kind)
    tol = _TIE_RTOL * max(1.0, abs(T))
    hits = 0
    for V in rows:
        dev = V @ psi
        hits += int(np.count_nonzero(dev.max(axis=1) - dev.min(axis=1) >= T - tol))
    return T, (1.0 + hits) / (1.0 + n), n, exact, kind
