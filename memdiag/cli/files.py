"""The files a command reads and writes, and the check made before any analysis: no output that
exists (without ``--force``) and none that is one of the inputs (:mod:`memdiag.io.outputs`)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: Options that name an input file.
INPUT_OPTIONS = ("files", "claims", "log", "scheme", "systems_table", "write_log", "recipe", "summaries",
                 "ingestion_log", "before", "after", "filtered", "dataset", "gold_errors", "wrong_answers")


def inputs(args: argparse.Namespace, df: pd.DataFrame | None = None) -> list[str]:
    """Every input file of the command: the files named, and the verdict files read."""
    named = []
    for option in INPUT_OPTIONS:
        value = getattr(args, option, None)
        named += value if isinstance(value, list) else [value] if isinstance(value, str) else []
    named += [spec.split(",")[0] for spec in getattr(args, "join", None) or ()]  # side files of --join
    files = [v for v in named if os.path.isfile(v)]
    if df is not None and "source_file" in df:
        files += [str(f) for f in df["source_file"].dropna().unique()]
    return files


def outputs(args: argparse.Namespace) -> list[Path]:
    """The files the command will write: -o of a table; the three figure files of ``plot -o``; the
    files of ``flows --replay DIR``."""
    from memdiag.analyses.replay import FILES

    replay = [Path(args.replay) / name for name in FILES] if getattr(args, "replay", None) else []
    if not getattr(args, "output", None):
        return replay
    path = Path(args.output)
    if args.command != "plot":
        return [path, *replay]
    stem = path.with_suffix("") if path.suffix.lower() in {".pdf", ".svg", ".png"} else path
    return [stem.parent / f"{stem.name}.{suffix}" for suffix in ("pdf", "svg", "png")]


def check_outputs(args: argparse.Namespace, df: pd.DataFrame | None = None) -> None:
    """Refuse before any analysis: an output that exists (without --force) or is an input."""
    from memdiag.io.outputs import check_outputs as refuse

    refuse(outputs(args), inputs(args, df), force=getattr(args, "force", False))
