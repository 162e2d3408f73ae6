"""The canonical verdict table (SPEC §1): its hard rules, checked once for every input — the rows
:func:`memdiag.read_verdicts` read from files and a DataFrame built by hand alike.

:func:`check` returns the table in canonical dtypes and column order, or raises one
:class:`~memdiag.errors.VerdictError` naming the file, the record and the field of the first row
that breaks a rule; it leaves a fingerprint of the checked contents in ``attrs``, so a frame passed
again unedited is not checked again (:func:`memdiag.prepare`, every diagnostic). The summary and
pairing notes of :func:`memdiag.validate` and the alignment into a :class:`memdiag.Panel` come
after, in :mod:`memdiag.panel`.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd

from memdiag.errors import VerdictError, shown, where
from memdiag.io.schema import (
    BINARY_LABELS,
    CANONICAL,
    COSTS,
    JUDGE,
    PROVENANCE,
    QUERY_ATTRIBUTES,
    REQUIRED,
    RUN,
)

__all__ = ["check", "numeric_column"]


def _locate(df: pd.DataFrame, index: int) -> tuple[str | None, object]:
    """(file, record) of row ``index`` of ``df``, from the provenance columns when present."""
    source = df["source_file"].iloc[index] if "source_file" in df else None
    record = df["source_record"].iloc[index] if "source_record" in df else index + 1
    return (None if pd.isna(source) else str(source)), record


def _fail(df: pd.DataFrame, index: int, column: str, message: str) -> VerdictError:
    source, record = _locate(df, index)
    return VerdictError(f"{where(source, record, column)}: {message}")


def _mixed_types(values: pd.Series) -> int | None:
    """Position of the first value whose Python type differs from the first non-null one."""
    if values.dtype != object:
        return None
    kinds = values.map(lambda v: "null" if v is None or (isinstance(v, float) and np.isnan(v))
                       else ("number" if isinstance(v, (int, float, np.number)) and not isinstance(v, bool)
                             else type(v).__name__))
    kinds = kinds[kinds != "null"]
    if kinds.empty:
        return None
    bad = np.flatnonzero(kinds.to_numpy() != kinds.iloc[0])
    return None if bad.size == 0 else int(values.index.get_indexer([kinds.index[bad[0]]])[0])


def _flat_columns(df: object) -> None:
    """A VerdictError for a frame whose columns are not one flat set of names (a MultiIndex, or a
    column name given twice): pandas would hand back frames where memdiag expects columns."""
    if not isinstance(df, pd.DataFrame):
        return
    if isinstance(df.columns, pd.MultiIndex):
        raise VerdictError(f"<data>: the columns are a MultiIndex ({df.columns.nlevels} levels); give one level "
                           "of column names (df.columns = ['_'.join(map(str, c)).strip('_') for c in df.columns]).")
    repeated = df.columns[df.columns.duplicated()]
    if len(repeated):
        raise VerdictError(f"<data>, field '{repeated[0]}': this column appears more than once; rename or drop "
                           "the copies (df.loc[:, ~df.columns.duplicated()]).")


def check(df: pd.DataFrame) -> pd.DataFrame:
    """Check the hard rules of SPEC §1 and return ``df`` in canonical dtypes and column order.

    Hard rules (each a :class:`~memdiag.errors.VerdictError` naming file, record and field):
    the required columns exist; ids are present and of one type; ``score`` is a number in
    [0, 1] or missing; ``repeat`` is a whole number; 0/1 labels are 0, 1 or missing;
    ``(system, query_id, repeat)`` — ``(system, query_id, judge, repeat)`` when a ``judge`` column
    names the raters, with ``run`` when a ``run`` column names end-to-end runs — is unique. Missing scores are kept (NaN).

    Parameters
    ----------
    df
        Verdicts in the canonical long layout (SPEC §1.1): ``system``, ``query_id``, ``score``
        and any optional columns; ``source_file`` and ``source_record`` (when present) locate a
        bad row in the error message.

    Returns
    -------
    pandas.DataFrame
        ``df`` with a fresh index, ids as strings, ``score`` and the labels and costs as floats,
        ``repeat`` as int (0 when absent), canonical columns first and the provenance columns
        last. The frame carries a digest of its checked contents in ``attrs`` so that passing it
        again unedited (to :func:`check`, :func:`memdiag.prepare` or a diagnostic) is not
        re-checked; an edit, in place or not, makes it checked again.

    Raises
    ------
    VerdictError
        An empty table; a required column missing; an empty or mixed-type id; a score that is
        not a number in [0, 1]; a ``repeat`` that is not a whole number ≥ 0; a 0/1 label that is
        not 0 or 1; a negative cost; a duplicate ``(system, query_id[, judge], repeat)``; columns
        that are a MultiIndex or name a column twice. The message names the file, record and field.

    References
    ----------
    SPEC §1.1 (the record) and SPEC §1.2 (hard rules).

    Examples
    --------
    >>> check(pd.DataFrame({"system": ["a", "a"], "query_id": ["q1", "q2"], "score": [1, None]}))
      system query_id  score  repeat
    0      a       q1    1.0       0
    1      a       q2    NaN       0
    >>> check(pd.DataFrame({"system": ["a"], "query_id": ["q1"], "score": [2]}))
    Traceback (most recent call last):
    ...
    memdiag.errors.VerdictError: <data>, record 1, field 'score': 2.0 is outside [0.0, 1.0]. Rescale the scores (e.g. a 1-5 grade needs a threshold) or map another column.
    """
    _flat_columns(df)
    if df.attrs.get(_CHECKED) is not None and df.attrs[_CHECKED] == _fingerprint(df):
        return df
    if len(df) == 0:
        raise VerdictError("the verdict table is empty: no record was read. Check the files.")
    df = df.reset_index(drop=True)
    for column in REQUIRED:
        if column not in df:
            source = str(df["source_file"].iloc[0]) if "source_file" in df else None
            raise VerdictError(
                f"{where(source, None, column)}: required column is missing (have: "
                f"{', '.join(map(str, df.columns))}). Map it with --field {column}=<column>."
            )
    out = df.copy()
    for column in ("system", "query_id") + tuple(c for c in (JUDGE, RUN, *QUERY_ATTRIBUTES) if c in df):
        values = out[column]
        bad = _mixed_types(values)
        if bad is not None:
            raise _fail(out, bad, column, f"mixed value types in this id column ({shown(values.iloc[bad])} "
                        f"vs {shown(values.dropna().iloc[0])}). Write every id the same way (e.g. all strings).")
        if column in ("system", "query_id"):
            null = values.isna().to_numpy()
            if null.any():
                raise _fail(out, int(np.flatnonzero(null)[0]), column,
                            "is empty. Every verdict needs a system and a query id.")
        out[column] = values.astype("string").astype(object).where(values.notna(), None) \
            if column not in ("system", "query_id") else values.astype(str)
    out["score"] = numeric_column(out, "score", low=0.0, high=1.0)
    if "repeat" in out:
        rep = numeric_column(out, "repeat", low=0, high=None)
        missing = np.flatnonzero(rep.isna().to_numpy() | (rep % 1 != 0).to_numpy())
        if missing.size:
            raise _fail(out, int(missing[0]), "repeat", f"{shown(out['repeat'].iloc[missing[0]])} is not a "
                        "whole number. Judge repetitions are numbered 0, 1, 2, ...")
        out["repeat"] = rep.astype(np.int64)
    else:
        out["repeat"] = np.zeros(len(out), dtype=np.int64)
    for column in BINARY_LABELS:
        if column in out:
            values = numeric_column(out, column, low=0.0, high=1.0)
            odd = np.flatnonzero(values.notna().to_numpy() & ~values.isin([0.0, 1.0]).to_numpy())
            if odd.size:
                raise _fail(out, int(odd[0]), column, f"{float(values.iloc[odd[0]])!r} is not 0 or 1.")
            out[column] = values
    for column in COSTS:
        if column in out:
            out[column] = numeric_column(out, column, low=0.0, high=None)
    unit = ["system", "query_id"] + [c for c in (JUDGE, RUN) if c in out] + ["repeat"]
    settings = [c for c in ("benchmark", "model") if c in out]
    dup = out.duplicated(unit + settings, keep="first").to_numpy()
    if dup.any():
        i, key = _first_copy(out, dup, unit + settings)
        raise _fail(out, i, "query_id", f"duplicate verdict for ({', '.join(unit + settings)}) = "
                    f"{shown(key)} ({int(dup.sum())} duplicate rows in all). Give each judge "
                    "repetition its own 'repeat' number, each judge its own 'judge' label, each end-to-end "
                    "run its own 'run' label (recipe run: \"{folder}\"), or remove the copies.")
    # no copy within a setting, but settings (benchmarks, models) that reuse query ids: not one panel
    across = out.duplicated(unit, keep="first").to_numpy() if settings else dup
    if across.any():
        i, key = _first_copy(out, across, unit)
        raise _fail(out, i, "query_id", f"the same ({', '.join(unit)}) = {shown(key)} appears in "
                    f"several settings ({' × '.join(settings)}: {int(across.sum())} such rows in all): their "
                    "verdicts share query ids and cannot be aligned as one panel. Prepare one setting at a "
                    f"time (md.prepare(df[df['{settings[0]}'] == ...])), or every setting with "
                    "md.prepare_settings(df) (command line: memdiag across).")
    order = [c for c in CANONICAL if c in out] + [c for c in out.columns
                                                   if c not in CANONICAL and c not in PROVENANCE] \
        + [c for c in PROVENANCE if c in out]
    out = out[order]
    out.attrs[_CHECKED] = _fingerprint(out)
    return out


def _first_copy(out: pd.DataFrame, copies: np.ndarray, columns: list[str]) -> tuple[int, tuple]:
    """The row of the first copy ``copies`` marks and its values in ``columns`` (Python scalars)."""
    i = int(np.flatnonzero(copies)[0])
    return i, tuple(k.item() if isinstance(k, np.generic) else k for k in out.loc[i, columns].tolist())


#: ``attrs`` key of the fingerprint :func:`check` leaves on a frame it has checked.
_CHECKED = "memdiag.checked"


def _fingerprint(df: pd.DataFrame) -> str:
    """What identifies a checked frame: a digest of its shape, column names and dtypes and the
    contents of every column :func:`check` checks (ids, scores, repeats, labels, costs). Any frame
    whose checked contents differ — a filter, a copy with an edit, an edit in place such as a
    copied query id — has another digest and is checked again; a frame equal to one
    :func:`check` returned (the frame itself, an unedited copy) is not.

    Arrow-backed columns (pandas' ``str``) are hashed through their buffers and numpy columns
    through their bytes (SHA-1, hardware-accelerated and not used for security: about 0.07 s for
    a million rows, against about 2.7 s to check them again; ``benchmarks/bench_load.py``);
    object columns through :func:`pandas.util.hash_array`.
    """
    digest = hashlib.sha1(usedforsecurity=False)
    digest.update(repr((len(df), tuple(map(str, df.columns)), tuple(map(str, df.dtypes)))).encode())
    for column in _CHECKED_COLUMNS:
        if column not in df:
            continue
        values = df[column].array
        if hasattr(values, "__arrow_array__"):
            arrow = values.__arrow_array__()
            for chunk in getattr(arrow, "chunks", [arrow]):
                digest.update(repr((chunk.offset, len(chunk))).encode())
                for buffer in chunk.buffers():
                    if buffer is not None:
                        digest.update(buffer)
        else:
            data = values.to_numpy() if not isinstance(values, np.ndarray) else values
            if data.dtype == object:
                data = pd.util.hash_array(data)
            digest.update(np.ascontiguousarray(data).view(np.uint8))
    return digest.hexdigest()


#: The columns whose contents :func:`check` checks, so whose edits void its fingerprint.
_CHECKED_COLUMNS: tuple[str, ...] = tuple(dict.fromkeys(
    ("system", "query_id", JUDGE, *QUERY_ATTRIBUTES, "score", "repeat", *BINARY_LABELS, *COSTS)))


def numeric_column(df: pd.DataFrame, column: str, low: float | None, high: float | None) -> pd.Series:
    """Coerce a column to float; a non-number or an out-of-range value (outside ``[low, high]``,
    None: unbounded) is a VerdictError naming the file, record and field."""
    raw = df[column]
    if raw.dtype == bool:
        return raw.astype(float)
    values = pd.to_numeric(raw, errors="coerce").astype(float)
    bad = np.flatnonzero(values.isna().to_numpy() & raw.notna().to_numpy())
    if bad.size:
        raise _fail(df, int(bad[0]), column, f"{shown(raw.iloc[bad[0]])} is not a number. Fix the record, or "
                    f"map a numeric column with --field {column}=<column>.")
    outside = (values < low) if low is not None else pd.Series(False, index=values.index)
    if high is not None:
        outside |= values > high
    bad = np.flatnonzero(outside.to_numpy())
    if bad.size:
        span = f"[{low}, {high}]" if high is not None else f">= {low}"
        raise _fail(df, int(bad[0]), column, f"{float(values.iloc[bad[0]])!r} is outside {span}. Rescale the "
                    "scores (e.g. a 1-5 grade needs a threshold) or map another column.")
    return values
