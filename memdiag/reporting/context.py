"""What a report is made of and what its sections read: sections, the computed analysis, the context
prepared once, the table titles, and the policies said at the top (ARCHITECTURE: ``report/``).

Every section (:mod:`memdiag.reporting.sections`) is a function of the shared :class:`Context`
returning a :class:`Section` — a title, one sentence saying what it shows, its tables and figures,
or the one line saying why the data cannot support it. A section's figures come from the views
(:mod:`memdiag.views`): the same result, figure and caption as ``memdiag plot`` and ``md.plot``.
Texts keep the systems' full names (analysis.json records them); report.md and report.html write
them under their labels when they are rendered.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from memdiag.core.notes import Note
from memdiag.engine.options import Options
from memdiag.errors import VerdictError
from memdiag.io.canonical import check
from memdiag.panel.prepare import Prepared, prepare
from memdiag.panel.schemes import Scheme
from memdiag.plots._jobs import Draw, FigureJobs
from memdiag.plots._reading import alpha_text, level_alpha
from memdiag.reporting.provenance import Settings
from memdiag.views import VIEWS, Inputs, Shown, Unavailable


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
    lines: list[str] = field(default_factory=list)  # statements listed under the sentence (the answers)

    def show(self, shown: Shown, name: str | None = None) -> None:
        """Add a view's tables (those not in the section yet) and its figure (``name``: the file
        name, default the view's), or the warning saying why the figure is left out."""
        for table, frame in shown.tables.items():
            self.tables.setdefault(table, frame)
        if shown.draw is None:
            warnings.warn(shown.left_out, RuntimeWarning, stacklevel=2)
        else:
            self.figures[name or shown.view] = (shown.draw, shown.text)


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
class Context:
    """What every section reads: the verdicts as read, the data prepared once (scheme selection,
    alignment, design), the settings, the side inputs, and the views' inputs built from them."""

    df: pd.DataFrame
    prepared: Prepared
    settings: Settings
    systems_table: pd.DataFrame | None
    claims: pd.DataFrame | str | None
    write_log: pd.DataFrame | None
    ingestion_log: pd.DataFrame | None = None
    labels: dict[str, str] = field(default_factory=dict)  # short names the figures draw
    _inputs: Inputs | None = field(default=None, init=False, repr=False)

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
    def alpha(self) -> float:
        """The significance level of every test and statement: α = 1 − the confidence level."""
        return level_alpha(self.settings.confidence_level)

    @property
    def policies(self) -> dict:
        """The alignment policies."""
        return {"missing": self.settings.missing, "verdict_missing": self.settings.verdict_missing}

    @property
    def inputs(self) -> Inputs:
        """The views' inputs (built once: the results they share are computed once per report)."""
        if self._inputs is None:
            self._inputs = Inputs(self.prepared, self.options, self.settings.reference, self.settings.threshold,
                                  self.labels, self.systems_table, self.write_log, self.ingestion_log,
                                  all_systems=self.systems)
        return self._inputs

    @property
    def counted(self) -> Prepared:
        """The prepared data at the report's threshold (:attr:`Settings.threshold`), for the
        sections that count correct answers (flows, replay, cluster check, cost per correct
        answer, judge agreement); :attr:`prepared` keeps the scores as given for the others."""
        return self.inputs.counted("report")

    def view(self, kind: str, **parameters: object) -> Shown:
        """The view ``kind`` of the report's data (:mod:`memdiag.views`), with the report's defaults."""
        return VIEWS[kind].show(self.inputs, **parameters)


#: The sections that lead the report, before its policies and shared notes.
LEADING: tuple[str, ...] = ("answers",)

TABLE_TITLES: dict[str, str] = {
    "answers": "Each system against the reference",
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


def omit(section: Section, why: str) -> Section:
    """``section`` omitted, with the one line saying why."""
    section.omitted = why
    return section


def with_view(ctx: Context, section: Section, kind: str, name: str | None = None, **parameters: object) -> Section:
    """``section`` showing the view ``kind`` (its tables and its figure, named ``name``), or omitted
    with the reason the data cannot support the view."""
    try:
        shown = ctx.view(kind, **parameters)
    except Unavailable as error:
        return omit(section, error.reason)
    section.show(shown, name)
    return section


def context(df: pd.DataFrame, settings: Settings, scheme: Scheme | None, systems_table, claims,
            write_log, ingestion_log=None) -> tuple[Context, str, int]:
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
    ctx = Context(df, prepared, settings, systems_table, claims, write_log, ingestion_log=ingestion_log)
    return ctx, prepared.design_reason, prepared.n


def interval_policy(ctx: Context) -> str:
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


def _one_number_line(ctx: Context) -> str:
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


def policies(ctx: Context, why: str, n_queries: int) -> list[str]:
    """The policies the report says once, at the top: design and intervals, alignment, the flows'
    threshold, the accuracy, multiplicity at α, and one number per pair."""
    s = ctx.settings
    lines = [f"{why}; {interval_policy(ctx)}, seed {s.seed}",
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
    if s.confidence_level != 0.95:  # the tests' level, said where a reader of the defaults expects 0.05
        lines[4] += f"; significance at α = {alpha_text(ctx.alpha)} (1 − the {s.confidence_level:.0%} level)"
    if ctx.scheme is not None:
        lines += [f"{n['policy']}: {n['detail']}" for n in ctx.selected.attrs.get("scheme_notes", [])]
    return lines


def warning_notes(frames: dict[str, pd.DataFrame]) -> list[Note]:
    """The warnings of ``frames`` (notes of severity ``"warning"``), each once, in table order."""
    from memdiag.views.captions import warnings_of

    return list(dict.fromkeys(w for frame in frames.values() for w in warnings_of(frame)))
