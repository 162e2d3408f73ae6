"""The report's sections on evidence and cost: coverage and utilization, native vs complete store vs
raw evidence, the cost–accuracy plane, and cost and latency (SPEC §3, §7, §8; Raw-RAG paper
Tables 6, 20, 29, 32, Figures 1 and 5).
"""

from __future__ import annotations

import pandas as pd

from memdiag.analyses.costs import (
    cost_ratios,
    cost_values,
    costs,
    quantities_of,
    system_costs,
)
from memdiag.analyses.evidence import evidence, evidence_length, path_given_result
from memdiag.reporting.context import Context, Section, omit, with_view
from memdiag.views.compare import labelled_systems


def evidence_section(ctx: Context) -> Section:
    """Coverage, utilization, the accuracy decomposition, path retention, evidence length and the
    evidence tests with their matrix."""
    section = Section("evidence", "Evidence diagnostics",
                      "How often each system retrieves sufficient evidence (coverage), how often it "
                      "answers correctly when it does (utilization), how accuracy splits between the "
                      "two, and how long the evidence is (SPEC §3, §7; Raw-RAG paper C.1, A.5.1, Table 20).")
    if "evidence_tokens" in ctx.selected and ctx.selected["evidence_tokens"].notna().any():
        section.tables["evidence_length"] = evidence_length(ctx.prepared)
    if all(c in ctx.selected and ctx.selected[c].notna().any() for c in ("result_covered", "path_covered")):
        section.tables["path_retention"] = path_given_result(ctx.prepared, allow_inconsistent=True,
                                                             options=ctx.options)
    labelled = labelled_systems(ctx.selected)
    if not labelled:
        if section.tables:
            return section
        return omit(section, "the verdicts carry no 'sufficient' (evidence sufficiency) labels and no "
                             "'evidence_tokens'")
    table = evidence(ctx.prepared.restrict(labelled), options=ctx.options)
    if len(labelled) < len(ctx.systems):
        table.attrs["notes"] = table.attrs["notes"] + [
            f"systems without any 'sufficient' label left out: "
            f"{', '.join(s for s in ctx.systems if s not in labelled)}"]
    section.tables["evidence"] = table
    if len(labelled) >= 2:
        section.show(ctx.view("evidence-matrix"), "evidence_matrix")
    return section


def store_gap_section(ctx: Context) -> Section:
    """Native retrieval, the complete store and raw evidence, when the systems table tags variants."""
    section = Section("store_gap", "Native retrieval, complete store and raw evidence",
                      "Per memory system, its score with its own retrieval (native), with selection over "
                      "everything it stored (complete store) and the shared raw-evidence control: how much "
                      "better access recovers and the gap that remains (Raw-RAG paper §5.3, Figure 5, "
                      "Table 29).")
    return with_view(ctx, section, "store-gap", "store_gap")


def costs_section(ctx: Context) -> Section:
    """The cost–accuracy bubble chart, when a cost is known."""
    section = Section("costs", "Cost and accuracy",
                      "Each system's accuracy (with its interval) against its cost per query, the "
                      "bubble area giving the memory-store size where known, and the Pareto front "
                      "(SPEC §8; Memory Tax review, Figure 1).")
    return with_view(ctx, section, "bubble", "bubble")


def efficiency_section(ctx: Context) -> Section:
    """Cost and latency per query, ratios to the reference, system-level costs and the ingestion curve."""
    section = Section("efficiency", "Cost and latency",
                      "Per-query latency and tokens with mean, median and P95, the cost per correct answer, "
                      "ratios to the reference (speed-ups), system-level costs of whole runs and the cumulative "
                      "ingestion time (Raw-RAG paper Table 6, Table 32, Figure 1 right).")
    ref = ctx.settings.reference
    present = quantities_of(ctx.prepared)
    if present:
        section.tables["cost_summary"] = costs(ctx.counted, quantities=present, options=ctx.options)
        with_ref = [q for q in present if _shared_with(cost_values(ctx.prepared, q), ctx.systems.index(ref))]
        if with_ref:
            section.tables["cost_ratios"] = cost_ratios(ctx.prepared, quantities=with_ref, reference=ref,
                                                        options=ctx.options)
    if ctx.systems_table is not None:
        numeric = [c for c in ctx.systems_table.columns if c != "system"
                   and pd.api.types.is_numeric_dtype(ctx.systems_table[c])]
        if numeric:
            known = set(ctx.systems_table["system"])
            section.tables["system_costs"] = system_costs(ctx.systems_table, reference=ref if ref in known else None,
                                                          columns=numeric)
    if ctx.ingestion_log is not None:
        section.show(ctx.view("ingestion"), "ingestion")
    if not section.tables:
        return omit(section, "no per-query cost (latency_s, input_tokens, output_tokens, evidence_tokens, "
                             "tokens_used, ...), systems table or ingestion log (--ingestion-log)")
    return section


def _shared_with(values, column: int) -> bool:
    """Whether some other system has a value on a query where system ``column`` has one."""
    have = ~pd.isna(values)
    others = have & have[:, [column]]
    others[:, column] = False
    return bool(others.any())
