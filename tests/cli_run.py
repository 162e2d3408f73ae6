"""``run(*argv)``: the memdiag CLI run in this process, as the tests that read its exit status and
output call it (arguments passed through ``str``, stdout and stderr captured)."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

from memdiag.cli import main


def run(*argv: object) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of ``memdiag ARGV...``."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()
