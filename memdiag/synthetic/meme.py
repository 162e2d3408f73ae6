"""Synthetic MEME verdicts: episodes, six tasks, before/after twins and gates, with known truth.

:func:`simulate_meme` draws data shaped like MEME (Raw-RAG paper §4.1, D.1.3) whose official
scores (SPEC §6), benefit and tax, coverage and utilization have known expected values. The
default rate tables are package data, ``data/meme.yaml``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.special import ndtri

from memdiag.panel.schemes import MEME_TASKS, get_scheme
from memdiag.synthetic._core import (
    BENCHMARK_SYSTEMS,
    DEFAULT_SUFFICIENCY,
    bvn,
    check_systems,
    load_table,
    pairs_table,
    per_system,
    rate_table,
    round_truth,
)

_TABLES = load_table("meme")

#: MEME tasks in the order of the ``meme`` scheme (D.1.3) and the ones gated on the before twin.
MEME_TASK_ORDER: tuple[str, ...] = tuple(MEME_TASKS)
MEME_GATED: tuple[str, ...] = get_scheme("meme").gates

#: MEME's shape (Raw-RAG paper §4.1, D.1.3, A.5): 100 episodes, 1,188 phase-specific questions,
#: 694 of them after-phase, so 6.94 after- and 4.94 before-phase questions per episode.
MEME_AFTER_PER_EPISODE = 6.94
MEME_BEFORE_PER_EPISODE = 4.94

#: How the after-phase questions beyond one per task and episode spread over the tasks (relative
#: weights; at 100 episodes the task totals are the ``meme`` scheme's ``expected_counts``).
MEME_EXTRA_SHARE: dict[str, float] = _TABLES["extra_share"]

#: After-phase pass rates (before any gate) per system and task. Weak stores "pass" deletion and
#: absence questions often because they never held the value: the gate removes that credit.
MEME_ACCURACY: dict[str, dict[str, float]] = _TABLES["accuracy"]
#: Before-phase pass rates per system (every task).
MEME_BEFORE_ACCURACY: dict[str, float] = _TABLES["before_accuracy"]
#: Rates of a system not in the tables above: (after-phase rate per task, before-phase rate).
MEME_GENERIC: tuple[dict[str, float], float] = (_TABLES["generic"]["accuracy"], _TABLES["generic"]["before_accuracy"])

#: MEME sufficiency rule per system: (P(C=1 | correct), P(C=1 | wrong)) (C.1; Raw-RAG highest).
MEME_SUFFICIENCY: dict[str, tuple[float, float]] = {s: tuple(pair) for s, pair in _TABLES["sufficiency"].items()}
#: (P(result covered | correct), P(result covered | wrong)) of after-phase Tr and Cas answers.
MEME_RESULT_COVERAGE = (0.90, 0.30)
#: P(path covered | result covered) per system (C.1, G.10): raw history keeps the paths.
MEME_PATH_RETENTION: dict[str, float] = _TABLES["path_retention"]


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
        rest are allotted to the tasks in proportion to :data:`MEME_EXTRA_SHARE` (largest
        remainder, so 100 episodes give the ``meme`` scheme's counts: Del 100, Cas 164, Abs 130,
        ER, Agg and Tr 100 each) and spread over the episodes at random. Every gated (Del, Cas,
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

    Raises
    ------
    ValueError
        A ``reference`` not among the systems or repeated names; ``n_episodes`` not a positive
        whole number; variance components that are negative or sum to 1 or more; rates that are
        not probabilities or name unknown systems or tasks; ``n_after`` below one question per
        task and episode, or ``n_before`` outside [gated after questions, ``n_after``].

    References
    ----------
    SPEC §6.3 (the ``meme`` scheme: six tasks, gates on the before twin), SPEC §3 (coverage,
    utilization and path given result) and SPEC §2 (benefit and tax); Raw-RAG paper §4.1, D.1.3
    (MEME's episodes, tasks and gates), C.1 and G.10.

    Examples
    --------
    >>> df = simulate_meme(n_episodes=2, systems=("raw-rag", "mem0"), seed=1)
    >>> sorted(df["category"].unique()), sorted(df["phase"].unique())
    (['Abs', 'Agg', 'Cas', 'Del', 'ER', 'Tr'], ['after', 'before'])
    >>> int((df["phase"] == "after").sum() / 2), round(df.attrs["truth"]["task_score"]["raw-rag"]["ER"], 2)
    (14, 0.78)
    """
    systems = check_systems(systems, reference)
    if not (isinstance(n_episodes, (int, np.integer)) and n_episodes >= 1):
        raise ValueError(f"n_episodes must be a positive whole number, not {n_episodes!r}.")
    n_episodes = int(n_episodes)
    parts = {"episode_var": episode_var, "store_var": store_var, "pair_var": pair_var,
             "question_var": question_var}
    if any(v < 0 for v in parts.values()) or sum(parts.values()) >= 1:
        raise ValueError(f"variance components {parts} must be >= 0 and sum to less than 1 "
                         "(the residual takes the rest of the unit latent variance).")
    tasks, n_tasks = MEME_TASK_ORDER, len(MEME_TASK_ORDER)
    after_p = rate_table(accuracy, systems, tasks, "accuracy", MEME_ACCURACY, MEME_GENERIC[0])
    before_p = rate_table(before_accuracy, systems, tasks, "before_accuracy", MEME_BEFORE_ACCURACY,
                           MEME_GENERIC[1])
    suff = pairs_table(sufficiency, systems, "sufficiency", MEME_SUFFICIENCY, DEFAULT_SUFFICIENCY)
    rc1, rc0 = map(float, result_coverage)
    if not (0 <= rc0 <= 1 and 0 <= rc1 <= 1):
        raise ValueError(f"result_coverage {result_coverage} must be two probabilities.")
    retention = per_system(path_retention, systems, "path_retention", systems) if path_retention is not None \
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
    share = np.array([MEME_EXTRA_SHARE[t] for t in tasks], dtype=float)
    quota = (n_after - n_tasks * n_episodes) * share / share.sum()
    per_task = np.floor(quota).astype(np.int64)
    left = int(n_after - n_tasks * n_episodes - per_task.sum())
    per_task[np.argsort(-(quota - per_task), kind="stable")[:left]] += 1     # largest remainder
    counts = 1 + np.stack([rng.multinomial(k, np.full(n_episodes, 1.0 / n_episodes)) for k in per_task], axis=1)
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
            score_t = bvn(ndtri(a), ndtri(before_p[s][t]), rho_twin) if t in MEME_GATED else a
            task_score[s][t], gate_effect[s][t] = score_t, a - score_t
            h_s, h_r = ndtri(a), ndtri(after_p[reference][t])
            both = bvn(h_s, h_r, rho_sys) if s != reference else a
            benefit[s][t], tax[s][t] = a - both, after_p[reference][t] - both
    coverage, utilization = {}, {}
    if suff:
        for j, s in enumerate(systems):
            right = p_right[j] * rate[:, j]
            covered = right + p_wrong[j] * (1 - rate[:, j])
            coverage[s], utilization[s] = covered.mean(), right.sum() / covered.sum()
    result_truth = {s: float(np.mean(rc1 * rate[assessed, j] + rc0 * (1 - rate[assessed, j])))
                    for j, s in enumerate(systems)}
    df.attrs["truth"] = round_truth({
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
