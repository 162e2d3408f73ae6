"""Reading a systems table (SPEC §1): one row of system-level facts per system — memory-store size,
ingestion tokens and hours, family, labels — keyed by ``system``.

The file goes through :func:`memdiag.io.csv_text.read_csv` (compression, caps, binary content and
UTF-8, a column named twice, a header line twice — each refused naming the file and row). The
``system`` column is the key and stays text as written (a system ``007`` is not ``7``); every other
column whose cells are all numbers (or empty) is read as numbers, exactly as written, and the rest
stay text: the costs and the bubble chart read the numeric columns, the aliases the text ones.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from memdiag.errors import VerdictError, where
from memdiag.io.csv_text import filled, number_like, numbers, read_csv

__all__ = ["read_systems_table"]

#: What the file is called in messages.
WHAT = "systems table"


def read_systems_table(path: str | Path) -> pd.DataFrame:
    """A systems table: a CSV keyed by ``system``, one row per system.

    Parameters
    ----------
    path
        A ``.csv`` (or ``.tsv``) file, compressed or not, with a ``system`` column.

    Returns
    -------
    pandas.DataFrame
        The table in file order: ``system`` as text, the columns of numbers as int64 (every cell
        a whole number) or float64 (NaN where empty), the other columns as text.

    Raises
    ------
    VerdictError
        A file the strict CSV reader refuses, no ``system`` column, or a row without a system —
        naming the file (and the row).

    References
    ----------
    SPEC §1 (system-level facts come in a second table keyed by ``system``) and SPEC §7.9 and §8
    (system-level costs; the bubble chart's store size).

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "systems.csv"
    >>> _ = path.write_text("system,family,store_tokens,ingestion_hours\\n007,memory,1000,0.5\\nrag,rag,2000,\\n")
    >>> table = read_systems_table(path)
    >>> table["system"].tolist(), table["store_tokens"].tolist(), table["ingestion_hours"].tolist()
    (['007', 'rag'], [1000, 2000], [0.5, nan])
    """
    path = Path(path)
    table = read_csv(path, WHAT)
    if "system" not in table:
        raise VerdictError(f"{where(path, None, 'system')}: the systems table needs a 'system' column (have: "
                           f"{', '.join(map(str, table.columns))}).")
    filled(table, "system", path, "Give every row the system it describes.")
    for column in table.columns:
        if column != "system" and number_like(table[column]):
            table[column] = numbers(table[column], path, str(column))
    return table
