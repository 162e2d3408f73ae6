"""Parsing YAML and JSON strictly: a key twice in one mapping is an error, never "the last wins";
a YAML document that anchors and aliases blow up (a "billion laughs" file) is refused.

Files: :func:`read_json`, :func:`read_json_lines` and :func:`read_yaml` open a file through
:func:`memdiag.io.opening.read_text` (compression, the size cap, binary content, UTF-8) and parse
it with the checks below; every error is one :class:`~memdiag.errors.VerdictError` naming the
file, the line (and column) or record, and the key where there is one, and what to do.
:func:`parse_json` parses text already read (the verdict readers' :func:`memdiag.io.readers.load`).

- :func:`load_yaml` — PyYAML's safe loader (no tags that run code) with two checks:
  a key that appears twice in one mapping (``sources:`` twice in a recipe) raises
  :class:`DuplicateKeyError`, a ``yaml.YAMLError`` (so every caller's message names the file,
  the line and the key); and a document whose nodes, counted with every alias expanded, exceed
  :func:`max_yaml_nodes` (``MEMDIAG_MAX_YAML_NODES`` raises it) raises :class:`YamlTooLarge`.
- :func:`json_object` — the ``object_pairs_hook`` of :func:`json.loads` that raises
  :class:`DuplicateJsonKey` (a ValueError) on ``{"score": 1, "score": 0}``.

YAML merge keys (``<<: *defaults``) keep their meaning: the keys written beside them override the
merged ones; only a key written twice is an error.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import yaml

from memdiag.errors import VerdictError, where
from memdiag.io.opening import read_text

#: Nodes a YAML document may hold with every alias expanded (a recipe, scheme or claims file has
#: a few thousand at most); ``MEMDIAG_MAX_YAML_NODES`` raises it.
MAX_YAML_NODES = 1_000_000
_MERGE = "tag:yaml.org,2002:merge"


class DuplicateKeyError(yaml.constructor.ConstructorError):
    """A key written twice in one YAML mapping."""


class YamlTooLarge(yaml.composer.ComposerError):
    """A YAML document that expands past :data:`MAX_YAML_NODES` nodes through its aliases."""


class DuplicateJsonKey(ValueError):
    """A key written twice in one JSON object (``key`` says which)."""

    def __init__(self, key: str) -> None:
        super().__init__(f"the key {key!r} appears twice in one JSON object; memdiag does not guess which "
                         "one is meant. Remove one of them")
        self.key = key


def max_yaml_nodes() -> int:
    """The expanded-node limit of a YAML document (``MEMDIAG_MAX_YAML_NODES`` if set)."""
    value = os.environ.get("MEMDIAG_MAX_YAML_NODES", "").strip()
    return int(value) if value.isdigit() else MAX_YAML_NODES


def _expanded(node: yaml.Node, sizes: dict[int, int], open_: set[int], limit: int) -> int:
    """Nodes below ``node`` with every alias expanded (each shared node counted at each use)."""
    key = id(node)
    if key in sizes:
        return sizes[key]
    if key in open_:
        raise YamlTooLarge(None, None, "a recursive anchor (an alias inside the node it names); "
                           "memdiag reads only finite documents", node.start_mark)
    open_.add(key)
    size = 1
    if isinstance(node, yaml.SequenceNode):
        size += sum(_expanded(child, sizes, open_, limit) for child in node.value)
    elif isinstance(node, yaml.MappingNode):
        size += sum(_expanded(k, sizes, open_, limit) + _expanded(v, sizes, open_, limit) for k, v in node.value)
    open_.discard(key)
    if size > limit:
        raise YamlTooLarge(None, None, f"anchors and aliases expand it to more than {limit:,} nodes (the YAML "
                           "node limit; a 'billion laughs' file?). Write the values out, or set "
                           "MEMDIAG_MAX_YAML_NODES to a larger number", node.start_mark)
    sizes[key] = size
    return size


class StrictLoader(yaml.SafeLoader):
    """SafeLoader refusing duplicate keys and alias bombs (see the module notes)."""

    def compose_document(self) -> yaml.Node:  # type: ignore[override]
        node = super().compose_document()
        if node is not None:
            _expanded(node, {}, set(), max_yaml_nodes())
        return node

    def construct_mapping(self, node: yaml.Node, deep: bool = False) -> dict:  # type: ignore[override]
        if isinstance(node, yaml.MappingNode):
            seen: set[tuple[str, str]] = set()
            for key_node, _ in node.value:
                if key_node.tag == _MERGE or not isinstance(key_node, yaml.ScalarNode):
                    continue
                key = (self.resolve(yaml.ScalarNode, key_node.value, (True, False))
                       if key_node.tag is None else key_node.tag, key_node.value)
                if key in seen:
                    raise DuplicateKeyError(None, None, f"duplicate key {key_node.value!r} (a key may appear "
                                            "once in a mapping; memdiag does not guess which one is meant)",
                                            key_node.start_mark)
                seen.add(key)
        return super().construct_mapping(node, deep)


def load_yaml(text: str, loader: type[StrictLoader] = StrictLoader) -> object:
    """The value of a YAML document, parsed with :class:`StrictLoader` (or a subclass).

    Raises
    ------
    yaml.YAMLError
        Invalid YAML, a duplicate key (:class:`DuplicateKeyError`), or an alias bomb
        (:class:`YamlTooLarge`), with the line of the offending node.

    Examples
    --------
    >>> load_yaml("a: 1\\nb: [x, y]")
    {'a': 1, 'b': ['x', 'y']}
    >>> load_yaml("a: 1\\na: 2")
    Traceback (most recent call last):
    ...
    memdiag.io.strict.DuplicateKeyError: duplicate key 'a' ...
    """
    return yaml.load(text, Loader=loader)  # noqa: S506 - a SafeLoader subclass


def json_object(pairs: list[tuple[str, object]]) -> dict:
    """``object_pairs_hook`` for :func:`json.loads`: a dict, or :class:`DuplicateJsonKey`.

    >>> import json
    >>> json.loads('{"a": 1, "a": 0}', object_pairs_hook=json_object)
    Traceback (most recent call last):
    ...
    memdiag.io.strict.DuplicateJsonKey: the key 'a' appears twice in one JSON object; ...
    """
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateJsonKey(key)
            seen.add(key)
    return out


# --------------------------------------------------------------------------------------------
# JSON and JSON lines text, with the file in every error
# --------------------------------------------------------------------------------------------
def _json_line(line: str, number: int, path: Path) -> object:
    try:
        return json.loads(line, object_pairs_hook=json_object)
    except json.JSONDecodeError as error:
        raise VerdictError(f"{where(path, f'line {number}')}: not valid JSON at column {error.colno} "
                           f"({error.msg}). Fix or remove the line.") from None
    except DuplicateJsonKey as error:
        raise VerdictError(f"{where(path, f'line {number}', error.key)}: {error}.") from None


def _numbered_lines(text: str, path: Path) -> list[tuple[int, object]]:
    """``(line number, value)`` of every non-blank line: parsed as one JSON array (fast), line by
    line when that fails (to name the line)."""
    # lines end at LF only: U+2028, U+0085 and the other characters str.splitlines() breaks at are
    # valid, unescaped, inside a JSON string
    numbered = [(number, line) for number, line in enumerate(text.split("\n"), start=1) if line.strip()]
    try:
        values = json.loads("[" + ",".join(line for _, line in numbered) + "]", object_pairs_hook=json_object)
    except (json.JSONDecodeError, DuplicateJsonKey):
        values = None
    if values is not None and len(values) == len(numbered):
        return [(number, value) for (number, _), value in zip(numbered, values)]
    return [(number, _json_line(line, number, path)) for number, line in numbered]


def _json(text: str, path: Path) -> object:
    """One JSON value, or JSON lines when the file holds several values one per line."""
    try:
        return json.loads(text, object_pairs_hook=json_object)
    except json.JSONDecodeError as error:
        first_line = text.lstrip().split("\n", 1)[0]
        try:
            json.loads(first_line, object_pairs_hook=json_object)
        except json.JSONDecodeError:
            raise VerdictError(
                f"{where(path)}: not valid JSON at line {error.lineno}, column {error.colno} "
                f"(char {error.pos}): {error.msg}. Fix the file."
            ) from None
        return [value for _, value in _numbered_lines(text, path)]


#: A JSON escape of a UTF-16 surrogate (``\\ud800``); valid only as a high-low pair.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _no_lone_surrogate(value: object, path: Path) -> None:
    """A VerdictError naming the file when a string (key or value) holds a lone surrogate, which
    no text encoding can write (it would fail later, naming nothing)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as error:
                raise VerdictError(f"{where(path)}: the string {item!r:.60} holds a lone surrogate "
                                   f"({item[error.start]!r}), which is not Unicode text. Fix its \\u escape.") from None


def parse_json(text: str, path: Path, lines: bool = False) -> object:
    """JSON text as a value (JSON lines: a list of the lines' values, ``lines=True`` or when the
    whole text is no JSON value but its first line is).

    Raises
    ------
    VerdictError
        Invalid JSON (line and column), a key twice in one object (the key), a string with a
        lone surrogate, nesting too deep for Python — each naming ``path``.

    Examples
    --------
    >>> parse_json('{"a": 1}\\n{"a": 2}\\n', Path("v.jsonl"))
    [{'a': 1}, {'a': 2}]
    >>> parse_json('{"score": 1, "score": 0}', Path("v.json"))
    Traceback (most recent call last):
    ...
    memdiag.errors.VerdictError: v.json, field 'score': the key 'score' appears twice in one JSON object; ...
    """
    try:
        value = [v for _, v in _numbered_lines(text, path)] if lines else _json(text, path)
        if _SURROGATE_ESCAPE.search(text):  # rare: only then walk the strings
            _no_lone_surrogate(value, path)
        return value
    except DuplicateJsonKey as error:
        raise VerdictError(f"{where(path, None, error.key)}: {error}.") from None
    except RecursionError:
        raise VerdictError(f"{where(path)}: the JSON is nested too deeply to read. "
                           "This is not a verdict file.") from None


# --------------------------------------------------------------------------------------------
# files: opened once (memdiag.io.opening), then parsed strictly
# --------------------------------------------------------------------------------------------
def _text(path: str | Path, what: str) -> str:
    """The text of a ``what`` file; an empty (or blank) file is a VerdictError naming it."""
    text = read_text(Path(path), what)
    if not text.strip():
        raise VerdictError(f"{where(path)}: the {what} is empty. Point memdiag at the {what} itself.")
    return text


def read_json(path: str | Path, what: str) -> object:
    """The JSON value of the file ``path`` (a ``what``: "gold-error file", "LoCoMo dataset file").

    Raises
    ------
    VerdictError
        A missing, empty, binary, non-UTF-8, over-large or corrupt compressed file; invalid JSON
        (line and column); a key twice in one object; nesting too deep — each naming the file.

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "errors.json"
    >>> _ = path.write_text('[{"question_id": "q1", "question_id": "q2"}]')
    >>> read_json(path, "gold-error file")
    Traceback (most recent call last):
    ...
    memdiag.errors.VerdictError: ...errors.json, field 'question_id': the key 'question_id' appears twice in one JSON object; ...
    """
    path = Path(path)
    return parse_json(_text(path, what), path)


def read_json_lines(path: str | Path, what: str) -> list[tuple[int, object]]:
    """``(line number, value)`` of every non-blank line of a JSON-lines file.

    Lines end at LF only (a U+2028 inside a JSON string is text, not a line break).

    Raises
    ------
    VerdictError
        As :func:`read_json`, with the line (``line 3``) of invalid JSON or a repeated key.

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "log.jsonl"
    >>> _ = path.write_text('{"a": 1}\\n\\n{"a": 2}\\n')
    >>> read_json_lines(path, "decision log")
    [(1, {'a': 1}), (3, {'a': 2})]
    """
    path = Path(path)
    text = _text(path, what)
    try:
        return _numbered_lines(text, path)
    except RecursionError:
        raise VerdictError(f"{where(path)}: a line of the {what} is nested too deeply to read. "
                           f"Write one flat JSON object per line.") from None


def read_yaml(path: str | Path, what: str, loader: type[StrictLoader] = StrictLoader) -> object:
    """The value of the YAML (or JSON) file ``path``, parsed with :class:`StrictLoader` (or a subclass).

    Raises
    ------
    VerdictError
        As :func:`read_json`; invalid YAML, a key twice in one mapping or an alias bomb with its
        line and column.

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "claims.yaml"
    >>> _ = path.write_text("- id: a\\n  id: b\\n")
    >>> read_yaml(path, "claims file")
    Traceback (most recent call last):
    ...
    memdiag.errors.VerdictError: ...claims.yaml: not valid YAML at line 2, column 3: duplicate key 'id' (a key may appear once in a mapping; memdiag does not guess which one is meant). Fix the claims file.
    """
    path = Path(path)
    text = _text(path, what)
    try:
        return load_yaml(text, loader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = " ".join(str(getattr(error, "problem", None) or error).split())
        raise VerdictError(f"{where(path)}: not valid YAML{at}: {problem}. Fix the {what}.") from None
    except RecursionError:
        raise VerdictError(f"{where(path)}: the {what} is nested too deeply to read.") from None
