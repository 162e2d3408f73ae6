"""Where schemes come from: a mapping, a YAML/JSON file, or a built-in name (SPEC §6).

The built-in schemes are YAML files in ``memdiag/_schemes/builtin/`` (package data, read with
:mod:`importlib.resources`, so they work from an installed wheel) and go through the same
:func:`from_dict` as a user's scheme. Each file is parsed once, on first use. The benchmark
constants other modules need (MEME's tasks, MemoryAgentBench's tree, ...) are read from those
files too, on first use (PEP 562), so that the files stay their one source. No pandas here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import fields
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from memdiag._outputs import note_input
from memdiag._strict import DuplicateJsonKey, json_object, load_yaml
from memdiag.errors import SchemeError
from memdiag._schemes._scheme import Scheme, match_key

if TYPE_CHECKING:  # pragma: no cover - names for annotations only
    from importlib.resources.abc import Traversable

#: The built-in scheme listed first, and the CLI's default: every query counts once.
DEFAULT = "mean"

def _parse(text: str, where: str, is_json: bool) -> object:
    """The YAML or JSON value of a scheme file's text; a SchemeError naming ``where`` if unparsable."""
    try:
        return json.loads(text, object_pairs_hook=json_object) if is_json else load_yaml(text)
    except (json.JSONDecodeError, yaml.YAMLError, RecursionError, DuplicateJsonKey) as err:
        raise SchemeError(f"{where}: not valid {'JSON' if is_json else 'YAML'} "
                          f"({' '.join(str(err).split())}). Fix the syntax.") from None


def from_dict(spec: Mapping, origin: str = "<dict>", cls: type[Scheme] = Scheme) -> Scheme:
    """:meth:`Scheme.from_dict`: check the keys of ``spec`` against the fields of ``cls`` and build it."""
    if not isinstance(spec, Mapping):
        raise SchemeError(f"{origin}: a scheme is a mapping of keys (group_by, weights, ...), "
                          f"not {type(spec).__name__}.")
    allowed = [f.name for f in fields(cls) if f.name != "origin"]
    unknown = [str(k) for k in spec if k not in allowed]
    if unknown:
        raise SchemeError(f"{origin}, key '{unknown[0]}': unknown key (known keys: "
                          f"{', '.join(allowed)}). Fix its spelling or remove it.")
    values = dict(spec)
    values.setdefault("name", Path(origin).stem if origin != "<dict>" else "custom")
    return cls(**values, origin=origin)


def from_file(path: str | Path, cls: type[Scheme] = Scheme) -> Scheme:
    """:meth:`Scheme.from_file`: a scheme from a YAML (``.yaml``/``.yml``) or JSON file."""
    path = Path(path)
    if not path.is_file():
        raise SchemeError(f"{path}: no such scheme file. Check the path, or use a built-in "
                          f"scheme ({', '.join(known_schemes())}).")
    note_input(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise SchemeError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start}). Save the scheme "
                          "as UTF-8.") from None
    spec = _parse(text, str(path), path.suffix.lower() == ".json")
    return from_dict(spec if spec is not None else {}, origin=str(path), cls=cls)


# --------------------------------------------------------------------------------------------
# the built-in catalogue
# --------------------------------------------------------------------------------------------
def _folder() -> Traversable:
    return resources.files("memdiag._schemes") / "builtin"


@cache
def _names() -> tuple[str, ...]:
    names = sorted(item.name.removesuffix(".yaml") for item in _folder().iterdir()
                   if item.name.endswith(".yaml"))
    return (DEFAULT, *(name for name in names if name != DEFAULT))


def known_schemes() -> tuple[str, ...]:
    """Names of the built-in schemes (the files ``builtin/<name>.yaml``): ``mean`` first, then
    the benchmarks alphabetically.

    Returns
    -------
    tuple of str
        The names :func:`get_scheme` accepts besides files and mappings (read once per process).

    Raises
    ------
    OSError
        The package's ``builtin`` scheme folder cannot be read (a broken installation).

    References
    ----------
    SPEC §6.3 (the built-in schemes) and SPEC §6.1 (schemes are data: YAML files); Raw-RAG paper
    D.5 (the benchmarks' official aggregations).

    Examples
    --------
    >>> known_schemes()[:3]
    ('mean', 'locomo', 'longmemeval')
    >>> "meme" in known_schemes() and "memoryagentbench" in known_schemes()
    True
    """
    return _names()


@cache
def _builtin(name: str) -> Scheme:
    """The built-in scheme ``builtin/<name>.yaml``, parsed once (``origin`` is ``built-in``)."""
    item = _folder() / f"{name}.yaml"
    spec = _parse(item.read_text(encoding="utf-8"), f"built-in scheme file {item.name}", is_json=False)
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
