"""CSV files read as text: every cell as written, with the file, the row and the field in every error.

The side files memdiag reads — lists of wrong gold answers, claims, decision and ingestion logs,
systems tables, lists of blocked answers — are small CSV tables of names, ids and flags. They are
read here as text, with no type guessing (``007`` stays ``007``, ``no`` stays ``no``, ``NA`` stays
``NA``); each reader then reads the columns it knows with :func:`flag` and :func:`numbers`, whose
errors name the cell. The rules, one place for every such file:

- the file is opened by :func:`memdiag.io.opening.read_text` (compression by name or first bytes,
  the decompressed-size cap, binary content refused, UTF-8 checked); NUL bytes anywhere refuse it;
- the first non-blank line is the header; it names each column once (:func:`unique_header`);
- a data row that repeats the header line (two files concatenated) is an error, never a row of
  data (:func:`repeated_header`);
- a row with a filled field beyond the header is an error naming the row; empty fields beyond it
  (a trailing comma on every row) are dropped; a shorter row has missing cells;
- blank lines are skipped; an empty cell is missing (NaN), any other cell is kept as written;
- a ``.tsv`` file is split at tabs, any other at commas; LF, CRLF and CR line ends are all read.

Rows are counted from the first data row (``row 1``), as the side-file readers name them in their
``source_record``; a message also gives the line of the file where it differs.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

from memdiag.errors import VerdictError, where
from memdiag.io.opening import logical_suffix, read_text

#: Spellings of a yes/no flag, compared case-insensitively after stripping blanks.
TRUE_WORDS: frozenset[str] = frozenset({"1", "true", "t", "yes", "y"})
FALSE_WORDS: frozenset[str] = frozenset({"0", "false", "f", "no", "n"})

#: Cells a column of numbers may hold for "no value" (pandas' default NA spellings).
NA_WORDS: frozenset[str] = frozenset({"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan",
                                      "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a",
                                      "nan", "null"})


def separator(path: Path) -> str:
    """The field separator of a table file: a tab for ``.tsv`` (under any compression suffix), else a comma."""
    return "\t" if logical_suffix(Path(path)) == ".tsv" else ","


def unique_header(header: Sequence[str], path: Path, what: str | None = None) -> None:
    """A VerdictError when the header names a column twice (pandas would rename the copy ``score.1``).

    >>> unique_header(["system", "score", "score"], Path("v.csv"))
    Traceback (most recent call last):
    ...
    memdiag.errors.VerdictError: v.csv, field 'score': this column appears twice in the header (columns 2 and 3). Rename or remove one copy.
    """
    seen: dict[str, int] = {}
    for number, name in enumerate(header, start=1):
        if name in seen:
            of = f" of the {what}" if what else ""
            raise VerdictError(f"{where(path, None, name)}: this column appears twice in the header{of} (columns "
                               f"{seen[name]} and {number}). Rename or remove one copy.")
        seen[name] = number


def repeated_header(header: Sequence[str], row: Sequence[str], path: Path, record: str) -> None:
    """A VerdictError when a data row is the header line again (two files concatenated, or a
    header written before every block): its cells would become data.

    >>> repeated_header(["query_id", "corrupting"], ["query_id", "corrupting"], Path("e.csv"), "row 3 (line 4)")
    Traceback (most recent call last):
    ...
    memdiag.errors.VerdictError: e.csv, row 3 (line 4): repeats the header line (query_id, corrupting); two files concatenated? Keep one header line, at the top.
    """
    cells = [cell.strip() for cell in row]
    if cells[:len(header)] == [name.strip() for name in header] \
            and not any(cell for cell in cells[len(header):]):
        raise VerdictError(f"{where(path, record)}: repeats the header line ({', '.join(header)}); two files "
                           "concatenated? Keep one header line, at the top.")


def long_row(header: Sequence[str], row: Sequence[str], path: Path, record: str) -> None:
    """A VerdictError when a row has a filled field beyond the header's columns (empty ones, a
    trailing comma, are allowed and dropped)."""
    if any(cell.strip() for cell in row[len(header):]):
        sep = "tab" if separator(path) == "\t" else "comma"
        raise VerdictError(f"{where(path, record)}: the row has more fields than the {len(header)} columns of the "
                           f"header. Quote fields that hold a {sep}, or name the extra column.")


@contextmanager
def fields_up_to(size: int) -> Iterator[None]:
    """Let the :mod:`csv` module read fields of up to ``size`` characters (its default limit is
    131,072): a CSV's size is already capped when it is opened (:func:`memdiag.io.opening.max_bytes`),
    so no field is refused for its length alone. The process-wide limit is restored on exit."""
    limit = csv.field_size_limit()
    csv.field_size_limit(max(limit, size))
    try:
        yield
    finally:
        csv.field_size_limit(limit)


def _label(row: int, line: int) -> str:
    return f"row {row}" if line == row + 1 else f"row {row} (line {line})"


def read_csv(path: str | Path, what: str) -> pd.DataFrame:
    """The CSV (or TSV) file ``path`` as a table of text: every cell as written, an empty cell NaN.

    Parameters
    ----------
    path
        The file (compressed or not).
    what
        The kind of file, for the messages: ``"gold-error file"``, ``"claims file"``, ...

    Returns
    -------
    pandas.DataFrame
        One row per data row (blank lines skipped), the header's columns in order, dtype object:
        ``str`` cells and NaN for empty ones.

    Raises
    ------
    VerdictError
        A missing, empty, binary, non-UTF-8 or over-large file; a header that names a column
        twice; a data row that repeats the header; a row with more fields than the header;
        unreadable quoting — naming the file and, where there is one, the row and line.

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "errors.csv"
    >>> _ = path.write_text("query_id,corrupting\\n007,no\\n\\n012,\\n")
    >>> read_csv(path, "gold-error file").to_dict("list")
    {'query_id': ['007', '012'], 'corrupting': ['no', nan]}
    >>> _ = path.write_text("query_id,corrupting\\n007,no\\nquery_id,corrupting\\n012,yes\\n")
    >>> read_csv(path, "gold-error file")
    Traceback (most recent call last):
    ...
    memdiag.errors.VerdictError: ...errors.csv, row 2: repeats the header line (query_id, corrupting); two files concatenated? Keep one header line, at the top.
    """
    path = Path(path)
    text = read_text(path, what)
    if "\x00" in text:
        raise VerdictError(f"{where(path)}: the {what} holds NUL bytes (a binary file, not a CSV). Point memdiag "
                           "at a CSV text file.")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=separator(path), strict=True)
    header: list[str] | None = None
    rows: list[list[str]] = []
    try:
        with fields_up_to(len(text)):
            for values in reader:
                if not any(value.strip() for value in values):
                    continue
                if header is None:
                    header = values
                    unique_header(header, path, what)
                    continue
                record = _label(len(rows) + 1, reader.line_num)
                repeated_header(header, values, path, record)
                long_row(header, values, path, record)
                rows.append(values[:len(header)] + [""] * (len(header) - len(values)))
    except csv.Error as error:
        raise VerdictError(f"{where(path)}: the {what} is not a readable CSV (line {reader.line_num}: {error}). "
                           "Fix the quoting.") from None
    if header is None:
        raise VerdictError(f"{where(path)}: the {what} is empty. Point memdiag at a CSV file with a header row.")
    cells = np.array(rows, dtype=object).reshape(len(rows), len(header))
    table = pd.DataFrame(cells, columns=header, dtype=object)
    return table.mask(table == "", np.nan) if len(table) else table


def is_empty(value: object) -> bool:
    """A cell with no value: None, NaN or blank text.

    >>> [is_empty(v) for v in (None, float("nan"), " ", "no", 0)]
    [True, True, True, False, False]
    """
    if value is None:
        return True
    if isinstance(value, float | np.floating):
        return math.isnan(value)
    return isinstance(value, str) and not value.strip()


def filled(table: pd.DataFrame, column: str, path: Path | str, what_to_do: str) -> None:
    """A VerdictError naming the first row (``row k``) whose ``column`` cell is empty, and what to do.

    >>> filled(pd.DataFrame({"system": ["a", None]}), "system", "systems.csv", "Name every system.")
    Traceback (most recent call last):
    ...
    memdiag.errors.VerdictError: systems.csv, row 2, field 'system': empty. Name every system.
    """
    empty = table[column].map(is_empty).to_numpy()
    if empty.any():
        raise VerdictError(f"{where(path, f'row {int(empty.argmax()) + 1}', column)}: empty. {what_to_do}")


def flag(value: object) -> bool | None:
    """A yes/no cell as a bool: ``true``/``false``, ``yes``/``no``, ``1``/``0`` (also ``t``/``f``,
    ``y``/``n``; any case), a boolean, or the number 0 or 1; None for anything else (an empty cell
    too: each reader says what an empty cell means).

    >>> [flag(v) for v in ("Yes", "FALSE", " 1 ", 0, True, "", "maybe", None)]
    [True, False, True, False, True, None, None, None]
    """
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | float | np.number):
        return bool(value) if not math.isnan(float(value)) and float(value) in (0.0, 1.0) else None
    if isinstance(value, str):
        text = value.strip().lower()
        return True if text in TRUE_WORDS else False if text in FALSE_WORDS else None
    return None


def numbers(values: pd.Series, path: Path | str | None, field: str, records: Iterable[str] | None = None) -> pd.Series:
    """A column of number cells as numbers (int64 when every cell is a whole number, else float64;
    an empty cell or an NA spelling is NaN), read exactly as written.

    Raises
    ------
    VerdictError
        A cell that is not a number, naming the file, its row (``records``: the row labels;
        default ``row k``) and the field.

    Examples
    --------
    >>> numbers(pd.Series(["1000", "2500"], dtype=object), "systems.csv", "store_tokens").tolist()
    [1000, 2500]
    >>> numbers(pd.Series(["0.1", "NA", None], dtype=object), "systems.csv", "cost").tolist()
    [0.1, nan, nan]
    >>> numbers(pd.Series(["1.5", "fast"], dtype=object), "log.csv", "duration_s")
    Traceback (most recent call last):
    ...
    memdiag.errors.VerdictError: log.csv, row 2, field 'duration_s': 'fast' is not a number. Write a number, or leave the cell empty.
    """
    if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
        return values
    cleaned = values.map(lambda v: np.nan if is_empty(v) or (isinstance(v, str) and v.strip() in NA_WORDS)
                         else v.strip() if isinstance(v, str) else v)
    out = pd.to_numeric(cleaned, errors="coerce")
    bad = np.flatnonzero(out.isna().to_numpy() & cleaned.notna().to_numpy()
                         | cleaned.map(lambda v: isinstance(v, bool)).to_numpy())
    if bad.size:
        labels = list(records) if records is not None else [f"row {k}" for k in range(1, len(values) + 1)]
        raise VerdictError(f"{where(path, labels[bad[0]], field)}: {values.iloc[bad[0]]!r} is not a number. Write "
                           "a number, or leave the cell empty.")
    return out


def number_like(values: pd.Series) -> bool:
    """Whether every cell of a text column is a number or empty (and at least one is a number):
    the columns a table of facts per system reads as numbers."""
    cleaned = values.dropna().map(lambda v: v.strip() if isinstance(v, str) else v)
    cleaned = cleaned[~cleaned.isin(NA_WORDS)]
    return bool(len(cleaned)) and bool(pd.to_numeric(cleaned, errors="coerce").notna().all())
