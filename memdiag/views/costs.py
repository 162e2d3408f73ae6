"""Views of costs: the cost–accuracy bubble chart and the cumulative ingestion time (SPEC §8;
Memory Tax review, Figure 1; Raw-RAG paper Figure 1 right).
"""

from __future__ import annotations

from functools import partial

import pandas as pd

from memdiag import plots
from memdiag.analyses.compare import bootstrap
from memdiag.analyses.ingestion import ingestion, ingestion_curve
from memdiag.core.notes import Note
from memdiag.errors import VerdictError
from memdiag.views._view import Inputs, Parameter, Shown, Unavailable, View, register
from memdiag.views.captions import (
    caption,
    cluster_warnings,
    intervals,
    warnings_of,
    with_warnings,
)

#: Per-system cost columns a systems table may carry, in order of preference.
SYSTEM_COSTS: tuple[str, ...] = ("tokens_per_query", "total_tokens", "cost_usd")
#: Memory-store size columns a systems table may carry (bubble area), in order of preference.
STORE_SIZES: tuple[str, ...] = ("store_tokens", "store_size")
#: Per-query cost columns of the verdicts, in order of preference: ``(name of the per-system
#: mean, the columns summed, what the caption calls it)``.
QUERY_COSTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("tokens_per_query", ("input_tokens", "output_tokens")),
    ("tokens_used_per_query", ("tokens_used",)),
    ("latency_s_per_query", ("latency_s",)),
)


def accuracy_of(inputs: Inputs, view: str = "bubble") -> pd.DataFrame:
    """Every system's accuracy with its interval (:func:`memdiag.bootstrap`), computed once."""
    prepared = inputs.verdicts(view)
    return inputs.once("accuracy", lambda: bootstrap(prepared, "accuracy", options=inputs.options))


def _system_costs(table: pd.DataFrame | None, cost: str | None,
                  size: str | None) -> tuple[pd.DataFrame, str, str | None, str] | None:
    """The cost column of a systems table (``cost``, else the first of :data:`SYSTEM_COSTS` it
    has) with its store-size column (``size``, else the first of :data:`STORE_SIZES`, else none)."""
    if table is None:
        return None
    if cost is None:
        cost = next((c for c in SYSTEM_COSTS if c in table), None)
    if cost is None or cost not in table:
        return None
    size = size or next((c for c in STORE_SIZES if c in table), None)
    columns = ["system", cost] + ([size] if size else [])
    return table[columns].drop_duplicates("system"), cost, size, f"systems table column '{cost}'"


def _query_costs(df: pd.DataFrame, cost: str | None) -> tuple[pd.DataFrame, str, None, str] | None:
    """Mean per-query cost per system from the verdicts (``cost``, else the first of
    :data:`QUERY_COSTS` that two systems have)."""
    for name, parts in QUERY_COSTS:
        present = [c for c in parts if c in df]
        if not present or (cost is not None and cost != name):
            continue
        values = df[present].sum(axis=1, min_count=len(present)) if len(present) > 1 else df[present[0]]
        per_answer = values.groupby([df["system"], df["query_id"]]).mean()
        per_system = per_answer.groupby(level="system").mean()
        if per_system.notna().sum() >= 2:
            frame = per_system.rename(name).reset_index()
            return frame, name, None, f"mean per-query {' + '.join(present)} of the verdicts"
    return None


def _costs(inputs: Inputs, cost: str | None, size: str | None) -> tuple[pd.DataFrame, str, str | None, str]:
    """Each system's cost (the systems table's, else the verdicts' per-query mean) and store size."""
    table = inputs.systems_table
    if size is not None and (table is None or size not in table):
        have = ", ".join(map(str, table.columns)) if table is not None else "no systems table"
        raise VerdictError(f"the systems table has no store-size column {size!r} ({have}). Add it, choose another "
                           "(size=, --size), or leave it out: the bubbles are then equal.")
    found = _system_costs(table, cost, size) or _query_costs(inputs.verdicts("bubble").frame, cost)
    if found is None and cost is not None:
        have = ", ".join(map(str, table.columns)) if table is not None else "no systems table"
        raise VerdictError(f"no cost {cost!r}: it is neither a column of the systems table ({have}) nor a per-query "
                           f"cost of the verdicts ({', '.join(name for name, _ in QUERY_COSTS)}).")
    if found is None:
        raise Unavailable("bubble", "no cost: give a systems table with tokens_per_query (--systems-table) or "
                                    "verdicts with input_tokens/output_tokens, tokens_used or latency_s")
    return found


def _bubble(inputs: Inputs, *, cost: str | None, size: str | None) -> Shown:
    prepared = inputs.verdicts("bubble")
    costs, cost, size, source = _costs(inputs, cost, size)
    accuracy = accuracy_of(inputs)
    table = accuracy[["system", "estimate", "ci_low", "ci_high"]].merge(costs, on="system")
    table = table[table[cost].notna()].reset_index(drop=True)
    lacking = [s for s in prepared.systems if s not in set(table["system"])]
    if len(table) < 2:
        raise Unavailable("bubble", f"fewer than two systems have a cost ({source})")
    table.attrs = {"notes": [Note(f"cost: {source}", code="bubble-cost")]
                   + ([Note(f"no cost for {', '.join(lacking)}: not drawn", code="bubble-no-cost", severity="caution",
                            concerns=lacking)] if lacking else [])}
    reference = inputs.reference if inputs.reference in prepared.systems else None
    drawn = with_warnings(accuracy, cluster_warnings(inputs, list(table["system"]), reference))
    area = f"bubble area ∝ {size.replace('_', ' ')}" if size else "equal bubbles: no store size reported"
    text = (f"Accuracy with its {intervals(accuracy, one=True)} against {cost.replace('_', ' ')} ({source}); {area}; "
            "the dashed step line is the Pareto front.")
    warned = warnings_of(drawn)
    return Shown("bubble", {"costs": table},
                 partial(plots.bubble, drawn, costs, reference=inputs.reference, cost=cost, size=size,
                         all_systems=inputs.systems, labels=inputs.figure_labels),
                 caption(text, warned), warned, labels=inputs.labels)


def _ingestion(inputs: Inputs) -> Shown:
    log = inputs.ingestion_log
    if log is None:
        raise Unavailable("ingestion", "no ingestion log was given (ingestion_log=, --ingestion-log)")
    curve = ingestion_curve(log)
    reference = inputs.reference if inputs.reference in set(curve["system"]) else None
    table = ingestion(log, reference=reference)
    text = "Cumulative sequential ingestion time per system, item by item; each line ends with the system's total."
    warned = warnings_of(table)
    return Shown("ingestion", {"ingestion": table},
                 partial(plots.ingestion, with_warnings(curve, warned), reference=inputs.reference,
                         all_systems=inputs.systems or None, labels=inputs.figure_labels),
                 caption(text, warned), warned, labels=inputs.labels)


register(View(
    "bubble", "accuracy against cost per query, area by memory-store size (equal without one), Pareto front",
    _bubble,
    (Parameter("cost", None, "cost on x: a systems-table column, else a per-query cost of the verdicts (default: "
                             "tokens_per_query, total_tokens, cost_usd of the table, else the verdicts' tokens or "
                             "latency)"),
     Parameter("size", None, "store-size column of the systems table (default: store_tokens, else store_size, else "
                             "equal bubbles)")),
    needs=("verdicts", "systems_table"), options=("design", "inference", "n_resamples", "seed", "confidence_level")))
register(View("ingestion", "cumulative ingestion time of each system, from an ingestion log", _ingestion,
              needs=("ingestion_log",), options=()))
