"""A log file read record by record: the rows of a CSV (text, :func:`memdiag.io.csv_text.read_csv`) or
the objects of JSON lines (:func:`memdiag.io.strict.read_json_lines`), each labelled with the record
that names it in errors (``row k`` of the CSV's data, ``line k`` of the JSON lines).

The decision logs (:mod:`memdiag.io.write_log`) and ingestion logs (:mod:`memdiag.io.ingestion_log`)
are read here; each then checks its own columns.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from memdiag.errors import VerdictError, where
from memdiag.io.csv_text import read_csv
from memdiag.io.opening import logical_suffix
from memdiag.io.strict import read_json_lines

__all__ = ["read_log"]

#: Suffixes (under any compression suffix) read as CSV, and as JSON lines.
CSV_SUFFIXES: frozenset[str] = frozenset({".csv", ".tsv"})
JSON_LINES_SUFFIXES: frozenset[str] = frozenset({".jsonl", ".ndjson", ".json"})


def read_log(path: str | Path, what: str, fields: str) -> pd.DataFrame:
    """The records of a log file with ``source_file`` and ``source_record`` columns.

    Parameters
    ----------
    path
        ``.csv``/``.tsv``, or ``.jsonl``/``.ndjson``/``.json`` with one JSON object per line
        (compressed or not).
    what
        The kind of log, for the messages (``"decision log"``).
    fields
        The fields a record holds, for the message on a line that is not a JSON object.

    Returns
    -------
    pandas.DataFrame
        One row per record, in file order: a CSV's cells as text as written (NaN where empty), JSON
        values as parsed; ``source_file`` (the path) and ``source_record`` (``row k`` / ``line k``).

    Raises
    ------
    VerdictError
        A file the strict readers refuse, another suffix, a line that is not a JSON object, or no
        record — naming the file (and the line).

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "log.jsonl"
    >>> _ = path.write_text('{"system": "rag"}\\n\\n{"system": "mem"}\\n')
    >>> read_log(path, "ingestion log", "system and duration_s")[["system", "source_record"]].values.tolist()
    [['rag', 'line 1'], ['mem', 'line 3']]
    """
    path = Path(path)
    suffix = logical_suffix(path)
    if suffix in CSV_SUFFIXES:
        log = read_csv(path, what)
        records = [f"row {k}" for k in range(1, len(log) + 1)]
    elif suffix in JSON_LINES_SUFFIXES:
        rows, records = [], []
        for number, row in read_json_lines(path, what):
            if not isinstance(row, dict):
                raise VerdictError(f"{where(str(path), f'line {number}')}: expected a JSON object with {fields}, got "
                                   f"{row!r:.60}.")
            rows.append(row)
            records.append(f"line {number}")
        log = pd.DataFrame(rows)
    elif not path.is_file():
        raise VerdictError(f"{where(str(path))}: no such {what}. Check the path.")
    else:
        raise VerdictError(f"{where(str(path))}: unknown {what} format '{path.suffix}'. Use .csv or .jsonl (one JSON "
                           "object per line).")
    if len(log) == 0:
        raise VerdictError(f"{where(str(path))}: the {what} has no records. Point memdiag at the {what} itself.")
    return log.assign(source_file=str(path), source_record=records)
