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

Per data set the default of :func:`memdiag.compare` under the cluster design runs through the
same engine calls (:func:`memdiag._inference.intervals.infer_cells` for binary plain means,
:func:`memdiag._inference.intervals.infer` for the macro-average): the cluster jackknife t interval and the
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
from scipy import stats

from memdiag._designs import Design
from memdiag._inference import mcnemar
from memdiag._inference.intervals import infer, infer_cells
from memdiag._pairs import cell_codes
from memdiag._resampling import accuracy_difference, bootstrap_sums, cell_bootstrap

#: LoCoMo's ten conversations: non-adversarial questions per conversation (SPEC §1.7).
LOCOMO_SIZES = (152, 81, 152, 199, 178, 123, 150, 191, 156, 158)
#: Six MEME tasks, and each one's reference pass rate in the episodes scenario.
TASK_RATES = np.array([0.60, 0.45, 0.50, 0.55, 0.40, 0.58])
TRUE_DIFFERENCE = 0.02
EFFECT_SD = 0.05
KINDS = ("conversations", "iid", "episodes")
METHODS = ("default", "iid", "percentile")


def _pair(rng: np.random.Generator, p_ref: np.ndarray, p_sys: np.ndarray, rho: float = 0.5) -> np.ndarray:
    """Binary (system, reference) outcomes with the given per-query probabilities, paired by a
    Gaussian copula with correlation ρ (so P(y = 1) is exactly the probability given)."""
    z = rng.standard_normal((len(p_ref), 2))
    z[:, 1] = rho * z[:, 0] + np.sqrt(1 - rho ** 2) * z[:, 1]
    u = stats.norm.cdf(z)
    return np.column_stack([u[:, 0] < p_sys, u[:, 1] < p_ref]).astype(np.float64)


def simulate_conversations(rng: np.random.Generator, n_clusters: int, delta: float,
                           clustered: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """``(y (N, 2) [system, reference], cluster (N,))`` in conversations of LoCoMo's sizes."""
    sizes = np.resize(np.array(LOCOMO_SIZES), n_clusters)
    cluster = np.repeat(np.arange(n_clusters), sizes)
    base = 0.6 + (0.07 * rng.standard_normal(n_clusters) if clustered else np.zeros(n_clusters))
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
                          bounds=(-1.0, 1.0))
    p = float(res.p_value[0])
    if method == "iid":            # binary plain mean under iid: exact McNemar, as md.compare
        b, c = int((codes[:, 0] == 1).sum()), int((codes[:, 0] == 2).sum())
        p = mcnemar(benefit=b, tax=c).p_value
    return float(res.ci_low[0]), float(res.ci_high[0]), p


def calibrate(kind: str, n_clusters: int, *, n_sets: int = 2000, n_resamples: int = 999, seed: int = 2024,
              methods: tuple[str, ...] = METHODS, alpha: float = 0.05) -> dict[str, tuple[float, float]]:
    """``{method: (coverage, size)}`` over ``n_sets`` data sets of ``kind`` with ``n_clusters``.

    Data set r draws from ``default_rng([seed, G, r])``: the coverage set has the true difference
    (2 points), the size set none; both share r's stream, so every method sees the same data."""
    hits = {m: 0 for m in methods}
    rejections = {m: 0 for m in methods}
    for r in range(n_sets):
        rng = np.random.default_rng([seed, n_clusters, r, KINDS.index(kind)])
        for delta, tally in ((TRUE_DIFFERENCE, hits), (0.0, rejections)):
            if kind == "episodes":
                data, cluster = simulate_episodes(rng, n_clusters, delta)
            else:
                data, cluster = simulate_conversations(rng, n_clusters, delta, clustered=kind == "conversations")
            for method in methods:
                low, high, p = _one(kind, data, cluster, method, n_resamples, seed=r)
                if delta:
                    tally[method] += low <= delta <= high
                else:
                    tally[method] += p <= alpha
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
    args.out.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
