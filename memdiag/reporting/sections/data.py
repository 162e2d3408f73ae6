"""The report's first sections: what was read and validated, and the official scores (SPEC §1, §4, §6)."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from memdiag.analyses.clusters import cluster_accuracy
from memdiag.analyses.scoring import score
from memdiag.engine.options import NO_RESAMPLING
from memdiag.panel.validate import validate
from memdiag.reporting.context import Context, Section
from memdiag.reporting.notes import condensed
from memdiag.reporting.provenance import _file_hash
from memdiag.views.costs import accuracy_of


def data_section(ctx: Context) -> Section:
    """Data and validation: the files read, the validation summary and the clusters a run fails."""
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
        counted = ctx.counted
        clusters = ctx.inputs.once(("cluster_accuracy", counted.threshold), lambda: cluster_accuracy(counted))
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


def scores_section(ctx: Context) -> Section:
    """Official scores under the scheme, and every system's accuracy with its interval."""
    name = ctx.scheme.name if ctx.scheme else "mean"
    section = Section("scores", "Official scores",
                      f"Each system's official score under the '{name}' aggregation with its group "
                      "scores and counts, and its accuracy with a paired bootstrap interval (SPEC §6, §4).")
    section.tables["scores"] = score(ctx.prepared, options=NO_RESAMPLING)
    section.tables["accuracy"] = accuracy_of(ctx.inputs, "scores")
    return section
