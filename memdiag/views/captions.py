"""Captions read from the result a figure draws: its level, correction and design, and its warnings.

A caption says what the figure shows in the view's own words, then how its numbers were made —
the interval level and the significance level α = 1 − the confidence level, the correction and
the resampling design, each read from the result's ``attrs`` — and ends with every warning
attached to the result (its notes of severity ``"warning"``). The warnings that bear on a
figure include those of the data it compares: a run (the reference above all) that answers
whole clusters all wrong is named under every figure that compares it (:func:`cluster_warnings`).
Captions keep the systems' full names; :attr:`memdiag.views.Shown.caption` writes their labels.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd

from memdiag.analyses.clusters import cluster_accuracy, reference_notes
from memdiag.core.notes import Note, as_note
from memdiag.plots._reading import alpha, alpha_text, correction, level
from memdiag.views._view import Inputs

#: The designs that resample whole clusters (their captions give the number of clusters).
CLUSTER_DESIGNS: tuple[str, ...] = ("cluster", "stratified-cluster")


def intervals(frame: pd.DataFrame, one: bool = False) -> str:
    """The intervals of a result in words: level, design and clusters (``one``: singular).

    >>> f = pd.DataFrame(); f.attrs.update(confidence_level=0.9, design="cluster", n_clusters=10)
    >>> intervals(f), intervals(f, one=True)
    ('90% intervals (cluster design, 10 clusters)', '90% interval (cluster design, 10 clusters)')
    >>> f.attrs["n_clusters"] = [10, 9, 10]  # a by= frame
    >>> intervals(f)
    '90% intervals (cluster design, 9–10 clusters)'
    """
    attrs = frame.attrs
    design = attrs.get("design")
    where = ""
    if design:
        clusters = attrs.get("n_clusters")
        if isinstance(clusters, (list, tuple)):  # a by= frame: each group its own clusters
            low, high = min(clusters, default=0), max(clusters, default=0)
            clusters = f"{low}–{high}" if low != high else low
        where = f" ({design} design" + (f", {clusters} clusters" if clusters and design in CLUSTER_DESIGNS else "") + ")"
    return f"{level(frame)}{'' if one else 's'}{where}"


def significance(frame: pd.DataFrame) -> str:
    """What a filled marker or a bold cell means: the adjusted p below α = 1 − the level.

    >>> f = pd.DataFrame({"p_adj": [0.2]}); f.attrs.update(confidence_level=0.9, correction="holm")
    >>> significance(f)
    'Holm-adjusted p < 0.10'
    """
    return f"{correction(frame)} < {alpha_text(alpha(frame))}"


def warnings_of(frame: pd.DataFrame) -> tuple[Note, ...]:
    """The warnings attached to a result: its notes of severity ``"warning"``, each once."""
    return tuple(dict.fromkeys(n for n in map(as_note, frame.attrs.get("notes", [])) if n.severity == "warning"))


def with_warnings(frame: pd.DataFrame, notes: Iterable[str]) -> pd.DataFrame:
    """A shallow copy of ``frame`` whose notes also hold ``notes`` (each once): the result as its
    figure draws it, the frame itself (a table of the report) unchanged."""
    extra = [n for n in map(as_note, notes) if n not in frame.attrs.get("notes", [])]
    if not extra:
        return frame
    out = frame.copy(deep=False)
    out.attrs = {**frame.attrs, "notes": [*frame.attrs.get("notes", []), *extra]}
    return out


def cluster_warnings(inputs: Inputs, systems: Sequence[str], reference: str | None = None) -> list[Note]:
    """The warnings on the runs a figure compares: the reference answering whole clusters all wrong
    (or all right), and each other system of ``systems`` doing so (:func:`memdiag.cluster_accuracy`,
    computed once per report). Empty without clusters."""
    if inputs.prepared is None or inputs.prepared.n_clusters is None:
        return []
    prepared = inputs.counted("cluster check")
    table = inputs.once(("cluster_accuracy", prepared.threshold), lambda: cluster_accuracy(prepared))
    drawn = set(systems) - {reference}
    notes = [n for n in map(as_note, table.attrs["notes"])
             if n.severity == "warning" and n.concerns and set(n.concerns) <= drawn]
    if reference is None:
        return notes
    return inputs.once(("reference_notes", reference, prepared.threshold),
                       lambda: reference_notes(prepared, reference)) + notes


def caption(text: str, warnings: Iterable[str]) -> str:
    """The caption: ``text``, then each warning (``Warning: ...``). Systems keep their full names
    (:attr:`memdiag.views.Shown.caption` writes their labels).

    >>> caption("Net of mem0 against rag.", [Note("rag fails conv-3", severity="warning")])
    'Net of mem0 against rag. Warning: rag fails conv-3.'
    """
    return " ".join([text] + [f"Warning: {str(w).rstrip('.')}." for w in warnings])
