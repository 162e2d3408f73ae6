"""Granularity (GRIM-style) checks: can a published percentage come from whole counts out of the
benchmark's denominator, and from which counts? (SPEC §7.7).

One job: a percentage of n questions can only take the values 100·k/n. A published value rounded
to d decimals is consistent with n when some whole k has |100·k/n − value| ≤ half a unit in the
d-th decimal (Brown & Heathers 2017, the GRIM test); the k that do are the counts the value
allows. A published *difference* of two rounded percentages (``"beats RAG by 1.0 points"``) is a
net count m out of n, within one half-unit for each of the two rounded numbers. Nothing here
reads verdicts.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import pandas as pd

from memdiag.core.kinds import declare
from memdiag.core.notes import Note
from memdiag.core.result import as_result
from memdiag.errors import VerdictError

__all__ = ["counts_for", "decimals_of", "granularity", "half_unit"]

#: Floating-point slack added to every rounding tolerance (relative to the value).
_SLACK = 1e-9


def decimals_of(value: object) -> int:
    """Decimals a published number was written with: from its text when it is a string (``"61.00"``
    -> 2) or a number read by :func:`memdiag.audit.summaries.read_summaries`, else from Python's
    shortest repr (``12.0`` -> 1, ``66.88`` -> 2, ``20`` -> 0).

    >>> decimals_of("61.00"), decimals_of(12.0), decimals_of(66.88), decimals_of(20)
    (2, 1, 2, 0)
    """
    text = getattr(value, "text", None) or (value if isinstance(value, str) else repr(value))
    text = str(text).strip().lower()
    if "e" in text:
        mantissa, exponent = text.split("e")
        return max(0, decimals_of(mantissa) - int(exponent))
    return len(text.split(".")[1]) if "." in text else 0


def half_unit(value: object, decimals: int | None = None) -> float:
    """Half a unit in the last decimal of a published number (``73.6`` -> 0.05).

    >>> half_unit(73.6), half_unit("61.00")
    (0.05, 0.005)
    """
    d = decimals_of(value) if decimals is None else int(decimals)
    return 0.5 * 10.0 ** -d


def counts_for(value: float, n: int, tolerance: float, *, signed: bool = False) -> list[int]:
    """Whole counts k (0..n, or −n..n when ``signed``) with |100·k/n − value| ≤ tolerance.

    >>> counts_for(12.0, 500, 0.05), counts_for(-4.0, 500, 0.1, signed=True)
    ([60], [-20])
    """
    slack = tolerance + _SLACK * max(1.0, abs(value))
    low = math.ceil((value - slack) * n / 100)
    high = math.floor((value + slack) * n / 100)
    floor = -n if signed else 0
    return [k for k in range(max(low, floor), min(high, n) + 1) if abs(100 * k / n - value) <= slack]


def _check_n(n: object) -> int:
    if isinstance(n, bool) or not float(n).is_integer() or int(n) < 1:
        raise VerdictError(f"granularity: n must be a positive whole number of questions, got {n!r}.")
    return int(n)


def granularity(
    value: float | str,
    n: int | Iterable[int],
    *,
    decimals: int | None = None,
    difference: bool = False,
) -> pd.DataFrame:
    """Which whole counts out of ``n`` a published percentage (or difference) allows (SPEC §7.7).

    Parameters
    ----------
    value
        The published number in points, e.g. ``73.6`` (a string keeps its trailing zeros:
        ``"61.00"``).
    n
        The denominator (questions), or several to try (``range(1, 695)``: which denominators
        could give it).
    decimals
        Decimals it was printed with (default: as written, :func:`decimals_of`).
    difference
        ``value`` is the difference of two percentages of the same ``n`` questions, each rounded
        (``"+1.0 points"``): the counts are net counts m = benefit − tax in −n..n, and the
        tolerance is two half-units, one for each rounded percentage.

    Returns
    -------
    pandas.DataFrame
        One row per denominator: ``value, decimals, n, counts`` (the whole counts allowed, a
        tuple), ``n_counts``, ``consistent`` (at least one), ``closest`` (the achievable value
        100·k/n nearest to ``value``) and ``tolerance``.

    Raises
    ------
    VerdictError
        ``value`` is not a finite number, or a denominator is not a positive whole number.
    ValueError
        ``value`` is text that is not a number.

    Notes
    -----
    k is allowed when |100·k/n − value| ≤ t, t = ½·10^(−d) (two of them for a difference), plus
    a floating-point slack of 10⁻⁹. Inclusive at both ends, so a value that could have been
    rounded either way (half-up or half-even) is allowed.

    References
    ----------
    SPEC §7.7 (audit from published summaries: granularity); Memory Tax review (the published
    taxes and nets checked in ``data/example/summaries_memory_tax.yaml``).
    Brown, N. J. L. & Heathers, J. A. J. (2017). The GRIM test: a simple technique detects
    numerous anomalies in the reporting of results in psychology. Social Psychological and
    Personality Science 8(4), 363–369.

    Examples
    --------
    SimpleMem's tax of 12.0% on LongMemEval-s's 500 questions is 60 questions, and nothing else;
    its net of −20 makes its benefit 40:

    >>> granularity("12.0", 500)[["n", "counts", "consistent"]]
         n counts  consistent
    0  500  (60,)        True
    >>> granularity("46.95", [100, 164])[["n", "counts", "consistent"]]
         n counts  consistent
    0  100     ()       False
    1  164  (77,)        True
    >>> granularity("1.0", 934, difference=True)["counts"].iloc[0]
    (9, 10)
    """
    d = decimals_of(value) if decimals is None else int(decimals)
    number = float(value)
    if not math.isfinite(number):
        raise VerdictError(f"granularity: {value!r} is not a finite number.")
    tolerance = (2 if difference else 1) * half_unit(number, d)
    rows = []
    for size in ([n] if isinstance(n, (int, np.integer)) else list(n)):
        size = _check_n(size)
        counts = counts_for(number, size, tolerance, signed=difference)
        grid = np.arange(-size if difference else 0, size + 1)
        closest = float(100 * grid[np.argmin(np.abs(100 * grid / size - number))] / size)
        rows.append({"value": number, "decimals": d, "n": size, "counts": tuple(counts), "n_counts": len(counts),
                     "consistent": bool(counts), "closest": closest, "tolerance": tolerance})
    out = pd.DataFrame(rows, columns=["value", "decimals", "n", "counts", "n_counts", "consistent", "closest",
                                      "tolerance"])
    out.attrs = {"function": "granularity", "unit": "points",
                 "notes": [Note(f"{value!s} as a {'difference of two percentages' if difference else 'percentage'} "
                                f"of n questions, printed with {d} decimals: |100·k/n − value| ≤ {tolerance:g}",
                                code="granularity-rule")]}
    return as_result(out, declare(points=("value", "closest", "tolerance")))
