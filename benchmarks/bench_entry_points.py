"""Speed of memdiag's entry points, each beside its target, measured in one run.

    python benchmarks/bench_entry_points.py [--repeats 5] [--skip-report]

(1) md.flows and md.compare through the public API from a DataFrame: 5,000 queries x 12 binary
    systems, the 11 contrasts against the reference, B = 20,000; beside
    scipy.stats.bootstrap(paired=True) on the same 11 contrasts in the same run (target: each
    <= 0.15 s, i.e. >= 100x scipy).
    Under the cluster design the default is the SPEC §4.1 rule (cluster jackknife intervals, the
    wild cluster bootstrap); ``inference="percentile"`` is the paper's percentile cluster bootstrap.
(2) every built-in scheme shape under the cluster design through md.compare (11 contrasts,
    B = 20,000): MEME's gated six-task macro over 100 episodes, MemoryAgentBench's nested
    weights over 14 sources, LoCoMo's question-weighted mean over 10 conversations (target:
    each <= 0.5 s).
(3) ``import memdiag`` and ``memdiag --help`` in a fresh interpreter (targets 0.5 s and 0.7 s);
    the interpreter's own start-up (``python -c pass``) is printed beside them.
(4) ``memdiag report`` on the real 10-system LoCoMo panel (the 7 trpc-agent-go no-history runs,
    Zep, Memobase v0.0.37 and Backboard; reference rag_observation_pgvector; scheme locomo;
    B = 20,000): wall time (best of min(repeats, 3) runs) and peak RSS of the process (targets
    6 s and 500 MB). Needs ../shared/data/real (or $MEMDIAG_REAL_DATA); skipped without it.
(5) reading and validating 1,000,000 verdict rows is measured by benchmarks/bench_load.py.

Times are the best of ``--repeats`` runs (time.perf_counter). Prints a table; writes nothing
outside a temporary folder.
"""

from __future__ import annotations

import argparse
import inspect
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

import memdiag as md

N_QUERIES, N_SYSTEMS, N_RESAMPLES, SEED = 5_000, 12, 20_000, 0
#: scipy.stats.bootstrap's keyword for a Generator: ``rng`` from scipy 1.15 on, ``random_state`` before.
SCIPY_RNG = "rng" if "rng" in inspect.signature(stats.bootstrap).parameters else "random_state"
REAL = Path(os.environ.get("MEMDIAG_REAL_DATA", Path(__file__).resolve().parents[2] / "shared" / "data" / "real"))


def best_of(fn, repeats: int) -> tuple[float, object]:
    best, out = np.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def binary_panel(seed: int = SEED) -> tuple[pd.DataFrame, np.ndarray]:
    """Long verdicts (reference ``ref`` + 11 systems) with shared query difficulty, and the (N, S) scores."""
    rng = np.random.default_rng(seed)
    accuracy = np.linspace(0.55, 0.75, N_SYSTEMS)
    latent = np.sqrt(0.5) * rng.standard_normal((N_QUERIES, 1)) + np.sqrt(0.5) * rng.standard_normal((N_QUERIES, N_SYSTEMS))
    scores = (latent < stats.norm.ppf(accuracy)).astype(float)
    names = ["ref"] + [f"sys{j:02d}" for j in range(1, N_SYSTEMS)]
    df = pd.DataFrame({"system": np.repeat(names, N_QUERIES),
                       "query_id": np.tile([f"q{i:05d}" for i in range(N_QUERIES)], N_SYSTEMS),
                       "score": scores.T.ravel(),
                       "cluster": np.tile([f"c{i % 100:03d}" for i in range(N_QUERIES)], N_SYSTEMS)})
    return md.check(df), scores


def scheme_panels() -> dict[str, pd.DataFrame]:
    """Simulated verdicts of 12 systems shaped like each built-in scheme (with clusters)."""
    names = ["raw-rag"] + [f"sys{j:02d}" for j in range(1, N_SYSTEMS)]
    meme = md.simulate_meme(n_episodes=100, systems=names, seed=1)
    mab = md.simulate_memoryagentbench(systems=names, seed=2)
    # MemoryAgentBench's source contexts as clusters: blocks of 10 queries within each source
    queries = mab[["query_id", "stratum"]].drop_duplicates().sort_values(["stratum", "query_id"])
    block = queries.groupby("stratum").cumcount() // 10
    mab = mab.merge(queries.assign(cluster=queries["stratum"].astype(str) + ":" + block.astype(str)))
    locomo = md.simulate(n_queries=1_540, systems=names, accuracy={s: 0.55 + 0.02 * j for j, s in enumerate(names)},
                         n_clusters=10, seed=3)
    return {"meme": meme, "memoryagentbench": mab, "mean (locomo-like, 10 clusters)": locomo}


def fresh_interpreter(code: list[str], repeats: int) -> float:
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(code, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - start)
    return best


def report_run(repeats: int) -> tuple[float, float] | None:
    """Best wall time (s) of ``repeats`` runs and the peak RSS (MB) of ``memdiag report`` on the
    real 10-system LoCoMo panel, each run a fresh process writing a new folder."""
    trpc = REAL / "trpc-group__trpc-agent-go" / "data_nohistory_gpt4omini"
    if not trpc.is_dir():
        return None
    inputs = [trpc, REAL / "getzep__zep-papers" / "zep_locomo_grades.json",
              REAL / "memodb-io__memobase" / "memobase_eval_0710_3000.json",
              REAL / "Backboard-io__Backboard-Locomo-Benchmark"]
    best = np.inf
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as tmp:
            command = [sys.executable, "-m", "memdiag.cli", "report", *map(str, inputs), "--reference",
                       "rag_observation_pgvector", "--scheme", "locomo", "--out", str(Path(tmp) / "report")]
            start = time.perf_counter()
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            best = min(best, time.perf_counter() - start)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # the largest child so far
    return best, peak / (2**20 if sys.platform == "darwin" else 2**10)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="repeats of each memdiag timing")
    parser.add_argument("--skip-report", action="store_true", help="skip (4), the real-data report")
    args = parser.parse_args(argv)

    df, scores = binary_panel()
    iid = md.Options(design="iid", n_resamples=N_RESAMPLES, seed=SEED)
    cluster = iid.replace(design="cluster")
    t_flows, flows = best_of(lambda: md.flows(df, "ref", options=iid), args.repeats)
    t_compare, compare = best_of(lambda: md.compare(df, reference="ref", options=iid),
                                 args.repeats)
    t_flows_cl, _ = best_of(lambda: md.flows(df, "ref", options=cluster), args.repeats)
    t_compare_cl, _ = best_of(lambda: md.compare(df, reference="ref", options=cluster),
                              args.repeats)
    t_compare_pc, _ = best_of(lambda: md.compare(df, reference="ref",
                                                 options=cluster.replace(inference="percentile")), args.repeats)

    def scipy_all():
        out = []
        for j in range(1, N_SYSTEMS):
            res = stats.bootstrap((scores[:, 0], scores[:, j]), lambda x, y, axis=-1: y.mean(axis) - x.mean(axis),
                                  paired=True, vectorized=True, method="percentile", n_resamples=N_RESAMPLES,
                                  batch=1000, **{SCIPY_RNG: np.random.default_rng(j)})
            out.append((res.confidence_interval.low, res.confidence_interval.high))
        return np.array(out)

    t_scipy, r_scipy = best_of(scipy_all, 1)

    schemes = {}
    for name, panel in scheme_panels().items():
        scheme = name.split(" ")[0]
        reference = sorted(panel["system"].unique())[0]
        prepared = md.prepare(panel, scheme=None if scheme == "mean" else scheme, design="cluster")
        schemes[name] = best_of(lambda: md.compare(prepared, reference=reference,
                                                   options=iid.replace(design=None)), args.repeats)[0]

    t_python = fresh_interpreter([sys.executable, "-c", "pass"], args.repeats)
    t_import = fresh_interpreter([sys.executable, "-c", "import memdiag"], args.repeats)
    t_help = fresh_interpreter([sys.executable, "-m", "memdiag.cli", "--help"], args.repeats)
    report = None if args.skip_report else report_run(min(args.repeats, 3))

    print(f"memdiag entry points: best of {args.repeats}; scipy once\n")
    print(f"{'entry point':<66}{'time':>9}{'target':>9}{'scipy / this':>14}")
    rows = [
        ("(1) md.flows, 11 contrasts, 5,000 x 12 binary, B = 20,000 (iid)", t_flows, 0.15, True),
        ("    md.compare, same contrasts (iid)", t_compare, 0.15, True),
        ("    md.flows, same, 100 clusters (cluster design)", t_flows_cl, 0.5, True),
        ("    md.compare, same, 100 clusters (cluster design)", t_compare_cl, 0.5, True),
        ("    md.compare, same, inference='percentile' (the paper's)", t_compare_pc, 0.5, True),
        ("    scipy.stats.bootstrap(paired=True), same 11 contrasts", t_scipy, None, False),
    ]
    rows += [(f"(2) md.compare, scheme {name}, cluster design, 11 contrasts", t, 0.5, False)
             for name, t in schemes.items()]
    rows += [("(3) python -c pass (interpreter start-up)", t_python, None, False),
             ("    python -c 'import memdiag'", t_import, 0.5, False),
             ("    memdiag --help", t_help, 0.7, False)]
    if report is not None:
        rows.append(("(4) memdiag report, real 10-system LoCoMo panel, B = 20,000", report[0], 6.0, False))
    for label, t, target, ratio in rows:
        target_text = f"{target:>8.2f}s" if target else f"{'':>9}"
        ratio_text = f"{t_scipy / t:>13.0f}x" if ratio else f"{'':>14}"
        print(f"{label:<66}{t:>8.3f}s{target_text}{ratio_text}")
    if report is not None:
        print(f"{'    peak RSS of the report process':<66}{report[1]:>7.0f}MB{500:>7}MB")
    else:
        print(f"(4) skipped: real data not found at {REAL}")
    print("\nintervals of the same contrasts (points): memdiag flows net rate / compare / scipy")
    for j in range(N_SYSTEMS - 1):
        f = flows.iloc[j]
        c = compare.iloc[j]
        print(f"sys{j + 1:02d}  [{f['net_rate_ci_low']:6.2f}, {f['net_rate_ci_high']:6.2f}]  "
              f"[{c['ci_low']:6.2f}, {c['ci_high']:6.2f}]  "
              f"[{100 * r_scipy[j, 0]:6.2f}, {100 * r_scipy[j, 1]:6.2f}]")


if __name__ == "__main__":
    main()
