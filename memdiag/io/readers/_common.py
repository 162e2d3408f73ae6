"""Helpers shared by the format readers: type coercion, column order, table headers.

Readers collect the raw values of a layout into a DataFrame (one row per verdict, with a
``source_record`` locator) and hand it to :func:`finish`, which coerces every known column to its
canonical type, raising :class:`~memdiag.errors.VerdictError` at the first cell it cannot read,
and puts the columns in the canonical order.
"""

from __future__ import annotations

import csv
import functools
import io
import math
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow
import pyarrow.parquet as pq

from memdiag.errors import VerdictError, listing, where
from memdiag.io.csv_text import (
    fields_up_to,
    long_row,
    repeated_header,
    separator,
    unique_header,
)
from memdiag.io.opening import (
    PARQUET_MAGIC,
    binary_kind,
    decode,
    logical_suffix,
    read_bytes,
)
from memdiag.io.outputs import note_input
from memdiag.io.readers._verdict_text import MISSING, WORDS, parse_verdict
from memdiag.io.schema import (
    ANSWER_TEXT,
    BINARY_LABELS,
    CANONICAL,
    COSTS,
    JUDGE,
    PROVENANCE,
    QUERY_ATTRIBUTES,
    RUN,
)

#: Cell texts that mean "no value" in a score, label or number cell.
MISSING_WORDS: frozenset[str] = MISSING

#: NA spellings of the non-text cells of a CSV (a text cell is missing only when empty).
NA_SPELLINGS: tuple[str, ...] = tuple(sorted({*MISSING_WORDS, "NA", "N/A", "NaN", "NULL", "None", "#N/A"}))

#: read_csv options that parse every float exactly as written: pandas < 3 parses with a fast
#: parser that can be one ulp off (a CSV of scores would not round-trip); pandas 3 is exact by
#: default and deprecates ``float_precision``.
EXACT_FLOATS: dict[str, str] = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}

#: File extensions read as Parquet tables.
PARQUET_SUFFIXES: frozenset[str] = frozenset({".parquet", ".pq"})

#: Columns kept as text (NaN stays NaN).
TEXT_COLUMNS: tuple[str, ...] = ("system", "query_id", JUDGE, RUN, *QUERY_ATTRIBUTES, "source_category", "question",
                                 *ANSWER_TEXT)

#: Columns read as 0/1 verdicts (score) or 0/1 labels.
VERDICT_COLUMNS: tuple[str, ...] = ("score", *BINARY_LABELS)

#: Columns read as numbers: costs and the per-query metrics some layouts carry.
NUMBER_COLUMNS: tuple[str, ...] = (*COSTS, "f1", "bleu", "llm_confidence", "grade", "tokens_used")


class _NotAVerdict(ValueError):
    """A cell that is neither a number, a boolean, a verdict word nor empty."""


def verdict(value: object) -> float:
    """One cell as a verdict: 1.0 / 0.0 / a number, NaN when empty (:func:`parse_verdict`).

    Raises :class:`_NotAVerdict` for text that is no verdict (the readers count those cells and
    keep them as missing verdicts).

    Examples
    --------
    >>> [verdict(v) for v in (True, "CORRECT", " no ", 1, "0.5", None, "", "Yes.")]
    [1.0, 1.0, 0.0, 1.0, 0.5, nan, nan, 1.0]
    """
    value = parse_verdict(value)
    if value is None:
        raise _NotAVerdict(value)
    return value


def _number(value: object) -> float:
    """One cell as a number (NaN when empty); raises :class:`_NotAVerdict` otherwise."""
    if isinstance(value, str) and value.strip().lower() in WORDS:
        raise _NotAVerdict(value)
    if isinstance(value, str) and value.strip().lower() in MISSING_WORDS:
        return math.nan
    if value is None or isinstance(value, bool | np.bool_ | int | float | np.number):
        return math.nan if value is None else float(value)
    try:
        return float(str(value).strip())
    except ValueError:
        raise _NotAVerdict(value) from None


def _convert(values: pd.Series, convert, records: pd.Series, source: object, field: str, expect: str,
             label: str | None = None, lenient: list | None = None) -> pd.Series:
    """Apply a scalar converter to each distinct value; name the first record it rejects.

    ``field`` is the canonical column (for the ``--field`` hint), ``label`` the source field it
    came from (named in the message; default ``field``). With ``lenient`` (a list), a rejected
    value becomes NaN and ``(value, count, first record)`` is appended to the list instead.
    """
    if pd.api.types.is_bool_dtype(values) or pd.api.types.is_numeric_dtype(values):
        return values.astype(float)
    nested = np.flatnonzero(values.map(lambda v: isinstance(v, (list, dict, tuple, set))).to_numpy())
    if nested.size:  # a list or an object cannot be a verdict (nor be hashed to count it)
        value = values.iloc[nested[0]]
        raise VerdictError(
            f"{where(source, records.iloc[nested[0]], label or field)}: a JSON "
            f"{'object' if isinstance(value, dict) else 'list'} ({str(value)[:60]}) is not {expect}. "
            f"Point --field {field}=<field> at the field that holds it (nested fields as a.b)."
        )
    codes, uniques = pd.factorize(values)
    converted = np.empty(len(uniques))
    for i, value in enumerate(uniques):
        try:
            converted[i] = convert(value)
        except _NotAVerdict:
            first = int(np.argmax(codes == i))
            if lenient is not None:
                converted[i] = np.nan
                lenient.append((value, int((codes == i).sum()), records.iloc[first]))
                continue
            raise VerdictError(
                f"{where(source, records.iloc[first], label or field)}: {value!r:.80} is not {expect}. "
                f"Map it with --field {field}=<column> or fix the record."
            ) from None
    out = np.full(len(values), np.nan)
    known = codes >= 0
    out[known] = converted[codes[known]]
    return pd.Series(out, index=values.index, name=values.name)


def unparsable_note(rejected: list, source: object, label: str) -> str:
    """The note for verdict texts that are no verdict (see :mod:`memdiag.io.readers._verdict_text`)."""
    total = sum(count for _, count, _ in rejected)
    examples = listing([f"{value!r:.40} ×{count}" for value, count, _ in rejected], 3)
    return (f"{where(source, None, label)}: {total} verdict text{'s' if total != 1 else ''} could not be "
            f"read as a verdict ({examples}; first at record {rejected[0][2]}); kept as missing verdicts")


def as_text(values: pd.Series) -> pd.Series:
    """A column of ids or labels as text, missing cells (None, NaN, NA) kept missing (NaN).

    ``astype("str")`` alone is not enough: before pandas 3 it writes a missing cell as the text
    ``"None"`` or ``"nan"``, so a record without a query id would become the query "None".

    Examples
    --------
    >>> as_text(pd.Series(["q1", None, 7, float("nan"), "None"], dtype=object)).tolist()
    ['q1', nan, '7', nan, 'None']
    """
    return values.astype("str").mask(values.isna())


def verdicts(values: pd.Series, records: pd.Series, source: object, label: str,
             notes: list[str] | None = None) -> pd.Series:
    """A column of verdict cells as floats (see :func:`verdict`); text that is no verdict becomes
    NaN and is described in ``notes`` (appended to)."""
    rejected: list = []
    out = _convert(values, verdict, records, source, "score", "a verdict", label, lenient=rejected)
    if rejected and notes is not None:
        notes.append(unparsable_note(rejected, source, label))
    return out


def _repeat(values: pd.Series, records: pd.Series, source: object, label: str) -> pd.Series:
    """The ``repeat`` column as int; empty, fractional or negative repeats are errors."""
    numbers = _convert(values, _number, records, source, "repeat", "a repeat index", label)
    bad = ~(numbers.notna() & (numbers == numbers.round()) & (numbers >= 0))
    if bad.any():
        first = int(np.argmax(bad.to_numpy()))
        raise VerdictError(
            f"{where(source, records.iloc[first], label)}: {values.iloc[first]!r} is not a "
            f"repeat index (0, 1, 2, ...). Fix the record or drop the column (default 0)."
        )
    return numbers.astype(int)


def finish(frame: pd.DataFrame, source: Path | str, labels: dict[str, str] | None = None) -> pd.DataFrame:
    """Coerce a reader's raw frame to the canonical types and column order.

    Parameters
    ----------
    frame : DataFrame
        One row per verdict with at least ``system``, ``query_id``, ``score`` and
        ``source_record``; any other canonical or extra columns.
    source : Path or str
        The file, stored in ``source_file`` and named in errors.
    labels : dict, optional
        Canonical column -> the source field it was read from, to name that field in errors.

    Returns
    -------
    DataFrame
        ``system, query_id, score, repeat``, the other canonical columns present (SPEC §1 order),
        the extra columns (file order), then ``source_file, source_record``.

    Raises
    ------
    VerdictError
        At the first missing system or query id, or the first score, label, number or repeat
        cell that cannot be read.
    """
    notes = list(frame.attrs.get("read_notes", ()))
    frame = frame.copy()
    labels = labels or {}
    records = frame["source_record"]
    for column in frame.columns:
        label = labels.get(column)
        if column in VERDICT_COLUMNS:
            rejected: list = []
            frame[column] = _convert(frame[column], verdict, records, source, column, "a verdict", label,
                                     lenient=rejected)
            if rejected:
                notes.append(unparsable_note(rejected, source, label or column))
        elif column in NUMBER_COLUMNS:
            frame[column] = _convert(frame[column], _number, records, source, column, "a number", label)
        elif column in TEXT_COLUMNS:
            frame[column] = as_text(frame[column])
    for column in ("system", "query_id"):
        missing = frame[column].isna().to_numpy()
        if missing.any():
            first = int(np.argmax(missing))
            raise VerdictError(
                f"{where(source, records.iloc[first], labels.get(column, column))}: no {column}. "
                f"Every record needs one; map it with --field {column}=<column> or fix the record."
            )
    if "repeat" in frame:
        frame["repeat"] = _repeat(frame["repeat"], records, source, labels.get("repeat", "repeat"))
    else:
        frame["repeat"] = 0
    frame["source_file"] = str(source)
    canonical = [c for c in CANONICAL if c in frame.columns]
    extras = [c for c in frame.columns if c not in CANONICAL and c not in PROVENANCE]
    out = frame[canonical + extras + list(PROVENANCE)].reset_index(drop=True)
    out.attrs = {"read_notes": notes} if notes else {}
    return out


def single_system(systems: Sequence[str], system: str | None, source: object) -> dict[str, str]:
    """Map each system name found in a file to its output name, applying ``system=``.

    ``system=`` renames the one system of a file; a file holding several systems keeps their
    own names and ``system=`` is an error (it would merge them).

    Examples
    --------
    >>> single_system(["Mem0"], "mem0-v1", "f.json")
    {'Mem0': 'mem0-v1'}
    >>> single_system(["Persona", "Mem0"], None, "f.json")
    {'Persona': 'Persona', 'Mem0': 'Mem0'}
    """
    names = list(dict.fromkeys(systems))
    if system is None:
        return {name: name for name in names}
    if len(names) > 1:
        raise VerdictError(
            f"{where(source)}: system={system!r} cannot rename a file that holds several systems "
            f"({', '.join(map(str, names))}). Drop system= (each keeps its own name) or split the file."
        )
    return {name: system for name in names}


def name_system(frame: pd.DataFrame, system: str | None, default: str, source: object) -> None:
    """Set ``frame["system"]`` in place: ``system=`` wins (renaming the file's only system), else
    the file's own ``system`` column, else ``default``."""
    if "system" not in frame:
        frame["system"] = system or default
    elif system is not None:
        single_system(frame["system"].dropna().unique(), system, source)
        frame["system"] = system


@functools.lru_cache(maxsize=2)
def _cached_bytes(name: str, mtime: int, size: int) -> bytes:
    return read_bytes(Path(name))


def content_bytes(path: Path) -> bytes:
    """The (decompressed) bytes of a file, cached for the few calls that sniff and read one table."""
    if not path.is_file():
        raise VerdictError(f"{where(path)}: no such file.")
    stat = path.stat()
    note_input(path)
    return _cached_bytes(str(path), stat.st_mtime_ns, stat.st_size)


def is_parquet(path: Path) -> bool:
    """A Parquet file: by its suffix (under any compression suffix) or by its magic bytes."""
    return logical_suffix(path) in PARQUET_SUFFIXES or content_bytes(path)[:4] == PARQUET_MAGIC


def _text_bytes(path: Path) -> bytes:
    """The bytes of a CSV/TSV with old-Mac line endings (CR only, no LF anywhere) made LF."""
    data = content_bytes(path)
    return data.replace(b"\r", b"\n") if b"\r" in data and b"\n" not in data else data


def _header(path: Path) -> list[str]:
    """The header of a CSV/TSV, decoded (a VerdictError for binary or non-UTF-8 content)."""
    data = _text_bytes(path)
    end = data.find(b"\n")
    first = data[:end if end >= 0 else len(data)]
    if binary_kind(data[:4096]) is not None:
        decode(data[:4096], path)  # raises, saying what the file is
    return next(csv.reader(io.StringIO(decode(first, path)), delimiter=separator(path)), [])


def table_columns(path: Path) -> list[str]:
    """The column names of a CSV/TSV (header line, [] if unreadable) or Parquet file (schema; a cut or
    damaged Parquet file is a VerdictError naming it)."""
    if is_parquet(path):  # a cut Parquet file is an error naming it, not "a table without a header"
        try:
            return list(pq.read_schema(io.BytesIO(content_bytes(path))).names)
        except (pyarrow.ArrowException, OSError, ValueError) as error:
            raise VerdictError(f"{where(path)}: is not a readable Parquet file ({' '.join(str(error).split())[:200]})."
                               " Check that it was copied completely.") from None
    try:
        return _header(path)
    except (OSError, ValueError, csv.Error, pyarrow.ArrowException):
        return []


def read_table(path: Path, text_columns: Iterable[str]) -> pd.DataFrame:
    """Read a CSV/TSV or Parquet table (compressed or not) in one vectorised pass.

    In a CSV, the ``text_columns`` present are read verbatim as text (a query called ``NA``
    stays ``"NA"``; only an empty cell is missing); the other columns get pandas' type inference
    with :data:`NA_SPELLINGS` as missing and floats parsed exactly (:data:`EXACT_FLOATS`).
    Parquet keeps its own types. A header that names a column twice is an error (pandas would
    silently rename the copy ``score.1``).
    """
    if is_parquet(path):
        return _parquet(path)
    try:
        header = _header(path)
    except csv.Error as error:
        raise VerdictError(f"{where(path)}: the header line is not readable CSV ({error}). Fix the file.") from None
    unique_header(header, path)
    text = set(text_columns) & set(header)
    data = _text_bytes(path)
    decode(data, path)  # one clear error for binary or non-UTF-8 content anywhere in the file
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", pd.errors.ParserWarning)
        try:
            frame = pd.read_csv(
                io.BytesIO(data),
                encoding="utf-8-sig",
                sep=separator(path),
                dtype=dict.fromkeys(text, str),
                keep_default_na=False,
                na_values={column: [""] if column in text else list(NA_SPELLINGS) for column in header},
                # never take the first column for an index when rows are one field longer than the
                # header (a trailing comma on every row): an empty last field is dropped; a filled one
                # is the ParserWarning below
                index_col=False,
                **EXACT_FLOATS,
            )
        except (pd.errors.ParserError, pd.errors.EmptyDataError, csv.Error, OverflowError) as error:
            raise VerdictError(f"{where(path)}: is not a readable CSV ({' '.join(str(error).split())}). "
                               "Fix the file.") from None
    longer = any(issubclass(w.category, pd.errors.ParserWarning) for w in caught)
    if longer:  # only empty fields beyond the header (trailing commas) are dropped
        _long_rows(data, header, path)
    _repeated_header(frame, header, path)
    return frame


def _long_rows(data: bytes, header: list[str], path: Path) -> None:
    """A VerdictError naming the first row (record 1 = the first data row) with a filled field
    beyond the header (:func:`memdiag.io.csv_text.long_row`)."""
    rows = csv.reader(io.StringIO(data.decode("utf-8-sig", errors="replace")), delimiter=separator(path))
    with fields_up_to(len(data)):
        next(rows, None)
        for number, row in enumerate(rows, start=1):
            long_row(header, row, path, str(number))


def _repeated_header(frame: pd.DataFrame, header: list[str], path: Path) -> None:
    """A VerdictError naming the first data row that is the header line again
    (:func:`memdiag.io.csv_text.repeated_header`); only rows whose first cell is the first
    column's name are compared."""
    if frame.empty or not header or pd.api.types.is_numeric_dtype(frame.iloc[:, 0]):
        return
    for row in np.flatnonzero((frame.iloc[:, 0] == header[0]).to_numpy(dtype=bool, na_value=False)):
        cells = ["" if pd.isna(v) else str(v) for v in frame.iloc[row]]
        repeated_header(header, cells, path, str(row + 1))


def _parquet(path: Path) -> pd.DataFrame:
    """A Parquet table; a cut or damaged file, or a list/struct in a canonical column, is a
    VerdictError naming the file (and the record and column)."""
    try:
        frame = pd.read_parquet(io.BytesIO(content_bytes(path)))
    except (pyarrow.ArrowException, OSError, ValueError) as error:
        raise VerdictError(f"{where(path)}: is not a readable Parquet file ({' '.join(str(error).split())[:200]}). "
                           "Check that it was copied completely.") from None
    for column in frame.columns:
        if str(column) in CANONICAL and frame[column].dtype == object:
            nested = frame[column].map(lambda v: isinstance(v, list | tuple | dict | np.ndarray)).to_numpy()
            if nested.any():
                row = int(np.argmax(nested))
                raise VerdictError(f"{where(path, row + 1, str(column))}: a list or mapping "
                                   f"({frame[column].iloc[row]!r:.40}) is not one value. Store one value per "
                                   "cell, or map the column with a recipe.")
    return frame


def first_record(content: object) -> dict | None:
    """The first item of a JSON list / JSONL if it is an object, else None (for sniffing)."""
    if isinstance(content, list) and content and isinstance(content[0], dict):
        return content[0]
    return None


def as_records(content: object, source: object) -> list[dict]:
    """``content`` as a list of JSON objects; names the first item that is not an object."""
    if not isinstance(content, list):
        raise VerdictError(
            f"{where(source)}: expected a JSON list (or JSONL) of records, got {type(content).__name__}."
        )
    for number, record in enumerate(content, start=1):
        if not isinstance(record, dict):
            raise VerdictError(
                f"{where(source, number)}: expected a JSON object, got {record!r:.60}. Fix the record."
            )
    return content
