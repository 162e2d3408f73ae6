"""Column kinds: what each column of a result holds, declared where the result is made, and the one rule by which every renderer writes a value of that kind.

A renderer (terminal, Markdown, LaTeX, CSV, JSON, HTML, a figure's labels) never reads a
column's name to choose a format; it reads the column's :class:`Kind`. The set is closed:

==============  ===========================================================================
kind            written (formats for people)
==============  ===========================================================================
``count``       a whole number: ``10`` (a float count with NaN: the integers and ``—``);
                a value that is not whole keeps 2 decimals rather than being cut
``points``      a rate, score or difference in points (×100): 2 decimals, ``66.88``
``fraction``    a share in [0, 1] that is not a probability of an event (the share of
                replicates in which a ratio was undefined, κ-like shares): 3 decimals; with
                ``unit="%"`` as a percentage with one decimal, ``45.2%`` (I² of a
                meta-analysis, among neighbours in points)
``probability`` a probability that is not a p-value (a power, P(rank 1)): 3 decimals
``p``           a p-value, by :func:`format_p` (two significant digits; ``< 1e-12``)
``flag``        ``True`` / ``False``
``label``       text as it is (names, methods, verdicts)
``real``        any other real number (a ratio, κ, a t statistic, a rank, seconds,
                tokens): no decimals when every value of its column (with its interval)
                is whole, else 2 when one is ≥ 1 in magnitude, else 4; ``unit`` says
                what it measures
==============  ===========================================================================

Every kind writes a missing value as an em dash (:data:`MISSING`) and never ``-0.00``. A
*sentinel* is a numeric kind with the meaning of its special values (:func:`sentinel`):
``flips_significance`` is a count whose −1 means that no number of flips changes the verdict,
written ``none``. CSV and JSON keep every number at full precision; there a count held as a
float is written as an integer when it is whole, and a sentinel keeps its number.

A dtype settles a column's kind when it is not declared (:func:`dtype_kind`): bool is a flag,
an integer a count, text a label. A float can be any of the numeric kinds, so every float
column of a result is declared.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

#: The kinds, a closed set (see the module docstring for each one's rule).
NAMES: tuple[str, ...] = ("count", "points", "fraction", "probability", "p", "flag", "label", "real")
#: What every format for people shows for a missing or undefined value.
MISSING = "—"
#: The smallest p-value printed as a number; below it ``< 1e-12`` (double precision and the
#: exact tests' own accuracy make smaller values meaningless as numbers).
P_SMALLEST = 1e-12
#: Levels a p-value is read against: a p that rounds onto one of them gets more digits.
_LEVELS = (0.1, 0.05, 0.01, 0.005, 0.001)


@dataclass(frozen=True)
class Kind:
    """What a column holds: one of :data:`NAMES`, its unit, and the words of its special values.

    Parameters
    ----------
    name
        One of :data:`NAMES`.
    unit
        What the numbers count or measure (``"seconds"``, ``"tokens"``, ``"ratio"``; ``"%"``
        for a fraction shown as a percentage); None when the kind says it (points, p).
    special
        ``((value, word), ...)``: values that are not numbers of the kind but a meaning
        (a sentinel, :func:`sentinel`), written as the word in the formats for people.
    floor
        A p-value's flag column (``"p_floor"``): True where the p sits at its Monte-Carlo floor
        (no replicate as extreme as the data), so that it is a bound, written ``< p`` rounded up
        (SPEC §4.4); the flag is folded into the p-value in the formats for people.

    Raises
    ------
    ValueError
        A name outside :data:`NAMES`, special values on a kind that is not numeric, or a floor on
        a kind that is not a p-value.

    Examples
    --------
    >>> Kind("count").format(10.0), Kind("points").format(-0.001), Kind("p").format(0.0042)
    ('10', '0.00', '0.0042')
    >>> sentinel(COUNT, {-1: "none"}).format(-1.0)
    'none'
    """

    name: str
    unit: str | None = None
    special: tuple[tuple[float, str], ...] = ()
    floor: str | None = None

    def __post_init__(self) -> None:
        if self.name not in NAMES:
            raise ValueError(f"a column kind is one of {', '.join(NAMES)}, not {self.name!r}")
        if self.special and not self.numeric:
            raise ValueError(f"only a numeric kind has special values, not {self.name!r}")
        if self.floor is not None and self.name != "p":
            raise ValueError(f"only a p-value has a Monte-Carlo floor, not {self.name!r}")

    @property
    def numeric(self) -> bool:
        """Whether the kind holds numbers (right-aligned in tables)."""
        return self.name not in ("flag", "label")

    def word(self, value: object) -> str | None:
        """The word of a special value (a sentinel's meaning), or None.

        >>> sentinel(COUNT, {-1: "none"}).word(-1), sentinel(COUNT, {-1: "none"}).word(3)
        ('none', None)
        """
        if not self.special or is_missing(value) or isinstance(value, (str, bool)):
            return None
        try:
            number = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return None
        return next((word for special, word in self.special if number == special), None)

    def format(self, value: object, decimals: int | None = None) -> str:
        """``value`` as every format for people writes it (the module docstring's rules).

        ``decimals`` overrides the decimals of a ``real`` number (a column's values together
        choose them, :func:`real_decimals`); default by the value alone.

        >>> [Kind("real").format(v) for v in (3.14159, 0.01234, 0.0)]
        ['3.14', '0.0123', '0']
        >>> Kind("fraction", unit="%").format(0.4523), Kind("probability").format(1.0)
        ('45.2%', '1.000')
        >>> Kind("count").format(2.5), Kind("flag").format(False), Kind("label").format(None)
        ('2.50', 'False', '—')
        """
        if is_missing(value):
            return MISSING
        word = self.word(value)
        if word is not None:
            return word
        if self.name == "label":
            return str(value)
        if self.name == "flag":
            return str(bool(value))
        if self.name == "p":
            return format_p(value)
        number = float(value)  # type: ignore[arg-type]
        if self.name == "count":
            return str(int(number)) if math.isfinite(number) and number == math.floor(number) else format_number(number, 2)
        if self.name == "points":
            return format_number(number, 2)
        if self.name == "fraction" and self.unit == "%":
            return format_number(100.0 * number, 1) + "%"
        if self.name in ("fraction", "probability"):
            return format_number(number, 3)
        return format_number(number, real_decimals(np.array([number])) if decimals is None else decimals)

    def machine(self, value: object) -> object:
        """``value`` as CSV and JSON hold it: full precision; a whole count as an int.

        >>> COUNT.machine(10.0), POINTS.machine(10.0), COUNT.machine(2.5)
        (10, 10.0, 2.5)
        """
        if self.name == "count" and isinstance(value, (float, np.floating)) and math.isfinite(value) \
                and value == math.floor(value):
            return int(value)
        return value


def sentinel(kind: Kind, meanings: Mapping[float, str]) -> Kind:
    """``kind`` whose special values mean ``meanings`` (``{-1: "none"}``): a sentinel.

    >>> sentinel(COUNT, {-1: "none"}).special
    ((-1.0, 'none'),)
    """
    return Kind(kind.name, kind.unit, tuple((float(value), str(word)) for value, word in meanings.items()), kind.floor)


def real(unit: str | None = None) -> Kind:
    """A real number measured in ``unit`` (``"seconds"``, ``"tokens"``, ``"ratio"``).

    >>> real("seconds").unit
    'seconds'
    """
    return Kind("real", unit)


COUNT = Kind("count")
POINTS = Kind("points")
FRACTION = Kind("fraction")
PERCENT = Kind("fraction", unit="%")
PROBABILITY = Kind("probability")
P_VALUE = Kind("p")
#: A resampled p-value whose ``p_floor`` column says where it sits at its Monte-Carlo floor.
P_FLOORED = Kind("p", floor="p_floor")
FLAG = Kind("flag")
LABEL = Kind("label")
REAL = Kind("real")
#: A count whose −1 means that nothing found changes the conclusion (fragility indices).
COUNT_OR_NONE = sentinel(COUNT, {-1: "none"})

_BY_NAME = {"count": COUNT, "points": POINTS, "fraction": FRACTION, "probability": PROBABILITY, "p": P_VALUE,
            "flag": FLAG, "label": LABEL, "real": REAL}


def declare(kinds: Mapping[str, Kind | str] | None = None, /, **groups: Iterable[str]) -> dict[str, Kind]:
    """Column kinds from a mapping and from groups of column names per kind name.

    Parameters
    ----------
    kinds
        ``{column: Kind or kind name}``.
    **groups
        ``count=("n", "benefit"), points=("net_rate", ...), p=("p", "p_adj")``: the columns of
        each kind (any of :data:`NAMES`).

    Returns
    -------
    dict
        ``{column: Kind}``; a column named twice keeps its last kind.

    Raises
    ------
    ValueError
        An unknown kind name.

    Examples
    --------
    >>> k = declare({"ratio": real("ratio")}, count=("n",), p=("p", "p_adj"))
    >>> [(c, k[c].name) for c in k]
    [('ratio', 'real'), ('n', 'count'), ('p', 'p'), ('p_adj', 'p')]
    """
    out = {str(c): as_kind(k) for c, k in (kinds or {}).items()}
    for name, columns in groups.items():
        kind = as_kind(name)
        out.update((str(c), kind) for c in ([columns] if isinstance(columns, str) else columns))
    return out


def with_intervals(*names: str) -> tuple[str, ...]:
    """Each estimate's column with its interval bounds, ``<name>_ci_low`` and ``<name>_ci_high``
    (declared with the estimate's kind).

    >>> with_intervals("overall")
    ('overall', 'overall_ci_low', 'overall_ci_high')
    """
    return tuple(c for name in names for c in (name, f"{name}_ci_low", f"{name}_ci_high"))


def as_kind(kind: Kind | str) -> Kind:
    """``kind`` as a :class:`Kind` (a name of :data:`NAMES` becomes its plain kind).

    >>> as_kind("points") == POINTS
    True
    """
    if isinstance(kind, Kind):
        return kind
    if kind not in _BY_NAME:
        raise ValueError(f"a column kind is one of {', '.join(NAMES)}, not {kind!r}")
    return _BY_NAME[kind]


def dtype_kind(series: pd.Series) -> Kind | None:
    """The kind a column's dtype settles: bool -> flag, integer -> count, text -> label; None for
    a float (or complex) column, which must be declared.

    >>> [dtype_kind(pd.Series(v)) for v in ([True], [1], ["a"])] == [FLAG, COUNT, LABEL]
    True
    >>> dtype_kind(pd.Series([1.5])) is None
    True
    """
    if pd.api.types.is_bool_dtype(series):
        return FLAG
    if pd.api.types.is_integer_dtype(series):
        return COUNT
    if pd.api.types.is_numeric_dtype(series):
        return None
    return LABEL


# --------------------------------------------------------------------------------------------
# numbers as text
# --------------------------------------------------------------------------------------------
def is_missing(value: object) -> bool:
    """None, pandas' NA/NaT or a float NaN.

    >>> is_missing(float("nan")), is_missing(0.0)
    (True, False)
    """
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, (float, np.floating)) and math.isnan(value)


def format_number(value: object, decimals: int) -> str:
    """A number with ``decimals`` decimals, never ``-0.00``; missing as an em dash.

    >>> format_number(-0.001, 2), format_number(-1.5, 2), format_number(float("nan"), 2)
    ('0.00', '-1.50', '—')
    """
    if is_missing(value):
        return MISSING
    text = f"{float(value):.{decimals}f}"  # type: ignore[arg-type]
    return text[1:] if text.startswith("-") and not text.strip("-0.") else text


def real_decimals(*columns: np.ndarray) -> int:
    """Decimals of real numbers shown together (an estimate and its interval): none when every
    finite value is whole (a rank of 2.0, 1500 tokens), else 2 when they hold any value ≥ 1 in
    magnitude, else 4.

    >>> real_decimals(np.array([0.5, 1.2])), real_decimals(np.array([0.05, np.nan])), real_decimals(np.array([2.0]))
    (2, 4, 0)
    """
    with np.errstate(invalid="ignore"):
        finite = [values[np.isfinite(values)] for values in columns]
        if all(np.all(values == np.floor(values)) for values in finite):
            return 0
        return 2 if any((np.abs(values) >= 1).any() for values in finite) else 4


def _significant(value: float, digits: int, how: str = "nearest") -> float:
    """``value`` (> 0) rounded to ``digits`` significant digits: to the nearest, ``up`` or ``down``."""
    exponent = math.floor(math.log10(value)) - digits + 1
    scaled = value / 10.0**exponent
    steps = {"nearest": round, "up": lambda x: math.ceil(x - 1e-9), "down": lambda x: math.floor(x + 1e-9)}[how]
    return steps(scaled) * 10.0**exponent


def _p_text(value: float, digits: int) -> str:
    """``value`` (rounded already) with ``digits`` significant digits: fixed from 0.0001, else
    scientific without a padded exponent; 1 when it rounds to 1."""
    if value >= 1:
        return "1"
    if value >= 1e-4 * (1 - 1e-9):  # 1e-4 itself, whatever its last bit
        return f"{value:#.{digits}g}"
    mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def format_p(value: object, bound: bool = False) -> str:
    """A p-value as people read it: two significant digits (``0.0042``, ``0.43``; three or four
    when two would print a round level such as ``0.050`` for 0.0504), scientific below 0.0001
    (``4.2e-5``), ``< 1e-12`` below that, 1 when it rounds to 1; missing as an em dash.

    ``bound``: ``value`` is an upper bound (a Monte-Carlo floor, SPEC §4.4), printed as
    ``< value`` rounded up.

    >>> [format_p(p) for p in (0.43, 0.0042, 0.0504, 0.0099995, 1.0, 3.15e-14, 0.0, 2.5e-4, 4.2e-5)]
    ['0.43', '0.0042', '0.0504', '0.009999', '1', '< 1e-12', '< 1e-12', '0.00025', '4.2e-5']
    >>> format_p(1 / 20_001, bound=True), format_p(0.00225, bound=True)
    ('< 5.0e-5', '< 0.0023')
    """
    if is_missing(value):
        return MISSING
    p = float(value)  # type: ignore[arg-type]
    if p < P_SMALLEST:
        return f"< {P_SMALLEST:g}"
    if bound:
        return "< " + _p_text(_significant(p, 2, "up"), 2)
    for digits in (2, 3, 4):
        shown = _significant(p, digits)
        if not any(math.isclose(shown, level) for level in _LEVELS) or math.isclose(shown, p, rel_tol=1e-12):
            return _p_text(shown, digits)
    return _p_text(_significant(p, 4, "down" if p < shown else "up"), 4)  # on the side of the level p is
