"""The bundled example folder ``data/example``: what ``memdiag simulate --write data/example`` writes.

The LoCoMo-like part draws :func:`~memdiag.synthetic.generic.simulate` with :data:`EXAMPLE`
(package data, ``data/example.yaml``); the MEME and MemoryAgentBench parts draw their simulators
with their default tables. All use :data:`EXAMPLE_SEED`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from memdiag.synthetic._core import BENCHMARK_SYSTEMS, load_table
from memdiag.synthetic.generic import simulate, simulate_systems_table
from memdiag.synthetic.ingestion import simulate_ingestion_log
from memdiag.synthetic.meme import simulate_meme
from memdiag.synthetic.memoryagentbench import (
    MEMORYAGENTBENCH_SIZES,
    simulate_memoryagentbench,
)

#: The seed of the bundled example data (``data/example``).
EXAMPLE_SEED = 20240601

_ARGS = load_table("example")

#: The bundled example: a LoCoMo-like analysis of a raw-RAG reference and six memory systems
#: (the arguments of :func:`~memdiag.synthetic.generic.simulate`).
EXAMPLE: dict = {**_ARGS, "systems": tuple(_ARGS["systems"]),
                 "sufficiency": {s: tuple(pair) for s, pair in _ARGS["sufficiency"].items()}}

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
    - ``ingestion_log.csv``: ``simulate_ingestion_log(systems_table, n_clusters=30, seed=seed)``,
      each system's ingestion hours spread over the 600 messages of the 30 conversations;
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
    verdicts = simulate(**EXAMPLE, seed=seed)
    written = _write_per_system(verdicts, out / "verdicts",
                                ("score", "sufficient", "input_tokens", "output_tokens", "evidence_tokens"))
    table = simulate_systems_table(verdicts, seed=seed)
    table.to_csv(out / "systems.csv", index=False, lineterminator="\n")
    log = simulate_ingestion_log(table, n_clusters=verdicts["cluster"].nunique(), seed=seed)
    log.to_csv(out / "ingestion_log.csv", index=False, lineterminator="\n")
    return [*written, out / "systems.csv", out / "ingestion_log.csv",
            _write_truth(verdicts.attrs["truth"], out / "truth.json"),
            *write_meme_example(out, seed=seed), *write_memoryagentbench_example(out, seed=seed)]
