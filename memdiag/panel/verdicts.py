"""Canonical per-query verdicts (SPEC §1): reading, validation and alignment into a :class:`Panel`.

One record is one judgment of one system's answer to one query. :func:`read_verdicts` turns
released files into the canonical long DataFrame (see :mod:`memdiag.io.schema`), :func:`validate`
checks it and summarises it, and :func:`align` builds the paired, immutable array view that
every statistic is computed from, applying the missing-query and missing-verdict policies and
recording them, with counts, in ``Panel.notes``.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from memdiag.core.kinds import FRACTION
from memdiag.core.notes import Note
from memdiag.core.result import as_result
from memdiag.errors import VerdictError, listing, shown, where
from memdiag.io.schema import (
    BINARY_LABELS,
    CANONICAL,
    COSTS,
    JUDGE,
    PROVENANCE,
    QUERY_ATTRIBUTES,
    REQUIRED,
    RUN,
)

MissingQueryPolicy = Literal["error", "drop", "wrong"]
MissingVerdictPolicy = Literal["as-wrong", "exclude"]


# --------------------------------------------------------------------------------------------
# reading
# --------------------------------------------------------------------------------------------
@dataclass
class _Read:
    """One file as read: its verdicts, whether its system was named by the user, whether its
    layout splits one run into several files."""

    path: Path
    frame: pd.DataFrame
    explicit: bool
    parts: str | None = None


class _Names:
    """A name for every file, or per file from a mapping {path, name, stem or folder: value};
    remembers which keys matched so that a key matching no file is an error."""

    def __init__(self, value: str | Mapping[str, str] | None, option: str):
        self.value, self.option, self.used = value, option, set()

    def __call__(self, path: Path) -> str | None:
        if self.value is None or isinstance(self.value, str):
            return self.value
        for key in (str(path), path.name, path.stem, str(path.parent), path.parent.name):
            if key in self.value:
                self.used.add(key)
                return self.value[key]
        return None

    def check(self, files: list[Path]) -> None:
        if isinstance(self.value, Mapping):
            unused = [k for k in self.value if k not in self.used]
            if unused:
                raise VerdictError(f"{self.option} {unused[0]!r}: matches no input file (inputs: "
                                   f"{listing(map(str, files), 4)}). Give the path, name or folder of a file "
                                   "that is read.")


def _path_names(path: Path) -> set[str]:
    """The system names a layout derives from a file's path (stem, folder, first name part)."""
    from memdiag.io.readers._open import stem

    return {stem(path), path.stem, path.resolve().parent.name, path.name.split(".", 1)[0]}


def _disambiguate(reads: list[_Read], notes: list[str]) -> None:
    """Default system names given by files of several folders (``<run>/eval_results.json``) become
    the nearest folder names that tell the files apart (``<run>``), with a note."""
    groups: dict[str, list[_Read]] = {}
    for read in reads:
        systems = pd.unique(read.frame["system"])
        if not read.explicit and len(systems) == 1 and systems[0] in _path_names(read.path):
            groups.setdefault(systems[0], []).append(read)
    for name, group in groups.items():
        parents = list(dict.fromkeys(r.path.resolve().parent for r in group))
        if len(parents) < 2:
            continue
        for k in range(1, max(len(p.parts) for p in parents) + 1):
            tails = {p: "/".join(p.parts[-k:]) for p in parents}
            if len(set(tails.values())) == len(parents):
                break
        for read in group:
            read.frame["system"] = tails[read.path.resolve().parent]
        notes.append(Note(f"{len(group)} files in {len(parents)} folders give the system name '{name}': each is "
                          f"named after its folder ({listing(dict.fromkeys(tails.values()))})",
                          code="system-named-after-folder", severity="caution"))


def _rater_keys(frame: pd.DataFrame, system: str) -> set:
    rows = frame[frame["system"] == system]
    judges = rows["judge"] if "judge" in rows else pd.Series(None, index=rows.index, dtype=object)
    runs = rows[RUN] if RUN in rows else pd.Series(None, index=rows.index, dtype=object)
    return set(zip(judges.where(judges.notna(), None), runs.where(runs.notna(), None), rows["repeat"]))


def _merge_rules(reads: list[_Read], notes: list[str]) -> None:
    """Several files giving one system: named so by the user, parts of one run, or different
    judges/repeats of it; anything else is an error (it would merge two runs)."""
    owners: dict[str, list[_Read]] = {}
    for read in reads:
        for name in pd.unique(read.frame["system"]):
            owners.setdefault(name, []).append(read)
    for name, group in owners.items():
        if len(group) < 2:
            continue
        files = listing([str(r.path) for r in group], 3)
        judges = [tuple(pd.unique(r.frame.loc[r.frame["system"] == name, JUDGE].dropna())) if JUDGE in r.frame
                  else () for r in group]
        if all(len(j) == 1 for j in judges) and len({j[0] for j in judges}) == len(group):
            files = f"one per judge ({', '.join(sorted(j[0] for j in judges))})"
        if all(r.explicit for r in group):
            notes.append(Note(f"system '{name}' is read from {len(group)} files, as named: {files}",
                              code="system-from-files", concerns=(name,)))
            continue
        if all(r.parts for r in group) and len({r.path.resolve().parent for r in group}) == 1:
            notes.append(Note(f"system '{name}' is read from {len(group)} files (one per {group[0].parts})",
                              code="system-from-files", concerns=(name,)))
            continue
        keys = [_rater_keys(r.frame, name) for r in group]
        if sum(len(k) for k in keys) == len(set().union(*keys)):
            notes.append(Note(f"system '{name}' is read from {len(group)} files holding different judges or "
                              f"repeats: {files}", code="system-from-files", concerns=(name,)))
            continue
        raise VerdictError(
            f"{group[1].path}: system '{name}' is also given by {group[0].path}. Name the runs apart with "
            "--system PATH=NAME (system={path: name}); if the files are judges of one run, label them "
            "with --judge PATH=NAME (judge={path: name}) or a recipe."
        )


def _joins(join: object) -> list:
    from memdiag.io.readers._recipe import Join, _join

    if join is None:
        return []
    items = [join] if isinstance(join, (Mapping, Join)) else list(join)
    return [j if isinstance(j, Join) else _join(j, "join", i) for i, j in enumerate(items, start=1)]


def _confined(items: Iterable[str], base: Path, origin: str, section: str) -> None:
    """A VerdictError when a recipe path (or, once expanded, a file it matches through a link)
    lies outside the recipe's folder ``base``."""
    from memdiag.io.readers._expand import expand

    root, lexical = base.resolve(), Path(os.path.normpath(base.absolute()))

    def outside(path: Path, shown: object) -> None:
        raise VerdictError(f"{origin}: the {section} path {shown} lies outside the recipe's folder {root}; a "
                           "recipe reads only files in its own folder (a recipe from a download could otherwise "
                           "read any file). Pass --allow-outside (Python: allow_outside=True) if you trust it, or "
                           "name the file on the command line.")

    for item in items:
        written = Path(item) if Path(item).is_absolute() else base / item
        if not Path(os.path.normpath(written.absolute())).is_relative_to(lexical):  # before any walk
            outside(written, item)
        for path in expand([item], base)[0]:
            if not path.resolve().is_relative_to(root):  # a symbolic link leading out
                outside(path, f"{item} (through a link, {path})")


def read_verdicts(
    paths: str | Path | Iterable[str | Path] | None = None,
    format: str = "auto",
    system: str | Mapping[str, str] | None = None,
    fields: Mapping[str, object] | None = None,
    *,
    records: str | None = None,
    judge: str | Mapping[str, str] | None = None,
    join: Mapping | Iterable[Mapping] | None = None,
    recipe: str | Path | Mapping | None = None,
    dataset: str | Path | None = None,
    allow_outside: bool = False,
) -> pd.DataFrame:
    """Read released per-query verdict files into one canonical long DataFrame (SPEC §1).

    Parameters
    ----------
    paths
        A file, a folder (every .json/.jsonl/.csv/.tsv/.parquet file below it, compressed or not;
        other files are skipped and named in a note), a glob pattern, or a list of these. With a
        ``recipe``, files that replace the recipe's own (the recipe is then a template).
    format
        ``"auto"`` (detect each file's layout) or a layout name from
        :func:`memdiag.io.readers.known_formats`.
    system
        The system name for every file (a string), or a mapping from file path (as given, or
        its name, stem or folder) to system name; a key that matches no file is an error.
        Default: each layout's rule (the file or folder name); files of several folders that get
        the same name are named after the nearest folders that tell them apart (noted).
    fields
        Canonical column -> source field, for any JSON / JSONL / CSV of per-query records (the
        mapped reader), e.g. ``{"query_id": "question_id", "score": "correct"}``; with
        ``records`` a field may also be a mapping (:mod:`memdiag.io.readers._fields`).
    records
        Where the records are in each JSON file (``"results"``, ``"data.items"``; an object keyed
        by query id gives its keys as ``query_id``); needs ``fields``.
    judge
        The rater label of every file (a string) or per file (a mapping like ``system``): the
        files of one system by different judges are kept apart in a ``judge`` column.
    join
        Side files with per-query columns (a mapping or a list of them, with the keys of a
        recipe's ``join`` entries: ``files``, ``records``, ``fields``, ``system``).
    recipe
        A release recipe (YAML file or mapping, docs/recipes.md) describing sources and joins;
        it replaces ``format``, ``system``, ``fields``, ``records`` and ``judge``.
    dataset
        The benchmark's dataset file (LoCoMo-10's ``locomo10.json``): records without a query id
        get their canonical id by conversation and question text
        (:mod:`memdiag.io.readers._dataset`; map ``question`` and ``cluster``, optionally
        ``expected`` and ``category``); records that cannot be matched are left out and listed
        in a note, never guessed. Overrides a recipe's ``dataset:``.
    allow_outside
        Let a recipe file read ``sources`` and ``join`` files outside its own folder (``../``,
        absolute paths, links leading out). By default such a path is an error: a recipe shipped
        inside a downloaded release could otherwise read any file, and its contents would reach
        replay tables and reports. Files given as ``paths`` or ``join`` are always read.

    Returns
    -------
    pandas.DataFrame
        Canonical columns (``system``, ``query_id``, ``score``, ``repeat``, ``judge`` when
        judges were named, the optional ones a layout has) and any extra per-query columns, plus
        ``source_file`` and ``source_record``. Missing verdicts stay as NaN rows: they are
        counted, never dropped. ``attrs["read_notes"]`` lists what reading skipped, renamed,
        merged or could not parse; ``attrs["labels"]`` the recipe's short names for the figures.

    Raises
    ------
    VerdictError
        Unknown layout, empty or unreadable file, a record that is not a verdict, a duplicate
        ``(system, query_id, judge, repeat)``, two files that give the same system name (unless
        named so, parts of one run, or different judges/repeats), a ``system``/``judge`` key
        matching no file, a bad recipe; a DataFrame or nothing given as ``paths``; ``records``
        without ``fields``; a recipe together with ``format``, ``system``, ``fields``, ``records``
        or ``judge``; a recipe file's ``sources`` or ``join`` path outside its folder (unless
        ``allow_outside``).

    References
    ----------
    SPEC §1.1 (the record), SPEC §1.2 (hard rules), SPEC §1.6 (released layouts) and SPEC §1.7
    (canonical LoCoMo ids); docs/recipes.md (release recipes); Raw-RAG paper G.3 (an unusable
    judge output is a missing verdict, scored 0 by default).

    Examples
    --------
    A long CSV (one row per verdict; an empty cell is a missing verdict, kept as NaN):

    >>> import tempfile
    >>> from pathlib import Path
    >>> tmp = tempfile.TemporaryDirectory()
    >>> folder = Path(tmp.name)
    >>> _ = (folder / "runs.csv").write_text("system,query_id,score\\nmem,q1,1\\nmem,q2,0\\nrag,q1,1\\nrag,q2,\\n")
    >>> df = read_verdicts(folder / "runs.csv")
    >>> df[["system", "query_id", "score", "repeat"]].to_dict("records")  # doctest: +NORMALIZE_WHITESPACE
    [{'system': 'mem', 'query_id': 'q1', 'score': 1.0, 'repeat': 0},
     {'system': 'mem', 'query_id': 'q2', 'score': 0.0, 'repeat': 0},
     {'system': 'rag', 'query_id': 'q1', 'score': 1.0, 'repeat': 0},
     {'system': 'rag', 'query_id': 'q2', 'score': nan, 'repeat': 0}]
    >>> df.attrs["format"], df["source_record"].tolist()
    ('long', [1, 2, 3, 4])
    >>> tmp.cleanup()
    """
    from memdiag.io import (
        readers as formats,  # the readers import this module's siblings; keep the import local
    )
    from memdiag.io.readers._expand import expand
    from memdiag.io.readers._fields import parse_field
    from memdiag.io.readers._recipe import (
        Source,
        apply_joins,
        load_recipe,
        read_source_file,
    )

    if isinstance(paths, pd.DataFrame):
        raise VerdictError("read_verdicts: expected paths (files, folders or glob patterns), got a DataFrame; "
                           "a frame is already read: pass it to md.check, md.prepare or a diagnostic.")
    notes: list[str] = []
    reads: list[_Read] = []
    joins = _joins(join)
    if recipe is not None:
        given = [name for name, value in (("format", format != "auto"), ("system", system), ("fields", fields),
                                          ("records", records), ("judge", judge)) if value]
        if given:
            raise VerdictError(f"a recipe describes how to read the files; drop {given[0]}= (put it in the "
                               "recipe instead).")
        plan = load_recipe(recipe)
        if paths is not None:
            given, found = expand(paths)
            notes += found
            plan = plan.with_files(given)
        if isinstance(recipe, (str, Path)) and not allow_outside:
            # the recipe's own paths stay in its folder; files named by the caller are theirs, and side
            # files a template finds beside them stay in their folder
            if paths is None:
                for group in plan.sources:
                    _confined(group.files, plan.base, plan.origin, "sources")
            for group in plan.joins:
                for item in group.files:
                    beside = plan.beside is not None and Path(item).is_relative_to(plan.beside)
                    _confined([item], plan.beside if beside else plan.base, plan.origin, "join")
            if plan.dataset is not None and dataset is None:
                _confined([str(plan.dataset)], plan.base, plan.origin, "dataset")
        if dataset is not None:
            plan = plan.with_dataset(dataset)
        base = plan.base
        joins = list(plan.joins) + joins
        all_files = []
        for source in plan.sources:
            files, found = expand(source.files, base)
            notes += found
            all_files += files
            for path in files:
                frame, explicit = read_source_file(source, path)
                reads.append(_Read(path, frame, explicit, frame.attrs.get("parts")))
    else:
        if paths is None:
            raise VerdictError("no input: give verdict files, folders or glob patterns (or a recipe).")
        if records is not None and not fields:
            raise VerdictError(f"records={records!r} says where the records are; add fields= to map them "
                               "(--field query_id=<field> --field score=<field>).")
        all_files, found = expand(paths)
        notes += found
        names, raters = _Names(system, "--system"), _Names(judge, "--judge")
        if dataset is not None and not fields:
            raise VerdictError(f"dataset={str(dataset)!r} gives ids to records that have none; map their question "
                               "text and conversation with fields= (--field question=<field> --field "
                               "cluster=<conversation field>).")
        parsed = tuple(parse_field(str(k), v, "fields") for k, v in fields.items()) \
            if fields and (records is not None or dataset is not None) else None
        for path in all_files:
            name, rater = names(path), raters(path)
            if parsed is not None:
                source = Source((str(path),), records=records, fields=parsed, system=name, judge=rater,
                                default_system="{stem}", origin="--records",
                                dataset=Path(dataset).resolve() if dataset is not None else None)
                frame, _ = read_source_file(source, path)
            else:
                frame = formats.read_file(path, format=format, system=name, fields=fields)
                if rater is not None:
                    frame["judge"] = rater
            reads.append(_Read(path, frame, name is not None, frame.attrs.get("parts")))
        names.check(all_files)
        raters.check(all_files)
        base = Path(".")
    for read in reads:
        notes += read.frame.attrs.get("read_notes", [])
    given = Path(dataset) if dataset is not None else None if recipe is None else \
        plan.dataset or next((s.dataset for s in plan.sources if s.dataset is not None), None)
    if given is not None and not any(getattr(n, "code", None) == "dataset-matched" for n in notes):  # an option has an effect
        notes.append(Note(f"dataset {given.name} not used: every source's records have their own query ids (map "
                          "question: and cluster: in place of query_id to give them the dataset's canonical ids)",
                          code="dataset-unused", severity="caution", concerns=(str(given),)))
    _disambiguate(reads, notes)
    _merge_rules(reads, notes)
    frames = [read.frame for read in reads]
    df = pd.concat(frames, ignore_index=True, sort=False) if len(frames) > 1 else frames[0]
    if joins:
        df, joined = apply_joins(df, joins, base)
        notes += joined
    df = check(df)
    df.attrs["read_notes"] = list(dict.fromkeys(notes))
    if recipe is not None and plan.labels:
        df.attrs["labels"] = dict(plan.labels)  # the recipe's short names, for the figures
    return df


# --------------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------------
def _locate(df: pd.DataFrame, index: int) -> tuple[str | None, object]:
    """(file, record) of row ``index`` of ``df``, from the provenance columns when present."""
    source = df["source_file"].iloc[index] if "source_file" in df else None
    record = df["source_record"].iloc[index] if "source_record" in df else index + 1
    return (None if pd.isna(source) else str(source)), record


def _fail(df: pd.DataFrame, index: int, column: str, message: str) -> VerdictError:
    source, record = _locate(df, index)
    return VerdictError(f"{where(source, record, column)}: {message}")


def _mixed_types(values: pd.Series) -> int | None:
    """Position of the first value whose Python type differs from the first non-null one."""
    if values.dtype != object:
        return None
    kinds = values.map(lambda v: "null" if v is None or (isinstance(v, float) and np.isnan(v))
                       else ("number" if isinstance(v, (int, float, np.number)) and not isinstance(v, bool)
                             else type(v).__name__))
    kinds = kinds[kinds != "null"]
    if kinds.empty:
        return None
    bad = np.flatnonzero(kinds.to_numpy() != kinds.iloc[0])
    return None if bad.size == 0 else int(values.index.get_indexer([kinds.index[bad[0]]])[0])


def _flat_columns(df: object) -> None:
    """A VerdictError for a frame whose columns are not one flat set of names (a MultiIndex, or a
    column name given twice): pandas would hand back frames where memdiag expects columns."""
    if not isinstance(df, pd.DataFrame):
        return
    if isinstance(df.columns, pd.MultiIndex):
        raise VerdictError(f"<data>: the columns are a MultiIndex ({df.columns.nlevels} levels); give one level "
                           "of column names (df.columns = ['_'.join(map(str, c)).strip('_') for c in df.columns]).")
    repeated = df.columns[df.columns.duplicated()]
    if len(repeated):
        raise VerdictError(f"<data>, field '{repeated[0]}': this column appears more than once; rename or drop "
                           "the copies (df.loc[:, ~df.columns.duplicated()]).")


def check(df: pd.DataFrame) -> pd.DataFrame:
    """Check the hard rules of SPEC §1 and return ``df`` in canonical dtypes and column order.

    Hard rules (each a :class:`~memdiag.errors.VerdictError` naming file, record and field):
    the required columns exist; ids are present and of one type; ``score`` is a number in
    [0, 1] or missing; ``repeat`` is a whole number; 0/1 labels are 0, 1 or missing;
    ``(system, query_id, repeat)`` — ``(system, query_id, judge, repeat)`` when a ``judge`` column
    names the raters, with ``run`` when a ``run`` column names end-to-end runs — is unique. Missing scores are kept (NaN).

    Parameters
    ----------
    df
        Verdicts in the canonical long layout (SPEC §1.1): ``system``, ``query_id``, ``score``
        and any optional columns; ``source_file`` and ``source_record`` (when present) locate a
        bad row in the error message.

    Returns
    -------
    pandas.DataFrame
        ``df`` with a fresh index, ids as strings, ``score`` and the labels and costs as floats,
        ``repeat`` as int (0 when absent), canonical columns first and the provenance columns
        last. The frame carries a digest of its checked contents in ``attrs`` so that passing it
        again unedited (to :func:`check`, :func:`memdiag.prepare` or a diagnostic) is not
        re-checked; an edit, in place or not, makes it checked again.

    Raises
    ------
    VerdictError
        An empty table; a required column missing; an empty or mixed-type id; a score that is
        not a number in [0, 1]; a ``repeat`` that is not a whole number ≥ 0; a 0/1 label that is
        not 0 or 1; a negative cost; a duplicate ``(system, query_id[, judge], repeat)``; columns
        that are a MultiIndex or name a column twice. The message names the file, record and field.

    References
    ----------
    SPEC §1.1 (the record) and SPEC §1.2 (hard rules).

    Examples
    --------
    >>> check(pd.DataFrame({"system": ["a", "a"], "query_id": ["q1", "q2"], "score": [1, None]}))
      system query_id  score  repeat
    0      a       q1    1.0       0
    1      a       q2    NaN       0
    >>> check(pd.DataFrame({"system": ["a"], "query_id": ["q1"], "score": [2]}))
    Traceback (most recent call last):
    ...
    memdiag.errors.VerdictError: <data>, record 1, field 'score': 2.0 is outside [0.0, 1.0]. Rescale the scores (e.g. a 1-5 grade needs a threshold) or map another column.
    """
    _flat_columns(df)
    if df.attrs.get(_CHECKED) is not None and df.attrs[_CHECKED] == _fingerprint(df):
        return df
    if len(df) == 0:
        raise VerdictError("the verdict table is empty: no record was read. Check the files.")
    df = df.reset_index(drop=True)
    for column in REQUIRED:
        if column not in df:
            source = str(df["source_file"].iloc[0]) if "source_file" in df else None
            raise VerdictError(
                f"{where(source, None, column)}: required column is missing (have: "
                f"{', '.join(map(str, df.columns))}). Map it with --field {column}=<column>."
            )
    out = df.copy()
    for column in ("system", "query_id") + tuple(c for c in (JUDGE, RUN, *QUERY_ATTRIBUTES) if c in df):
        values = out[column]
        bad = _mixed_types(values)
        if bad is not None:
            raise _fail(out, bad, column, f"mixed value types in this id column ({shown(values.iloc[bad])} "
                        f"vs {shown(values.dropna().iloc[0])}). Write every id the same way (e.g. all strings).")
        if column in ("system", "query_id"):
            null = values.isna().to_numpy()
            if null.any():
                raise _fail(out, int(np.flatnonzero(null)[0]), column,
                            "is empty. Every verdict needs a system and a query id.")
        out[column] = values.astype("string").astype(object).where(values.notna(), None) \
            if column not in ("system", "query_id") else values.astype(str)
    out["score"] = _numeric(out, "score", low=0.0, high=1.0)
    if "repeat" in out:
        rep = _numeric(out, "repeat", low=0, high=None)
        missing = np.flatnonzero(rep.isna().to_numpy() | (rep % 1 != 0).to_numpy())
        if missing.size:
            raise _fail(out, int(missing[0]), "repeat", f"{shown(out['repeat'].iloc[missing[0]])} is not a "
                        "whole number. Judge repetitions are numbered 0, 1, 2, ...")
        out["repeat"] = rep.astype(np.int64)
    else:
        out["repeat"] = np.zeros(len(out), dtype=np.int64)
    for column in BINARY_LABELS:
        if column in out:
            values = _numeric(out, column, low=0.0, high=1.0)
            odd = np.flatnonzero(values.notna().to_numpy() & ~values.isin([0.0, 1.0]).to_numpy())
            if odd.size:
                raise _fail(out, int(odd[0]), column, f"{float(values.iloc[odd[0]])!r} is not 0 or 1.")
            out[column] = values
    for column in COSTS:
        if column in out:
            out[column] = _numeric(out, column, low=0.0, high=None)
    unit = ["system", "query_id"] + [c for c in (JUDGE, RUN) if c in out] + ["repeat"]
    settings = [c for c in ("benchmark", "model") if c in out]
    dup = out.duplicated(unit + settings, keep="first").to_numpy()
    if dup.any():
        i, key = _first_copy(out, dup, unit + settings)
        raise _fail(out, i, "query_id", f"duplicate verdict for ({', '.join(unit + settings)}) = "
                    f"{shown(key)} ({int(dup.sum())} duplicate rows in all). Give each judge "
                    "repetition its own 'repeat' number, each judge its own 'judge' label, each end-to-end "
                    "run its own 'run' label (recipe run: \"{folder}\"), or remove the copies.")
    # no copy within a setting, but settings (benchmarks, models) that reuse query ids: not one panel
    across = out.duplicated(unit, keep="first").to_numpy() if settings else dup
    if across.any():
        i, key = _first_copy(out, across, unit)
        raise _fail(out, i, "query_id", f"the same ({', '.join(unit)}) = {shown(key)} appears in "
                    f"several settings ({' × '.join(settings)}: {int(across.sum())} such rows in all): their "
                    "verdicts share query ids and cannot be aligned as one panel. Prepare one setting at a "
                    f"time (md.prepare(df[df['{settings[0]}'] == ...])), or every setting with "
                    "md.prepare_settings(df) (command line: memdiag across).")
    order = [c for c in CANONICAL if c in out] + [c for c in out.columns
                                                   if c not in CANONICAL and c not in PROVENANCE] \
        + [c for c in PROVENANCE if c in out]
    out = out[order]
    out.attrs[_CHECKED] = _fingerprint(out)
    return out


def _first_copy(out: pd.DataFrame, copies: np.ndarray, columns: list[str]) -> tuple[int, tuple]:
    """The row of the first copy ``copies`` marks and its values in ``columns`` (Python scalars)."""
    i = int(np.flatnonzero(copies)[0])
    return i, tuple(k.item() if isinstance(k, np.generic) else k for k in out.loc[i, columns].tolist())


#: ``attrs`` key of the fingerprint :func:`check` leaves on a frame it has checked.
_CHECKED = "memdiag.checked"


def _fingerprint(df: pd.DataFrame) -> str:
    """What identifies a checked frame: a digest of its shape, column names and dtypes and the
    contents of every column :func:`check` checks (ids, scores, repeats, labels, costs). Any frame
    whose checked contents differ — a filter, a copy with an edit, an edit in place such as a
    copied query id — has another digest and is checked again; a frame equal to one
    :func:`check` returned (the frame itself, an unedited copy) is not.

    Arrow-backed columns (pandas' ``str``) are hashed through their buffers and numpy columns
    through their bytes (SHA-1, hardware-accelerated and not used for security: about 0.07 s for
    a million rows, against about 2.7 s to check them again; ``benchmarks/bench_load.py``);
    object columns through :func:`pandas.util.hash_array`.
    """
    digest = hashlib.sha1(usedforsecurity=False)
    digest.update(repr((len(df), tuple(map(str, df.columns)), tuple(map(str, df.dtypes)))).encode())
    for column in _CHECKED_COLUMNS:
        if column not in df:
            continue
        values = df[column].array
        if hasattr(values, "__arrow_array__"):
            arrow = values.__arrow_array__()
            for chunk in getattr(arrow, "chunks", [arrow]):
                digest.update(repr((chunk.offset, len(chunk))).encode())
                for buffer in chunk.buffers():
                    if buffer is not None:
                        digest.update(buffer)
        else:
            data = values.to_numpy() if not isinstance(values, np.ndarray) else values
            if data.dtype == object:
                data = pd.util.hash_array(data)
            digest.update(np.ascontiguousarray(data).view(np.uint8))
    return digest.hexdigest()


#: The columns whose contents :func:`check` checks, so whose edits void its fingerprint.
_CHECKED_COLUMNS: tuple[str, ...] = tuple(dict.fromkeys(
    ("system", "query_id", JUDGE, *QUERY_ATTRIBUTES, "score", "repeat", *BINARY_LABELS, *COSTS)))


def _numeric(df: pd.DataFrame, column: str, low: float | None, high: float | None) -> pd.Series:
    """Coerce a column to float; a non-number or an out-of-range value is a VerdictError."""
    raw = df[column]
    if raw.dtype == bool:
        return raw.astype(float)
    values = pd.to_numeric(raw, errors="coerce").astype(float)
    bad = np.flatnonzero(values.isna().to_numpy() & raw.notna().to_numpy())
    if bad.size:
        raise _fail(df, int(bad[0]), column, f"{shown(raw.iloc[bad[0]])} is not a number. Fix the record, or "
                    f"map a numeric column with --field {column}=<column>.")
    outside = (values < low) if low is not None else pd.Series(False, index=values.index)
    if high is not None:
        outside |= values > high
    bad = np.flatnonzero(outside.to_numpy())
    if bad.size:
        span = f"[{low}, {high}]" if high is not None else f">= {low}"
        raise _fail(df, int(bad[0]), column, f"{float(values.iloc[bad[0]])!r} is outside {span}. Rescale the "
                    "scores (e.g. a 1-5 grade needs a threshold) or map another column.")
    return values


def validate(df: pd.DataFrame) -> pd.DataFrame:
    """Check ``df`` (see :func:`check`) and summarise it per system.

    Parameters
    ----------
    df
        Canonical verdicts (from :func:`read_verdicts` or built by hand); its
        ``attrs["read_notes"]`` are carried into the summary's notes.

    Returns
    -------
    pandas.DataFrame
        One row per system: ``queries`` (distinct query ids), ``rows``, ``repeats`` (judgments
        per query and run, min-max), ``runs`` (end-to-end runs, when a ``run`` column names them), ``missing_verdicts`` (rows with no usable score), ``missing_queries``
        (queries other systems have and this one lacks), ``mean_score`` (over usable verdicts);
        ``judges`` (the judges of the system, when a ``judge`` column names them) and
        ``missing_<label>`` (queries without that 0/1 label — ``sufficient``, ... — which the
        label diagnostics leave out) when some label is missing.
        ``attrs["notes"]`` lists the findings a user must see: what reading skipped, renamed,
        merged or could not parse (``attrs["read_notes"]`` of :func:`read_verdicts`), unpaired
        queries by name, missing labels per system, per-query attributes that disagree across
        systems, and sources whose own category labels disagree with the canonical category.

    Raises
    ------
    VerdictError
        ``df`` breaks a hard rule of SPEC §1.2 (see :func:`check`).

    References
    ----------
    SPEC §1.2 (hard rules), SPEC §1.4 (pairing: unpaired queries, attributes that differ between
    systems) and SPEC §6.2 (LoCoMo category naming conventions).

    Examples
    --------
    >>> df = pd.DataFrame({"system": ["mem", "mem", "rag"], "query_id": ["q1", "q2", "q1"],
    ...                    "score": [1, 0, None]})
    >>> summary = validate(df)
    >>> summary[["system", "queries", "missing_verdicts", "missing_queries"]].to_dict("records")
    [{'system': 'mem', 'queries': 2, 'missing_verdicts': 0, 'missing_queries': 0}, {'system': 'rag', 'queries': 1, 'missing_verdicts': 1, 'missing_queries': 1}]
    >>> summary.attrs["notes"]
    ["system 'rag' lacks 1 of 2 queries: q2"]
    """
    read_notes = list(df.attrs.get("read_notes", ()))
    df = check(df)
    all_queries = pd.Index(pd.unique(df["query_id"]))
    runs = RUN in df and df[RUN].notna().any()
    per_query = df.groupby(["system", "query_id"] + ([RUN] if runs else []), sort=False, dropna=False).size()
    reps = per_query.groupby(level="system", sort=True).agg(["min", "max"])
    reps["size"] = df.groupby("system", sort=True)["query_id"].nunique()
    stats = df.groupby("system", sort=True).agg(rows=("query_id", "size"),
                                                missing_verdicts=("score", lambda s: int(s.isna().sum())),
                                                mean_score=("score", "mean"))
    rows = []
    notes: list[str] = []
    for name in stats.index:
        lo, hi, n_queries = (int(v) for v in reps.loc[name, ["min", "max", "size"]])
        rows.append({
            "system": name,
            "queries": n_queries,
            "rows": int(stats.loc[name, "rows"]),
            "repeats": f"{lo}" if lo == hi else f"{lo}-{hi}",
            **({"runs": max(1, int(df.loc[df["system"] == name, RUN].nunique()))} if runs else {}),
            "missing_verdicts": int(stats.loc[name, "missing_verdicts"]),
            "missing_queries": len(all_queries) - n_queries,
            "mean_score": float(stats.loc[name, "mean_score"]),
        })
        if n_queries < len(all_queries):
            lacking = all_queries.difference(per_query.loc[name].index)
            notes.append(Note(f"system '{name}' lacks {len(lacking)} of {len(all_queries)} queries: "
                              f"{listing(lacking)}", code="missing-queries", severity="caution", concerns=(name,)))
    notes.extend(_label_gaps(df, rows))
    notes.extend(_attribute_conflicts(df))
    notes.extend(_label_disagreements(df))
    notes.extend(_source_conventions(df))
    notes = read_notes + notes
    summary = as_result(pd.DataFrame(rows), {"mean_score": FRACTION})
    summary.attrs["notes"] = notes
    summary.attrs["n_queries"] = len(all_queries)
    return summary


def _label_gaps(df: pd.DataFrame, rows: list[dict]) -> list[str]:
    """Add ``judges`` and ``missing_<label>`` to the per-system rows; notes on missing labels."""
    if JUDGE in df and df[JUDGE].notna().any():
        judges = df.dropna(subset=[JUDGE]).groupby("system")[JUDGE].unique()
        for row in rows:
            row["judges"] = ", ".join(sorted(judges.get(row["system"], []))) or "-"
    notes = []
    for column in BINARY_LABELS:
        if column not in df:
            continue
        answered = df.groupby(["system", "query_id"], sort=True)[column].apply(lambda v: v.notna().any())
        lacking = (~answered).groupby(level="system").sum()
        if not lacking.any():
            continue
        for row in rows:
            row[f"missing_{column}"] = int(lacking.get(row["system"], 0))
        per = ", ".join(f"{name} {int(k)}" for name, k in lacking.items() if k)
        notes.append(Note(f"'{column}' is missing for some queries ({per}): the diagnostics that need it leave those "
                          "queries out and say so (label_missing='error' / --label-missing error refuses them)",
                          code="label-missing", severity="caution"))
    return notes


def _attribute_conflicts(df: pd.DataFrame) -> list[str]:
    notes = []
    for column in QUERY_ATTRIBUTES:
        if column in df:
            distinct = df.dropna(subset=[column]).groupby("query_id")[column].nunique()
            conflicted = distinct.index[distinct > 1]
            if len(conflicted):
                notes.append(Note(f"{len(conflicted)} queries carry different '{column}' values across "
                                  f"systems (the first non-missing value is used): {listing(conflicted)}",
                                  code="attribute-conflict", severity="caution"))
    return notes


def _label_disagreements(df: pd.DataFrame) -> list[str]:
    """Where a source's own category label names another category than the canonical one."""
    if "source_category" not in df or "category" not in df:
        return []
    pairs = df.dropna(subset=["source_category", "category"])
    pairs = pairs[~pairs["source_category"].astype(str).str.fullmatch(r"\d+")]
    norm = pairs["source_category"].astype(str).str.lower().str.replace(r"[\s_]+", "-", regex=True)
    pairs = pairs[norm != pairs["category"].astype(str).str.lower()]
    notes = []
    counts = pairs.groupby(["system", "source_category", "category"], sort=True)["query_id"].nunique()
    for (system, label, canonical), n in counts.items():
        notes.append(Note(f"system '{system}' labels {n} '{canonical}' queries as '{label}' "
                          "(the canonical category is used)", code="category-relabel", concerns=(system,)))
    return notes


def _source_conventions(df: pd.DataFrame) -> list[str]:
    """For LoCoMo data, the naming convention each system's own labels follow (SPEC §6.2), so a
    reader can match the source's published table to memdiag's integer-and-name columns."""
    from memdiag.panel import conventions as _conventions

    if "source_category" not in df or "category" not in df:
        return []
    pairs = df.dropna(subset=["source_category", "category"])
    pairs = pairs[~pairs["source_category"].astype(str).str.fullmatch(r"\d+")]
    canonical = _conventions.canonical("locomo")
    named: dict[tuple[str, str, int, str], list[str]] = {}  # one note per convention and example
    for system, rows in pairs.groupby("system", sort=True):
        ids = _conventions.category_ids(pd.unique(rows["category"]), "locomo")
        if not ids or len(ids) < rows["category"].nunique():
            continue
        labels = rows.drop_duplicates("category").set_index("category")["source_category"]
        found = _conventions.identify({ids[c]: labels[c] for c in ids}, "locomo")
        if found and canonical.name not in found:
            example = min(ids, key=ids.get)
            key = (" / ".join(found), str(labels[example]), ids[example], _conventions.labelled(example))
            named.setdefault(key, []).append(str(system))
    notes = []
    for (convention, label, integer, labelled), systems in named.items():
        who = f"system '{systems[0]}' names" if len(systems) == 1 else \
            f"{len(systems)} systems ({', '.join(repr(s) for s in systems)}) name"
        notes.append(Note(f"{who} LoCoMo's categories by the {convention} convention: its '{label}' is category "
                          f"{integer}, shown as '{labelled}' (SPEC §6.2)", code="category-convention",
                          concerns=systems))
    return notes


# --------------------------------------------------------------------------------------------
# the Panel
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Panel:
    """The aligned, paired array view of verdicts that every statistic is computed from.

    Attributes
    ----------
    scores
        ``(N, S)`` float array: per query and system, the mean over judge repetitions of the
        chosen metric, after the policies in ``notes``. No NaN.
    systems
        The ``S`` system names, in column order.
    query_ids
        The ``N`` query ids, in row order (sorted).
    n_repeats
        ``(N, S)`` int array: how many judgments each score averages (0 for a query filled in
        by the ``wrong`` policy).
    queries
        One row per query (index ``query_id``), the per-query attributes present
        (``benchmark``, ``cluster``, ``stratum``, ``category``, ``phase``, ``pair_id``).
    matrices
        ``(N, S)`` float arrays of the other per-(system, query) columns (0/1 labels, costs,
        extra metrics such as ``f1``), each the mean over repetitions, NaN where absent.
    metric
        Which column ``scores`` holds (``"score"`` by default).
    notes
        What alignment did, one dict per policy application: ``{"policy", "count", "detail"}``;
        counts per system under ``"per_system"`` where they differ.

    References
    ----------
    SPEC §1.3 (one score per query) and SPEC §1.4 (pairing and the missing-data policies).

    Examples
    --------
    :func:`align` builds a Panel from verdicts:

    >>> df = pd.DataFrame({"system": ["mem", "mem", "rag", "rag"], "query_id": ["q1", "q2"] * 2,
    ...                    "score": [1, 1, 1, 0], "category": ["a", "b"] * 2})
    >>> panel = align(df)
    >>> panel.n, panel.systems, panel.scores.tolist()
    (2, ('mem', 'rag'), [[1.0, 1.0], [1.0, 0.0]])
    >>> panel.codes("category")
    (array([0, 1]), ('a', 'b'))
    >>> panel.take(systems=["rag"]).scores.ravel().tolist()
    [1.0, 0.0]
    """

    scores: np.ndarray
    systems: tuple[str, ...]
    query_ids: np.ndarray
    n_repeats: np.ndarray
    queries: pd.DataFrame
    matrices: Mapping[str, np.ndarray] = field(default_factory=dict)
    metric: str = "score"
    notes: tuple[dict, ...] = ()

    @property
    def n(self) -> int:
        """Number of aligned queries N."""
        return len(self.query_ids)

    def codes(self, column: str) -> tuple[np.ndarray, tuple[str, ...]]:
        """Integer codes ``(N,)`` and their labels for a per-query attribute (-1 where missing).

        Raises
        ------
        VerdictError
            When the verdicts have no such column.
        """
        if column not in self.queries:
            raise VerdictError(f"the verdicts have no '{column}' column (have: "
                               f"{', '.join(self.queries.columns) or 'none'}). Add it, or map it "
                               f"with --field {column}=<column>.")
        codes, labels = pd.factorize(self.queries[column], sort=True)
        return codes.astype(np.int64), tuple(map(str, labels))

    def matrix(self, name: str) -> np.ndarray:
        """The ``(N, S)`` matrix of a per-(system, query) column; ``"score"`` gives :attr:`scores`."""
        if name == self.metric:
            return self.scores
        if name not in self.matrices:
            raise VerdictError(f"the verdicts have no '{name}' column (have: "
                               f"{', '.join([self.metric, *self.matrices]) or 'none'}). Add it, or "
                               f"map it with --field {name}=<column>.")
        return self.matrices[name]

    def system_index(self, name: str) -> int:
        """Column of system ``name``; a name not in the panel is a VerdictError listing the systems."""
        if name not in self.systems:
            raise VerdictError(f"system '{name}' is not in the data (systems: {', '.join(self.systems)}).")
        return self.systems.index(name)

    def take(self, rows: np.ndarray | None = None, systems: Iterable[str] | None = None) -> Panel:
        """A sub-panel of the given query rows (bool mask or indices) and/or systems."""
        rows = np.arange(self.n) if rows is None else np.asarray(rows)
        if rows.dtype == bool:
            rows = np.flatnonzero(rows)
        cols = (np.arange(len(self.systems)) if systems is None
                else np.array([self.system_index(s) for s in systems], dtype=np.int64))
        return replace(
            self,
            scores=self.scores[np.ix_(rows, cols)],
            systems=tuple(self.systems[c] for c in cols),
            query_ids=self.query_ids[rows],
            n_repeats=self.n_repeats[np.ix_(rows, cols)],
            queries=self.queries.iloc[rows],
            matrices={k: v[np.ix_(rows, cols)] for k, v in self.matrices.items()},
        )

    def notes_text(self) -> list[str]:
        """The notes as one readable line each (:class:`~memdiag.core.notes.Note`: a missing-data policy
        that acted is a ``caution``, a judge policy ``info``)."""
        return [Note(f"{n['policy']}: {n['detail']}", code=_policy_code(n["policy"]),
                     severity="caution" if n["policy"].startswith("missing") and n.get("count") else "info")
                for n in self.notes]


def _policy_code(policy: str) -> str:
    """The note code of an alignment policy record (``"missing queries drop"`` ->
    ``"missing-queries"``, ``"judges mean"`` -> ``"judges"``)."""
    for code in ("missing queries", "missing verdicts", "judges"):
        if policy.startswith(code):
            return code.replace(" ", "-")
    return "policy"


#: The judge policies of :func:`align`: the mean over judges, or one judge by name.
JUDGES_MEAN = "mean"
#: The judge-repeat rules publishers use (SPEC §1.3): the per-run mean over judgments is ``mean``;
#: ``majority`` scores an answer 1 when more than half of its judgments say correct; ``repeat:K``
#: keeps judgment K (0-based) of every answer only.
JUDGES_MAJORITY = "majority"
JUDGES_REPEAT = "repeat:"


def repeat_rule(judges: object) -> int | str | None:
    """The judge-repeat rule a judge policy names: ``"majority"``, a repeat number for
    ``"repeat:K"``, or None (``mean``, a judge's name, None).

    >>> repeat_rule("majority"), repeat_rule("repeat:2"), repeat_rule("mean")
    ('majority', 2, None)
    """
    if judges == JUDGES_MAJORITY:
        return JUDGES_MAJORITY
    if isinstance(judges, str) and judges.startswith(JUDGES_REPEAT):
        number = judges[len(JUDGES_REPEAT):]
        if not number.isdigit():
            raise VerdictError(f"judges={judges!r}: a single judgment is named repeat:K with K a repeat number "
                               "(0 for the first judgment), e.g. repeat:0.")
        return int(number)
    return None


def check_systems(df: pd.DataFrame, systems: Sequence[str]) -> None:
    """Raise :class:`VerdictError` naming the ``systems`` that have no verdict in ``df``."""
    present = set(df["system"])
    unknown = [s for s in systems if s not in present]
    if unknown:
        raise VerdictError(f"system(s) {', '.join(unknown)} not in the data (systems: "
                           f"{', '.join(sorted(pd.unique(df['system'])))}).")


def judges_of(df: pd.DataFrame) -> list[str]:
    """The judges named in the ``judge`` column (sorted; [] without one)."""
    return sorted(map(str, pd.unique(df[JUDGE].dropna()))) if JUDGE in df else []


def _judge_policy(df: pd.DataFrame, judges: str | None, notes: list[dict]) -> tuple[pd.DataFrame, bool]:
    """Apply the judge policy: the rows to align, and whether to average over judges."""
    names = judges_of(df)
    if judges is not None and not isinstance(judges, str):
        raise VerdictError(f"judges must be 'mean', 'majority', 'repeat:K' or a judge's name, got {judges!r}.")
    rule = repeat_rule(judges)
    if rule is not None:
        return _repeat_policy(df, rule, names, notes), len(names) >= 2
    if len(names) < 2:
        if judges not in (None, JUDGES_MEAN) and judges not in names:
            raise VerdictError(f"judges={judges!r}: the verdicts name no such judge "
                               f"({', '.join(names) or 'no judge column'}).")
        return df, False
    if judges is None:
        raise VerdictError(f"the verdicts hold {len(names)} judges of the same answers ({', '.join(names)}): "
                           "choose how to score them: judges='mean' (the mean over judges) or one judge's "
                           "name (CLI: --judges mean | --judges NAME; Python: md.prepare(df, judges=...)).")
    if judges == JUDGES_MEAN:
        notes.append({"policy": "judges mean", "count": len(names),
                      "detail": f"each answer scored by the mean over its judges ({', '.join(names)})"})
        return df, True
    if judges not in names:
        raise VerdictError(f"judges={judges!r} is not a judge of these verdicts ({', '.join(names)}). "
                           "Use one of them or 'mean'.")
    labelled = df[JUDGE].notna()
    judged = set(df.loc[df[JUDGE] == judges, "system"])
    lacking = sorted(set(df.loc[labelled, "system"]) - judged)
    if lacking:
        raise VerdictError(f"judges={judges!r}: system(s) {', '.join(lacking)} have verdicts by other judges "
                           f"but none by {judges}. Use judges='mean' or another judge.")
    keep = (df[JUDGE] == judges) | ~labelled
    notes.append({"policy": f"judges {judges}", "count": int((~keep).sum()),
                  "detail": f"scores from judge {judges} only ({int((~keep).sum())} verdicts of "
                            f"{', '.join(n for n in names if n != judges)} left out)"})
    return df[keep], False


def _repeat_policy(df: pd.DataFrame, rule: int | str, names: list[str], notes: list[dict]) -> pd.DataFrame:
    """The rows a judge-repeat rule keeps (``repeat:K``: repeat K only, answers without it counted),
    with its note; ``majority`` keeps every row (the vote is taken in :func:`align`)."""
    over = f" of each judge, then the mean over judges ({', '.join(names)})" if len(names) >= 2 else ""
    if rule == JUDGES_MAJORITY:
        notes.append({"policy": "judges majority", "count": 0,
                      "detail": "each answer scored 1 when more than half of its judgments are correct, else 0 "
                                "(the per-question majority vote; a tie scores 0)"
                                + (" over the judgments of all its judges" if len(names) >= 2 else "")})
        return df
    keys = ["system", "query_id"] + ([JUDGE] if JUDGE in df else [])
    kept = df[df["repeat"] == rule]
    if kept.empty:
        raise VerdictError(f"judges='repeat:{rule}': no verdict has repeat {rule} (repeats: "
                           f"{listing(sorted(pd.unique(df['repeat'])))}). Choose one of them.")
    answers = df.drop_duplicates(keys)[keys]
    lacking = len(answers) - len(kept.drop_duplicates(keys))
    notes.append({"policy": f"judges repeat:{rule}", "count": int(len(df) - len(kept)),
                  "detail": f"each answer scored by its judgment {rule} alone{over} ({len(df) - len(kept)} other "
                            "judgments left out" + (f"; {lacking} answers have no judgment {rule} and count as "
                                                    "missing queries" if lacking else "") + ")"})
    return kept


def _lacking_categories(df: pd.DataFrame, query_ids: np.ndarray, present: np.ndarray,
                        systems: list[str]) -> list[tuple[str, int, list[str]]]:
    """The categories some systems have no query of while others do: (category, queries, the
    systems that have it) — e.g. two adversarial questions in one run only."""
    if "category" not in df:
        return []
    category = df.drop_duplicates("query_id").set_index("query_id")["category"].reindex(query_ids)
    out = []
    for name in sorted(pd.unique(category.dropna())):
        rows = (category == name).to_numpy()
        has = present[rows].any(axis=0)
        if has.any() and not has.all():
            out.append((str(name), int(rows.sum()), [s for s, h in zip(systems, has) if h]))
    return out


def pair_twins(df: pd.DataFrame, dropped: Sequence[str]) -> list[str]:
    """The queries sharing a ``pair_id`` with a dropped query (MEME before/after twins), sorted:
    excluding one phase of a pair excludes the other (Raw-RAG paper A.5.2, content-filter check)."""
    if "pair_id" not in df:
        return []
    pairs = df.loc[df["query_id"].isin(dropped), "pair_id"].dropna().unique()
    twins = df.loc[df["pair_id"].isin(pairs) & ~df["query_id"].isin(dropped), "query_id"]
    return sorted(pd.unique(twins).tolist())


def align(
    df: pd.DataFrame,
    *,
    missing: MissingQueryPolicy = "error",
    verdict_missing: MissingVerdictPolicy = "as-wrong",
    metric: str = "score",
    systems: Iterable[str] | None = None,
    checked: bool = False,
    judges: str | None = None,
) -> Panel:
    """Align canonical verdicts into a paired :class:`Panel` (SPEC §1).

    Parameters
    ----------
    df
        Canonical verdicts (from :func:`read_verdicts` or built by hand).
    missing
        A query that some systems lack: ``"error"`` (default) raises, naming the queries;
        ``"drop"`` drops it for every system; ``"wrong"`` scores it 0 for the systems that lack
        it. The count is recorded in ``notes``.
    verdict_missing
        A verdict with no usable score (NaN): ``"as-wrong"`` (default; C.6, G.3) scores it 0 and
        keeps it in the denominator; ``"exclude"`` drops the query for all systems, together with
        the queries that share its ``pair_id`` (a MEME before/after pair leaves together: the gate
        needs both; Raw-RAG paper A.5.2). The count per system is recorded in ``notes`` in both cases.
    metric
        Which column becomes ``Panel.scores``: ``"score"`` or another per-query metric column
        (``"f1"``, ``"bleu"``, ``"llm_confidence"``, ...).
    systems
        Restrict to these systems, in this order (default: all, sorted).
    checked
        ``df`` has already passed :func:`check` (skip it).
    judges
        When a ``judge`` column names several judges of the same answers: ``"mean"`` scores each
        answer by the mean over its judges (each judge's repetitions averaged first), a judge's
        name scores it by that judge alone (systems judged by nobody else keep their unlabelled
        verdicts). Required then — the choice changes every number — and recorded in ``notes``.
        The judge-repeat rules publishers use apply with one judge or several: ``"mean"`` (the
        per-run mean over judgments, the default with one judge), ``"majority"`` (the
        per-question majority vote: 1 when more than half of the answer's judgments are correct,
        a tie 0) and ``"repeat:K"`` (judgment K alone, 0-based: a single judgment).

    Returns
    -------
    Panel
        The ``(N, S)`` per-query scores of the systems in order, over the queries left after the
        policies (sorted by id), with judgment counts, per-query attributes, the other
        per-(system, query) columns as matrices, and one note per policy that changed anything.

    Raises
    ------
    VerdictError
        Bad verdicts (:func:`check`); no ``metric`` column; a system not in the data; an unknown
        ``missing`` or ``verdict_missing`` policy; a query some systems lack under
        ``missing="error"``; no query left after the policies; several judges of the same
        answers and no ``judges`` policy, or a ``judges`` name that is not a judge of the data.

    Notes
    -----
    The per-query score is the mean over the judge repetitions of that answer (SPEC §1), taken
    after the missing-verdict policy: under ``as-wrong`` a missing repetition counts 0. With
    ``judges="mean"``: score = (1/J) Σ_j mean_r score_jr over the J judges of the answer.

    References
    ----------
    SPEC §1.3 (from verdicts to one score per query) and SPEC §1.4 (pairing and the two
    missing-data policies); Raw-RAG paper C.6 and G.3 (an unusable verdict scores 0 and stays in
    the denominator; judgments of one answer travel together), A.5.2 (a MEME before/after pair
    leaves together).

    Examples
    --------
    >>> df = pd.DataFrame({"system": ["rag", "rag", "mem", "mem"], "query_id": ["a", "b", "a", "b"],
    ...                    "score": [1, 0, 1, None]})
    >>> p = align(df)
    >>> p.systems, p.scores.tolist()
    (('mem', 'rag'), [[1.0, 1.0], [0.0, 0.0]])
    >>> p.notes_text()
    ['missing verdicts as-wrong: 1 verdict without a usable score scored 0 (mem 1, rag 0)']
    """
    if not checked:
        df = check(df)
    if metric not in df:
        raise VerdictError(f"the verdicts have no '{metric}' column (have: {', '.join(df.columns)}).")
    if metric != "score":
        df = df.assign(score=_numeric(df, metric, low=None, high=None))
    if systems is not None:
        wanted = list(systems)
        check_systems(df, wanted)
        df = df[df["system"].isin(wanted)]
    else:
        wanted = sorted(pd.unique(df["system"]))
    notes: list[dict] = []
    df, by_judge = _judge_policy(df, judges, notes)

    # missing verdicts (NaN scores): counted per system, then the policy
    missing_per_system = df["score"].isna().groupby(df["system"]).sum().reindex(wanted, fill_value=0)
    n_missing = int(missing_per_system.sum())
    per_system = ", ".join(f"{s} {int(n)}" for s, n in missing_per_system.items())
    if verdict_missing == "as-wrong":
        if n_missing:
            notes.append({"policy": "missing verdicts as-wrong", "count": n_missing,
                          "per_system": missing_per_system.to_dict(),
                          "detail": f"{n_missing} verdict{'s' if n_missing != 1 else ''} without a "
                                    f"usable score scored 0 ({per_system})"})
        df = df.assign(score=df["score"].fillna(0.0))
    elif verdict_missing == "exclude":
        bad = pd.unique(df.loc[df["score"].isna(), "query_id"])
        if len(bad):
            twins = pair_twins(df, bad)
            notes.append({"policy": "missing verdicts exclude", "count": len(bad) + len(twins),
                          "per_system": missing_per_system.to_dict(),
                          "detail": f"{len(bad)} queries with a missing verdict dropped for every "
                                    f"system ({n_missing} missing verdicts: {per_system}): {listing(bad)}"
                                    + (f"; with them their {len(twins)} pair_id twins (a before/after pair "
                                       f"leaves together, as gates need both): {listing(twins)}" if len(twins)
                                       else "")})
            df = df[~df["query_id"].isin(set(bad) | set(twins))]
    else:
        raise VerdictError(f"unknown missing-verdict policy '{verdict_missing}' (use as-wrong or exclude).")

    # per (query, system) means over repetitions
    value_columns = ["score"] + [c for c in df.columns if c not in CANONICAL and c not in PROVENANCE
                                 and c != "score" and pd.api.types.is_numeric_dtype(df[c])] \
        + [c for c in BINARY_LABELS + COSTS if c in df]
    counts = df.groupby(["query_id", "system"], sort=True).size()
    runs = sorted(map(str, pd.unique(df[RUN].dropna()))) if RUN in df else []
    unit = ["query_id", "system"] + ([RUN] if len(runs) > 1 else [])
    if len(runs) > 1:  # each run scored alone, then the mean over runs (SPEC §1.3)
        per_system = df.dropna(subset=[RUN]).groupby("system")[RUN].nunique()  # a system's own runs, not all names
        how_many = f"{per_system.iloc[0]}" if per_system.nunique() == 1 else \
            "; ".join(f"{s} {int(k)}" for s, k in per_system.items())
        notes.append({"policy": "runs mean", "count": len(runs),
                      "detail": f"each answer scored per run, then by the mean over its system's runs ({how_many}; "
                                f"run names {listing(runs)}); the runs stay paired query by query"})
    if by_judge and repeat_rule(judges) != JUDGES_MAJORITY:  # the mean over judges of each judge's mean
        means = df.groupby(unit + [JUDGE], sort=True, dropna=False)[value_columns].mean() \
            .groupby(level=unit, sort=True).mean()
    else:
        means = df.groupby(unit, sort=True, dropna=False)[value_columns].mean()
    if repeat_rule(judges) == JUDGES_MAJORITY:  # the per-question majority vote over all judgments
        ties = int((means["score"] == 0.5).sum())
        means["score"] = (means["score"] > 0.5).astype(float)
        if ties:
            notes.append({"policy": "judges majority ties", "count": ties,
                          "detail": f"{ties} answers with as many correct as wrong judgments scored 0"})
    if len(unit) > 2:
        means = means.groupby(level=["query_id", "system"], sort=True).mean()
    query_ids = np.array(sorted(pd.unique(df["query_id"])), dtype=object)
    if len(query_ids) == 0:
        raise VerdictError("no query is left to align (every query was excluded). Check the policies.")
    full = pd.MultiIndex.from_product([query_ids, wanted], names=["query_id", "system"])
    means = means.reindex(full)
    counts = counts.reindex(full, fill_value=0)
    n, s = len(query_ids), len(wanted)
    present = counts.to_numpy().reshape(n, s) > 0

    # missing queries
    lacking_rows = ~present.all(axis=1)
    if lacking_rows.any():
        lacking_ids = query_ids[lacking_rows]
        per = {name: int((~present[:, j]).sum()) for j, name in enumerate(wanted)}
        detail = ", ".join(f"{k} {v}" for k, v in per.items() if v)
        lacked = _lacking_categories(df, query_ids, present, wanted)
        if lacked:
            notes.append({"policy": "missing category", "count": sum(k for _, k, _ in lacked),
                          "detail": "; ".join(f"category '{c}' ({k} queries) only in {', '.join(who)}, the other "
                                              f"systems lack it (handled by the missing-query policy {missing})"
                                              for c, k, who in lacked)})
        if missing == "error":
            adversarial = all(str(q).startswith("locomo:") and ":adv" in str(q) for q in lacking_ids)
            fix = ("they are LoCoMo's adversarial questions, which some runs dropped: use the LoCoMo scheme "
                   "(--scheme locomo, scheme='locomo'), which excludes them for every system" if adversarial else
                   "choose --missing drop (drop them for all) or --missing wrong (score them 0)")
            raise VerdictError(
                f"{len(lacking_ids)} queries are missing for some systems ({detail}): "
                f"{listing(lacking_ids)}. Paired analyses need the same queries for every system: {fix}."
                + "".join(f" Category '{c}' ({k} queries) is only in {', '.join(who)}." for c, k, who in lacked)
            )
        if missing == "drop":
            notes.append({"policy": "missing queries drop", "count": int(lacking_rows.sum()),
                          "per_system": per, "detail": f"{int(lacking_rows.sum())} queries not "
                          f"answered by every system dropped ({detail}): {listing(lacking_ids)}"})
        elif missing == "wrong":
            notes.append({"policy": "missing queries wrong", "count": int((~present).sum()),
                          "per_system": per, "detail": f"{int((~present).sum())} missing "
                          f"(system, query) pairs scored 0 ({detail}): {listing(lacking_ids)}"})
        else:
            raise VerdictError(f"unknown missing-query policy '{missing}' (use error, drop or wrong).")

    scores = means["score"].to_numpy().reshape(n, s)
    keep = ~lacking_rows if missing == "drop" else np.ones(n, dtype=bool)
    if missing == "wrong":
        scores = np.where(present, scores, 0.0)
    matrices = {c: means[c].to_numpy(dtype=float).reshape(n, s)[keep] for c in value_columns[1:]}
    attributes = [c for c in QUERY_ATTRIBUTES if c in df]
    queries = (df.dropna(subset=["query_id"]).groupby("query_id", sort=True)[attributes].first()
               if attributes else pd.DataFrame(index=pd.Index(query_ids, name="query_id")))
    queries = queries.reindex(query_ids)[keep]
    queries.index.name = "query_id"
    return Panel(
        scores=np.ascontiguousarray(scores[keep], dtype=float),
        systems=tuple(wanted),
        query_ids=query_ids[keep],
        n_repeats=counts.to_numpy().reshape(n, s)[keep].astype(np.int64),
        queries=queries,
        matrices=matrices,
        metric=metric,
        notes=tuple(notes),
    )
