"""The report's sections on judges, logs, claims and settings: judge agreement, the write-action
audit, the claims audit, judge-error-corrected scores and pooling across benchmarks (SPEC §7,
§9, §10).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from memdiag.audit.claims import _audit_claims as claims_audit
from memdiag.io.claims import read_claims
from memdiag.measurement.agreement import agreement
from memdiag.plots._reading import alpha_text
from memdiag.reporting.context import Context, Section, omit

#: Per-(system, query) columns read as human (or gold) 0/1 verdicts on a calibration subset (SPEC §9).
CALIBRATION_LABELS: tuple[str, ...] = ("human_label", "human")


def agreement_section(ctx: Context) -> Section:
    """Agreement of the judges (or a judge's repetitions) on the same answers."""
    section = Section("agreement", "Judge agreement",
                      "How far the judges (or the judge's repeated verdicts) agree on the same answers: "
                      "pairwise Cohen's κ and Fleiss' κ with intervals, each on the answers every "
                      "compared rater judged (SPEC §7).")
    rows = ctx.selected
    by = "judge" if "judge" in rows and rows["judge"].dropna().nunique() > 1 else "repeat"
    raters = rows.groupby(["system", "query_id"])[by].nunique() if by in rows else pd.Series([1])
    if raters.max() < 2:
        return omit(section, "one judgment per answer: there are no judge repetitions or judges to compare")
    table = agreement(ctx.counted, by=by, options=ctx.options)
    section.tables["agreement"] = table
    return section


def writes_section(ctx: Context) -> Section:
    """The write-action audit of a memory decision log, with its two figures."""
    section = Section("writes", "Write-action audit",
                      "How often the memory system proposes an UPDATE or DELETE and how often one "
                      "takes effect, per conversation and overall (SPEC §7; Raw-RAG paper C.2).")
    if ctx.write_log is None:
        return omit(section, "no memory decision log was given (--write-log)")
    section.show(ctx.view("writes"), "mutation_rates")
    section.show(ctx.view("actions"), "write_actions")
    return section


def claims_section(ctx: Context) -> Section:
    """The claims audit, each claim checked as the rest of the report unless it says otherwise."""
    section = Section("claims", "Claims audit",
                      "Each stated claim recomputed from the verdicts — estimate, interval, test, "
                      "Holm adjustment per family, detectable effect — with a verdict and its reason.")
    if ctx.claims is None:
        return omit(section, "no claims file was given (--claims)")
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


def _report_claims(ctx: Context) -> tuple[pd.DataFrame | str, str]:
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


def judge_error_section(ctx: Context) -> Section:
    """Scores and differences corrected for the judge's errors on a human-labelled subset."""
    section = Section("judge_error", "Judge error: corrected scores and differences",
                      "Each score and each difference from the reference corrected for the judge's errors "
                      "measured on a human-labelled calibration subset, beside the judged number (SPEC §9).")
    label = next((c for c in CALIBRATION_LABELS if c in ctx.prepared.panel.matrices), None)
    if label is None:
        return omit(section, "no calibration labels (a 'human_label' column of 0/1 human verdicts on some answers)")
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


def settings_section(ctx: Context) -> Section:
    """Differences from the reference within each benchmark, pooled, and the u-of-N count."""
    section = Section("settings", "Across settings: pooled differences and the u-of-N count",
                      "Each system's paired difference from the reference within each benchmark, pooled by a "
                      "random-effects meta-analysis (REML τ², Hartung–Knapp–Sidik–Jonkman interval with the "
                      "ad hoc floor, prediction interval for a new setting), and the number of benchmarks in which "
                      "it beats the reference by a partial-conjunction test at family-wise α (SPEC §10.1–§10.2).")
    rows = ctx.selected
    benchmarks = rows["benchmark"].dropna().unique() if "benchmark" in rows else ()
    if len(benchmarks) < 2:
        return omit(section, "one setting: the data carry no 'benchmark' column with two or more benchmarks")
    from memdiag.analyses.overview import prepare_settings
    from memdiag.synthesis.settings import pool_settings, setting_differences

    s = ctx.settings
    schemes = dict.fromkeys(map(str, benchmarks))
    diffs = setting_differences(prepare_settings(rows, schemes=schemes, **ctx.policies), reference=s.reference,
                                schemes=schemes, options=ctx.options.replace(design=s.design))
    pooled = pool_settings(diffs, options=ctx.options)
    if diffs["model"].fillna("").eq("").all():
        diffs = diffs.drop(columns="model")
    section.tables["settings_differences"], section.tables["settings_pooled"] = diffs, pooled
    beating = pooled[pooled["beats_in"] > 0].sort_values("beats_in", ascending=False, kind="stable")
    counts = ("; ".join(f"{r.system} in at least {int(r.beats_in)} of {int(r.n_settings)}" for r in beating.itertuples())
              if len(beating) else "none in any")
    section.sentence += (f" Over {len(benchmarks)} benchmarks, the systems shown to beat {s.reference} (partial "
                         f"conjunction, Bonferroni-combined, α = {alpha_text(ctx.alpha)}): {counts}. A count of "
                         "benchmarks where a system merely scores higher is no test.")
    return section
