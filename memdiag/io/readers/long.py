"""memdiag's own canonical long layout: one row per verdict, as CSV, JSONL, JSON list or Parquet.

Layout
------
Columns (SPEC §1) ``system, query_id, score`` and optionally ``repeat``, ``benchmark``,
``cluster``, ``stratum``, ``category``, ``phase``, ``pair_id``, ``sufficient``,
``result_covered``, ``path_covered``, ``input_tokens``, ``output_tokens``, ``evidence_tokens``,
``latency_s``; any other column is kept as it is. This is what ``memdiag`` writes and what
``pandas.DataFrame.to_csv`` of a verdict frame gives.

Mapping
-------
Columns keep their names. ``score`` and the 0/1 labels accept numbers, booleans and
CORRECT/WRONG, yes/no, true/false; empty -> NaN (row kept). Identifier columns are read as text
verbatim (a query called ``NA`` stays ``"NA"``; only an empty cell is missing). A missing
``repeat`` column means 0. ``source_record`` = the 1-based row (CSV: data row, header excluded)
or line/list position.

System: the ``system`` column. ``system=`` renames the file's only system; it is an error when
the file holds several.

Speed: CSV goes through one ``pandas.read_csv`` with fixed dtypes and vectorised coercion
(1,000,000 rows in about a second).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from memdiag.io.opening import stem
from memdiag.io.readers._common import (
    TEXT_COLUMNS,
    as_records,
    finish,
    first_record,
    name_system,
    read_table,
    table_columns,
)
from memdiag.io.schema import REQUIRED

NAME = "long"
DESCRIPTION = ("canonical long table (CSV, JSONL, JSON list, Parquet) with columns system, query_id, "
               "score[, repeat, category, ...]")


def sniff(path: Path, content: object | None) -> bool:
    """A table or list of records that has the ``system``, ``query_id`` and ``score`` columns."""
    record = first_record(content)
    columns = table_columns(path) if content is None else (record or {}).keys()
    return set(REQUIRED) <= set(columns)


def read(path: Path, content: object | None, *, system: str | None = None,
         fields: dict[str, str] | None = None) -> pd.DataFrame:
    """Read a canonical long table into the canonical long schema (types and column order).

    Parameters
    ----------
    path : Path
        The file (named in errors and ``source_file``).
    content : list of dict or None
        Parsed JSON/JSONL records, or None for CSV and Parquet (read here).
    system : str, optional
        New name for the file's only system.
    fields : dict, optional
        Unused (column mapping is the ``mapped`` layout's job).

    Returns
    -------
    DataFrame
        One row per input row, in file order.

    Raises
    ------
    VerdictError
        A missing system/query id, a score/label/cost cell that cannot be read, a bad repeat, or
        ``system=`` on a file holding several systems.
    """
    if content is None:
        frame = read_table(path, TEXT_COLUMNS)
    else:
        frame = pd.DataFrame(as_records(content, path))
    frame["source_record"] = np.arange(1, len(frame) + 1)
    name_system(frame, system, stem(path), path)
    return finish(frame, path)
