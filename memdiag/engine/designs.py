"""Resampling designs, one place (SPEC §4; Raw-RAG paper C.6): the kinds, the per-query columns
each needs, how the default is chosen and why, and the validated :class:`Design` the engine draws
from.

=====================  ==========================================  ======================
kind                   what one replicate draws                    needs
=====================  ==========================================  ======================
``iid``                N queries with replacement                  —
``stratified``         within each stratum its own n_h queries     ``stratum``
``cluster``            G whole clusters with replacement           ``cluster``
``stratified-cluster`` within each stratum its own clusters        ``stratum``, ``cluster``
=====================  ==========================================  ======================
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from memdiag.core.checks import KINDS

__all__ = ["COLUMNS", "KINDS", "Design", "as_design", "resolve_design"]


#: The per-query columns each design resamples by.
COLUMNS: dict[str, tuple[str, ...]] = {
    "iid": (), "stratified": ("stratum",), "cluster": ("cluster",),
    "stratified-cluster": ("stratum", "cluster"),
}


def _codes(values: object, name: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"Design: '{name}' codes must be a 1-D array (one code per query), got "
                         f"shape {arr.shape}.")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        if not (np.issubdtype(arr.dtype, np.floating) and np.all(np.isfinite(arr))
                and np.all(arr == np.round(arr))):
            raise ValueError(f"Design: '{name}' codes must be integers (use Panel.codes('{name}') "
                             f"or pandas.factorize), got dtype {arr.dtype}.")
    arr = arr.astype(np.int64)
    bad = np.flatnonzero(arr < 0)
    if bad.size:
        raise ValueError(f"Design: {bad.size} queries have no '{name}' (code -1), first at row "
                         f"{bad[0]}. Every query needs a {name} under this design: fill it in, or "
                         f"choose a design without {name}s.")
    arr.flags.writeable = False
    return arr


@dataclass(frozen=True, eq=False, repr=False)
class Design:
    """A resampling design of SPEC §4 (C.6): which units are drawn, within which strata.

    Parameters
    ----------
    kind
        ``"iid"`` (queries with replacement), ``"stratified"`` (within each stratum its own
        ``n_h`` queries), ``"cluster"`` (whole clusters with replacement) or
        ``"stratified-cluster"`` (whole clusters within strata).
    cluster
        ``(N,)`` integer cluster code per query (required by the cluster designs).
    stratum
        ``(N,)`` integer stratum code per query (required by the stratified designs).
    n
        Number of queries N. Inferred from the codes; an ``iid`` design without codes gets it
        from the data it is used with (:func:`bootstrap_sums` binds it).

    Codes the kind does not use (e.g. stratum codes given to a ``cluster`` design) are ignored
    and not stored.

    Raises
    ------
    ValueError
        Unknown kind; codes missing for the kind; codes that are not 1-D integers, are negative
        (a missing label), or differ in length; a cluster spanning two strata under
        ``stratified-cluster``.

    Examples
    --------
    >>> d = Design("stratified-cluster", cluster=[0, 0, 1, 2, 2], stratum=[0, 0, 0, 1, 1])
    >>> d
    Design(kind='stratified-cluster', n=5, units=3 clusters, strata=2)
    >>> d.unit_of.tolist(), d.unit_stratum.tolist()
    ([0, 0, 1, 2, 2], [0, 0, 1])
    """

    kind: str = "iid"
    cluster: np.ndarray | None = None
    stratum: np.ndarray | None = None
    n: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"Design: unknown kind {self.kind!r}; use one of {', '.join(KINDS)}.")
        needs_cluster = self.kind in ("cluster", "stratified-cluster")
        needs_stratum = self.kind in ("stratified", "stratified-cluster")
        if needs_cluster and self.cluster is None:
            raise ValueError(f"Design: the {self.kind!r} design needs cluster codes (one per query); "
                             "pass cluster=..., or use Design.from_panel on verdicts with a 'cluster' "
                             "column.")
        if needs_stratum and self.stratum is None:
            raise ValueError(f"Design: the {self.kind!r} design needs stratum codes (one per query); "
                             "pass stratum=..., or use Design.from_panel on verdicts with a 'stratum' "
                             "column.")
        cluster = _codes(self.cluster, "cluster") if needs_cluster else None
        stratum = _codes(self.stratum, "stratum") if needs_stratum else None
        object.__setattr__(self, "cluster", cluster)
        object.__setattr__(self, "stratum", stratum)
        lengths = {len(c) for c in (cluster, stratum) if c is not None}
        if self.n is not None:
            if not isinstance(self.n, numbers.Integral) or self.n < 1:
                raise ValueError(f"Design: n must be a positive integer, got {self.n!r}.")
            lengths.add(int(self.n))
        if len(lengths) > 1:
            raise ValueError(f"Design: cluster codes, stratum codes and n disagree on the number of "
                             f"queries ({sorted(lengths)}).")
        n = lengths.pop() if lengths else None
        if n == 0:
            raise ValueError("Design: the codes are empty (no query).")
        object.__setattr__(self, "n", n)
        if self.kind == "stratified-cluster":
            self._check_nesting()

    def _check_nesting(self) -> None:
        pairs = np.unique(np.stack([self.cluster, self.stratum], axis=1), axis=0)
        clusters, counts = np.unique(pairs[:, 0], return_counts=True)
        spanning = clusters[counts > 1]
        if spanning.size:
            first = spanning[0]
            strata = pairs[pairs[:, 0] == first, 1].tolist()
            raise ValueError(f"Design: under 'stratified-cluster' each cluster must lie in one stratum, "
                             f"but {spanning.size} clusters span several (cluster code {first} is in "
                             f"strata {strata}). Fix the labels, or use the 'cluster' design.")

    @classmethod
    def from_panel(cls, panel: object, kind: str = "iid") -> Design:
        """The design ``kind`` for an aligned :class:`~memdiag.panel.align.Panel`.

        Cluster and stratum codes come from ``panel.codes("cluster")`` and
        ``panel.codes("stratum")`` (only those the kind needs are read).
        """
        if kind not in KINDS:
            raise ValueError(f"Design: unknown kind {kind!r}; use one of {', '.join(KINDS)}.")
        cluster = panel.codes("cluster")[0] if kind in ("cluster", "stratified-cluster") else None
        stratum = panel.codes("stratum")[0] if kind in ("stratified", "stratified-cluster") else None
        return cls(kind, cluster=cluster, stratum=stratum, n=panel.n)

    def __repr__(self) -> str:
        if self.n is None:
            return f"Design(kind={self.kind!r}, n=unbound)"
        units = f"{self.n_units} clusters" if self.clustered else f"{self.n_units} queries"
        strata = f", strata={self.n_strata}" if self.kind in ("stratified", "stratified-cluster") else ""
        return f"Design(kind={self.kind!r}, n={self.n}, units={units}{strata})"

    @property
    def clustered(self) -> bool:
        """Whether the resampling units are clusters rather than queries."""
        return self.kind in ("cluster", "stratified-cluster")

    def bind(self, n: int) -> Design:
        """This design for data with ``n`` queries (sets ``n`` of an unbound iid design, else checks it)."""
        if self.n is None:
            return replace(self, n=int(n))
        if self.n != n:
            raise ValueError(f"Design: the design has {self.n} queries but the data has {n} rows. "
                             "Build the design from the same panel as the data.")
        return self

    def _require_bound(self) -> int:
        if self.n is None:
            raise ValueError("Design: this iid design does not know N yet; use Design('iid', n=N) or "
                             "design.bind(N).")
        return self.n

    @cached_property
    def unit_of(self) -> np.ndarray:
        """``(N,)`` resampling-unit index of each query (0..U-1)."""
        n = self._require_bound()
        if not self.clustered:
            return np.arange(n)
        return np.unique(self.cluster, return_inverse=True)[1].reshape(-1)

    @property
    def n_units(self) -> int:
        """Number of resampling units U (queries, or clusters for the cluster designs)."""
        return int(self.unit_of.max()) + 1

    @cached_property
    def unit_stratum(self) -> np.ndarray:
        """``(U,)`` stratum index (0..H-1) of each unit; all zeros for unstratified designs."""
        if self.kind not in ("stratified", "stratified-cluster"):
            return np.zeros(self.n_units, dtype=np.int64)
        strata = np.unique(self.stratum, return_inverse=True)[1].reshape(-1)
        out = np.empty(self.n_units, dtype=np.int64)
        out[self.unit_of] = strata
        return out

    @property
    def n_strata(self) -> int:
        """Number of strata H (1 for unstratified designs)."""
        return int(self.unit_stratum.max()) + 1

    @cached_property
    def _strata_units(self) -> tuple[np.ndarray, ...]:
        """The unit ids of each stratum, ascending; one array per stratum."""
        order = np.argsort(self.unit_stratum, kind="stable")
        bounds = np.cumsum(np.bincount(self.unit_stratum, minlength=self.n_strata))[:-1]
        return tuple(np.split(order, bounds))


def as_design(design: Design | str, n: int) -> Design:
    """``design`` bound to ``n`` queries; the string ``"iid"`` is the iid design."""
    if isinstance(design, str):
        if design != "iid":
            raise ValueError(f"design {design!r} needs cluster/stratum codes: pass a Design "
                             f"(e.g. Design.from_panel(panel, {design!r})).")
        design = Design("iid")
    if not isinstance(design, Design):
        raise TypeError(f"design must be a Design or 'iid', got {type(design).__name__}.")
    return design.bind(n)




def _clusters(queries) -> int:
    """The number of clusters when every query carries one (0 when the column is absent or incomplete)."""
    if "cluster" not in queries or queries["cluster"].isna().any():
        return 0
    return int(queries["cluster"].nunique())


def _nested(queries) -> bool:
    """Whether every query has a stratum and every cluster lies in one stratum."""
    if "stratum" not in queries or queries["stratum"].isna().any():
        return False
    return bool((queries.groupby("cluster")["stratum"].nunique() <= 1).all())


def resolve_design(queries, design: str | None, scheme=None) -> tuple[str, str]:
    """The design to use for data with per-query attributes ``queries``, and one line saying why.

    Parameters
    ----------
    queries
        One row per query with its attributes (``Panel.queries``).
    design
        The user's choice (returned as is), or None for the default.
    scheme
        The benchmark scheme; its ``design`` (LoCoMo, PersonaMem, MEME: ``cluster``;
        MemoryAgentBench: ``stratified``) is the default when the data carry the columns it needs.

    Returns
    -------
    tuple of str
        ``(kind, reason)``. The reason names the number of clusters whenever the data have them.

    Raises
    ------
    ValueError
        An unknown kind.

    Notes
    -----
    SPEC §4.2: queries that share a conversation, episode or persona are not independent, so the
    design follows the data's clusters unless the user says otherwise. In order:

    1. the user's choice (when it is ``iid`` on data with clusters, the reason says what that
       ignores);
    2. the scheme's design when every query has the columns it needs (``stratified-cluster``
       when the scheme stratifies and the data's clusters nest in its strata; a cluster design
       needs at least two clusters);
    3. ``cluster`` when every query has a ``cluster`` and there are at least two clusters, not all
       of one query;
    4. ``iid``.

    Examples
    --------
    >>> import pandas as pd
    >>> resolve_design(pd.DataFrame({"cluster": ["a", "a", "b", "b"]}), None)
    ('cluster', 'design cluster (default: the queries come in 2 clusters, resampled whole)')
    >>> resolve_design(pd.DataFrame({"cluster": ["a", "a", "b", "b"]}), "iid")[1]
    'design iid (chosen by the user; it treats the queries of the 2 clusters as independent)'
    >>> resolve_design(pd.DataFrame({"category": ["x", "y"]}), None)
    ('iid', 'design iid (default: the queries carry no cluster)')
    """
    n_clusters = _clusters(queries)
    if design is not None:
        if design not in KINDS:
            raise ValueError(f"unknown design {design!r}; use one of {', '.join(KINDS)}.")
        if design == "iid" and n_clusters > 1:
            return design, (f"design iid (chosen by the user; it treats the queries of the {n_clusters} "
                            "clusters as independent)")
        return design, f"design {design} (chosen by the user)"
    wanted = getattr(scheme, "design", None)
    if wanted == "stratified" and 1 < n_clusters < len(queries) and _nested(queries):
        return "stratified-cluster", (f"design stratified-cluster (default for scheme {scheme.name}: resample by "
                                      f"stratum, and the queries come in {n_clusters} clusters within strata)")
    if wanted is not None:
        needed = COLUMNS[wanted]
        clustered = "cluster" in needed
        if all(c in queries and queries[c].notna().all() for c in needed) and not (clustered and n_clusters < 2):
            count = f", {n_clusters} clusters" if clustered else ""
            if not clustered and 1 < n_clusters < len(queries):
                count = f"; the data's {n_clusters} clusters cross strata, so they are not resampled whole"
            return wanted, (f"design {wanted} (default for scheme {scheme.name}: resample by "
                            f"{' and '.join(needed)}{count})")
        lacking = "which the data lack" if not (clustered and n_clusters == 1) else "but the data hold one cluster"
        return "iid", (f"design iid (scheme {scheme.name} asks for {wanted} resampling by "
                       f"{' and '.join(repr(c) for c in needed)}, {lacking})")
    if n_clusters > 1 and n_clusters < len(queries):
        return "cluster", (f"design cluster (default: the queries come in {n_clusters} clusters, "
                           "resampled whole)")
    if n_clusters > 1:
        return "iid", "design iid (default: every query is its own cluster)"
    if n_clusters == 1:
        return "iid", "design iid (default: all queries are in one cluster)"
    return "iid", "design iid (default: the queries carry no cluster)"
