"""Long work shows a progress bar on stderr when stderr is a terminal, and never in captured output."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: A real md.report whose sections are stand-ins that compute nothing (each omitted after a short
#: pause, so the bar draws): the bar, its wiring and the writing steps are the report's own, without
#: the cost of a whole analysis (issue 19: the progress test need not run a whole report).
SCRIPT = """
import time
import memdiag as md
import memdiag.reporting as report_module
from memdiag.reporting.sections import Section

def stand_in(name):
    def step(ctx):
        time.sleep(0.15)
        return Section(name, name, "a stand-in section", omitted="not computed by the progress test")
    step.__name__ = f"_{{name}}_section"
    return step

report_module.SECTIONS = tuple(stand_in(name) for name in ("data", "scores", "flows", "compare"))
df = md.simulate(n_queries=60, systems=("raw-rag", "mem0"), n_clusters=6, sufficiency=False, costs=False, seed=1)
md.report(df, "raw-rag", {out!r}, options={{"n_resamples": 200}})
"""


def _run(out: Path, terminal: bool) -> str:
    """Run a small report in a fresh interpreter; return what reached stderr."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "MPLBACKEND": "Agg"}
    command = [sys.executable, "-c", SCRIPT.format(out=str(out))]
    if not terminal:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return done.stderr
    import fcntl  # POSIX only, like the test
    import pty
    import termios

    primary, secondary = pty.openpty()
    # a new pseudo-terminal is 0 columns wide (tqdm would draw an empty bar): 24 rows x 100 columns
    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    with subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=secondary) as process:
        os.close(secondary)
        chunks = []
        while True:
            try:
                chunk = os.read(primary, 4096)
            except OSError:  # the terminal closed: the process is done
                break
            if not chunk:
                break
            chunks.append(chunk)
        assert process.wait(timeout=300) == 0
    os.close(primary)
    return b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_report_shows_a_progress_bar_on_a_terminal_only(tmp_path):
    shown = _run(tmp_path / "terminal", terminal=True)
    assert "%|" in shown and "report" in shown  # tqdm's bar, with the step names
    captured = _run(tmp_path / "captured", terminal=False)
    assert "%|" not in captured and "\r" not in captured
