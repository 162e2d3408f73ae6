"""The benchmark × model settings of ``across``, ``plot overview`` and ``plot critical``: one
verdict frame per ``--setting NAME=PATH``, or the FILES split by their benchmark and model
columns, each then prepared by :func:`memdiag.cli.choices.prepared_settings`."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

import memdiag as md
from memdiag.cli.files import check_outputs
from memdiag.cli.reading import key_values, read, remember_labels
from memdiag.cli.usage import UsageError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


def command_name(args: argparse.Namespace) -> str:
    """The words after ``memdiag`` of the command ``args`` belong to (``plot overview``)."""
    return f"plot {args.figure}" if args.command == "plot" else args.command


def setting_verdicts(args: argparse.Namespace) -> pd.DataFrame | dict:
    """The verdicts: ``{(benchmark, model): verdicts}`` from ``--setting NAME=PATH``, else the FILES
    (split into settings by their benchmark and model columns)."""
    import pandas as pd

    if not args.setting:
        return read(args)
    if args.files or args.recipe:
        raise UsageError(f"{command_name(args)} reads either --setting NAME=PATH (one per setting) or FILES, not "
                         "both")
    reading = [o for o, v in (("--layout", args.layout != "auto"), ("--system", args.system), ("--field", args.field),
                              ("--records", args.records), ("--judge", args.judge), ("--join", args.join),
                              ("--dataset", args.dataset), ("--allow-outside", args.allow_outside)) if v]
    if reading:  # each --setting is read in its own layout; these options describe FILES
        raise UsageError(f"{reading[0]} describes how FILES are read; --setting NAME=PATH reads each setting as "
                         "it is (give FILES with benchmark and model columns instead)")
    settings = {}
    for name, path in key_values(args.setting, "--setting").items():
        benchmark, _, model = name.partition("/")
        settings[(benchmark, model)] = md.read_verdicts(path)
    for frame in settings.values():
        check_outputs(args, frame)
    remember_labels(args, pd.concat([f[["system"]] for f in settings.values()], ignore_index=True))
    return settings

