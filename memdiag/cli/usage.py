"""Command-line mistakes: the usage error every handler raises and the parser that raises it (exit 2)."""

from __future__ import annotations

import argparse


class UsageError(ValueError):
    """A command-line option that cannot be used as given (exit 2)."""


class ParseError(UsageError):
    """An option argparse rejected; ``prog`` is the (sub)command it belongs to."""

    def __init__(self, prog: str, message: str) -> None:
        super().__init__(message)
        self.prog = prog


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (raised, for :func:`memdiag.cli.main` to print)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise ParseError(self.prog, f"{message} (see {self.prog} --help)")
