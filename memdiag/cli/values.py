"""Option values: argparse ``type=`` functions that read an option's text and check its value with
the validator the Python API uses (:mod:`memdiag.core.checks`).

So ``memdiag flows --seed S`` and ``md.Options(seed=S)`` accept and refuse the same values with the
same message; argparse turns the refusal into the usage line and exit status 2. Reading the text
is the command's own part: a text that is no number is handed to the validator as it is (which
refuses it with the API's message), and ``nan`` or ``inf`` are refused as not finite. One rule is
the command's alone: fewer than :data:`~memdiag.core.checks.MIN_RESAMPLES` bootstrap replicates
are refused here, where the API warns.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import TypeVar

from memdiag.core import checks
from memdiag.errors import VerdictError

T = TypeVar("T")


def _checked(check: Callable[..., T], value: object, *args: object) -> T:
    """``check(value, *args)``, its refusal raised as argparse's (the message without its full stop)."""
    try:
        return check(value, *args)
    except VerdictError as error:
        raise argparse.ArgumentTypeError(str(error).removesuffix(".")) from None


def _whole(text: str) -> int | str:
    """``text`` as a whole number, or as it is for the validator to refuse."""
    try:
        return int(text)
    except ValueError:
        return text


def _real(text: str, name: str) -> float | str:
    """``text`` as a finite number, or as it is for the validator to refuse; ``nan`` and ``inf`` are
    refused here (a validator reads them as numbers out of range)."""
    try:
        value = float(text)
    except ValueError:
        return text
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{name} must be a finite number, got {text!r}")
    return value


def number(name: str) -> Callable[[str], float]:
    """The ``type=`` of an option that takes any finite number (the diagnostic checks its range)."""

    def read(text: str) -> float:
        value = _real(text, name)
        if isinstance(value, str):
            raise argparse.ArgumentTypeError(f"{name} must be a number, got {text!r}")
        return value

    return read


def _resamples(text: str, allow_zero: bool) -> int:
    value = _whole(text)
    if isinstance(value, int) and value < checks.MIN_RESAMPLES and not (allow_zero and value == 0):
        raise argparse.ArgumentTypeError(
            f"B must be at least {checks.MIN_RESAMPLES}{' (or 0 for no interval)' if allow_zero else ''}, got "
            f"{value}: intervals and p-values from B replicates move in steps of 1/B (the specification uses 20000)")
    return _checked(checks.n_resamples, value, allow_zero)


def resamples(text: str) -> int:
    """``--resamples B``: at least :data:`~memdiag.core.checks.MIN_RESAMPLES`, at most the replicate limit."""
    return _resamples(text, allow_zero=False)


def resamples_or_zero(text: str) -> int:
    """``--resamples B`` where 0 asks for point estimates only."""
    return _resamples(text, allow_zero=True)


def seed(text: str) -> int:
    """``--seed``: :func:`memdiag.core.checks.seed`."""
    return _checked(checks.seed, _whole(text))


def level(text: str) -> float:
    """``--ci``: :func:`memdiag.core.checks.confidence_level`."""
    return _checked(checks.confidence_level, _real(text, "confidence_level"))


def alpha(text: str) -> float:
    """``--alpha``: :func:`memdiag.core.checks.alpha`."""
    return _checked(checks.alpha, _real(text, "alpha"))


def power(text: str) -> float:
    """``--power``: :func:`memdiag.core.checks.power`."""
    return _checked(checks.power, _real(text, "power"))


def threshold(text: str) -> float:
    """``--threshold``: :func:`memdiag.core.checks.threshold`."""
    return _checked(checks.threshold, _real(text, "threshold"))


def delta(text: str) -> float:
    """``--delta``: a difference of 0 points or more."""
    return _checked(checks.at_least_zero, _real(text, "delta"), "delta", "points")


def budget(text: str) -> float:
    """``--budget``: 0 evidence tokens or more."""
    return _checked(checks.at_least_zero, _real(text, "budget"), "budget", "evidence tokens")


def column_list(text: str) -> list[str]:
    """``--columns COL[,COL...]``: the names, in order (``paper``: the compact paper table; ``all``:
    every column)."""
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"{text!r}: expected column names separated by commas, e.g. "
                                         "system,diff,p_adj (or paper, or all)")
    return names
