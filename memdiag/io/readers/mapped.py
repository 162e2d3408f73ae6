"""Any per-query layout, read through an explicit column mapping (``--field``/``fields=``).

Layout
------
A JSON list, JSONL, CSV or Parquet file of per-query records in any naming, e.g.::

    [{"question_id": "q1", "question_type": "temporal", "evaluation": {"is_correct": true}}, ...]

read with ``fields={"query_id": "question_id", "score": "evaluation.is_correct",
"category": "question_type"}`` (CLI: ``--field query_id=question_id --field
score=evaluation.is_correct --field category=question_type``).

Mapping
-------
``fields`` maps a canonical (or extra) column name to the source field; ``query_id`` and
``score`` are required. For JSON records a dotted path (``evaluation.is_correct``) walks nested
objects; a key that literally contains the dots wins. Only the mapped fields are kept. ``score``
and 0/1 labels accept numbers, booleans and CORRECT/WRONG, yes/no, true/false; a record without
the score field -> NaN (row kept). A mapped field that no record has is an error listing the
fields the file does have. ``source_record`` = the 1-based record (CSV: data row).

Default system: ``system=``, else the mapped ``system`` field, else the file stem. ``system=``
renames the file's only system; it is an error when the mapped field holds several.

Never auto-detected: :mod:`memdiag.io.readers` uses it exactly when ``fields`` is given.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from memdiag.errors import VerdictError, where
from memdiag.io.opening import stem
from memdiag.io.readers._common import as_records, finish, name_system, read_table
from memdiag.io.schema import PROVENANCE

NAME = "mapped"
DESCRIPTION = ("any JSON list / JSONL / CSV / Parquet of per-query records, read with "
               "fields={canonical: source field} (never auto-detected)")
MISSING = object()


def sniff(path: Path, content: object | None) -> bool:
    """Never: a mapping has to be given (``fields=``)."""
    return False


def _get(record: dict, dotted: str) -> object:
    """The value at a (dotted) path of a JSON record, or :data:`MISSING`."""
    if dotted in record:
        return record[dotted]
    value: object = record
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            return MISSING
        value = value[part]
    return value


def _from_records(records: list[dict], fields: dict[str, str], source: object) -> pd.DataFrame:
    columns = {}
    for target, dotted in fields.items():
        values = [_get(record, dotted) for record in records]
        if all(value is MISSING for value in values):
            raise VerdictError(
                f"{where(source, field=dotted)}: no record has this field (mapped to {target}). "
                f"Fields of record 1: {', '.join(records[0])}."
            )
        columns[target] = [None if value is MISSING else value for value in values]
    return pd.DataFrame(columns)


def _from_table(path: Path, fields: dict[str, str]) -> pd.DataFrame:
    table = read_table(path, fields.values())
    absent = [column for column in fields.values() if column not in table.columns]
    if absent:
        raise VerdictError(
            f"{where(path, field=absent[0])}: no such column. Columns: {', '.join(map(str, table.columns))}."
        )
    return pd.DataFrame({target: table[column] for target, column in fields.items()})


def _check(fields: object, source: object) -> dict[str, str]:
    if not isinstance(fields, Mapping) or not {"query_id", "score"} <= fields.keys():
        raise VerdictError(
            f"{where(source)}: a field mapping needs at least query_id and score, got {fields!r}. "
            "Use --field query_id=<column> --field score=<column> (fields={'query_id': ..., 'score': ...})."
        )
    reserved = sorted(set(fields) & set(PROVENANCE))
    if reserved:
        raise VerdictError(f"{where(source)}: {reserved[0]} is set by memdiag and cannot be mapped.")
    return dict(fields)


def read(path: Path, content: object | None, *, system: str | None = None,
         fields: dict[str, str] | None = None) -> pd.DataFrame:
    """Read per-query records through a column mapping into the canonical long schema.

    Parameters
    ----------
    path : Path
        The file (named in errors and ``source_file``).
    content : list of dict or None
        Parsed JSON/JSONL records, or None for CSV and Parquet (read here).
    system : str, optional
        System name; wins over a mapped ``system`` field (which must then hold one system).
    fields : mapping
        Canonical column -> source field (dotted paths allowed for JSON); needs ``query_id`` and
        ``score``.

    Returns
    -------
    DataFrame
        One row per record, in file order, with the mapped columns.

    Raises
    ------
    VerdictError
        A mapping without query_id/score, a mapped field absent from the file, a missing query
        id, or a cell that is not a verdict / number.
    """
    fields = _check(fields, path)
    if content is None:
        frame = _from_table(path, fields)
    else:
        frame = _from_records(as_records(content, path), fields, path)
    frame["source_record"] = np.arange(1, len(frame) + 1)
    name_system(frame, system, stem(path), path)
    return finish(frame, path, fields)
