"""Reading the small side files — claims, memory decision logs, systems tables — with one clear
error each: a file that is empty, not UTF-8, not a CSV, or nested too deeply is a VerdictError
naming the file and what to do, never a parser's traceback.
"""

from __future__ import annotations

import csv
import io
import warnings
from pathlib import Path

import pandas as pd

from memdiag.errors import VerdictError, where
from memdiag.io.outputs import note_input


def read_text(path: Path, what: str) -> str:
    """The UTF-8 text of ``path`` (a ``what``: "claims file", "decision log", ...)."""
    note_input(path)
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise VerdictError(f"{where(str(path))}: the {what} is not UTF-8 text ({error.reason} at byte "
                           f"{error.start}). Save it as UTF-8.") from None


def read_csv(path: Path, what: str, **options) -> pd.DataFrame:
    """The CSV table ``path`` (options go to :func:`pandas.read_csv`); an empty, binary or broken
    file is a VerdictError naming it.

    >>> import tempfile, os
    >>> folder = tempfile.mkdtemp()
    >>> empty = Path(folder) / "log.csv"
    >>> _ = empty.write_text("")
    >>> read_csv(empty, "decision log")
    Traceback (most recent call last):
    ...
    memdiag.errors.VerdictError: ...log.csv: the decision log is empty. Point memdiag at a CSV file with a header row.
    """
    text = read_text(path, what)
    if "\x00" in text:
        raise VerdictError(f"{where(str(path))}: the {what} holds NUL bytes (a binary file, not a CSV). "
                           "Point memdiag at a CSV text file.")
    if not text.strip():
        raise VerdictError(f"{where(str(path))}: the {what} is empty. Point memdiag at a CSV file with a "
                           "header row.")
    try:
        with warnings.catch_warnings():  # rows longer than the header: an error, never a shifted table
            warnings.simplefilter("error", pd.errors.ParserWarning)
            # index_col=False: a trailing comma on every row never turns the first column into an index
            table = pd.read_csv(io.StringIO(text.replace("\r", "\n") if "\n" not in text else text),
                                **{"index_col": False, **options})
    except (pd.errors.ParserError, pd.errors.EmptyDataError, pd.errors.ParserWarning, csv.Error, ValueError,
            OverflowError) as error:
        raise VerdictError(f"{where(str(path))}: the {what} is not a readable CSV "
                           f"({' '.join(str(error).split())}). Fix the file.") from None
    header = next(csv.reader(io.StringIO(text)), [])
    repeated = sorted({name for name in header if header.count(name) > 1})
    if repeated:  # pandas would rename the second one to '<name>.1'
        raise VerdictError(f"{where(str(path))}: the {what} names column '{repeated[0]}' more than once. "
                           "Rename or remove the repeats.")
    return table
