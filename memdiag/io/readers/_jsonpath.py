"""Where the records are in a JSON document, and where a field is in a record (recipes, ``--records``).

Path syntax
-----------
A path is steps separated by dots: ``results``, ``data.items``, ``sample_results.*.qa_results``.

* ``name`` — the key ``name`` of an object; a key holding dots, spaces or brackets is written in
  brackets and quotes: ``["judge.v2"]``, ``['Zep (Graphiti)_correct']``.
* ``[3]`` — item 3 (0-based) of a list.
* ``*`` or ``[*]`` — every value of an object (its key is captured) or every item of a list (its
  index is captured). Only records paths use ``*``.

Records (:func:`select`): the path leads to a list of objects (each is one record) or to an object
whose values are objects (each value is one record, its key the record's ``$key`` — e.g.
``{"questions": {"q1": {...}, "q2": {...}}}``). An empty path is the top level.

Fields (:func:`getter`): a path into the record (``evaluation.is_correct``; a key that literally
holds the dots wins), or

* ``$key`` — the record's key in its object (its id) or its 0-based position in its list;
* ``$1``, ``$2`` — the key (or position) matched by the first, second ``*`` of the records path;
* ``^name`` — ``name`` in the object enclosing the record list (``^^name``: one object further
  up), e.g. ``^sample_id`` for ``sample_results.*.qa_results``.

Examples
--------
>>> doc = {"runs": [{"name": "a", "qa": [{"id": "q1", "ok": True}]}]}
>>> [getter("^name")(r) for r in select(doc, "runs.*.qa", "f.json")]
['a']
>>> [(r.key, getter("ok")(r)) for r in select({"questions": {"q1": {"ok": 1}}}, "questions", "f.json")]
[('q1', 1)]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from memdiag.errors import VerdictError, listing, where

#: A field a record does not have (distinct from a JSON null).
MISSING = object()


@dataclass(frozen=True)
class Step:
    """One step of a path: ``kind`` is ``key``, ``index`` or ``all``."""

    kind: str
    value: object = None

    def text(self) -> str:
        """The step as written in a path."""
        if self.kind == "all":
            return "*"
        if self.kind == "index":
            return f"[{self.value}]"
        name = str(self.value)
        return name if name and not set(name) & set(".[]'\"*^$") else f"[{name!r}]"


@dataclass(frozen=True)
class Record:
    """One record: its object, its key (id or 0-based position), the ``*`` captures, the enclosing
    objects (nearest first) and a locator for messages."""

    value: dict
    key: object
    captures: tuple
    parents: tuple
    locator: object


def parse(path: str, source: object = None, what: str = "path") -> tuple[Step, ...]:
    """The steps of a path (see the module's syntax).

    >>> [s.text() for s in parse('data.items[*]["a.b"]')]
    ['data', 'items', '*', "['a.b']"]
    """
    steps: list[Step] = []
    i, n = 0, len(path)

    def fail(why: str) -> VerdictError:
        return VerdictError(f"{where(source)}: {what} {path!r}: {why} (position {i + 1}). Write keys "
                            "as a.b, list items as [0], every item as *, odd keys as [\"key\"].")

    while i < n:
        char = path[i]
        if char == ".":
            if i == 0 or i == n - 1 or path[i + 1] == ".":
                raise fail("an empty step")
            i += 1
            continue
        if char == "[":
            close = path.find("]", i)
            if i + 1 < n and path[i + 1] in "\"'":
                quote = path[i + 1]
                end = path.find(quote + "]", i + 2)
                if end < 0:
                    raise fail("an unclosed quoted key")
                steps.append(Step("key", path[i + 2:end]))
                i = end + 2
                continue
            if close < 0:
                raise fail("an unclosed [")
            inner = path[i + 1:close].strip()
            if inner == "*":
                steps.append(Step("all"))
            elif inner.isdigit():
                steps.append(Step("index", int(inner)))
            else:
                raise fail(f"[{inner}] is neither [N], [*] nor [\"key\"]")
            i = close + 1
            continue
        end = i
        while end < n and path[end] not in ".[":
            end += 1
        name = path[i:end]
        steps.append(Step("all") if name == "*" else Step("key", name))
        i = end
    return tuple(steps)


def _kind(value: object) -> str:
    if isinstance(value, dict):
        return f"an object with keys {listing(map(str, value), 6)}" if value else "an empty object"
    if isinstance(value, list):
        return f"a list of {len(value)} items"
    return f"a {type(value).__name__} ({value!r:.30})"


def record_lists(value: object, prefix: str = "", depth: int = 3) -> list[tuple[str, int]]:
    """Paths (up to ``depth`` steps) to lists of objects or objects of objects, with their sizes:
    the candidates a message or ``memdiag inspect`` offers for ``records``.

    >>> record_lists({"overall": 0.7, "results": [{"id": 1}], "meta": {"n": 1}})
    [('results', 1)]
    """
    found = []
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value[:50]):
        found.append((prefix, len(value)))
    elif isinstance(value, dict) and len(value) > 1 and all(isinstance(v, dict) for v in value.values()) \
            and prefix:
        found.append((prefix, len(value)))
    if isinstance(value, dict) and depth > 0:
        for key, child in value.items():
            step = Step("key", str(key)).text()
            found += record_lists(child, f"{prefix}.{step}" if prefix else step, depth - 1)
    return found


def _records_at(node: object, locator: str, captures: tuple, parents: tuple, source: object,
                path: str) -> list[Record]:
    """The records of the node a records path leads to."""
    label = locator or "the top level"
    if isinstance(node, list):
        out = []
        for i, item in enumerate(node):
            if not isinstance(item, dict):
                raise VerdictError(f"{where(source)}: records {path!r}: item {i + 1} of {label} is "
                                   f"{_kind(item)}, not an object. Point records at a list of objects.")
            out.append(Record(item, i, captures, parents, i + 1 if not locator else f"{locator} item {i + 1}"))
        return out
    if isinstance(node, dict) and node and all(isinstance(v, dict) for v in node.values()):
        return [Record(value, key, captures, parents, f"{locator or 'top level'} {key!r}")
                for key, value in node.items()]
    hint = ""
    candidates = record_lists(node) if isinstance(node, dict) else []
    if candidates:
        hint = " Record lists inside it: " + listing(f"{p} ({k})" for p, k in candidates) + \
            (f". Use records: {candidates[0][0] if not locator else locator + '.' + candidates[0][0]}" if
             len(candidates) == 1 else "")
    raise VerdictError(f"{where(source)}: records {path or '(top level)'!r}: {label} is {_kind(node)}, "
                       f"not a list of records or an object keyed by id.{hint}".rstrip() + ("" if hint.endswith(".") else "."))


def select(content: object, path: str | None, source: object) -> list[Record]:
    """The records a records path selects in parsed JSON (see the module's syntax).

    Raises
    ------
    VerdictError
        A key or item that is not there (naming where and what is there instead), or a path that
        does not end at records.
    """
    steps = parse(path or "", source, "records")
    nodes: list[tuple[object, str, tuple, tuple]] = [(content, "", (), ())]
    for step in steps:
        following = []
        for node, locator, captures, parents in nodes:
            inner = (node,) + parents if isinstance(node, dict) else parents
            here = locator or "the top level"
            if step.kind == "all":
                if isinstance(node, dict):
                    following += [(v, f"{locator}.{Step('key', str(k)).text()}".lstrip("."), captures + (k,), inner)
                                  for k, v in node.items()]
                elif isinstance(node, list):
                    following += [(v, f"{locator}[{i}]", captures + (i,), inner) for i, v in enumerate(node)]
                else:
                    raise VerdictError(f"{where(source)}: records {path!r}: * needs an object or a list, "
                                       f"but {here} is {_kind(node)}.")
            elif step.kind == "index":
                if not isinstance(node, list) or step.value >= len(node):
                    raise VerdictError(f"{where(source)}: records {path!r}: {here} has no item "
                                       f"[{step.value}]: it is {_kind(node)}.")
                following.append((node[step.value], f"{locator}[{step.value}]", captures, inner))
            else:
                if not isinstance(node, dict) or step.value not in node:
                    raise VerdictError(f"{where(source)}: records {path!r}: {here} has no key "
                                       f"{step.value!r}: it is {_kind(node)}.")
                following.append((node[step.value], f"{locator}.{step.text()}".lstrip("."), captures, inner))
        nodes = following
    records: list[Record] = []
    for node, locator, captures, parents in nodes:
        records += _records_at(node, locator, captures, parents, source, path or "")
    return records


def _walk(value: object, steps: tuple[Step, ...]) -> object:
    for step in steps:
        if step.kind == "key" and isinstance(value, dict) and step.value in value:
            value = value[step.value]
        elif step.kind == "index" and isinstance(value, list) and step.value < len(value):
            value = value[step.value]
        else:
            return MISSING
    return value


def getter(path: str, source: object = None) -> Callable[[Record], object]:
    """A function giving the value of field ``path`` in a :class:`Record` (:data:`MISSING` when
    absent); see the module's syntax for ``$key``, ``$1`` and ``^name``.

    >>> r = Record({"a.b": 1, "a": {"b": 2, "c": [5, 6]}}, "q7", ("run-1",), ({"id": "s1"},), 1)
    >>> [getter(p)(r) for p in ("a.b", "a.c[1]", "$key", "$1", "^id", "^nope", "zzz")] == \\
    ...     [1, 6, "q7", "run-1", "s1", MISSING, MISSING]
    True
    """
    if path == "$key":
        return lambda record: record.key
    if path.startswith("$"):
        number = path[1:]
        if not number.isdigit() or int(number) < 1:
            raise VerdictError(f"{where(source)}: field {path!r}: use $key, or $1, $2, ... for the keys "
                               "matched by the *s of the records path.")
        index = int(number) - 1
        return lambda record: record.captures[index] if index < len(record.captures) else MISSING
    up = len(path) - len(path.lstrip("^"))
    steps = parse(path[up:], source, "field")
    if any(step.kind == "all" for step in steps):
        raise VerdictError(f"{where(source)}: field {path!r}: * selects records; a field names one value.")
    if up:
        return lambda record: _walk(record.parents[up - 1], steps) if up <= len(record.parents) else MISSING
    literal = path

    def get(record: Record) -> object:
        if literal in record.value:
            return record.value[literal]
        return _walk(record.value, steps)

    return get
