"""Output paths a command may write: never an existing file unless forced, never one of its inputs.

One rule for every command that writes files (``-o`` of the tables, ``plot -o``, ``simulate
--write``, ``demo --figures``, ``inspect --write``, ``flows --replay``); report folders have their
own, stricter rule (:mod:`memdiag.reporting.publish`). Paths are compared resolved *and* by device
and inode, so ``./a.csv``, ``dir/../a.csv``, a symbolic link to ``a.csv`` and a hard link to it
are the same file.

Every file a reader opens is noted (:func:`note_input`) in the recordings that are active
(:func:`recording`: the command line and :func:`memdiag.report` open one), so the side files a
recipe names (its ``sources`` and ``join`` files), the recipe itself, schemes, claims, logs and
systems tables are inputs too, not only the files named on the command line.

:func:`write_file` writes a file whole or not at all: into a temporary file beside it, then
renamed over it (a full disk or an interrupt leaves the old file, never a truncated one).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

#: The process's umask (a written file gets the mode a plain open() would give it).
_UMASK = os.umask(0o022)
os.umask(_UMASK)
#: The active recordings of input files (a stack: nested runs all see every file).
_RECORDINGS: list[set[str]] = []


def note_input(path: str | Path) -> None:
    """Record that ``path`` was read (in every active :func:`recording`)."""
    for files in _RECORDINGS:
        files.add(str(path))


@contextmanager
def recording() -> Iterator[set[str]]:
    """Collect the path of every file read inside the block (:func:`note_input`)."""
    files: set[str] = set()
    _RECORDINGS.append(files)
    try:
        yield files
    finally:
        _RECORDINGS.remove(files)


def recorded() -> set[str]:
    """Every file read so far in the active recordings."""
    return set().union(*_RECORDINGS) if _RECORDINGS else set()


def _resolved(path: Path) -> Path:
    """``path`` resolved; a symbolic-link loop is an OSError naming it (exit 2, not a bug)."""
    try:
        return path.resolve()
    except (RuntimeError, OSError) as error:
        raise OSError(40, f"cannot be resolved ({error}); a symbolic-link loop? Choose another path",
                      str(path)) from None


def identity(path: Path) -> tuple[int, int] | None:
    """The device and inode of the file ``path`` points to, or None when there is none."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return info.st_dev, info.st_ino


def same_file_as(path: Path, inputs: Iterable[str | Path]) -> str | None:
    """The input that ``path`` is (by resolved path, or by device and inode), or None."""
    resolved, ident = _resolved(path), identity(path)
    for item in inputs:
        other = Path(item)
        if _resolved(other) == resolved or (ident is not None and identity(other) == ident):
            return str(item)
    return None


def write_file(path: str | Path, content: str | bytes) -> Path:
    """Write ``content`` to ``path`` whole or not at all: a temporary file beside it, flushed to
    disk, then renamed over it. Any failure (a full disk, an interrupt) removes the temporary
    file and leaves ``path`` as it was.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> write_file(folder / "a.txt", "x\\n").read_text()
    'x\\n'
    """
    path = Path(path)
    data = content.encode("utf-8") if isinstance(content, str) else content
    try:
        _write_whole(path, data)
    except OSError as error:  # name the output (ENOSPC names no file; others the temporary file)
        raise OSError(error.errno, error.strerror or str(error), str(path)) from None
    return path


def _write_whole(path: Path, data: bytes) -> None:
    if path.exists() and not path.is_file():  # a device or pipe (-o /dev/stdout --force): no rename
        with open(path, "wb") as fh:
            fh.write(data)
        return
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or Path("."))
    try:
        with os.fdopen(handle, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(name, 0o666 & ~_UMASK)
        os.replace(name, path)
    except BaseException:
        try:
            os.unlink(name)
        except OSError:
            pass
        raise


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
    sources = [*inputs, *sorted(recorded())]
    for path in map(Path, paths):
        same = same_file_as(path, sources)
        if same is not None:
            raise FileExistsError(17, f"is one of the inputs ({same}); memdiag never writes over its input "
                                      "(compared by path and by device and inode: hard links and other "
                                      "spellings too). Choose another output", str(path))
        if (path.exists() or path.is_symlink()) and not force:
            raise FileExistsError(17, "exists; memdiag does not overwrite it. Choose another output, or "
                                      "pass --force to replace it", str(path))
        if force and path.is_dir():
            raise FileExistsError(21, "is a folder; give a file name", str(path))
