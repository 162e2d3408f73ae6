"""Synthetic MemoryAgentBench verdicts: 14 sources (strata), native metrics, known truth.

:func:`simulate_memoryagentbench` draws data shaped like MemoryAgentBench (14 sources in four
capabilities, nested weights; binary and fractional native metrics) whose official scores
(SPEC §6; D.5 eq. 6), coverage and utilization have known expected values. The default tables
are package data, ``data/memoryagentbench.yaml``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.special import ndtri

from memdiag.panel.schemes import MEMORYAGENTBENCH_TREE, get_scheme, tree_weights
from memdiag.synthetic._core import (
    BENCHMARK_SYSTEMS,
    DEFAULT_SUFFICIENCY,
    check_systems,
    load_table,
    pairs_table,
    rate_table,
    round_truth,
)

_TABLES = load_table("memoryagentbench")

#: The 14 MemoryAgentBench sources (the ``memoryagentbench`` scheme's canonical names, in order).
MEMORYAGENTBENCH_SOURCES: tuple[str, ...] = tuple(tree_weights(MEMORYAGENTBENCH_TREE)[0])
#: Source -> capability (AR, TTL, LRU, CR).
MEMORYAGENTBENCH_CAPABILITY: dict[str, str] = {
    source: capability for capability, node in MEMORYAGENTBENCH_TREE.items()
    for source in tree_weights(node)[0]}
#: Questions per source of the example: about a quarter of the real 2,071 (570), in proportions
#: that echo the real suite (many LongMemEval and ICL questions, few long-book questions).
MEMORYAGENTBENCH_SIZES: dict[str, int] = _TABLES["sizes"]
#: Sources scored by a fractional native metric (recommendation recall, summary score).
MEMORYAGENTBENCH_FRACTIONAL: tuple[str, ...] = ("ReDial", "InfBench-Sum")
#: Mean fractional score of a failed and of a passed answer; Beta concentration of both.
FRACTIONAL_MEANS = (0.02, 0.60)
FRACTIONAL_CONCENTRATION = 10.0
#: Mean score per system and source.
MEMORYAGENTBENCH_ACCURACY: dict[str, dict[str, float]] = _TABLES["accuracy"]
#: Score of every source for a system not in the table (fractional sources 0.12).
MEMORYAGENTBENCH_GENERIC = 0.45
#: MemoryAgentBench sufficiency rule per system: (P(C=1 | pass), P(C=1 | fail)). Coverage then
#: spans about 20-45% and utilization about 80-90%, as in the paper (§5.1).
MEMORYAGENTBENCH_SUFFICIENCY: dict[str, tuple[float, float]] = {
    s: tuple(pair) for s, pair in _TABLES["sufficiency"].items()}


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

    Raises
    ------
    ValueError
        Repeated system names; unknown sources or a count that is not a positive whole number;
        ``question_var`` outside [0, 1); rates that are not probabilities or name unknown
        systems or sources; a fractional source's mean outside :data:`FRACTIONAL_MEANS`.

    References
    ----------
    SPEC §6.3 (the ``memoryagentbench`` scheme: 14 sources as strata, the nested capability
    weights) and SPEC §3 (coverage and utilization); Raw-RAG paper D.5 eq. 6, D.1.4 and §5.1.

    Examples
    --------
    >>> df = simulate_memoryagentbench(n_per_source=3, systems=("raw-rag", "mem0"), seed=1)
    >>> df["stratum"].nunique(), len(df), df.attrs["truth"]["overall"]["raw-rag"]
    (14, 84, 0.45975)
    """
    systems = check_systems(systems, None)
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
    means = rate_table(accuracy, systems, sources, "accuracy", MEMORYAGENTBENCH_ACCURACY, generic,
                        allowed=MEMORYAGENTBENCH_SOURCES, canonical=scheme.canonical)
    if not 0 <= question_var < 1:
        raise ValueError(f"question_var must lie in [0, 1), not {question_var}.")
    mu0, mu1 = FRACTIONAL_MEANS
    bad = [(s, h, m[h]) for s, m in means.items() for h in sources if h in fractional and not mu0 <= m[h] <= mu1]
    if bad:
        raise ValueError(f"fractional sources need a mean score in [{mu0}, {mu1}]: {bad}.")
    suff = pairs_table(sufficiency, systems, "sufficiency", MEMORYAGENTBENCH_SUFFICIENCY, DEFAULT_SUFFICIENCY)
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
    df.attrs["truth"] = round_truth({
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
