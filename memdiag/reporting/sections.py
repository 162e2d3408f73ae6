"""The report's sections: what each one computes from the verdicts, in the order they appear
(SPEC §1–§8; ARCHITECTURE: ``report/``).

Every section is a function of the shared :class:`_Context` returning a :class:`Section` — a
title, one sentence saying what it shows, its tables and figures, or the one line saying why the
data cannot support it. :data:`SECTIONS` fixes their order. Sections compute; they never write.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from memdiag import plots
from memdiag.analyses.augmentation import augmentation, augmented_pairs
from memdiag.analyses.clusters import cluster_accuracy
from memdiag.analyses.compare import bootstrap, compare, omnibus
from memdiag.analyses.costs import (
    cost_ratios,
    cost_values,
    costs,
    quantities_of,
    system_costs,
)
from memdiag.analyses.evidence import (
    evidence,
    evidence_length,
    evidence_tests,
    path_given_result,
)
from memdiag.analyses.flows import flows
from memdiag.analyses.ingestion import ingestion, ingestion_curve
from memdiag.analyses.power import comparison_power
from memdiag.analyses.replay import replay
from memdiag.analyses.scoring import score
from memdiag.analyses.sensitivity import sensitivity
from memdiag.analyses.store_gap import store_gap
from memdiag.analyses.writes import write_audit
from memdiag.audit import audit_independence, leaderboard, rank_stability
from memdiag.audit.claims import _audit_claims as claims_audit
from memdiag.core.notes import with_code
from memdiag.engine.options import NO_RESAMPLING, Options
from memdiag.errors import VerdictError
from memdiag.io.canonical import check
from memdiag.io.claims import read_claims
from memdiag.measurement.agreement import agreement
from memdiag.panel.prepare import Prepared, prepare
from memdiag.panel.schemes import Scheme
from memdiag.panel.validate import validate
from memdiag.plots._jobs import Draw, FigureJobs
from memdiag.reporting.notes import condensed
from memdiag.reporting.provenance import Settings, _file_hash

#: Per-system cost columns a systems table may carry, in order of preference.
SYSTEM_COSTS: tuple[str, ...] = ("tokens_per_query", "total_tokens", "cost_usd")
#: Memory-store size columns a systems table may carry (bubble area).
STORE_SIZES: tuple[str, ...] = ("store_tokens", "store_size")


# --------------------------------------------------------------------------------------------
# what a report is made of
# --------------------------------------------------------------------------------------------
@dataclass
class Section:
    """One section: a title, one sentence saying what it shows, tables and figures — or the one
    line saying why it is omitted."""

    key: str
    title: str
    sentence: str = ""
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    figures: dict[str, tuple[Draw, str]] = field(default_factory=dict)  # drawing function, caption
    omitted: str | None = None
    replay: pd.DataFrame | None = None  # per-query replay of the flows (replay/ in the report folder)


@dataclass
class Analysis:
    """A computed report: its sections, the provenance written to analysis.json, and its figures
    (drawn and rendered in worker processes since their section was computed)."""

    sections: list[Section]
    provenance: dict
    signature: dict  # the report-wide provenance keys printed in every signature line
    figures: FigureJobs = field(default_factory=FigureJobs)
    labels: dict[str, str] = field(default_factory=dict)  # short names of the figures and the tables for people


@dataclass
class _Context:
    """What every section reads: the verdicts as read, the data prepared once (scheme selection,
    alignment, design), the settings and the side inputs."""

    df: pd.DataFrame
    prepared: Prepared
    settings: Settings
    systems_table: pd.DataFrame | None
    claims: pd.DataFrame | str | None
    write_log: pd.DataFrame | None
    accuracy: pd.DataFrame | None = None
    ingestion_log: pd.DataFrame | None = None
    labels: dict[str, str] = field(default_factory=dict)  # short names the figures draw

    @property
    def figure_labels(self) -> dict[str, str] | None:
        """The aliases for ``labels=`` of the plots (None: each figure shortens the names itself)."""
        return self.labels or None

    @property
    def scheme(self) -> Scheme | None:
        """The benchmark scheme of the analysis."""
        return self.prepared.scheme

    @property
    def selected(self) -> pd.DataFrame:
        """The verdict rows the scheme keeps (before alignment)."""
        return self.prepared.frame

    @property
    def systems(self) -> tuple[str, ...]:
        """The aligned systems."""
        return self.prepared.systems

    @property
    def design(self) -> str:
        """The resampling design of every interval and bootstrap test."""
        return self.prepared.design

    @property
    def options(self) -> Options:
        """The report's :class:`memdiag.Options` for every converted diagnostic: the design is the
        prepared data's (None here), the rest the settings."""
        s = self.settings
        return Options(inference=s.inference, n_resamples=s.n_resamples, seed=s.seed,
                       confidence_level=s.confidence_level, correction=s.correction)

    @property
    def policies(self) -> dict:
        """The alignment policies."""
        return {"missing": self.settings.missing, "verdict_missing": self.settings.verdict_missing}


TABLE_TITLES: dict[str, str] = {
    "inputs": "Input files", "validation": "Validation summary",
    "failed_clusters": "Clusters a run answers all wrong (or all right)", "scores": "Official scores",
    "accuracy": "Accuracy with paired bootstrap intervals", "flows": "Benefit and tax flows",
    "flows_by_category": "Benefit and tax flows by category", "pairwise": "Pairwise differences",
    "pairwise_vs_reference": "Differences from the reference",
    "omnibus": "Omnibus test", "rank_stability": "Rank stability",
    "power": "Smallest difference each comparison with the reference can detect",
    "path_retention": "Path retention given the result, P(path | result)",
    "independence": "Pairwise conclusions: queries as independent vs the cluster design",
    "evidence": "Coverage, utilization and the accuracy decomposition",
    "evidence_omnibus": "Evidence omnibus tests", "evidence_pairs": "Evidence pairwise tests",
    "evidence_length": "Evidence length", "costs": "Cost and accuracy",
    "augmentation": "Source augmentation: queries answered by the reference, the memory system and both",
    "sensitivity": "Parameter sensitivity: each setting against the default",
    "store_gap": "Native retrieval, complete store and raw evidence",
    "cost_summary": "Cost and latency per query", "cost_ratios": "Cost ratios to the reference",
    "system_costs": "System-level costs", "ingestion": "Sequential ingestion time",
    "agreement": "Judge agreement", "write_audit": "Write-action audit", "claims": "Claims audit",
    "contrasts_by_category": "Differences from the reference within each category",
    "leaderboard": "Leaderboard: tiers tied with the best",
    "judge_corrected": "Judge-error-corrected scores and differences (Rogan–Gladen)",
    "ppi": "Prediction-powered scores and differences (PPI++)",
    "settings_differences": "Differences from the reference within each benchmark",
    "settings_pooled": "Differences pooled across benchmarks, and in how many each system beats the reference",
}

#: Per-(system, query) columns read as human (or gold) 0/1 verdicts on a calibration subset (SPEC §9).
CALIBRATION_LABELS: tuple[str, ...] = ("human_label", "human")


# --------------------------------------------------------------------------------------------
# sections
# --------------------------------------------------------------------------------------------
def _data_section(ctx: _Context) -> Section:
    section = Section("data", "Data and validation",
                      "What was read — files, systems, queries, judge repetitions, missing verdicts "
                      "and pairing problems — before any statistic (SPEC §1).")
    if "source_file" in ctx.df:
        section.tables["inputs"] = _inputs_table(ctx.df)
    validation = validate(ctx.df)
    validation.attrs["notes"] = condensed(validation.attrs.get("notes", []))
    if ctx.labels:  # the short names the figures draw, beside the names
        validation.insert(1, "label", validation["system"].map(ctx.labels))
    section.tables["validation"] = validation
    if ctx.prepared.n_clusters is not None:
        clusters = cluster_accuracy(ctx.prepared, threshold=ctx.settings.threshold)
        if clusters.attrs["flagged"]:
            table = clusters[clusters["flag"] != ""].reset_index(drop=True)
            table.attrs = clusters.attrs
            section.tables["failed_clusters"] = table
            section.sentence += (" Some runs answer whole clusters all wrong (or all right), far from their accuracy "
                                 "elsewhere: " + "; ".join(f"{system} ({len(items)} clusters)" for system, items
                                                           in clusters.attrs["flagged"].items())
                                 + ". Check those runs before reading their comparisons.")
    return section


def _inputs_table(df: pd.DataFrame) -> pd.DataFrame:
    files = sorted(pd.unique(df["source_file"].dropna().astype(str)))
    common = os.path.commonpath([str(Path(f).resolve().parent) for f in files]) if files else ""
    rows = []
    for name in files:
        part = df[df["source_file"] == name]
        path = Path(name)
        rows.append({"file": os.path.relpath(path.resolve(), common) if common else name,
                     "rows": len(part), "systems": ", ".join(sorted(pd.unique(part["system"]))),
                     "sha256": _file_hash(path) if path.is_file() else "(not found)"})
    return pd.DataFrame(rows)


def _scores_section(ctx: _Context) -> Section:
    name = ctx.scheme.name if ctx.scheme else "mean"
    section = Section("scores", "Official scores",
                      f"Each system's official score under the '{name}' aggregation with its group "
                      "scores and counts, and its accuracy with a paired bootstrap interval (SPEC §6, §4).")
    section.tables["scores"] = score(ctx.prepared, options=NO_RESAMPLING)
    ctx.accuracy = bootstrap(ctx.prepared, "accuracy", options=ctx.options)
    section.tables["accuracy"] = ctx.accuracy
    return section


def _flows_section(ctx: _Context) -> Section:
    ref = ctx.settings.reference
    section = Section("flows", f"Memory benefit and tax against {ref}",
                      f"Per system, the queries {ref} misses and the system answers (benefit) and the "
                      f"queries {ref} answers and the system loses (tax), with net = benefit − tax, "
                      "retention, recovery and the test of net ≠ 0 every section uses for a pair (SPEC §2).")
    if len(ctx.systems) < 2:
        return _omit(section, f"the data hold only {ref}: there is no system to compare with it")
    s = ctx.settings
    common = dict(threshold=s.threshold, options=ctx.options)
    table = flows(ctx.prepared, ref, **common)
    section.tables["flows"] = table
    if with_code(table.attrs["notes"], "reference-fails-clusters"):
        section.sentence += (f" Warning: {ref} answers whole clusters all wrong (or all right), so part of every "
                             "benefit (tax) is that run's failure, not memory (see the note under the table).")
    if "category" in ctx.selected and ctx.selected["category"].nunique() > 1:
        section.tables["flows_by_category"] = flows(ctx.prepared, ref, by="category", **common)
    section.replay = replay(ctx.prepared, ref, threshold=s.threshold)
    section.figures["venn"] = (partial(plots.venn, table, all_systems=ctx.systems, labels=ctx.figure_labels),
                               f"Benefit / tax Venn diagrams of every system against {ref}; the title "
                               "gives the net count and the net rate with its interval.")
    return section


def _compare_section(ctx: _Context) -> Section:
    section = Section("compare", "Pairwise tests, omnibus and ranking",
                      "Every pairwise accuracy difference with its paired interval and "
                      f"{ctx.settings.correction}-adjusted p-value, one test of 'all systems equal', "
                      "how often each system ranks first across bootstrap replicates, and the smallest "
                      "difference from the reference each comparison could detect (SPEC §4–§5, §4.1).")
    if len(ctx.systems) < 2:
        return _omit(section, "a comparison needs at least two systems")
    s = ctx.settings
    pairs = compare(ctx.prepared, pairs="all", options=ctx.options)
    section.tables["pairwise"] = pairs
    section.tables["omnibus"] = omnibus(ctx.prepared, options=ctx.options)
    section.tables["rank_stability"] = rank_stability(ctx.prepared, options=ctx.options)
    versus = compare(ctx.prepared, pairs="reference", reference=s.reference, options=ctx.options)
    section.tables["pairwise_vs_reference"] = versus
    section.tables["power"] = comparison_power(versus, alpha=0.05, power=0.8)
    section.figures["forest"] = (partial(plots.forest, versus, reference=s.reference, all_systems=ctx.systems,
                                         labels=ctx.figure_labels),
                                 f"Accuracy difference of every system from {s.reference} with its "
                                 "interval; filled markers are significant after adjustment over the "
                                 f"comparisons with {s.reference}.")
    if _matrix_fits(ctx.systems, "matrix"):
        section.figures["matrix"] = (partial(plots.matrix, pairs, systems=ctx.systems, labels=ctx.figure_labels),
                                     "Every pairwise accuracy difference (row − column, points) with its "
                                     "interval; * marks p < 0.05 for the comparison (as its interval), "
                                     "bold an adjusted p < 0.05 over all pairs.")
    return section


def _matrix_fits(systems: Sequence[str], name: str) -> bool:
    """Whether the matrix figure ``name`` can be drawn for ``systems``; if not, a warning (the
    report lists it) says it is left out and why, instead of a figure of hundreds of MiB."""
    from memdiag.plots.matrix import max_matrix_systems

    if len(systems) <= max_matrix_systems():
        return True
    warnings.warn(f"figure {name} left out: it draws at most {max_matrix_systems()} systems (the matrix limit; "
                  f"set MEMDIAG_MAX_MATRIX_SYSTEMS to raise it), the data have {len(systems)}; the tables hold "
                  "every pair.", RuntimeWarning, stacklevel=2)
    return False


def _clustering_section(ctx: _Context) -> Section:
    section = Section("clustering", "Clustered queries: which iid conclusions survive",
                      "Queries that share a conversation or an episode are not independent: a system can do "
                      "unusually well on one conversation. Every pairwise comparison is done twice — the "
                      "published way, treating queries as independent (exact McNemar, percentile intervals, "
                      f"{ctx.settings.correction} over the pairs), and under the cluster design this report "
                      "uses (SPEC §4.1) — and each pair says whether its iid conclusion survives.")
    if (ctx.prepared.n_clusters or 0) < 2:
        return _omit(section, "the queries carry no cluster (conversation, episode, persona): they are analysed "
                              "as independent")
    if len(ctx.systems) < 2:
        return _omit(section, "a comparison needs at least two systems")
    table = audit_independence(ctx.prepared, pairs="all", options=ctx.options)
    a = table.attrs
    section.sentence += (f" Here {a['n_survive']} of the {a['n_significant_iid']} pairs that are significant at "
                         f"{a['alpha']:g} when queries are treated as independent stay significant with "
                         f"{ctx.prepared.n_clusters} clusters.")
    section.tables["independence"] = table
    return section


def _groups_section(ctx: _Context) -> Section:
    ref = ctx.settings.reference
    section = Section("groups", "Per-category differences and ties with the best",
                      f"Each system's accuracy difference from {ref} within every category, adjusted within each "
                      "category (one benchmark × metric × category family, the Raw-RAG paper's C.6 task families), "
                      "and a leaderboard whose tiers hold the systems the data cannot tell apart from each tier's "
                      "best, with rank intervals (SPEC §5.6, §5.7).")
    if len(ctx.systems) < 2:
        return _omit(section, "a comparison needs at least two systems")
    if "category" in ctx.selected and ctx.selected["category"].nunique() > 1:
        by_category = compare(ctx.prepared, by="category", pairs="reference", reference=ref, options=ctx.options)
        section.tables["contrasts_by_category"] = by_category
        section.figures["forest_by_category"] = (
            partial(plots.forest, by_category, reference=ref, all_systems=ctx.systems, labels=ctx.figure_labels),
            f"Accuracy difference of every system from {ref} within each category, under a heading with the "
            "category's integer and name; filled markers are significant after adjustment within the category.")
    board = leaderboard(ctx.prepared, options=ctx.options)
    section.tables["leaderboard"] = board
    section.sentence += _rank1_fragility(board)
    return section


def _rank1_fragility(board: pd.DataFrame) -> str:
    """One sentence: how many clusters' removal takes first place from the best system (SPEC §10.3)."""
    top = board[board["removal_rank1"].notna()] if "removal_rank1" in board else board.iloc[:0]
    if top.empty:
        return ""
    row = top.iloc[0]
    k = int(row["removal_rank1"])
    if k < 0:
        return f" No removal of clusters lets another system tie {row['system']} (SPEC §10.3)."
    return (f" Removing {k} cluster{'s' if k != 1 else ''} lets {row['rank1_challenger']} tie or pass "
            f"{row['system']}, the best system (SPEC §10.3; the columns flips_* and removal_* give each system's "
            "fragility against its leader).")


def _evidence_section(ctx: _Context) -> Section:
    section = Section("evidence", "Evidence diagnostics",
                      "How often each system retrieves sufficient evidence (coverage), how often it "
                      "answers correctly when it does (utilization), how accuracy splits between the "
                      "two, and how long the evidence is (SPEC §3, §7; Raw-RAG paper C.1, A.5.1, Table 20).")
    if "evidence_tokens" in ctx.selected and ctx.selected["evidence_tokens"].notna().any():
        section.tables["evidence_length"] = evidence_length(ctx.prepared)
    if all(c in ctx.selected and ctx.selected[c].notna().any() for c in ("result_covered", "path_covered")):
        section.tables["path_retention"] = path_given_result(ctx.prepared, allow_inconsistent=True,
                                                             options=ctx.options)
    labelled = _labelled_systems(ctx.selected)
    if not labelled:
        if section.tables:
            return section
        return _omit(section, "the verdicts carry no 'sufficient' (evidence sufficiency) labels and no "
                              "'evidence_tokens'")
    labelled_data = ctx.prepared.restrict(labelled)
    table = evidence(labelled_data, options=ctx.options)
    if len(labelled) < len(ctx.systems):
        table.attrs["notes"] = table.attrs["notes"] + [
            f"systems without any 'sufficient' label left out: "
            f"{', '.join(s for s in ctx.systems if s not in labelled)}"]
    section.tables["evidence"] = table
    if len(labelled) >= 2:
        pairs, tests = evidence_tests(labelled_data, options=ctx.options)
        section.tables["evidence_omnibus"] = tests
        section.tables["evidence_pairs"] = pairs
        if _matrix_fits(labelled, "evidence_matrix"):
            section.figures["evidence_matrix"] = (
                partial(plots.matrix, _metric_rows(pairs, "coverage"), _metric_rows(pairs, "utilization"),
                        systems=labelled, labels=ctx.figure_labels),
                "Pairwise coverage differences (upper triangle) and utilization differences (lower "
                "triangle), row − column in points, each triangle on its own colour scale; * marks "
                "p < 0.05 for the comparison (as its interval), bold an adjusted p < 0.05.")
    return section


def _labelled_systems(df: pd.DataFrame) -> list[str]:
    """Systems with a 'sufficient' label for some query (queries without one are left out of the
    evidence diagnostics and counted in their notes, under the label_missing policy)."""
    if "sufficient" not in df:
        return []
    some = df["sufficient"].notna().groupby(df["system"]).any()
    return sorted(some.index[some])


def _metric_rows(pairs: pd.DataFrame, metric: str) -> pd.DataFrame:
    rows = pairs[pairs["metric"] == metric].reset_index(drop=True)
    rows.attrs = {**pairs.attrs, "metric": metric}
    return rows


def _costs_section(ctx: _Context) -> Section:
    section = Section("costs", "Cost and accuracy",
                      "Each system's accuracy (with its interval) against its cost per query, the "
                      "bubble area giving the memory-store size where known, and the Pareto front "
                      "(SPEC §8; Memory Tax review, Figure 1).")
    found = _system_costs(ctx.systems_table) or _query_costs(ctx.selected)
    if found is None:
        return _omit(section, "no cost: give a systems table with tokens_per_query (--systems-table) "
                              "or verdicts with input_tokens/output_tokens, tokens_used or latency_s")
    costs, cost, size, source = found
    table = ctx.accuracy[["system", "estimate", "ci_low", "ci_high"]].merge(costs, on="system")
    table = table[table[cost].notna()].reset_index(drop=True)
    lacking = [s for s in ctx.systems if s not in set(table["system"])]
    if len(table) < 2:
        return _omit(section, f"fewer than two systems have a cost ({source})")
    table.attrs = {"notes": [f"cost: {source}"] + ([f"no cost for {', '.join(lacking)}: not drawn"]
                                                   if lacking else [])}
    section.tables["costs"] = table
    fig = partial(plots.bubble, ctx.accuracy, costs, reference=ctx.settings.reference, cost=cost, size=size,
                  all_systems=ctx.systems, labels=ctx.figure_labels)
    section.figures["bubble"] = (fig, f"Accuracy against {cost.replace('_', ' ')} ({source}); "
                                      "the dashed step line is the Pareto front.")
    return section


def _system_costs(table: pd.DataFrame | None) -> tuple[pd.DataFrame, str, str | None, str] | None:
    """The first per-system cost column of a systems table, with its store-size column."""
    if table is None:
        return None
    cost = next((c for c in SYSTEM_COSTS if c in table), None)
    if cost is None:
        return None
    size = next((c for c in STORE_SIZES if c in table), None)
    columns = ["system", cost] + ([size] if size else [])
    return table[columns].drop_duplicates("system"), cost, size, f"systems table column '{cost}'"


def _query_costs(df: pd.DataFrame) -> tuple[pd.DataFrame, str, None, str] | None:
    """Mean per-query cost per system from the verdicts: tokens if two systems have them, else latency."""
    candidates = []
    token_parts = [c for c in ("input_tokens", "output_tokens") if c in df]
    if token_parts:
        candidates.append(("tokens_per_query", df[token_parts].sum(axis=1, min_count=len(token_parts)),
                           " + ".join(token_parts)))
    for column in ("tokens_used", "latency_s"):
        if column in df:
            candidates.append((f"{column}_per_query", df[column], column))
    for name, values, origin in candidates:
        per_answer = values.groupby([df["system"], df["query_id"]]).mean()
        per_system = per_answer.groupby(level="system").mean()
        if per_system.notna().sum() >= 2:
            frame = per_system.rename(name).reset_index()
            return frame, name, None, f"mean per-query {origin} of the verdicts"
    return None


def _agreement_section(ctx: _Context) -> Section:
    section = Section("agreement", "Judge agreement",
                      "How far the judges (or the judge's repeated verdicts) agree on the same answers: "
                      "pairwise Cohen's κ and Fleiss' κ with intervals, each on the answers every "
                      "compared rater judged (SPEC §7).")
    rows = ctx.selected
    by = "judge" if "judge" in rows and rows["judge"].dropna().nunique() > 1 else "repeat"
    raters = rows.groupby(["system", "query_id"])[by].nunique() if by in rows else pd.Series([1])
    if raters.max() < 2:
        return _omit(section, "one judgment per answer: there are no judge repetitions or judges to compare")
    table = agreement(rows, by=by, threshold=ctx.settings.threshold, options=ctx.options)
    section.tables["agreement"] = table
    return section


def _writes_section(ctx: _Context) -> Section:
    section = Section("writes", "Write-action audit",
                      "How often the memory system proposes an UPDATE or DELETE and how often one "
                      "takes effect, per conversation and overall (SPEC §7; Raw-RAG paper C.2).")
    if ctx.write_log is None:
        return _omit(section, "no memory decision log was given (--write-log)")
    table = write_audit(ctx.write_log)
    section.tables["write_audit"] = table
    section.figures["mutation_rates"] = (partial(plots.mutation_rates, table),
                                         "Proposed and effective mutation rates per conversation, "
                                         "with the decision-weighted means.")
    section.figures["write_actions"] = (partial(plots.write_actions, table),
                                        "The distribution of ADD, UPDATE, DELETE and NONE decisions per "
                                        "conversation and pooled (Raw-RAG paper Figure 2, top).")
    return section


def _claims_section(ctx: _Context) -> Section:
    section = Section("claims", "Claims audit",
                      "Each stated claim recomputed from the verdicts — estimate, interval, test, "
                      "Holm adjustment per family, detectable effect — with a verdict and its reason.")
    if ctx.claims is None:
        return _omit(section, "no claims file was given (--claims)")
    s = ctx.settings
    claims, inherited = _report_claims(ctx)
    if inherited:
        section.sentence += (f" Claims that name no scheme, benchmark or design are checked as the rest of the "
                             f"report ({inherited}), so a pair's numbers are those of the other sections.")
    # each claim's own rows under the report's policies (verdicts of several benchmarks may share ids)
    table = claims_audit(ctx.df, claims, opts=ctx.options,
                         policies={**ctx.policies, "cluster_missing": s.cluster_missing})
    table.attrs["design"] = None  # each claim states its own design (column 'design')
    section.tables["claims"] = table
    section.sentence += _claims_fragility(table)
    return section


def _claims_fragility(table: pd.DataFrame) -> str:
    """One sentence: the supported claim overturned by the fewest verdict flips, or (graded scores,
    no flips to count) by the fewest removed clusters (SPEC §10.3)."""
    if "flips_significance" not in table:
        return ""
    supported = table[table["verdict"] == "supported"]
    held = supported[supported["flips_significance"].notna() & (supported["flips_significance"] >= 0)]
    if held.empty:
        removed = supported[supported["removal_significance"].notna() & (supported["removal_significance"] > 0)]
        if removed.empty:
            return ""
        row = removed.sort_values("removal_significance", kind="stable").iloc[0]
        k = int(row["removal_significance"])
        return (f" The most fragile supported claim, {row['id']}, loses significance when {k} cluster"
                f"{'s are' if k != 1 else ' is'} removed (SPEC §10.3; columns removal_*).")
    row = held.sort_values("flips_significance", kind="stable").iloc[0]
    k = int(row["flips_significance"])
    removal = row["removal_significance"]
    tail = (f", or {int(removal)} removed cluster{'s' if removal != 1 else ''}" if pd.notna(removal) and removal > 0
            else "")
    return (f" The most fragile supported claim, {row['id']}, loses significance after {k} verdict "
            f"flip{'s' if k != 1 else ''}{tail} (SPEC §10.3; columns flips_* and removal_*).")


def _augmentation_section(ctx: _Context) -> Section:
    ref = ctx.settings.reference
    section = Section("augmentation", "Source augmentation",
                      f"For each memory system also run with raw history added to its retrieval (named "
                      f"<system>+raw), which queries {ref}, the memory system and the augmented system answer: "
                      "the tax augmentation repairs, the benefit it keeps (Memory Tax review, source "
                      "augmentation; SPEC §8).")
    pairs = [pair for pair in augmented_pairs(ctx.systems) if ref not in pair]
    if not pairs:
        return _omit(section, "no system is named <memory>+raw (or +source) beside its memory system")
    tables = []
    for k, (memory, augmented) in enumerate(pairs):
        table = augmentation(ctx.prepared, memory, reference=ref, augmented=augmented,
                             threshold=ctx.settings.threshold)
        name = "venn3" if k == 0 else f"venn3_{k + 1}"
        section.figures[name] = (partial(plots.venn3, table, all_systems=ctx.systems),
                                 f"Queries answered by {ref}, {memory} and {augmented}: each region's count and "
                                 f"share; below, the tax of {memory} without and with augmentation.")
        tables.append(table.assign(memory_system=memory, augmented_system=augmented))
    out = pd.concat(tables, ignore_index=True)[["memory_system", "augmented_system", *tables[0].columns[:-2]]]
    out.attrs = {k: v for k, v in tables[0].attrs.items() if k not in ("systems", "flows")}
    out.attrs["notes"] = list(dict.fromkeys(n for t in tables for n in t.attrs["notes"]))
    section.tables["augmentation"] = out
    return section


def _sweep(systems: tuple[str, ...], reference: str) -> tuple[str, str, list[str]] | None:
    """``(parameter, default value, runs)`` when the reference is one setting of a parameter sweep:
    it is named ``[system ]PARAM=VALUE`` and at least two other runs of the same system name the
    same parameter (``runs``: the reference and those)."""
    pattern = re.compile(r"^(?P<system>(?:.*?[\s:@/]+)?)(?P<parameter>[A-Za-z_][\w.-]*)=(?P<value>\S+)$")
    match = pattern.match(reference)
    if match is None:
        return None
    runs = [s for s in systems if (m := pattern.match(s)) and m["system"] == match["system"]
            and m["parameter"] == match["parameter"]]
    return (match["parameter"], match["value"], runs) if len(runs) >= 3 else None


def _sensitivity_section(ctx: _Context) -> Section:
    section = Section("sensitivity", "Parameter sensitivity",
                      "Each setting of a swept parameter (runs named PARAM=VALUE) against the default setting — "
                      "the reference — with paired intervals, and the score of each setting (Raw-RAG paper "
                      "Figure 4, C.6).")
    found = _sweep(ctx.systems, ctx.settings.reference)
    if found is None:
        return _omit(section, "no parameter sweep: name the runs PARAM=VALUE (e.g. final_k=5) and make the "
                              "default setting the reference")
    parameter, default, runs = found
    # the sweep's runs, each prepared again with the report's data choices, under the report's design
    table = sensitivity(ctx.prepared.restrict(runs), parameter=parameter, default=default,
                        options=ctx.options.replace(design=ctx.design))
    section.tables["sensitivity"] = table
    section.figures["sensitivity"] = (partial(plots.sensitivity, table, parameter=parameter, default=table.attrs["default"]),
                                      f"Score of each {parameter} setting (top) and its difference from the default "
                                      f"{parameter} = {default} with paired intervals (bottom).")
    return section


def _store_gap_section(ctx: _Context) -> Section:
    section = Section("store_gap", "Native retrieval, complete store and raw evidence",
                      "Per memory system, its score with its own retrieval (native), with selection over "
                      "everything it stored (complete store) and the shared raw-evidence control: how much "
                      "better access recovers and the gap that remains (Raw-RAG paper §5.3, Figure 5, "
                      "Table 29).")
    table = ctx.systems_table
    if table is None or "variant" not in table or not table["variant"].notna().any():
        return _omit(section, "the systems table tags no runs by variant (native, complete, raw)")
    gap = store_gap(ctx.prepared, table, options=ctx.options)
    section.tables["store_gap"] = gap
    section.figures["store_gap"] = (partial(plots.store_gap, gap, all_systems=ctx.systems),
                                    "Native (hollow) and complete-store (filled) scores per memory system, the "
                                    "raw-evidence control (grey), and the paired differences C − N and R − C.")
    return section


def _efficiency_section(ctx: _Context) -> Section:
    section = Section("efficiency", "Cost and latency",
                      "Per-query latency and tokens with mean, median and P95, the cost per correct answer, "
                      "ratios to the reference (speed-ups), system-level costs of whole runs and the cumulative "
                      "ingestion time (Raw-RAG paper Table 6, Table 32, Figure 1 right).")
    ref, s = ctx.settings.reference, ctx.settings
    present = quantities_of(ctx.prepared)
    if present:
        section.tables["cost_summary"] = costs(ctx.prepared, quantities=present, threshold=s.threshold,
                                               options=ctx.options)
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
        curve = ingestion_curve(ctx.ingestion_log)
        known = set(curve["system"])
        section.tables["ingestion"] = ingestion(ctx.ingestion_log, reference=ref if ref in known else None)
        section.figures["ingestion"] = (partial(plots.ingestion, curve, reference=ref, all_systems=ctx.systems),
                                        "Cumulative sequential ingestion time per system, item by item; each line "
                                        "ends with the system's total.")
    if not section.tables:
        return _omit(section, "no per-query cost (latency_s, input_tokens, output_tokens, evidence_tokens, "
                              "tokens_used, ...), systems table or ingestion log (--ingestion-log)")
    return section


def _shared_with(values, column: int) -> bool:
    """Whether some other system has a value on a query where system ``column`` has one."""
    have = ~pd.isna(values)
    others = have & have[:, [column]]
    others[:, column] = False
    return bool(others.any())
def _report_claims(ctx: _Context) -> tuple[pd.DataFrame | str, str]:
    """The claims, those without a scheme (benchmark) or design given the report's, and what was given."""
    scheme, design = ctx.scheme, ctx.settings.design
    if (scheme is None and design is None) or ctx.claims is None:
        return ctx.claims, ""
    claims = read_claims(ctx.claims)
    given = []
    name = None if scheme is None else (
        scheme.name if scheme.origin == "built-in" else scheme.origin if Path(scheme.origin).is_file() else None)
    if name is not None:  # a scheme given as a mapping cannot be named in a claim
        open_ = claims["scheme"].isna() & claims["benchmark"].isna()
        claims.loc[open_, "scheme"] = name
        given += [f"scheme {scheme.name}"] if open_.any() else []
    if design is not None:
        open_ = claims["design"].isna()
        claims.loc[open_, "design"] = design
        given += [f"design {design}"] if open_.any() else []
    return claims, ", ".join(given)


def _judge_error_section(ctx: _Context) -> Section:
    section = Section("judge_error", "Judge error: corrected scores and differences",
                      "Each score and each difference from the reference corrected for the judge's errors "
                      "measured on a human-labelled calibration subset, beside the judged number (SPEC §9).")
    label = next((c for c in CALIBRATION_LABELS if c in ctx.prepared.panel.matrices), None)
    if label is None:
        return _omit(section, "no calibration labels (a 'human_label' column of 0/1 human verdicts on some answers)")
    from memdiag.measurement.judge_error import judge_corrected, ppi

    given = {"label": label, "reference": ctx.settings.reference, "options": ctx.options}
    corrected, powered = judge_corrected(ctx.prepared, **given), ppi(ctx.prepared, **given)
    section.tables["judge_corrected"], section.tables["ppi"] = corrected, powered
    first = corrected.iloc[0]
    changed = [n for table in (corrected, powered) for n in table.attrs["notes"]
               if getattr(n, "code", "") == "judge-error-changes-conclusion"]
    what = ("; ".join(dict.fromkeys(str(n) for n in changed)) if changed
            else "no difference from the reference changes its conclusion")
    section.sentence += (f" The judge's sensitivity is {100 * first['sensitivity']:.1f}% and its specificity "
                         f"{100 * first['specificity']:.1f}% on {int(first['n_correct'] + first['n_incorrect'])} "
                         f"labelled answers; {what}.")
    return section


def _settings_section(ctx: _Context) -> Section:
    section = Section("settings", "Across settings: pooled differences and the u-of-N count",
                      "Each system's paired difference from the reference within each benchmark, pooled by a "
                      "random-effects meta-analysis (REML τ², Hartung–Knapp–Sidik–Jonkman interval below 10 "
                      "settings, prediction interval for a new setting), and the number of benchmarks in which "
                      "it beats the reference by a partial-conjunction test at family-wise α (SPEC §10.1–§10.2).")
    rows = ctx.selected
    benchmarks = rows["benchmark"].dropna().unique() if "benchmark" in rows else ()
    if len(benchmarks) < 2:
        return _omit(section, "one setting: the data carry no 'benchmark' column with two or more benchmarks")
    from memdiag.analyses.overview import prepare_settings
    from memdiag.synthesis.settings import pool_settings, setting_differences

    s = ctx.settings
    schemes = dict.fromkeys(map(str, benchmarks))
    diffs = setting_differences(prepare_settings(rows, schemes=schemes, **ctx.policies), reference=s.reference,
                                schemes=schemes, options=ctx.options.replace(design=s.design))
    pooled = pool_settings(diffs, confidence_level=s.confidence_level)
    if diffs["model"].fillna("").eq("").all():
        diffs = diffs.drop(columns="model")
    section.tables["settings_differences"], section.tables["settings_pooled"] = diffs, pooled
    beating = pooled[pooled["beats_in"] > 0].sort_values("beats_in", ascending=False, kind="stable")
    counts = ("; ".join(f"{r.system} in at least {int(r.beats_in)} of {int(r.n_settings)}" for r in beating.itertuples())
              if len(beating) else "none in any")
    section.sentence += (f" Over {len(benchmarks)} benchmarks, the systems shown to beat {s.reference} (partial "
                         f"conjunction, Bonferroni-combined, α = {1 - s.confidence_level:.2g}): {counts}. A count of "
                         "benchmarks where a system merely scores higher is no test.")
    return section


def _omit(section: Section, why: str) -> Section:
    section.omitted = why
    return section


SECTIONS: tuple[Callable[[_Context], Section], ...] = (
    _data_section, _scores_section, _flows_section, _augmentation_section, _compare_section, _sensitivity_section,
    _clustering_section, _groups_section, _evidence_section, _store_gap_section, _costs_section, _efficiency_section,
    _agreement_section, _writes_section, _claims_section, _judge_error_section, _settings_section,
)


# --------------------------------------------------------------------------------------------
# the context every section reads
# --------------------------------------------------------------------------------------------
def _context(df: pd.DataFrame, settings: Settings, scheme: Scheme | None, systems_table, claims,
             write_log, ingestion_log=None) -> tuple[_Context, str, int]:
    """Check the inputs, resolve the design and build the context; fails before any output.

    Returns the context, why the design was chosen, and the number of aligned queries.
    """
    df = check(df)
    systems = tuple(sorted(pd.unique(df["system"])))
    if settings.reference not in systems:
        raise VerdictError(f"reference '{settings.reference}' is not in the data (systems: "
                           f"{', '.join(systems)}). Choose one with --reference.")
    prepared = prepare(df, scheme=scheme, missing=settings.missing, verdict_missing=settings.verdict_missing,
                       design=settings.design, judges=settings.judges, label_missing=settings.label_missing,
                       cluster_missing=settings.cluster_missing)
    ctx = _Context(df, prepared, settings, systems_table, claims, write_log, ingestion_log=ingestion_log)
    return ctx, prepared.design_reason, prepared.n


def _interval_policy(ctx: _Context) -> str:
    """How intervals and tests are made for the report's design (SPEC §4.1 rule)."""
    from memdiag.engine.inference.rule import method_of

    s, design = ctx.settings, ctx.prepared.resampling
    kind = method_of(design, s.inference)
    if kind == "percentile":
        return (f"{s.confidence_level:.0%} percentile intervals from B = {s.n_resamples} paired replicates "
                "(shared across systems)")
    how = "cluster jackknife" if kind == "jackknife" else "CR2 (Bell–McCaffrey)"
    return (f"{s.confidence_level:.0%} {how} t intervals with {design.n_units} clusters and wild cluster bootstrap "
            f"tests (B = {s.n_resamples} draws where sampled)")


def _one_number_line(ctx: _Context) -> str:
    """How the sections that show a pair agree (SPEC §2, §4): the same difference, interval and
    test from the same replicates; with scores that are not 0/1, the flows' binary outcomes are
    another statistic than the mean scores the other sections compare."""
    line = ("one number per pair: every section that shows two systems side by side (flows, pairwise differences, "
            "the forest plot and matrix, the clustered-queries table, the claims) gives them the same difference, "
            "interval and test (above), drawn from the same replicates of that pair; only the adjusted p differs, "
            "with its family")
    scores = ctx.prepared.panel.scores
    if np.isin(scores[~np.isnan(scores)], (0.0, 1.0)).all():
        return line
    return (line + f"; these scores are not all 0/1 (repeated or graded judgments), so the flows, which count a "
            f"query correct when its score > {ctx.settings.threshold}, are a statistic of their own: a flow's net "
            "rate differs from the accuracy difference of the other sections")


def _policies(ctx: _Context, why: str, n_queries: int) -> list[str]:
    s = ctx.settings
    lines = [f"{why}; {_interval_policy(ctx)}, seed {s.seed}",
             f"{n_queries} aligned queries; missing queries: {s.missing}; missing verdicts: "
             f"{s.verdict_missing}; queries without a label: {s.label_missing} (per diagnostic); queries without "
             f"a cluster label: {s.cluster_missing}"
             + (f"; judges: {s.judges}" if s.judges else ""),
             f"flows: a query is correct when its score (mean over judge repetitions) > {s.threshold}",
             "accuracy: the mean per-query score"
             + (f" under the '{ctx.scheme.name}' aggregation" if ctx.scheme else ""),
             f"multiplicity: {s.correction} within each family (all pairs of one metric; the systems "
             "against one reference; the claims of one family)",
             _one_number_line(ctx)]
    if ctx.scheme is not None:
        lines += [f"{n['policy']}: {n['detail']}" for n in ctx.selected.attrs.get("scheme_notes", [])]
    return lines
