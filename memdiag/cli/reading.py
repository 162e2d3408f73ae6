"""Reading a command's verdicts: the input options turned into one :func:`memdiag.read_verdicts`
call, the scheme the rows imply, and the short names the command's tables show."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

import memdiag as md
from memdiag.cli.files import check_outputs
from memdiag.cli.usage import UsageError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


def key_values(items: Sequence[str] | None, option: str) -> dict[str, str]:
    """``NAME=VALUE`` items of a repeatable option as a mapping."""
    out: dict[str, str] = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            raise UsageError(f"{option} {item!r}: expected NAME=VALUE (e.g. {option} query_id=question_id)")
        out[key.strip()] = value.strip()
    return out


def named(items: Sequence[str] | None, option: str) -> str | dict[str, str] | None:
    """``--system``/``--judge`` values: one NAME for every file, or PATH=NAME per file."""
    items = items or []
    per_file = [s for s in items if "=" in s]
    plain = [s for s in items if "=" not in s]
    if len(plain) > 1:
        raise UsageError(f"{option} NAME given more than once: use {option} PATH=NAME to name files apart")
    if per_file and plain:
        raise UsageError(f"use either {option} NAME (all files) or {option} PATH=NAME (per file), not both")
    return key_values(per_file, option) if per_file else (plain[0] if plain else None)


def join_spec(text: str) -> dict:
    """``--join FILE[,records=PATH][,system=NAME],COLUMN=FIELD...`` as a recipe join entry."""
    path, *pairs = [part.strip() for part in text.split(",")]
    if not path or "=" in path:
        raise UsageError(f"--join {text!r}: start with the side file, e.g. --join coverage.json,sufficient=covered")
    options = key_values(pairs, "--join")
    spec: dict = {"files": [path], "fields": {}}
    for key, value in options.items():
        if key in ("records", "system"):
            spec[key] = value
        else:
            spec["fields"][key] = value
    return spec


def _joins(args: argparse.Namespace) -> list[dict] | None:
    return [join_spec(j) for j in args.join or ()] or None


def read(args: argparse.Namespace) -> pd.DataFrame:
    """The verdicts the input options name, read once; the scheme they imply set on ``args``, the
    outputs checked against them, and the short names of their systems remembered."""
    if not args.files and not args.recipe:
        raise UsageError("give verdict files, folders or glob patterns, or --recipe FILE")
    if args.allow_outside and not args.recipe:  # an offered option has an effect, or says why not
        raise UsageError("--allow-outside lets a recipe read files outside its folder; give --recipe FILE "
                         "(files named on the command line are always read)")
    if args.recipe:
        clashes = [o for o, v in (("--layout", args.layout != "auto"), ("--system", args.system),
                                  ("--field", args.field), ("--records", args.records), ("--judge", args.judge)) if v]
        if clashes:
            raise UsageError(f"--recipe describes how to read the files; drop {clashes[0]} (put it in the recipe)")
    how = read_options(args)
    if args.recipe:
        del how["files"]  # the paths, given first
    else:
        how["system"] = named(args.system, "--system")  # a report records the system of each file instead
    df = md.read_verdicts(args.files or None, **how)
    if args.command != "validate" and not getattr(args, "quiet", False):  # validate's table lists them
        for note in df.attrs.get("read_notes", ()):
            print(f"memdiag {args.command}: note: {note}", file=sys.stderr)
    imply_scheme(args, df)
    check_outputs(args, df)
    remember_labels(args, df)
    return df


def read_options(args: argparse.Namespace) -> dict:
    """The keywords of :func:`memdiag.read_verdicts` the input options give (recorded by a report for
    ``--rerun``)."""
    dataset = {"dataset": args.dataset} if getattr(args, "dataset", None) else {}
    if args.recipe:
        return {"recipe": str(args.recipe), "files": args.files or None, "join": _joins(args), **dataset,
                **({"allow_outside": True} if args.allow_outside else {})}
    return {"format": args.layout, "fields": key_values(args.field, "--field") or None,
            "records": args.records, "judge": named(args.judge, "--judge"), "join": _joins(args), **dataset}


def imply_scheme(args: argparse.Namespace, df: pd.DataFrame) -> None:
    """``--scheme`` not given: the scheme the rows imply (LoCoMo rows: ``locomo``), said in a note
    on stderr (:func:`memdiag.panel.schemes._default.implied_scheme`)."""
    from memdiag.panel.schemes._default import implied_scheme

    if not hasattr(args, "scheme") or args.scheme is not None:
        return
    name, note = implied_scheme(df)
    if name is not None:
        args.scheme = name
        if not getattr(args, "quiet", False):
            print(f"memdiag {args.command}: note: {note}", file=sys.stderr)


def remember_labels(args: argparse.Namespace, df: pd.DataFrame) -> None:
    """Keep on ``args`` the short names the tables of a command that prints tables show for the
    systems of ``df`` (:func:`labels`), for :func:`memdiag.cli.emit.emit`."""
    if hasattr(args, "format"):
        args.table_labels = labels(args, df)


def labels(args: argparse.Namespace, df: pd.DataFrame) -> dict[str, str] | None:
    """The short names figures and tables for people show: the recipe's labels, the systems
    table's ``label`` column, then ``--alias`` (:mod:`memdiag.tables.aliases`)."""
    from memdiag.tables.aliases import alias_options, aliases

    table = None
    if getattr(args, "systems_table", None):  # table commands without a systems table
        from memdiag.io.systems_table import read_systems_table

        table = read_systems_table(args.systems_table)
    given = alias_options(key_values(args.alias, "--alias"), df)
    return aliases(df, table, given) or None
