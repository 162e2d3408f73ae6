"""A command's data choices and options, each built once from its option groups: the
:class:`memdiag.Prepared` its diagnostics work on, the :class:`memdiag.Options` they resample and
infer with, and α.

An option the command does not offer keeps the default of :func:`memdiag.prepare` or
:class:`memdiag.Options`; a handler passes what it fixes itself (a figure's systems, a metric) as
keywords.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

import memdiag as md
from memdiag.cli.usage import UsageError
from memdiag.core.checks import alpha_of

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: The keywords of :func:`memdiag.prepare` the command line sets, each from the option of that name.
DATA_CHOICES: tuple[str, ...] = ("scheme", "missing", "verdict_missing", "design", "judges", "label_missing",
                                 "cluster_missing", "threshold")
#: :class:`memdiag.Options` field -> the command-line option that sets it (``--resamples`` -> B).
OPTION_ARGS: tuple[tuple[str, str], ...] = (("design", "design"), ("inference", "inference"),
                                            ("n_resamples", "resamples"), ("seed", "seed"),
                                            ("confidence_level", "ci"), ("correction", "correction"))


def data_choices(args: argparse.Namespace) -> dict[str, Any]:
    """The data choices the command's options give (those it does not offer, or not given, left out)."""
    return {name: getattr(args, name) for name in DATA_CHOICES if getattr(args, name, None) is not None}


def prepared(args: argparse.Namespace, data: pd.DataFrame, **fixed: Any) -> md.Prepared:
    """``data`` prepared once with the command's data choices and ``fixed`` (:func:`memdiag.prepare`):
    what every diagnostic of the command then works on."""
    return md.prepare(data, **{**data_choices(args), **fixed})


def prepared_settings(args: argparse.Namespace, data: pd.DataFrame | dict, metric: str = "accuracy") -> dict:
    """Every benchmark × model setting of ``data`` prepared once under its benchmark's scheme with the
    command's data choices (:func:`memdiag.prepare_settings`): what ``overview`` and
    ``setting_differences`` take."""
    return md.prepare_settings(data, metric=metric, **data_choices(args))


def options(args: argparse.Namespace, **fixed: Any) -> md.Options:
    """The command's :class:`memdiag.Options`, built once from its shared option groups (an option the
    command does not offer keeps its default); ``fixed`` overrides."""
    given = {field: getattr(args, name) for field, name in OPTION_ARGS if getattr(args, name, None) is not None}
    return md.Options(**{**given, **fixed})


def alpha_options(args: argparse.Namespace, opts: md.Options) -> md.Options:
    """``opts`` at the confidence level 1 − ``--alpha`` when ``--alpha`` is given (the functions derive
    α from the options); ``--alpha`` and a ``--ci`` that disagree are a usage error."""
    if args.alpha is None:
        return opts
    level = alpha_of(args.alpha)  # 1 − α, as the decimals read
    if getattr(args, "ci", None) is not None and args.ci != level:
        raise UsageError(f"--alpha {args.alpha:g} and --ci {args.ci:g} disagree: α is 1 − the confidence level; "
                         "give one of them")
    return opts.replace(confidence_level=level)


def pair_reference(args: argparse.Namespace, command: str) -> str | None:
    """The ``reference`` keyword of ``--pairs``/``--reference``: ``--reference`` under ``--pairs
    reference`` (required there), None (every pair) under ``--pairs all``, whatever ``--reference`` says."""
    if args.pairs != "reference":
        return None
    if not args.reference:
        raise UsageError(f"{command} --pairs reference needs --reference NAME (or --pairs all)")
    return args.reference


def alpha(args: argparse.Namespace, opts: md.Options) -> float:
    """``--alpha``, else α = 1 − the confidence level of ``opts``."""
    return args.alpha if args.alpha is not None else alpha_of(opts.confidence_level)
