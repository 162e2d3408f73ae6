"""A whole analysis -> one folder: report.md, a self-contained report.html, figures, tables and
analysis.json (SPEC §1–§8; ARCHITECTURE: ``report.py``).

:func:`report` runs every diagnostic the data support — validation, official scores, memory
benefit and tax against the reference, pairwise tests and the omnibus, rank stability, evidence
diagnostics, the cost–accuracy plane, judge agreement, the write-action audit and the claims
audit — and writes::

    OUT/report.md        sections, each with one sentence saying what it shows, its tables (with
                         their notes and signature line) and figures
    OUT/report.html      the same, self-contained (figures embedded as base64 PNG)
    OUT/figures/         every figure as PDF, SVG and PNG (memdiag.plots.save)
    OUT/tables/          every table as LaTeX booktabs (.tex), .csv and .md (memdiag.tables.render)
    OUT/analysis.json    every number, the memdiag version, input SHA-256 hashes, settings and
                         policies: enough for :func:`report_from_json` to re-run it exactly

The folder is built next to ``OUT`` under a temporary name and renamed at the end, so a failed
run never leaves a folder that looks complete. Nothing in the outputs depends on the clock: the
same inputs and seed give byte-identical tables and analysis.json. :func:`demo` runs the whole
report on the bundled ``data/example``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import sys
import tempfile
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pandas as pd
from jinja2 import Environment
from markupsafe import Markup
from matplotlib.figure import Figure
from tabulate import tabulate
from tqdm import tqdm

from memdiag import __version__, plots
from memdiag._agreement import agreement
from memdiag._audit import audit_claims, rank_stability, read_claims
from memdiag._compare import bootstrap, compare, omnibus
from memdiag._designs import resolve_design
from memdiag.errors import VerdictError
from memdiag._evidence import evidence, evidence_length, evidence_tests
from memdiag._flows import flows
from memdiag._schema import PROVENANCE
from memdiag._schemes import Scheme, get_scheme
from memdiag._scoring import score
from memdiag.tables import display, render, signature
from memdiag._verdicts import align, check, read_verdicts, validate
from memdiag._writes import read_write_log, write_audit

#: Version of the analysis.json layout read by :func:`report_from_json`.
ANALYSIS_FORMAT = 1
#: Bootstrap replicates of :func:`demo` (fast enough on 2 cores: the demo takes well under 60 s).
DEMO_RESAMPLES = 20_000
#: Where the bundled example lives, relative to the package folder (a source checkout).
EXAMPLE = Path(__file__).resolve().parent.parent / "data" / "example"
#: Per-system cost columns a systems table may carry, in order of preference.
SYSTEM_COSTS: tuple[str, ...] = ("tokens_per_query", "total_tokens", "cost_usd")
#: Memory-store size columns a systems table may carry (bubble area).
STORE_SIZES: tuple[str, ...] = ("store_tokens", "store_size")
#: CSS pixels per inch: an embedded figure is shown at its printed size.
CSS_DPI = 96


# --------------------------------------------------------------------------------------------
# what a report is made of
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Settings:
    """Everything besides the inputs that fixes the numbers of a report (recorded in analysis.json)."""

    reference: str
    design: str | None = None
    n_resamples: int = 20_000
    seed: int = 0
    confidence_level: float = 0.95
    correction: str = "holm"
    threshold: float = 0.5
    missing: str = "error"
    verdict_missing: str = "as-wrong"


@dataclass
class Section:
    """One section: a title, one sentence saying what it shows, tables and figures — or the one
    line saying why it is omitted."""

    key: str
    title: str
    sentence: str = ""
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    figures: dict[str, tuple[Figure, str]] = field(default_factory=dict)
    omitted: str | None = None


@dataclass
class Analysis:
    """A computed report: its sections and the provenance written to analysis.json."""

    sections: list[Section]
    provenance: dict
    signature: dict  # the report-wide provenance keys printed in every signature line


@dataclass
class _Context:
    """What every section reads: the verdicts, the scheme's selection, settings and side inputs."""

    df: pd.DataFrame
    selected: pd.DataFrame
    scheme: Scheme | None
    settings: Settings
    design: str
    systems: tuple[str, ...]
    systems_table: pd.DataFrame | None
    claims: pd.DataFrame | str | None
    write_log: pd.DataFrame | None
    accuracy: pd.DataFrame | None = None

    @property
    def resampling(self) -> dict:
        """Keyword arguments shared by every resampled statistic."""
        s = self.settings
        return {"design": self.design, "n_resamples": s.n_resamples, "seed": s.seed}

    @property
    def policies(self) -> dict:
        """Keyword arguments of the alignment policies."""
        return {"missing": self.settings.missing, "verdict_missing": self.settings.verdict_missing}


TABLE_TITLES: dict[str, str] = {
    "inputs": "Input files", "validation": "Validation summary", "scores": "Official scores",
    "accuracy": "Accuracy with paired bootstrap intervals", "flows": "Benefit and tax flows",
    "flows_by_category": "Benefit and tax flows by category", "pairwise": "Pairwise differences",
    "pairwise_vs_reference": "Differences from the reference",
    "omnibus": "Omnibus test", "rank_stability": "Rank stability",
    "evidence": "Coverage, utilization and the accuracy decomposition",
    "evidence_omnibus": "Evidence omnibus tests", "evidence_pairs": "Evidence pairwise tests",
    "evidence_length": "Evidence length", "costs": "Cost and accuracy",
    "agreement": "Judge agreement", "write_audit": "Write-action audit", "claims": "Claims audit",
}


# --------------------------------------------------------------------------------------------
# sections
# --------------------------------------------------------------------------------------------
def _data_section(ctx: _Context) -> Section:
    section = Section("data", "Data and validation",
                      "What was read — files, systems, queries, judge repetitions, missing verdicts "
                      "and pairing problems — before any statistic (SPEC §1).")
    if "source_file" in ctx.df:
        section.tables["inputs"] = _inputs_table(ctx.df)
    section.tables["validation"] = validate(ctx.df)
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
    section.tables["scores"] = score(ctx.df, scheme=ctx.scheme or "mean", **ctx.policies)
    ctx.accuracy = bootstrap(ctx.df, "accuracy", scheme=ctx.scheme,
                             ci=ctx.settings.confidence_level, **ctx.resampling, **ctx.policies)
    section.tables["accuracy"] = ctx.accuracy
    return section


def _flows_section(ctx: _Context) -> Section:
    ref = ctx.settings.reference
    section = Section("flows", f"Memory benefit and tax against {ref}",
                      f"Per system, the queries {ref} misses and the system answers (benefit) and the "
                      f"queries {ref} answers and the system loses (tax), with net = benefit − tax, "
                      "retention, recovery and the exact McNemar test (SPEC §2).")
    if len(ctx.systems) < 2:
        return _omit(section, f"the data hold only {ref}: there is no system to compare with it")
    s = ctx.settings
    common = dict(reference=ref, threshold=s.threshold, confidence_level=s.confidence_level,
                  correction=s.correction, **ctx.resampling, **ctx.policies)
    table = flows(ctx.selected, **common)
    section.tables["flows"] = table
    if "category" in ctx.selected and ctx.selected["category"].nunique() > 1:
        section.tables["flows_by_category"] = flows(ctx.selected, by="category", **common)
    section.figures["venn"] = (plots.venn(table, all_systems=ctx.systems),
                               f"Benefit / tax Venn diagrams of every system against {ref}; the title "
                               "gives the net count and the net rate with its interval.")
    return section


def _compare_section(ctx: _Context) -> Section:
    section = Section("compare", "Pairwise tests, omnibus and ranking",
                      "Every pairwise accuracy difference with its paired interval and "
                      f"{ctx.settings.correction}-adjusted p-value, one test of 'all systems equal', "
                      "and how often each system ranks first across bootstrap replicates (SPEC §4–§5).")
    if len(ctx.systems) < 2:
        return _omit(section, "a comparison needs at least two systems")
    s = ctx.settings
    pairs = compare(ctx.df, scheme=ctx.scheme, pairs="all", confidence_level=s.confidence_level,
                    correction=s.correction, **ctx.resampling, **ctx.policies)
    section.tables["pairwise"] = pairs
    section.tables["omnibus"] = omnibus(ctx.df, scheme=ctx.scheme, **ctx.resampling, **ctx.policies)
    section.tables["rank_stability"] = rank_stability(ctx.df, scheme=ctx.scheme,
                                                      confidence_level=s.confidence_level,
                                                      **ctx.resampling, **ctx.policies)
    versus = compare(ctx.df, scheme=ctx.scheme, pairs="reference", reference=s.reference,
                     confidence_level=s.confidence_level, correction=s.correction, **ctx.resampling,
                     **ctx.policies)
    section.tables["pairwise_vs_reference"] = versus
    section.figures["forest"] = (plots.forest(versus, reference=s.reference, all_systems=ctx.systems),
                                 f"Accuracy difference of every system from {s.reference} with its "
                                 "interval; filled markers are significant after adjustment over the "
                                 f"comparisons with {s.reference}.")
    section.figures["matrix"] = (plots.matrix(pairs, systems=ctx.systems),
                                 "Every pairwise accuracy difference (row − column, points) with its "
                                 "interval; * marks an adjusted p < 0.05.")
    return section


def _evidence_section(ctx: _Context) -> Section:
    section = Section("evidence", "Evidence diagnostics",
                      "How often each system retrieves sufficient evidence (coverage), how often it "
                      "answers correctly when it does (utilization), and how accuracy splits between "
                      "the two (SPEC §3; Raw-RAG paper C.1, A.5.1).")
    labelled = _labelled_systems(ctx.selected)
    if not labelled:
        return _omit(section, "the verdicts carry no complete 'sufficient' (evidence sufficiency) labels")
    common = dict(systems=labelled, **ctx.resampling, **ctx.policies)
    table = evidence(ctx.selected, confidence_level=ctx.settings.confidence_level, **common)
    if len(labelled) < len(ctx.systems):
        table.attrs["notes"] = table.attrs["notes"] + [
            f"systems without complete 'sufficient' labels left out: "
            f"{', '.join(s for s in ctx.systems if s not in labelled)}"]
    section.tables["evidence"] = table
    if len(labelled) >= 2:
        pairs, tests = evidence_tests(ctx.selected, correction=ctx.settings.correction, **common)
        section.tables["evidence_omnibus"] = tests
        section.tables["evidence_pairs"] = pairs
        section.figures["evidence_matrix"] = (
            plots.matrix(_metric_rows(pairs, "coverage"), _metric_rows(pairs, "utilization"),
                         systems=labelled),
            "Pairwise coverage differences (upper triangle) and utilization differences (lower "
            "triangle), row − column in points; * marks an adjusted p < 0.05.")
    if "evidence_tokens" in ctx.selected and ctx.selected["evidence_tokens"].notna().any():
        section.tables["evidence_length"] = evidence_length(ctx.selected)
    return section


def _labelled_systems(df: pd.DataFrame) -> list[str]:
    if "sufficient" not in df:
        return []
    complete = df["sufficient"].notna().groupby(df["system"]).all()
    return sorted(complete.index[complete])


def _metric_rows(pairs: pd.DataFrame, metric: str) -> pd.DataFrame:
    rows = pairs[pairs["metric"] == metric].reset_index(drop=True)
    rows.attrs = {"metric": metric}
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
    fig = plots.bubble(table, table, reference=ctx.settings.reference, cost=cost, size=size,
                       all_systems=ctx.systems)
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
                      "How far the judge's repeated verdicts on the same answers agree: pairwise "
                      "Cohen's κ and Fleiss' κ with intervals (SPEC §7).")
    repeats = ctx.selected.groupby(["system", "query_id"]).size()
    if repeats.max() < 2:
        return _omit(section, "one judgment per answer: there are no judge repetitions to compare")
    s = ctx.settings
    table = agreement(ctx.selected, threshold=s.threshold, verdict_missing=s.verdict_missing,
                      n_resamples=s.n_resamples, seed=s.seed, confidence_level=s.confidence_level)
    table.attrs["design"] = "iid"  # agreement() resamples queries independently
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
    section.figures["mutation_rates"] = (plots.mutation_rates(table),
                                         "Proposed and effective mutation rates per conversation, "
                                         "with the decision-weighted means.")
    return section


def _claims_section(ctx: _Context) -> Section:
    section = Section("claims", "Claims audit",
                      "Each stated claim recomputed from the verdicts — estimate, interval, test, "
                      "Holm adjustment per family, detectable effect — with a verdict and its reason.")
    if ctx.claims is None:
        return _omit(section, "no claims file was given (--claims)")
    s = ctx.settings
    table = audit_claims(ctx.df, ctx.claims, n_resamples=s.n_resamples, seed=s.seed,
                         confidence_level=s.confidence_level, **ctx.policies)
    table.attrs["design"] = None  # each claim states its own design (column 'design')
    section.tables["claims"] = table
    return section


def _omit(section: Section, why: str) -> Section:
    section.omitted = why
    return section


SECTIONS: tuple[Callable[[_Context], Section], ...] = (
    _data_section, _scores_section, _flows_section, _compare_section, _evidence_section,
    _costs_section, _agreement_section, _writes_section, _claims_section,
)


# --------------------------------------------------------------------------------------------
# inputs: reading them, and recording how to read them again
# --------------------------------------------------------------------------------------------
def _file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _data_hash(df: pd.DataFrame) -> str:
    """SHA-256 of the canonical verdicts (provenance columns left out, rows in key order)."""
    canon = check(df).drop(columns=[c for c in PROVENANCE if c in df])
    canon = canon.sort_values(["system", "query_id", "repeat"], kind="mergesort")
    return hashlib.sha256(canon.to_csv(index=False, lineterminator="\n").encode()).hexdigest()


def _records(frame: pd.DataFrame) -> list[dict]:
    return json.loads(render(frame.reset_index(drop=True), "json"))["rows"]


def _verdict_recipe(df: pd.DataFrame, read_options: Mapping | None) -> dict:
    """How to read the verdicts again: files with hashes, per-file system names, read options."""
    recipe: dict = {"data_sha256": _data_hash(df)}
    files = sorted(pd.unique(df["source_file"].dropna().astype(str))) if "source_file" in df else []
    absent = [f for f in files if not Path(f).is_file()]
    if not files or absent:
        recipe["rerun"] = None
        recipe["why_not"] = (f"source file {absent[0]} is not found" if absent else
                             "the verdicts were not read from files (no source_file column)")
        return recipe
    entries, names = [], {}
    for name in files:
        part = df[df["source_file"] == name]
        path = str(Path(name).resolve())
        systems = sorted(pd.unique(part["system"]))
        if len(systems) == 1:
            names[path] = systems[0]
        entries.append({"path": path, "sha256": _file_hash(Path(name)), "rows": len(part),
                        "systems": systems})
    options = dict(read_options or {})
    recipe["rerun"] = {"files": entries, "system": names, "format": options.get("format", "auto"),
                       "fields": options.get("fields")}
    return recipe


def _side_input(value, reader: Callable) -> tuple[pd.DataFrame | None, dict | None]:
    """A side input (systems table, write log) as a frame, and how to get it again."""
    if value is None:
        return None, None
    if isinstance(value, (str, Path)):
        path = Path(value)
        return reader(path), {"path": str(path.resolve()), "sha256": _file_hash(path)}
    frame = pd.DataFrame(value)
    return frame, {"records": _records(frame)}


def _read_systems_table(path: Path) -> pd.DataFrame:
    table = pd.read_csv(path)
    if "system" not in table:
        raise VerdictError(f"{path}: the systems table needs a 'system' column (have: "
                           f"{', '.join(map(str, table.columns))}).")
    table["system"] = table["system"].astype(str)
    return table


def _claims_input(value) -> tuple[pd.DataFrame | str | None, dict | None]:
    if value is None:
        return None, None
    if isinstance(value, (str, Path)):
        read_claims(value)  # fail early, before any statistic, on a bad claims file
        return str(value), {"path": str(Path(value).resolve()), "sha256": _file_hash(Path(value))}
    frame = read_claims(value)
    return frame, {"records": _records(frame)}


def _scheme_input(value) -> tuple[Scheme | None, dict | None]:
    if value is None:
        return None, None
    scheme = get_scheme(value)
    source = value.origin if isinstance(value, Scheme) else value
    if isinstance(source, (str, Path)) and Path(source).is_file():
        return scheme, {"path": str(Path(source).resolve()), "sha256": _file_hash(Path(source))}
    if isinstance(value, Mapping):
        return scheme, {"spec": json.loads(json.dumps(dict(value), default=str))}
    if scheme.origin == "built-in":
        return scheme, {"name": scheme.name}
    return scheme, {"name": scheme.name,
                    "why_not": "the scheme was given as an object: pass its name or file to re-run"}


def _check_hash(recipe: Mapping) -> Path:
    path = Path(recipe["path"])
    if not path.is_file():
        raise VerdictError(f"{path}: no such file. The report was made from it; restore it to re-run.")
    actual = _file_hash(path)
    if actual != recipe["sha256"]:
        raise VerdictError(f"{path}: changed since the report was made (SHA-256 {actual[:12]}… ≠ "
                           f"{recipe['sha256'][:12]}…); re-running would not reproduce the report.")
    return path


# --------------------------------------------------------------------------------------------
# the analysis
# --------------------------------------------------------------------------------------------
def _context(df: pd.DataFrame, settings: Settings, scheme: Scheme | None, systems_table, claims,
             write_log) -> tuple[_Context, str, int]:
    """Check the inputs, resolve the design and build the context; fails before any output.

    Returns the context, why the design was chosen, and the number of aligned queries.
    """
    df = check(df)
    systems = tuple(sorted(pd.unique(df["system"])))
    if settings.reference not in systems:
        raise VerdictError(f"reference '{settings.reference}' is not in the data (systems: "
                           f"{', '.join(systems)}). Choose one with --reference.")
    selected = scheme.select(df) if scheme is not None else df
    panel = align(selected, missing=settings.missing, verdict_missing=settings.verdict_missing)
    design, why = resolve_design(panel.queries, settings.design, scheme)
    ctx = _Context(df, selected, scheme, settings, design, systems, systems_table, claims, write_log)
    return ctx, why, panel.n


def _policies(ctx: _Context, why: str, n_queries: int) -> list[str]:
    s = ctx.settings
    lines = [f"{why}; {s.confidence_level:.0%} percentile intervals from B = {s.n_resamples} paired "
             f"replicates (shared across systems), seed {s.seed}",
             f"{n_queries} aligned queries; missing queries: {s.missing}; missing verdicts: "
             f"{s.verdict_missing}",
             f"flows: a query is correct when its score (mean over judge repetitions) > {s.threshold}",
             "accuracy: the mean per-query score"
             + (f" under the '{ctx.scheme.name}' aggregation" if ctx.scheme else ""),
             f"multiplicity: {s.correction} within each family (all pairs of one metric; the systems "
             "against one reference; the claims of one family)"]
    if ctx.scheme is not None:
        lines += [f"{n['policy']}: {n['detail']}" for n in ctx.selected.attrs.get("scheme_notes", [])]
    return lines


def _analyse(df: pd.DataFrame, settings: Settings, inputs: dict, scheme: Scheme | None,
             systems_table, claims, write_log, bar: tqdm) -> Analysis:
    ctx, why, n_queries = _context(df, settings, scheme, systems_table, claims, write_log)
    signature_attrs = {"scheme": scheme.name if scheme else None, "design": ctx.design,
                       "n_resamples": settings.n_resamples, "seed": settings.seed,
                       "confidence_level": settings.confidence_level,
                       "correction": settings.correction, "threshold": settings.threshold,
                       **ctx.policies}
    sections = []
    with warnings.catch_warnings(record=True) as caught:
        for step in SECTIONS:
            bar.set_postfix_str(step.__name__.strip("_").removesuffix("_section"))
            sections.append(step(ctx))
            bar.update()
    provenance = {
        "memdiag_version": __version__, "analysis_format": ANALYSIS_FORMAT,
        "settings": asdict(settings), "inputs": inputs,
        "design": {"used": ctx.design, "why": why},
        "systems": list(ctx.systems), "n_queries": n_queries,
        "policies": _policies(ctx, why, n_queries),
        "warnings": list(dict.fromkeys(str(w.message) for w in caught)),
    }
    return Analysis(sections, provenance, signature_attrs)


def _bar(steps: int, enabled: bool | None) -> tqdm:
    """A progress bar on stderr, shown when stderr is a terminal (or when ``enabled``)."""
    show = sys.stderr.isatty() if enabled is None else enabled
    return tqdm(total=steps, desc="memdiag report", unit="step", file=sys.stderr, disable=not show,
                leave=False)


def _prepare(df, settings: Settings, scheme, systems_table, claims, write_log,
             read_options: Mapping | None, bar: tqdm) -> Analysis:
    """Read every input, record how to read it again, and run the analysis."""
    if not isinstance(df, pd.DataFrame):
        df = read_verdicts(df, **(read_options or {}))
    scheme_obj, scheme_recipe = _scheme_input(scheme)
    table, table_recipe = _side_input(systems_table, _read_systems_table)
    claims_value, claims_recipe = _claims_input(claims)
    log, log_recipe = _side_input(write_log, read_write_log)
    inputs = {"verdicts": _verdict_recipe(df, read_options), "scheme": scheme_recipe,
              "systems_table": table_recipe, "claims": claims_recipe, "write_log": log_recipe}
    return _analyse(df, settings, inputs, scheme_obj, table, claims_value, log, bar)


# --------------------------------------------------------------------------------------------
# writing
# --------------------------------------------------------------------------------------------
def _with_signature(table: pd.DataFrame, attrs: Mapping) -> pd.DataFrame:
    """The table with the report's settings filling the provenance keys its own attrs lack."""
    out = table.copy()
    out.attrs = {**attrs, **table.attrs}
    return out


def _write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text if text.endswith("\n") else text + "\n")


def _write_tables(analysis: Analysis, folder: Path) -> None:
    for section in analysis.sections:
        for name, table in section.tables.items():
            signed = _with_signature(table, analysis.signature)
            for fmt, suffix in (("latex", "tex"), ("csv", "csv"), ("md", "md")):
                _write_text(folder / "tables" / f"{name}.{suffix}", render(signed, fmt))


def _save_figures(analysis: Analysis, folder: str | Path) -> list[Path]:
    """Write every figure of ``analysis`` into ``folder`` as PDF, SVG and PNG; returns the files."""
    written = []
    for section in analysis.sections:
        for name, (fig, _) in section.figures.items():
            written += plots.save(fig, Path(folder) / name)
    return written


def _analysis_json(analysis: Analysis) -> str:
    sections = []
    for section in analysis.sections:
        tables = {name: json.loads(render(_with_signature(t, analysis.signature), "json"))
                  for name, t in section.tables.items()}
        figures = {name: {"caption": caption, "files": [f"figures/{name}.{x}" for x in ("pdf", "svg", "png")]}
                   for name, (_, caption) in section.figures.items()}
        sections.append({"key": section.key, "title": section.title, "sentence": section.sentence,
                         "omitted": section.omitted, "tables": tables, "figures": figures})
    document = {**analysis.provenance, "sections": sections}
    return json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False)


def _summary(analysis: Analysis) -> str:
    p = analysis.provenance
    return (f"{len(p['systems'])} systems ({', '.join(p['systems'])}) on {p['n_queries']} aligned "
            f"queries; reference {p['settings']['reference']}.")


def _shown(analysis: Analysis) -> list[tuple[int, Section]]:
    """The sections that are not omitted, numbered from 1."""
    return list(enumerate((s for s in analysis.sections if s.omitted is None), start=1))


def _markdown(analysis: Analysis) -> str:
    lines = ["# memdiag report", "", _summary(analysis), "", f"`{signature(analysis.signature)}`", "",
             "Policies applied:", ""] + [f"- {line}" for line in analysis.provenance["policies"]] + [""]
    numbers = {id(s): k for k, s in _shown(analysis)}
    for section in analysis.sections:
        if section.omitted is not None:
            lines += [f"*{section.title} — omitted: {section.omitted}.*", ""]
            continue
        lines += [f"## {numbers[id(section)]}. {section.title}", "", section.sentence, ""]
        for name, (_, caption) in section.figures.items():
            lines += [f"![{caption}](figures/{name}.png)", "", f"*Figure ({name}): {caption}*", ""]
        for name, table in section.tables.items():
            text = render(_with_signature(table, analysis.signature), "md")
            lines += [f"### {TABLE_TITLES[name]}", "", text.rstrip("\n"), ""]
    return "\n".join(lines)


HTML_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>memdiag report</title>
<style>
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; color: #222; margin: 0; line-height: 1.45; }
main { max-width: 1100px; margin: 0 auto; padding: 1.5em 2em 4em; }
h1 { font-size: 1.6em; margin-bottom: 0.3em; }
h2 { font-size: 1.3em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 2em; }
h3 { font-size: 1.05em; margin: 1.4em 0 0.4em; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 0.8em; font-variant-numeric: tabular-nums; }
th, td { padding: 0.2em 0.6em; border-bottom: 1px solid #e4e4e4; white-space: nowrap; }
th { border-bottom: 2px solid #888; }
.note { font-size: 0.8em; color: #555; margin: 0.2em 0; }
.signature { font-size: 0.78em; color: #333; margin: 0.3em 0 1em; }
.omitted { color: #666; font-style: italic; }
figure { margin: 1.2em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.85em; color: #444; margin-top: 0.3em; }
</style>
</head>
<body>
<main>
<h1>memdiag report</h1>
<p>{{ summary }}</p>
<p class="signature"><code>{{ signature }}</code></p>
<p>Policies applied:</p>
<ul>{% for line in policies %}<li class="note">{{ line }}</li>{% endfor %}</ul>
<nav><ol>{% for number, s in shown %}<li><a href="#{{ s.key }}">{{ s.title }}</a></li>{% endfor %}</ol></nav>
{% for s in sections %}{% if s.omitted is not none %}
<p class="omitted" id="{{ s.key }}">{{ s.title }} — omitted: {{ s.omitted }}.</p>
{% else %}
<section id="{{ s.key }}">
<h2>{{ s.number }}. {{ s.title }}</h2>
<p>{{ s.sentence }}</p>
{% for f in s.figures %}<figure id="figure-{{ f.name }}">
<img src="data:image/png;base64,{{ f.data }}" alt="{{ f.caption }}" width="{{ f.width }}">
<figcaption>{{ f.caption }}</figcaption>
</figure>
{% endfor %}{% for t in s.tables %}<h3 id="table-{{ t.name }}">{{ t.title }}</h3>
<div class="scroll">{{ t.html }}</div>
{% for n in t.notes %}<p class="note">{{ n }}</p>
{% endfor %}<p class="signature"><code>{{ t.signature }}</code></p>
{% endfor %}</section>
{% endif %}{% endfor %}
</main>
</body>
</html>
"""


def _html_table(table: pd.DataFrame) -> Markup:
    """The table as HTML, its cells formatted as in the Markdown and LaTeX tables."""
    shown = display(table, table.attrs.get("confidence_level"))
    numeric = {str(c) for c in table.columns
               if pd.api.types.is_numeric_dtype(table[c]) and not pd.api.types.is_bool_dtype(table[c])}
    align = ["right" if c.split(" [")[0] in numeric else "left" for c in shown.columns]
    return Markup(tabulate(shown, headers="keys", tablefmt="html", showindex=False,
                           disable_numparse=True, colalign=align))


def _html(analysis: Analysis, figures: Path) -> str:
    numbers = {id(s): k for k, s in _shown(analysis)}
    sections = []
    for section in analysis.sections:
        signed = {name: _with_signature(t, analysis.signature) for name, t in section.tables.items()}
        tables = [{"name": name, "title": TABLE_TITLES[name], "html": _html_table(table),
                   "notes": [str(n) for n in table.attrs.get("notes", [])],
                   "signature": signature(table.attrs)} for name, table in signed.items()]
        images = [{"name": name, "caption": caption,
                   "width": round(fig.get_size_inches()[0] * CSS_DPI),
                   "data": base64.b64encode((figures / f"{name}.png").read_bytes()).decode("ascii")}
                  for name, (fig, caption) in section.figures.items()]
        sections.append({"key": section.key, "title": section.title, "sentence": section.sentence,
                         "omitted": section.omitted, "number": numbers.get(id(section)),
                         "tables": tables, "figures": images})
    template = Environment(autoescape=True).from_string(HTML_TEMPLATE)
    return template.render(summary=_summary(analysis), signature=signature(analysis.signature),
                           policies=analysis.provenance["policies"], shown=_shown(analysis),
                           sections=sections)


#: Writing steps after the analysis (for the progress bar).
WRITE_STEPS: tuple[str, ...] = ("tables", "figures", "report")


def _write_report(analysis: Analysis, folder: Path, bar: tqdm) -> None:
    bar.set_postfix_str("tables")
    _write_tables(analysis, folder)
    bar.update()
    bar.set_postfix_str("figures")
    _save_figures(analysis, folder / "figures")
    bar.update()
    bar.set_postfix_str("report")
    _write_text(folder / "analysis.json", _analysis_json(analysis))
    _write_text(folder / "report.md", _markdown(analysis))
    _write_text(folder / "report.html", _html(analysis, folder / "figures"))
    bar.update()


def _check_target(out: Path) -> None:
    """Refuse to replace anything but an empty folder or an earlier report (it holds analysis.json)."""
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / "analysis.json").is_file())):
        raise FileExistsError(17, "exists and is not a memdiag report folder (no analysis.json); "
                                  "choose another --out", str(out))


def _publish(analysis: Analysis, out: Path, bar: tqdm) -> Path:
    """Write the report into a temporary sibling of ``out`` and rename it to ``out`` at the end.

    ``out`` has passed :func:`_check_target`; on any failure the temporary folder is removed and
    ``out`` is untouched.
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent))
    try:
        _write_report(analysis, staging, bar)
        staging.chmod(0o755)
        if out.exists():
            shutil.rmtree(out)
        os.replace(staging, out)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return out


# --------------------------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------------------------
def report(
    df: pd.DataFrame | str | Path | Sequence[str | Path],
    reference: str,
    out: str | Path,
    scheme: str | Path | Scheme | Mapping | None = None,
    design: str | None = None,
    systems_table: str | Path | pd.DataFrame | None = None,
    claims: str | Path | pd.DataFrame | Sequence[Mapping] | None = None,
    write_log: str | Path | pd.DataFrame | None = None,
    n_resamples: int = 20_000,
    seed: int = 0,
    confidence_level: float = 0.95,
    correction: str = "holm",
    threshold: float = 0.5,
    missing: str = "error",
    verdict_missing: str = "as-wrong",
    read_options: Mapping | None = None,
    progress: bool | None = None,
) -> Path:
    """Run the whole analysis and write it as a folder: report.md, report.html, figures, tables,
    analysis.json.

    Parameters
    ----------
    df
        Canonical verdicts (:func:`memdiag.read_verdicts`), or the files / folders / globs to
        read (with ``read_options``).
    reference
        The reference system of the flows and the forest plot (usually raw-history RAG).
    out
        The report folder. It is written under a temporary name next to it and renamed when
        complete; an existing folder is replaced only if it is empty or an earlier report.
    scheme
        Official aggregation (built-in name, YAML/JSON file, :class:`~memdiag._schemes.Scheme`):
        scores, accuracy intervals, tests and ranks are recomputed under it in every replicate;
        flows and evidence use the queries it keeps.
    design
        Resampling design for every interval and bootstrap test; default the benchmark's rule
        (:func:`memdiag._compare.resolve_design`), recorded with its reason.
    systems_table
        System-level facts keyed by ``system`` (CSV path or frame): ``tokens_per_query`` (cost)
        and ``store_tokens`` (bubble area) feed the cost–accuracy section.
    claims
        Claims to audit (file or table, see :func:`memdiag.read_claims`).
    write_log
        A memory decision log (CSV/JSONL path or frame) for the write-action audit.
    n_resamples, seed, confidence_level, correction, threshold, missing, verdict_missing
        Bootstrap replicates B, seed, interval level, multiplicity correction, the flows'
        correctness threshold and the alignment policies (:func:`memdiag.align`).
    read_options
        Keyword arguments of :func:`memdiag.read_verdicts` (``format``, ``system``,
        ``fields``), used to read ``df`` when it is paths and recorded for the re-run.
    progress
        Show a progress bar on stderr; default: when stderr is a terminal.

    Returns
    -------
    pathlib.Path
        The report folder.

    Raises
    ------
    VerdictError, SchemeError
        Unreadable input, a reference not in the data, a scheme that keeps no query — raised
        before anything is written.
    FileExistsError
        ``out`` exists and is not an earlier report.

    Notes
    -----
    Sections (each omitted, with one line saying why, when the data cannot support it): data
    and validation (SPEC §1); official scores and accuracy intervals (§6, §4); benefit and tax
    against the reference with the Venn grid (§2); pairwise tests, omnibus, rank stability,
    forest plot and pairwise matrix (§4–§5); evidence diagnostics when a ``sufficient`` column
    exists (§3); the cost–accuracy bubble when a cost exists (§8); judge agreement when answers
    were judged more than once (§7); the write-action audit with a decision log (§7); the claims
    audit with claims. Every table carries its notes and signature line. analysis.json holds
    every number, the memdiag version, the SHA-256 of every input, the settings and policies.
    """
    settings = Settings(reference, design, n_resamples, seed, confidence_level, correction, threshold,
                        missing, verdict_missing)
    _check_target(Path(out))
    with _bar(len(SECTIONS) + len(WRITE_STEPS), progress) as bar:
        analysis = _prepare(df, settings, scheme, systems_table, claims, write_log, read_options, bar)
        return _publish(analysis, Path(out), bar)


def report_from_json(path: str | Path, out: str | Path, progress: bool | None = None) -> Path:
    """Re-run a report exactly from its analysis.json into ``out``.

    Every input file is read again from the recorded path and must have the recorded SHA-256;
    the re-read verdicts must hash to the recorded data hash. Same inputs, settings and seed
    give byte-identical tables and analysis.json.

    Raises
    ------
    VerdictError
        The file is not an analysis.json of this format, an input changed or is gone, or the
        report was made from data that cannot be read again (an in-memory frame).
    """
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise VerdictError(f"{path}: not an analysis.json ({error}).") from None
    if not isinstance(document, dict) or document.get("analysis_format") != ANALYSIS_FORMAT:
        raise VerdictError(f"{path}: not an analysis.json of format {ANALYSIS_FORMAT}.")
    inputs = document["inputs"]
    settings = Settings(**document["settings"])
    df = _reread_verdicts(inputs["verdicts"], path)
    read_options = {k: inputs["verdicts"]["rerun"][k] for k in ("format", "fields")}
    return report(df, settings.reference, out, scheme=_rerun_input(inputs["scheme"]),
                  design=settings.design, systems_table=_rerun_input(inputs["systems_table"]),
                  claims=_rerun_input(inputs["claims"]), write_log=_rerun_input(inputs["write_log"]),
                  n_resamples=settings.n_resamples, seed=settings.seed,
                  confidence_level=settings.confidence_level, correction=settings.correction,
                  threshold=settings.threshold, missing=settings.missing,
                  verdict_missing=settings.verdict_missing, read_options=read_options,
                  progress=progress)


def _reread_verdicts(recipe: Mapping, origin: str | Path) -> pd.DataFrame:
    spec = recipe.get("rerun")
    if spec is None:
        raise VerdictError(f"{origin}: cannot re-run: {recipe.get('why_not', 'no input files recorded')}.")
    paths = [str(_check_hash(entry)) for entry in spec["files"]]
    df = read_verdicts(paths, format=spec["format"], system=spec["system"] or None, fields=spec["fields"])
    if _data_hash(df) != recipe["data_sha256"]:
        raise VerdictError(f"{origin}: re-reading the input files does not give the verdicts the report "
                           "was made from (they were changed in memory, or read with other options).")
    return df


def _rerun_input(recipe: Mapping | None):
    """A side input (scheme, systems table, claims, write log) as recorded: its file (checked
    against its hash), its embedded records or spec, or its built-in name."""
    if recipe is None:
        return None
    if "why_not" in recipe:
        raise VerdictError(f"cannot re-run: {recipe['why_not']}.")
    if "path" in recipe:
        return str(_check_hash(recipe))
    if "records" in recipe:
        return pd.DataFrame(recipe["records"])
    return recipe.get("spec", recipe.get("name"))


def demo(out: str | Path = "memdiag-demo", figures: str | Path | None = None,
         n_resamples: int = DEMO_RESAMPLES, seed: int = 0, progress: bool | None = None) -> Path:
    """The whole report on the bundled example (``data/example``), or only its figures.

    Parameters
    ----------
    out
        Report folder (default ``memdiag-demo``).
    figures
        When given, write only the figures (PDF, SVG, PNG) into this folder instead of a report:
        ``memdiag demo --figures figures/`` regenerates the repository's ``figures/``.
    n_resamples, seed
        Bootstrap replicates and seed (printed in every signature line).

    Notes
    -----
    Reference ``raw-rag``; design ``cluster`` (the example's 30 conversations, as the Raw-RAG
    paper resamples LoCoMo conversations, C.6); with the example's systems table, claims file and
    decision log.

    Raises
    ------
    VerdictError
        The example data are not there (memdiag installed without its source checkout).
    """
    if not (EXAMPLE / "verdicts").is_dir():
        raise VerdictError(f"the bundled example data are not found at {EXAMPLE}: the demo needs a "
                           "source checkout of memdiag (git clone, then pip install -e .).")
    settings = Settings("raw-rag", "cluster", n_resamples, seed)
    sides = dict(systems_table=EXAMPLE / "systems.csv", claims=EXAMPLE / "claims_example.yaml",
                 write_log=EXAMPLE / "write_log.csv")
    if figures is None:
        _check_target(Path(out))
    steps = len(SECTIONS) + (len(WRITE_STEPS) if figures is None else 0)
    with _bar(steps, progress) as bar:
        analysis = _prepare(EXAMPLE / "verdicts", settings, None, read_options=None, bar=bar, **sides)
        if figures is None:
            return _publish(analysis, Path(out), bar)
    _save_figures(analysis, figures)
    return Path(figures)
