"""Reading released per-query verdict files into the canonical long table (SPEC §1): files, folders,
globs and recipes, named systems and judges, joins, the dataset of canonical ids.

:func:`read_verdicts` reads each file with its layout's reader (:mod:`memdiag.io.readers`: every
file opened by :mod:`memdiag.io.opening` and parsed strictly), names the systems (the user's names,
or each layout's rule, made distinct across folders), refuses two files that would merge two runs,
applies the joins, and checks the whole table once (:func:`memdiag.io.canonical.check`). What reading
skipped, renamed or merged is kept in ``attrs["read_notes"]``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from memdiag.core.notes import Note
from memdiag.errors import VerdictError, listing
from memdiag.io import readers as formats
from memdiag.io.canonical import check
from memdiag.io.opening import stem
from memdiag.io.readers._expand import expand
from memdiag.io.readers._fields import parse_field
from memdiag.io.readers._recipe import (
    Join,
    Source,
    _join,
    apply_joins,
    load_recipe,
    read_source_file,
)
from memdiag.io.readers.locomo_audit import read_locomo_audit
from memdiag.io.schema import JUDGE, RUN

__all__ = ["LOCOMO_AUDIT", "read_verdicts"]

#: The format name of the dial481/locomo-audit judged runs: read with the dataset, never detected.
LOCOMO_AUDIT = "locomo-audit"


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
    if join is None:
        return []
    items = [join] if isinstance(join, (Mapping, Join)) else list(join)
    return [j if isinstance(j, Join) else _join(j, "join", i) for i, j in enumerate(items, start=1)]


def _confined(items: Iterable[str], base: Path, origin: str, section: str) -> None:
    """A VerdictError when a recipe path (or, once expanded, a file it matches through a link)
    lies outside the recipe's folder ``base``."""
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
        :func:`memdiag.io.readers.known_formats`; or ``"locomo-audit"``: the judged runs of the
        dial481/locomo-audit release (``eval_results.json`` / ``ap_eval_results_scored.json``, one
        row per judgment), which need ``dataset`` (its ``data/locomo10.json``) for their ids
        (:mod:`memdiag.io.readers.locomo_audit`; never detected).
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
        if format == LOCOMO_AUDIT and (dataset is None or fields):
            raise VerdictError(f"format={LOCOMO_AUDIT!r} reads the release's judged runs with dataset= (its "
                               "data/locomo10.json, which fixes the question positions)"
                               + (" and no fields=" if fields else "") + ".")
        if dataset is not None and not fields and format != LOCOMO_AUDIT:
            raise VerdictError(f"dataset={str(dataset)!r} gives ids to records that have none; map their question "
                               "text and conversation with fields= (--field question=<field> --field "
                               "cluster=<conversation field>).")
        parsed = tuple(parse_field(str(k), v, "fields") for k, v in fields.items()) \
            if fields and (records is not None or dataset is not None) else None
        for path in all_files:
            name, rater = names(path), raters(path)
            if format == LOCOMO_AUDIT:
                frame = read_locomo_audit(path, dataset=dataset, system=name)
                frame.attrs.update(format=LOCOMO_AUDIT, read_notes=[Note(
                    f"{path}: {frame['audit_id'].nunique()} questions given their ids by {Path(dataset).name}'s "
                    "question positions", code="dataset-matched", severity="info", concerns=(str(path),))])
                if rater is not None:
                    frame["judge"] = rater
            elif parsed is not None:
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
