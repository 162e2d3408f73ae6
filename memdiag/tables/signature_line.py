"""The signature line of a result: the settings behind its numbers on one line, as sacrebleu prints its settings (SPEC §4.6).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

from memdiag.core.escape import one_line

#: Provenance keys printed in the signature line, in this order.
_SIGNATURE_KEYS = ("scheme", "metric", "design", "n_clusters", "df", "n_resamples", "seed", "confidence_level",
                   "inference", "correction", "threshold", "missing", "verdict_missing", "judges")
_SHORT = {"n_clusters": "G", "n_resamples": "B", "confidence_level": "ci", "verdict_missing": "verdict-missing"}


def signature(attrs: Mapping[str, object], escape: Callable[[object], str] = one_line) -> str:
    """One line naming the settings behind a result, e.g. ``memdiag 0.1.0 | design=iid | B=20000``.

    Each value goes through ``escape`` (default :func:`~memdiag.core.escape.one_line`; a scheme name
    comes from the user's file), the separators do not. ``inference`` is shown when it is not
    the default rule (``auto``).

    Parameters
    ----------
    attrs
        A result's provenance (``df.attrs``): ``version`` (default: this memdiag's) and any of
        ``scheme, metric, design, n_clusters, df, n_resamples, seed, confidence_level, inference,
        correction, threshold, missing, verdict_missing, judges``, shown in that order; absent
        or None keys are left out.
    escape
        Turns each value into text for the output format (:mod:`memdiag.core.escape`: ``one_line``
        for terminals, ``markdown`` for Markdown tables).

    Returns
    -------
    str
        ``memdiag <version> | key=value | ...`` with the short names ``G`` (clusters; the range
        of a by= table's groups), ``df`` (ν, the degrees of freedom of t intervals, beside G;
        shown when one number), ``B`` (replicates), ``ci`` (level, as a percentage) and ``verdict-missing``.

    Raises
    ------
    ValueError
        A ``confidence_level`` that is not a number.

    References
    ----------
    SPEC §4.6 (every result records its settings, printed as one signature line) and SPEC §4.1
    (``G``, the number of clusters, and the ``inference`` method).

    Examples
    --------
    >>> signature({"design": "cluster", "n_clusters": 10, "n_resamples": 20000, "seed": 0, "version": "0.1.0"})
    'memdiag 0.1.0 | design=cluster | G=10 | B=20000 | seed=0'
    >>> signature({"design": "cluster", "n_clusters": 10, "df": 3.2311, "version": "0.1.0"})
    'memdiag 0.1.0 | design=cluster | G=10 | df=3.23'
    >>> signature({"design": "cluster", "n_clusters": [29, 22, 30], "df": [21.6, 22, 29], "version": "0.1.0"})
    'memdiag 0.1.0 | design=cluster | G=22–30'
    >>> signature({"confidence_level": 0.9, "inference": "auto", "correction": "holm", "version": "0.1.0"})
    'memdiag 0.1.0 | ci=90% | correction=holm'
    """
    from memdiag import __version__

    parts = [f"memdiag {escape(attrs.get('version', __version__))}"]
    for key in _SIGNATURE_KEYS:
        value = attrs.get(key)
        if value is None or (key == "inference" and value == "auto"):
            continue
        if key == "df":     # one t interval's ν (a by= table with several, or none: not shown)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                continue
            value = f"{float(value):.3g}"
        if key == "n_clusters" and isinstance(value, list):  # a by= table's groups: their range
            counts = [count for count in value if count is not None]
            if not counts:
                continue
            value = f"{min(counts)}–{max(counts)}" if min(counts) < max(counts) else counts[0]
        if key == "confidence_level":
            value = f"{float(value):.0%}"
        parts.append(f"{_SHORT.get(key, key)}={escape(value)}")
    return " | ".join(parts)


def signature_difference(attrs: Mapping[str, object], base: Mapping[str, object],
                         escape: Callable[[object], str] = one_line) -> str | None:
    """The parts of ``attrs``' signature line that ``base``'s does not state (a key it lacks or
    gives another value), joined as in :func:`signature`; None when there are none. A report
    prints its settings once and, under a table, only where the table differs (issue 19).

    >>> base = {"design": "cluster", "n_clusters": 10, "n_resamples": 20000, "version": "0.1.0"}
    >>> signature_difference({**base, "metric": "coverage", "df": 9}, base)
    'metric=coverage | df=9'
    >>> signature_difference(base, base) is None
    True
    """
    known = set(signature(base, escape).split(" | "))
    parts = [part for part in signature(attrs, escape).split(" | ")[1:] if part not in known]
    return " | ".join(parts) or None
