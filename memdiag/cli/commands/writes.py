"""``memdiag writes``: the write-action (mutation) audit of a memory decision log."""

from __future__ import annotations

import argparse

import memdiag as md
from memdiag.cli import groups
from memdiag.cli.emit import emit


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The decision log and output."""
    p.add_argument("log", metavar="LOG", help="decision log (CSV or JSONL): cluster, decision, persisted, old_text, new_text")
    groups.add_output(p, alias=False)  # no verdicts of several systems to name


def run(args: argparse.Namespace) -> int:
    """:func:`memdiag.write_audit` of :func:`memdiag.read_write_log`."""
    emit(md.write_audit(md.read_write_log(args.log)), args)
    return 0
