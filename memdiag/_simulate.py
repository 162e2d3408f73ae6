"""Synthetic per-query verdicts with known truth: the example data, tests and calibration.

:func:`simulate` draws canonical verdicts (SPEC §1) in which every quantity memdiag estimates has
a known expected value: accuracies, the paired benefit and tax rates against a reference
(SPEC §2), intra-cluster correlation, coverage and utilization (SPEC §3), per-query costs.
:func:`simulate_meme` and :func:`simulate_memoryagentbench` draw data shaped like those two
benchmarks (episodes, before/after twins and gates; 14 sources and nested weights) whose official
scores (SPEC §6) have known expected values. :func:`simulate_systems_table` gives the matching
system-level table, and :func:`write_example` writes the bundled ``data/example``
(``memdiag simulate --write data/example``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.integrate import quad
from scipy.special import ndtr, ndtri

from memdiag._schemes import MEME_TASKS, MEMORYAGENTBENCH_TREE, get_scheme, tree_weights

#: Default benefit and tax rate of a non-reference system given neither them nor an accuracy.
DEFAULT_RATE = 0.10

#: Mean evidence tokens per query of the reference under ``costs=True`` (about Raw-RAG's
#: top-15 chunks, paper A.4.2); other systems draw theirs log-uniformly in [600, 6000].
REFERENCE_TOKENS = 3800.0

#: Default sufficiency rule (``sufficiency=True``): P(sufficient | correct), P(sufficient | wrong).
DEFAULT_SUFFICIENCY = (0.9, 0.3)

#: The seed of the bundled example data (``data/example``).
EXAMPLE_SEED = 20240601


def _per_system(value: float | Mapping[str, float] | None, systems: Sequence[str], name: str,
                scalar_for: Sequence[str]) -> dict[str, float]:
    """A scalar (applied to ``scalar_for``) or a mapping, as a dict over the systems it covers."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        unknown = [s for s in value if s not in systems]
        if unknown:
            raise ValueError(f"{name} names unknown systems {unknown} (systems: {list(systems)}).")
        return {s: float(v) for s, v in value.items()}
    return {s: float(value) for s in scalar_for}


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
    accs = _per_system(accuracy, systems, "accuracy", [reference])
    p_ref = accs.get(reference, 0.6)
    if not 0 < p_ref < 1:
        raise ValueError(f"the reference accuracy must lie in (0, 1), not {p_ref}.")
    others = [s for s in systems if s != reference]
    benefits = _per_system(benefit, systems, "benefit", others)
    taxes = _per_system(tax, systems, "tax", others)
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


#: The bundled example: a LoCoMo-like analysis of a raw-RAG reference and six memory systems.
EXAMPLE: dict = {
    "n_queries": 600,
    "systems": ("raw-rag", "mem0", "zep", "memobase", "a-mem", "full-context", "mem0+raw"),
    "reference": "raw-rag",
    "accuracy": 0.62,
    "benefit": {"mem0": 0.08, "zep": 0.10, "memobase": 0.07, "a-mem": 0.05, "full-context": 0.15,
                "mem0+raw": 0.10},
    "tax": {"mem0": 0.14, "zep": 0.09, "memobase": 0.11, "a-mem": 0.20, "full-context": 0.05,
            "mem0+raw": 0.04},
    "n_clusters": 30,
    "icc": 0.08,
    "categories": {"single-hop": 841, "multi-hop": 282, "temporal": 321, "open-domain": 96},
    "n_repeats": 3,
    "judge_error": 0.04,
    "missing_rate": 0.003,
    "sufficiency": {"raw-rag": (0.72, 0.80), "mem0": (0.55, 0.88), "zep": (0.68, 0.86),
                    "memobase": (0.60, 0.85), "a-mem": (0.45, 0.83), "full-context": (0.90, 0.78),
                    "mem0+raw": (0.76, 0.85)},
    "costs": {"raw-rag": 3800, "mem0": 900, "zep": 2600, "memobase": 1200, "a-mem": 1500,
              "full-context": 22000, "mem0+raw": 4700},
}


# --------------------------------------------------------------------------------------------
# MEME and MemoryAgentBench
# --------------------------------------------------------------------------------------------
#: The memory systems of the MEME and MemoryAgentBench examples (reference first).
BENCHMARK_SYSTEMS: tuple[str, ...] = ("raw-rag", "mem0", "zep", "a-mem", "memmachine")

#: MEME tasks in the order of the ``meme`` scheme (D.1.3) and the ones gated on the before twin.
MEME_TASK_ORDER: tuple[str, ...] = tuple(MEME_TASKS)
MEME_GATED: tuple[str, ...] = get_scheme("meme").gates

#: MEME's shape (Raw-RAG paper §4.1, D.1.3, A.5): 100 episodes, 1,188 phase-specific questions,
#: 694 of them after-phase, so 6.94 after- and 4.94 before-phase questions per episode.
MEME_AFTER_PER_EPISODE = 6.94
MEME_BEFORE_PER_EPISODE = 4.94

#: How the after-phase questions beyond one per task and episode spread over the tasks. The
#: sources give no per-task counts; this mix (ER 128, Agg 100, Tr 119, Del 100, Cas 138, Abs 109
#: expected of 694) is illustrative.
MEME_EXTRA_SHARE: dict[str, float] = {"ER": 0.30, "Agg": 0.0, "Tr": 0.20, "Del": 0.0, "Cas": 0.40, "Abs": 0.10}

#: After-phase pass rates (before any gate) per system and task. Weak stores "pass" deletion and
#: absence questions often because they never held the value: the gate removes that credit.
MEME_ACCURACY: dict[str, dict[str, float]] = {
    "raw-rag": {"ER": 0.78, "Agg": 0.42, "Tr": 0.38, "Del": 0.62, "Cas": 0.34, "Abs": 0.48},
    "mem0": {"ER": 0.62, "Agg": 0.28, "Tr": 0.20, "Del": 0.66, "Cas": 0.20, "Abs": 0.50},
    "zep": {"ER": 0.70, "Agg": 0.36, "Tr": 0.30, "Del": 0.60, "Cas": 0.27, "Abs": 0.45},
    "a-mem": {"ER": 0.55, "Agg": 0.24, "Tr": 0.16, "Del": 0.64, "Cas": 0.16, "Abs": 0.46},
    "memmachine": {"ER": 0.80, "Agg": 0.40, "Tr": 0.36, "Del": 0.60, "Cas": 0.33, "Abs": 0.45},
}
#: Before-phase pass rates per system (every task).
MEME_BEFORE_ACCURACY: dict[str, float] = {"raw-rag": 0.80, "mem0": 0.64, "zep": 0.72, "a-mem": 0.56,
                                          "memmachine": 0.80}
#: Rates of a system not in the tables above.
MEME_GENERIC = ({"ER": 0.70, "Agg": 0.35, "Tr": 0.30, "Del": 0.60, "Cas": 0.26, "Abs": 0.46}, 0.72)

#: MEME sufficiency rule per system: (P(C=1 | correct), P(C=1 | wrong)) (C.1; Raw-RAG highest).
MEME_SUFFICIENCY: dict[str, tuple[float, float]] = {
    "raw-rag": (0.92, 0.70), "mem0": (0.75, 0.22), "zep": (0.85, 0.40), "a-mem": (0.55, 0.28),
    "memmachine": (0.90, 0.50)}
#: (P(result covered | correct), P(result covered | wrong)) of after-phase Tr and Cas answers.
MEME_RESULT_COVERAGE = (0.90, 0.30)
#: P(path covered | result covered) per system (C.1, G.10): raw history keeps the paths.
MEME_PATH_RETENTION: dict[str, float] = {"raw-rag": 0.86, "mem0": 0.42, "zep": 0.58, "a-mem": 0.36,
                                         "memmachine": 0.82}

#: The 14 MemoryAgentBench sources (the ``memoryagentbench`` scheme's canonical names, in order).
MEMORYAGENTBENCH_SOURCES: tuple[str, ...] = tuple(tree_weights(MEMORYAGENTBENCH_TREE)[0])
#: Source -> capability (AR, TTL, LRU, CR).
MEMORYAGENTBENCH_CAPABILITY: dict[str, str] = {
    source: capability for capability, node in MEMORYAGENTBENCH_TREE.items()
    for source in tree_weights(node)[0]}
#: Questions per source of the example: about a quarter of the real 2,071 (570), in proportions
#: that echo the real suite (many LongMemEval and ICL questions, few long-book questions).
MEMORYAGENTBENCH_SIZES: dict[str, int] = {
    "LongMemEval": 60, "EventQA": 50, "RULER-QA1": 40, "RULER-QA2": 40, "ReDial": 40, "Banking77": 40,
    "CLINC150": 40, "NLU": 40, "TREC-coarse": 40, "TREC-fine": 40, "DetectiveQA": 20, "InfBench-Sum": 20,
    "FactConsolidation-SH": 50, "FactConsolidation-MH": 50}
#: Sources scored by a fractional native metric (recommendation recall, summary score).
MEMORYAGENTBENCH_FRACTIONAL: tuple[str, ...] = ("ReDial", "InfBench-Sum")
#: Mean fractional score of a failed and of a passed answer; Beta concentration of both.
FRACTIONAL_MEANS = (0.02, 0.60)
FRACTIONAL_CONCENTRATION = 10.0
#: Mean score per system and source, in source order (:data:`MEMORYAGENTBENCH_SOURCES`).
MEMORYAGENTBENCH_ACCURACY: dict[str, dict[str, float]] = {
    system: dict(zip(MEMORYAGENTBENCH_SOURCES, values)) for system, values in {
        "raw-rag": (.62, .68, .80, .62, .12, .78, .74, .72, .70, .50, .55, .22, .62, .12),
        "mem0": (.52, .45, .58, .42, .06, .40, .35, .40, .45, .25, .45, .15, .40, .06),
        "zep": (.58, .52, .68, .50, .08, .60, .55, .58, .60, .38, .50, .18, .50, .08),
        "a-mem": (.46, .40, .52, .38, .05, .35, .30, .36, .40, .20, .42, .14, .30, .05),
        "memmachine": (.60, .60, .74, .55, .10, .70, .66, .66, .66, .46, .52, .22, .55, .10),
    }.items()}
#: Score of every source for a system not in the table (fractional sources 0.12).
MEMORYAGENTBENCH_GENERIC = 0.45
#: MemoryAgentBench sufficiency rule per system: (P(C=1 | pass), P(C=1 | fail)). Coverage then
#: spans about 20-45% and utilization about 80-90%, as in the paper (§5.1).
MEMORYAGENTBENCH_SUFFICIENCY: dict[str, tuple[float, float]] = {
    "raw-rag": (0.70, 0.10), "mem0": (0.42, 0.05), "zep": (0.52, 0.07), "a-mem": (0.38, 0.05),
    "memmachine": (0.62, 0.08)}

#: Truth values are rounded to this many decimals so that ``truth_*.json`` is the same everywhere.
_TRUTH_DECIMALS = 10


def _bvn(h: float, k: float, rho: float) -> float:
    """P(X < h, Y < k) for a standard bivariate normal with correlation ``rho`` (|rho| < 1).

    Φ₂(h, k; ρ) = ∫_{−∞}^{h} φ(x) Φ((k − ρx)/√(1 − ρ²)) dx (one-dimensional quadrature).
    """
    if h == -np.inf or k == -np.inf:
        return 0.0
    if h == np.inf:
        return float(ndtr(k))
    if k == np.inf:
        return float(ndtr(h))
    root = math.sqrt(1 - rho * rho)
    value, _ = quad(lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi) * ndtr((k - rho * x) / root),
                    -np.inf, h, epsabs=1e-13, epsrel=1e-12, limit=200)
    return float(value)


def _round(value: object) -> object:
    """Truth values rounded to :data:`_TRUTH_DECIMALS` (floats inside dicts, lists and tuples)."""
    if isinstance(value, Mapping):
        return {k: _round(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_round(v) for v in value]
    if isinstance(value, (float, np.floating)):
        return round(float(value), _TRUTH_DECIMALS)
    return value


def _rate_table(value: float | Mapping | None, systems: Sequence[str], keys: Sequence[str], name: str,
                default: Mapping, generic: float | Mapping, allowed: Sequence[str] | None = None,
                canonical=lambda k: k) -> dict[str, dict[str, float]]:
    """Per-system, per-key probabilities from a scalar, a system -> scalar map or a system -> key map.

    ``None`` takes the rows of ``default`` (``generic`` for a system not in it). A row may name
    more keys than needed (any of ``allowed``) but must cover ``keys``.
    """
    allowed = list(keys if allowed is None else allowed)
    given = value is not None
    table = value if given else default
    if given and not isinstance(table, Mapping):
        table = {s: table for s in systems}
    unknown = [s for s in table if s not in systems] if given else []
    if unknown:
        raise ValueError(f"{name} names unknown systems {unknown} (systems: {list(systems)}).")
    out = {}
    for s in systems:
        row = table.get(s, None if given else generic)
        if row is None:
            raise ValueError(f"{name} has no entry for system '{s}'. Give a rate, or one per "
                             f"{'task' if 'ER' in keys else 'source'}.")
        if isinstance(row, Mapping):
            row = {canonical(k): v for k, v in row.items()}
            odd = [k for k in row if k not in allowed]
            lacking = [k for k in keys if k not in row]
            if odd or lacking:
                raise ValueError(f"{name}['{s}']: " + (f"unknown names {odd}" if odd else f"no rate for {lacking}")
                                 + f" (use {', '.join(allowed)}).")
            row = {k: float(row[k]) for k in keys}
        else:
            row = {k: float(row) for k in keys}
        bad = {k: v for k, v in row.items() if not 0 <= v <= 1}
        if bad:
            raise ValueError(f"{name}['{s}']: {bad} are not probabilities in [0, 1].")
        out[s] = row
    return out


def _pairs_table(value: Mapping | bool, systems: Sequence[str], name: str, default: Mapping,
                 generic: tuple[float, float]) -> dict[str, tuple[float, float]] | None:
    """System -> (P(label | correct), P(label | wrong)); True takes the defaults, False none."""
    if value is False:
        return None
    table = default if value is True else value
    if value is not True:
        unknown = [s for s in table if s not in systems]
        missing = [s for s in systems if s not in table]
        if unknown or missing:
            raise ValueError(f"{name} must give (P | correct, P | wrong) for exactly the systems "
                             f"{list(systems)} (unknown {unknown}, missing {missing}).")
    out = {s: tuple(map(float, table.get(s, generic))) for s in systems}
    bad = [s for s, pair in out.items() if len(pair) != 2 or not all(0 <= v <= 1 for v in pair)]
    if bad:
        raise ValueError(f"{name}: the entries of {bad} are not two probabilities.")
    return out


def _check_systems(systems: Sequence[str], reference: str | None) -> list[str]:
    systems = list(map(str, systems))
    if not systems or len(set(systems)) != len(systems):
        raise ValueError(f"need distinct system names, got {systems}.")
    if reference is not None and reference not in systems:
        raise ValueError(f"reference '{reference}' is not among the systems {systems}.")
    return systems


def simulate_meme(
    n_episodes: int = 100,
    systems: Sequence[str] = BENCHMARK_SYSTEMS,
    reference: str = "raw-rag",
    accuracy: float | Mapping | None = None,
    before_accuracy: float | Mapping | None = None,
    n_after: int | None = None,
    n_before: int | None = None,
    episode_var: float = 0.10,
    store_var: float = 0.10,
    pair_var: float = 0.30,
    question_var: float = 0.20,
    sufficiency: Mapping[str, tuple[float, float]] | bool = True,
    result_coverage: tuple[float, float] = MEME_RESULT_COVERAGE,
    path_retention: float | Mapping[str, float] | None = None,
    seed: int | np.random.Generator = 0,
) -> pd.DataFrame:
    """Synthetic MEME verdicts: episodes, six tasks, before/after twins and gates, with known truth.

    Parameters
    ----------
    n_episodes
        Episodes (MEME: 100); each is one resampling cluster.
    systems
        System names; ``reference`` must be one of them.
    reference
        The reference of the benefit/tax truth (SPEC §2), e.g. ``raw-rag``.
    accuracy
        After-phase pass rate (before any gate) per system and task: a float (every system and
        task), system -> float, or system -> {task: rate} with the six tasks ER, Agg, Tr, Del,
        Cas, Abs. None: :data:`MEME_ACCURACY` (:data:`MEME_GENERIC` for other systems).
    before_accuracy
        Before-phase pass rate, in the same forms. None: :data:`MEME_BEFORE_ACCURACY`.
    n_after, n_before
        After- and before-phase questions in all. Defaults: round(6.94 × episodes) and
        round(4.94 × episodes) -- MEME's 694 and 494 (1,188 in all) for 100 episodes. Every
        episode has at least one after question per task (so ``n_after >= 6 × episodes``); the
        rest spread over episodes and tasks by :data:`MEME_EXTRA_SHARE`. Every gated (Del, Cas,
        Abs) after question has a before twin; the other before questions are twins of randomly
        chosen ER/Agg/Tr after questions, so ``n_before`` lies between the gated after count and
        ``n_after`` (the default is clipped to that range).
    episode_var, store_var, pair_var, question_var
        Variance components of the latent probit scale (their sum must be < 1; the residual
        takes the rest): episode difficulty shared by all systems, a per-(system, episode) store
        effect, a per-(system, pair) effect shared by a before twin and its after question, a
        per-question difficulty shared by all systems.
    sufficiency
        System -> (P(C=1 | correct), P(C=1 | wrong)) for the ``sufficient`` label C of every
        question (both phases); True: :data:`MEME_SUFFICIENCY` (:data:`DEFAULT_SUFFICIENCY` for
        other systems); False writes no ``sufficient`` column.
    result_coverage
        (P(result covered | correct), P(result covered | wrong)) of after-phase Tr and Cas answers.
    path_retention
        P(path covered | result covered) per system (float or mapping); None:
        :data:`MEME_PATH_RETENTION` (0.7 for other systems). A path is never covered without its
        result.
    seed
        An int or a ``numpy.random.Generator``; every draw comes from this one generator.

    Returns
    -------
    pandas.DataFrame
        Canonical verdicts (SPEC §1), one row per (system, question): ``system, query_id,
        score, benchmark, cluster, category, phase, pair_id, [sufficient], result_covered,
        path_covered``. ``benchmark`` is ``meme``; ``cluster`` the episode (``ep007``);
        ``category`` the task; ``query_id`` ``ep007-Cas2-after`` / ``ep007-Cas2-before``;
        ``pair_id`` (``ep007-Cas2``) is shared by an after question and its before twin and empty
        for after questions without one; ``result_covered``/``path_covered`` are 0/1 on
        after-phase Tr and Cas rows and empty elsewhere. ``attrs["truth"]`` holds the expected
        values (see Notes) and the arguments.

    Notes
    -----
    Question i of system s, in episode e and pair p (its before/after twin group, or itself),
    has a latent ``L = √σ_e·a_e + √σ_st·b_es + √σ_p·c_ps + √σ_q·d_i + √σ_r·ε_is`` (all standard
    normal, σ_r = 1 − σ_e − σ_st − σ_p − σ_q, so L ~ N(0, 1)) and passes when
    ``L < Φ⁻¹(π)``, π the task-and-phase pass rate: P(pass) = π exactly. The MEME rule (D.1.3,
    SPEC §6) gates Del, Cas and Abs: an after pass counts only when the before twin passed, so
    the expected task score is

    - ER, Agg, Tr: π_after
    - Del, Cas, Abs: Φ₂(Φ⁻¹(π_after), Φ⁻¹(π_before); ρ_twin), ρ_twin = σ_e + σ_st + σ_p

    and the expected gate effect (credit removed) π_after − that. Overall = mean of the six task
    scores. Two systems' latents on one question correlate ρ_sys = σ_e + σ_q, so the expected
    ungated after-phase benefit of s against the reference R is Φ(h_s) − Φ₂(h_s, h_R; ρ_sys)
    and the tax Φ(h_R) − Φ₂(h_s, h_R; ρ_sys), with h = Φ⁻¹(π_after). Two questions of one
    episode (not twins) correlate ρ_ep = σ_e + σ_st (the latent intra-episode correlation).
    Sufficiency, result and path labels are drawn given the pass labels, so P(path | result) is
    exactly the retention; coverage and utilization truths are the expectations over the
    questions drawn (all phases): Σ (r₁π + r₀(1 − π)) / N and Σ r₁π / Σ (r₁π + r₀(1 − π)).

    Examples
    --------
    >>> df = simulate_meme(n_episodes=2, systems=("raw-rag", "mem0"), seed=1)
    >>> sorted(df["category"].unique()), sorted(df["phase"].unique())
    (['Abs', 'Agg', 'Cas', 'Del', 'ER', 'Tr'], ['after', 'before'])
    >>> int((df["phase"] == "after").sum() / 2), round(df.attrs["truth"]["task_score"]["raw-rag"]["ER"], 2)
    (14, 0.78)
    """
    systems = _check_systems(systems, reference)
    if not (isinstance(n_episodes, (int, np.integer)) and n_episodes >= 1):
        raise ValueError(f"n_episodes must be a positive whole number, not {n_episodes!r}.")
    n_episodes = int(n_episodes)
    parts = {"episode_var": episode_var, "store_var": store_var, "pair_var": pair_var,
             "question_var": question_var}
    if any(v < 0 for v in parts.values()) or sum(parts.values()) >= 1:
        raise ValueError(f"variance components {parts} must be >= 0 and sum to less than 1 "
                         "(the residual takes the rest of the unit latent variance).")
    tasks, n_tasks = MEME_TASK_ORDER, len(MEME_TASK_ORDER)
    after_p = _rate_table(accuracy, systems, tasks, "accuracy", MEME_ACCURACY, MEME_GENERIC[0])
    before_p = _rate_table(before_accuracy, systems, tasks, "before_accuracy", MEME_BEFORE_ACCURACY,
                           MEME_GENERIC[1])
    suff = _pairs_table(sufficiency, systems, "sufficiency", MEME_SUFFICIENCY, DEFAULT_SUFFICIENCY)
    rc1, rc0 = map(float, result_coverage)
    if not (0 <= rc0 <= 1 and 0 <= rc1 <= 1):
        raise ValueError(f"result_coverage {result_coverage} must be two probabilities.")
    retention = _per_system(path_retention, systems, "path_retention", systems) if path_retention is not None \
        else {s: MEME_PATH_RETENTION.get(s, 0.7) for s in systems}
    missing = [s for s in systems if s not in retention]
    if missing or not all(0 <= v <= 1 for v in retention.values()):
        raise ValueError(f"path_retention needs a probability for every system (missing {missing}).")
    n_after = round(MEME_AFTER_PER_EPISODE * n_episodes) if n_after is None else int(n_after)
    if n_after < n_tasks * n_episodes:
        raise ValueError(f"n_after = {n_after} is below one after question per task and episode "
                         f"({n_tasks * n_episodes}).")
    rng = np.random.default_rng(seed)

    # design: after questions per (episode, task), then which of them have a before twin
    share = np.tile([MEME_EXTRA_SHARE[t] for t in tasks], n_episodes)
    counts = 1 + rng.multinomial(n_after - n_tasks * n_episodes, share / share.sum()).reshape(n_episodes, n_tasks)
    after_episode = np.repeat(np.repeat(np.arange(n_episodes), n_tasks), counts.ravel())
    after_task = np.repeat(np.tile(np.arange(n_tasks), n_episodes), counts.ravel())
    after_k = np.concatenate([np.arange(c) for c in counts.ravel()])
    gated = np.isin(after_task, [tasks.index(t) for t in MEME_GATED])
    low, high = int(gated.sum()), n_after
    if n_before is None:
        n_before = min(max(round(MEME_BEFORE_PER_EPISODE * n_episodes), low), high)
    elif not low <= n_before <= high:
        raise ValueError(f"n_before = {n_before} must lie in [{low}, {high}]: every gated after question "
                         "needs its before twin, and each after question has at most one.")
    twin = gated.copy()
    twin[rng.choice(np.flatnonzero(~gated), size=n_before - low, replace=False)] = True

    # questions: per after question its before twin (if any), then itself
    rows_per = 1 + twin.astype(np.int64)
    pair = np.repeat(np.arange(n_after), rows_per)
    first = np.repeat(np.cumsum(rows_per) - rows_per, rows_per)
    before = (rows_per[pair] == 2) & (np.arange(len(pair)) == first)
    episode, task = after_episode[pair], after_task[pair]
    n_q, n_s = len(pair), len(systems)
    width = max(3, len(str(n_episodes - 1)))
    episode_names = np.array([f"ep{e:0{width}d}" for e in range(n_episodes)], dtype=object)
    stems = np.array([f"{episode_names[e]}-{tasks[t]}{k + 1}" for e, t, k in zip(after_episode, after_task, after_k)],
                     dtype=object)
    phase = np.where(before, "before", "after").astype(object)
    query_ids = stems[pair] + "-" + phase
    pair_ids = np.where(twin[pair], stems[pair], None)

    # pass labels from the latent probit model
    latent = (math.sqrt(episode_var) * rng.standard_normal(n_episodes)[episode][:, None]
              + math.sqrt(store_var) * rng.standard_normal((n_episodes, n_s))[episode]
              + math.sqrt(pair_var) * rng.standard_normal((n_after, n_s))[pair]
              + math.sqrt(question_var) * rng.standard_normal(n_q)[:, None]
              + math.sqrt(1 - sum(parts.values())) * rng.standard_normal((n_q, n_s)))
    table_after = np.array([[after_p[s][t] for s in systems] for t in tasks])    # (T, S)
    table_before = np.array([[before_p[s][t] for s in systems] for t in tasks])
    rate = np.where(before[:, None], table_before[task], table_after[task])       # (N, S)
    passed = latent < ndtri(rate)

    # labels: sufficiency (all questions), result and path coverage (after-phase Tr and Cas)
    draws = rng.random((3, n_q, n_s))
    p_right = np.array([suff[s][0] for s in systems]) if suff else np.zeros(n_s)
    p_wrong = np.array([suff[s][1] for s in systems]) if suff else np.zeros(n_s)
    sufficient = draws[0] < np.where(passed, p_right, p_wrong)
    result = draws[1] < np.where(passed, rc1, rc0)
    path = result & (draws[2] < np.array([retention[s] for s in systems]))
    assessed = ~before & np.isin(task, [tasks.index("Tr"), tasks.index("Cas")])

    s_idx, q_idx = (a.ravel() for a in np.meshgrid(np.arange(n_s), np.arange(n_q), indexing="ij"))
    frame = {
        "system": np.array(systems, dtype=object)[s_idx],
        "query_id": query_ids[q_idx],
        "score": passed[q_idx, s_idx].astype(float),
        "benchmark": np.full(len(s_idx), "meme", dtype=object),
        "cluster": episode_names[episode][q_idx],
        "category": np.array(tasks, dtype=object)[task][q_idx],
        "phase": phase[q_idx],
        "pair_id": pair_ids[q_idx],
    }
    if suff:
        frame["sufficient"] = sufficient[q_idx, s_idx].astype(float)
    frame["result_covered"] = np.where(assessed[q_idx], result[q_idx, s_idx], np.nan)
    frame["path_covered"] = np.where(assessed[q_idx], path[q_idx, s_idx], np.nan)
    df = pd.DataFrame(frame)

    # truth
    rho_twin = episode_var + store_var + pair_var
    rho_sys = episode_var + question_var
    task_score, gate_effect, benefit, tax = {}, {}, {}, {}
    for s in systems:
        task_score[s], gate_effect[s], benefit[s], tax[s] = {}, {}, {}, {}
        for t in tasks:
            a = after_p[s][t]
            score_t = _bvn(ndtri(a), ndtri(before_p[s][t]), rho_twin) if t in MEME_GATED else a
            task_score[s][t], gate_effect[s][t] = score_t, a - score_t
            h_s, h_r = ndtri(a), ndtri(after_p[reference][t])
            both = _bvn(h_s, h_r, rho_sys) if s != reference else a
            benefit[s][t], tax[s][t] = a - both, after_p[reference][t] - both
    coverage, utilization = {}, {}
    if suff:
        for j, s in enumerate(systems):
            right = p_right[j] * rate[:, j]
            covered = right + p_wrong[j] * (1 - rate[:, j])
            coverage[s], utilization[s] = covered.mean(), right.sum() / covered.sum()
    result_truth = {s: float(np.mean(rc1 * rate[assessed, j] + rc0 * (1 - rate[assessed, j])))
                    for j, s in enumerate(systems)}
    df.attrs["truth"] = _round({
        "benchmark": "meme", "reference": reference, "systems": systems, "tasks": list(tasks),
        "gated": list(MEME_GATED),
        "accuracy": after_p, "before_accuracy": before_p, "task_score": task_score,
        "gate_effect": gate_effect,
        "overall": {s: sum(task_score[s].values()) / n_tasks for s in systems},
        "benefit": benefit, "tax": tax,
        "correlation": {"twin": rho_twin, "systems": rho_sys, "episode": episode_var + store_var},
        "variance": parts, "sufficiency": suff or {}, "coverage": coverage, "utilization": utilization,
        "result_coverage_rule": [rc1, rc0], "result_coverage": result_truth, "path_given_result": retention,
        "n_episodes": n_episodes, "n_after": n_after, "n_before": int(n_before),
        "n_after_by_task": {t: int((after_task == k).sum()) for k, t in enumerate(tasks)},
        "seed": seed if isinstance(seed, int) else None,
    })
    return df


def simulate_memoryagentbench(
    n_per_source: int | Mapping[str, int] | None = None,
    systems: Sequence[str] = BENCHMARK_SYSTEMS,
    accuracy: float | Mapping | None = None,
    fractional: Sequence[str] = MEMORYAGENTBENCH_FRACTIONAL,
    question_var: float = 0.30,
    sufficiency: Mapping[str, tuple[float, float]] | bool = True,
    seed: int | np.random.Generator = 0,
) -> pd.DataFrame:
    """Synthetic MemoryAgentBench verdicts: 14 sources (strata), native metrics, known truth.

    Parameters
    ----------
    n_per_source
        Questions per source: an int for every source, or source -> count (sources left out are
        not simulated, which makes an incomplete run). None: :data:`MEMORYAGENTBENCH_SIZES`
        (570 in all; the real suite has 2,071). Source names are matched as the
        ``memoryagentbench`` scheme matches them (``icl_banking77`` = ``Banking77``).
    systems
        System names.
    accuracy
        Mean score per system and source: a float, system -> float, or system -> {source:
        mean}. None: :data:`MEMORYAGENTBENCH_ACCURACY` (:data:`MEMORYAGENTBENCH_GENERIC`, 0.12
        on fractional sources, for other systems).
    fractional
        Sources scored by a fractional native metric in [0, 1] (ReDial recall, InfBench summary
        score); their means must lie in :data:`FRACTIONAL_MEANS`.
    question_var
        Share of the latent variance that is question difficulty common to all systems (< 1):
        it makes the systems' verdicts on one question correlate, as paired data do.
    sufficiency
        System -> (P(C=1 | pass), P(C=1 | fail)) for the ``sufficient`` label; True:
        :data:`MEMORYAGENTBENCH_SUFFICIENCY` (:data:`DEFAULT_SUFFICIENCY` for other systems);
        False writes no ``sufficient`` column.
    seed
        An int or a ``numpy.random.Generator``; every draw comes from this one generator.

    Returns
    -------
    pandas.DataFrame
        Canonical verdicts (SPEC §1), one row per (system, question): ``system, query_id,
        score, benchmark, stratum, category, [sufficient]``; ``benchmark`` is
        ``memoryagentbench``, ``stratum`` the canonical source name (the resampling stratum),
        ``category`` its capability (AR, TTL, LRU, CR), ``query_id`` ``<source>-<k>``.
        ``attrs["truth"]``: ``source_score``, ``capabilities`` (AR, TTL, ICL, LRU, CR),
        ``overall`` (None unless all 14 sources are simulated), ``coverage``, ``utilization``,
        ``n_per_source`` and the arguments.

    Notes
    -----
    Question i of system s has the latent ``L = √σ_q·d_i + √(1 − σ_q)·ε_is`` and passes when
    ``L < Φ⁻¹(π)``. A binary source scores the pass (π = its mean m); a fractional source
    scores Beta(κμ₁, κ(1 − μ₁)) after a pass and Beta(κμ₀, κ(1 − μ₀)) after a fail (rounded to
    3 decimals), with π = (m − μ₀)/(μ₁ − μ₀), so its expected score is m. The expected official
    overall is the scheme's nested weighting of the source means (SPEC §6; D.5 eq. 6):
    AR = mean of 4 sources, TTL = ½(ReDial + mean of 5 ICL sources), LRU and CR means of 2,
    Overall = mean(AR, TTL, LRU, CR). Coverage = Σ (r₁π + r₀(1 − π)) / N and utilization =
    Σ E[C·Y] / Σ E[C] over the questions drawn, with E[C·Y] = r₁π (binary) or
    r₁πμ₁ + r₀(1 − π)μ₀ (fractional).

    Examples
    --------
    >>> df = simulate_memoryagentbench(n_per_source=3, systems=("raw-rag", "mem0"), seed=1)
    >>> df["stratum"].nunique(), len(df), df.attrs["truth"]["overall"]["raw-rag"]
    (14, 84, 0.45975)
    """
    systems = _check_systems(systems, None)
    scheme = get_scheme("memoryagentbench")
    if n_per_source is None:
        n_per_source = MEMORYAGENTBENCH_SIZES
    if isinstance(n_per_source, Mapping):
        sizes = {scheme.canonical(k): v for k, v in n_per_source.items()}
        unknown = [k for k in sizes if k not in MEMORYAGENTBENCH_SOURCES]
        if unknown:
            raise ValueError(f"n_per_source names unknown sources {unknown} (sources: "
                             f"{', '.join(MEMORYAGENTBENCH_SOURCES)}).")
    else:
        sizes = dict.fromkeys(MEMORYAGENTBENCH_SOURCES, n_per_source)
    sources = [h for h in MEMORYAGENTBENCH_SOURCES if h in sizes]
    if not sources or any(not (isinstance(sizes[h], (int, np.integer)) and sizes[h] >= 1) for h in sources):
        raise ValueError(f"n_per_source must give a positive whole number of questions per source, got {sizes}.")
    fractional = {scheme.canonical(h) for h in fractional}
    generic = {h: 0.12 if h in fractional else MEMORYAGENTBENCH_GENERIC for h in MEMORYAGENTBENCH_SOURCES}
    means = _rate_table(accuracy, systems, sources, "accuracy", MEMORYAGENTBENCH_ACCURACY, generic,
                        allowed=MEMORYAGENTBENCH_SOURCES, canonical=scheme.canonical)
    if not 0 <= question_var < 1:
        raise ValueError(f"question_var must lie in [0, 1), not {question_var}.")
    mu0, mu1 = FRACTIONAL_MEANS
    bad = [(s, h, m[h]) for s, m in means.items() for h in sources if h in fractional and not mu0 <= m[h] <= mu1]
    if bad:
        raise ValueError(f"fractional sources need a mean score in [{mu0}, {mu1}]: {bad}.")
    suff = _pairs_table(sufficiency, systems, "sufficiency", MEMORYAGENTBENCH_SUFFICIENCY, DEFAULT_SUFFICIENCY)
    rng = np.random.default_rng(seed)

    counts = np.array([int(sizes[h]) for h in sources])
    source = np.repeat(np.arange(len(sources)), counts)
    position = np.concatenate([np.arange(c) for c in counts])
    n_q, n_s = len(source), len(systems)
    is_fractional = np.isin(source, [k for k, h in enumerate(sources) if h in fractional])
    mean = np.array([[means[s][h] for s in systems] for h in sources])[source]          # (N, S)
    rate = np.where(is_fractional[:, None], (mean - mu0) / (mu1 - mu0), mean)
    latent = math.sqrt(question_var) * rng.standard_normal(n_q)[:, None] \
        + math.sqrt(1 - question_var) * rng.standard_normal((n_q, n_s))
    passed = latent < ndtri(rate)
    k = FRACTIONAL_CONCENTRATION
    high = rng.beta(k * mu1, k * (1 - mu1), (n_q, n_s))
    low = rng.beta(k * mu0, k * (1 - mu0), (n_q, n_s))
    scores = np.where(is_fractional[:, None], np.round(np.where(passed, high, low), 3), passed.astype(float))
    p_right = np.array([suff[s][0] for s in systems]) if suff else np.zeros(n_s)
    p_wrong = np.array([suff[s][1] for s in systems]) if suff else np.zeros(n_s)
    sufficient = rng.random((n_q, n_s)) < np.where(passed, p_right, p_wrong)

    names = np.array(sources, dtype=object)
    width = max(3, len(str(counts.max() - 1)))
    query_ids = np.array([f"{sources[h]}-{j:0{width}d}" for h, j in zip(source, position)], dtype=object)
    s_idx, q_idx = (a.ravel() for a in np.meshgrid(np.arange(n_s), np.arange(n_q), indexing="ij"))
    frame = {
        "system": np.array(systems, dtype=object)[s_idx],
        "query_id": query_ids[q_idx],
        "score": scores[q_idx, s_idx],
        "benchmark": np.full(len(s_idx), "memoryagentbench", dtype=object),
        "stratum": names[source][q_idx],
        "category": np.array([MEMORYAGENTBENCH_CAPABILITY[h] for h in sources], dtype=object)[source][q_idx],
    }
    if suff:
        frame["sufficient"] = sufficient[q_idx, s_idx].astype(float)
    df = pd.DataFrame(frame)

    weights = scheme.group_weights
    complete = len(sources) == len(MEMORYAGENTBENCH_SOURCES)
    capabilities = {s: {name: sum(w * means[s][h] for h, w in node.items()) if set(node) <= set(sources)
                        else None for name, node in scheme.summaries.items()} for s in systems}
    coverage, utilization = {}, {}
    if suff:
        for j, s in enumerate(systems):
            p = rate[:, j]
            covered = p_right[j] * p + p_wrong[j] * (1 - p)
            hit = np.where(is_fractional, p_right[j] * p * mu1 + p_wrong[j] * (1 - p) * mu0, p_right[j] * p)
            coverage[s], utilization[s] = covered.mean(), hit.sum() / covered.sum()
    df.attrs["truth"] = _round({
        "benchmark": "memoryagentbench", "systems": systems, "sources": sources,
        "fractional": sorted(fractional & set(sources)), "source_score": means,
        "capabilities": capabilities,
        "overall": {s: sum(weights[h] * means[s][h] for h in sources) if complete else None for s in systems},
        "question_var": question_var, "fractional_means": [mu0, mu1], "fractional_concentration": k,
        "sufficiency": suff or {}, "coverage": coverage, "utilization": utilization,
        "n_per_source": {h: int(sizes[h]) for h in sources},
        "seed": seed if isinstance(seed, int) else None,
    })
    return df


#: The bundled MEME example (``data/example/meme``): MEME's shape, five systems.
MEME_EXAMPLE: dict = {"n_episodes": 100, "systems": BENCHMARK_SYSTEMS, "reference": "raw-rag"}

#: The bundled MemoryAgentBench example (``data/example/memoryagentbench``): 570 questions, five systems.
MEMORYAGENTBENCH_EXAMPLE: dict = {"n_per_source": MEMORYAGENTBENCH_SIZES, "systems": BENCHMARK_SYSTEMS}


def _write_per_system(verdicts: pd.DataFrame, folder: Path, integers: Sequence[str],
                      float_format: str | None = None) -> list[Path]:
    """One ``<system>.csv`` per system, 0/1 columns as integers (an empty cell where missing)."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for system, part in verdicts.groupby("system", sort=False):
        path = folder / f"{system}.csv"
        part = part.astype({c: "Int64" for c in integers if c in part})
        part.to_csv(path, index=False, lineterminator="\n", float_format=float_format)
        written.append(path)
    return written


def _write_truth(truth: Mapping, path: Path) -> Path:
    path.write_text(json.dumps(truth, indent=2) + "\n", encoding="utf-8")
    return path


def write_meme_example(out: str | Path = "data/example", seed: int = EXAMPLE_SEED) -> list[Path]:
    """Write ``meme/<system>.csv`` and ``truth_meme.json``: ``simulate_meme(**MEME_EXAMPLE, seed=seed)``.

    The truth sits beside the folder, not in it, so that ``memdiag score data/example/meme``
    reads verdicts only.
    """
    out = Path(out)
    verdicts = simulate_meme(**MEME_EXAMPLE, seed=seed)
    written = _write_per_system(verdicts, out / "meme", ("score", "sufficient", "result_covered", "path_covered"))
    return [*written, _write_truth(verdicts.attrs["truth"], out / "truth_meme.json")]


def write_memoryagentbench_example(out: str | Path = "data/example", seed: int = EXAMPLE_SEED) -> list[Path]:
    """Write ``memoryagentbench/<system>.csv`` and ``truth_memoryagentbench.json``:
    ``simulate_memoryagentbench(**MEMORYAGENTBENCH_EXAMPLE, seed=seed)`` (scores written with ``%g``)."""
    out = Path(out)
    verdicts = simulate_memoryagentbench(**MEMORYAGENTBENCH_EXAMPLE, seed=seed)
    written = _write_per_system(verdicts, out / "memoryagentbench", ("sufficient",), float_format="%g")
    return [*written, _write_truth(verdicts.attrs["truth"], out / "truth_memoryagentbench.json")]


def write_example(out: str | Path = "data/example", seed: int = EXAMPLE_SEED) -> list[Path]:
    """Write the example data: the LoCoMo-like ``verdicts/``, ``meme/`` and ``memoryagentbench/``.

    - ``verdicts/<system>.csv``, ``systems.csv``, ``truth.json``: ``simulate(**EXAMPLE, seed=seed)``
      and ``simulate_systems_table(verdicts, seed=seed)``;
    - ``meme/<system>.csv``, ``truth_meme.json``: :func:`write_meme_example`;
    - ``memoryagentbench/<system>.csv``, ``truth_memoryagentbench.json``:
      :func:`write_memoryagentbench_example`.

    The bundled files were made with ``memdiag simulate --write data/example`` (seed
    :data:`EXAMPLE_SEED`); each part draws from its own generator seeded with ``seed``, so adding
    a part never changes another. ``scheme_example.yaml``, ``claims_example.yaml``,
    ``write_log.csv`` and ``README.md`` beside them are written by hand.

    Returns
    -------
    list of pathlib.Path
        The files written.
    """
    out = Path(out)
    (out / "verdicts").mkdir(parents=True, exist_ok=True)
    verdicts = simulate(**EXAMPLE, seed=seed)
    written = []
    for system, part in verdicts.groupby("system", sort=False):
        path = out / "verdicts" / f"{system}.csv"
        part = part.astype({c: "Int64" for c in ("score", "sufficient", "input_tokens", "output_tokens",
                                                  "evidence_tokens")})
        part.to_csv(path, index=False, lineterminator="\n")
        written.append(path)
    table = simulate_systems_table(verdicts, seed=seed)
    table.to_csv(out / "systems.csv", index=False, lineterminator="\n")
    (out / "truth.json").write_text(json.dumps(verdicts.attrs["truth"], indent=2) + "\n", encoding="utf-8")
    return [*written, out / "systems.csv", out / "truth.json", *write_meme_example(out, seed=seed),
            *write_memoryagentbench_example(out, seed=seed)]
