"""Output paths a command may write: never an existing file unless forced, never one of its inputs.

One rule for every command that writes files (``-o`` of the tables, ``plot -o``, ``simulate
--write``, ``demo --figures``); report folders have their own, stricter rule
(:mod:`memdiag._report.publish`). Paths are compared resolved, so ``./a.csv``, ``dir/../a.csv``
and a symbolic link to ``a.csv`` are the same file.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path


def check_outputs(paths: Iterable[str | Path], inputs: Iterable[str | Path] = (), force: bool = False) -> None:
    """Refuse to write ``paths`` when one of them is an input, or exists and ``force`` is not set.

    Raises
    ------
    FileExistsError
        Naming the file and what to do (exit status 2 in the CLI).

    Examples
    --------
    >>> check_outputs(["no-such-output.csv"], inputs=["verdicts.csv"])
    """
    sources = {Path(item).resolve(): item for item in inputs}
    for path in map(Path, paths):
        resolved = path.resolve()
        if resolved in sources:
            raise FileExistsError(17, f"is one of the inputs ({sources[resolved]}); memdiag never writes "
                                      "over its input. Choose another output", str(path))
        if (path.exists() or path.is_symlink()) and not force:
            raise FileExistsError(17, "exists; memdiag does not overwrite it. Choose another output, or "
                                      "pass --force to replace it", str(path))
        if force and path.is_dir():
            raise FileExistsError(21, "is a folder; give a file name", str(path))
