"""Benchmark: read and validate 1,000,000 canonical verdict rows from a long CSV.

Target: read and validate in under 3 s on the 2-core reference machine (issue 10). Run:

    python benchmarks/bench_load.py [--rows 1000000]

It writes a simulated canonical CSV (12 systems x queries x 3 judge repetitions) to a temporary
folder, then times ``read_verdicts`` (which checks every hard rule of SPEC §1), ``validate``
(the per-system summary) and ``align`` (the paired panel), best of three runs each.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

import memdiag as md


def make_csv(path: Path, rows: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    n_systems, n_repeats = 12, 3
    n_queries = rows // (n_systems * n_repeats)
    system = np.repeat([f"system-{s:02d}" for s in range(n_systems)], n_queries * n_repeats)
    query = np.tile(np.repeat([f"q{q:06d}" for q in range(n_queries)], n_repeats), n_systems)
    repeat = np.tile(np.arange(n_repeats), n_systems * n_queries)
    score = rng.integers(0, 2, size=system.size).astype(float)
    score[rng.random(system.size) < 0.001] = np.nan
    category = np.tile(np.repeat(np.array(["a", "b", "c", "d"])[np.arange(n_queries) % 4], n_repeats), n_systems)
    cluster = np.tile(np.repeat([f"conv-{q % 50}" for q in range(n_queries)], n_repeats), n_systems)
    pd.DataFrame({"system": system, "query_id": query, "score": score, "repeat": repeat,
                  "category": category, "cluster": cluster}).to_csv(path, index=False)


def best_of(fn, repeats: int = 3) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "verdicts.csv"
        make_csv(path, args.rows)
        t_read, df = best_of(lambda: md.read_verdicts(path))
        t_validate, _ = best_of(lambda: md.validate(df))
        t_align, panel = best_of(lambda: md.align(df))
    print(f"rows read                    {len(df):>12,}")
    print(f"read_verdicts (read + check) {t_read:>11.2f} s")
    print(f"validate (summary)           {t_validate:>11.2f} s")
    print(f"align (paired panel)         {t_align:>11.2f} s   -> {panel.n:,} queries x {len(panel.systems)} systems")
    print(f"read + validate              {t_read + t_validate:>11.2f} s   (target < 3 s)")


if __name__ == "__main__":
    main()
