"""Whether a row's interval and test tell the same story, and what no method can tell (SPEC §4.1).

One job: the flags and notes that go beside a difference whose interval and p-value come from
different methods (the cluster jackknife or CR2 interval and the wild cluster bootstrap test; a
percentile interval and exact McNemar):

- :func:`disagree`: the interval excludes the null but p > α, or includes it but p ≤ α; the row
  gets a boolean column and a caution note (code ``interval-test-disagree``);
- :func:`few_clusters_note`: with G ≤ :data:`FEW_CLUSTERS` clusters no test can be useful — the
  smallest p of the exact sign-flip test is 2/2^G (0.125 at G = 4) — a warning (code
  ``too-few-clusters``);
- :func:`symmetry_note`: the wild cluster bootstrap and the sign-flip test assume each cluster's
  contribution is symmetric about 0 under the null; a difference concentrated in a few clusters
  breaks it (SPEC §4.1's skewed cell), stated with every clustered test (code
  ``symmetric-contributions``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memdiag.core.notes import Note

__all__ = ["FEW_CLUSTERS", "disagree", "disagreement_notes", "few_clusters_note", "symmetry_note"]

#: With this many clusters or fewer no test can be useful (the smallest exact p is 2/2^G ≥ 0.125).
FEW_CLUSTERS = 4


def disagree(low: object, high: object, p: object, alpha: float, null: float = 0.0) -> np.ndarray:
    """``(m,)`` True where the interval ``[low, high]`` and the test at level ``alpha`` disagree
    about ``null``: the interval excludes it but p > α, or includes it but p ≤ α. False where
    either is missing.

    >>> disagree([0.5, -1.0, 0.2], [3.0, 2.0, 1.0], [0.08, 0.3, 0.01], 0.05).tolist()
    [True, False, False]
    """
    low, high, p = (np.asarray(v, dtype=np.float64) for v in (low, high, p))
    ok = np.isfinite(low) & np.isfinite(high) & np.isfinite(p)
    excludes = (low > null) | (high < null)
    rejects = p <= alpha
    return ok & (excludes != rejects)


def disagreement_notes(labels: Sequence[str], flags: object, low: object, high: object, p: object, alpha: float,
                       level: float, method: str, tests: Sequence[str], unit: str = "") -> list[Note]:
    """A caution note per flagged row, naming both methods.

    >>> disagreement_notes(["a − b"], [True], [0.5], [3.0], [0.08], 0.05, 0.95, "cluster jackknife, t(9)",
    ...                    ["wild cluster bootstrap-t"])[0].code
    'interval-test-disagree'
    """
    notes = []
    for i, label in enumerate(labels):
        if not bool(np.asarray(flags)[i]):
            continue
        lo, hi, pv = float(np.asarray(low)[i]), float(np.asarray(high)[i]), float(np.asarray(p)[i])
        side = "excludes 0 but" if lo > 0 or hi < 0 else "includes 0 but"
        verdict = f"p = {pv:.3g} > {alpha:g}" if pv > alpha else f"p = {pv:.3g} ≤ {alpha:g}"
        notes.append(Note(f"{label}: the interval and the test disagree — the {level:.0%} interval [{lo:.2f}, {hi:.2f}]"
                          f"{unit} ({method}) {side} the test ({tests[i]}) gives {verdict}; the two methods measure "
                          "the uncertainty differently, so read the difference as not established either way",
                          code="interval-test-disagree", severity="caution", concerns=(label,)))
    return notes


def few_clusters_note(n_clusters: int | None) -> list[Note]:
    """A warning when a clustered result rests on at most :data:`FEW_CLUSTERS` clusters.

    >>> few_clusters_note(3)[0].severity, few_clusters_note(10)
    ('warning', [])
    """
    if n_clusters is None or n_clusters > FEW_CLUSTERS or n_clusters < 2:
        return []
    return [Note(f"only {n_clusters} clusters: no method can give a useful test — even the exact sign-flip test "
                 f"cannot go below p = 2/2^{n_clusters} = {2 / 2 ** n_clusters:g}, and a t interval on "
                 f"{n_clusters - 1} degrees of freedom rests on the clusters being normal; treat intervals and "
                 "p-values as descriptive", code="too-few-clusters", severity="warning")]


def symmetry_note() -> Note:
    """The assumption behind every clustered test, stated once per result.

    >>> symmetry_note().code
    'symmetric-contributions'
    """
    return Note("the clustered test (wild cluster bootstrap, sign flips) assumes each cluster's contribution to the "
                "difference is symmetric about 0 under the null; a difference concentrated in a few clusters (skewed "
                "cluster effects) makes it reject too often — 8% at α = 0.05 with ten conversations in SPEC §4.1's "
                "simulation — and no available method corrects it", code="symmetric-contributions")
