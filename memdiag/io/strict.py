"""Parsing YAML and JSON strictly: a key twice in one mapping is an error, never "the last wins";
a YAML document that anchors and aliases blow up (a "billion laughs" file) is refused.

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

import os

import yaml

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
