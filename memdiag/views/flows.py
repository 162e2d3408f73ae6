"""Views of the flows: the benefit / tax Venn panels and the three-set Venn of source augmentation
(SPEC §2, §8; Memory Tax review).
"""

from __future__ import annotations

from functools import partial

from memdiag import plots
from memdiag.analyses.augmentation import augmentation, augmented_pairs
from memdiag.analyses.flows import flows
from memdiag.views._view import Inputs, Parameter, Shown, Unavailable, View, register
from memdiag.views.captions import (
    caption,
    cluster_warnings,
    intervals,
    warnings_of,
    with_warnings,
)


def flows_of(inputs: Inputs, view: str = "venn"):
    """The flows of every system against the reference (:func:`memdiag.flows` at the inputs'
    threshold, with their options), computed once."""
    prepared, reference = inputs.counted(view), inputs.compared_with(view)
    if len(prepared.systems) < 2:
        raise Unavailable(view, f"the data hold only {reference}: there is no system to compare with it")
    return inputs.once(("flows", reference),
                       lambda: flows(prepared, reference, options=inputs.options))


def _venn(inputs: Inputs, *, shared_scale: bool) -> Shown:
    table = flows_of(inputs)
    reference, systems = inputs.reference, inputs.prepared.systems
    drawn = with_warnings(table, cluster_warnings(inputs, systems, reference))
    text = (f"Benefit / tax Venn diagrams of every system against {reference}; the title gives the net count and "
            f"the net rate with its {intervals(table, one=True)}.")
    warned = warnings_of(drawn)
    return Shown("venn", {"flows": table},
                 partial(plots.venn, drawn, shared_scale=shared_scale, all_systems=inputs.systems,
                         labels=inputs.figure_labels),
                 caption(text, warned), warned, labels=inputs.labels)


def _venn3(inputs: Inputs, *, memory: str | None, augmented: str | None) -> Shown:
    prepared, reference = inputs.counted("venn3"), inputs.compared_with("venn3")
    if memory is None:
        pairs = [pair for pair in augmented_pairs(prepared.systems) if reference not in pair]
        if not pairs:
            raise Unavailable("venn3", "no system is named <memory>+raw (or +source) beside its memory system")
        memory, augmented = pairs[0]
    table = augmentation(prepared, memory, reference=reference, augmented=augmented)
    augmented = table.attrs["systems"][2]
    drawn = with_warnings(table, cluster_warnings(inputs, [memory, augmented], reference))
    text = (f"Queries answered by {reference}, {memory} and {augmented}: each region's count and share; below, the "
            f"tax of {memory} without and with augmentation.")
    warned = warnings_of(drawn)
    return Shown("venn3", {"augmentation": table},
                 partial(plots.venn3, drawn, all_systems=inputs.systems, labels=inputs.figure_labels),
                 caption(text, warned), warned, labels=inputs.labels)


register(View(
    "venn", "benefit/tax Venn panels of each system against the reference (the flows)", _venn,
    (Parameter("shared_scale", True, "circle areas to scale, comparable across panels (the report's); False: every "
                                     "panel with the same layout"),),
    reference="required"))
register(View(
    "venn3", "three-set Venn: the reference, a memory system and the memory system with raw evidence", _venn3,
    (Parameter("memory", None, "the memory system (default: the first system named MEMORY+raw beside its memory "
                               "system)"),
     Parameter("augmented", None, "the memory system with raw evidence (default: MEMORY+raw)")),
    reference="required", options=()))
