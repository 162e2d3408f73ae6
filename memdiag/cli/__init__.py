"""The ``memdiag`` command: each subcommand parses its options and calls one public function.

This package is the one boundary between the user and memdiag. Each subcommand is a module of
:mod:`memdiag.cli.commands` with its parser beside its handler; only the one named is imported.
Every option is checked by an argparse ``type=`` function (:mod:`memdiag.cli.values`) before
anything runs, and :func:`main` turns every outcome into an exit status and at most one line on
stderr, never a traceback:

====  =====================================================================================
0     done
1     the analysis ran but a check failed (``audit``: a claim is not supported)
2     bad input, option or output path: one line naming the file, record, field or option
      and what to do
3     an internal error (a bug): one line with the path of the saved traceback
130   interrupted (Ctrl-C); 143 terminated (SIGTERM); 129 hung up (SIGHUP): nothing is left
      half-written
====  =====================================================================================

Outputs never replace a file that exists (unless ``--force``) nor one of the inputs
(:mod:`memdiag.io.outputs`; report folders: :mod:`memdiag.reporting.publish`).
"""

from __future__ import annotations

import signal
import sys
import warnings
from collections.abc import Sequence

from memdiag.cli.commands import build_parser, named_command
from memdiag.cli.usage import ParseError
from memdiag.core.escape import one_line

__all__ = ["build_parser", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``memdiag`` command; returns the exit status (see the module docstring)."""
    command = "memdiag"
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        try:
            args = build_parser(only=named_command(argv)).parse_args(argv)
        except SystemExit as done:  # --help, --version
            return done.code if isinstance(done.code, int) else 0
        command = f"memdiag {args.command}"

        def show(message, category, filename, lineno, file=None, line=None) -> None:  # noqa: ANN001
            print(f"{command}: warning: {one_line(message)}", file=sys.stderr)

        from memdiag.cli.files import check_outputs
        from memdiag.io.outputs import recording
        from memdiag.io.signals import interruptible

        # SIGTERM and SIGHUP stop every command as Ctrl-C does: temporary files removed, exit 128 + N
        with warnings.catch_warnings(), recording(), interruptible():
            warnings.showwarning = show
            check_outputs(args)
            return args.run(args)
    except KeyboardInterrupt as stop:
        signum = getattr(stop, "signum", signal.SIGINT)
        print(f"{command}: interrupted ({signal.Signals(signum).name}); nothing was left half-written",
              file=sys.stderr)
        return 128 + signum
    except Exception as error:  # noqa: BLE001 - the one place every error becomes one line
        from memdiag.cli.failures import explain

        message, code = explain(error)
        prog = error.prog if isinstance(error, ParseError) else command
        print(f"{prog}: {'error' if code == 2 else 'internal error'}: {one_line(message)}", file=sys.stderr)
        return code
