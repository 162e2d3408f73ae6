"""Views of a memory's decision log: the proposed and effective mutation rates per cluster, and
the distribution of its write actions (SPEC §7; Raw-RAG paper C.2, Figure 2).
"""

from __future__ import annotations

from functools import partial

from memdiag import plots
from memdiag.analyses.writes import write_audit
from memdiag.views._view import Inputs, Shown, Unavailable, View, register
from memdiag.views.captions import caption, intervals, warnings_of


def audit_of(inputs: Inputs, view: str):
    """The write-action audit of the decision log (:func:`memdiag.write_audit` at the options'
    confidence level), computed once for both figures."""
    if inputs.write_log is None:
        raise Unavailable(view, "no memory decision log was given (write_log=, --write-log)")
    return inputs.once("write_audit", lambda: write_audit(inputs.write_log, options=inputs.options))


def _writes(inputs: Inputs) -> Shown:
    table = audit_of(inputs, "writes")
    text = (f"Proposed and effective mutation rates per conversation with their {intervals(table)}, and the "
            "decision-weighted means.")
    warned = warnings_of(table)
    return Shown("writes", {"write_audit": table}, partial(plots.mutation_rates, table),
                 caption(text, warned), warned, labels=inputs.labels)


def _actions(inputs: Inputs) -> Shown:
    table = audit_of(inputs, "actions")
    text = "The distribution of ADD, UPDATE, DELETE and NONE decisions per conversation and pooled (Raw-RAG paper Figure 2, top)."
    warned = warnings_of(table)
    return Shown("actions", {"write_audit": table}, partial(plots.write_actions, table),
                 caption(text, warned), warned, labels=inputs.labels)


register(View("writes", "proposed and effective mutation rates per cluster, from a memory decision log", _writes,
              needs=("write_log",), reference="unused", options=("confidence_level",)))
register(View("actions", "the distribution of ADD / UPDATE / DELETE / NONE decisions, from a memory decision log",
              _actions, needs=("write_log",), reference="unused", options=()))
