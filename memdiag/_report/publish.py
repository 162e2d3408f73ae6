"""Publishing a report folder atomically: refuse to replace anything but an earlier report, write
everything into a staging folder next to the target, and rename it into place only when complete;
with the progress bar on stderr (ARCHITECTURE: ``report/``).

A failed run never leaves a folder that looks complete: on any error the staging folder is removed
and the target is untouched.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from tqdm import tqdm

from memdiag._report.provenance import _analysis_json
from memdiag._report.render import _html, _markdown, _save_figures, _write_tables, _write_text
from memdiag._report.sections import Analysis

#: Writing steps after the analysis (for the progress bar).
WRITE_STEPS: tuple[str, ...] = ("tables", "figures", "report")


def _write_report(analysis: Analysis, folder: Path, bar: tqdm) -> None:
    bar.set_postfix_str("tables")
    _write_tables(analysis, folder)
    bar.update()
    bar.set_postfix_str("figures")
    _save_figures(analysis, folder / "figures")
    bar.update()
    bar.set_postfix_str("report")
    _write_text(folder / "analysis.json", _analysis_json(analysis))
    _write_text(folder / "report.md", _markdown(analysis))
    _write_text(folder / "report.html", _html(analysis, folder / "figures"))
    bar.update()


def _check_target(out: Path) -> None:
    """Refuse to replace anything but an empty folder or an earlier report (it holds analysis.json)."""
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / "analysis.json").is_file())):
        raise FileExistsError(17, "exists and is not a memdiag report folder (no analysis.json); "
                                  "choose another --out", str(out))


def _publish(analysis: Analysis, out: Path, bar: tqdm) -> Path:
    """Write the report into a temporary sibling of ``out`` and rename it to ``out`` at the end.

    ``out`` has passed :func:`_check_target`; on any failure the temporary folder is removed and
    ``out`` is untouched.
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent))
    try:
        _write_report(analysis, staging, bar)
        staging.chmod(0o755)
        if out.exists():
            shutil.rmtree(out)
        os.replace(staging, out)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return out


def _bar(steps: int, enabled: bool | None) -> tqdm:
    """A progress bar on stderr, shown when stderr is a terminal (or when ``enabled``)."""
    show = sys.stderr.isatty() if enabled is None else enabled
    return tqdm(total=steps, desc="memdiag report", unit="step", file=sys.stderr, disable=not show,
                leave=False)
