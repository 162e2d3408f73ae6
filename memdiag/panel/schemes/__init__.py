"""Official benchmark aggregation as data (SPEC §6; Raw-RAG paper D.5 and D.1).

A :class:`Scheme` says which queries count, how they are grouped, how the groups are weighted
and which gates apply. :meth:`Scheme.layout` resolves it on a :class:`~memdiag.panel.align.Panel`
into a :class:`SchemeLayout`, whose per-query contribution columns carry everything the official
number needs, so the resampling engine evaluates it with one matrix product per chunk.

Built-in schemes (:func:`known_schemes`): ``mean``, ``locomo``, ``longmemeval``,
``longmemeval-no-abs``, ``meme``, ``memoryagentbench``, ``personamem``, one YAML file each in
``builtin/``. Users declare their own in a small YAML or JSON file of the same keys
(:meth:`Scheme.from_file`; example in ``data/example/scheme_example.yaml``).

Modules, one job each:

- ``_tree``: the weight-tree grammar (:func:`tree_weights`).
- ``_scheme``: the :class:`Scheme` fields, their validation and the groups they name.
- ``_resolve``: a scheme on verdicts — ``select``, ``layout``, the MEME gate, :class:`SchemeLayout`.
- ``_load``: mappings, YAML/JSON files and the built-in catalogue (:func:`get_scheme`).

Reading a scheme imports no pandas: the names that need it (:class:`SchemeLayout`, ``ALL``,
``UNLABELLED``) and the constants read from the built-in files (``BUILTIN``,
``LONGMEMEVAL_TYPES``, ``MEME_TASKS``, ``MEMORYAGENTBENCH_TREE``, ``MEMORYAGENTBENCH_ALIASES``)
are imported on first use (PEP 562).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from memdiag.panel.schemes._load import get_scheme, known_schemes, resolve_scheme
from memdiag.panel.schemes._scheme import GROUPABLE, Scheme
from memdiag.panel.schemes._tree import tree_weights

#: Name imported on first use -> its module.
_LAZY: dict[str, str] = {
    **dict.fromkeys(("SchemeLayout", "ALL", "UNLABELLED"), "memdiag.panel.schemes._resolve"),
    **dict.fromkeys(("BUILTIN", "LONGMEMEVAL_TYPES", "MEME_TASKS", "MEMORYAGENTBENCH_TREE",
                     "MEMORYAGENTBENCH_ALIASES"), "memdiag.panel.schemes._load"),
}

__all__ = sorted(["GROUPABLE", "Scheme", "get_scheme", "known_schemes", "resolve_scheme", "tree_weights",
                  *_LAZY])


def __getattr__(name: str) -> object:
    """Import a name of :data:`_LAZY` from its module on first use and keep it here."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = getattr(importlib.import_module(module), name)
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


if TYPE_CHECKING:  # pragma: no cover - names for static analysis and IDEs
    from memdiag.panel.schemes._load import (
        BUILTIN,
        LONGMEMEVAL_TYPES,
        MEME_TASKS,
        MEMORYAGENTBENCH_ALIASES,
        MEMORYAGENTBENCH_TREE,
    )
    from memdiag.panel.schemes._resolve import ALL, UNLABELLED, SchemeLayout
