"""The exception families of memdiag (STYLE: one class per family, ValueError subclasses).

The CLI turns each into one line on stderr and exit status 2.
"""

from __future__ import annotations


class VerdictError(ValueError):
    """Bad per-query verdict input: names the file, the record and the field, and what to do."""


class SchemeError(ValueError):
    """A benchmark scheme that is unknown, malformed, or that the data cannot satisfy."""


def where(source: str | None, record: object | None = None, field: str | None = None) -> str:
    """Format the location prefix of an error message: ``file, record N, field 'x'``."""
    parts = [str(source) if source else "<data>"]
    if record is not None:
        parts.append(f"record {record}")
    if field is not None:
        parts.append(f"field '{field}'")
    return ", ".join(parts)
