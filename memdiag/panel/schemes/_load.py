"""Where schemes come from: a built-in name, a file or a mapping, looked up in one place (SPEC §6).

Each built-in file is parsed once, on first use (:mod:`memdiag.panel.schemes._files` reads it). The benchmark
constants other modules need (MEME's tasks, MemoryAgentBench's tree, ...) are read from those
files too, on first use (PEP 562), so that the files stay their one source. No pandas here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path

from memdiag.errors import SchemeError
from memdiag.panel.schemes._files import DEFAULT, _folder, _parse, known_schemes
from memdiag.panel.schemes._keys import match_key
from memdiag.panel.schemes._scheme import Scheme

__all__ = ["DEFAULT", "get_scheme", "known_schemes", "resolve_scheme"]


@cache
def _builtin(name: str) -> Scheme:
    """The built-in scheme ``builtin/<name>.yaml``, parsed once (``origin`` is ``built-in``)."""
    item = _folder() / f"{name}.yaml"
    spec = _parse(item.read_text(encoding="utf-8"), f"built-in scheme file {item.name}")
    return Scheme.from_dict(spec, origin="built-in")


def get_scheme(name_or_path: str | Path | Scheme | Mapping) -> Scheme:
    """A built-in scheme by name, a user scheme from a ``.yaml``/``.yml``/``.json`` file or a mapping.

    Names match ignoring case and punctuation (``MemoryAgentBench`` = ``memoryagentbench``).

    Parameters
    ----------
    name_or_path
        A built-in name (:func:`known_schemes`), a path to a ``.yaml``/``.yml``/``.json`` scheme
        file, a mapping of scheme fields, or a :class:`~memdiag.Scheme` (returned as it is).

    Returns
    -------
    Scheme
        The validated scheme; a built-in one is parsed once and shared.

    Raises
    ------
    SchemeError
        An unknown name (listing the built-in ones), a missing, unreadable or unparsable scheme
        file, an unknown key, or fields that break the rules of SPEC §6.1.

    References
    ----------
    SPEC §6.1 (schemes) and SPEC §6.3 (the built-in schemes); Raw-RAG paper D.5 (LoCoMo drops
    its adversarial category; MemoryAgentBench's nested capability weights, eq. 6).

    Examples
    --------
    >>> get_scheme("LoCoMo").exclude
    ('adversarial',)
    >>> {k: round(v, 4) for k, v in get_scheme("memoryagentbench").group_weights.items()}["ReDial"]
    0.125
    """
    if isinstance(name_or_path, Scheme):
        return name_or_path
    if isinstance(name_or_path, Mapping):
        return Scheme.from_dict(name_or_path)
    text = str(name_or_path)
    if Path(text).suffix.lower() in {".yaml", ".yml", ".json"} or Path(text).is_file():
        return Scheme.from_file(text)
    for name in known_schemes():
        if match_key(name) == match_key(text):
            return _builtin(name)
    raise SchemeError(f"unknown scheme '{text}' (known: {', '.join(known_schemes())}). Give a built-in "
                      "name or a .yaml/.json scheme file.")


def resolve_scheme(scheme: str | Path | Scheme | Mapping | None) -> Scheme | None:
    """:func:`get_scheme` for an optional argument: None stays None (no official aggregation)."""
    return None if scheme is None else get_scheme(scheme)


# --------------------------------------------------------------------------------------------
# constants read from the built-in files
# --------------------------------------------------------------------------------------------
def _meme_tasks() -> dict[str, tuple[str, ...]]:
    meme = _builtin("meme")
    return {task: tuple(label for label, canonical in meme.aliases.items() if canonical == task)
            for task in meme.declared_groups}


#: Name -> how it is read from the built-in files (on first access, then kept in this module).
_DERIVED: dict[str, Callable[[], object]] = {
    # every built-in scheme by name, in known_schemes() order
    "BUILTIN": lambda: {name: _builtin(name) for name in known_schemes()},
    # LongMemEval-S question type -> official count (SPEC §6; D.1.2)
    "LONGMEMEVAL_TYPES": lambda: dict(_builtin("longmemeval").expected_counts),
    # MEME task (D.1.3) -> the label variants accepted for it
    "MEME_TASKS": _meme_tasks,
    # MemoryAgentBench capability -> canonical source names (D.1.4, D.5 eq. 6), a weight tree
    "MEMORYAGENTBENCH_TREE": lambda: _builtin("memoryagentbench").weights,
    # MemoryAgentBench source-name variants (released source ids, common spellings) -> source
    "MEMORYAGENTBENCH_ALIASES": lambda: dict(_builtin("memoryagentbench").aliases),
}


def __getattr__(name: str) -> object:
    """Read a constant of :data:`_DERIVED` from the built-in files on first use and keep it."""
    if name not in _DERIVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = _DERIVED[name]()
    return value
