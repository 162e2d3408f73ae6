"""The report's sections on pairs of systems: benefit and tax, source augmentation, pairwise tests,
a parameter sweep, clustered queries and per-category differences (SPEC §2, §4–§5, §8, §10.3).
"""

from __future__ import annotations

import pandas as pd

from memdiag.analyses.augmentation import augmented_pairs
from memdiag.analyses.compare import omnibus
from memdiag.analyses.flows import flows
from memdiag.analyses.power import comparison_power
from memdiag.analyses.replay import replay
from memdiag.audit import audit_independence, leaderboard, rank_stability
from memdiag.core.notes import with_code
from memdiag.reporting.context import Context, Section, omit, with_view
from memdiag.views import Unavailable


def flows_section(ctx: Context) -> Section:
    """Memory benefit and tax against the reference, with the Venn panels."""
    ref = ctx.settings.reference
    section = Section("flows", f"Memory benefit and tax against {ref}",
                      f"Per system, the queries {ref} misses and the system answers (benefit) and the "
                      f"queries {ref} answers and the system loses (tax), with net = benefit − tax, "
                      "retention, recovery and the test of net ≠ 0 every section uses for a pair (SPEC §2).")
    try:
        shown = ctx.view("venn")
    except Unavailable as error:
        return omit(section, error.reason)
    table = shown.tables["flows"]
    section.tables["flows"] = table
    if with_code(table.attrs["notes"], "reference-fails-clusters"):
        section.sentence += (f" Warning: {ref} answers whole clusters all wrong (or all right), so part of every "
                             "benefit (tax) is that run's failure, not memory (see the note under the table).")
    if "category" in ctx.selected and ctx.selected["category"].nunique() > 1:
        section.tables["flows_by_category"] = flows(ctx.counted, ref, by="category", options=ctx.options)
    section.replay = replay(ctx.counted, ref)
    section.show(shown, "venn")
    return section


def compare_section(ctx: Context) -> Section:
    """Every pairwise difference, the omnibus test, rank stability, the detectable differences, the
    forest of differences from the reference and the pairwise matrix."""
    section = Section("compare", "Pairwise tests, omnibus and ranking",
                      "Every pairwise accuracy difference with its paired interval and "
                      f"{ctx.settings.correction}-adjusted p-value, one test of 'all systems equal', "
                      "how often each system ranks first across bootstrap replicates, and the smallest "
                      "difference from the reference each comparison could detect (SPEC §4–§5, §4.1).")
    if len(ctx.systems) < 2:
        return omit(section, "a comparison needs at least two systems")
    matrix = ctx.view("matrix")
    section.tables["pairwise"] = matrix.tables["pairwise"]
    section.tables["omnibus"] = omnibus(ctx.prepared, options=ctx.options)
    section.tables["rank_stability"] = rank_stability(ctx.prepared, options=ctx.options)
    forest = ctx.view("forest")
    versus = forest.tables["pairwise_vs_reference"]
    section.tables["pairwise_vs_reference"] = versus
    section.tables["power"] = comparison_power(versus, alpha=ctx.alpha, power=0.8)
    section.show(forest, "forest")
    section.show(matrix, "matrix")
    return section


def augmentation_section(ctx: Context) -> Section:
    """For each memory system also run with raw history added, the three-set Venn diagram."""
    ref = ctx.settings.reference
    section = Section("augmentation", "Source augmentation",
                      f"For each memory system also run with raw history added to its retrieval (named "
                      f"<system>+raw), which queries {ref}, the memory system and the augmented system answer: "
                      "the tax augmentation repairs, the benefit it keeps (Memory Tax review, source "
                      "augmentation; SPEC §8).")
    pairs = [pair for pair in augmented_pairs(ctx.systems) if ref not in pair]
    if not pairs:
        return omit(section, "no system is named <memory>+raw (or +source) beside its memory system")
    tables = []
    for k, (memory, augmented) in enumerate(pairs):
        shown = ctx.view("venn3", memory=memory, augmented=augmented)
        table = shown.tables["augmentation"]
        section.figures["venn3" if k == 0 else f"venn3_{k + 1}"] = (shown.draw, shown.text)
        tables.append(table.assign(memory_system=memory, augmented_system=augmented))
    out = pd.concat(tables, ignore_index=True)[["memory_system", "augmented_system", *tables[0].columns[:-2]]]
    out.attrs = {k: v for k, v in tables[0].attrs.items() if k not in ("systems", "flows")}
    out.attrs["notes"] = list(dict.fromkeys(n for t in tables for n in t.attrs["notes"]))
    section.tables["augmentation"] = out
    return section


def sensitivity_section(ctx: Context) -> Section:
    """A parameter sweep against its default, when the reference is one setting of the sweep."""
    section = Section("sensitivity", "Parameter sensitivity",
                      "Each setting of a swept parameter (runs named PARAM=VALUE) against the default setting — "
                      "the reference — with paired intervals, and the score of each setting (Raw-RAG paper "
                      "Figure 4, C.6).")
    return with_view(ctx, section, "sensitivity")


def clustering_section(ctx: Context) -> Section:
    """Which pairwise conclusions of an analysis that treats queries as independent survive the
    cluster design (SPEC §4.1)."""
    section = Section("clustering", "Clustered queries: which iid conclusions survive",
                      "Queries that share a conversation or an episode are not independent: a system can do "
                      "unusually well on one conversation. Every pairwise comparison is done twice — the "
                      "published way, treating queries as independent (exact McNemar, percentile intervals, "
                      f"{ctx.settings.correction} over the pairs), and under the cluster design this report "
                      "uses (SPEC §4.1) — and each pair says whether its iid conclusion survives.")
    if (ctx.prepared.n_clusters or 0) < 2:
        return omit(section, "the queries carry no cluster (conversation, episode, persona): they are analysed "
                             "as independent")
    if len(ctx.systems) < 2:
        return omit(section, "a comparison needs at least two systems")
    table = audit_independence(ctx.prepared, options=ctx.options)
    a = table.attrs
    section.sentence += (f" Here {a['n_survive']} of the {a['n_significant_iid']} pairs that are significant at "
                         f"{a['alpha']:g} when queries are treated as independent stay significant with "
                         f"{ctx.prepared.n_clusters} clusters.")
    section.tables["independence"] = table
    return section


def groups_section(ctx: Context) -> Section:
    """Per-category differences from the reference (a forest by category) and the leaderboard."""
    ref = ctx.settings.reference
    section = Section("groups", "Per-category differences and ties with the best",
                      f"Each system's accuracy difference from {ref} within every category, adjusted within each "
                      "category (one benchmark × metric × category family, the Raw-RAG paper's C.6 task families), "
                      "and a leaderboard whose tiers hold the systems the data cannot tell apart from each tier's "
                      "best, with rank intervals (SPEC §5.6, §5.7).")
    if len(ctx.systems) < 2:
        return omit(section, "a comparison needs at least two systems")
    if "category" in ctx.selected and ctx.selected["category"].nunique() > 1:
        section.show(ctx.view("forest", by="category"), "forest_by_category")
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
