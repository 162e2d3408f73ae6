"""Monte-Carlo errors that matter: a resampled number near a decision boundary (SPEC §4.1).

One job. A resampled p-value within 2 Monte-Carlo standard errors of α (or an adjusted p within
2 of its errors), or a percentile interval end within 2 of its errors of 0, could fall on the
other side of the boundary with another seed: the decision rests on the resampling, not on the
data. Such a number gets a caution note (code ``mc-near-boundary``) that prints it with its
error, so that the error is read where the decision is made, not only in ``attrs["mc_se"]``.
Numbers computed exactly (error 0) never get one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from memdiag.core.notes import Note

__all__ = ["NEAR", "near_boundary_notes"]

#: A number within this many Monte-Carlo standard errors of its boundary is "near" it.
NEAR = 2.0


def _near(value: float, se: float, boundary: float) -> bool:
    return bool(np.isfinite(value) and np.isfinite(se) and se > 0 and abs(value - boundary) <= NEAR * se)


def near_boundary_notes(labels: Sequence[str], *, alpha: float, p: Sequence[float] | None = None,
                        p_se: Sequence[float] | None = None, p_adj: Sequence[float] | None = None,
                        ends: Mapping[str, tuple[Sequence[float], Sequence[float]]] | None = None,
                        unit: str = "") -> list[Note]:
    """Caution notes for the resampled numbers of each row that lie near a decision boundary.

    Parameters
    ----------
    labels
        One label per row (``"mem − rag"``).
    alpha
        The test level the p-values are read at.
    p, p_se
        The p-values and their Monte-Carlo standard errors (0 where exact).
    p_adj
        The adjusted p-values; an adjusted p below 1 scales its p's error by ``p_adj / p`` (Holm
        and Bonferroni multiply p by a factor).
    ends
        ``{column: (values, errors)}`` of interval ends, each checked against 0.
    unit
        Appended to interval ends in the text (``" points"``).

    Returns
    -------
    list of Note
        One ``caution`` note per row with a number near its boundary (code ``mc-near-boundary``,
        concerning the row's label).

    Examples
    --------
    >>> near_boundary_notes(["a − b"], alpha=0.05, p=[0.049], p_se=[0.0015], p_adj=[0.049])
    ['a − b: p = 0.0490 ± 0.0015 (Monte-Carlo error) lies within 2 Monte-Carlo errors of α = 0.05; the decision rests on the resampling: more resamples (n_resamples) would settle it']
    >>> near_boundary_notes(["a − b"], alpha=0.05, p=[0.2], p_se=[0.004])
    []
    """
    notes = []
    for i, label in enumerate(labels):
        parts = []
        if p is not None and p_se is not None:
            value, se = float(p[i]), float(p_se[i])
            if _near(value, se, alpha):
                parts.append(f"p = {value:.4f} ± {se:.4f}")
            if p_adj is not None:
                adj = float(p_adj[i])
                se_adj = se * adj / value if value > 0 and adj < 1 else 0.0
                if adj != value and _near(adj, se_adj, alpha):
                    parts.append(f"p_adj = {adj:.4f} ± {se_adj:.4f}")
        for column, (values, errors) in (ends or {}).items():
            value, se = float(values[i]), float(errors[i])
            if _near(value, se, 0.0):
                parts.append(f"{column} = {value:.2f} ± {se:.2f}{unit}")
        if not parts:
            continue
        near = []
        if any(part.startswith("p") for part in parts):
            near.append(f"α = {alpha:g}")
        if any(not part.startswith("p") for part in parts):
            near.append("0")
        notes.append(Note(f"{label}: {', '.join(parts)} (Monte-Carlo error) lie{'s' if len(parts) == 1 else ''} "
                          f"within {NEAR:g} Monte-Carlo errors of {' and '.join(near)}; the decision rests on the "
                          "resampling: more resamples (n_resamples) would settle it",
                          code="mc-near-boundary", severity="caution", concerns=(label,)))
    return notes
