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
- cluster designs with G ≥ 200: the percentile cluster bootstrap and its sign test, which are
  then within a few thousandths of nominal.

Whatever the choice, a test is exact where the data are small (:data:`memdiag._inference.wild.EXACT_UP_TO`):
when at most 16 units (clusters, or queries under ``iid``) carry a nonzero contribution to a
difference, all their sign patterns are enumerated (exact randomization; for a binary plain mean
under ``iid`` exact McNemar already is that test).
"""

from __future__ import annotations

from memdiag._checks import INFERENCE
from memdiag.errors import VerdictError

__all__ = ["INFERENCE", "PERCENTILE_FROM", "method_for"]

#: From this many clusters on, ``auto`` uses the percentile cluster bootstrap.
PERCENTILE_FROM = 200


def method_for(kind: str, n_clusters: int | None, inference: str = "auto") -> str:
    """The interval method (``percentile``, ``jackknife`` or ``cr2``) for design ``kind`` with
    ``n_clusters`` resampling clusters, under the ``inference`` option.

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
    if inference not in INFERENCE:
        raise VerdictError(f"unknown inference {inference!r}; use one of {', '.join(INFERENCE)}.")
    clustered = kind in ("cluster", "stratified-cluster")
    if inference == "percentile":
        return "percentile"
    if inference == "auto":
        return "jackknife" if clustered and (n_clusters or 0) < PERCENTILE_FROM else "percentile"
    if not clustered:
        raise VerdictError(f"inference={inference!r} needs a cluster design (design='cluster' or "
                           f"'stratified-cluster'); the design is {kind!r}. Use inference='percentile'.")
    if inference == "cr2" and kind == "stratified-cluster":
        raise VerdictError("inference='cr2' is implemented for the 'cluster' design; use "
                           "inference='jackknife' under 'stratified-cluster'.")
    return inference
