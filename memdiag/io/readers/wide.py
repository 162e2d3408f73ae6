"""Wide score table: one row per query, one score column per system (CSV or Parquet).

Layout
------
::

    query_id,category,raw-rag,mem0,zep
    q001,temporal,1,0,1
    q002,single-hop,0,0,

A ``query_id`` column, optional per-query columns (``repeat``, ``benchmark``, ``cluster``,
``stratum``, ``category``, ``phase``, ``pair_id``, ``question``), and every other column is one
system's score. This is what a spreadsheet of results usually looks like.

Mapping
-------
``system`` = the column name, ``score`` = the cell (numbers, booleans, CORRECT/WRONG, yes/no,
true/false; an empty cell -> NaN, row kept; anything else is an error naming file, row and
column). Rows come out system by system, queries in file order; ``source_record`` = the 1-based
data row (header excluded).

Default system: the column names. ``system=`` renames the system only when there is a single
score column; with several it is an error (renaming would merge them).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from memdiag.io.readers._common import (
    finish,
    read_table,
    single_system,
    table_columns,
    verdicts,
)
from memdiag.io.schema import QUERY_ATTRIBUTES

NAME = "wide"
DESCRIPTION = "wide table (CSV, Parquet): query_id[, category, cluster, ...] and one score column per system"
#: Columns describing the query rather than holding a system's score.
QUERY_COLUMNS: tuple[str, ...] = ("query_id", "repeat", *QUERY_ATTRIBUTES, "question")


def sniff(path: Path, content: object | None) -> bool:
    """A table with ``query_id``, no ``system``/``score`` column, and at least one other column."""
    if content is not None:
        return False
    columns = set(table_columns(path))
    return "query_id" in columns and not columns & {"system", "score"} and bool(columns - set(QUERY_COLUMNS))


def read(path: Path, content: object | None, *, system: str | None = None,
         fields: dict[str, str] | None = None) -> pd.DataFrame:
    """Read a wide score table into the canonical long schema.

    Parameters
    ----------
    path : Path
        The CSV or Parquet file (named in errors and ``source_file``).
    content : None
        Unused (the table is read here).
    system : str, optional
        New name for the only score column; an error when there are several.
    fields : dict, optional
        Unused (column mapping is the ``mapped`` layout's job).

    Returns
    -------
    DataFrame
        One row per (system column, query row).

    Raises
    ------
    VerdictError
        A cell that is not a verdict (naming file, row and column), a missing query id, or
        ``system=`` with several score columns.
    """
    table = read_table(path, QUERY_COLUMNS)
    keys = [column for column in table.columns if column in QUERY_COLUMNS]
    systems = [column for column in table.columns if column not in QUERY_COLUMNS]
    names = single_system(systems, system, path)
    table["source_record"] = np.arange(1, len(table) + 1)
    notes: list[str] = []
    for column in systems:
        table[column] = verdicts(table[column], table["source_record"], path, column, notes)
    frame = table.melt(id_vars=keys + ["source_record"], value_vars=systems,
                       var_name="system", value_name="score")
    frame["system"] = frame["system"].map(names)
    frame.attrs["read_notes"] = notes
    return finish(frame, path)
