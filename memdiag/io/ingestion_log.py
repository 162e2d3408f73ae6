"""Reading a sequential-ingestion log (SPEC §7.9; Raw-RAG paper D.6): one ingested item per row of a
CSV or line of JSON lines, with its system and its duration (or start and end).

The file goes through the strict readers (:func:`memdiag.io.csv_text.read_csv`,
:func:`memdiag.io.strict.read_json_lines`): compression, caps, binary content and UTF-8, a key
twice, a header line twice — each refused naming the file, the row or line and the field.
:func:`memdiag.ingestion_curve` and :func:`memdiag.ingestion` (:mod:`memdiag.analyses.ingestion`)
compute from it.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from memdiag.io.csv_text import numbers
from memdiag.io.logs import read_log

__all__ = ["DURATIONS", "read_ingestion_log"]

#: The columns that hold an item's duration, read as numbers.
DURATIONS: tuple[str, ...] = ("duration_s", "duration_ms")

#: What the file is called in messages.
WHAT = "ingestion log"


def read_ingestion_log(path: str | Path) -> pd.DataFrame:
    """Read an ingestion log from CSV or JSON lines (one item per row or line).

    Parameters
    ----------
    path
        ``.csv``, or ``.jsonl``/``.ndjson``/``.json`` with one JSON object per line. Columns:
        ``system``, optional ``item`` and ``cluster``, and ``duration_s``, ``duration_ms`` or
        ``start`` and ``end``.

    Returns
    -------
    pandas.DataFrame
        The log with ``source_file`` and ``source_record`` (``row k`` / ``line k``) so that
        errors name them; ``duration_s`` and ``duration_ms`` as numbers (NaN where empty), the
        other cells of a CSV as text as written (``system`` ``007`` stays ``007``);
        :func:`memdiag.ingestion_curve` checks the columns.

    Raises
    ------
    VerdictError
        Missing, empty or unreadable file (binary, not UTF-8, a key twice, a header line twice),
        a suffix other than .csv/.jsonl/.ndjson/.json, a line that is not a JSON object, or a
        duration that is not a number — naming the file, the row or line and the field.

    References
    ----------
    SPEC §7.9 (sequential ingestion: the log's columns); Raw-RAG paper D.6 and Figure 1 right.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = Path(tmp.name) / "ingestion.jsonl"
    >>> _ = path.write_text('{"system": "rag", "duration_s": 1.5}\\n\\n{"system": "rag", "duration_s": 2.0}\\n')
    >>> log = read_ingestion_log(path)
    >>> log[["system", "duration_s", "source_record"]].values.tolist()
    [['rag', 1.5, 'line 1'], ['rag', 2.0, 'line 3']]
    >>> tmp.cleanup()
    """
    log = read_log(path, WHAT, "system and duration_s (or start and end)")
    for column in DURATIONS:
        if column in log:
            log[column] = numbers(log[column], str(path), column, log["source_record"]).astype(float)
    return log
