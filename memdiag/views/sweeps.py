"""Views of one system under several settings: a parameter sweep against its default (Raw-RAG
paper Figure 4) and native retrieval vs the complete store vs raw evidence (Figure 5).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import partial

from memdiag import plots
from memdiag.analyses.sensitivity import sensitivity
from memdiag.analyses.store_gap import store_gap
from memdiag.views._view import Inputs, Parameter, Shown, Unavailable, View, register
from memdiag.views.captions import (
    caption,
    cluster_warnings,
    intervals,
    warnings_of,
    with_warnings,
)
from memdiag.views.compare import for_metric

#: A run of a sweep: ``[system ]PARAM=VALUE`` (the system part ends with a space, ``:``, ``@`` or ``/``).
SETTING = re.compile(r"^(?P<system>(?:.*?[\s:@/]+)?)(?P<parameter>[A-Za-z_][\w.-]*)=(?P<value>\S+)$")


def sweep(systems: Sequence[str], reference: str | None = None, parameter: str | None = None,
          default: object = None) -> tuple[str, str, list[str]] | None:
    """``(parameter, default value, runs)`` of a parameter sweep among ``systems``, or None.

    Without ``parameter`` and ``default`` (the report), the reference is one setting: it is named
    ``[system ]PARAM=VALUE`` and at least two other runs of the same system name the same
    parameter; ``runs`` are the reference and those. Given them, ``runs`` are the systems named
    ``PARAM=VALUE`` (of the reference's system when the reference is one of them), at least two.

    >>> sweep(["rag", "k=5", "k=15", "k=30"], "k=15")
    ('k', '15', ['k=5', 'k=15', 'k=30'])
    >>> sweep(["rag", "k=5", "k=15"], "rag", "k", 15)
    ('k', '15', ['k=5', 'k=15'])
    >>> sweep(["rag", "k=5", "k=15"], "k=15") is None
    True
    """
    named = {s: m for s in systems if (m := SETTING.match(s))}
    own = named.get(reference) if reference is not None else None
    given = parameter is not None and default is not None
    parameter = parameter if parameter is not None else own["parameter"] if own else None
    if own is not None and own["parameter"] != parameter:
        own = None
    default = default if default is not None else own["value"] if own else None
    if parameter is None or default is None:
        return None
    runs = [s for s, m in named.items() if m["parameter"] == parameter and (own is None or m["system"] == own["system"])]
    return (parameter, str(default), runs) if len(runs) >= (2 if given else 3) else None


def _sensitivity(inputs: Inputs, *, parameter: str | None, default: object, metric: str) -> Shown:
    prepared = inputs.verdicts("sensitivity")
    found = sweep(prepared.systems, inputs.reference, parameter, default)
    if found is None:
        raise Unavailable("sensitivity", "no parameter sweep: name the runs PARAM=VALUE (e.g. final_k=5) and make "
                                         "the default setting the reference")
    parameter, default, runs = found
    # the sweep's runs, each prepared again with the data choices, under the prepared data's design
    options = inputs.options.replace(design=inputs.options.design or prepared.design)
    table = sensitivity(for_metric(prepared.restrict(runs), metric), parameter=parameter, default=default,
                        metric=metric, options=options)
    drawn = with_warnings(table, cluster_warnings(inputs, runs))
    text = (f"Score of each {parameter} setting (top) and its difference from the default {parameter} = {default} "
            f"with paired {intervals(table)} (bottom).")
    warned = warnings_of(drawn)
    return Shown("sensitivity", {"sensitivity": table},
                 partial(plots.sensitivity, drawn, parameter=parameter, default=table.attrs["default"],
                         labels=inputs.figure_labels),
                 caption(text, warned), warned, labels=inputs.labels)


def _store_gap(inputs: Inputs) -> Shown:
    prepared, table = inputs.verdicts("store-gap"), inputs.systems_table
    if table is None:
        raise Unavailable("store-gap", "it needs a systems table that tags each run by its variant (columns system, "
                                       "base, variant: native, complete or raw; systems_table=, --systems-table CSV)")
    if "variant" not in table or not table["variant"].notna().any():
        raise Unavailable("store-gap", "the systems table tags no runs by variant (native, complete, raw)")
    gap = store_gap(prepared, table, options=inputs.options)
    drawn = with_warnings(gap, cluster_warnings(inputs, [s for s in table["system"] if s in prepared.systems]))
    text = ("Native (hollow) and complete-store (filled) scores per memory system, the raw-evidence control (grey), "
            f"and the paired differences C − N and R − C with their {intervals(gap)}.")
    warned = warnings_of(drawn)
    return Shown("store-gap", {"store_gap": gap},
                 partial(plots.store_gap, drawn, all_systems=inputs.systems, labels=inputs.figure_labels),
                 caption(text, warned), warned, labels=inputs.labels)


register(View(
    "sensitivity", "score and difference from the default across a parameter's values (runs named PARAM=VALUE)",
    _sensitivity,
    (Parameter("parameter", None, "the parameter in the run names PARAM=VALUE (default: the reference's)"),
     Parameter("default", None, "the parameter's default value (default: the reference's)"),
     Parameter("metric", "accuracy", "metric of the scores and differences")),
    options=("design", "n_resamples", "seed", "confidence_level")))
register(View(
    "store-gap", "native vs complete-store scores per memory system and the gap to raw evidence", _store_gap,
    needs=("verdicts", "systems_table"), reference="unused"))
