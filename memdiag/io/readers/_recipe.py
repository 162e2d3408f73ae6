"""Release recipes: a small YAML file that says once how to read a whole release (docs/recipes.md).

A recipe lists **sources** (verdict files) and **joins** (side files with per-query columns)::

    description: four runs judged by three judges, with coverage labels
    sources:                        # one entry per file group; several entries may share a system
      - files: ["*/eval_results_gpt-4o.json"]     # paths or globs, relative to the recipe
        records: results            # where the records are (a path; default: the top level)
        system: "{folder}"          # a name or a template; default: the file's folder
        judge: gpt-4o               # optional rater label (a name or a template)
        fields: {query_id: question_id, score: {from: correct}, category: question_type}
        columns: {benchmark: longmemeval}         # constant columns
    join:
      - files: [coverage.json]
        records: questions          # a list of records, or an object keyed by query id
        system: run-a               # optional: attach to this system only
        fields: {sufficient: fully_covered}       # query_id defaults to the object's keys
    labels: {run-a: A}              # optional: the short names figures draw

Source keys: ``files`` (required), ``records``, ``fields`` (canonical column <- field, see
:mod:`memdiag.io.readers._fields`; needs ``score`` and ``query_id`` unless the records are keyed by
id or ``locomo`` sets the ids), ``system``, ``judge``, ``columns``, ``format`` (without
``fields``: a layout name or ``auto`` — the file is read by memdiag's own reader) and ``locomo``
(LoCoMo-10 ids by conversation and position: ``{conversation: <field>, category: <field>,
base: 0}``, as the LoCoMo readers assign them), ``judgments`` (the path of an object of judge
repeats, ``llm_judgments: {judgment_1: true, ...}``: one row per key, replacing ``score``) and
``run`` (the end-to-end run of these files, a name or a template). The top-level ``dataset``
(the benchmark's dataset file) gives records without ids their canonical ids
(:mod:`memdiag.io.readers._dataset`). Join keys: ``files``, ``records``, ``fields``,
``system``, ``locomo``. Templates in ``system`` and ``judge``: ``{folder}`` (the file's folder),
``{stem}`` (its name without suffixes of content and compression), ``{name}``, ``{base}`` (the
name up to its first dot). Paths (records, fields) are those of :mod:`memdiag.io.readers._jsonpath`.
Any other key is an error naming the key and the recipe file.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from memdiag.core.notes import Note
from memdiag.errors import VerdictError, listing, where
from memdiag.io.opening import stem
from memdiag.io.readers import _locomo
from memdiag.io.readers._common import finish, name_system, read_table
from memdiag.io.readers._fields import Field, compute, parse_field
from memdiag.io.readers._jsonpath import MISSING, Record, getter, parse, select
from memdiag.io.schema import LOCOMO_CONVERSATIONS, PROVENANCE
from memdiag.io.strict import read_yaml

TOP_KEYS: tuple[str, ...] = ("description", "sources", "join", "labels", "dataset")
SOURCE_KEYS: tuple[str, ...] = ("files", "records", "fields", "system", "judge", "columns", "format", "locomo",
                                "judgments", "run")
JOIN_KEYS: tuple[str, ...] = ("files", "records", "fields", "system", "locomo")
LOCOMO_KEYS: tuple[str, ...] = ("conversation", "category", "base")
PLACEHOLDERS: tuple[str, ...] = ("folder", "stem", "name", "base")
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


# --------------------------------------------------------------------------------------------
# the recipe as data
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Locomo:
    """LoCoMo-10 ids from a conversation field and a category field (1-5 after ``map``)."""

    conversation: Field
    category: Field
    base: int = 0


@dataclass(frozen=True)
class Source:
    """One group of verdict files read alike (see the module docstring)."""

    files: tuple[str, ...]
    records: str | None = None
    fields: tuple[Field, ...] | None = None
    system: str | None = None
    judge: str | None = None
    columns: Mapping[str, object] = field(default_factory=dict)
    format: str = "auto"
    locomo: Locomo | None = None
    default_system: str = "{folder}"
    origin: str = "<recipe>"
    judgments: str | None = None
    dataset: Path | None = None
    run: str | None = None


@dataclass(frozen=True)
class Join:
    """One group of side files whose per-query columns are attached to the verdicts."""

    files: tuple[str, ...]
    records: str | None = None
    fields: tuple[Field, ...] = ()
    system: str | None = None
    locomo: Locomo | None = None
    origin: str = "<recipe>"


@dataclass(frozen=True)
class Recipe:
    """A parsed recipe: its sources, its joins and the folder its paths are relative to."""

    sources: tuple[Source, ...]
    joins: tuple[Join, ...] = ()
    base: Path = Path(".")
    origin: str = "<recipe>"
    description: str = ""
    labels: Mapping[str, str] = field(default_factory=dict)
    dataset: Path | None = None
    #: The folder of the files given in place of the sources (:meth:`with_files`), if any.
    beside: Path | None = None

    def with_files(self, files: Iterable[str | Path]) -> Recipe:
        """The recipe with every source reading ``files`` instead (a layout recipe used as a
        template: ``memdiag score --recipe data/recipes/mem0-locomo.yaml runs/*.json``)."""
        files = tuple(str(Path(f).resolve()) for f in files)
        # A relative side file is read beside the recipe when it is there (a recipe inside a release);
        # otherwise beside the given files (data/recipes/zep-locomo.yaml used as a template joins the
        # responses file that sits beside the grades, not beside the template).
        beside = Path(os.path.commonpath([str(Path(f).parent) for f in files]))
        joins = tuple(j if all(Path(f).is_absolute() or _matches(self.base, f) for f in j.files)
                      else replace(j, files=tuple(str(beside / f) for f in j.files)) for j in self.joins)
        return replace(self, sources=tuple(replace(s, files=files) for s in self.sources), joins=joins,
                       beside=beside)

    def with_dataset(self, dataset: str | Path) -> Recipe:
        """The recipe with every source matching records without ids against ``dataset``
        (``--dataset PATH`` given beside a recipe)."""
        path = Path(dataset).resolve()
        return replace(self, dataset=path, sources=tuple(replace(s, dataset=path) for s in self.sources))


def _matches(base: Path, pattern: str) -> bool:
    """Whether the relative path or glob ``pattern`` names at least one file under ``base``."""
    if not any(c in pattern for c in "*?["):
        return (base / pattern).is_file()
    from memdiag.io.readers._expand import expand

    try:
        return bool(expand([pattern], base)[0])
    except VerdictError:
        return False


def _where(origin: str, section: str, number: int | None = None) -> str:
    return f"{origin}, {section}" + (f" entry {number}" if number is not None else "")


def _keys(spec: object, allowed: tuple[str, ...], place: str) -> Mapping:
    if not isinstance(spec, Mapping):
        raise VerdictError(f"{place}: expected a mapping with keys {', '.join(allowed)}, got {spec!r:.60}.")
    unknown = [k for k in spec if k not in allowed]
    if unknown:
        raise VerdictError(f"{place}: unknown key {str(unknown[0])!r} (known: {', '.join(allowed)}).")
    return spec


def _files(spec: Mapping, place: str) -> tuple[str, ...]:
    files = spec.get("files")
    if isinstance(files, str):
        files = [files]
    if not files or not isinstance(files, list) or not all(isinstance(f, str) and f for f in files):
        raise VerdictError(f"{place}: 'files' must be a path or glob, or a list of them.")
    return tuple(files)


def _template(value: object, key: str, place: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str | int) or isinstance(value, bool) or not str(value).strip():
        raise VerdictError(f"{place}: '{key}' must be a name or a template such as \"{{folder}}\".")
    for name in _PLACEHOLDER.findall(str(value)):
        if name not in PLACEHOLDERS:
            raise VerdictError(f"{place}: '{key}' uses {{{name}}}; the placeholders are "
                               f"{', '.join('{' + p + '}' for p in PLACEHOLDERS)}.")
    return str(value)


def _fields(spec: object, place: str) -> tuple[Field, ...]:
    if not isinstance(spec, Mapping) or not spec:
        raise VerdictError(f"{place}: 'fields' must map canonical columns to source fields, e.g. "
                           "{query_id: question_id, score: correct}.")
    reserved = [k for k in spec if k in PROVENANCE]
    if reserved:
        raise VerdictError(f"{place}: {reserved[0]} is set by memdiag and cannot be mapped.")
    return tuple(parse_field(str(target), value, place) for target, value in spec.items())


def _locomo_spec(spec: object, place: str) -> Locomo | None:
    if spec is None:
        return None
    spec = _keys(spec, LOCOMO_KEYS, f"{place}, locomo")
    if "conversation" not in spec or "category" not in spec:
        raise VerdictError(f"{place}, locomo: give 'conversation' and 'category' fields.")
    base = spec.get("base", 0)
    if base not in (0, 1):
        raise VerdictError(f"{place}, locomo: base is 0 (conversations numbered from 0) or 1.")
    return Locomo(parse_field("conversation", spec["conversation"], place),
                  parse_field("category", spec["category"], place), int(base))


def _records_path(spec: Mapping, place: str) -> str | None:
    records = spec.get("records")
    if records is None:
        return None
    if not isinstance(records, str):
        raise VerdictError(f"{place}: 'records' must be a path such as results or data.items.")
    parse(records, place, "records")
    return records


def _source(spec: object, origin: str, number: int) -> Source:
    place = _where(origin, "sources", number)
    spec = _keys(spec, SOURCE_KEYS, place)
    fields = _fields(spec["fields"], place) if "fields" in spec else None
    locomo = _locomo_spec(spec.get("locomo"), place)
    if fields is None and (locomo is not None or "records" in spec):
        raise VerdictError(f"{place}: 'records' and 'locomo' need 'fields' (without fields the file is "
                           "read by memdiag's own reader for its layout).")
    judgments = spec.get("judgments")
    if judgments is not None:
        if not isinstance(judgments, str) or fields is None:
            raise VerdictError(f"{place}: 'judgments' is the path of an object (or list) whose values are the "
                               "judge repeats of one answer, e.g. judgments: llm_judgments; it needs 'fields'.")
        getter(judgments, place)  # syntax check now
    if fields is not None:
        targets = {f.target for f in fields}
        if judgments is not None and ("score" in targets or "repeat" in targets):
            raise VerdictError(f"{place}: 'judgments' gives the score and the repeat of every judgment; drop "
                               f"{'score' if 'score' in targets else 'repeat'} from fields.")
        if "score" not in targets and judgments is None:
            raise VerdictError(f"{place}: fields need 'score' (the verdict), e.g. score: correct "
                               "(or judgments: <path> for an object of judge repeats).")
        if locomo is not None and "query_id" in targets:
            raise VerdictError(f"{place}: locomo sets query_id; drop query_id from fields.")
        if "format" in spec:
            raise VerdictError(f"{place}: 'format' names memdiag's reader for a layout; with 'fields' "
                               "the records are read as mapped. Drop one of them.")
    columns = spec.get("columns", {})
    if not isinstance(columns, Mapping):
        raise VerdictError(f"{place}: 'columns' must map column names to constant values.")
    for name, value in columns.items():
        if not isinstance(name, str) or not name.strip():
            raise VerdictError(f"{place}: 'columns' key {name!r} is not a column name; write it as text "
                               f"(e.g. '{name}': ...).")
        if value is not None and not isinstance(value, str | int | float | bool):
            raise VerdictError(f"{place}: 'columns' value of {name!r} must be one text or number (a constant "
                               f"column), got {type(value).__name__} {value!r:.40}.")
        if isinstance(value, float) and not math.isfinite(value):
            raise VerdictError(f"{place}: 'columns' value of {name!r} must be a finite number, got {value!r}.")
    clash = sorted(set(columns) & {f.target for f in fields or ()})
    if clash:
        raise VerdictError(f"{place}: column {clash[0]!r} is both a field and a constant column.")
    if spec.get("judge") is not None and "judge" in {f.target for f in fields or ()}:
        raise VerdictError(f"{place}: judge is given both as a label and as a field; keep one.")
    fmt = spec.get("format", "auto")
    if not isinstance(fmt, str):
        raise VerdictError(f"{place}: 'format' must be a layout name or auto.")
    return Source(files=_files(spec, place), records=_records_path(spec, place), fields=fields,
                  system=_template(spec.get("system"), "system", place),
                  judge=_template(spec.get("judge"), "judge", place), columns=dict(columns), format=fmt,
                  locomo=locomo, origin=place, judgments=judgments, run=_template(spec.get("run"), "run", place))


def _join(spec: object, origin: str, number: int) -> Join:
    place = _where(origin, "join", number)
    spec = _keys(spec, JOIN_KEYS, place)
    if "fields" not in spec:
        raise VerdictError(f"{place}: a join needs 'fields' (the columns it attaches).")
    fields = _fields(spec["fields"], place)
    locomo = _locomo_spec(spec.get("locomo"), place)
    if len([f for f in fields if f.target not in ("query_id", "system")]) == 0:
        raise VerdictError(f"{place}: the join attaches no column besides query_id/system.")
    return Join(files=_files(spec, place), records=_records_path(spec, place), fields=fields,
                system=_template(spec.get("system"), "system", place), locomo=locomo, origin=place)


def recipe_from_dict(data: object, base: Path = Path("."), origin: str = "<recipe>") -> Recipe:
    """A :class:`Recipe` from its parsed YAML; every unknown or malformed key is a VerdictError
    naming the key and the recipe."""
    data = _keys(data, TOP_KEYS, origin)
    sources = data.get("sources")
    if not isinstance(sources, list) or not sources:
        raise VerdictError(f"{origin}: 'sources' must be a list of file groups (files, records, fields, ...).")
    joins = data.get("join") or []
    if not isinstance(joins, list):
        raise VerdictError(f"{origin}: 'join' must be a list of side-file groups.")
    description = data.get("description", "")
    dataset = data.get("dataset")
    if dataset is not None and not isinstance(dataset, str):
        raise VerdictError(f"{origin}: 'dataset' is the path of the benchmark's dataset file (LoCoMo-10: "
                           "locomo10.json), relative to the recipe.")
    path = (base / dataset).resolve() if dataset is not None else None
    return Recipe(tuple(replace(_source(s, origin, i), dataset=path) for i, s in enumerate(sources, start=1)),
                  tuple(_join(j, origin, i) for i, j in enumerate(joins, start=1)), base, origin,
                  str(description or ""), _labels(data.get("labels"), origin), path)


def _labels(spec: object, origin: str) -> dict[str, str]:
    """``labels: {system: short name}``: the names figures draw (a system the data lack is ignored)."""
    if spec is None:
        return {}
    if not isinstance(spec, Mapping) or not all(
            isinstance(k, str) and isinstance(v, (str, int)) and not isinstance(v, bool) and str(v).strip()
            for k, v in spec.items()):
        raise VerdictError(f"{origin}, labels: expected a mapping of system name to a short label, e.g. "
                           "{Backboard-io__Backboard-Locomo-Benchmark: Backboard}.")
    return {str(k): str(v).strip() for k, v in spec.items()}


def load_recipe(recipe: str | Path | Mapping | Recipe, base: str | Path | None = None) -> Recipe:
    """A recipe from a YAML file, a mapping or a :class:`Recipe`; relative paths are relative to
    ``base`` (default: the recipe file's folder, or the working folder for a mapping).

    Raises
    ------
    VerdictError
        An unreadable file, YAML that is not a recipe, or an unknown key (named, with the file).
    """
    if isinstance(recipe, Recipe):
        return recipe if base is None else replace(recipe, base=Path(base))
    if isinstance(recipe, Mapping):
        return recipe_from_dict(recipe, Path(base) if base is not None else Path("."), "<recipe>")
    path = Path(recipe)
    data = read_yaml(path, "recipe")  # no duplicate key, no alias bomb
    return recipe_from_dict(data, Path(base) if base is not None else path.resolve().parent, str(path))


# --------------------------------------------------------------------------------------------
# reading
# --------------------------------------------------------------------------------------------
def render(template: str, path: Path) -> str:
    """A system/judge template filled in for one file.

    >>> render("{folder}-{stem}", Path("runs/a/eval.v2.json.gz")), render("{base}", Path("r.jsonl.eval-results-x"))
    ('a-eval.v2', 'r')
    """
    values = {"folder": path.resolve().parent.name, "stem": stem(path), "name": path.name,
              "base": path.name.split(".", 1)[0] or path.name}
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], template)


def _table_records(path: Path, fields: Iterable[Field]) -> list[Record]:
    """The rows of a CSV/TSV/Parquet table as records (field paths are column names)."""
    text = [f.source for f in fields if f.source is not None]
    table = read_table(path, text)
    rows = table.astype(object).where(table.notna(), None).to_dict("records")
    return [Record(row, i, (), (), i + 1) for i, row in enumerate(rows)]


def records_of(path: Path, records: str | None, fields: Iterable[Field]) -> list[Record]:
    """The records of one file under a records path (tables: their rows)."""
    from memdiag.io.readers import _empty, load

    content = load(path)
    if content is None:
        if records:
            raise VerdictError(f"{where(path)}: records {records!r} selects inside JSON, but this file is a "
                               "table; drop 'records'.")
        out = _table_records(path, fields)
    else:
        out = select(content, records, path)
    if not out:
        raise _empty(path)
    return out


def _conversation(value: object, base: int, source: object, record: object) -> int:
    """A LoCoMo-10 conversation index from ``conv-26``, an integer, or a name ending in digits."""
    if isinstance(value, str) and value in LOCOMO_CONVERSATIONS:
        return LOCOMO_CONVERSATIONS.index(value)
    text = str(value) if isinstance(value, int | str) and not isinstance(value, bool) else ""
    match = re.search(r"(\d+)$", text)
    if not match:
        raise VerdictError(f"{where(source, record, 'conversation')}: {value!r:.40} names no LoCoMo-10 "
                           "conversation (conv-26 ... conv-50, or a number).")
    return _locomo.conversation(int(match.group(1)) - base, source, record)


def _locomo_columns(spec: Locomo, records: list[Record], source: object) -> pd.DataFrame:
    """query_id, benchmark, cluster and category of LoCoMo records (release order per conversation)."""
    conversations = compute(spec.conversation, records, source)
    categories = compute(spec.category, records, source)
    rows: dict[int, list[dict]] = {}
    for i, (record, conv, cat) in enumerate(zip(records, conversations, categories)):
        index = _conversation(conv, spec.base, source, record.locator)
        code = _locomo.category_code(cat, source, record.locator, spec.category.label)
        rows.setdefault(index, []).append({"code": code, "row": i})
    out = [row for index, group in rows.items() for row in _locomo.align(index, group)]
    return pd.DataFrame(out).set_index("row").sort_index()[["query_id", "benchmark", "cluster", "category"]]


def _frame(fields: Iterable[Field], records: list[Record], source: object) -> tuple[pd.DataFrame, dict]:
    columns, labels = {}, {}
    for fld in fields:
        values = compute(fld, records, source)
        if values is not None:
            columns[fld.target] = values
            labels[fld.target] = fld.label
    return pd.DataFrame(columns, index=range(len(records))), labels


def _ids(frame: pd.DataFrame, records: list[Record], locomo: Locomo | None, source: object,
         what: str, attributes: bool = True) -> pd.DataFrame:
    """Add ``query_id`` (LoCoMo ids, the keys of an object keyed by id, or the mapped field) and,
    for LoCoMo verdicts (``attributes``), benchmark, cluster and category."""
    if locomo is not None:
        ids = _locomo_columns(locomo, records, source)
        for column in ids if attributes else ["query_id"]:
            if column != "query_id" and column in frame:
                continue
            frame[column] = ids[column].to_numpy()
    elif "query_id" not in frame:
        if not all(isinstance(r.key, str) for r in records):
            raise VerdictError(f"{where(source)}: {what} has no query_id: map it (fields: {{query_id: <field>}}) "
                               "or point records at an object keyed by query id.")
        frame["query_id"] = [r.key for r in records]
    return frame


def _judgment_rows(frame: pd.DataFrame, records: list[Record], judgments: str, path: Path) -> pd.DataFrame:
    """One row per judgment of each record: ``judgments`` leads to an object (or a list) whose
    values are the judge repeats of one answer (``llm_judgments: {judgment_1: true, ...}``).

    ``score`` is the value, ``judgment`` the key (a list's position from 1) and ``repeat`` the
    key's rank among the keys of the file in their order of first appearance, so ``judgment_2`` is
    the same repeat in every record even when a record lacks ``judgment_1``.
    """
    get = getter(judgments, path)
    order: dict[str, int] = {}
    rows, scores, keys = [], [], []
    for i, record in enumerate(records):
        value = get(record)
        if isinstance(value, list):
            value = {str(k + 1): v for k, v in enumerate(value)}
        if not isinstance(value, Mapping) or not value:
            shown_value = "nothing" if value is MISSING else f"{value!r:.40}"
            raise VerdictError(f"{where(path, record.locator, judgments)}: expected an object (or a list) of "
                               f"judgments, found {shown_value}. Point 'judgments' at the judge repeats of "
                               "each answer.")
        for key, verdict_value in value.items():
            if isinstance(verdict_value, Mapping | list):
                raise VerdictError(f"{where(path, record.locator, f'{judgments}.{key}')}: a judgment must be a "
                                   f"verdict (true/false, 0/1, yes/no text), found {verdict_value!r:.40}.")
            order.setdefault(str(key), len(order))
            rows.append(i)
            scores.append(verdict_value)
            keys.append(str(key))
    out = frame.iloc[rows].reset_index(drop=True)
    out["score"] = scores
    out["judgment"] = keys
    out["repeat"] = [order[k] for k in keys]
    out["source_record"] = [f"{loc} {k}" if isinstance(loc, str) else f"record {loc} {k}"
                            for loc, k in zip(out["source_record"], keys)]
    return out


def read_source_file(source: Source, path: Path) -> tuple[pd.DataFrame, bool]:
    """The verdicts of one file of a source, and whether its system was named explicitly."""
    from memdiag.io.readers import read_file

    name = render(source.system, path) if source.system is not None else None
    if source.fields is None:
        frame = read_file(path, format=source.format, system=name)
        notes = frame.attrs.get("read_notes", [])
        fmt = frame.attrs.get("format")
        parts = frame.attrs.get("parts")  # a layout that splits one run into files (Backboard: one per conversation)
    else:
        records = records_of(path, source.records, source.fields)
        frame, labels = _frame(source.fields, records, path)
        matched: list[str] = []
        if source.dataset is not None and source.locomo is None and "query_id" not in frame:
            from memdiag.io.readers._dataset import match_dataset

            frame["source_record"] = [r.locator for r in records]
            frame, matched = match_dataset(frame, source.dataset, path)
            if frame.empty:
                raise VerdictError(f"{where(path)}: no record matched a question of {source.dataset.name} "
                                   f"({matched[-1].split(': ', 2)[-1][:300]}). Check the conversation field "
                                   "(conv-26, or a name ending in the 0-based conversation index) and the "
                                   "question field.")
            records = [records[i] for i in frame.index]
            frame = frame.reset_index(drop=True)
        else:
            frame = _ids(frame, records, source.locomo, path, "the source")
            frame["source_record"] = [r.locator for r in records]
        if source.judgments is not None:
            frame = _judgment_rows(frame, records, source.judgments, path)
            labels["score"] = f"{source.judgments}.<key>"
        name_system(frame, name, render(source.default_system, path), path)
        frame = finish(frame, path, labels)
        notes = matched + list(frame.attrs.get("read_notes", []))
        fmt = "recipe"
        parts = None
    if source.judge is not None:
        frame["judge"] = render(source.judge, path)
    if source.run is not None:
        if "run" in frame:
            raise VerdictError(f"{source.origin}: run is given both as a label and as a field; keep one.")
        frame["run"] = render(source.run, path)
    for column, value in source.columns.items():
        if column in frame:
            raise VerdictError(f"{where(path, None, column)}: the file already has this column; the "
                               f"constant in {source.origin} would overwrite it. Drop one.")
        frame[column] = value
    frame.attrs = {"read_notes": list(notes), "format": fmt, "parts": parts}
    return frame, source.system is not None


def _join_frame(join: Join, base: Path, systems: Iterable[str]) -> tuple[pd.DataFrame, list[str]]:
    from memdiag.io.readers._expand import expand

    files, notes = expand(join.files, base)
    frames = []
    for path in files:
        records = records_of(path, join.records, join.fields)
        frame, _ = _frame(join.fields, records, path)
        frame = _ids(frame, records, join.locomo, path, "the side file", attributes=False)
        frame["query_id"] = frame["query_id"].astype(str).mask(frame["query_id"].isna())
        if frame["query_id"].isna().any():
            first = records[int(np.argmax(frame["query_id"].isna().to_numpy()))].locator
            raise VerdictError(f"{where(path, first, 'query_id')}: no query id. Every side record needs one.")
        if join.system is not None:
            if "system" in frame:
                raise VerdictError(f"{join.origin}: 'system' is both a key and a field; keep one.")
            frame["system"] = render(join.system, path)
        frames.append(_typed(frame, [r.locator for r in records], path, notes))
    side = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    keys = ["system", "query_id"] if "system" in side else ["query_id"]
    dup = side.duplicated(keys)
    if dup.any():
        key = side.loc[dup.idxmax(), keys].tolist()
        raise VerdictError(f"{join.origin}: two side records for {', '.join(keys)} = {tuple(key)!r}. "
                           "Give one record per query (and system).")
    if "system" in side:
        unknown = sorted(set(side["system"]) - set(systems))
        if unknown:
            raise VerdictError(f"{join.origin}: system {unknown[0]!r} is not among the verdicts' systems "
                               f"({listing(sorted(systems))}).")
    return side, notes


def apply_joins(df: pd.DataFrame, joins: Iterable[Join], base: Path) -> tuple[pd.DataFrame, list[str]]:
    """Attach the joins' per-query columns to the verdicts by query_id (and system).

    Verdicts of queries a side file does not list get missing values, counted in a note; side
    records of queries no verdict has are counted in a note too.
    """
    notes: list[str] = []
    systems = set(df["system"])
    for join in joins:
        side, expand_notes = _join_frame(join, base, systems)
        notes += expand_notes
        keys = ["system", "query_id"] if "system" in side else ["query_id"]
        columns = [c for c in side.columns if c not in keys]
        for column in columns:
            values = side.set_index(keys)[column]
            index = pd.MultiIndex.from_frame(df[keys]) if len(keys) == 2 else pd.Index(df["query_id"])
            attached = values.reindex(index).to_numpy()
            target = df["system"].isin(set(side["system"])).to_numpy() if "system" in side else np.ones(len(df), bool)
            if column in df:
                clash = target & df[column].notna().to_numpy()
                if clash.any():
                    raise VerdictError(f"{join.origin}: column {column!r} is already in the verdicts (e.g. "
                                       f"{df['source_file'].iloc[int(np.argmax(clash))]}); the join would "
                                       "overwrite it. Map it to another name.")
                df[column] = np.where(target, attached, df[column].to_numpy())
            else:
                blank = np.nan if side[column].dtype.kind in "fiub" else None
                df[column] = pd.Series(np.where(target, attached, blank), index=df.index,
                                       dtype=float if blank is not None else object)
        known = pd.MultiIndex.from_frame(df[keys]) if len(keys) == 2 else pd.Index(df["query_id"])
        side_keys = pd.MultiIndex.from_frame(side[keys]) if len(keys) == 2 else pd.Index(side["query_id"])
        lacking = ~known.isin(side_keys)
        if "system" in side:
            lacking &= df["system"].isin(set(side["system"])).to_numpy()
        unused = ~side_keys.isin(known)
        if lacking.any():
            answers = df.loc[lacking, ["system", "query_id"]].drop_duplicates()
            per = ", ".join(f"{name} {k}" for name, k in answers.groupby("system").size().items())
            notes.append(Note(f"{join.origin}: {len(answers)} answers are not in the side files (per system: {per}); "
                              f"their {', '.join(columns)} stay missing: {listing(pd.unique(answers['query_id']))}",
                              code="join-unmatched-answers", severity="caution"))
        if unused.any():
            notes.append(Note(f"{join.origin}: {int(unused.sum())} side records match no verdict and are not used: "
                              f"{listing(side.loc[unused, 'query_id'])}", code="join-unused-records"))
    return df, notes


def _typed(frame: pd.DataFrame, locators: list, path: Path, notes: list[str]) -> pd.DataFrame:
    """A side file's columns in canonical types: 0/1 labels read by the verdict rule (text that is
    no label kept missing and noted), costs as numbers, attributes as text; errors name the file."""
    from memdiag.io.readers._common import (
        NUMBER_COLUMNS,
        TEXT_COLUMNS,
        VERDICT_COLUMNS,
        _convert,
        _number,
        as_text,
        unparsable_note,
        verdict,
    )

    records = pd.Series(locators, index=frame.index)
    for column in frame.columns:
        if column in VERDICT_COLUMNS:
            rejected: list = []
            frame[column] = _convert(frame[column], verdict, records, path, column, "a 0/1 label", lenient=rejected)
            if rejected:
                notes.append(unparsable_note(rejected, path, column))
        elif column in NUMBER_COLUMNS:
            frame[column] = _convert(frame[column], _number, records, path, column, "a number")
        elif column in TEXT_COLUMNS:
            frame[column] = as_text(frame[column])
    return frame

