"""``memdiag inspect``: what a release's files hold, and a draft recipe that reads them.

For each file it finds where the records are (a JSON list, a list under a key, an object keyed by
id), lists the records' fields with their types, how many are null and example values, and picks
candidates: the query id (unique per record, or the keys of an object keyed by id), the verdict
(booleans, 0/1, or judge text that :func:`memdiag.io.readers._verdict_text.parse_verdict` reads),
the category (few text values), the cluster (a conversation or session), a judge field, and side
labels (sufficiency, evidence tokens). Files of one folder with the same structure and ids whose
names differ look like judges of one run; files of several folders with one name look like runs.

Every file gets a role: verdicts, side file (per-query columns joined by id: context tokens, a
retrieval hit), summary (aggregate numbers: checked against, not read) or manifest (skipped,
named). Files with the same query ids (every record compared) are judges when their names differ
by a model name, runs when by a run name, and otherwise the text asks. An object of judgments
becomes ``judgments:``; one record list per conversation ``records: X.*`` with ``cluster: $1``.

The draft recipe (:mod:`memdiag.io.readers._recipe`) works unchanged when every choice had one
candidate; otherwise it holds ``TODO`` markers and the text says plainly what could not be decided,
and lists every choice made by rule among several candidates.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from memdiag.errors import VerdictError, listing
from memdiag.io.opening import stem
from memdiag.io.readers._jsonpath import Record, Step, record_lists, select
from memdiag.io.readers._verdict_text import parse_verdict

#: How many records are examined per file.
SAMPLE = 500

_ID = re.compile(r"(^|_)(question_?id|query_?id|qid|id|uid|key)$", re.I)
_VERDICT = re.compile(r"correct|score|label|judg|verdict|grade|eval|result|accura|pass", re.I)
_CATEGORY = re.compile(r"type|categor|kind|class|task|skill", re.I)
_CLUSTER = re.compile(r"conv|session|sample|dialog|user|cluster|haystack", re.I)
_JUDGE = re.compile(r"judge|model|evaluator|grader", re.I)
_SUFFICIENT = re.compile(r"cover|sufficien|recall|has_evidence|found|hit|retriev", re.I)
_SUMMARY = re.compile(r"accura|overall|mean|average|score|rate|f1|total|correct|std|ceiling", re.I)
#: File-name tokens that name runs of one system, and tokens that name judges (models, graders).
_RUN_TOKEN = re.compile(r"^(run|seed|trial|rep|repeat|attempt|iter)[-_]?\d*$|^\d+$|^v\d+$", re.I)
_JUDGE_TOKEN = re.compile(r"gpt|claude|llama|gemini|qwen|mistral|deepseek|judge|grader|o1|o3|4o|sonnet|haiku|opus",
                          re.I)
_TOKENS = re.compile(r"token|context_len|length", re.I)


@dataclass
class FieldInfo:
    """One field of the records: its path, the types seen, nulls, distinct values, examples."""

    path: str
    types: set = field(default_factory=set)
    present: int = 0
    nulls: int = 0
    values: list = field(default_factory=list)

    def distinct(self) -> int:
        return len({json.dumps(v, sort_keys=True, default=str) for v in self.values})

    def examples(self) -> str:
        seen = list(dict.fromkeys(json.dumps(v, default=str)[:40] for v in self.values if v is not None))
        return ", ".join(seen[:3])


@dataclass
class FileInfo:
    """What one file holds and the candidates found in it."""

    path: Path
    records: str | None
    n: int
    keyed: bool
    fields: dict[str, FieldInfo]
    ids: list[str]
    verdicts: list[str]
    categories: list[str]
    clusters: list[str]
    judges: list[str]
    sufficient: list[str]
    tokens: list[str]
    other_lists: list[tuple[str, int]]
    id_values: frozenset = frozenset()
    judgments: list[str] = field(default_factory=list)
    kind: str = ""
    why: str = ""

    def __post_init__(self) -> None:
        if not self.kind:
            if self.verdicts or self.judgments:
                self.kind = "verdicts"
            elif self.sufficient or self.tokens:
                self.kind = "side"
            elif self._summary_fields():
                self.kind, self.why = "summary", "aggregate numbers (" + ", ".join(self._summary_fields()[:4]) + ")"
            else:
                self.kind, self.why = "manifest", ("records without a verdict or a per-query label, e.g. "
                                                   "questions and answers" if self.n else "no per-query records")

    def _summary_fields(self) -> list[str]:
        return [p for p, f in self.fields.items() if _SUMMARY.search(p.rsplit(".", 1)[-1]) and f.types <= {"number", "null"}
                and any(v is not None and v not in (0, 1) for v in f.values)]

    @property
    def is_side(self) -> bool:
        return self.kind == "side"

    @property
    def role(self) -> str:
        """What the file is to the analysis, in words."""
        return {"verdicts": "verdicts", "side": "side file (per-query columns, joined by query id)",
                "summary": f"summary ({self.why}): check published numbers against it, not read as verdicts",
                "manifest": f"manifest or other file ({self.why}): skipped"}[self.kind]


@dataclass
class Inspection:
    """The report text, the draft recipe (YAML) and whether it needs no answer from the user."""

    text: str
    recipe: str
    complete: bool
    files: list[FileInfo]


def _flatten(record: dict, prefix: str = "", depth: int = 2) -> dict[str, object]:
    out = {}
    for key, value in record.items():
        step = Step("key", str(key)).text()
        path = f"{prefix}.{step}" if prefix else step
        if isinstance(value, dict) and value and depth > 0:
            out.update(_flatten(value, path, depth - 1))
        else:
            out[path] = value
    return out


def _type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "text"
    return "list" if isinstance(value, list) else "object"


def _fields(records: list[Record]) -> dict[str, FieldInfo]:
    infos: dict[str, FieldInfo] = {}
    for record in records[:SAMPLE]:
        for path, value in _flatten(record.value).items():
            info = infos.setdefault(path, FieldInfo(path))
            info.present += 1
            info.types.add(_type(value))
            if isinstance(value, float) and math.isnan(value):
                value = None
            info.nulls += value is None
            if not isinstance(value, dict | list):
                info.values.append(value)
    return infos


def _is_verdict(info: FieldInfo) -> bool:
    values = [v for v in info.values if v is not None]
    if not values or info.types - {"bool", "number", "text", "null"}:
        return False
    parsed = [parse_verdict(v) for v in values]
    read = [p for p in parsed if p is not None]          # an empty label is a missing verdict, not a miss
    good = [p for p in read if not (isinstance(p, float) and math.isnan(p))]
    return bool(good) and len(read) >= 0.9 * len(values) and all(0 <= p <= 1 for p in good) and \
        bool(info.types & {"bool", "text"} or set(good) <= {0.0, 0.5, 1.0})  # graded 0 / 0.5 / 1 too


def _rank(names: list[str], pattern: re.Pattern) -> list[str]:
    return sorted(names, key=lambda name: (not pattern.search(name.rsplit(".", 1)[-1]), len(name)))


def _candidates(info: dict[str, FieldInfo], n: int) -> dict[str, list[str]]:
    sample = min(n, SAMPLE)
    text = {p: f for p, f in info.items() if f.types <= {"text", "number", "null"} and f.present}
    ids = [p for p, f in text.items() if f.nulls == 0 and f.present == sample and f.distinct() == sample
           and (_ID.search(p.rsplit(".", 1)[-1]) or f.types == {"text"})]
    ids = [p for p in _rank(ids, _ID) if _ID.search(p.rsplit(".", 1)[-1])] or \
        [p for p in ids if "question" not in p.lower() and "answer" not in p.lower()
         and "hypothesis" not in p.lower() and all(len(str(v)) < 60 for v in info[p].values)]
    verdicts = [p for p, f in info.items() if _is_verdict(f) and (f.types & {"bool", "text"} or _VERDICT.search(p))]
    verdicts = [p for p in _rank(verdicts, _VERDICT) if not _SUFFICIENT.search(p)]
    few = [p for p, f in text.items() if f.types <= {"text", "null"} and 1 < f.distinct() <= min(30, max(2, sample // 3))]
    categories = [p for p in _rank(few, _CATEGORY) if _CATEGORY.search(p) and p not in verdicts]
    clusters = [p for p, f in text.items() if _CLUSTER.search(p) and 1 < f.distinct() < sample and p not in ids]
    judges = [p for p in few if _JUDGE.search(p)] + \
        [p for p, f in text.items() if _JUDGE.search(p) and f.distinct() == 1 and f.types == {"text"}]
    judges = [p for p in judges if p not in verdicts]  # judge_label (correct / wrong) is a verdict, not a judge name
    judgments = _judgment_objects(info, verdicts)
    if judgments:
        verdicts = [p for p in verdicts if not any(p.startswith(j + ".") for j in judgments)]
    sufficient = [p for p, f in info.items() if _SUFFICIENT.search(p) and _is_verdict(f)]
    tokens = [p for p, f in info.items() if _TOKENS.search(p) and f.types <= {"number", "null"} and f.present]
    return {"ids": ids, "verdicts": verdicts, "categories": categories, "clusters": clusters,
            "judges": list(dict.fromkeys(judges)), "sufficient": sufficient, "tokens": tokens,
            "judgments": judgments}


def _judgment_objects(info: dict[str, FieldInfo], verdicts: list[str]) -> list[str]:
    """Objects whose every field is a verdict and that hold two or more of them
    (``llm_judgments: {judgment_1: true, judgment_2: false, ...}``): the judge repeats of one answer."""
    parents: dict[str, list[str]] = {}
    for path in verdicts:
        if "." in path:
            parents.setdefault(path.rsplit(".", 1)[0], []).append(path)
    out = []
    for parent, children in parents.items():
        inside = [p for p in info if p.startswith(parent + ".")]
        if len(children) >= 2 and set(inside) == set(children):
            out.append(parent)
    return out


def _siblings(content: object, best: str, lists: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The record lists beside ``best`` under one object whose every value is such a list (one
    list per conversation): records ``<object>.*`` read them all; [] when ``best`` stands alone."""
    parent = best.rsplit(".", 1)[0] if "." in best else ""
    node = content
    try:
        node = select_node(content, parent)
    except (KeyError, IndexError, TypeError):
        return []
    if not isinstance(node, dict) or len(node) < 2 or not all(
            isinstance(v, list) and v and all(isinstance(x, dict) for x in v[:50]) for v in node.values()):
        return []
    shapes = [set(v[0]) for v in node.values()]  # lists of different records are not one per conversation
    if any(len(shape & shapes[0]) < 0.5 * len(shape | shapes[0]) for shape in shapes[1:]):
        return []
    prefix = parent + "." if parent else ""
    return [c for c in lists if c[0] != best and c[0].startswith(prefix) and "." not in c[0][len(prefix):]]


def _all_values(records: list[Record], path: str) -> frozenset:
    from memdiag.io.readers._jsonpath import getter

    get = getter(path)
    return frozenset(str(v) for v in map(get, records))


def _without_records(path: Path, content: object) -> FileInfo:
    """A file with no record list: a summary when it holds aggregate numbers, else a manifest."""
    scalars = _flatten(content, depth=3) if isinstance(content, dict) else {}
    infos = {}
    for key, value in scalars.items():
        if not isinstance(value, dict | list):
            info = infos.setdefault(key, FieldInfo(key))
            info.present, info.types = 1, {_type(value)}
            info.values.append(value)
    return FileInfo(path, None, 0, False, infos, [], [], [], [], [], [], [], [])


def select_node(content: object, path: str) -> object:
    """The value at a plain dotted path of keys ('' is ``content`` itself)."""
    from memdiag.io.readers._jsonpath import parse

    node = content
    for step in parse(path) if path else ():
        node = node[step.value]
    return node


def inspect_file(path: Path) -> FileInfo:
    """The structure and candidates of one file."""
    from memdiag.io.readers import load
    from memdiag.io.readers._common import read_table

    content = load(path)
    others: list[tuple[str, int]] = []
    if content is None:
        table = read_table(path, [])
        rows = table.astype(object).where(table.notna(), None).to_dict("records")
        records, where_, keyed = [Record(r, i, (), (), i + 1) for i, r in enumerate(rows)], None, False
    else:
        if isinstance(content, list):
            where_ = None
        else:
            lists = record_lists(content)
            if not lists:  # a run manifest or a summary: classified, never an error
                return _without_records(path, content)
            best = max(lists, key=lambda item: item[1])
            where_ = best[0]
            siblings = _siblings(content, best[0], lists)
            if siblings:  # one list per conversation (or session) under one object: all of them
                where_ = best[0].rsplit(".", 1)[0] + ".*" if "." in best[0] else "*"
            others = [c for c in lists if c != best and c not in siblings]
        records = select(content, where_, path)
        keyed = bool(records) and all(isinstance(r.key, str) for r in records)
    info = _fields(records)
    found = _candidates(info, len(records))
    ids = ["$key"] if keyed else found["ids"]
    id_values = frozenset(str(r.key) for r in records) if keyed else _all_values(records, ids[0]) if ids \
        else frozenset()  # every record's id, not a sample: files with the same queries are recognised
    clusters = found["clusters"]
    if where_ and "*" in where_:  # the key each record list sits under: the conversation
        keys = {r.captures[0] for r in records if r.captures}
        if 1 < len(keys) < len(records):
            clusters = ["$1"] + clusters
    return FileInfo(path, where_, len(records), keyed, info, ids, found["verdicts"], found["categories"],
                    clusters, found["judges"], found["sufficient"], found["tokens"], others, id_values,
                    found["judgments"])


def _describe(info: FileInfo, root: Path) -> list[str]:
    name = os.path.relpath(info.path, root)
    where_ = f"under '{info.records}'" if info.records else "at the top level"
    shape = "an object keyed by id" if info.keyed else "a list"
    if info.n == 0 and info.kind in ("summary", "manifest"):
        return [f"{name}: no list of per-query records: {info.role}"]
    lines = [f"{name}: {info.n} records, {shape} {where_}"]
    for other, k in info.other_lists:
        lines.append(f"  also a record list at '{other}' ({k})")
    lines.append("  fields (types, nulls, examples):")
    for path, f in list(info.fields.items())[:25]:
        types = "/".join(sorted(f.types))
        lines.append(f"    {path:<32} {types:<12} {f.nulls:>4} null  {f.examples()}")
    if len(info.fields) > 25:
        lines.append(f"    ... and {len(info.fields) - 25} more fields")
    for label, values in (("query id", info.ids), ("verdict", info.verdicts), ("judgments object", info.judgments),
                          ("category", info.categories),
                          ("cluster", info.clusters), ("judge field", info.judges),
                          ("sufficiency label", info.sufficient), ("evidence tokens", info.tokens)):
        if values:
            lines.append(f"  {label} candidates: {', '.join(values[:4])}")
    return lines


def _yaml(value: object) -> str:
    text = str(value)
    if re.fullmatch(r"[A-Za-z0-9_./-]+", text) and not text[0] in "-." and text not in ("yes", "no", "true", "false", "null"):
        return text
    return json.dumps(text)


def _judge_token(paths: list[Path]) -> dict[Path, str]:
    """What tells the names of files of one folder apart (common prefix and suffix removed)."""
    names = [p.name for p in paths]
    prefix = os.path.commonprefix(names)
    suffix = os.path.commonprefix([n[::-1] for n in names])[::-1]
    out = {}
    for path, name in zip(paths, names):
        token = name[len(prefix): len(name) - len(suffix)].strip("._-") or name
        out[path] = token
    return out


_QUESTION = re.compile(r"^(question|query|prompt)(_?text)?$", re.I)
_GOLD = re.compile(r"gold|golden|expected|ground_?truth|reference|^answer$", re.I)


def _question_fields(info: FileInfo) -> dict[str, str] | None:
    """For records without an id: the question text field, and the gold answer field when there is
    one (``question``, ``expected``), or None when no field holds the question."""
    text = [p for p, f in info.fields.items() if _QUESTION.search(p.rsplit(".", 1)[-1]) and f.types <= {"text", "null"}]
    if not text:
        return None
    out = {"question": text[0]}
    gold = [p for p, f in info.fields.items() if _GOLD.search(p.rsplit(".", 1)[-1]) and p != text[0]
            and f.types <= {"text", "number", "null"}]
    if gold:
        out["expected"] = gold[0]
    return out


def _glob(info: FileInfo, files: list[FileInfo], base: Path) -> str:
    """A glob for the files named like ``info``'s in several folders: the folder parts they share
    kept, a ``*`` for each part that differs (``fc-baseline/results/*/eval_results.json``)."""
    rels = [Path(os.path.relpath(i.path.resolve(), base)).parts for i in files if i.path.name == info.path.name]
    mine = Path(os.path.relpath(info.path.resolve(), base)).parts
    same = [r for r in rels if len(r) == len(mine)]
    parts = [part if all(r[k] == part for r in same) else "*" for k, part in enumerate(mine[:-1])]
    return str(Path(*parts, mine[-1]))


def inspect(items, recipe_dir: str | Path | None = None, dataset: str | Path | None = None) -> Inspection:
    """Inspect the files of a release and draft a recipe (see the module docstring).

    Parameters
    ----------
    items
        Files, folders and glob patterns.
    recipe_dir
        Folder the draft recipe will be saved in (its file paths are relative to it); default:
        the folder that holds all the files.
    dataset
        The benchmark's dataset file (LoCoMo-10: ``locomo10.json``): records without a query id
        are matched by conversation and question text (the draft's ``dataset:``); without it the
        draft asks for it when records have no id but a question text.
    """
    from memdiag.io.readers import detect, read_file
    from memdiag.io.readers import load as load_file
    from memdiag.io.readers._expand import expand

    files, notes = expand(items)
    root = Path(os.path.commonpath([str(p.resolve().parent) for p in files]))
    base = Path(recipe_dir).resolve() if recipe_dir is not None else root
    lines: list[str] = []
    undecided: list[str] = []
    infos: list[FileInfo] = []
    known: list[tuple[Path, str]] = []
    unread: list[tuple[Path, str, str]] = []  # recognised by a reader that finds no verdicts in them
    for path in files:
        try:
            fmt = detect(path, load_file(path))
        except VerdictError:  # no reader recognises it: inspect it
            fmt = None
        if fmt is not None:
            try:  # a layout's companion file (Zep's responses beside its grades) is recognised but holds no verdicts
                read_file(path, format=fmt.NAME)
            except VerdictError as error:
                why = str(error).removeprefix(str(path) + ": ")
                lines.append(f"{os.path.relpath(path, root)}: recognised by memdiag's '{fmt.NAME}' reader, but no "
                             f"verdicts: {why}")
                unread.append((path, fmt.NAME, why))
                continue
            known.append((path, fmt.NAME))
            lines.append(f"{os.path.relpath(path, root)}: read by memdiag's '{fmt.NAME}' reader as it is")
            continue
        try:
            info = inspect_file(path)
        except VerdictError as error:  # unreadable or no records of objects: named and skipped, never an abort
            info = FileInfo(path, None, 0, False, {}, [], [], [], [], [], [], [], [], kind="manifest",
                            why=f"not read: {str(error).removeprefix(str(path) + ': ')[:160]}")
        infos.append(info)
        lines += _describe(info, root)
    verdict_files = [i for i in infos if i.kind == "verdicts"]
    side_files = [i for i in infos if i.kind == "side"]
    skipped = [i for i in infos if i.kind in ("summary", "manifest")]
    # group verdict files: (folder-relative name pattern) -> sources
    by_folder: dict[Path, list[FileInfo]] = {}
    for info in verdict_files:
        by_folder.setdefault(info.path.resolve().parent, []).append(info)
    judge_of: dict[Path, str] = {}
    run_of: dict[Path, str] = {}
    guessed: list[str] = []
    for folder, group in by_folder.items():
        if len(group) > 1:
            same_ids = len({i.id_values for i in group}) == 1 and all(i.id_values for i in group)
            where_ = os.path.relpath(folder, root)
            if same_ids:
                tokens = _judge_token([i.path for i in group])
                if all(_RUN_TOKEN.search(t) or _RUN_TOKEN.search(stem(p)) for p, t in tokens.items()):
                    run_of.update({p: stem(p) for p in tokens})  # the run's name: its file's name
                elif all(_JUDGE_TOKEN.search(t) for t in tokens.values()):
                    judge_of.update(tokens)
                else:
                    judge_of.update(tokens)
                    undecided.append(f"{where_}: {len(group)} files hold the same queries ({listing(tokens.values())}): "
                                     "judges of one run (judge: NAME) or runs of one system (run: NAME)? The "
                                     "draft calls them judges; write run: instead of judge: for runs")
            else:
                undecided.append(f"{where_}: {len(group)} verdict files with different "
                                 "queries: parts of one run or different runs? (the draft names each after its file)")
    sources: dict[tuple, list[FileInfo]] = {}
    for info in verdict_files:
        rel = Path(os.path.relpath(info.path.resolve(), base))
        judge = judge_of.get(info.path)
        run = run_of.get(info.path)
        several_folders = sum(1 for i in verdict_files if i.path.name == info.path.name) > 1
        pattern = _glob(info, verdict_files, base) if several_folders else str(rel)
        if run is not None and several_folders:  # runs in every folder: one source per run file name
            pattern = _glob(info, verdict_files, base)
        key = (pattern, judge, run, info.records, tuple(info.ids[:1]), tuple(info.verdicts[:1]))
        sources.setdefault(key, []).append(info)
    out = ["# memdiag recipe drafted by 'memdiag inspect' (docs/recipes.md)",
           f"# files are relative to this recipe's folder ({base})"]
    needs_dataset = False
    out.append("sources:")
    for path, name in known:
        out += [f"  - files: [{_yaml(os.path.relpath(path.resolve(), base))}]", f"    format: {name}"]
    for (pattern, judge, run, records, ids, verdicts), group in sources.items():
        info = group[0]
        out.append(f"  - files: [{_yaml(pattern)}]")
        if records:
            out.append(f"    records: {_yaml(records)}")
        if "*" in pattern or judge or run:
            out.append('    system: "{folder}"')
        else:
            out.append('    system: "{stem}"')
        if judge:
            out.append(f"    judge: {_yaml(judge)}")
        if run:
            out.append(f"    run: {_yaml(run)}   # runs of one system: scored per run, then averaged")
        if info.judgments and not info.verdicts:
            out.append(f"    judgments: {_yaml(info.judgments[0])}   # each key a judge repeat of the answer")
            if len(info.judgments) > 1:
                undecided.append(f"{pattern}: which object holds the judgments? ({', '.join(info.judgments)})")
        out.append("    fields:")
        question = _question_fields(info) if not info.keyed else None
        if info.ids and (dataset is None or not info.clusters):
            question = None  # own ids, and no dataset (or no conversation) to give the canonical ones: read as they are
        if question is not None:  # matched to the dataset by conversation and question text
            needs_dataset = True
            if info.ids:  # --dataset given: the canonical ids pair with every other release of the benchmark
                out.append(f"      # query_id: {_yaml(info.ids[0])}   # the release's own id; the dataset gives "
                           "the canonical one")
            for column, name in question.items():
                out.append(f"      {column}: {_yaml(name)}")
            if not info.clusters:
                out.append("      cluster: TODO   # the conversation of each record")
                undecided.append(f"{pattern}: which field (or key, $1) names each record's conversation?")
        elif not info.keyed:
            if len(info.ids) == 1:
                out.append(f"      query_id: {_yaml(info.ids[0])}")
            else:
                out.append(f"      query_id: TODO   # one of: {', '.join(info.ids) or 'no unique field found'}")
                undecided.append(f"{pattern}: which field is the query id? "
                                 f"({', '.join(info.ids) or 'no field is unique per record'})")
        if info.judgments and not info.verdicts:
            pass  # the judgments line above gives the score and the repeat
        elif len(info.verdicts) == 1:
            out.append(f"      score: {_yaml(info.verdicts[0])}")
        else:
            out.append(f"      score: TODO   # one of: {', '.join(info.verdicts) or 'no verdict-like field found'}")
            empty = {p: sum(v == "" for v in info.fields[p].values) for p in info.verdicts}
            hint = "".join(f"; {p} is empty in {k} of the {len(info.fields[p].values)} records examined (a judge "
                           "failure: read as a missing verdict, not a wrong answer)" for p, k in empty.items() if k)
            undecided.append(f"{pattern}: which field is the verdict? "
                             f"({', '.join(info.verdicts) or 'no field holds 0/1, booleans or yes/no text'}){hint}")
        for label, candidates in (("records", [info.records or "(top level)"] + [p for p, _ in info.other_lists]),
                                  ("category", info.categories), ("cluster", info.clusters),
                                  ("sufficient", info.sufficient), ("evidence_tokens", info.tokens)):
            if len(candidates) > 1:
                guessed.append(f"{pattern}: {label} is {candidates[0]} (also possible: {', '.join(candidates[1:4])})")
        if info.categories:
            out.append(f"      category: {_yaml(info.categories[0])}")
        if info.clusters:
            out.append(f"      cluster: {_yaml(info.clusters[0])}   # conversation/session: queries resampled together")
        if info.judges and not judge:
            out.append(f"      # judge: {_yaml(info.judges[0])}   # when the file holds several judges' verdicts")
        for column, candidates in (("sufficient", info.sufficient), ("evidence_tokens", info.tokens)):
            if candidates:
                out.append(f"      {column}: {_yaml(candidates[0])}")
    if not verdict_files and not known:
        undecided.append("no file holds verdicts (a verdict field of 0/1, booleans or yes/no text)")
    if side_files:
        out.append("join:")
        joined: dict[tuple, list[FileInfo]] = {}
        for info in side_files:
            several = sum(1 for i in side_files if i.path.name == info.path.name) > 1
            rel = Path(os.path.relpath(info.path.resolve(), base))
            pattern = _glob(info, side_files, base) if several else str(rel)
            joined.setdefault((pattern, info.records, several), []).append(info)
        for (pattern, records, several), group in joined.items():
            info = group[0]
            out.append(f"  - files: [{_yaml(pattern)}]")
            if records:
                out.append(f"    records: {_yaml(records)}")
            if several:
                out.append('    system: "{folder}"   # one side file per run')
            out.append("    fields:")
            if not info.keyed:
                out.append(f"      query_id: {_yaml(info.ids[0]) if info.ids else 'TODO'}")
                if not info.ids:
                    undecided.append(f"{pattern}: which field is the query id of this side file?")
            for column, candidates in (("sufficient", info.sufficient), ("evidence_tokens", info.tokens)):
                if len(candidates) > 1:
                    guessed.append(f"{pattern}: {column} is {candidates[0]} (also possible: "
                                   f"{', '.join(candidates[1:4])})")
                if candidates:
                    out.append(f"      {column}: {_yaml(candidates[0])}")
    if needs_dataset:
        if dataset is not None:
            out.insert(2, f"dataset: {_yaml(os.path.relpath(Path(dataset).resolve(), base))}   "
                          "# records get their canonical ids by conversation and question text")
        else:
            out.insert(2, "dataset: TODO   # the benchmark's dataset file (LoCoMo-10: locomo10.json)")
            undecided.append("the records have no query id but a question text: give the benchmark's dataset "
                             "file (memdiag inspect --dataset locomo10.json, or dataset: in the recipe) to match "
                             "them by conversation and question text")
    recipe = "\n".join(out) + "\n"
    text = "\n".join(lines) + "\n\n"
    text += "files by role:\n" + "".join(f"  {os.path.relpath(i.path, root)}: {i.role}\n" for i in infos)
    text += "".join(f"  {os.path.relpath(p, root)}: verdicts (memdiag's '{n}' reader)\n" for p, n in known)
    text += "".join(f"  {os.path.relpath(p, root)}: no verdicts (memdiag's '{n}' reader: {why[:200]}): skipped\n"
                    for p, n, why in unread)
    if len(verdict_files) > 1 and len({i.id_values for i in verdict_files}) == 1 and verdict_files[0].id_values:
        text += f"all {len(verdict_files)} verdict files hold the same {len(verdict_files[0].id_values)} query ids\n"
    if judge_of:
        text += ("files of one folder with the same queries look like judges of one run: "
                 + listing(sorted(set(judge_of.values()))) + "\n")
    if run_of:
        text += ("files of one folder with the same queries look like runs of one system: "
                 + listing(sorted(set(run_of.values()))) + "\n")
    text += "draft recipe:\n" + recipe
    if notes:  # files that are no data (README, LICENSE): named, not a decision to make
        text += "\nnot read: " + "; ".join(notes) + "\n"
    if skipped or unread:
        text += "\nnot in the draft: " + "; ".join([f"{os.path.relpath(i.path, root)} ({i.kind})" for i in skipped]
                                                  + [f"{os.path.relpath(p, root)} (no verdicts)" for p, _, _ in unread]) + "\n"
    if dataset is not None and not needs_dataset:  # an option given must have an effect, or say why not
        text += (f"\n--dataset not used: the verdict records have their own query ids and no question text with a "
                 "conversation field to match, so the draft reads the ids as they are. For the canonical ids of "
                 f"{Path(dataset).name} map question: <question field> and cluster: <conversation> (and "
                 "expected:, category:) in place of query_id, with dataset: in the recipe (docs/recipes.md).\n")
    outside = re.findall(r"""^\s*(?:- )?(?:files|dataset): \[?["']?((?:\.\.|/)[^"',\]]*)""", recipe, re.M)
    if outside:  # a recipe reads only files in its own folder unless trusted (docs/recipes.md, Paths)
        text += (f"\nthe draft reads files outside its own folder ({outside[0]}, ...): read "
                 "it with --allow-outside (Python: allow_outside=True), or write the draft inside the release "
                 "folder.\n")
    if undecided:
        text += "\ncould not decide:\n" + "\n".join(f"  - {u}" for u in undecided) + "\n"
    if guessed:
        text += "\nchosen by rule among several candidates (check them):\n" + \
            "\n".join(f"  - {g}" for g in guessed) + "\n"
    if not undecided and not guessed:
        text += "\nevery choice had one candidate: the draft should read the release unchanged " \
                "(check it with memdiag validate --recipe FILE).\n"
    return Inspection(text, recipe, not undecided, infos)
