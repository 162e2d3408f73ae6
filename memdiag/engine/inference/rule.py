"""Which interval and which test a design gets: the one documented rule (SPEC §4.1).

``inference`` is the one option every resampling function takes:

=============  ===============================================================================
``auto``       the rule below (default)
``percentile`` the percentile bootstrap under the design and the bootstrap sign test (the Raw-RAG
               paper's method, C.6; exact McNemar for a binary plain mean under ``iid``) — to
               reproduce published numbers
``jackknife``  cluster designs: cluster jackknife standard error with a t interval on G − H df;
               p from the restricted wild cluster bootstrap
``cr2``        cluster designs: CR2 standard error with a t interval on Bell–McCaffrey df; p from
               the restricted wild cluster bootstrap
=============  ===============================================================================

The ``auto`` rule, by design and number of clusters G:

- ``iid`` and ``stratified`` (queries are the units): percentile bootstrap intervals; exact
  McNemar for a binary plain mean under ``iid``, otherwise the bootstrap sign test.
- ``cluster`` and ``stratified-cluster`` with G < :data:`PERCENTILE_FROM` (200): the cluster
  jackknife with t(G − H), and the restricted wild cluster bootstrap-t p-value. In SPEC §4.1's
  simulations (LoCoMo's conversation sizes, a conversation-level difference with sd 5 points)
  this pair covers and rejects at the nominal rate at G = 10, 30 and 100, where the percentile
  cluster bootstrap covers 0.89 at G = 10 and about 0.94 at G = 100 (its variance is too small
  by (G − 1)/G and it uses normal rather than t quantiles).
- ``cluster`` with G < 200 and clusters of **unequal size** — the Bell–McCaffrey degrees of
  freedom ν of the design below :data:`UNEQUAL_BELOW` · (G − 1) — CR2 with a t(ν) interval
  instead of the jackknife's t(G − 1). With one conversation holding half of LoCoMo's questions
  (ν = 3.3 at G = 10) the jackknife with t(9) covers 0.90–0.92 and CR2 with t(ν) 0.94–0.96
  (SPEC §4.1's table). LoCoMo's own conversations (ν = 8.6 = 0.95·(G − 1)), MEME's equal
  episodes and any design with ν ≥ 0.8·(G − 1) keep the jackknife. ``stratified-cluster``
  keeps the jackknife on G − H df (CR2 is not implemented under strata).
- cluster designs with G ≥ 200: the percentile cluster bootstrap and its sign test, which are
  then within a few thousandths of nominal.

Whatever the choice, a test is exact where the data are small (:data:`memdiag.engine.inference.wild.EXACT_UP_TO`):
when at most 16 units (clusters, or queries under ``iid``) carry a nonzero contribution to a
difference, all their sign patterns are enumerated (exact randomization; for a binary plain mean
under ``iid`` exact McNemar already is that test).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from memdiag.core.checks import INFERENCE
from memdiag.engine.inference.cluster import bell_mccaffrey_df
from memdiag.errors import VerdictError

if TYPE_CHECKING:  # pragma: no cover
    from memdiag.engine.designs import Design

__all__ = ["INFERENCE", "PERCENTILE_FROM", "UNEQUAL_BELOW", "method_for", "method_of", "unequal_clusters"]

#: From this many clusters on, ``auto`` uses the percentile cluster bootstrap.
PERCENTILE_FROM = 200
#: Clusters are unequal when the Bell–McCaffrey ν is below this share of G − 1 (``auto`` then uses CR2).
UNEQUAL_BELOW = 0.8


def unequal_clusters(sizes: object) -> bool:
    """Whether clusters of these sizes are unequal enough for ``auto`` to use CR2 with t(ν):
    the Bell–McCaffrey ν below :data:`UNEQUAL_BELOW` · (G − 1).

    >>> unequal_clusters([152, 81, 152, 199, 178, 123, 150, 191, 156, 158])   # LoCoMo: ν = 8.6
    False
    >>> unequal_clusters([770] + [85] * 9)                                       # one holds half: ν = 3.3
    True
    """
    n = np.asarray(sizes, dtype=np.float64).reshape(-1)
    if n.size < 3 or np.any(n <= 0):
        return False
    return bell_mccaffrey_df(n / n.sum()) < UNEQUAL_BELOW * (n.size - 1)


def method_of(design: Design, inference: str = "auto") -> str:
    """:func:`method_for` of a :class:`~memdiag.engine.designs.Design`, with its cluster sizes (so that
    ``auto`` uses CR2 for unequal clusters).

    >>> from memdiag.engine.designs import Design
    >>> method_of(Design("cluster", cluster=[0] * 8 + [1, 2, 3, 4]))
    'cr2'
    """
    if not design.clustered:
        return method_for(design.kind, None, inference)
    return method_for(design.kind, design.n_units, inference,
                      sizes=np.bincount(design.unit_of, minlength=design.n_units))


def method_for(kind: str, n_clusters: int | None, inference: str = "auto", sizes: object | None = None) -> str:
    """The interval method (``percentile``, ``jackknife`` or ``cr2``) for design ``kind`` with
    ``n_clusters`` resampling clusters (of ``sizes`` queries each, when given), under the
    ``inference`` option.

    Raises
    ------
    VerdictError
        An unknown ``inference``; ``jackknife`` or ``cr2`` without a cluster design; ``cr2``
        under ``stratified-cluster`` (use ``jackknife``).

    Examples
    --------
    >>> method_for("cluster", 10), method_for("cluster", 250), method_for("iid", None)
    ('jackknife', 'percentile', 'percentile')
    >>> method_for("cluster", 10, "percentile")
    'percentile'
    """
    if inference == "bca":
        raise VerdictError("inference='bca' (the BCa interval) is md.bootstrap's only; this diagnostic offers "
                           f"{', '.join(INFERENCE)}.")
    if inference not in INFERENCE:
        raise VerdictError(f"unknown inference {inference!r}; use one of {', '.join(INFERENCE)}.")
    clustered = kind in ("cluster", "stratified-cluster")
    if inference == "percentile":
        return "percentile"
    if inference == "auto":
        if not clustered or (n_clusters or 0) >= PERCENTILE_FROM:
            return "percentile"
        return "cr2" if kind == "cluster" and sizes is not None and unequal_clusters(sizes) else "jackknife"
    if not clustered:
        raise VerdictError(f"inference={inference!r} needs a cluster design (design='cluster' or "
                           f"'stratified-cluster'); the design is {kind!r}. Use inference='percentile'.")
    if inference == "cr2" and kind == "stratified-cluster":
        raise VerdictError("inference='cr2' is implemented for the 'cluster' design; use "
                           "inference='jackknife' under 'stratified-cluster'.")
    return inference
