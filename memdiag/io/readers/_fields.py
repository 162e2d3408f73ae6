"""Field specifications of a recipe: where a column comes from in a record, and how it is read.

A field is a source path (:mod:`memdiag.io.readers._jsonpath`) or a mapping::

    score: correct                                   # the record's 'correct'
    score: {from: metrics.llm_score, absent: 0, above: 0}
    latency_s: {from: latency_ms, divide: 1000}
    category: {from: type, absent: unknown}
    score: {from: evaluation.is_correct, null_if: evaluation.error}
    query_id: {from: question, question_hash: "lme"}
    tokens_used: {from: tokens_used, optional: true}

Keys of the mapping, applied in this order: ``from`` (the path) or ``value`` (a constant);
``absent`` (the value when the record lacks the field; a JSON null stays null); ``null_if`` (a
path: when it holds a non-null value the field is null — e.g. an evaluation error); ``map``
(source value -> value, written as text keys; a value not in the map is an error);
``multiply``/``divide`` (numbers); ``above``/``at_least`` (a number becomes the verdict
value > x / value >= x, null stays null); ``question_hash`` (the id ``<prefix>:`` + the first 12
hex digits of SHA-1 of the normalised question text, as the persona reader derives ids);
``optional: true`` (no column when no record has the field, instead of an error).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from memdiag.errors import VerdictError, listing, where
from memdiag.io.readers._jsonpath import MISSING, Record, getter

#: The keys a field mapping may have.
KEYS: tuple[str, ...] = ("from", "value", "absent", "null_if", "map", "multiply", "divide", "above",
                         "at_least", "question_hash", "optional")


@dataclass(frozen=True)
class Field:
    """One column of a recipe source: its target name and how to compute it from a record."""

    target: str
    source: str | None = None
    value: object = MISSING
    absent: object = MISSING
    null_if: str | None = None
    mapping: Mapping | None = None
    multiply: float | None = None
    divide: float | None = None
    above: float | None = None
    at_least: float | None = None
    question_hash: str | None = None
    optional: bool = False
    origin: object = field(default=None, compare=False)

    @property
    def label(self) -> str:
        """The source field named in messages."""
        return self.source if self.source is not None else f"{self.target} (constant)"


def _number(value: object, origin: object, target: str, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise VerdictError(f"{where(origin, None, target)}: {key} must be a number, got {value!r}.")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):  # .nan would make every comparison false: every verdict 0
        raise VerdictError(f"{where(origin, None, target)}: {key} must be a finite number, got {value!r}.")
    return number


def parse_field(target: str, spec: object, origin: object) -> Field:
    """A :class:`Field` from its recipe text (a path or a mapping); unknown keys are errors."""
    if isinstance(spec, str):
        getter(spec, origin)  # syntax check now, not at the first record
        return Field(target, source=spec, origin=origin)
    if not isinstance(spec, Mapping):
        raise VerdictError(f"{where(origin, None, target)}: a field is a source path or a mapping with "
                           f"{', '.join(KEYS)}; got {spec!r:.60}. Put constant columns under 'columns:'.")
    unknown = [k for k in spec if k not in KEYS]
    if unknown:
        raise VerdictError(f"{where(origin, None, target)}: unknown key {unknown[0]!r} in this field "
                           f"(known: {', '.join(KEYS)}).")
    if ("from" in spec) == ("value" in spec):
        raise VerdictError(f"{where(origin, None, target)}: give exactly one of 'from' (a source path) "
                           "and 'value' (a constant).")
    for key in ("from", "null_if"):
        if key in spec:
            if not isinstance(spec[key], str):
                raise VerdictError(f"{where(origin, None, target)}: {key} must be a path, got {spec[key]!r}.")
            getter(spec[key], origin)
    mapping = spec.get("map")
    if mapping is not None and not isinstance(mapping, Mapping):
        raise VerdictError(f"{where(origin, None, target)}: map must be a mapping of source value -> value.")
    numbers = {k: _number(spec[k], origin, target, k) for k in ("multiply", "divide", "above", "at_least")
               if k in spec}
    if numbers.get("divide") == 0:
        raise VerdictError(f"{where(origin, None, target)}: divide must not be 0.")
    if "above" in numbers and "at_least" in numbers:
        raise VerdictError(f"{where(origin, None, target)}: give one of 'above' and 'at_least'.")
    if not isinstance(spec.get("optional", False), bool):
        raise VerdictError(f"{where(origin, None, target)}: optional must be true or false.")
    prefix = spec.get("question_hash")
    if prefix is not None and not isinstance(prefix, str):
        raise VerdictError(f"{where(origin, None, target)}: question_hash is the id prefix, e.g. \"lme\".")
    return Field(target, source=spec.get("from"), value=spec.get("value", MISSING),
                 absent=spec.get("absent", MISSING), null_if=spec.get("null_if"),
                 mapping={str(k): v for k, v in mapping.items()} if mapping is not None else None,
                 question_hash=prefix, optional=spec.get("optional", False), origin=origin,
                 **{k: v for k, v in numbers.items()})


def _as_number(value: object, fld: Field, source: object, record: object) -> float | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, bool):
        return float(value)
    try:
        return float(value)
    except (TypeError, ValueError):
        raise VerdictError(f"{where(source, record, fld.label)}: {value!r:.60} is not a number "
                           f"(field {fld.target} is computed from it). Fix the record.") from None


def _question_hash(value: object, prefix: str, fld: Field, source: object, record: object) -> str:
    from memdiag.io.readers.persona_longmemeval import question_id

    if not isinstance(value, str) or not value.strip():
        raise VerdictError(f"{where(source, record, fld.label)}: no question text to identify the query.")
    return prefix + question_id(value).removeprefix("lme")


def compute(fld: Field, records: list[Record], source: object) -> list | None:
    """The column of ``fld`` over ``records`` (None for an optional field no record has).

    Raises
    ------
    VerdictError
        A field no record has (naming the fields record 1 does have), a value not in ``map``, or
        a non-number where a number is needed — each naming file, record and source field.
    """
    if fld.value is not MISSING:
        return [fld.value] * len(records)
    get = getter(fld.source, source)
    raw = [get(r) for r in records]
    if all(v is MISSING for v in raw) and fld.absent is MISSING:
        if fld.optional:
            return None
        fields = listing(map(str, records[0].value), 12) if records else "none"
        raise VerdictError(f"{where(source, None, fld.source)}: no record has this field (mapped to "
                           f"{fld.target}). Fields of record 1: {fields}.")
    blank: Callable[[Record], object] | None = getter(fld.null_if, source) if fld.null_if else None
    out = []
    for record, value in zip(records, raw):
        if value is MISSING:
            value = None if fld.absent is MISSING else fld.absent
        if blank is not None and blank(record) not in (MISSING, None):
            value = None
        if fld.mapping is not None and value is not None:
            if str(value) not in fld.mapping:
                raise VerdictError(f"{where(source, record.locator, fld.label)}: {value!r:.60} is not in "
                                   f"the map of {fld.target} ({listing(fld.mapping)}). Add it to the map.")
            value = fld.mapping[str(value)]
        if fld.multiply is not None or fld.divide is not None or fld.above is not None \
                or fld.at_least is not None:
            number = _as_number(value, fld, source, record.locator)
            if number is not None:
                number = number * fld.multiply if fld.multiply is not None else number
                number = number / fld.divide if fld.divide is not None else number
                if fld.above is not None:
                    number = float(number > fld.above)
                elif fld.at_least is not None:
                    number = float(number >= fld.at_least)
            value = number
        if fld.question_hash is not None:
            value = _question_hash(value, fld.question_hash, fld, source, record.locator)
        out.append(value)
    return out
