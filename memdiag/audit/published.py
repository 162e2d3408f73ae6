"""What a published comparison's summary numbers allow: McNemar p bounds, power, p-values at a
bootstrap floor, and whether "significant" survives the family (SPEC §7.7).

One job: papers print a net count, two accuracies, a difference or a p-value, never the 2×2
table. Each function here takes those numbers and the benchmark's size (and cluster structure)
and returns everything the summaries are compatible with:

- :func:`mcnemar_bounds` — the exact McNemar p over every discordance b + c the numbers allow
  (from b − c alone it ranges from 2·2^(−|m|) to near 1), and the largest discordance at which
  the difference is still significant;
- :func:`summary_power` — the detectable effect and power of the comparison: exact McNemar for
  independent questions, the design's t test (:func:`~memdiag.engine.inference.power.design_power`) with the clusters'
  design effect for clustered ones;
- :func:`p_at_floor` — whether a p-value equals a multiple of a bootstrap floor 2/(B + 1) (a
  bound, not a measurement), and the Holm multiple (family size) that produces it;
- :func:`survives_family` — whether a published unadjusted p survives Holm's adjustment over its
  family.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from memdiag.audit.granularity import counts_for, decimals_of, half_unit
from memdiag.core.kinds import declare
from memdiag.core.notes import Note
from memdiag.core.result import as_result
from memdiag.engine.inference import (
    adjust,
    design_detectable_effect,
    design_power,
    detectable_effect,
    mcnemar_power,
)
from memdiag.engine.inference.exact import exact_p_value
from memdiag.errors import VerdictError

__all__ = ["design_effect", "mcnemar_bounds", "p_at_floor", "summary_power", "survives_family"]

#: Replicate counts tried by :func:`p_at_floor` when the paper does not say (common choices).
COMMON_RESAMPLES: tuple[int, ...] = (999, 1000, 1999, 2000, 4999, 5000, 9999, 10_000, 20_000, 50_000, 100_000)


def _whole(value: object, what: str) -> int:
    if isinstance(value, bool) or not float(value).is_integer() or int(value) < 1:
        raise VerdictError(f"{what} must be a positive whole number, got {value!r}.")
    return int(value)


def _level(value: float, what: str = "alpha") -> float:
    if not 0 < float(value) < 1:
        raise VerdictError(f"{what} must lie strictly between 0 and 1, got {value!r}.")
    return float(value)


def design_effect(cluster_sizes: Sequence[int], icc: float) -> float:
    """Variance inflation of a mean over clusters of the given sizes with intra-cluster
    correlation ``icc``: 1 + (Σ n_g²/N − 1)·ρ.

    Parameters
    ----------
    cluster_sizes
        The number of queries n_g in each of the G ≥ 2 clusters (conversations, episodes,
        personas); N = Σ n_g.
    icc
        The intra-cluster correlation ρ in [0, 1) of the per-query values (for a paired
        difference, of the per-query differences).

    Returns
    -------
    float
        The design effect deff ≥ 1: the variance of the mean under the cluster structure over
        its variance with independent queries.

    Raises
    ------
    VerdictError
        Fewer than two cluster sizes, a size that is not positive, or ``icc`` outside [0, 1).

    Notes
    -----
    With equal clusters of m queries this is Kish's 1 + (m − 1)ρ; with unequal sizes the mean
    size is replaced by Σ n_g²/N = (CV² + 1)·m̄ (CV the coefficient of variation of the sizes).
    For a paired difference ρ is the correlation of the per-query differences within a
    cluster: the part of the systems' gap that varies by conversation, episode or persona.

    References
    ----------
    SPEC §7.7 (audit from published summaries: power with clusters) and SPEC §4.1 (few
    clusters); Raw-RAG paper C.6 (the benchmark's clusters).
    Kish, L. (1965). Survey Sampling. Wiley.
    Eldridge, S. M., Ashby, D. & Kerry, S. (2006). Sample size for cluster randomized trials:
    effect of coefficient of variation of cluster size and analysis method. International
    Journal of Epidemiology 35(5), 1292–1300.

    Examples
    --------
    Ten clusters of 100 queries: no correlation, no inflation; ρ = 0.02 nearly triples the
    variance (1 + 99·0.02 = 2.98). Unequal sizes 50 and 150 (Σ n_g²/N = 125) inflate more:

    >>> design_effect([100] * 10, 0.0), round(design_effect([100] * 10, 0.02), 2)
    (1.0, 2.98)
    >>> round(design_effect([50, 150], 0.02), 2)
    3.48
    """
    sizes = np.asarray(list(cluster_sizes), dtype=float)
    if sizes.size < 2 or (sizes <= 0).any():
        raise VerdictError(f"cluster sizes must be two or more positive counts, got {list(cluster_sizes)!r}.")
    if not 0 <= icc < 1:
        raise VerdictError(f"icc must lie in [0, 1), got {icc!r}.")
    return float(1 + (np.sum(sizes ** 2) / sizes.sum() - 1) * icc)


def _sizes(n: int, cluster_sizes: Sequence[int] | None, n_clusters: int | None) -> list[int] | None:
    """The clusters' sizes: given, or n spread as evenly as possible over ``n_clusters``."""
    if cluster_sizes is not None:
        sizes = [_whole(s, "a cluster size") for s in cluster_sizes]
        if sum(sizes) != n:
            raise VerdictError(f"the cluster sizes add up to {sum(sizes)}, not n = {n}.")
        return sizes
    if n_clusters is None:
        return None
    g = _whole(n_clusters, "n_clusters")
    if g < 2 or g > n:
        raise VerdictError(f"n_clusters must lie in [2, n = {n}], got {g}.")
    return [n // g + (1 if k < n % g else 0) for k in range(g)]


def _design_p(delta: np.ndarray, psi: np.ndarray, n: int, deff: float, df: float) -> np.ndarray:
    """Two-sided p of the design's t test of a difference δ with discordance ψ (proportions)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(deff * np.clip(psi - delta ** 2, 0, None) / n)
        t = np.abs(delta) / se
    p = np.where(se > 0, 2 * stats.t.sf(t, df), np.where(delta == 0, 1.0, 0.0))
    return np.where(np.isnan(se), np.nan, p)     # a NaN standard error never becomes p = 0


def _nets(n: int, net, diff, accuracy_a, accuracy_b, decimals) -> tuple[list[int], str]:
    """The net counts b − c the summaries allow, and how they were found."""
    if net is not None:
        if not float(net).is_integer() or abs(int(net)) > n:
            raise VerdictError(f"net must be a whole number of questions in [−{n}, {n}], got {net!r}.")
        return [int(net)], f"net {int(net):+d}"
    if diff is not None:
        tol = 2 * half_unit(diff, decimals)
        found = counts_for(float(diff), n, tol, signed=True)
        return found, f"difference {diff!s} points (±{tol:g}: two rounded percentages)"
    if accuracy_a is not None and accuracy_b is not None:
        a = counts_for(float(accuracy_a), n, half_unit(accuracy_a, decimals))
        b = counts_for(float(accuracy_b), n, half_unit(accuracy_b, decimals))
        return sorted({x - y for x in a for y in b}), f"accuracies {accuracy_a!s} and {accuracy_b!s}"
    raise VerdictError("mcnemar_bounds: give net (benefit − tax count), diff (a − b in points), or both "
                       "accuracies.")


def mcnemar_bounds(
    n: int,
    *,
    net: int | None = None,
    diff: float | str | None = None,
    accuracy_a: float | str | None = None,
    accuracy_b: float | str | None = None,
    benefit: float | str | None = None,
    tax: float | str | None = None,
    neither: int | None = None,
    alpha: float = 0.05,
    family: int = 1,
    cluster_sizes: Sequence[int] | None = None,
    n_clusters: int | None = None,
    decimals: int | None = None,
) -> pd.DataFrame:
    """Exact McNemar p-values of every 2×2 table a published comparison's summaries allow (SPEC §7.7).

    Parameters
    ----------
    n
        Questions both systems answered.
    net
        The net count benefit − tax (b − c), exact (``-20``).
    diff
        Or the difference a − b in points, as printed (``"1.0"``): the nets within two
        half-units (each accuracy was rounded).
    accuracy_a, accuracy_b
        The two accuracies in points, as printed: they give the net (when neither ``net`` nor
        ``diff`` does) and bound the discordance (a query both answer or both miss cannot be
        discordant).
    benefit, tax
        The benefit rate b/n and tax rate c/n in points, as printed: pin b and c.
    neither
        The count of questions both systems miss (a Venn diagram's outside), exact: b + c ≤ n −
        neither.
    alpha, family
        Level, and the size of the family the comparison was adjusted in (Holm's first step uses
        α/family, the most favourable).
    cluster_sizes, n_clusters
        The benchmark's clusters (conversations, personas): adds the design's t test (clustered
        with t(G − 1), no intra-cluster correlation: the most favourable case) beside McNemar,
        which treats questions as independent.
    decimals
        Decimals the percentages were printed with (default: as written).

    Returns
    -------
    pandas.DataFrame
        One row per compatible table: ``net`` (b − c), ``benefit``, ``tax``, ``discordant``
        (b + c), ``discordance`` ((b + c)/n, points), ``p`` (exact McNemar), ``significant``
        (p ≤ α/family), and with clusters ``p_design``. ``attrs``: ``p_min``, ``p_max``,
        ``max_significant_discordant`` (the largest b + c at which it is significant, None if
        none), ``verdict`` (``significant``, ``not significant`` or ``depends on the discordance``)
        and ``notes``.

    Raises
    ------
    VerdictError
        ``n``, ``family`` or a cluster size that is not a positive whole number; ``alpha``
        outside (0, 1); none of ``net``, ``diff`` and both accuracies; a ``net`` outside
        [−n, n]; cluster sizes that do not add up to ``n``, or ``n_clusters`` outside [2, n];
        summaries no 2×2 table of ``n`` questions satisfies.
    ValueError
        A number given as text that is not a number.

    Notes
    -----
    With b − c = m fixed, every discordance b + c = |m|, |m| + 2, … that the other summaries
    allow is tried; the exact McNemar p = min(1, 2·BinomCDF(min(b, c); b + c, ½)) grows with the
    discordance, from 2·2^(−|m|) when the systems disagree only where one of them wins. Given the
    accuracies A = a + b and R = a + c (counts), b + c = A + R − 2a and a ≥ max(0, A + R − n)
    (the d = n − A − R + a questions both miss are not negative), so
    b + c ≤ A + R − 2·max(0, A + R − n). With clusters, ``p_design`` is the t test of δ = m/n with
    se = √(deff·(ψ − δ²)/n), deff = 1 (no intra-cluster correlation), on G − 1 df (SPEC §4.1).

    References
    ----------
    SPEC §7.7 (McNemar p bounds), SPEC §5.1 (exact McNemar) and SPEC §4.1 (the design's t
    test); Memory Tax review (SimpleMem's net −20 and tax 12.0% on LongMemEval-s).
    McNemar, Q. (1947). Note on the sampling error of the difference between correlated
    proportions or percentages. Psychometrika 12(2), 153–157.

    Examples
    --------
    SimpleMem's net of −20 on LongMemEval-s (500 questions, one per corpus), from the net alone
    and with its published tax of 12.0% (60 questions, so the benefit is 40):

    >>> alone = mcnemar_bounds(500, net=-20)
    >>> f"{alone.attrs['p_min']:.2g}", alone.attrs["verdict"], alone.attrs["max_significant_discordant"]
    ('1.9e-06', 'depends on the discordance', 94)
    >>> pinned = mcnemar_bounds(500, net=-20, tax="12.0")
    >>> pinned[["benefit", "tax", "p", "significant"]].round(4)
       benefit  tax       p  significant
    0       40   60  0.0569        False
    """
    n = _whole(n, "n")
    alpha, family = _level(alpha), _whole(family, "family")
    nets, basis = _nets(n, net, diff, accuracy_a, accuracy_b, decimals)
    pinned_b = counts_for(float(benefit), n, half_unit(benefit, decimals)) if benefit is not None else None
    pinned_c = counts_for(float(tax), n, half_unit(tax, decimals)) if tax is not None else None
    acc_a = counts_for(float(accuracy_a), n, half_unit(accuracy_a, decimals)) if accuracy_a is not None else None
    acc_b = counts_for(float(accuracy_b), n, half_unit(accuracy_b, decimals)) if accuracy_b is not None else None
    rows = []
    for m in nets:
        for total in range(abs(m), n + 1, 2):
            b, c = (total + m) // 2, (total - m) // 2
            if pinned_b is not None and b not in pinned_b or pinned_c is not None and c not in pinned_c:
                continue
            if neither is not None and total > n - int(neither):
                continue
            if acc_a is not None and acc_b is not None and not any(
                    0 <= A - b == R - c and A + R - (A - b) <= n for A in acc_a for R in acc_b):
                continue
            rows.append((m, b, c, total))
    if not rows:
        raise VerdictError(f"mcnemar_bounds: no 2×2 table of {n} questions has {basis}"
                           + (f", benefit {benefit!s}" if benefit is not None else "")
                           + (f", tax {tax!s}" if tax is not None else "") + ": the summaries are inconsistent.")
    table = np.array(rows, dtype=np.int64)
    out = pd.DataFrame(table, columns=["net", "benefit", "tax", "discordant"])
    out["discordance"] = 100 * out["discordant"] / n
    out["p"] = exact_p_value(np.minimum(out["benefit"], out["tax"]), out["discordant"])
    level = alpha / family
    out["significant"] = out["p"] <= level
    sizes = _sizes(n, cluster_sizes, n_clusters)
    notes = [Note(f"{len(out)} tables of {n} questions are compatible with {basis}"
                  + (f", benefit {benefit!s}%" if benefit is not None else "")
                  + (f", tax {tax!s}%" if tax is not None else "")
                  + (f", {int(neither)} questions both miss" if neither is not None else ""), code="compatible-tables"),
             Note("exact McNemar treats the questions as independent (SPEC §5.1)", code="mcnemar-independent",
                  severity="caution")]
    if sizes is not None:
        out["p_design"] = _design_p(out["net"].to_numpy() / n, out["discordant"].to_numpy() / n, n, 1.0,
                                    len(sizes) - 1)
        notes.append(Note(f"p_design: the t test on {len(sizes) - 1} df of {len(sizes)} clusters with no "
                          "intra-cluster correlation (design effect 1, the most favourable case; SPEC §4.1)",
                          code="p-design"))
    hits = out.loc[out["significant"], "discordant"]
    verdict = ("significant" if out["significant"].all() else "not significant" if not out["significant"].any()
               else "depends on the discordance")
    out.attrs = {"function": "mcnemar_bounds", "unit": "points", "n": n, "alpha": alpha, "family": family,
                 "p_min": float(out["p"].min()), "p_max": float(out["p"].max()),
                 "max_significant_discordant": int(hits.max()) if len(hits) else None, "verdict": verdict,
                 "notes": notes}
    if sizes is not None:
        out.attrs.update(p_design_min=float(out["p_design"].min()), p_design_max=float(out["p_design"].max()),
                         n_clusters=len(sizes))
    return as_result(out, declare(points=("discordance",), p=("p", "p_design")))


def summary_power(
    n: int,
    diff: float,
    *,
    discordance: float | Iterable[float] = (10.0, 20.0, 30.0),
    cluster_sizes: Sequence[int] | None = None,
    n_clusters: int | None = None,
    icc: float | Iterable[float] = 0.0,
    alpha: float = 0.05,
    power: float = 0.8,
    family: int = 1,
) -> pd.DataFrame:
    """Detectable effect and power of a published paired comparison from its size alone (SPEC §7.7).

    Parameters
    ----------
    n
        Questions.
    diff
        The published difference in points (its power is reported).
    discordance
        Share of questions on which the two systems disagree, (b + c)/n in points, one value or
        several: papers rarely print it, so a range is shown.
    cluster_sizes, n_clusters
        The benchmark's clusters (LoCoMo's ten conversations, PersonaMem-v2's 40 personas): the
        design's t test on G − 1 df with the design effect of ``icc``; without them exact McNemar.
    icc
        Intra-cluster correlation of the per-question difference, one value or several (0: the
        most favourable case).
    alpha, power, family
        Two-sided level, target power, and the family size (α/family: Holm's first step).

    Returns
    -------
    pandas.DataFrame
        One row per (discordance, icc): ``n, n_clusters, discordance, icc, design_effect, se``
        (points, the standard error of the difference at no difference), ``df, alpha,
        detectable_effect`` (points), ``diff``, ``power`` (at ``diff``) and ``test``.

    Raises
    ------
    VerdictError
        ``n``, ``family`` or a cluster size that is not a positive whole number; ``alpha`` or
        ``power`` outside (0, 1); a discordance outside (0, 100] points; ``icc`` outside [0, 1);
        cluster sizes that do not add up to ``n``, or ``n_clusters`` outside [2, n].

    Notes
    -----
    Independent questions: :func:`memdiag.detectable_effect` and :func:`memdiag.mcnemar_power`
    (exact, SPEC §5.5) at ψ = discordance. Clustered: the per-question difference d ∈ {−1, 0, 1}
    has variance ψ − δ², so se = √(deff·ψ/n) at δ = 0 (for the detectable effect,
    :func:`~memdiag.engine.inference.power.design_detectable_effect`) and √(deff·(ψ − δ²)/n) at the published δ (for
    :func:`~memdiag.engine.inference.power.design_power`), with deff = :func:`design_effect` and df = G − 1 (SPEC §4.1).
    A difference larger than the discordance is impossible (power undefined).

    References
    ----------
    SPEC §7.7 (power from published summaries), SPEC §5.5 (power and detectable effect of exact
    McNemar) and SPEC §4.1 (power of the design's t test); Memory Tax review (MemOS's +1.0
    points on PersonaMem-v2).
    Kish, L. (1965). Survey Sampling. Wiley.
    Eldridge, S. M., Ashby, D. & Kerry, S. (2006). Sample size for cluster randomized trials:
    effect of coefficient of variation of cluster size and analysis method. International
    Journal of Epidemiology 35(5), 1292–1300.

    Examples
    --------
    MemOS's +1.0 points on PersonaMem-v2 (934 questions in 40 personas), if the two systems
    disagree on 20% of the questions and the personas add no correlation:

    >>> out = summary_power(934, 1.0, discordance=20, n_clusters=40)
    >>> out[["discordance", "df", "detectable_effect", "power"]].round(3)
       discordance  df  detectable_effect  power
    0         20.0  39              4.204  0.102
    """
    n = _whole(n, "n")
    alpha, family = _level(alpha), _whole(family, "family")
    _level(power, "power")
    sizes = _sizes(n, cluster_sizes, n_clusters)
    level = alpha / family
    delta = float(diff) / 100
    rows = []
    for psi_points in np.atleast_1d(np.asarray(list(discordance) if not np.isscalar(discordance) else [discordance],
                                               dtype=float)):
        psi = psi_points / 100
        if not 0 < psi <= 1:
            raise VerdictError(f"discordance must lie in (0, 100] points, got {psi_points!r}.")
        feasible = abs(delta) <= psi
        for rho in np.atleast_1d(np.asarray(list(icc) if not np.isscalar(icc) else [icc], dtype=float)):
            row = {"n": n, "n_clusters": len(sizes) if sizes else None, "discordance": psi_points,
                   "icc": float(rho), "alpha": level, "diff": float(diff)}
            if sizes is None:
                row.update(design_effect=1.0, se=100 * math.sqrt(psi / n), df=math.inf,
                           detectable_effect=100 * detectable_effect(n, psi, alpha=level, power=power),
                           power=mcnemar_power(n, (psi + abs(delta)) / 2, (psi - abs(delta)) / 2, alpha=level)
                           if feasible else math.nan, test="exact McNemar")
            else:
                deff = design_effect(sizes, rho)
                se0 = math.sqrt(deff * psi / n)
                se = math.sqrt(deff * (psi - delta ** 2) / n) if feasible else math.nan
                row.update(design_effect=deff, se=100 * se0, df=len(sizes) - 1,
                           detectable_effect=100 * design_detectable_effect(se0, len(sizes) - 1, alpha=level,
                                                                            power=power),
                           power=design_power(abs(delta), se, len(sizes) - 1, alpha=level) if feasible and se > 0
                           else math.nan, test=f"t on {len(sizes) - 1} df, design effect of icc")
            rows.append(row)
    out = pd.DataFrame(rows, columns=["n", "n_clusters", "discordance", "icc", "design_effect", "se", "df", "alpha",
                                      "detectable_effect", "diff", "power", "test"])
    out.attrs = {"function": "summary_power", "unit": "points", "power_target": power,
                 "notes": [Note(f"detectable effect: the smallest |difference| detected with power {power:g} at "
                                f"level {level:g}" + (f" (α = {alpha:g} over a family of {family})" if family > 1
                                                      else ""), code="detectable-effect")]}
    return as_result(out, declare(points=("discordance", "se", "detectable_effect", "diff"),
                                  real=("icc", "design_effect", "df"), probability=("alpha", "power")))


def p_at_floor(
    p: float | str,
    *,
    n_resamples: int | Iterable[int] | None = None,
    sides: int = 2,
    max_family: int = 200,
    decimals: int | None = None,
) -> pd.DataFrame:
    """Is a published p-value a multiple of a bootstrap p-value's floor? (SPEC §4.4, §7.7).

    Parameters
    ----------
    p
        The published p-value as printed (``"0.0012"``), adjusted or not.
    n_resamples
        The replicates B the paper used (one or several); default: common choices
        (:data:`COMMON_RESAMPLES`).
    sides
        2 for a two-sided bootstrap sign test (floor 2/(B + 1)), 1 for a one-sided or max-range
        test (floor 1/(B + 1)).
    max_family
        Largest multiple tried.
    decimals
        Decimals ``p`` was printed with (default: as written).

    Returns
    -------
    pandas.DataFrame
        One row per (B, multiple m) with m·floor within half a unit of ``p``: ``p, n_resamples,
        sides, floor, multiple, value`` (m·floor); empty when none. m = 1: ``p`` is the floor
        itself; m > 1: Holm's first step over a family of m (or a later step of a larger family),
        or Bonferroni over m, applied to a p at the floor.

    Notes
    -----
    A resampled p-value with no replicate as extreme as the data is (1 + 0)·sides/(1 + B): it
    says only that the true p is smaller. Holm multiplies the smallest p of a family of m by m,
    so an adjusted p of m·2/(B + 1) is the floor times the family size: a bound ("< 0.0012"),
    not a measurement.

    Raises
    ------
    VerdictError
        ``p`` outside (0, 1]; ``sides`` not 1 or 2; a replicate count or ``max_family`` that is
        not a positive whole number.
    ValueError
        ``p`` given as text that is not a number.

    References
    ----------
    SPEC §4.4 (what a bootstrap returns: the Monte-Carlo floor of a p-value) and SPEC §7.7 (p at
    a bootstrap floor); Raw-RAG paper §4.3 and C.6 (Holm p = 0.0012 for removing the reranker,
    20,000 replicates).
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scandinavian
    Journal of Statistics 6(2), 65–70.

    Examples
    --------
    The Raw-RAG paper's Holm p of 0.0012 for removing the reranker (20,000 replicates, §4.3):

    >>> hit = p_at_floor("0.0012", n_resamples=20_000).iloc[0]
    >>> int(hit["multiple"]), f"{hit['floor']:.6g}", f"{hit['value']:.6g}"
    (12, '9.9995e-05', '0.00119994')
    """
    value = float(p)
    if not 0 < value <= 1:
        raise VerdictError(f"p_at_floor: {p!r} is not a p-value in (0, 1].")
    if sides not in (1, 2):
        raise VerdictError(f"sides must be 1 or 2, got {sides!r}.")
    tolerance = half_unit(p, decimals) + 1e-12
    candidates = COMMON_RESAMPLES if n_resamples is None else (
        [n_resamples] if isinstance(n_resamples, (int, np.integer)) else list(n_resamples))
    rows = []
    for b in candidates:
        floor = sides / (1 + _whole(b, "n_resamples"))
        for m in range(1, _whole(max_family, "max_family") + 1):
            if abs(m * floor - value) <= tolerance:
                rows.append({"p": value, "n_resamples": int(b), "sides": sides, "floor": floor, "multiple": m,
                             "value": m * floor})
    out = pd.DataFrame(rows, columns=["p", "n_resamples", "sides", "floor", "multiple", "value"])
    out.attrs = {"function": "p_at_floor", "decimals": decimals_of(p) if decimals is None else decimals,
                 "notes": [Note(f"p = {p!s} matches m·{sides}/(B + 1) within {tolerance:.2g} for {len(out)} (B, m)",
                                code="p-at-floor")]}
    return as_result(out, declare(p=("p", "floor", "value")))


def survives_family(
    p: float | Sequence[float],
    *,
    family: int | None = None,
    alpha: float = 0.05,
    correction: str = "holm",
) -> pd.DataFrame:
    """Does a published "significant" survive the adjustment over its family? (SPEC §5.3, §7.7).

    Parameters
    ----------
    p
        The unadjusted p-value of the claim, or every p-value of the family (then the
        adjustment is exact).
    family
        The number of comparisons in the family, when only ``p`` is known (the 21 pairs of 7
        systems; the 12 ablations of one benchmark-metric family).
    alpha, correction
        Level, and ``holm`` (default), ``bonferroni`` or ``fdr_bh``.

    Returns
    -------
    pandas.DataFrame
        One row per p-value: ``p, family, p_adj_low, p_adj_high`` (the adjusted p's range over
        the unknown others; equal when the whole family is given), ``alpha``, ``verdict``
        (``survives``, ``does not survive``, ``depends on the other p-values``).

    Notes
    -----
    Holm's adjusted p of the j-th smallest of m is max_{i≤j} (m − i + 1)·p_(i), which lies in
    [p, m·p] whatever the others are: it survives for sure when min(1, m·p) ≤ α, never when
    p > α. Bonferroni is m·p exactly; Benjamini–Hochberg also lies in [p, m·p].

    Raises
    ------
    VerdictError
        ``alpha`` outside (0, 1); an unknown ``correction``; a p-value outside [0, 1] or NaN;
        several p-values with a ``family`` of another size; a ``family`` that is not a positive
        whole number.

    References
    ----------
    SPEC §5.3 (multiplicity) and SPEC §7.7 (survival of "significant"); Raw-RAG paper C.6 (Holm
    over one benchmark × metric family).
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scandinavian
    Journal of Statistics 6(2), 65–70.
    Benjamini, Y. & Hochberg, Y. (1995). Controlling the false discovery rate. Journal of the
    Royal Statistical Society B 57(1), 289–300.

    Examples
    --------
    >>> row = survives_family(0.01, family=21).iloc[0]
    >>> float(row["p_adj_low"]), round(float(row["p_adj_high"]), 4), row["verdict"]
    (0.01, 0.21, 'depends on the other p-values')
    >>> survives_family([0.001, 0.02, 0.04])["verdict"].tolist()
    ['survives', 'survives', 'survives']
    """
    alpha = _level(alpha)
    if correction not in ("holm", "bonferroni", "fdr_bh"):
        raise VerdictError(f"unknown correction {correction!r}; use holm, bonferroni or fdr_bh.")
    values = np.atleast_1d(np.asarray(p, dtype=float))
    if ((values < 0) | (values > 1)).any() or np.isnan(values).any():
        raise VerdictError(f"survives_family: p-values must lie in [0, 1], got {p!r}.")
    if values.size > 1 or family is None:
        if family is not None and family != values.size:
            raise VerdictError(f"survives_family: {values.size} p-values given but family = {family}.")
        low = high = adjust(values, method=correction)
        m = values.size
    else:
        m = _whole(family, "family")
        high = np.minimum(1.0, m * values)
        low = high if correction == "bonferroni" else values
    verdict = np.where(high <= alpha, "survives", np.where(low > alpha, "does not survive",
                                                           "depends on the other p-values"))
    out = pd.DataFrame({"p": values, "family": m, "p_adj_low": low, "p_adj_high": high, "alpha": alpha,
                        "verdict": verdict})
    out.attrs = {"function": "survives_family", "correction": correction,
                 "notes": [Note(f"{correction} over a family of {m}" + ("" if values.size > 1 else
                                                                        ": the adjusted p lies in [p, m·p] whatever "
                                                                        "the other p-values are"),
                                code="family-adjustment")]}
    return as_result(out, declare(p=("p", "p_adj_low", "p_adj_high"), probability=("alpha",)))
