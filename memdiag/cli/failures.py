"""What a failed command says: every error as one line and an exit status (2 for what a user can
fix, 3 for a bug, whose traceback is saved to a file)."""

from __future__ import annotations

import os
import tempfile
import traceback

#: Exit status of an internal error (a bug in memdiag; its traceback is saved to a file).
INTERNAL_ERROR = 3


def explain(error: Exception) -> tuple[str, int]:
    """The one-line message of an error and its exit status: 2 for what a user can fix, 3 (with
    the traceback saved to a file) for anything else."""
    if isinstance(error, OSError):
        where = f"{error.filename}: " if error.filename else ""
        hint = "" if isinstance(error, FileExistsError) else ". Check the path and permissions"
        return f"{where}{error.strerror or error}{hint}.", 2
    if isinstance(error, UnicodeDecodeError):
        return (f"cannot read an input as UTF-8 text ({error.reason} at byte {error.start}). Save it as "
                "UTF-8.", 2)
    if isinstance(error, RecursionError):
        return "an input is nested too deeply to read (thousands of levels of JSON or YAML).", 2
    if isinstance(error, ValueError) or type(error).__module__.split(".")[0] == "yaml":
        return str(error) or type(error).__name__, 2
    try:
        handle, path = tempfile.mkstemp(prefix="memdiag-traceback-", suffix=".txt")
        with os.fdopen(handle, "w", encoding="utf-8") as fh:
            fh.write("".join(traceback.format_exception(error)))
    except (OSError, FileNotFoundError):  # no writable temporary folder: still one line, no traceback
        return (f"{type(error).__name__}: {str(error)[:300]}. This is a bug in memdiag; its traceback could "
                "not be saved (no writable temporary folder: set TMPDIR to one) (please report it).",
                INTERNAL_ERROR)
    return (f"{type(error).__name__}: {str(error)[:300]}. This is a bug in memdiag; the traceback is "
            f"saved in {path} (please report it).", INTERNAL_ERROR)
