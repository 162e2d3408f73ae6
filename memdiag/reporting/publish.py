"""Publishing a report folder safely: refuse to replace anything memdiag did not write, write
everything into a staging folder next to the target, and swap it into place only when complete;
with the progress bar on stderr (ARCHITECTURE: ``report/``).

The guarantees (README, "What memdiag guarantees"):

- **Nothing foreign is deleted.** Every report holds ``manifest.json``: the SHA-256 of every file
  memdiag wrote into it. An existing ``--out`` is replaced only when it is empty or when every
  file in it is listed there with its hash; otherwise :func:`check_target` names the first file
  memdiag did not write (or that changed since) and nothing happens, unless ``force``. A
  read-only folder is refused even then: it is never deleted and recreated. A symbolic link is
  resolved once, before the analysis, and the report goes where it points.
- **At every instant the old or the new report is complete at ``--out``.** The new report is
  written into ``.<name>.*.partial`` beside ``--out``; then the old folder is renamed aside,
  the new one renamed in, and the old one deleted (:func:`_swap`). SIGINT, SIGTERM and SIGHUP
  are held back during those renames, so an interrupt cannot fall between them; should the
  process be killed there (SIGKILL, a power cut), the old report is intact in
  ``.<name>.<pid>.*.old`` and the next run for ``--out`` renames it back (:func:`recover`).
- **No staging folder is left behind.** While the report is written, SIGINT, SIGTERM and SIGHUP
  raise :class:`Interrupted` (a KeyboardInterrupt), so the staging folder is removed on the way
  out; the previous handlers are restored afterwards. A staging folder a killed run left is
  removed by the next run for the same ``--out``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import sys
import tempfile
import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path

from tqdm import tqdm

from memdiag import __version__
from memdiag.io.outputs import identity, recorded
from memdiag.io.signals import Interrupted, interruptible  # noqa: F401 - Interrupted: raised by report()
from memdiag.reporting.context import Analysis
from memdiag.reporting.provenance import _analysis_json
from memdiag.reporting.render import (
    _html,
    _markdown,
    _save_figures,
    _write_tables,
    _write_text,
)

#: Writing steps after the analysis (for the progress bar).
WRITE_STEPS: tuple[str, ...] = ("tables", "figures", "report")
#: The file listing every file memdiag wrote into a report folder, with its SHA-256.
MANIFEST = "manifest.json"
# --------------------------------------------------------------------------------------------
# the manifest
# --------------------------------------------------------------------------------------------
def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _manifest(folder: Path) -> str:
    """manifest.json of ``folder``: the SHA-256 of every file in it, by path relative to it."""
    files = {p.relative_to(folder).as_posix(): _sha256(p) for p in sorted(folder.rglob("*")) if p.is_file()}
    return json.dumps({"memdiag_version": __version__, "files": files}, indent=2)


def _listed(out: Path) -> dict[str, str] | str:
    """The files manifest.json lists (path -> SHA-256), or why there is no usable manifest."""
    path = out / MANIFEST
    if path.is_symlink() or not path.is_file():
        return (f"it holds no {MANIFEST}, so memdiag cannot tell the files it wrote from yours "
                "(a report from before memdiag 0.2, or not a report)")
    try:
        files = json.loads(path.read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError, KeyError, TypeError):
        files = None
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        return f"its {MANIFEST} is not one memdiag wrote"
    return files


def _entries(out: Path) -> Iterator[Path]:
    """Every entry below ``out`` (files, folders, links), in sorted order, never following a link."""
    for root, dirs, files in os.walk(out, followlinks=False):
        dirs.sort()
        for name in sorted(dirs + files):
            yield Path(root) / name


def _foreign(out: Path) -> str | None:
    """Why the non-empty folder ``out`` is not a memdiag report (naming the first file memdiag did
    not write, or that changed since), or None when every file in it is listed in its manifest."""
    files = _listed(out)
    if isinstance(files, str):
        first = next(_entries(out)).relative_to(out).as_posix()
        return f"{files}; first entry: {first}"
    folders = {parent.as_posix() for name in files for parent in Path(name).parents}
    for entry in _entries(out):
        name = entry.relative_to(out).as_posix()
        if entry.is_symlink():
            return f"{name} is a link memdiag did not make"
        if entry.is_dir():
            if name not in folders:
                return f"folder {name} was not written by memdiag"
        elif name == MANIFEST:
            continue
        elif not entry.is_file() or name not in files:
            return f"{name} was not written by memdiag"
        elif _sha256(entry) != files[name]:
            return f"{name} changed since memdiag wrote it"
    return None


# --------------------------------------------------------------------------------------------
# the target folder
# --------------------------------------------------------------------------------------------
def _refuse(out: Path, why: str) -> FileExistsError:
    return FileExistsError(17, why, str(out))


def resolve_target(out: str | Path, force: bool = False) -> Path:
    """The report folder ``out``, a symbolic link resolved, checked by :func:`check_target`.

    Called before any analysis runs, so that a folder that will be refused costs nothing.
    """
    path = Path(out)
    if path.is_symlink() and not path.exists():
        raise _refuse(path, f"is a symbolic link to {os.readlink(path)}, which does not exist; "
                            "give a real folder as --out")
    try:
        target = path.resolve()
    except (RuntimeError, OSError) as error:  # a symbolic-link loop
        raise _refuse(path, f"cannot be resolved ({error}); a symbolic-link loop? Give a real folder as --out") from None
    with interruptible() as signals, signals.held():
        for line in recover(target):
            warnings.warn(line, RuntimeWarning, stacklevel=3)
    check_target(target, force)
    return target


def check_target(out: Path, force: bool = False) -> None:
    """Refuse ``out`` unless it is absent, empty, or a report memdiag wrote (every file in its
    manifest with its hash); ``force`` allows any writable folder. A file, or a folder without
    write permission, is always refused.

    Raises
    ------
    FileExistsError
        Saying why, naming the first foreign file.
    """
    if not out.exists():
        return
    if not out.is_dir():
        raise _refuse(out, "exists and is a file, not a report folder; choose another --out")
    if not out.stat().st_mode & stat.S_IWUSR or not os.access(out, os.W_OK | os.X_OK):
        raise _refuse(out, "is a read-only folder; memdiag does not replace it (make it writable, "
                           "or choose another --out)")
    if force or not any(out.iterdir()):
        return
    why = _foreign(out)
    if why is not None:
        raise _refuse(out, f"exists and is not a memdiag report folder: {why}. memdiag replaces only "
                           "its own reports; choose another --out, or pass --force to replace it")


def check_inputs(out: Path, inputs: Iterable[str | Path]) -> None:
    """Refuse a report folder that holds one of the inputs (replacing it would delete the input).

    Raises
    ------
    FileExistsError
        Naming the input.
    """
    target = identity(out)
    for item in [*inputs, *sorted(recorded())]:
        path = Path(item).resolve()
        inside = path == out or out in path.parents or (
            target is not None and any(identity(folder) == target for folder in (path, *path.parents)))
        if inside:
            raise _refuse(out, f"holds the input {item}; replacing the folder would delete it. "
                               "Choose another --out")


# --------------------------------------------------------------------------------------------
# writing and swapping
# --------------------------------------------------------------------------------------------
def _write_report(analysis: Analysis, folder: Path, bar: tqdm) -> None:
    bar.set_postfix_str("tables")
    _write_tables(analysis, folder)
    bar.update()
    bar.set_postfix_str("figures")
    _save_figures(analysis, folder / "figures")
    bar.update()
    bar.set_postfix_str("report")
    _write_text(folder / "analysis.json", _analysis_json(analysis, folder))
    _write_text(folder / "report.md", _markdown(analysis))
    _write_text(folder / "report.html", _html(analysis, folder / "figures"))
    _write_text(folder / MANIFEST, _manifest(folder))
    bar.update()


def _prefix(out: Path) -> str:
    """The name start of the staging and set-aside folders of ``out``: ``.<name>.<pid>.`` (the
    process id tells a folder of a live run from one a killed run left, :func:`recover`)."""
    return f".{out.name}.{os.getpid()}."


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def _leftovers(out: Path) -> list[tuple[Path, str]]:
    """The staging (``partial``) and set-aside (``old``) folders of ``out`` left by runs that are
    no longer alive, as ``(folder, kind)``."""
    found = []
    head = f".{out.name}."
    try:
        entries = sorted(out.parent.iterdir())
    except OSError:
        return []
    for entry in entries:
        if not entry.name.startswith(head) or entry.is_symlink() or not entry.is_dir():
            continue
        parts = entry.name[len(head):].split(".")
        if len(parts) == 3 and parts[0].isdigit() and parts[2] in ("partial", "old") and not _alive(int(parts[0])):
            found.append((entry, parts[2]))
    return found


def recover(out: Path) -> list[str]:
    """Clean up after a run that was killed (SIGKILL, a power cut) while it wrote the report
    ``out``: remove its staging folder; if it was killed between the two renames (``out`` gone,
    the old report set aside), rename the old report back; remove a set-aside old report that
    was already replaced (only when its manifest lists every file in it). Returns what was done,
    one line each (the command prints them as warnings)."""
    done = []
    leftovers = _leftovers(out)
    for folder, kind in leftovers:
        if kind == "partial":
            shutil.rmtree(folder, ignore_errors=True)
            done.append(f"removed {folder.name}, the unfinished report of a run that was stopped")
    olds = sorted((f for f, kind in leftovers if kind == "old"), key=lambda f: f.stat().st_mtime)
    if olds and not out.exists():
        os.replace(olds[-1], out)
        done.append(f"restored the report {out} from {olds.pop().name}: a run was stopped between its renames")
    for folder in olds:
        if _foreign(folder) is None:
            shutil.rmtree(folder, ignore_errors=True)
            done.append(f"removed {folder.name}, a replaced report a stopped run had set aside")
        else:
            done.append(f"left {folder.name} beside {out.name}: a report set aside by a stopped run that holds "
                        "files memdiag did not write; look at it and remove it")
    return done


def _swap(staging: Path, out: Path) -> None:
    """Put the complete ``staging`` folder at ``out``: rename the old folder aside, rename the new
    one in, delete the old one (an empty ``out`` is replaced by one rename)."""
    if not out.exists() or not any(out.iterdir()):
        os.replace(staging, out)
        return
    aside = Path(tempfile.mkdtemp(prefix=_prefix(out), suffix=".old", dir=out.parent))
    os.replace(out, aside)
    try:
        os.replace(staging, out)
    except BaseException:
        os.replace(aside, out)
        raise
    shutil.rmtree(aside, ignore_errors=True)


def _publish(analysis: Analysis, out: Path, bar: tqdm, force: bool = False) -> Path:
    """Write the report into a staging folder beside ``out`` and swap it in (see the module notes).

    ``out`` has passed :func:`resolve_target`; it is checked again just before the swap, so a
    file saved into it while the analysis ran is not lost. On any failure or interrupt the
    staging folder is removed and ``out`` is untouched.
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    with interruptible() as signals:
        with signals.held():
            staging = Path(tempfile.mkdtemp(prefix=_prefix(out), suffix=".partial", dir=out.parent))
        try:
            _write_report(analysis, staging, bar)
            staging.chmod(stat.S_IMODE(out.stat().st_mode) if out.is_dir() else 0o755)
            with signals.held():
                check_target(out, force)
                check_inputs(out, ())  # every file the run read, side files of a recipe included
                _swap(staging, out)
        finally:
            with signals.held():
                shutil.rmtree(staging, ignore_errors=True)
    return out


def _bar(steps: int, enabled: bool | None) -> tqdm:
    """A progress bar on stderr, shown when stderr is a terminal (or when ``enabled``)."""
    show = sys.stderr.isatty() if enabled is None else enabled
    return tqdm(total=steps, desc="memdiag report", unit="step", file=sys.stderr, disable=not show,
                leave=False)
