"""Auditing the claims papers make: aggregates, rankings, power and stated comparisons (SPEC §5–§7).

- :func:`check_aggregate` recomputes an overall score from published category scores and
  counts and flags a mismatch (Mem0's LoCoMo 66.88 vs the 62.14 its categories imply).
- :func:`rank_stability` gives each system's bootstrap probability of ranking first and its
  whole rank distribution under the benchmark's design and scheme.
- :func:`mcnemar_power` and :func:`detectable_effect` give the exact power of the paired exact
  McNemar test and the smallest accuracy difference it detects.
- :func:`audit_claims` checks a file of claims ("A beats B on LoCoMo") against the verdicts:
  recomputed numbers, test, Holm adjustment per family, detectable effect, and a verdict.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from scipy import optimize, stats

from memdiag._compare import EVIDENCE_METRICS, align_for, compare, metric_columns
from memdiag._designs import KINDS, Design, resolve_design
from memdiag.errors import SchemeError, VerdictError, where
from memdiag._resampling import bootstrap_sums
from memdiag._schemes import Scheme, get_scheme, known_schemes, resolve_scheme
from memdiag._inference import adjust
from memdiag._verdicts import MissingQueryPolicy, MissingVerdictPolicy

#: Default tolerance of :func:`check_aggregate`, in points (see its Notes).
AGGREGATE_TOLERANCE = 0.01

#: The claim verdicts, in order of precedence (the first that applies is given).
VERDICTS: tuple[str, ...] = ("not checkable", "value mismatch", "contradicted", "not significant", "supported")

#: Fields of a claim (:func:`read_claims`).
CLAIM_FIELDS: tuple[str, ...] = ("id", "family", "scheme", "benchmark", "metric", "system_a", "system_b",
                                 "threshold", "direction", "design", "reported_value", "reported_diff",
                                 "reported_p", "tolerance")
_NUMBERS = ("threshold", "reported_value", "reported_diff", "reported_p", "tolerance")
_DIRECTIONS = {"greater": 1, "less": -1, "different": 0}
#: Tail mass of the discordant count left out of the power sum.
_TAIL = 1e-14


# --------------------------------------------------------------------------------------------
# aggregate consistency
# --------------------------------------------------------------------------------------------
def _series(values: Mapping | Sequence | pd.Series, name: str) -> pd.Series:
    out = pd.Series(values, dtype=float) if not isinstance(values, pd.Series) else values.astype(float)
    if out.isna().any() or len(out) == 0:
        raise VerdictError(f"check_aggregate: {name} must be numbers, one per category (got {values!r}).")
    out.index = out.index.map(str)
    return out


def _aggregate_weights(scores: pd.Series, counts: pd.Series | None, weighting: str) -> tuple[pd.Series, list[str]]:
    """Weight per category (summing to 1) and notes, for question, macro or a scheme's weighting."""
    def by_count(kept: pd.Index) -> pd.Series:
        if counts is None:
            raise VerdictError(f"check_aggregate: weighting '{weighting}' weights categories by their "
                               "question counts; pass counts.")
        return counts[kept] / counts[kept].sum()

    if weighting == "question":
        return by_count(scores.index), []
    if weighting == "macro":
        return pd.Series(1.0 / len(scores), index=scores.index), []
    scheme = get_scheme(weighting)
    label = {c: scheme.canonical(c) for c in scores.index}
    notes = []
    if scheme.group_weights is not None:
        given = {label[c]: c for c in scores.index}
        lacking = [g for g in scheme.group_weights if g not in given]
        if lacking:
            raise SchemeError(f"scheme '{scheme.name}' weights {', '.join(lacking)}, which the category "
                              f"scores lack (have: {', '.join(scores.index)}).")
        weights = pd.Series({given[g]: w for g, w in scheme.group_weights.items()})
        kept = weights.index
    else:
        kept = pd.Index([c for c in scores.index if label[c] not in scheme.exclude
                         and (scheme.include is None or label[c] in scheme.include)])
        weights = by_count(kept)
    dropped = [c for c in scores.index if c not in kept]
    if dropped:
        notes.append(f"scheme {scheme.name} leaves out {', '.join(dropped)}")
    return weights.reindex(scores.index, fill_value=0.0), notes


def check_aggregate(
    category_scores: Mapping[str, float] | Sequence[float] | pd.Series,
    counts: Mapping[str, float] | Sequence[float] | pd.Series | None,
    reported_overall: float,
    weighting: str = "question",
    tolerance: float = AGGREGATE_TOLERANCE,
) -> pd.DataFrame:
    """Recompute an overall score from category scores and counts, and flag a mismatch (SPEC §7).

    Parameters
    ----------
    category_scores
        Published per-category scores in points, as a mapping category -> score (or a sequence
        in the order of ``counts``).
    counts
        Questions per category, same keys or order (needed for question weighting; may be None
        for ``"macro"``).
    reported_overall
        The published overall score, in points.
    weighting
        ``"question"`` (Σ n_k s_k / Σ n_k: LoCoMo, LongMemEval, PersonaMem-v2), ``"macro"`` (the
        unweighted mean of the categories: MEME's six tasks), or a scheme name/file (its
        weights, nested ones included, or its exclusions with question weighting; D.5).
    tolerance
        Largest |reported − recomputed| still counted consistent, in points (default 0.01).

    Returns
    -------
    pandas.DataFrame
        One row: ``weighting, n_categories, n, recomputed, reported, difference`` (reported −
        recomputed) ``, tolerance, consistent, status`` (``"consistent"`` or ``"mismatch"``).
        ``attrs["weights"]`` holds the weight of each category and ``attrs["notes"]`` says
        whether the other standard weighting (question or macro) reproduces the reported number.

    Notes
    -----
    overall = Σ_k w_k s_k with w_k = n_k / Σ n (question) or 1/K (macro).
    Why 0.01 points: a published score rounded to 2 decimals is off its exact value by at most
    half a unit in the last place, 0.005; each category score is off by at most 0.005 too, and a
    weighted mean (weights summing to 1) of errors ≤ 0.005 is ≤ 0.005. So an honest aggregate
    differs from the recomputed one by at most 0.005 + 0.005 = 0.01 points (a floating-point
    slack of 1e-9 is added). Scores printed with one decimal need ``tolerance=0.1``.
    Source: SPEC §7; Raw-RAG paper A.1.3 (Mem0's published categories give 62.14, not 66.88).

    Examples
    --------
    Mem0's published LoCoMo categories (single-hop, multi-hop, temporal, open-domain):

    >>> out = check_aggregate({"single-hop": 67.13, "multi-hop": 51.15, "temporal": 55.51,
    ...                        "open-domain": 72.93}, {"single-hop": 841, "multi-hop": 282,
    ...                        "temporal": 321, "open-domain": 96}, reported_overall=66.88)
    >>> out[["n", "recomputed", "reported", "status"]].round(2)
          n  recomputed  reported    status
    0  1540       62.14     66.88  mismatch
    """
    scores = _series(category_scores, "category_scores")
    count_series = None
    if counts is not None:
        count_series = _series(counts, "counts")
        if not isinstance(category_scores, Mapping | pd.Series):
            scores.index = count_series.index
        if set(count_series.index) != set(scores.index):
            raise VerdictError(f"check_aggregate: categories of scores ({', '.join(scores.index)}) and "
                               f"counts ({', '.join(count_series.index)}) differ.")
        count_series = count_series[scores.index]
        if (count_series < 0).any():
            raise VerdictError("check_aggregate: counts must be non-negative.")
    weights, notes = _aggregate_weights(scores, count_series, weighting)
    recomputed = float((weights * scores).sum())
    difference = float(reported_overall) - recomputed
    consistent = abs(difference) <= tolerance + 1e-9
    for other in ("question", "macro"):
        if other != weighting and (other == "macro" or count_series is not None):
            value = float((_aggregate_weights(scores, count_series, other)[0] * scores).sum())
            matches = abs(float(reported_overall) - value) <= tolerance + 1e-9
            notes.append(f"{other} weighting gives {value:.2f}, which "
                         f"{'matches' if matches else 'does not match'} the reported {reported_overall}")
    used = weights[weights > 0].index
    out = pd.DataFrame([{
        "weighting": weighting, "n_categories": len(used),
        "n": float(count_series[used].sum()) if count_series is not None else np.nan,
        "recomputed": recomputed, "reported": float(reported_overall), "difference": difference,
        "tolerance": tolerance, "consistent": consistent,
        "status": "consistent" if consistent else "mismatch",
    }])
    if count_series is not None and (count_series == count_series.round()).all():
        out["n"] = out["n"].astype(np.int64)
    out.attrs = {"weights": weights.to_dict(), "notes": notes}
    return out


# --------------------------------------------------------------------------------------------
# rank stability
# --------------------------------------------------------------------------------------------
def _rank_credit(values: np.ndarray) -> np.ndarray:
    """Rank credit ``(B, S, S)`` per replicate from values ``(B, S)``: [b, s, r − 1] (rank 1 = largest).

    A tie among k systems over ranks r..r+k−1 (equal within a relative 1e-12) gives each of them
    1/k of each of those ranks, so Σ_r credit = 1 per system and Σ_s credit = 1 per rank, and
    Σ_r r·credit is the average ("fractional") rank.

    >>> _rank_credit(np.array([[3.0, 2.0, 1.0], [2.0, 2.0, 1.0]])).mean(axis=0).tolist()
    [[0.75, 0.25, 0.0], [0.25, 0.75, 0.0], [0.0, 0.0, 1.0]]
    """
    tol = 1e-12 * np.maximum(1.0, np.abs(values))[:, :, None]
    gap = values[:, None, :] - values[:, :, None]          # [b, s, t] = v_t − v_s
    above = (gap > tol).sum(axis=-1)
    tied = (np.abs(gap) <= tol).sum(axis=-1)                # includes s itself
    ranks = np.arange(1, values.shape[1] + 1)[None, None, :]
    inside = (ranks > above[..., None]) & (ranks <= (above + tied)[..., None])
    return inside / tied[..., None]


def rank_stability(
    df: pd.DataFrame,
    metric: str = "accuracy",
    scheme: str | Path | Scheme | None = None,
    design: str | None = None,
    n_resamples: int = 20_000,
    seed: int | np.random.Generator = 0,
    confidence_level: float = 0.95,
    systems: Sequence[str] | None = None,
    threshold: float | None = None,
    higher_is_better: bool = True,
    missing: MissingQueryPolicy = "error",
    verdict_missing: MissingVerdictPolicy = "as-wrong",
) -> pd.DataFrame:
    """How stable is the ranking? Bootstrap rank distribution of every system (SPEC §4, §6).

    Parameters
    ----------
    df
        Canonical verdicts.
    metric, scheme, threshold
        As in :func:`memdiag._compare.compare`: the per-system statistic, recomputed under the
        scheme's official aggregation in every replicate.
    design
        Resampling design (default: the scheme's, see :func:`memdiag._compare.resolve_design`).
    n_resamples, seed, confidence_level
        Bootstrap replicates, seed (the same seed gives the same table), level of the rank
        interval.
    higher_is_better
        Rank 1 is the largest value (False: the smallest, e.g. for costs).

    Returns
    -------
    pandas.DataFrame
        One row per system, best observed first: ``system, estimate`` (points), ``rank``
        (observed, ties averaged), ``p_first`` = P(rank = 1), ``mean_rank``, ``rank_low``,
        ``rank_high`` (percentile interval of the replicate rank), ``p_rank_1 … p_rank_S``,
        ``n, design, n_resamples, seed``.

    Notes
    -----
    One set of shared replicates (paired: all systems resampled with the same indices, SPEC §4)
    gives θ*_bs for every system; within each replicate systems are ranked by θ*. Ties (equal
    within a relative 1e-12) split the credit: k systems tied over ranks r..r+k−1 each get 1/k
    of each rank, so P(rank = r) sums to 1 over systems and over ranks, ``p_first`` counts a
    two-way tie for first as ½, and ``mean_rank`` = Σ r·P(rank = r) is the mean fractional rank.
    A replicate where some θ* is undefined (NaN) is left out and counted in the notes.

    Examples
    --------
    >>> df = pd.DataFrame({"system": ["a"] * 6 + ["b"] * 6, "query_id": list("uvwxyz") * 2,
    ...                    "score": [1, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 1]})
    >>> rank_stability(df, n_resamples=2000)[["system", "estimate", "rank", "p_first", "mean_rank"]].round(3)
      system  estimate  rank  p_first  mean_rank
    0      a    66.667   1.0    0.716      1.284
    1      b    50.000   2.0    0.284      1.716
    """
    scheme_obj = resolve_scheme(scheme)
    panel, notes = align_for(df, scheme_obj, metric, systems, missing, verdict_missing)
    kind, why = resolve_design(panel.queries, design, scheme_obj)
    cols = metric_columns(panel, metric, scheme_obj, threshold)
    res = bootstrap_sums(cols.X, Design.from_panel(panel, kind), cols.statistic, n_resamples=n_resamples,
                         seed=seed, ci=confidence_level, return_distribution=True)
    sign = 1.0 if higher_is_better else -1.0
    dist = res.distribution
    defined = ~np.isnan(dist).any(axis=1)
    if not defined.all():
        notes.append(f"{int((~defined).sum())} of {n_resamples} replicates had an undefined statistic "
                     "for some system and were left out")
    credit = _rank_credit(sign * dist[defined])
    shares = credit.mean(axis=0)
    ranks = np.arange(1, len(panel.systems) + 1)
    observed = _rank_credit(sign * res.estimate[None, :])[0] @ ranks
    replicate_rank = credit @ ranks
    alpha = (1 - confidence_level) / 2
    out = pd.DataFrame({"system": list(panel.systems), "estimate": 100 * res.estimate, "rank": observed,
                        "p_first": shares[:, 0], "mean_rank": shares @ ranks,
                        "rank_low": np.quantile(replicate_rank, alpha, axis=0),
                        "rank_high": np.quantile(replicate_rank, 1 - alpha, axis=0)})
    for r in ranks:
        out[f"p_rank_{r}"] = shares[:, r - 1]
    out["n"], out["design"], out["n_resamples"], out["seed"] = panel.n, kind, n_resamples, res.seed
    out = out.sort_values(["rank", "system"], kind="stable").reset_index(drop=True)
    out.attrs = {"metric": cols.label, "scheme": scheme_obj.name if scheme_obj else None, "design": kind,
                 "n_resamples": n_resamples, "seed": res.seed, "confidence_level": confidence_level,
                 "notes": [why, "ties split rank credit equally", *notes]}
    return out


# --------------------------------------------------------------------------------------------
# power of the exact McNemar test
# --------------------------------------------------------------------------------------------
def _rejection_bound(d: np.ndarray, alpha: float, method: str) -> np.ndarray:
    """Largest k whose two-sided McNemar p (min(b, c) = k, b + c = d) is ≤ α; −1 if none."""
    if method not in ("exact", "mid-p"):
        raise ValueError(f"method must be 'exact' or 'mid-p', got {method!r}.")
    k = stats.binom.ppf(alpha / 2, d, 0.5)               # smallest k with CDF(k) ≥ α/2
    k = np.where(stats.binom.cdf(k, d, 0.5) <= alpha / 2, k, k - 1)
    if method == "mid-p":                                # mid-p(k) = CDF(k) − ½ pmf(k) ≤ α/2
        up = k + 1
        mid = stats.binom.cdf(up, d, 0.5) - 0.5 * stats.binom.pmf(up, d, 0.5)
        k = np.where(mid <= alpha / 2, up, k)
    return k


def _check_power_args(n: int, alpha: float) -> int:
    if isinstance(n, bool) or not float(n).is_integer() or n < 1:
        raise ValueError(f"n must be a positive whole number of queries, got {n!r}.")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}.")
    return int(n)


def mcnemar_power(n: int, p_benefit: float, p_tax: float, alpha: float = 0.05,
                  method: str = "exact") -> float:
    """Exact power of the two-sided exact McNemar test on N paired binary outcomes (SPEC §5).

    Parameters
    ----------
    n
        Number of queries N.
    p_benefit, p_tax
        Probabilities of the two discordant cells per query: b (reference wrong, system right)
        and c (reference right, system wrong). The accuracy difference is p_benefit − p_tax.
    alpha
        Two-sided level.
    method
        ``"exact"`` (the test memdiag runs) or ``"mid-p"``.

    Returns
    -------
    float
        P(the test rejects at α).

    Notes
    -----
    No simulation: with ψ = p_b + p_c, the discordant count is D ~ Binomial(N, ψ) and, given
    D = d, b ~ Binomial(d, π) with π = p_b/ψ. The test rejects when min(b, d − b) ≤ k_d, where
    k_d is the largest k with p = 2·BinomCDF(k; d, ½) ≤ α (mid-p: 2·[CDF(k) − ½ pmf(k)] ≤ α), so

        power = Σ_{d=0..N} BinomPMF(d; N, ψ) · [BinomCDF(k_d; d, π) + BinomSF(d − k_d − 1; d, π)],

    every probability from ``scipy.stats.binom``; values of d in the outer 1e-14 tails of D's
    distribution are skipped (they move the power by < 2e-14). Both tails count (the two-sided
    test's rejection probability). SPEC §5; the conditional-binomial argument of Miettinen (1968).

    Examples
    --------
    >>> round(mcnemar_power(500, 0.10, 0.05), 4)
    0.8024
    >>> round(mcnemar_power(500, 0.05, 0.05), 4) <= 0.05
    True
    """
    n = _check_power_args(n, alpha)
    if min(p_benefit, p_tax) < 0 or p_benefit + p_tax > 1:
        raise ValueError(f"p_benefit and p_tax must be probabilities with a sum ≤ 1, got "
                         f"{p_benefit!r}, {p_tax!r}.")
    psi = p_benefit + p_tax
    if psi == 0:
        return 0.0
    low, high = stats.binom.ppf([_TAIL, 1 - _TAIL], n, psi)   # D outside holds < 2e-14 of the mass
    d = np.arange(int(low), int(high) + 1)
    k = _rejection_bound(d, alpha, method)
    pi = p_benefit / psi
    reject = stats.binom.cdf(k, d, pi) + stats.binom.sf(d - k - 1, d, pi)
    return float(np.clip(np.sum(stats.binom.pmf(d, n, psi) * reject), 0.0, 1.0))


def detectable_effect(n: int, discordance: float, alpha: float = 0.05, power: float = 0.8,
                      method: str = "exact") -> float:
    """Smallest |accuracy difference| the exact McNemar test detects with the given power.

    Parameters
    ----------
    n
        Number of paired queries N.
    discordance
        ψ = (b + c)/N, the share of queries on which the two systems disagree.
    alpha, power
        Two-sided level and target power.
    method
        ``"exact"`` or ``"mid-p"`` (see :func:`mcnemar_power`).

    Returns
    -------
    float
        δ = p_b − p_c (a proportion; ×100 for points), or NaN when even δ = ψ (every
        disagreement in one direction) has less power than asked.

    Notes
    -----
    At fixed ψ the difference δ sets p_b = (ψ + δ)/2 and p_c = (ψ − δ)/2. The power of
    :func:`mcnemar_power` grows with δ on [0, ψ] (the symmetric two-tailed binomial test's power
    grows with |π − ½|) and is continuous in it, so the δ with power(δ) = target is found by
    Brent's root search (``scipy.optimize.brentq``, to 1e-10). For orientation, the normal
    approximation is δ ≈ (z_{1−α/2} + z_power)·√(ψ/N).

    Examples
    --------
    >>> round(100 * detectable_effect(1540, 0.20), 2)
    3.25
    """
    n = _check_power_args(n, alpha)
    if not 0 <= discordance <= 1 or not 0 < power < 1:
        raise ValueError(f"discordance must lie in [0, 1] and power in (0, 1), got {discordance!r}, {power!r}.")
    if discordance == 0:
        return math.nan

    def gap(delta: float) -> float:
        return mcnemar_power(n, (discordance + delta) / 2, (discordance - delta) / 2, alpha, method) - power

    if gap(discordance) < 0:
        return math.nan
    return float(optimize.brentq(gap, 0.0, discordance, xtol=1e-10))


# --------------------------------------------------------------------------------------------
# claims
# --------------------------------------------------------------------------------------------
def read_claims(source: str | Path | pd.DataFrame | Sequence[Mapping]) -> pd.DataFrame:
    """Read claims from a YAML, JSON or CSV file, a DataFrame or a list of mappings.

    Parameters
    ----------
    source
        A ``.yaml``/``.yml``/``.json`` file holding a list of claims (or ``{claims: [...]}``),
        a ``.csv`` with one claim per row, a DataFrame, or a list of dicts. Fields:

        - ``id`` (required, unique) and ``family`` (claims adjusted together by Holm);
        - ``scheme`` (official aggregation: built-in name or scheme file) and/or ``benchmark``
          (keeps the verdict rows of that benchmark; when no scheme is given and the benchmark
          names a built-in scheme, that scheme is used);
        - ``metric`` (default ``accuracy``), ``design`` (``iid``, ``stratified``, ``cluster``,
          ``stratified-cluster``; default: the scheme's);
        - ``system_a`` and either ``system_b`` (a comparison) or ``threshold`` (system vs a
          number, in points);
        - ``direction``: ``greater`` (a > b), ``less`` (a < b) or ``different``;
        - optional ``reported_value`` (a's score as published, points), ``reported_diff``
          (a − b, points), ``reported_p``, ``tolerance`` (points; see :func:`audit_claims`).

    Returns
    -------
    pandas.DataFrame
        One row per claim with every field of :data:`CLAIM_FIELDS` (missing ones None/NaN).

    Raises
    ------
    VerdictError
        Unreadable file, unknown field, missing or repeated id, no system_a, neither or both of
        system_b and threshold, an unknown direction or design, a number that is not one —
        naming the file, the claim and the field.
    """
    origin = "<claims>"
    if isinstance(source, pd.DataFrame):
        records = source.to_dict("records")
    elif isinstance(source, (str, Path)):
        path = Path(source)
        origin = str(path)
        if not path.is_file():
            raise VerdictError(f"{where(origin)}: no such claims file. Check the path.")
        if path.suffix.lower() == ".csv":
            records = pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""]).to_dict("records")
        elif path.suffix.lower() in {".yaml", ".yml", ".json"}:
            try:
                loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
            except yaml.YAMLError as error:
                raise VerdictError(f"{where(origin)}: not valid YAML/JSON ({' '.join(str(error).split())}). "
                                   "Fix the syntax.") from None
            records = loaded.get("claims") if isinstance(loaded, Mapping) else loaded
            if not isinstance(records, list):
                raise VerdictError(f"{where(origin)}: expected a list of claims (or 'claims: [...]'), got "
                                   f"{type(loaded).__name__}.")
        else:
            raise VerdictError(f"{where(origin)}: unknown claims format '{path.suffix}'. Use .yaml, .json or .csv.")
    else:
        records = list(source)
    if not records:
        raise VerdictError(f"{where(origin)}: holds no claim.")
    rows = [_claim(record, origin, k) for k, record in enumerate(records, start=1)]
    ids = [r["id"] for r in rows]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise VerdictError(f"{where(origin, None, 'id')}: claim id {repeated[0]!r} is used "
                           f"{ids.count(repeated[0])} times. Give each claim its own id.")
    return pd.DataFrame(rows, columns=list(CLAIM_FIELDS))


def _absent(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or \
        (isinstance(value, str) and not value.strip())


def _claim(record: object, origin: str, k: int) -> dict:
    """One claim, checked and normalised (strings stripped, numbers as float)."""
    if not isinstance(record, Mapping):
        raise VerdictError(f"{where(origin, f'claim {k}')}: a claim is a mapping of fields, got {record!r:.60}.")
    unknown = [str(key) for key in record if key not in CLAIM_FIELDS]
    if unknown:
        raise VerdictError(f"{where(origin, f'claim {k}', unknown[0])}: unknown field (known: "
                           f"{', '.join(CLAIM_FIELDS)}). Fix its spelling or remove it.")
    claim = {key: (None if _absent(record.get(key)) else record.get(key)) for key in CLAIM_FIELDS}
    label = f"claim {k}" + (f" ({claim['id']!r})" if claim["id"] is not None else "")

    def fail(field: str, message: str) -> VerdictError:
        return VerdictError(f"{where(origin, label, field)}: {message}")

    for key in CLAIM_FIELDS:
        if key not in _NUMBERS and claim[key] is not None:
            claim[key] = str(claim[key]).strip()
    for key in _NUMBERS:
        if claim[key] is not None:
            try:
                claim[key] = float(claim[key])
            except (TypeError, ValueError):
                raise fail(key, f"{claim[key]!r} is not a number.") from None
        else:
            claim[key] = math.nan
    if claim["id"] is None:
        raise fail("id", "every claim needs an id.")
    if claim["system_a"] is None:
        raise fail("system_a", "every claim names the system it is about (system_a).")
    if (claim["system_b"] is None) == math.isnan(claim["threshold"]):
        raise fail("system_b", "give either system_b (a comparison) or threshold (a system vs a number).")
    direction = (claim["direction"] or "").lower()
    if direction not in _DIRECTIONS:
        raise fail("direction", f"{claim['direction']!r} is not greater, less or different.")
    claim["direction"] = direction
    if claim["design"] is not None and claim["design"] not in KINDS:
        raise fail("design", f"{claim['design']!r} is not a design ({', '.join(KINDS)}).")
    claim["metric"] = claim["metric"] or "accuracy"
    return claim


def _half_unit(value: float) -> float:
    """Half a unit in the last decimal place a reported number was written with (67.13 -> 0.005)."""
    text = repr(float(value))
    if "e" in text or "E" in text:
        return 0.5 * 10.0 ** math.floor(math.log10(abs(value))) if value else 0.5
    decimals = 0 if text.endswith(".0") else len(text.split(".")[1])
    return 0.5 * 10.0 ** -decimals


def _normal_power(delta: float, se: float, alpha: float) -> float:
    z = stats.norm.isf(alpha / 2)
    return float(stats.norm.cdf(delta / se - z) + stats.norm.cdf(-delta / se - z))


def _power_columns(row: dict, alpha: float, power: float, level: float) -> dict:
    """Detectable effect and power of one checked claim (points), see :func:`audit_claims`."""
    target = abs(row["reported_diff"]) if not math.isnan(row["reported_diff"]) else abs(row["diff"])
    basis = "reported" if not math.isnan(row["reported_diff"]) else "observed"
    if row["_discordant"] is not None:
        n, (b, c) = row["n"], row["_discordant"]
        psi = (b + c) / n
        delta = min(target / 100, psi)
        return {"detectable_effect": 100 * detectable_effect(n, psi, alpha, power) if psi else math.nan,
                "power": mcnemar_power(n, (psi + delta) / 2, (psi - delta) / 2, alpha) if psi else math.nan,
                "power_basis": f"{basis} diff, exact McNemar"}
    se = (row["ci_high"] - row["ci_low"]) / (2 * stats.norm.ppf(0.5 + level / 2))
    if not se > 0:
        return {"detectable_effect": math.nan, "power": math.nan, "power_basis": "undefined (no spread)"}
    z = stats.norm.isf(alpha / 2) + stats.norm.ppf(power)
    return {"detectable_effect": z * se, "power": _normal_power(target, se, alpha),
            "power_basis": f"{basis} diff, normal with bootstrap SE"}


def _checkable(df: pd.DataFrame, claim: Mapping) -> tuple[pd.DataFrame, Scheme | None]:
    """The claim's verdict rows and scheme; VerdictError/SchemeError says why it cannot be checked."""
    scheme = claim["scheme"]
    benchmark = claim["benchmark"]
    if benchmark is not None:
        if "benchmark" in df:
            df = df[df["benchmark"].astype(str).str.casefold() == benchmark.casefold()]
            if df.empty:
                raise VerdictError(f"no verdicts of benchmark '{benchmark}' in the data")
        if scheme is None and benchmark.casefold() in {s.casefold() for s in known_schemes()}:
            scheme = benchmark
    systems = set(df["system"].astype(str))
    for name in (claim["system_a"], claim["system_b"]):
        if name is not None and name not in systems:
            raise VerdictError(f"system '{name}' is not in the data (systems: {', '.join(sorted(systems))})")
    metric = claim["metric"]
    needs = "sufficient" if metric in EVIDENCE_METRICS else (None if metric == "accuracy" else metric)
    if needs is not None and needs not in df:
        raise VerdictError(f"metric '{metric}' needs a '{needs}' column, which the verdicts lack")
    return df, resolve_scheme(scheme)


def _evaluate(df: pd.DataFrame, claim: Mapping, n_resamples: int, seed: int, level: float,
              missing: MissingQueryPolicy, verdict_missing: MissingVerdictPolicy) -> dict:
    """Recomputed numbers of one claim (no verdict yet); raises if it cannot be checked."""
    data, scheme = _checkable(df, claim)
    a, b = claim["system_a"], claim["system_b"]
    systems = [a] if b is None else [a, b]
    panel, notes = align_for(data, scheme, claim["metric"], systems, missing, verdict_missing)
    kind, _ = resolve_design(panel.queries, claim["design"], scheme)
    cols = metric_columns(panel, claim["metric"], scheme)
    exact = cols.binary and kind == "iid"
    row = {"scheme": scheme.name if scheme else None, "n": panel.n, "design": kind, "_discordant": None,
           "_notes": notes}
    if b is not None:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = compare(data, metric=claim["metric"], scheme=scheme,
                          systems=systems, design=claim["design"], n_resamples=n_resamples, seed=seed,
                          confidence_level=level, missing=missing, verdict_missing=verdict_missing).iloc[0]
        row["_notes"] = notes + [str(w.message) for w in caught]
        row.update({k: out[k] for k in ("estimate_a", "estimate_b", "diff", "ci_low", "ci_high", "p", "test")})
        if exact:
            ya, yb = cols.per_query[:, 0] > 0.5, cols.per_query[:, 1] > 0.5
            row["_discordant"] = (int((ya & ~yb).sum()), int((~ya & yb).sum()))
        return row
    null = claim["threshold"] / 100
    res = bootstrap_sums(cols.X, Design.from_panel(panel, kind), cols.statistic, n_resamples=n_resamples,
                         seed=seed, ci=level, null=null)
    estimate = float(res.estimate[0])
    if exact and 0 <= null <= 1:
        successes = int(cols.per_query[:, 0].sum())
        p, test = float(stats.binomtest(successes, panel.n, null).pvalue), "exact binomial"
    else:
        p, test = float(res.p_value[0]), f"bootstrap sign test ({kind})"
    row.update({"estimate_a": 100 * estimate, "estimate_b": math.nan, "diff": 100 * estimate - claim["threshold"],
                "ci_low": 100 * float(res.ci_low[0]) - claim["threshold"],
                "ci_high": 100 * float(res.ci_high[0]) - claim["threshold"], "p": p, "test": test})
    return row


def _verdict(claim: Mapping, row: Mapping, alpha: float, family_size: int) -> tuple[str, str]:
    """Verdict and one line of reason, by the precedence of :data:`VERDICTS`."""
    a = claim["system_a"]
    other = claim["system_b"] if claim["system_b"] is not None else f"{claim['threshold']:g}"
    numbers = (f"{a} − {other} = {row['diff']:+.2f} points [{row['ci_low']:.2f}, {row['ci_high']:.2f}], "
               f"{row['test']} p = {row['p']:.3g}")
    if family_size > 1:
        numbers += f", Holm p = {row['p_adj']:.3g} over {family_size} claims of family '{claim['family']}'"
    tolerance = claim["tolerance"]
    mismatches = []
    for field, value in (("reported_value", row["estimate_a"]), ("reported_diff", row["diff"])):
        reported = claim[field]
        if not math.isnan(reported):
            tol = tolerance if not math.isnan(tolerance) else _half_unit(reported)
            if abs(reported - value) > tol + 1e-9:
                mismatches.append(f"{field.replace('_', ' ')} {reported:g} vs recomputed {value:.2f} "
                                  f"(off by {reported - value:+.2f}, tolerance {tol:g})")
    significant = row["p_adj"] <= alpha
    side = int(np.sign(row["diff"]))
    claimed = _DIRECTIONS[claim["direction"]]
    if not math.isnan(claim["reported_p"]) and (claim["reported_p"] <= alpha) != significant:
        numbers += f"; reported p = {claim['reported_p']:g}"
    if mismatches:
        return "value mismatch", "; ".join(mismatches) + f" ({numbers})"
    if claimed and side == -claimed:
        why = "significant in the other direction" if significant else "estimate on the other side"
        return "contradicted", f"{why}: {numbers}"
    if significant and (claimed == 0 or side == claimed):
        return "supported", f"{numbers} ≤ α = {alpha:g}"
    return "not significant", f"{numbers} > α = {alpha:g}"


def audit_claims(
    df: pd.DataFrame,
    claims: str | Path | pd.DataFrame | Sequence[Mapping],
    alpha: float = 0.05,
    power: float = 0.8,
    n_resamples: int = 20_000,
    seed: int = 0,
    confidence_level: float = 0.95,
    missing: MissingQueryPolicy = "error",
    verdict_missing: MissingVerdictPolicy = "as-wrong",
) -> pd.DataFrame:
    """Check each claim against the verdicts and give it a verdict with one line of reason.

    Parameters
    ----------
    df
        Canonical verdicts.
    claims
        A claims file or table (see :func:`read_claims` for the fields).
    alpha, power
        Significance level (on Holm-adjusted p-values) and the power of the detectable effect.
    n_resamples, seed, confidence_level
        Bootstrap for the intervals (and the sign test where no exact test applies).
    missing, verdict_missing
        Alignment policies (:func:`memdiag.align`).

    Returns
    -------
    pandas.DataFrame
        One row per claim: ``id, family, verdict, reason, system_a, system_b, threshold, metric,
        scheme, direction, estimate_a, estimate_b, diff, ci_low, ci_high, p, p_adj, test, n,
        design, detectable_effect, power, power_basis, reported_value, reported_diff,
        reported_p, tolerance``. Estimates, differences, intervals and detectable effects are in
        points; ``diff`` = a − b, or a − threshold.

    Notes
    -----
    Numbers: a comparison is recomputed by :func:`memdiag._compare.compare` on the two systems
    (exact McNemar for a binary plain-mean metric under the iid design, else the bootstrap sign
    test under the design — by default the scheme's); a system-vs-threshold claim by the exact
    binomial test (``scipy.stats.binomtest``) of a binary plain mean under iid, else the
    bootstrap sign test of θ − threshold. All p-values are two-sided. Holm's adjustment runs over
    the checkable claims of each ``family``; a claim without a family is its own family.

    Verdicts, in precedence order (the first that applies):

    1. ``not checkable`` — the data cannot answer it: unknown system, metric, scheme or
       benchmark (the reason quotes the error; nothing is raised).
    2. ``value mismatch`` — ``reported_value`` (a's estimate) or ``reported_diff`` differs from
       the recomputed number by more than ``tolerance``; default half a unit in the last decimal
       place the number was written with (66.88 -> 0.005; the recomputed number is exact, only
       the published one is rounded). It comes before the test because a claim whose own numbers
       the data do not reproduce is not about these data; the reason still shows the test.
    3. ``contradicted`` — the estimate lies on the other side of the claimed direction
       (significantly or not; the reason says which).
    4. ``not significant`` — right side (or ``different``) but Holm p > α.
    5. ``supported`` — right side and Holm p ≤ α.

    Detectable effect and power (beside, not part of the verdict): for an exact-McNemar claim,
    :func:`detectable_effect` at the observed discordance ψ = (b + c)/N and level α/m (m the
    family size: Holm's first step, so a conservative bound), and :func:`mcnemar_power` at the
    reported difference if given, else the observed one (capped at ψ). Otherwise the normal
    approximation with the bootstrap standard error se = (ci_high − ci_low)/(2 z):
    detectable = (z_{1−α/(2m)} + z_power)·se.

    Examples
    --------
    The memory system answers 12 of 40 questions, all of which RAG also answers (b = 0, c = 18):

    >>> df = pd.DataFrame({"system": ["rag"] * 40 + ["mem"] * 40, "query_id": [f"q{i}" for i in range(40)] * 2,
    ...                    "score": [1] * 30 + [0] * 10 + [1] * 12 + [0] * 28})
    >>> claims = [{"id": "mem-wins", "system_a": "mem", "system_b": "rag", "direction": "greater"},
    ...           {"id": "zep-wins", "system_a": "zep", "system_b": "rag", "direction": "greater"}]
    >>> out = audit_claims(df, claims, n_resamples=500)
    >>> out[["id", "verdict", "diff"]]
             id        verdict  diff
    0  mem-wins   contradicted -45.0
    1  zep-wins  not checkable   NaN
    >>> print(out.loc[0, "reason"])
    significant in the other direction: mem − rag = -45.00 points [-60.00, -30.00], exact McNemar p = 7.63e-06
    >>> print(out.loc[1, "reason"])
    system 'zep' is not in the data (systems: mem, rag)
    """
    table = read_claims(claims)
    records = [{k: (None if k not in _NUMBERS and _absent(v) else v) for k, v in r.items()}
               for r in table.to_dict("records")]  # pandas may store a missing text as NaN
    results: list[dict | str] = []          # recomputed numbers, or why the claim is not checkable
    for claim in records:
        try:
            results.append(_evaluate(df, claim, n_resamples, seed, confidence_level, missing, verdict_missing))
        except (VerdictError, SchemeError) as error:
            results.append(str(error).rstrip("."))
    checked = np.array([isinstance(r, dict) for r in results])
    family = table["family"].where(table["family"].notna(), "\0" + table["id"].astype(str))
    p = pd.Series([r["p"] if isinstance(r, dict) else math.nan for r in results], index=table.index)
    p_adj = pd.Series(math.nan, index=table.index)
    for _, index in table[checked].groupby(family[checked]).groups.items():
        p_adj[index] = adjust(p[index].to_numpy(dtype=float), method="holm")
    sizes = family[checked].value_counts()
    rows, notes = [], []
    for i, (claim, result) in enumerate(zip(records, results)):
        if not isinstance(result, dict):
            rows.append({**claim, "verdict": "not checkable", "reason": result})
            continue
        m = int(sizes[family.iloc[i]])
        row = {**claim, **result, "p_adj": float(p_adj.iloc[i])}
        row.update(_power_columns(row, alpha / m, power, confidence_level))
        row["verdict"], row["reason"] = _verdict(claim, row, alpha, m)
        notes += [f"{claim['id']}: {note}" for note in result["_notes"]]
        rows.append(row)
    columns = ["id", "family", "verdict", "reason", "system_a", "system_b", "threshold", "metric", "scheme",
               "direction", "estimate_a", "estimate_b", "diff", "ci_low", "ci_high", "p", "p_adj", "test",
               "n", "design", "detectable_effect", "power", "power_basis", "reported_value", "reported_diff",
               "reported_p", "tolerance"]
    out = pd.DataFrame(rows).reindex(columns=columns)
    out["n"] = out["n"].astype("Int64")
    out.attrs = {"alpha": alpha, "power": power, "n_resamples": n_resamples, "seed": seed,
                 "confidence_level": confidence_level, "correction": "holm per family",
                 "missing": missing, "verdict_missing": verdict_missing,
                 "precedence": " > ".join(VERDICTS), "notes": notes}
    return out
