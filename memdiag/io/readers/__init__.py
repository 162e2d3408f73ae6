"""Readers for released per-query verdict layouts, one module per layout, auto-detected.

Every layout module defines ``NAME``, ``DESCRIPTION``, ``sniff(path, content) -> bool`` and
``read(path, content, *, system=None, fields=None) -> DataFrame`` (the canonical long schema of
SPEC §1 plus provenance ``source_file``/``source_record``). :func:`read_file` parses a file once,
picks the layout (the first in :data:`FORMATS` whose ``sniff`` accepts it, or the one named) and
reads it. :mod:`memdiag.io.verdicts` names the systems and checks across records and files.

File parsing (after decompression: ``.gz``, ``.bz2``, ``.xz``, ``.zst`` or compressed content under
any name, :mod:`memdiag.io.opening`): ``.csv``/``.tsv`` and ``.parquet``/``.pq`` (or Parquet
content) are tables (``content`` None, the reader reads them); ``.jsonl``/``.ndjson`` are JSON
lines; ``.json`` is JSON (or JSON lines when the whole file is not one JSON value but its first
line is); any other name is parsed by content: JSON / JSON lines when it starts with ``{`` or
``[``, else a table (e.g. LongMemEval's ``<run>.jsonl.eval-results-gpt-4o``).
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pandas as pd
import pyarrow

from memdiag.errors import VerdictError, listing, where
from memdiag.io.opening import PARQUET_MAGIC, decode, logical_suffix
from memdiag.io.readers import (
    backboard_locomo,
    long,
    longmemeval_autoeval,
    mapped,
    mem0_locomo,
    persona_longmemeval,
    trpc_locomo,
    wide,
    zep_locomo,
)
from memdiag.io.readers._common import (
    PARQUET_SUFFIXES,
    _header,
    content_bytes,
    table_columns,
)
from memdiag.io.strict import parse_json

#: The layouts in detection order: specific released layouts first, generic tables last;
#: ``mapped`` is never detected (it needs ``fields``).
FORMATS: tuple[ModuleType, ...] = (
    mem0_locomo, zep_locomo, backboard_locomo, trpc_locomo, persona_longmemeval,
    longmemeval_autoeval, wide, long, mapped,
)
JSONL_SUFFIXES = {".jsonl", ".ndjson"}
TABLE_SUFFIXES = {".csv", ".tsv"}
FIELD_HINT = ("--field query_id=<column> --field score=<column> "
              "(Python: fields={'query_id': <column>, 'score': <column>})")


def known_formats() -> list[tuple[str, str]]:
    """``(NAME, DESCRIPTION)`` of every layout, in detection order.

    Examples
    --------
    >>> [name for name, _ in known_formats()][:2]
    ['mem0-locomo', 'zep-locomo']
    """
    return [(fmt.NAME, fmt.DESCRIPTION) for fmt in FORMATS]


def _empty(path: Path) -> VerdictError:
    return VerdictError(f"{where(path)}: the file is empty (no verdict records). "
                        "Point memdiag at a file of per-query verdicts.")


def load(path: Path) -> object | None:
    """Parse a file once: the JSON / JSON-lines value, or None for a table (CSV, TSV, Parquet).

    Compressed files (``.gz``, ``.bz2``, ``.xz``, ``.zst``, or compressed content under any name)
    are decompressed first (:mod:`memdiag.io.opening`).

    Raises
    ------
    VerdictError
        A missing or empty file, binary content, text that is not UTF-8, or unparsable JSON (with
        line and column).
    """
    data = content_bytes(path)
    if not data[: 1 << 16].strip():
        raise _empty(path)
    suffix = logical_suffix(path)
    if suffix in PARQUET_SUFFIXES or data[:4] == PARQUET_MAGIC:
        return None
    if suffix in TABLE_SUFFIXES:
        _header(path)  # binary content or a non-UTF-8 header: one clear error now
        return None
    text = decode(data, path)
    if suffix in JSONL_SUFFIXES:
        return parse_json(text, path, lines=True)
    if suffix == ".json" or text.lstrip()[:1] in ("{", "["):
        return parse_json(text, path)
    return None


def _describe(path: Path, content: object | None) -> str:
    """What the file looks like, for the unknown-layout message (short)."""
    if isinstance(content, dict):
        return f"a JSON object with keys {listing(map(str, content), 6)}"
    if isinstance(content, list):
        first = content[0] if content else None
        keys = listing(map(str, first), 6) if isinstance(first, dict) else type(first).__name__
        return f"a list of {len(content)} records, the first with {keys}"
    if content is None:
        columns = table_columns(path)
        return f"a table with columns {listing(columns, 8)}" if columns else "a table without a header"
    return f"a JSON {type(content).__name__}"


def detect(path: Path, content: object | None) -> ModuleType:
    """The first layout in :data:`FORMATS` whose ``sniff`` accepts the file.

    Raises
    ------
    VerdictError
        No layout matches: the message says what the file looks like and how to read it
        (``memdiag inspect`` for a draft recipe, or ``--field``).
    """
    for fmt in FORMATS:
        if fmt.sniff(path, content):
            return fmt
    raise VerdictError(
        f"{where(path)}: unknown layout ({_describe(path, content)}). Run 'memdiag inspect {path}' "
        f"for a draft recipe, or map its fields: {FIELD_HINT}."
    )


def _named(name: str, path: Path, content: object | None) -> ModuleType:
    """The layout called ``name``, checked against the file with its ``sniff``."""
    for fmt in FORMATS:
        if fmt.NAME == name:
            if fmt is not mapped and not fmt.sniff(path, content):
                raise VerdictError(
                    f"{where(path)}: is not a {name} file ({fmt.DESCRIPTION}); it is "
                    f"{_describe(path, content)}. Use format='auto' or map its fields: {FIELD_HINT}."
                )
            return fmt
    raise VerdictError(
        f"{where(path)}: unknown format {name!r}. "
        f"Use 'auto' or one of: {', '.join(n for n, _ in known_formats())}."
    )


def read_file(path: str | Path, format: str = "auto", system: str | None = None,
              fields: dict[str, str] | None = None) -> pd.DataFrame:
    """Read one file of per-query verdicts in any known layout.

    Parameters
    ----------
    path : str or Path
        The file.
    format : str, default "auto"
        ``"auto"`` detects the layout; otherwise a layout ``NAME`` (:func:`known_formats`).
    system : str, optional
        System name; overrides the layout's default (see each layout module for the default and
        for files holding several systems).
    fields : dict, optional
        Canonical column -> source field; selects the ``mapped`` reader
        (:mod:`memdiag.io.readers.mapped`).

    Returns
    -------
    DataFrame
        The canonical long schema: ``system, query_id, score, repeat``, the canonical columns the
        layout has, its extra per-query columns, ``source_file, source_record``;
        ``attrs["format"]`` names the layout read.

    Raises
    ------
    VerdictError
        Missing or empty file, unparsable JSON or table, unknown layout or format name, ``fields``
        combined with another named format, or a bad record (naming file, record and field).
    """
    path = Path(path)
    content = load(path)
    if content in ([], {}):
        raise _empty(path)
    if fields is not None:
        if format not in ("auto", mapped.NAME):
            raise VerdictError(f"{where(path)}: fields= selects the mapped reader; drop format={format!r}.")
        fmt = mapped
    else:
        fmt = detect(path, content) if format == "auto" else _named(format, path, content)
    try:
        frame = fmt.read(path, content, system=system, fields=fields)
    except (pd.errors.ParserError, pyarrow.ArrowException) as error:
        raise VerdictError(f"{where(path)}: cannot be read as a {fmt.NAME} table: {error}".rstrip()) from None
    if frame.empty:
        raise _empty(path)
    frame.attrs["format"] = fmt.NAME
    frame.attrs["parts"] = getattr(fmt, "PARTS", None)
    frame.attrs.setdefault("read_notes", [])
    return frame
