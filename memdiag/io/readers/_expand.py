"""Input arguments -> files: folders, glob patterns and files, without following a symlink loop.

A folder gives every file below it whose content suffix (under any compression suffix) memdiag
reads: ``.json``, ``.jsonl``, ``.ndjson``, ``.csv``, ``.tsv``, ``.parquet``, ``.pq``. Every other
file below it is skipped and named in a note. A glob pattern (``runs/*/eval.json``,
``runs/**/*.jsonl``) is matched by walking the folders below its fixed part. Both walks visit each
real folder once (by device and inode), so a symlink that points back up the tree is skipped, with
a note, instead of being followed forever.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from fnmatch import fnmatchcase
from pathlib import Path

from memdiag.core.notes import Note
from memdiag.errors import VerdictError, listing
from memdiag.io.opening import logical_suffix

#: Content suffixes a folder input reads.
READABLE: frozenset[str] = frozenset({".json", ".jsonl", ".ndjson", ".csv", ".tsv", ".parquet", ".pq"})
MAGIC_CHARS = "*?["


def _walk(root: Path, notes: list[str], depth: int | None = None) -> list[Path]:
    """Every file below ``root`` (at most ``depth`` folders down), each real folder visited once
    (symlink loops skipped)."""
    seen: set[tuple[int, int]] = set()
    files: list[Path] = []
    loops: list[str] = []
    stack = [(root, 0)]
    while stack:
        folder, level = stack.pop()
        try:
            info = folder.stat()
        except OSError:
            continue
        if (info.st_dev, info.st_ino) in seen:
            loops.append(str(folder))
            continue
        seen.add((info.st_dev, info.st_ino))
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as error:
            notes.append(Note(f"{folder}: cannot be listed ({error.strerror}); skipped", code="folder-unreadable",
                              severity="caution"))
            continue
        subfolders = []
        for entry in entries:
            path = Path(entry.path)
            try:
                if entry.is_dir():
                    if depth is None or level < depth:
                        subfolders.append((path, level + 1))
                elif entry.is_file():
                    files.append(path)
            except OSError:
                continue
        stack.extend(reversed(subfolders))
    if loops:
        notes.append(Note(f"{root}: {len(loops)} folder link{'s' if len(loops) != 1 else ''} back into folders "
                          f"already read skipped (a symlink loop or a second link): {listing(loops, 3)}",
                          code="folder-loop-skipped"))
    return sorted(files)


def _collapse(pattern: tuple[str, ...]) -> tuple[str, ...]:
    """``**/**`` matches what one ``**`` matches: runs of ``**`` become one."""
    return tuple(p for k, p in enumerate(pattern) if not (p == "**" and k and pattern[k - 1] == "**"))


def _match(parts: tuple[str, ...], pattern: tuple[str, ...]) -> bool:
    """Glob semantics on path parts: ``**`` matches any number of folders; hidden names need a
    pattern part starting with a dot.

    Dynamic programming over (part, pattern part) positions, each pair decided once: linear in
    ``len(parts) * len(pattern)`` however many ``**`` the pattern has (a naive recursion is
    exponential in them).

    >>> _match(("a", "b", "c.json"), ("**", "*.json")), _match(("a", ".h", "c.json"), ("**", "*.json"))
    (True, False)
    """
    pattern = _collapse(pattern)
    n, m = len(parts), len(pattern)
    # ok[j] after the loop over i (backwards): does parts[i:] match pattern[j:]
    ok = [False] * m + [True]  # i == n: only an all-"**" tail matches nothing
    for j in range(m - 1, -1, -1):
        ok[j] = pattern[j] == "**" and ok[j + 1]
    for i in range(n - 1, -1, -1):
        hidden = parts[i].startswith(".")
        row = [False] * (m + 1)
        for j in range(m - 1, -1, -1):
            head = pattern[j]
            if head == "**":
                row[j] = row[j + 1] or (not hidden and ok[j])
            elif not (hidden and not head.startswith(".")):
                row[j] = ok[j + 1] and fnmatchcase(parts[i], head)
        ok = row
    return ok[0]


def _glob(pattern: str, notes: list[str]) -> list[Path]:
    parts = Path(pattern).parts
    fixed = 0
    while fixed < len(parts) - 1 and not any(ch in parts[fixed] for ch in MAGIC_CHARS):
        fixed += 1
    root = Path(*parts[:fixed]) if fixed else Path(".")
    rest = parts[fixed:]
    if not root.is_dir():
        return []
    depth = None if "**" in rest else len(rest) - 1
    return [path for path in _walk(root, notes, depth) if _match(path.relative_to(root).parts, rest)]


def expand(items: str | Path | Iterable[str | Path], base: Path | None = None) -> tuple[list[Path], list[str]]:
    """Files of the inputs, in order, and the notes on what was skipped.

    Parameters
    ----------
    items
        Files, folders and glob patterns.
    base
        Folder that relative inputs are relative to (a recipe's folder); default the working folder.

    Raises
    ------
    VerdictError
        An input that does not exist, a pattern that matches no file, or a folder with no
        readable file.
    """
    items = [items] if isinstance(items, (str, Path)) else list(items)
    out: list[Path] = []
    notes: list[str] = []
    for item in items:
        text = str(item)
        path = Path(text) if base is None or Path(text).is_absolute() else base / text
        if any(ch in text for ch in MAGIC_CHARS) and not path.exists():
            matches = [m for m in _glob(str(path), notes) if m.is_file()]
            if not matches:
                raise VerdictError(f"{path}: no file matches this pattern. Check the path.")
            out.extend(matches)
        elif path.is_dir():
            below = _walk(path, notes)
            files = [p for p in below if logical_suffix(p) in READABLE]
            skipped = [str(p.relative_to(path)) for p in below if logical_suffix(p) not in READABLE]
            if not files:
                raise VerdictError(f"{path}: folder holds no .json/.jsonl/.csv/.tsv/.parquet file (compressed "
                                   "or not)" + (f"; it holds {listing(skipped, 3)}" if skipped else "") + ".")
            if skipped:
                notes.append(Note(f"{path}: {len(skipped)} file{'s' if len(skipped) != 1 else ''} skipped (not "
                                  f".json/.jsonl/.csv/.tsv/.parquet, compressed or not): {listing(skipped)}",
                                  code="files-skipped"))
            out.extend(files)
        elif path.is_file():
            out.append(path)
        else:
            raise VerdictError(f"{path}: no such file. Check the path.")
    return out, notes
