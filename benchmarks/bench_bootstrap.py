"""Speed of memdiag's bootstrap engine against scipy.stats.bootstrap, measured in one run.

    python benchmarks/bench_bootstrap.py [--repeats 3] [--scipy-repeats 1]

On a simulated panel of 5,000 queries x 12 binary systems (seed fixed), the 11 accuracy
differences of each system against the reference (system 0), B = 20,000, 95% percentile
intervals and bootstrap sign-test p-values:

  (1) memdiag fast path      paired_binary_bootstrap (multinomial over the 2x2 cells)
  (2) memdiag general path   bootstrap_sums (count-weights x per-query sums, shared indices)
  (3) scipy.stats.bootstrap  paired=True, method="percentile", vectorized=True, one call per
                             contrast, batch=1000 (scipy's default batch=None materialises
                             (B, N) index and data arrays, ~2.4 GB here, and was ~10x slower)
  (4) memdiag cluster design 100 episodes, six-task macro-average per system, 11 differences
  (5) peak memory            tracemalloc peak of each memdiag call; process max RSS

Times are the best of ``--repeats`` runs (time.perf_counter). Prints a table; writes nothing.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import tracemalloc

import numpy as np
from scipy import stats

from memdiag.engine.designs import Design
from memdiag.engine.resampling import bootstrap_sums, paired_binary_bootstrap

N_QUERIES, N_SYSTEMS, N_RESAMPLES, SEED = 5_000, 12, 20_000, 0
N_EPISODES, N_TASKS = 100, 6


def simulate_panel(seed: int = SEED):
    """Binary verdicts (N, S) with shared query difficulty and episode effects, plus episodes and tasks."""
    rng = np.random.default_rng(seed)
    episode = np.repeat(np.arange(N_EPISODES), N_QUERIES // N_EPISODES)
    task = np.tile(np.arange(N_TASKS), N_QUERIES // N_TASKS + 1)[:N_QUERIES]
    accuracy = np.linspace(0.55, 0.75, N_SYSTEMS)
    latent = (np.sqrt(0.15) * rng.standard_normal(N_EPISODES)[episode, None]
              + np.sqrt(0.35) * rng.standard_normal(N_QUERIES)[:, None]
              + np.sqrt(0.50) * rng.standard_normal((N_QUERIES, N_SYSTEMS)))
    scores = (latent < stats.norm.ppf(accuracy)).astype(np.float64)
    return scores, episode, task


def best_of(fn, repeats: int):
    best, out = np.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def traced_peak(fn) -> float:
    """Peak bytes numpy/Python allocate during ``fn()`` (tracemalloc), in MB."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def max_rss_mb() -> float:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / 2**20 if sys.platform == "darwin" else rss / 2**10


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="repeats of each memdiag timing")
    parser.add_argument("--scipy-repeats", type=int, default=1, help="repeats of the scipy timing")
    args = parser.parse_args(argv)

    scores, episode, task = simulate_panel()
    ref, others = scores[:, 0], scores[:, 1:]
    n = N_QUERIES

    def fast():
        return paired_binary_bootstrap(ref, others, "iid", n_resamples=N_RESAMPLES, seed=SEED)

    def general():
        return bootstrap_sums(scores, "iid", lambda s: (s[:, 1:] - s[:, :1]) / n,
                              n_resamples=N_RESAMPLES, seed=SEED)

    # cluster design: X = per-(system, task) score sums and per-task counts; the statistic is
    # the six-task macro-average per system, minus the reference's, in every replicate
    onehot = np.eye(N_TASKS)[task]
    X = np.column_stack([(scores[:, :, None] * onehot[:, None, :]).reshape(n, -1), onehot])
    design = Design("cluster", cluster=episode)

    def macro_differences(sums: np.ndarray) -> np.ndarray:
        b = sums.shape[0]
        per_task = sums[:, :-N_TASKS].reshape(b, N_SYSTEMS, N_TASKS) / sums[:, None, -N_TASKS:]
        macro = per_task.mean(axis=2)
        return macro[:, 1:] - macro[:, :1]

    def cluster():
        return bootstrap_sums(X, design, macro_differences, n_resamples=N_RESAMPLES, seed=SEED)

    t_fast, r_fast = best_of(fast, args.repeats)
    t_general, r_general = best_of(general, args.repeats)
    t_cluster, r_cluster = best_of(cluster, args.repeats)
    peaks = {"fast path": traced_peak(fast), "general path": traced_peak(general),
             "cluster design": traced_peak(cluster)}
    rss_memdiag = max_rss_mb()

    def scipy_all():
        out = []
        for j in range(N_SYSTEMS - 1):
            res = stats.bootstrap((ref, others[:, j]), lambda x, y, axis=-1: y.mean(axis) - x.mean(axis),
                                  paired=True, vectorized=True, method="percentile",
                                  n_resamples=N_RESAMPLES, batch=1000, rng=np.random.default_rng(j))
            out.append((res.confidence_interval.low, res.confidence_interval.high, res.standard_error))
        return np.array(out)

    t_scipy, r_scipy = best_of(scipy_all, args.scipy_repeats)
    rss_total = max_rss_mb()

    print(f"memdiag bootstrap benchmark: {N_QUERIES:,} queries x {N_SYSTEMS} binary systems, "
          f"{N_SYSTEMS - 1} contrasts vs the reference, B = {N_RESAMPLES:,}, seed {SEED}; "
          f"best of {args.repeats} (scipy: {args.scipy_repeats})\n")
    print(f"{'method':<58}{'time (s)':>10}{'scipy / this':>14}")
    rows = [
        ("(1) memdiag fast path: paired_binary_bootstrap", t_fast),
        ("(2) memdiag general path: bootstrap_sums (iid)", t_general),
        ("(3) scipy.stats.bootstrap paired percentile, 11 calls", t_scipy),
        (f"(4) memdiag cluster design: {N_EPISODES} episodes, {N_TASKS}-task macro", t_cluster),
    ]
    for label, t in rows:
        ratio = f"{t_scipy / t:>13.1f}x" if not label.startswith(("(3)", "(4)")) else f"{'':>14}"
        print(f"{label:<58}{t:>10.3f}{ratio}")

    print("\n(5) peak memory")
    for label, mb in peaks.items():
        print(f"    memdiag {label:<16} tracemalloc peak {mb:8.1f} MB")
    print(f"    process max RSS after memdiag runs {rss_memdiag:8.1f} MB; after scipy {rss_total:8.1f} MB")

    print("\n95% percentile intervals of the accuracy difference vs the reference (points)")
    print(f"{'system':<8}{'diff':>7}  {'memdiag fast':>17}  {'memdiag general':>17}  {'scipy':>17}"
          f"  {'p (fast)':>9}  {'SE fast/scipy':>13}")
    for j in range(N_SYSTEMS - 1):
        fast_ci = f"[{100 * r_fast.ci_low[j]:6.2f}, {100 * r_fast.ci_high[j]:6.2f}]"
        gen_ci = f"[{100 * r_general.ci_low[j]:6.2f}, {100 * r_general.ci_high[j]:6.2f}]"
        sp_ci = f"[{100 * r_scipy[j, 0]:6.2f}, {100 * r_scipy[j, 1]:6.2f}]"
        print(f"sys{j + 1:<5}{100 * r_fast.estimate[j]:>7.2f}  {fast_ci:>17}  {gen_ci:>17}  {sp_ci:>17}"
              f"  {r_fast.p_value[j]:>9.2g}  {r_fast.standard_error[j] / r_scipy[j, 2]:>13.3f}")

    print("\ncluster design (episodes resampled whole), six-task macro differences (points)")
    for j in range(N_SYSTEMS - 1):
        print(f"sys{j + 1:<5}{100 * r_cluster.estimate[j]:>7.2f}  [{100 * r_cluster.ci_low[j]:6.2f}, "
              f"{100 * r_cluster.ci_high[j]:6.2f}]  p = {r_cluster.p_value[j]:.2g}")


if __name__ == "__main__":
    main()
