"""A synthetic sequential-ingestion log consistent with a systems table (Raw-RAG paper Figure 1
right, D.6): one row per ingested history item and system, with its duration.

:func:`simulate_ingestion_log` spreads each system's ``ingestion_hours`` (from
:func:`~memdiag.synthetic.generic.simulate_systems_table`) over the items of the history in
order, so that the log's cumulative time ends at the table's total.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: Items (messages) per cluster (conversation) of the bundled example's history.
ITEMS_PER_CLUSTER = 20
#: Log-normal spread of one item's duration around its expected value.
SIGMA = 0.6
#: How much slower the last item is than the first for a system that extracts, merges and
#: updates memories (its store, and the work of each write, grows as it ingests); raw stores
#: (rag, full-context) embed each item in constant time.
GROWTH = {"memory": 1.5, "hybrid": 1.0}


def simulate_ingestion_log(systems_table: pd.DataFrame, n_clusters: int = 30,
                           items_per_cluster: int = ITEMS_PER_CLUSTER,
                           seed: int | np.random.Generator = 0) -> pd.DataFrame:
    """One sequential ingestion run per system of a systems table, item by item.

    Parameters
    ----------
    systems_table
        ``system, family, ingestion_hours`` (:func:`memdiag.simulate_systems_table`).
    n_clusters, items_per_cluster
        The history: ``n_clusters`` conversations (``conv-00`` …) of ``items_per_cluster``
        messages each, ingested in order.
    seed
        An int or a ``numpy.random.Generator`` (its own stream).

    Returns
    -------
    pandas.DataFrame
        ``system, item, cluster, duration_s``: item k (1-based) of system s takes
        d_k ∝ (1 + g·(k − 1)/(n − 1))·LogNormal(−σ²/2, σ) with σ = 0.6 and g = 1.5 for memory
        systems, 1.0 for hybrids, 0 for raw stores; the durations are scaled so that they sum to
        the table's ``ingestion_hours`` and rounded to the millisecond.

    Raises
    ------
    AttributeError
        A systems table without ``system``, ``family`` or ``ingestion_hours``.

    References
    ----------
    SPEC §7.9 (sequential ingestion: the log's columns); Raw-RAG paper D.6 (message-level Add
    durations of one streamed conversation) and Figure 1 right.

    Examples
    --------
    >>> table = pd.DataFrame({"system": ["raw-rag", "mem0"], "family": ["rag", "memory"],
    ...                       "ingestion_hours": [0.012, 1.857]})
    >>> log = simulate_ingestion_log(table, n_clusters=2, items_per_cluster=5, seed=1)
    >>> log.groupby("system", sort=False)["duration_s"].sum().round(1).to_dict()
    {'raw-rag': 43.2, 'mem0': 6685.2}
    """
    rng = np.random.default_rng(seed)
    n = n_clusters * items_per_cluster
    position = np.arange(n) / max(n - 1, 1)
    clusters = np.repeat([f"conv-{k:02d}" for k in range(n_clusters)], items_per_cluster)
    frames = []
    for row in systems_table.itertuples():
        shape = (1 + GROWTH.get(row.family, 0.0) * position) * rng.lognormal(-SIGMA ** 2 / 2, SIGMA, n)
        seconds = np.round(shape / shape.sum() * 3600 * float(row.ingestion_hours), 3)
        frames.append(pd.DataFrame({"system": row.system, "item": np.arange(1, n + 1), "cluster": clusters,
                                    "duration_s": seconds}))
    return pd.concat(frames, ignore_index=True)
