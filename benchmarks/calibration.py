"""Calibration of memdiag's default intervals and tests with few clusters (SPEC §4.1), by simulation.

    python benchmarks/calibration.py [--sets 2000] [--resamples 999] [--out benchmarks/calibration_table.md]

Three kinds of data, each at G = 10, 30 and 100 clusters:

- ``conversations``: paired binary verdicts in clusters of LoCoMo's conversation sizes (152, 81,
  152, 199, 178, 123, 150, 191, 156, 158, recycled for G = 30 and 100); each conversation has its
  own accuracy (sd 7 points) and its own system difference (sd 5 points) around the true 2 points;
- ``iid``: the same sizes, queries independent (no conversation effect at all);
- ``episodes``: MEME-like episodes of 7 after-phase questions (one per task and one more), scored
  by the six-task macro-average; episodes differ in accuracy and in the system difference (sd 5
  points each), the true macro difference is 2 points.

and the cells issue 20 adds (:data:`DESIGN_KINDS`, :func:`simulate_design`): one conversation
holding half the questions (G = 10, 30), one missing cluster label given its own cluster, canonical
ids without a cluster column, and skewed cluster effects (G = 10, 30) — beside the default, the
jackknife and CR2 intervals, the iid fallback of 0.2.0 and the percentile cluster bootstrap.

Per data set the default of :func:`memdiag.compare` under the cluster design runs through the
same engine calls (:func:`memdiag.engine.inference.intervals.infer_cells` for binary plain means,
:func:`memdiag.engine.inference.intervals.infer` for the macro-average): the cluster jackknife t interval and the
restricted wild cluster bootstrap-t p-value. Beside it, the alternatives a user could pick: the
iid analysis (percentile interval; exact McNemar for binary data, the bootstrap sign test for the
macro) and the paper's percentile cluster bootstrap with its sign test (``inference="percentile"``).
Coverage is of the true difference by 95% intervals; size is the rejection rate at α = 0.05 on
data sets generated with no true difference (same cluster effects, mean 0).

:func:`simulate_conversations`, :func:`simulate_episodes` and :func:`calibrate` are imported by the
slow tests (``tests/test_calibration_clusters.py``), which accept coverage in [0.935, 0.965] and
size ≤ 0.065 for the default; this script writes the side-by-side table.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from memdiag.engine.designs import Design
from memdiag.engine.inference import mcnemar
from memdiag.engine.inference.intervals import infer, infer_cells
from memdiag.engine.pairs import cell_codes
from memdiag.engine.resampling import (
    accuracy_difference,
    bootstrap_sums,
    cell_bootstrap,
)
from memdiag.io.schema import LOCOMO_CONVERSATIONS, locomo_query_id
from memdiag.panel.cluster_labels import assign_clusters
from memdiag.panel.schemes import get_scheme

#: LoCoMo's ten conversations: non-adversarial questions per conversation (SPEC §1.7).
LOCOMO_SIZES = (152, 81, 152, 199, 178, 123, 150, 191, 156, 158)
#: Six MEME tasks, and each one's reference pass rate in the episodes scenario.
TASK_RATES = np.array([0.60, 0.45, 0.50, 0.55, 0.40, 0.58])
TRUE_DIFFERENCE = 0.02
EFFECT_SD = 0.05
KINDS = ("conversations", "iid", "episodes")
METHODS = ("default", "iid", "percentile")
#: The cells issue 20 adds: designs that must never fall back silently, and a limitation.
DESIGN_KINDS = ("dominant", "missing-label", "canonical-ids", "skewed")
#: Their columns: the default beside each alternative a user could pick.
DESIGN_METHODS = ("default", "jackknife", "cr2", "iid", "percentile")
#: The G of each new cell (LoCoMo has 10 conversations; canonical ids name exactly those).
DESIGN_G = {"dominant": (10, 30), "missing-label": (10,), "canonical-ids": (10,), "skewed": (10, 30)}
#: Skewed cell: the system difference sits in a conversation with this probability ...
SKEW_PROBABILITY = 0.2
#: ... and is then this much larger than elsewhere (mean 0 around the true difference; sd 8 points).
SKEW_JUMP = 0.20
#: Which ``inference`` each engine method asks for.
_INFERENCE = {"default": "auto", "jackknife": "jackknife", "cr2": "cr2", "iid": "auto", "percentile": "percentile"}


def _pair(rng: np.random.Generator, p_ref: np.ndarray, p_sys: np.ndarray, rho: float = 0.5) -> np.ndarray:
    """Binary (system, reference) outcomes with the given per-query probabilities, paired by a
    Gaussian copula with correlation ρ (so P(y = 1) is exactly the probability given)."""
    z = rng.standard_normal((len(p_ref), 2))
    z[:, 1] = rho * z[:, 0] + np.sqrt(1 - rho ** 2) * z[:, 1]
    u = stats.norm.cdf(z)
    return np.column_stack([u[:, 0] < p_sys, u[:, 1] < p_ref]).astype(np.float64)


def dominant_sizes(n_clusters: int, n: int = sum(LOCOMO_SIZES), share: float = 0.5) -> np.ndarray:
    """One conversation holding ``share`` of the ``n`` questions, the rest split evenly.

    >>> dominant_sizes(10).tolist()
    [770, 86, 86, 86, 86, 86, 85, 85, 85, 85]
    """
    big = int(round(share * n))
    rest = np.full(n_clusters - 1, (n - big) // (n_clusters - 1))
    rest[: (n - big) - rest.sum()] += 1
    return np.r_[big, rest]


def simulate_conversations(rng: np.random.Generator, n_clusters: int, delta: float,
                           clustered: bool = True, sizes: np.ndarray | None = None,
                           skewed: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``(y (N, 2) [system, reference], cluster (N,))`` in conversations of LoCoMo's sizes (or
    ``sizes``). ``skewed``: the difference jumps by :data:`SKEW_JUMP` in a conversation with
    probability :data:`SKEW_PROBABILITY` (centred, so its mean is ``delta``) instead of varying
    normally — cluster contributions that are not symmetric."""
    sizes = np.resize(np.array(LOCOMO_SIZES), n_clusters) if sizes is None else np.asarray(sizes)
    cluster = np.repeat(np.arange(n_clusters), sizes)
    base = 0.6 + (0.07 * rng.standard_normal(n_clusters) if clustered else np.zeros(n_clusters))
    if skewed:
        effect = SKEW_JUMP * ((rng.random(n_clusters) < SKEW_PROBABILITY) - SKEW_PROBABILITY)
    else:
        effect = EFFECT_SD * rng.standard_normal(n_clusters) if clustered else np.zeros(n_clusters)
    p_ref = np.clip(base, 0.01, 0.99)[cluster]
    p_sys = np.clip(base + delta + effect, 0.01, 0.99)[cluster]
    return _pair(rng, p_ref, p_sys), cluster


def simulate_episodes(rng: np.random.Generator, n_clusters: int, delta: float) -> tuple[np.ndarray, np.ndarray]:
    """``(X, cluster)`` of MEME-like episodes: X = [system score per task (6), reference score per
    task (6), task counts (6)] per query, one after-phase question per task and episode and one
    more of a random task; task k's true difference is ``delta`` + (k − 2.5)/100 (mean ``delta``)."""
    tasks = np.concatenate([np.r_[np.arange(6), rng.integers(0, 6)] for _ in range(n_clusters)])
    cluster = np.repeat(np.arange(n_clusters), 7)
    base = EFFECT_SD * rng.standard_normal(n_clusters)
    effect = EFFECT_SD * rng.standard_normal(n_clusters)
    shift = delta + (np.arange(6) - 2.5) / 100
    p_ref = np.clip(TASK_RATES[tasks] + base[cluster], 0.01, 0.99)
    p_sys = np.clip(TASK_RATES[tasks] + base[cluster] + shift[tasks] + effect[cluster], 0.01, 0.99)
    y = _pair(rng, p_ref, p_sys)
    onehot = np.eye(6)[tasks]
    return np.hstack([y[:, :1] * onehot, y[:, 1:] * onehot, onehot]), cluster


def simulate_design(rng: np.random.Generator, kind: str, n_clusters: int,
                    delta: float) -> tuple[np.ndarray, np.ndarray]:
    """``(y, cluster codes the default analyses by)`` of one data set of a :data:`DESIGN_KINDS` cell.

    - ``dominant``: one conversation holds half of LoCoMo's 1,540 questions;
    - ``missing-label``: LoCoMo's conversations with one random question's label missing, analysed
      as memdiag's ``cluster_missing="own"`` makes it (its own cluster: G + 1 clusters);
    - ``canonical-ids``: LoCoMo's conversations, no cluster column, canonical ids
      (``locomo:conv-26:000``): the clusters are read from the ids as :func:`memdiag.prepare` does;
    - ``skewed``: LoCoMo's sizes, the difference concentrated in a fifth of the conversations.
    """
    if kind == "dominant":
        return simulate_conversations(rng, n_clusters, delta, sizes=dominant_sizes(n_clusters))
    if kind == "skewed":
        return simulate_conversations(rng, n_clusters, delta, skewed=True)
    y, cluster = simulate_conversations(rng, n_clusters, delta)
    if kind == "missing-label":
        ids = np.array([f"q{i:05d}" for i in range(len(cluster))], dtype=object)
        labels = pd.Series([f"conv-{g}" for g in cluster], index=ids, dtype=object)
        labels.iloc[rng.integers(len(ids))] = None
        own, _ = assign_clusters(labels.to_frame("cluster"), ids, None, "own")
        return y, pd.factorize(own, sort=True)[0]
    if kind == "canonical-ids":
        position = np.concatenate([np.arange(n) for n in np.bincount(cluster)])
        ids = [locomo_query_id(int(g) % len(LOCOMO_CONVERSATIONS), int(p)) for g, p in zip(cluster, position)]
        derived, _ = assign_clusters(pd.DataFrame(index=ids), ids, get_scheme("locomo"))
        return y, pd.factorize(derived, sort=True)[0]
    raise ValueError(f"unknown design cell {kind!r}; use one of {', '.join(DESIGN_KINDS)}.")


def macro_difference(sums: np.ndarray) -> np.ndarray:
    """System − reference six-task macro-average from sums [system (6), reference (6), counts (6)]."""
    with np.errstate(invalid="ignore", divide="ignore"):     # a task absent from an iid replicate: undefined
        return ((sums[:, :6] - sums[:, 6:12]) / sums[:, 12:]).mean(axis=1, keepdims=True)


def _one(kind: str, y_or_x: np.ndarray, cluster: np.ndarray, method: str, n_resamples: int,
         seed: int) -> tuple[float, float, float]:
    """(ci_low, ci_high, p) of one data set by one method."""
    design = Design("iid", n=len(cluster)) if method == "iid" else Design("cluster", cluster=cluster)
    if kind == "episodes":
        if method == "percentile":      # the paper's engine as it is: percentile interval, sign test
            res = bootstrap_sums(y_or_x, design, macro_difference, n_resamples=n_resamples, seed=seed)
        else:
            res = infer(y_or_x, design, macro_difference, n_resamples=n_resamples, seed=seed, bounds=(-1.0, 1.0))
        return float(res.ci_low[0]), float(res.ci_high[0]), float(res.p_value[0])
    codes = cell_codes(y_or_x[:, 1], y_or_x[:, 0])
    if method == "percentile":
        res = cell_bootstrap(codes, design, accuracy_difference, n_resamples=n_resamples, seed=seed, concordant=False)
    else:
        res = infer_cells(codes, design, accuracy_difference, concordant=False, n_resamples=n_resamples, seed=seed,
                          bounds=(-1.0, 1.0), inference=_INFERENCE[method])
    p = float(res.p_value[0])
    if method == "iid":            # binary plain mean under iid: exact McNemar, as md.compare
        b, c = int((codes[:, 0] == 1).sum()), int((codes[:, 0] == 2).sum())
        p = mcnemar(benefit=b, tax=c).p_value
    return float(res.ci_low[0]), float(res.ci_high[0]), p


def calibrate(kind: str, n_clusters: int, *, n_sets: int = 2000, n_resamples: int = 999, seed: int = 2024,
              methods: tuple[str, ...] = METHODS, alpha: float = 0.05,
              disagreement: bool = False) -> dict[str, tuple[float, ...]]:
    """``{method: (coverage, size)}`` over ``n_sets`` data sets of ``kind`` with ``n_clusters``
    (``disagreement``: a third number, the share of all 2·n_sets data sets where the 95% interval
    and the test disagree about 0).

    Data set r draws from ``default_rng([seed, G, r])``: the coverage set has the true difference
    (2 points), the size set none; both share r's stream, so every method sees the same data."""
    hits = {m: 0 for m in methods}
    rejections = {m: 0 for m in methods}
    disagree = {m: 0 for m in methods}
    for r in range(n_sets):
        rng = np.random.default_rng([seed, n_clusters, r, (KINDS + DESIGN_KINDS).index(kind)])
        for delta, tally in ((TRUE_DIFFERENCE, hits), (0.0, rejections)):
            if kind == "episodes":
                data, cluster = simulate_episodes(rng, n_clusters, delta)
            elif kind in DESIGN_KINDS:
                data, cluster = simulate_design(rng, kind, n_clusters, delta)
            else:
                data, cluster = simulate_conversations(rng, n_clusters, delta, clustered=kind == "conversations")
            for method in methods:
                low, high, p = _one(kind, data, cluster, method, n_resamples, seed=r)
                if delta:
                    tally[method] += low <= delta <= high
                else:
                    tally[method] += p <= alpha
                disagree[method] += (low > 0 or high < 0) != (p <= alpha)
    if disagreement:
        return {m: (hits[m] / n_sets, rejections[m] / n_sets, disagree[m] / (2 * n_sets)) for m in methods}
    return {m: (hits[m] / n_sets, rejections[m] / n_sets) for m in methods}


def table(results: dict, n_sets: int, n_resamples: int, seconds: float) -> str:
    """The markdown table of :func:`main`."""
    lines = [
        "# Calibration of memdiag's defaults with few clusters",
        "",
        f"Written by `python benchmarks/calibration.py` ({n_sets:,} data sets per row and per column pair, "
        f"B = {n_resamples} draws or replicates inside each; {seconds:.0f} s). Coverage: share of 95% intervals "
        "covering the true difference (2 points); size: share of tests rejecting at α = 0.05 when there is no "
        "difference. Acceptance for the default (SPEC §4.1): coverage 0.935–0.965, size ≤ 0.065.",
        "",
        "- **default**: what `md.compare` does on clustered data (design cluster, G < 200): cluster jackknife "
        "with t(G − 1) and the restricted wild cluster bootstrap-t (Webb weights when 8–11 clusters differ, all "
        "sign flips when 12–16 or fewer than 8 do, Rademacher above);",
        "- **iid**: the queries treated as independent (`design=\"iid\"`): percentile interval, exact McNemar "
        "(binary) or the bootstrap sign test (macro-average);",
        "- **percentile cluster**: the paper's percentile cluster bootstrap and its bootstrap sign test, as the "
        "engine computes them (`inference=\"percentile\"` gives these intervals; it replaces the sign test by the "
        "exact sign-flip test when at most 16 clusters differ).",
        "",
        "| data | G | default coverage | default size | iid coverage | iid size | percentile cluster coverage "
        "| percentile cluster size |",
        "|---|---|---|---|---|---|---|---|",
    ]
    label = {"conversations": "LoCoMo sizes, conversation effect (sd 5 points)",
             "iid": "LoCoMo sizes, independent queries", "episodes": "MEME-like episodes, six-task macro-average"}
    for (kind, G), res in results.items():
        cells = " | ".join(f"{res[m][0]:.3f} | {res[m][1]:.3f}" for m in METHODS)
        lines.append(f"| {label[kind]} | {G} | {cells} |")
    return "\n".join(lines) + "\n"


def design_table(results: dict, n_sets: int, n_resamples: int, seconds: float) -> str:
    """The markdown table of the :data:`DESIGN_KINDS` cells (issue 20)."""
    label = {"dominant": "one conversation holds 50% of the 1,540 questions",
             "missing-label": "LoCoMo sizes, one question's cluster label missing (cluster_missing=own: its own cluster)",
             "canonical-ids": "LoCoMo sizes, canonical ids and no cluster column (clusters read from the ids)",
             "skewed": "LoCoMo sizes, skewed effects: the difference sits in a conversation with probability 0.2"}
    lines = [
        "",
        "## Designs that must not fall back silently, and skewed cluster effects (issue 20)",
        "",
        f"{n_sets:,} data sets per row, B = {n_resamples}; {seconds:.0f} s. Same data-generating model as above "
        "(conversation effect sd 5 points on the difference) except where the row says. Columns: coverage / size "
        "/ share of all data sets where the 95% interval and the test disagree about 0. **jackknife** and **cr2** "
        "force that interval (`inference=`), with the same wild cluster test as the default; **iid** is what "
        "memdiag 0.2.0 fell back to with a missing label or canonical ids without a cluster column.",
        "",
        "| data | G | default | jackknife t(G − 1) | CR2, Bell–McCaffrey t(ν) | iid | percentile cluster |",
        "|---|---|---|---|---|---|---|",
    ]
    for (kind, G), res in results.items():
        cells = " | ".join(" / ".join(f"{v:.3f}" for v in res[m]) for m in DESIGN_METHODS)
        lines.append(f"| {label[kind]} | {G} | {cells} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=2000, help="data sets per row")
    parser.add_argument("--resamples", type=int, default=999, help="draws or replicates inside each data set")
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("calibration_table.md"))
    args = parser.parse_args(argv)
    start = time.perf_counter()
    results = {}
    for kind in KINDS:
        for G in (10, 30, 100):
            results[(kind, G)] = calibrate(kind, G, n_sets=args.sets, n_resamples=args.resamples)
            print(kind, G, {m: tuple(round(v, 4) for v in res) for m, res in results[(kind, G)].items()}, flush=True)
    text = table(results, args.sets, args.resamples, time.perf_counter() - start)
    start = time.perf_counter()
    designs = {}
    for kind in DESIGN_KINDS:
        for G in DESIGN_G[kind]:
            designs[(kind, G)] = calibrate(kind, G, n_sets=args.sets, n_resamples=args.resamples,
                                           methods=DESIGN_METHODS, disagreement=True)
            print(kind, G, {m: tuple(round(v, 4) for v in res) for m, res in designs[(kind, G)].items()}, flush=True)
    text += design_table(designs, args.sets, args.resamples, time.perf_counter() - start)
    args.out.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
