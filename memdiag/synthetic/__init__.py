"""Synthetic per-query verdicts with known truth: the example data, tests and calibration.

One module per job:

- :mod:`~memdiag.synthetic.generic`: :func:`simulate`, canonical verdicts (SPEC §1) with known
  accuracy, benefit, tax, clustering, coverage and costs, and :func:`simulate_systems_table`;
- :mod:`~memdiag.synthetic.meme`: :func:`simulate_meme`, MEME-shaped verdicts (episodes,
  before/after twins and gates) whose official scores (SPEC §6) have known expected values;
- :mod:`~memdiag.synthetic.memoryagentbench`: :func:`simulate_memoryagentbench`, 14 sources
  with nested weights and fractional metrics;
- :mod:`~memdiag.synthetic.ingestion`: :func:`simulate_ingestion_log`, a sequential ingestion
  run per system consistent with a systems table;
- :mod:`~memdiag.synthetic.example`: :func:`write_example`, the bundled ``data/example``
  (``memdiag simulate --write data/example``);
- :mod:`~memdiag.synthetic._core`: what they share (per-system values, rate tables, the
  bivariate normal, rounded truths, loading the default tables).

The per-system and per-task / per-source tables that define the examples' truth are package
data in ``memdiag/synthetic/data/*.yaml``; scalar model constants stay beside their code.
"""

from memdiag.synthetic._core import (
    bvn as _bvn,  # the name tests/test_simulate_benchmarks.py imports
)
from memdiag.synthetic.example import (
    EXAMPLE,
    EXAMPLE_SEED,
    MEME_EXAMPLE,
    MEMORYAGENTBENCH_EXAMPLE,
    write_example,
    write_meme_example,
    write_memoryagentbench_example,
)
from memdiag.synthetic.generic import simulate, simulate_systems_table
from memdiag.synthetic.ingestion import simulate_ingestion_log
from memdiag.synthetic.meme import simulate_meme
from memdiag.synthetic.memoryagentbench import (
    MEMORYAGENTBENCH_SOURCES,
    simulate_memoryagentbench,
)

__all__ = [
    "EXAMPLE", "EXAMPLE_SEED", "MEME_EXAMPLE", "MEMORYAGENTBENCH_EXAMPLE", "MEMORYAGENTBENCH_SOURCES",
    "simulate", "simulate_ingestion_log", "simulate_meme", "simulate_memoryagentbench", "simulate_systems_table",
    "write_example", "write_meme_example", "write_memoryagentbench_example",
]
