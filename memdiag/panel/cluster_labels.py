"""The cluster of every query, before the design is chosen: given, derived from the ids, or missing
(SPEC §4.2).

One job. The design (:func:`memdiag.engine.designs.resolve_design`) follows the data's clusters, so a
cluster label that is missing, or a cluster that the data carry only inside their query ids, must
never change the design silently:

- **some labels missing**: ``cluster_missing="error"`` (the default) refuses, naming the queries;
  ``"own"`` gives each unlabelled query its own cluster, explicitly, counted in a caution note;
- **no cluster column**: the cluster is read from the query ids when they carry it — memdiag's
  canonical LoCoMo ids (``locomo:conv-26:000``, SPEC §1.7) always, and the ids of any benchmark
  whose scheme declares ``cluster_from_id`` — with a note saying so;
- **a clustered benchmark without clusters** (a scheme whose design is a cluster design, and no
  cluster found): a warning note (code ``clusters-unknown``) that every result carries, because
  every interval and test then treats the queries as independent and over-claims.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import regex

from memdiag.core.notes import Note
from memdiag.errors import VerdictError, listing

if TYPE_CHECKING:  # pragma: no cover
    from memdiag.panel.schemes import Scheme

__all__ = ["CANONICAL_CLUSTER", "CLUSTER_MISSING", "OWN_PREFIX", "assign_clusters", "clusters_from_ids"]

#: What to do with queries whose cluster label is missing (SPEC §4.2).
CLUSTER_MISSING: tuple[str, ...] = ("error", "own")
#: The cluster label given to an unlabelled query of its own under ``cluster_missing="own"``.
OWN_PREFIX = "own:"
#: memdiag's canonical ids that name their cluster: pattern with one group (SPEC §1.7).
CANONICAL_CLUSTER: dict[str, str] = {"locomo": r"^locomo:(conv-[^:]+):"}
#: Design kinds that resample clusters.
_CLUSTERED = ("cluster", "stratified-cluster")


def clusters_from_ids(query_ids: object, pattern: str) -> np.ndarray | None:
    """The cluster of every query read from its id by ``pattern`` (one group), or None when some id
    does not match.

    >>> clusters_from_ids(["locomo:conv-26:000", "locomo:conv-30:adv001"], CANONICAL_CLUSTER["locomo"]).tolist()
    ['conv-26', 'conv-30']
    >>> clusters_from_ids(["locomo:conv-26:000", "q7"], CANONICAL_CLUSTER["locomo"]) is None
    True
    """
    compiled = regex.compile(pattern)
    out = []
    for qid in map(str, np.asarray(query_ids, dtype=object)):
        match = compiled.search(qid)
        if match is None or not match.group(1):
            return None
        out.append(match.group(1))
    return np.array(out, dtype=object)


def _patterns(scheme: Scheme | None) -> list[tuple[str, str]]:
    """``(where, pattern)`` to try, the scheme's declaration first."""
    found = []
    declared = getattr(scheme, "cluster_from_id", None)
    if declared:
        found.append((f"scheme {scheme.name}'s cluster_from_id", declared))
    found += [(f"memdiag's canonical {name} ids (SPEC §1.7)", pattern) for name, pattern in CANONICAL_CLUSTER.items()
              if pattern != declared]
    return found


def assign_clusters(queries: pd.DataFrame, query_ids: object, scheme: Scheme | None = None,
                    cluster_missing: str = "error") -> tuple[pd.Series | None, list[Note]]:
    """The cluster label of every query, and the notes that say where it came from.

    Parameters
    ----------
    queries
        One row per query, its attributes (``Panel.queries``), in the order of ``query_ids``.
    query_ids
        The query ids, in row order.
    scheme
        The benchmark scheme: its ``cluster_from_id`` finds the cluster in the ids, its
        ``design`` says whether the benchmark is clustered.
    cluster_missing
        ``"error"`` (default): some queries without a cluster label is an error; ``"own"``: each
        such query is a cluster of its own (label ``own:<query_id>``).

    Returns
    -------
    tuple
        ``(clusters, notes)``: the new ``cluster`` column (same index as ``queries``), or None
        when it does not change; the notes (``cluster-missing-own`` caution, ``cluster-from-ids``
        info, ``clusters-unknown`` warning).

    Raises
    ------
    VerdictError
        Some but not all queries lack a cluster label under ``cluster_missing="error"``; an
        unknown ``cluster_missing``.

    References
    ----------
    SPEC §4.2 (where the design comes from) and SPEC §1.7 (LoCoMo's canonical ids).

    Examples
    --------
    >>> q = pd.DataFrame({"cluster": ["a", None, "b"]}, index=["q1", "q2", "q3"])
    >>> labels, notes = assign_clusters(q, q.index, cluster_missing="own")
    >>> labels.tolist(), notes[0].code
    (['a', 'own:q2', 'b'], 'cluster-missing-own')
    >>> ids = ["locomo:conv-26:000", "locomo:conv-30:000"]
    >>> labels, notes = assign_clusters(pd.DataFrame(index=ids), ids)
    >>> labels.tolist(), notes[0].code
    (['conv-26', 'conv-30'], 'cluster-from-ids')
    """
    if cluster_missing not in CLUSTER_MISSING:
        raise VerdictError(f"unknown cluster_missing {cluster_missing!r}; use one of {', '.join(CLUSTER_MISSING)}.")
    ids = np.asarray(query_ids, dtype=object)
    labels = queries["cluster"] if "cluster" in queries else None
    if labels is not None and labels.notna().any():
        missing = labels.isna().to_numpy()
        if not missing.any():
            return None, []
        k, n = int(missing.sum()), len(ids)
        if cluster_missing == "error":
            raise VerdictError(
                f"{k} of {n} queries have no cluster label ({listing(ids[missing])}); the other queries come in "
                f"{labels.nunique()} clusters. A missing label would change the design, so memdiag stops: fill "
                "in their cluster, or give each its own cluster with cluster_missing='own' (--cluster-missing own).")
        own = labels.astype(object).copy()
        taken = set(map(str, labels.dropna()))
        prefix = OWN_PREFIX
        while any(f"{prefix}{q}" in taken for q in ids[missing]):
            prefix = "(" + prefix.rstrip(":") + "):"   # never merge an unlabelled query into a named cluster
        own[missing] = [f"{prefix}{q}" for q in ids[missing]]
        return own, [Note(f"cluster missing own: {k} of {n} queries without a cluster label are each a cluster of "
                          f"their own ({listing(ids[missing])})", code="cluster-missing-own", severity="caution",
                          concerns=tuple(map(str, ids[missing][:20])))]
    for where, pattern in _patterns(scheme):
        derived = clusters_from_ids(ids, pattern) if len(ids) else None
        if derived is not None:
            series = pd.Series(derived, index=queries.index, name="cluster")
            return series, [Note(f"cluster: read from the query ids by {where} ({series.nunique()} clusters; the "
                                 "verdicts carry no cluster column)", code="cluster-from-ids")]
    if getattr(scheme, "design", None) in _CLUSTERED:
        return None, [Note(
            f"no clusters: {scheme.name} is a clustered benchmark (its design is {scheme.design}), but the verdicts "
            "carry no cluster column and their query ids do not name one, so every interval and test treats the "
            "queries as independent and over-claims (95% intervals can cover far less than 95%). Add the cluster "
            "(--field cluster=<column>) or use canonical query ids", code="clusters-unknown", severity="warning")]
    return None, []
