"""A report's provenance: its settings, the SHA-256 of every input, how to read each input again,
and analysis.json — every number with what is needed to re-run it exactly (SPEC §1; ARCHITECTURE:
``report/``).

Nothing here depends on the clock: the same inputs, settings and seed give byte-identical
analysis.json. :func:`memdiag.reporting.report_from_json` re-reads every input through
:func:`_reread_verdicts` and :func:`_rerun_input`, which refuse a file whose hash changed.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from memdiag.analyses.replay import FILES as REPLAY_FILES
from memdiag.core import checks as _checks
from memdiag.core.notes import as_note, from_record
from memdiag.errors import VerdictError
from memdiag.io.canonical import check
from memdiag.io.claims import read_claims
from memdiag.io.schema import PROVENANCE
from memdiag.io.verdicts import read_verdicts
from memdiag.panel.cluster_labels import CLUSTER_MISSING
from memdiag.panel.schemes import Scheme, get_scheme
from memdiag.tables import render

if TYPE_CHECKING:  # pragma: no cover - the type only; the context imports this module
    from memdiag.reporting.context import Analysis

#: Version of the analysis.json layout read by :func:`report_from_json`.
ANALYSIS_FORMAT = 1
#: Settings added after format 1 was first written, with the value every earlier analysis.json
#: used (the only one memdiag had then): an analysis.json without them re-runs as it was made.
_ADDED: dict[str, object] = {"cluster_missing": "error"}


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
    judges: str | None = None
    label_missing: str = "exclude"
    inference: str = "auto"
    cluster_missing: str = "error"

    def __post_init__(self) -> None:
        """Check every setting before any analysis (VerdictError naming the setting)."""
        if not isinstance(self.reference, str) or not self.reference:
            raise VerdictError(f"reference must be a system name, got {self.reference!r}.")
        if self.design is not None:
            _checks.choice(self.design, _checks.KINDS, "design")
        _checks.n_resamples(self.n_resamples)
        _checks.seed(self.seed)
        _checks.confidence_level(self.confidence_level)
        _checks.choice(self.correction, _checks.CORRECTIONS, "correction")
        _checks.threshold(self.threshold)
        _checks.choice(self.missing, _checks.MISSING, "missing-query policy")
        _checks.choice(self.verdict_missing, _checks.VERDICT_MISSING, "missing-verdict policy")
        if self.judges is not None and (not isinstance(self.judges, str) or not self.judges):
            raise VerdictError(f"judges must be 'mean' or a judge's name, got {self.judges!r}.")
        _checks.choice(self.label_missing, _checks.LABEL_MISSING, "missing-label policy")
        _checks.choice(self.inference, _checks.INFERENCE, "inference")
        _checks.choice(self.cluster_missing, CLUSTER_MISSING, "missing-cluster policy")

    @classmethod
    def from_json(cls, recorded: object, origin: str | Path) -> Settings:
        """The settings an analysis.json recorded: every field present, each a valid value (a
        missing seed is an error, never the default)."""
        names = [f.name for f in fields(cls)]
        if not isinstance(recorded, Mapping):
            raise VerdictError(f"{origin}, field 'settings': missing or not a mapping; the file is damaged.")
        for name in names:
            if name not in recorded and name in _ADDED:
                continue  # written before the setting existed: its value then was the only one memdiag had
            if name not in recorded:
                raise VerdictError(f"{origin}, field 'settings.{name}': missing; the file was changed or "
                                   "is damaged, and a default would not reproduce the report.")
        unknown = [str(k) for k in recorded if k not in names]
        if unknown:
            raise VerdictError(f"{origin}, field 'settings.{unknown[0]}': not a setting of this analysis.json "
                               "format; the file was changed or is damaged.")
        try:
            return cls(**{**{name: default for name, default in _ADDED.items() if name not in recorded},
                          **recorded})
        except VerdictError as error:
            raise VerdictError(f"{origin}, settings: {error}") from None


# --------------------------------------------------------------------------------------------
# inputs: reading them, and recording how to read them again
# --------------------------------------------------------------------------------------------
def _file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _data_hash(df: pd.DataFrame, sort_columns: bool = True) -> str:
    """SHA-256 of the canonical verdicts (provenance columns left out, rows in key order, columns
    by name: files read in another order give their extra columns in another order).
    ``sort_columns=False``: the columns as read, as reports before memdiag 0.2.1 recorded it."""
    canon = check(df).drop(columns=[c for c in PROVENANCE if c in df])
    canon = canon[sorted(canon.columns)] if sort_columns else canon
    canon = canon.sort_values(["system", "query_id", "repeat"], kind="mergesort")
    return hashlib.sha256(canon.to_csv(index=False, lineterminator="\n").encode()).hexdigest()


def _records(frame: pd.DataFrame) -> list[dict]:
    return json.loads(render(frame.reset_index(drop=True), "json"))["rows"]


def _verdict_recipe(df: pd.DataFrame, read_options: Mapping | None) -> dict:
    """How to read the verdicts again: files with hashes, per-file system names, read options."""
    recipe: dict = {"data_sha256": _data_hash(df)}
    if df.attrs.get("read_notes"):  # what reading said (skipped files, names): the rerun says the same
        recipe["read_notes"] = [as_note(n).record() for n in df.attrs["read_notes"]]
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
    if options.get("recipe"):
        path = Path(options["recipe"])
        recipe["rerun"]["recipe"] = {"path": str(path.resolve()), "sha256": _file_hash(path)}
        recipe["rerun"]["given_files"] = [str(Path(f).resolve()) for f in options.get("files") or ()] or None
    for key in ("records", "judge", "join", "allow_outside"):
        if options.get(key):
            recipe["rerun"][key] = options[key]
    if options.get("dataset"):  # the dataset that gave records without ids their ids (issue 22)
        path = Path(options["dataset"])
        recipe["rerun"]["dataset"] = {"path": str(path.resolve()), "sha256": _file_hash(path)}
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


def _damaged(origin: str | Path, field: str, what: str) -> VerdictError:
    return VerdictError(f"{origin}, field '{field}': {what}; the file was changed or is damaged.")


def _check_recipes(inputs: object, origin: str | Path) -> None:
    """Refuse an analysis.json whose ``inputs`` are not what :func:`_verdict_recipe` and
    :func:`_side_input` write (a tampered or damaged file), naming the field."""
    if not isinstance(inputs, Mapping):
        raise _damaged(origin, "inputs", "missing or not a mapping")
    verdicts = inputs.get("verdicts")
    if not isinstance(verdicts, Mapping) or not isinstance(verdicts.get("data_sha256"), str):
        raise _damaged(origin, "inputs.verdicts", "missing, or without its data_sha256")
    spec = verdicts.get("rerun")
    if spec is not None:
        if not isinstance(spec, Mapping) or not isinstance(spec.get("files"), list) or not spec["files"]:
            raise _damaged(origin, "inputs.verdicts.rerun", "not a list of input files")
        for k, entry in enumerate(spec["files"]):
            if not (isinstance(entry, Mapping) and isinstance(entry.get("path"), str)
                    and isinstance(entry.get("sha256"), str)):
                raise _damaged(origin, f"inputs.verdicts.rerun.files[{k}]", "not a path with its sha256")
        if not isinstance(spec.get("system"), Mapping) or not isinstance(spec.get("format"), str) or not (
                spec.get("fields") is None or isinstance(spec["fields"], Mapping)):
            raise _damaged(origin, "inputs.verdicts.rerun", "system, format or fields of the wrong type")
    for key in ("scheme", "systems_table", "claims", "write_log", "ingestion_log"):
        recipe = inputs.get(key)
        if recipe is None:
            continue
        valid = isinstance(recipe, Mapping) and (
            isinstance(recipe.get("why_not"), str)
            or (isinstance(recipe.get("path"), str) and isinstance(recipe.get("sha256"), str))
            or isinstance(recipe.get("records"), list) or isinstance(recipe.get("spec"), Mapping)
            or isinstance(recipe.get("name"), str))
        if not valid:
            raise _damaged(origin, f"inputs.{key}", "not a recorded input (path and sha256, records, spec or name)")


def _reread_verdicts(recipe: Mapping, origin: str | Path) -> pd.DataFrame:
    spec = recipe.get("rerun")
    if spec is None:
        raise VerdictError(f"{origin}: cannot re-run: {recipe.get('why_not', 'no input files recorded')}.")
    paths = [str(_check_hash(entry)) for entry in spec["files"]]
    dataset = str(_check_hash(spec["dataset"])) if spec.get("dataset") else None
    if spec.get("recipe"):
        _check_hash(spec["recipe"])
        df = read_verdicts(spec.get("given_files"), recipe=spec["recipe"]["path"], join=spec.get("join"),
                           dataset=dataset, allow_outside=spec.get("allow_outside") is True)
    else:
        df = read_verdicts(paths, format=spec["format"], system=spec["system"] or None, fields=spec["fields"],
                           records=spec.get("records"), judge=spec.get("judge"), join=spec.get("join"),
                           dataset=dataset)
    if recipe["data_sha256"] not in (_data_hash(df), _data_hash(df, sort_columns=False)):
        raise VerdictError(f"{origin}: re-reading the input files does not give the verdicts the report "
                           "was made from (they were changed in memory, or read with other options).")
    if isinstance(recipe.get("read_notes"), list):  # the notes of the first reading (of the folders given)
        try:
            df.attrs["read_notes"] = [from_record(n) for n in recipe["read_notes"]]
        except ValueError as error:
            raise VerdictError(f"{origin}, field 'inputs.verdicts.read_notes': {error}") from None
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


def relocate_inputs(inputs: Mapping, move: Callable[[str], str]) -> dict:
    """``inputs`` of an analysis.json with ``move`` applied to every recorded file path: each
    ``path``, the recipe's ``given_files`` and the keys of the per-file ``system`` names."""
    def walk(value: object, key: str = "") -> object:
        if isinstance(value, Mapping):
            out = {}
            for k, v in value.items():
                if k == "path" and isinstance(v, str):
                    out[k] = move(v)
                elif k == "given_files" and isinstance(v, list):
                    out[k] = [move(f) if isinstance(f, str) else f for f in v]
                elif k == "system" and key == "rerun" and isinstance(v, Mapping):
                    out[k] = {move(f): name for f, name in v.items()}
                else:
                    out[k] = walk(v, k)
            return out
        if isinstance(value, list):
            return [walk(v, key) for v in value]
        return value
    return walk(inputs)


def relative_to(folder: Path) -> Callable[[str], str]:
    """A path as analysis.json records it: relative to the report folder (POSIX separators), so
    that a report moved together with its inputs re-runs, and no absolute path is written."""
    base = Path(os.path.abspath(folder))
    return lambda path: Path(os.path.relpath(os.path.abspath(path), base)).as_posix()


def resolved_from(folder: Path) -> Callable[[str], str]:
    """A recorded path read back: relative to the analysis.json's folder (absolute ones, written
    by memdiag before 0.3, stay as they are)."""
    return lambda path: os.path.normpath(os.path.join(folder, path))


def _analysis_json(analysis: Analysis, folder: Path) -> str:
    sections = []
    for section in analysis.sections:
        tables = {name: json.loads(render(_with_signature(t, analysis.signature), "json"))
                  for name, t in section.tables.items()}
        figures = {name: {"caption": caption, "files": [f"figures/{name}.{x}" for x in ("pdf", "svg", "png")]}
                   for name, (_, caption) in section.figures.items()}
        replay = [f"replay/{name}" for name in REPLAY_FILES] if section.replay is not None else []
        sections.append({"key": section.key, "title": section.title, "sentence": section.sentence,
                         **({"lines": section.lines} if section.lines else {}),
                         "omitted": section.omitted, "tables": tables, "figures": figures,
                         **({"replay": replay} if replay else {})})
    provenance = dict(analysis.provenance)
    if isinstance(provenance.get("inputs"), Mapping):
        provenance["inputs"] = relocate_inputs(provenance["inputs"], relative_to(folder))
    document = {**provenance, "sections": sections}
    return json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False)
