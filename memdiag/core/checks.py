"""Validation of the options every public function shares (one message per option, one place).

Each check returns the value in its canonical type or raises :class:`~memdiag.errors.VerdictError`
(a ValueError) saying what was given and what is allowed; the CLI turns it into one line and
exit status 2.
"""

from __future__ import annotations

import math
import numbers
import os
import warnings
from decimal import Decimal

from memdiag.errors import VerdictError, caller_stacklevel
from memdiag.errors import shown as _shown

#: The resampling designs of SPEC §4 (what each needs: :mod:`memdiag.engine.designs`).
KINDS: tuple[str, ...] = ("iid", "stratified", "cluster", "stratified-cluster")
#: How intervals and tests are made (SPEC §4.1): the rule, or one method by name.
INFERENCE: tuple[str, ...] = ("auto", "percentile", "jackknife", "cr2")
#: The multiplicity corrections offered everywhere (statsmodels' names).
CORRECTIONS: tuple[str, ...] = ("holm", "bonferroni", "fdr_bh")
#: How each correction is named in notes and figures ("none": no adjustment).
CORRECTION_NAMES: dict[str, str] = {"holm": "Holm", "bonferroni": "Bonferroni",
                                    "fdr_bh": "Benjamini–Hochberg", "none": "unadjusted"}
#: The missing-query policies of SPEC §1.
MISSING: tuple[str, ...] = ("error", "drop", "wrong")
#: The missing-verdict policies of SPEC §1.
VERDICT_MISSING: tuple[str, ...] = ("as-wrong", "exclude")
#: What a diagnostic does with queries whose label (``sufficient``, ...) is missing (SPEC §3).
LABEL_MISSING: tuple[str, ...] = ("exclude", "error")
#: The output formats of every table (:func:`memdiag.tables.render`).
FORMATS: tuple[str, ...] = ("table", "md", "csv", "json", "latex", "html")
#: Fewer bootstrap replicates than this give intervals and p-values too coarse to read: a
#: percentile interval of B replicates moves in steps of 1/B and a bootstrap p-value cannot be
#: below 1/(B+1). The CLI refuses fewer; the Python API warns.
MIN_RESAMPLES = 100
#: The most replicates the CLI, ``--rerun`` and the Python API accept (memory and time grow
#: linearly with B); the environment variable ``MEMDIAG_MAX_RESAMPLES`` raises it.
MAX_RESAMPLES = 10_000_000


def max_resamples() -> int:
    """The largest B accepted: ``MEMDIAG_MAX_RESAMPLES`` when set to a whole number, else
    :data:`MAX_RESAMPLES`.

    >>> max_resamples() >= 100
    True
    """
    value = os.environ.get("MEMDIAG_MAX_RESAMPLES", "").strip().replace("_", "")
    return int(value) if value.isdigit() else MAX_RESAMPLES


def _real(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    return float(value)


def confidence_level(value: object) -> float:
    """A confidence level strictly between 0 and 1.

    >>> confidence_level(0.9)
    0.9
    """
    level = _real(value)
    if level is None or not 0.0 < level < 1.0:
        raise VerdictError(f"confidence_level must be a number strictly between 0 and 1 (e.g. 0.95), "
                           f"got {_shown(value)}.")
    return level


def _probability(value: object, name: str, example: str) -> float:
    level = _real(value)
    if level is None or not 0.0 < level < 1.0:
        raise VerdictError(f"{name} must be strictly between 0 and 1 (e.g. {example}), got {_shown(value)}.")
    return level


def alpha(value: object) -> float:
    """A significance level α strictly between 0 and 1.

    >>> alpha(0.05)
    0.05
    """
    return _probability(value, "alpha", "0.05")


def alpha_of(level: object) -> float:
    """α = 1 − ``level``, the significance level that goes with a confidence level, as the
    decimals read (1 − 0.95 is 0.05, not the binary 0.050000000000000044).

    >>> alpha_of(0.95), alpha_of(0.9)
    (0.05, 0.1)
    """
    return float(Decimal(1) - Decimal(repr(confidence_level(level))))


def alpha_text(value: float) -> str:
    """α as a text states it: two decimals (``0.05``, ``0.10``), more only when two would change it.

    >>> [alpha_text(a) for a in (0.05, 0.1, 0.01, 0.001, 0.0025, 0.2)]
    ['0.05', '0.10', '0.01', '0.001', '0.0025', '0.20']
    """
    text = f"{value:.2f}"
    return text if float(text) == value else f"{value:g}"


def power(value: object) -> float:
    """A power (the probability of detecting a given difference) strictly between 0 and 1.

    >>> power(0.8)
    0.8
    """
    return _probability(value, "power", "0.8")


def at_least_zero(value: object, name: str, unit: str) -> float:
    """A finite number of ``unit`` that is 0 or more (an evidence-token budget, a difference in points).

    >>> at_least_zero(5000, "budget", "evidence tokens")
    5000.0
    """
    number = _real(value)
    if number is None or not math.isfinite(number) or number < 0:
        raise VerdictError(f"{name} must be 0 or more {unit}, got {_shown(value)}.")
    return number


def n_resamples(value: object, allow_zero: bool = False) -> int:
    """A number of bootstrap replicates B (a positive whole number; 0 where ``allow_zero``).

    Fewer than :data:`MIN_RESAMPLES` (but at least 1) is allowed with a RuntimeWarning; more than
    :func:`max_resamples` is an error saying how to raise the limit.

    >>> n_resamples(2000)
    2000
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < (0 if allow_zero else 1):
        least = "0 (no interval) or more" if allow_zero else "a positive whole number"
        raise VerdictError(f"n_resamples must be {least} (the specification uses 20000), got {_shown(value)}.")
    if value > max_resamples():
        raise VerdictError(f"n_resamples must be at most {max_resamples():,} (the replicate limit), got "
                           f"{int(value):,}: time and memory grow with B, and 20000 is plenty for 95% intervals. "
                           "Set the environment variable MEMDIAG_MAX_RESAMPLES to raise the limit.")
    if 0 < value < MIN_RESAMPLES:
        warnings.warn(f"n_resamples={int(value)} is too few for a bootstrap: intervals and p-values move in "
                      f"steps of 1/{int(value)}; use at least {MIN_RESAMPLES} (the specification uses 20000).",
                      RuntimeWarning, stacklevel=caller_stacklevel())
    return int(value)


def seed(value: object) -> int:
    """A seed: a whole number in [0, 2**64) (what :func:`memdiag.engine.resampling.run_seed` records).

    >>> seed(7)
    7
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= value < 2**64:
        raise VerdictError(f"seed must be a whole number in [0, 2**64), got {_shown(value)}.")
    return int(value)


def threshold(value: object) -> float | None:
    """A correctness threshold in [0, 1), or None for the default rule.

    >>> threshold(None) is None, threshold(0.5)
    (True, 0.5)
    """
    if value is None:
        return None
    level = _real(value)
    if level is None or not math.isfinite(level) or not 0.0 <= level < 1.0:
        raise VerdictError(f"threshold must be a number in [0, 1) (correct = score > threshold), got "
                           f"{_shown(value)}.")
    return level


def choice(value: object, allowed: tuple[str, ...], name: str) -> str:
    """One of ``allowed``.

    >>> choice("holm", CORRECTIONS, "correction")
    'holm'
    """
    if value not in allowed:
        raise VerdictError(f"unknown {name} {_shown(value)}; use one of {', '.join(allowed)}.")
    return str(value)
