"""The typed result: a DataFrame whose columns carry their kinds and whose notes and provenance survive concatenation, selection, copies and pickling.

Every public memdiag function that returns a table returns a :class:`Result`, a
:class:`pandas.DataFrame` subclass (pandas' documented way to subclass: ``_metadata`` and
``_constructor``) with

- the **kinds** of its columns (:mod:`memdiag.core.kinds`), declared where the result is made
  (:func:`memdiag.core.provenance.stamp`) and read by every renderer (:func:`kinds_of`);
- its **provenance and notes** in ``attrs`` (:mod:`memdiag.core.provenance`), the notes always
  :class:`~memdiag.core.notes.Note` records when read through :func:`notes_of`.

pandas carries ``attrs`` and ``_metadata`` through selection (``df[cols]``, ``.loc``,
``.iloc``, ``.head``), sorting, ``reset_index``, copies, ``deepcopy`` and pickling. Plain pandas
keeps the ``attrs`` of a concatenation only when every input has the same ones, so a
concatenation of results loses its notes; :meth:`Result.__finalize__` merges instead: the notes
of every input (each once, in order), the kinds of every column and the provenance keys on
which all inputs agree. It does so on pandas 2.1 (which passes the inputs as ``objs``) and 3
(``input_objs``, also for ``merge``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
from pandas.core.generic import NDFrame

from memdiag.core.kinds import REAL, Kind, dtype_kind
from memdiag.core.notes import Note, as_note


class Result(pd.DataFrame):
    """A result table: a :class:`pandas.DataFrame` with its column kinds, notes and provenance.

    The kinds are held in ``_kinds`` (``{column: Kind}``, never changed in place: a new mapping
    replaces it); the provenance and notes in ``attrs``. Make one with :func:`as_result` or
    :func:`memdiag.core.provenance.stamp`.

    Examples
    --------
    >>> from memdiag.core.kinds import COUNT, POINTS
    >>> a = as_result(pd.DataFrame({"system": ["mem0"], "n": [10.0]}), {"n": COUNT})
    >>> a.attrs = {"seed": 0, "notes": [Note("first", code="k1")]}
    >>> b = as_result(pd.DataFrame({"system": ["zep"], "diff": [1.5]}), {"diff": POINTS})
    >>> b.attrs = {"seed": 0, "notes": [Note("second", code="k2"), Note("first", code="k1")]}
    >>> both = pd.concat([a, b], ignore_index=True)
    >>> type(both).__name__, [n.code for n in notes_of(both)], both.attrs["seed"]
    ('Result', ['k1', 'k2'], 0)
    >>> [kinds_of(both)[c].name for c in both.columns]
    ['label', 'count', 'points']
    """

    _metadata = ["_kinds"]
    _kinds: Mapping[str, Kind] | None = None

    @property
    def _constructor(self) -> type[Result]:
        return Result

    def __finalize__(self, other: Any, method: str | None = None, **kwargs: Any) -> Result:
        """pandas' propagation, then for a concatenation or merge the inputs' metadata merged."""
        NDFrame.__finalize__(self, other, method=method, **kwargs)
        inputs = getattr(other, "input_objs", None)
        if inputs is None and method == "concat":
            inputs = getattr(other, "objs", None)
        if inputs is not None and not isinstance(other, NDFrame):
            _merge_into(self, list(inputs))
        return self


def _agree(values: list[object]) -> bool:
    try:
        return all(bool(v == values[0]) for v in values[1:])
    except (TypeError, ValueError):  # arrays and other values without one truth
        return False


def _merge_into(out: Result, inputs: list[Any]) -> None:
    """Set ``out``'s kinds, notes and provenance from those of ``inputs`` (concatenated or merged)."""
    kinds: dict[str, Kind] = {}
    for frame in inputs:
        for column, kind in (getattr(frame, "_kinds", None) or {}).items():
            kinds.setdefault(column, kind)
    object.__setattr__(out, "_kinds", kinds)
    attrs = [getattr(frame, "attrs", {}) or {} for frame in inputs]
    if not any(attrs):
        return
    notes = list(dict.fromkeys(as_note(n) for a in attrs for n in a.get("notes", ())))
    first = attrs[0]
    agreed = {key: value for key, value in first.items()
              if key != "notes" and all(key in a for a in attrs) and _agree([a[key] for a in attrs])}
    out.attrs = {**agreed, "notes": notes} if notes or any("notes" in a for a in attrs) else agreed


def as_result(frame: pd.DataFrame, kinds: Mapping[str, Kind] | None = None) -> Result:
    """``frame`` as a :class:`Result` (the same data, not copied) with ``kinds`` declared on top
    of any it declares already; its ``attrs`` kept.

    >>> from memdiag.core.kinds import POINTS
    >>> r = as_result(pd.DataFrame({"diff": [1.5]}), {"diff": POINTS})
    >>> isinstance(r, pd.DataFrame), kinds_of(r)["diff"].name
    (True, 'points')
    """
    declared = {**(getattr(frame, "_kinds", None) or {}), **{str(c): k for c, k in (kinds or {}).items()}}
    if isinstance(frame, Result):
        out = frame
    else:
        out = Result(frame, copy=False)
        out.attrs = frame.attrs
    object.__setattr__(out, "_kinds", declared)
    return out


def declared_kinds(frame: pd.DataFrame) -> dict[str, Kind]:
    """The kinds declared for ``frame``'s columns (none for a plain DataFrame)."""
    declared = getattr(frame, "_kinds", None) or {}
    return {str(c): declared[str(c)] for c in frame.columns if str(c) in declared}


def kinds_of(frame: pd.DataFrame) -> dict[str, Kind]:
    """The kind of every column of ``frame``: as declared, else as its dtype settles it
    (:func:`memdiag.core.kinds.dtype_kind`), else (an undeclared float) ``real``.

    >>> kinds_of(pd.DataFrame({"a": ["x"], "b": [2], "c": [0.5]}))["c"].name
    'real'
    """
    declared = getattr(frame, "_kinds", None) or {}
    out = {}
    for k, column in enumerate(frame.columns):
        name = str(column)
        out[name] = declared.get(name) or dtype_kind(frame.iloc[:, k]) or REAL
    return out


def undeclared(frame: pd.DataFrame) -> list[str]:
    """The columns whose kind no dtype settles and none was declared: floats, and text columns
    that hold numbers (a float column with None in it).

    >>> undeclared(pd.DataFrame({"a": ["x"], "b": [2], "c": [0.5], "d": [None]}))
    ['c']
    """
    declared = getattr(frame, "_kinds", None) or {}
    out = []
    for k, column in enumerate(frame.columns):
        if str(column) in declared:
            continue
        series = frame.iloc[:, k]
        settled = dtype_kind(series)
        numbers = settled is not None and settled.name == "label" and any(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in series.dropna())
        if settled is None or numbers:
            out.append(str(column))
    return out


def notes_of(frame: pd.DataFrame) -> list[Note]:
    """The notes of a result, each a :class:`~memdiag.core.notes.Note` (a bare string put in
    ``attrs["notes"]`` by hand becomes an ``info`` note with the code ``"note"``)."""
    return [as_note(n) for n in frame.attrs.get("notes", ())]


def provenance_of(frame: pd.DataFrame) -> dict:
    """The provenance of a result: its ``attrs`` without the notes."""
    return {key: value for key, value in frame.attrs.items() if key != "notes"}
