"""Reading a memory system's decision log (SPEC §7.1; Raw-RAG paper C.2): one decision per row of a
CSV or line of JSON lines, checked column by column.

The file goes through the strict readers (:func:`memdiag.io.csv_text.read_csv`,
:func:`memdiag.io.strict.read_json_lines`): compression, caps, binary content and UTF-8, a key
twice, a header line twice — each refused naming the file, the row or line and the field.
:func:`memdiag.write_audit` (:mod:`memdiag.analyses.writes`) counts the decisions.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from memdiag.errors import VerdictError, shown, where
from memdiag.io.csv_text import flag, is_empty
from memdiag.io.logs import read_log

__all__ = ["OVERALL", "REQUIRED", "checked_log", "read_write_log"]

#: Columns every decision log needs.
REQUIRED: tuple[str, ...] = ("cluster", "decision", "persisted", "old_text", "new_text")

#: Name of the decision-weighted row over all clusters.
OVERALL = "overall"

#: What the file is called in messages.
WHAT = "decision log"


def read_write_log(path: str | Path) -> pd.DataFrame:
    """Read a decision log from a CSV file or a JSON-lines file (one decision per line).

    Parameters
    ----------
    path
        ``.csv``, or ``.jsonl``/``.ndjson``/``.json`` with one JSON object per line. Columns:
        ``cluster, decision, persisted, old_text, new_text`` and optionally ``memory_id``,
        ``decision_id`` (see :func:`memdiag.write_audit`).

    Returns
    -------
    pandas.DataFrame
        The log with ``persisted`` as bool, plus ``source_file`` and ``source_record``
        (``row k`` of the CSV data, ``line k`` of the JSON lines) so that errors name them.

    Raises
    ------
    VerdictError
        Missing or empty file, a line that is not a JSON object, a missing column, an empty
        ``cluster`` (or one named ``overall``), a ``persisted`` value that is not a yes/no flag,
        a suffix other than .csv/.jsonl/.ndjson/.json — naming file, row, field.

    References
    ----------
    SPEC §7.1 (write-action audit: the decision log's columns); Raw-RAG paper C.2 and Figure 2.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = Path(tmp.name) / "decisions.csv"
    >>> _ = path.write_text("cluster,decision,persisted,old_text,new_text\\n"
    ...                     "c1,ADD,yes,,likes tea\\nc1,UPDATE,yes,likes tea,likes green tea\\nc1,NONE,,,\\n")
    >>> log = read_write_log(path)
    >>> log[["decision", "persisted", "source_record"]].values.tolist()
    [['ADD', True, 'row 1'], ['UPDATE', True, 'row 2'], ['NONE', False, 'row 3']]
    >>> tmp.cleanup()
    """
    log = read_log(path, WHAT, ", ".join(REQUIRED))
    return checked_log(log)


def _locate(log: pd.DataFrame, i: int) -> tuple[str | None, object]:
    source = log["source_file"].iloc[i] if "source_file" in log else None
    record = log["source_record"].iloc[i] if "source_record" in log else f"row {i + 1}"
    return source, record


def _persisted(value: object) -> bool | None:
    """A ``persisted`` cell as bool (:func:`memdiag.io.csv_text.flag`; empty, ``nan``, ``none`` or
    ``null``: not persisted); None for a value that is no yes/no flag."""
    if is_empty(value) or (isinstance(value, str) and value.strip().lower() in ("nan", "none", "null")):
        return False
    return flag(value)


def checked_log(log: pd.DataFrame) -> pd.DataFrame:
    """The log with every required column present, clusters named and ``persisted`` as bool
    (a frame :func:`read_write_log` read, or one built by hand); a VerdictError naming the file, row
    and field otherwise."""
    for column in REQUIRED:
        if column not in log:
            source = log["source_file"].iloc[0] if "source_file" in log and len(log) else None
            raise VerdictError(f"{where(source, None, column)}: required column is missing (have: "
                               f"{', '.join(c for c in log.columns if not c.startswith('source_'))}). "
                               "A decision log needs cluster, decision, persisted, old_text, new_text.")
    log = log.reset_index(drop=True).copy()
    empty = np.flatnonzero(log["cluster"].isna().to_numpy()
                           | log["cluster"].astype(str).str.strip().eq("").to_numpy())
    if empty.size:
        source, record = _locate(log, int(empty[0]))
        raise VerdictError(f"{where(source, record, 'cluster')}: is empty. Every decision needs the "
                           "cluster (conversation) it was made in.")
    log["cluster"] = log["cluster"].astype(str)
    if (log["cluster"] == OVERALL).any():
        source, record = _locate(log, int(np.flatnonzero(log["cluster"] == OVERALL)[0]))
        raise VerdictError(f"{where(source, record, 'cluster')}: '{OVERALL}' names the decision-weighted "
                           "row of the audit. Rename that cluster.")
    flags = [_persisted(v) for v in log["persisted"]]
    bad = [i for i, f in enumerate(flags) if f is None]
    if bad:
        source, record = _locate(log, bad[0])
        raise VerdictError(f"{where(source, record, 'persisted')}: {shown(log['persisted'].iloc[bad[0]])} is not "
                           "a yes/no flag. Write true/false, yes/no or 1/0 (empty = not persisted).")
    log["persisted"] = np.array(flags, dtype=bool)
    return log
