"""Generic synthetic verdicts (LoCoMo-like) with known accuracy, benefit, tax, clustering and coverage.

:func:`simulate` draws canonical verdicts (SPEC §1) in which every quantity memdiag estimates has
a known expected value: accuracies, the paired benefit and tax rates against a reference
(SPEC §2), intra-cluster correlation, coverage and utilization (SPEC §3), per-query costs.
:func:`simulate_systems_table` gives the matching system-level table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from memdiag.synthetic._core import DEFAULT_SUFFICIENCY, per_system

#: Default benefit and tax rate of a non-reference system given neither them nor an accuracy.
DEFAULT_RATE = 0.10

#: Mean evidence tokens per query of the reference under ``costs=True`` (about Raw-RAG's
#: top-15 chunks, paper A.4.2); other systems draw theirs log-uniformly in [600, 6000].
REFERENCE_TOKENS = 3800.0


def _cells(p_ref: float, acc: float | None, b: float | None, c: float | None, system: str) -> tuple[float, float]:
    """Benefit and tax probabilities of one system from any two of (accuracy, benefit, tax).

    acc = p_ref + b − c (SPEC §2). Accuracy alone means errors independent of the reference's:
    b = (1 − p_ref)·acc, c = p_ref·(1 − acc).
    """
    if acc is None:
        b = DEFAULT_RATE if b is None else b
        c = DEFAULT_RATE if c is None else c
    elif b is None and c is None:
        b, c = (1 - p_ref) * acc, p_ref * (1 - acc)
    elif b is None:
        b = acc - p_ref + c
    elif c is None:
        c = p_ref + b - acc
    elif abs(acc - (p_ref + b - c)) > 1e-9:
        raise ValueError(f"{system}: accuracy {acc} != reference accuracy {p_ref} + benefit {b} − tax {c}. "
                         "Give any two of the three.")
    if not (0 <= b <= 1 - p_ref and 0 <= c <= p_ref):
        raise ValueError(f"{system}: benefit {b:.4g} must lie in [0, 1 − {p_ref}] and tax {c:.4g} in "
                         f"[0, {p_ref}] (the paired 2×2 cells must be probabilities).")
    return b, c


def _categories(categories: int | Sequence[str] | Mapping[str, float]) -> tuple[list[str], np.ndarray]:
    if isinstance(categories, Mapping):
        names, weights = list(map(str, categories)), np.array(list(categories.values()), dtype=float)
    elif isinstance(categories, int):
        names, weights = [f"cat-{k + 1}" for k in range(categories)], np.ones(categories)
    else:
        names, weights = list(map(str, categories)), np.ones(len(categories))
    if not names or (weights <= 0).any():
        raise ValueError("categories need at least one name and positive proportions.")
    return names, weights / weights.sum()


def simulate(
    n_queries: int = 600,
    systems: Sequence[str] = ("raw-rag", "mem0", "zep"),
    reference: str = "raw-rag",
    accuracy: float | Mapping[str, float] = 0.6,
    benefit: float | Mapping[str, float] | None = None,
    tax: float | Mapping[str, float] | None = None,
    n_clusters: int = 30,
    icc: float = 0.0,
    n_strata: int = 1,
    categories: int | Sequence[str] | Mapping[str, float] = 4,
    n_repeats: int = 1,
    judge_error: float = 0.0,
    missing_rate: float = 0.0,
    sufficiency: Mapping[str, tuple[float, float]] | bool = True,
    costs: bool | Mapping[str, float] = True,
    seed: int | np.random.Generator = 0,
) -> pd.DataFrame:
    """Synthetic canonical verdicts with known accuracy, benefit, tax, clustering and coverage.

    Parameters
    ----------
    n_queries
        Number of queries N, shared by all systems.
    systems
        System names; ``reference`` must be one of them.
    reference
        The reference system R (SPEC §2), e.g. ``raw-rag``.
    accuracy
        A float: the reference's accuracy p_R. A mapping: per-system accuracies (p_R from it,
        default 0.6).
    benefit, tax
        Per-system (mapping) or common (float) expected rates b = P(R wrong, M right) and
        c = P(R right, M wrong) against the reference. A system's truth comes from any two of
        (accuracy, benefit, tax) via acc = p_R + b − c; accuracy alone means errors independent
        of the reference's; nothing at all means b = c = 0.10.
    n_clusters
        Clusters (conversations / episodes); sizes are 1 + multinomial, so they vary.
    icc
        Intra-cluster correlation of the reference's correctness, in [0, 1): cluster k draws
        p_k ~ Beta(p_R(1−ρ)/ρ, (1−p_R)(1−ρ)/ρ) (mean p_R; beta-binomial ICC exactly ρ).
    n_strata
        Strata; cluster k sits in stratum k mod n_strata (clusters nest in strata). One stratum
        writes no ``stratum`` column.
    categories
        A count, names, or name -> proportion; each query draws its category independently.
    n_repeats
        Judge repetitions per answer.
    judge_error
        Probability that a judgment flips the true label (independently per repetition).
    missing_rate
        Probability that a judgment is missing (NaN score: an unparsable judge output).
    sufficiency
        System -> (coverage, utilization) to draw ``sufficient`` labels C: P(C=1) = coverage and
        P(Y=1 | C=1) = utilization, on the true labels Y. True (default): P(C=1 | Y=1) = 0.9 and
        P(C=1 | Y=0) = 0.3 for every system, so coverage = 0.3 + 0.6·acc and utilization =
        0.9·acc / coverage (in ``truth``). False writes no ``sufficient`` column.
    costs
        True: per-query ``evidence_tokens``, ``input_tokens``, ``output_tokens``, ``latency_s``
        around a per-system mean of evidence tokens (reference 3,800, others log-uniform in
        [600, 6000]); a mapping gives those means; False writes no costs.
    seed
        An int or a ``numpy.random.Generator``: all draws come from this one generator, in a
        fixed order, so the same seed gives the same frame.

    Returns
    -------
    pandas.DataFrame
        Canonical long verdicts: ``system, query_id, score, repeat, cluster, [stratum],
        category, [sufficient], [input_tokens, output_tokens, evidence_tokens, latency_s]``,
        one row per (system, query, repetition). ``attrs["truth"]`` is a plain dict of the
        expected values: ``accuracy``, ``benefit``, ``tax``, ``cells`` (a, b, c, d
        probabilities), ``icc``, ``icc_by_system``, ``coverage``, ``utilization``,
        ``tokens_per_query`` and the arguments.

    Notes
    -----
    Construction (per query i in cluster k): R_i ~ Bernoulli(p_k); then, independently given
    R_i, M_i ~ Bernoulli(q1) if R_i = 1 and Bernoulli(q0) if R_i = 0, with q1 = (p_R − c)/p_R
    and q0 = b/(1 − p_R). So E[#benefit]/N = (1 − p_R)·q0 = b and E[#tax]/N = p_R·(1 − q1) = c
    exactly, with or without clustering. The cluster effect is shared through R: system M's
    ICC is ρ (q1 − q0)² p_R(1 − p_R) / (acc_M (1 − acc_M)) (``icc_by_system``). Judged scores
    are the true labels flipped with probability ``judge_error``; rates, accuracies and
    sufficiency refer to the true labels.

    Raises
    ------
    ValueError
        A ``reference`` not among the systems or repeated names; ``n_queries < n_clusters``,
        fewer than one cluster, stratum or repetition; ``icc``, ``judge_error`` or
        ``missing_rate`` out of range; a reference accuracy outside (0, 1); cells impossible for
        the given accuracy, benefit and tax; rates for unknown systems; empty categories or
        non-positive proportions; coverage and utilization impossible at a system's accuracy.

    References
    ----------
    SPEC §1.1 (the record it writes), SPEC §2 (the cells a, b, c, d of the paired table) and
    SPEC §4.1 (the methods note's simulation: clustered data with known truth); Raw-RAG paper
    C.1 (coverage and utilization) and G.3 (judge repetitions).
    Kish, L. (1965). Survey Sampling. Wiley (the intra-cluster correlation ρ).

    Examples
    --------
    >>> df = simulate(n_queries=4, systems=("rag", "mem"), reference="rag", n_clusters=2,
    ...               categories=["x"], sufficiency=False, costs=False, seed=1)
    >>> df.shape, sorted(df.columns)
    ((8, 6), ['category', 'cluster', 'query_id', 'repeat', 'score', 'system'])
    >>> df.attrs["truth"]["accuracy"]
    {'rag': 0.6, 'mem': 0.6}
    """
    systems = list(map(str, systems))
    if reference not in systems:
        raise ValueError(f"reference '{reference}' is not among the systems {systems}.")
    if len(set(systems)) != len(systems):
        raise ValueError(f"system names repeat: {systems}.")
    if not (n_queries >= n_clusters >= 1 and n_strata >= 1 and n_repeats >= 1):
        raise ValueError("need n_queries >= n_clusters >= 1, n_strata >= 1 and n_repeats >= 1.")
    if not (0 <= icc < 1 and 0 <= judge_error < 0.5 and 0 <= missing_rate < 1):
        raise ValueError("need 0 <= icc < 1, 0 <= judge_error < 0.5 and 0 <= missing_rate < 1.")
    accs = per_system(accuracy, systems, "accuracy", [reference])
    p_ref = accs.get(reference, 0.6)
    if not 0 < p_ref < 1:
        raise ValueError(f"the reference accuracy must lie in (0, 1), not {p_ref}.")
    others = [s for s in systems if s != reference]
    benefits = per_system(benefit, systems, "benefit", others)
    taxes = per_system(tax, systems, "tax", others)
    truth_b, truth_c = {reference: 0.0}, {reference: 0.0}
    for s in others:
        truth_b[s], truth_c[s] = _cells(p_ref, accs.get(s), benefits.get(s), taxes.get(s), s)
    truth_acc = {s: p_ref + truth_b[s] - truth_c[s] for s in systems}
    rng = np.random.default_rng(seed)

    # queries: clusters, strata, categories
    sizes = 1 + rng.multinomial(n_queries - n_clusters, np.full(n_clusters, 1 / n_clusters))
    cluster = np.repeat(np.arange(n_clusters), sizes)
    width = len(str(n_clusters - 1))
    cluster_names = np.array([f"conv-{k:0{width}d}" for k in range(n_clusters)], dtype=object)
    position = np.concatenate([np.arange(m) for m in sizes])
    query_ids = [f"{cluster_names[k]}-q{j:03d}" for k, j in zip(cluster, position)]
    cat_names, cat_p = _categories(categories)
    category = np.array(cat_names, dtype=object)[rng.choice(len(cat_names), size=n_queries, p=cat_p)]

    # true labels: reference with a beta-binomial cluster effect, others conditional on it
    if icc > 0:
        scale = (1 - icc) / icc
        p_cluster = rng.beta(p_ref * scale, (1 - p_ref) * scale, size=n_clusters)
    else:
        p_cluster = np.full(n_clusters, p_ref)
    labels = np.empty((n_queries, len(systems)), dtype=np.int64)
    ref = rng.random(n_queries) < p_cluster[cluster]
    icc_by_system = {}
    for j, s in enumerate(systems):
        if s == reference:
            labels[:, j] = ref
            icc_by_system[s] = icc
            continue
        q1, q0 = (p_ref - truth_c[s]) / p_ref, truth_b[s] / (1 - p_ref)
        labels[:, j] = rng.random(n_queries) < np.where(ref, q1, q0)
        a = truth_acc[s]
        icc_by_system[s] = icc * (q1 - q0) ** 2 * p_ref * (1 - p_ref) / (a * (1 - a)) if 0 < a < 1 else 0.0

    # judgments: flips and missing verdicts
    judged = labels[:, :, None] ^ (rng.random((n_queries, len(systems), n_repeats)) < judge_error)
    scores = np.where(rng.random(judged.shape) < missing_rate, np.nan, judged.astype(float))

    per_query: dict[str, np.ndarray] = {}  # (N, S) per-answer columns, shared by its repetitions
    coverage, utilization = {}, {}
    if sufficiency is not False:
        per_query["sufficient"] = np.zeros((n_queries, len(systems)))
        for j, s in enumerate(systems):
            a = truth_acc[s]
            if sufficiency is True:
                p_if_right, p_if_wrong = DEFAULT_SUFFICIENCY
                cov = p_if_right * a + p_if_wrong * (1 - a)
                util = p_if_right * a / cov
            elif s not in sufficiency:
                raise ValueError(f"sufficiency has no (coverage, utilization) for system '{s}'.")
            else:
                cov, util = map(float, sufficiency[s])
                p_if_right = cov * util / a if a > 0 else 0.0
                p_if_wrong = cov * (1 - util) / (1 - a) if a < 1 else 0.0
            if not (0 <= p_if_right <= 1 and 0 <= p_if_wrong <= 1):
                raise ValueError(f"{s}: coverage {cov} and utilization {util} are impossible at accuracy "
                                 f"{a:.4g} (need coverage·utilization <= accuracy and "
                                 "coverage·(1 − utilization) <= 1 − accuracy).")
            per_query["sufficient"][:, j] = rng.random(n_queries) < np.where(labels[:, j] == 1, p_if_right,
                                                                              p_if_wrong)
            coverage[s], utilization[s] = cov, util
    tokens = {}
    if costs is not False:
        given = costs if isinstance(costs, Mapping) else {}
        for s in systems:
            drawn = float(np.exp(rng.uniform(np.log(600), np.log(6000))))
            tokens[s] = float(given.get(s, REFERENCE_TOKENS if s == reference else drawn))
        mean = np.array([tokens[s] for s in systems])
        sigma = 0.35
        evidence = np.rint(mean * rng.lognormal(-sigma ** 2 / 2, sigma, (n_queries, len(systems))))
        prompt = 250 + rng.integers(0, 60, (n_queries, len(systems)))
        output = 8 + rng.poisson(25, (n_queries, len(systems)))
        per_query["evidence_tokens"] = evidence
        per_query["input_tokens"] = evidence + prompt
        per_query["output_tokens"] = output.astype(float)
        per_query["latency_s"] = np.round((0.25 + (evidence + prompt) / 8000 + output / 80)
                                          * rng.lognormal(0, 0.3, (n_queries, len(systems))), 3)

    # long frame: system-major, then query, then repetition
    s_idx, q_idx, r_idx = (a.ravel() for a in np.meshgrid(np.arange(len(systems)), np.arange(n_queries),
                                                          np.arange(n_repeats), indexing="ij"))
    frame = {
        "system": np.array(systems, dtype=object)[s_idx],
        "query_id": np.array(query_ids, dtype=object)[q_idx],
        "score": scores[q_idx, s_idx, r_idx],
        "repeat": r_idx.astype(np.int64),
        "cluster": cluster_names[cluster][q_idx],
    }
    if n_strata > 1:
        frame["stratum"] = np.array([f"stratum-{k % n_strata}" for k in range(n_clusters)], dtype=object)[
            cluster][q_idx]
    frame["category"] = category[q_idx]
    for column in ("sufficient", "input_tokens", "output_tokens", "evidence_tokens", "latency_s"):
        if column in per_query:
            frame[column] = per_query[column][q_idx, s_idx]
    df = pd.DataFrame(frame)
    df.attrs["truth"] = {
        "reference": reference, "systems": systems, "accuracy": truth_acc, "benefit": truth_b,
        "tax": truth_c,
        "cells": {s: {"a": p_ref - truth_c[s], "b": truth_b[s], "c": truth_c[s],
                      "d": 1 - p_ref - truth_b[s]} for s in systems},
        "icc": icc, "icc_by_system": icc_by_system, "coverage": coverage, "utilization": utilization,
        "tokens_per_query": tokens, "n_queries": n_queries, "n_clusters": n_clusters,
        "n_strata": n_strata, "categories": dict(zip(cat_names, cat_p.tolist())),
        "n_repeats": n_repeats, "judge_error": judge_error, "missing_rate": missing_rate,
        "seed": seed if isinstance(seed, int) else None,
    }
    return df


def _family(system: str) -> str:
    name = system.lower()
    if "+" in name:
        return "hybrid"
    if "full" in name or "long-context" in name:
        return "full-context"
    if "rag" in name:
        return "rag"
    return "memory"


def simulate_systems_table(verdicts: pd.DataFrame, seed: int | np.random.Generator = 0,
                           history_tokens_per_cluster: float = 20_000.0) -> pd.DataFrame:
    """A system-level table (SPEC §1) consistent with simulated verdicts.

    Parameters
    ----------
    verdicts
        Output of :func:`simulate` (needs ``input_tokens`` and ``cluster``).
    seed
        Seed of the draws below (its own generator).
    history_tokens_per_cluster
        Raw history size of one conversation, H₁; the whole history is H = H₁ × clusters.

    Returns
    -------
    pandas.DataFrame
        ``system, family, store_tokens, tokens_per_query, ingestion_tokens, ingestion_hours``.
        Family from the name (``rag``, ``full-context``, ``hybrid`` for ``x+raw``, else
        ``memory``). Store: rag and full-context keep H; memory keeps H × U(0.05, 0.3); hybrid
        keeps H plus that. Ingestion LLM tokens: 0 for rag and full-context, H × U(2, 12)
        otherwise. Hours = ingestion tokens / 2·10⁶ + H / 5·10⁷ (embedding). tokens_per_query
        is the mean ``input_tokens`` in the verdicts.

    Raises
    ------
    KeyError
        Verdicts without a ``cluster``, ``repeat`` or ``input_tokens`` column (simulate them with
        ``costs=True``).

    References
    ----------
    SPEC §1.1 (the systems table: store size, tokens, ingestion, family) and SPEC §8 (the
    cost–accuracy bubble it feeds); Memory Tax review, Figure 1 (the bubble plot); Raw-RAG paper
    Table 32 (ingestion costs).

    Examples
    --------
    >>> import memdiag as md
    >>> df = md.simulate(n_queries=60, systems=("raw-rag", "mem0", "mem0+raw"), n_clusters=3, seed=1)
    >>> table = simulate_systems_table(df, seed=1)
    >>> table["family"].tolist(), (table["ingestion_tokens"] > 0).tolist()
    (['rag', 'memory', 'hybrid'], [False, True, True])
    >>> int(table.loc[0, "store_tokens"])        # rag keeps the whole history, 3 × 20,000 tokens
    60000
    """
    rng = np.random.default_rng(seed)
    history = history_tokens_per_cluster * verdicts["cluster"].nunique()
    first = verdicts[verdicts["repeat"] == 0]
    rows = []
    for system in pd.unique(verdicts["system"]):
        family = _family(system)
        compressed = history * rng.uniform(0.05, 0.3)
        ingest = history * rng.uniform(2, 12) if family in ("memory", "hybrid") else 0.0
        store = {"rag": history, "full-context": history, "memory": compressed,
                 "hybrid": history + compressed}[family]
        rows.append({"system": system, "family": family, "store_tokens": int(round(store)),
                     "tokens_per_query": round(float(first.loc[first["system"] == system, "input_tokens"].mean()), 1),
                     "ingestion_tokens": int(round(ingest)),
                     "ingestion_hours": round(ingest / 2e6 + history / 5e7, 3)})
    return pd.DataFrame(rows)
