"""Reading a scheme: from a mapping or a YAML/JSON file into a :class:`Scheme`, and the names of
the built-in schemes (SPEC §6).

The built-in schemes are YAML files in ``memdiag/panel/schemes/builtin/`` (package data, read with
:mod:`importlib.resources`, so they work from an installed wheel) and go through the same
:func:`from_dict` as a user's scheme. The class is passed in (:meth:`Scheme.from_dict`,
:meth:`Scheme.from_file`), so this module does not import the definition it builds. No pandas here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from memdiag.errors import SchemeError, VerdictError
from memdiag.io.opening import logical_suffix
from memdiag.io.strict import load_yaml, read_json, read_yaml

if TYPE_CHECKING:  # pragma: no cover - names for annotations only
    from importlib.resources.abc import Traversable

    from memdiag.panel.schemes._scheme import Scheme

#: What a scheme file is called in messages.
WHAT = "scheme file"

#: The built-in scheme listed first, and the CLI's default: every query counts once.
DEFAULT = "mean"


def _parse(text: str, where: str) -> object:
    """The YAML value of a built-in scheme file's text (package data; a user's file goes through
    :func:`from_file`); a SchemeError naming ``where`` if unparsable."""
    try:
        return load_yaml(text)
    except (yaml.YAMLError, RecursionError) as err:
        raise SchemeError(f"{where}: not valid YAML ({' '.join(str(err).split())}). Fix the syntax.") from None


def from_dict(spec: Mapping, origin: str, cls: type[Scheme]) -> Scheme:
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


def from_file(path: str | Path, cls: type[Scheme]) -> Scheme:
    """:meth:`Scheme.from_file`: a scheme from a YAML (``.yaml``/``.yml``) or JSON file (compressed or
    not), read by the strict readers of :mod:`memdiag.io.strict`; any error they raise is a
    SchemeError naming the file."""
    path = Path(path)
    if not path.is_file():
        raise SchemeError(f"{path}: no such scheme file. Check the path, or use a built-in "
                          f"scheme ({', '.join(known_schemes())}).")
    try:  # the strict readers: compression, caps, binary content, UTF-8, a key twice, an alias bomb
        spec = read_json(path, WHAT) if logical_suffix(path) == ".json" else read_yaml(path, WHAT)
    except VerdictError as error:
        raise SchemeError(str(error)) from None
    return from_dict(spec, origin=str(path), cls=cls)


# --------------------------------------------------------------------------------------------
# the built-in catalogue
# --------------------------------------------------------------------------------------------
def _folder() -> Traversable:
    return resources.files("memdiag.panel.schemes") / "builtin"


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
