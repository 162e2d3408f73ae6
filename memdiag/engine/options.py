"""The resampling and inference options of every diagnostic, set once (SPEC §4, §4.1, §5.3).

:class:`Options` is a small frozen record — design, inference, n_resamples, seed,
confidence_level, correction — validated when it is made. Every diagnostic takes
``options=`` (an :class:`Options`, a mapping of its fields, or None for the defaults) beside
its own arguments, and the data choices (scheme, systems, missing policies, judges, labels)
live on :class:`~memdiag.Prepared` (:func:`memdiag.prepare`). So one analysis states its
choices once:

>>> import memdiag as md
>>> opts = md.Options(n_resamples=2000, seed=7)
>>> opts
Options(design=None, inference='auto', n_resamples=2000, seed=7, confidence_level=0.95, correction='holm')
>>> opts.replace(confidence_level=0.9).confidence_level
0.9

The flat keywords of 0.2 (``md.compare(df, n_resamples=2000, scheme="locomo")``), deprecated in
0.3, were removed in 0.4: a mapping or :class:`Options` names them once.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memdiag.core import checks as _checks
from memdiag.errors import VerdictError

#: The resampling and inference keywords the diagnostics took before 0.3 (now :class:`Options`).
OPTION_KEYWORDS: tuple[str, ...] = ("design", "inference", "n_resamples", "seed", "confidence_level", "correction")
#: The data-choice keywords the diagnostics took before 0.3 (now :func:`memdiag.prepare`).
DATA_KEYWORDS: tuple[str, ...] = ("scheme", "systems", "missing", "verdict_missing", "judges", "label_missing",
                                  "cluster_missing")



@dataclass(frozen=True)
class Options:
    """How a diagnostic resamples and infers: one frozen record, validated once.

    Attributes
    ----------
    design
        ``iid``, ``stratified``, ``cluster`` or ``stratified-cluster``; None (default) keeps the
        design :func:`memdiag.prepare` chose from the scheme and the data (SPEC §4).
    inference
        ``auto`` (the SPEC §4.1 rule by design and number of clusters), ``percentile`` (the
        paper's percentile bootstrap and sign test), ``jackknife`` or ``cr2`` (cluster designs);
        ``bca`` (the BCa bootstrap interval, iid design) for :func:`memdiag.bootstrap` only.
    n_resamples
        Bootstrap replicates or wild draws B (default 20,000, the specification's). 0 asks for
        no resampling where a diagnostic can do without (point estimates only); fewer than 100
        warn; more than ``MEMDIAG_MAX_RESAMPLES`` (default 10,000,000) is refused.
    seed
        A whole number in [0, 2**64), or a :class:`numpy.random.Generator`, from which one
        64-bit draw is made here — so every diagnostic given these options uses, and records,
        the same int, and ``Options(seed=<that int>)`` repeats the run.
    confidence_level
        The interval level, strictly between 0 and 1 (default 0.95).
    correction
        The multiplicity adjustment over a family of tests: ``holm`` (default), ``bonferroni``
        or ``fdr_bh`` (SPEC §5.3).

    Raises
    ------
    VerdictError
        An unknown design, inference or correction, or a value out of range (the message says
        which and what is allowed).

    References
    ----------
    SPEC §4 (designs), §4.1 (the inference rule), §5.3 (multiplicity); Raw-RAG paper C.6.

    Examples
    --------
    >>> Options(design="iid", n_resamples=500).design
    'iid'
    >>> Options(correction="none")
    Traceback (most recent call last):
    ...
    memdiag.errors.VerdictError: unknown correction 'none'; use one of holm, bonferroni, fdr_bh.
    """

    design: str | None = None
    inference: str = "auto"
    n_resamples: int = 20_000
    seed: int = 0
    confidence_level: float = 0.95
    correction: str = "holm"

    def __post_init__(self) -> None:
        if self.design is not None:
            _checks.choice(self.design, _checks.KINDS, "design")
        _checks.choice(self.inference, (*_checks.INFERENCE, "bca"), "inference")
        resamples = _checks.n_resamples(self.n_resamples, allow_zero=True)
        seed = self.seed
        np = sys.modules.get("numpy")  # a Generator means numpy is loaded; `memdiag --help` does not load it
        if np is not None and isinstance(seed, np.random.Generator):
            seed = int(seed.integers(0, 2**64, dtype=np.uint64))
        seed = _checks.seed(seed)
        object.__setattr__(self, "n_resamples", resamples)
        object.__setattr__(self, "seed", seed)
        object.__setattr__(self, "confidence_level", _checks.confidence_level(self.confidence_level))
        _checks.choice(self.correction, _checks.CORRECTIONS, "correction")

    def replace(self, **changes: Any) -> Options:
        """These options with ``changes`` (validated again).

        >>> Options().replace(n_resamples=1000).n_resamples
        1000
        """
        unknown = sorted(set(changes) - set(OPTION_KEYWORDS))
        if unknown:
            raise VerdictError(f"Options has no field {', '.join(map(repr, unknown))}; its fields are "
                               f"{', '.join(OPTION_KEYWORDS)}.")
        return dataclasses.replace(self, **changes)

    def resampled(self, what: str) -> int:
        """:attr:`n_resamples`, which ``what`` needs to be at least 1 (an error saying so when 0)."""
        if self.n_resamples == 0:
            raise VerdictError(f"{what} resamples: n_resamples must be at least 1 (the specification uses 20000), "
                               "got 0.")
        return self.n_resamples


#: Point estimates only: the options of a diagnostic that needs no interval (``score`` inside others).
NO_RESAMPLING = Options(n_resamples=0)


def as_options(options: Options | Mapping[str, Any] | None) -> Options:
    """``options`` as :class:`Options`: the defaults for None, the fields of a mapping.

    >>> as_options({"n_resamples": 300}).n_resamples
    300
    """
    if options is None:
        return Options()
    if isinstance(options, Options):
        return options
    if isinstance(options, Mapping):
        unknown = sorted(set(options) - set(OPTION_KEYWORDS))
        if unknown:
            hint = (" Data choices (scheme, systems, missing policies, judges) go to md.prepare(df, ...)."
                    if set(unknown) & set(DATA_KEYWORDS) else "")
            raise VerdictError(f"options has no field {', '.join(map(repr, unknown))}; its fields are "
                               f"{', '.join(OPTION_KEYWORDS)}.{hint}")
        return Options(**options)
    raise TypeError(f"options must be md.Options, a mapping of its fields, or None; got {type(options).__name__}.")
