"""The exception families of memdiag (STYLE: one class per family, ValueError subclasses).

The CLI turns each into one line on stderr and exit status 2.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path


class VerdictError(ValueError):
    """Bad per-query verdict input: names the file, the record and the field, and what to do."""


class SchemeError(ValueError):
    """A benchmark scheme that is unknown, malformed, or that the data cannot satisfy."""


class MemdiagDeprecationWarning(DeprecationWarning):
    """A name or keyword kept for code written against an older memdiag; the message says what
    replaces it and when it goes. Python shows it once per calling line."""


#: How many offending names an error or note lists before it says "and N more".
SHOW = 5


def listing(values: Iterable[object], show: int = SHOW) -> str:
    """The first ``show`` values, comma-separated, then "and N more".

    >>> listing(["q1", "q2", "q3"], show=2)
    'q1, q2 and 1 more'
    """
    values = list(values)
    shown = ", ".join(map(str, values[:show]))
    return shown + (f" and {len(values) - show} more" if len(values) > show else "")


def shown(value: object) -> str:
    """``repr`` of a value as a user wrote it: numpy scalars as the Python values they hold (``0``,
    not ``np.int64(0)``), also inside tuples and lists.

    >>> shown(("a", 1.5))
    "('a', 1.5)"
    """
    if isinstance(value, tuple):
        return "(" + ", ".join(map(shown, value)) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, list):
        return "[" + ", ".join(map(shown, value)) + "]"
    if type(value).__module__ == "numpy" and callable(getattr(value, "item", None)):
        try:
            value = value.item()
        except (TypeError, ValueError):
            pass
    return repr(value)


#: Words that already say what kind of record a location is (``row 3``, ``line 12``).
_RECORD_WORDS = ("record", "row", "line", "item", "file")


def where(source: str | None, record: object | None = None, field: str | None = None) -> str:
    """Format the location prefix of an error message: ``file, record N, field 'x'``; a record
    given as ``row N`` or ``line N`` keeps its own word.

    >>> where("a.csv", 3, "score"), where("a.csv", "row 2", "query_id")
    ("a.csv, record 3, field 'score'", "a.csv, row 2, field 'query_id'")
    """
    parts = [str(source) if source else "<data>"]
    if record is not None:
        text = str(record)
        parts.append(text if text.split(" ", 1)[0] in _RECORD_WORDS else f"record {text}")
    if field is not None:
        parts.append(f"field '{field}'")
    return ", ".join(parts)


#: The folder of the memdiag package: frames in it are memdiag's own, not the caller's.
_PACKAGE = str(Path(__file__).parent) + os.sep


def caller_stacklevel() -> int:
    """The ``stacklevel`` for :func:`warnings.warn` that names the first caller outside memdiag.

    Called by the function that warns. A fixed stacklevel names memdiag's own code, or the
    ``<string>`` of a generated ``__init__`` (a frozen dataclass validating its fields), when the
    warning is reached by more than one path; this walks out of memdiag's files and generated code
    so the warning names the user's own line. Where every frame is memdiag's (the command line),
    the outermost frame is named.
    """
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and (frame.f_code.co_filename.startswith(_PACKAGE)
                                        or frame.f_code.co_filename == "<string>"):
        frame, level = frame.f_back, level + 1
    return level
