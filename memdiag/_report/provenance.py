"""A report's provenance: its settings, the SHA-256 of every input, how to read each input again,
and analysis.json — every number with what is needed to re-run it exactly (SPEC §1; ARCHITECTURE:
``report/``).

Nothing here depends on the clock: the same inputs, settings and seed give byte-identical
analysis.json. :func:`memdiag._report.report_from_json` re-reads every input through
:func:`_reread_verdicts` and :func:`_rerun_input`, which refuse a file whose hash changed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from memdiag._audit import read_claims
from memdiag._schema import PROVENANCE
from memdiag._schemes import Scheme, get_scheme
from memdiag._verdicts import check, read_verdicts
from memdiag.errors import VerdictError
from memdiag.tables import render

if TYPE_CHECKING:  # pragma: no cover - the type only; sections import this module
    from memdiag._report.sections import Analysis

#: Version of the analysis.json layout read by :func:`report_from_json`.
ANALYSIS_FORMAT = 1


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
    inference: str = "auto"


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


# --------------------------------------------------------------------------------------------
# analysis.json
# --------------------------------------------------------------------------------------------
def _with_signature(table: pd.DataFrame, attrs: Mapping) -> pd.DataFrame:
    """The table with the report's settings filling the provenance keys its own attrs lack."""
    out = table.copy()
    out.attrs = {**attrs, **table.attrs}
    return out


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
