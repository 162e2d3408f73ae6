"""The notebooks run top to bottom on a fresh kernel (working directory notebooks/), with no error."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
NAMES = ("01_quickstart.ipynb", "02_real_locomo.ipynb", "03_auditing_claims.ipynb", "04_across_settings.ipynb")
CELL_TIMEOUT = 120  # seconds per cell


def execute(name: str) -> nbformat.NotebookNode:
    """Run a notebook on a new kernel in notebooks/; a failing cell raises CellExecutionError."""
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    return nb


def printed(nb: nbformat.NotebookNode) -> str:
    return "".join(out.get("text", "") for cell in nb.cells if cell.cell_type == "code"
                   for out in cell.outputs if out.output_type == "stream")


def test_the_notebooks_are_there_with_outputs_cleared():
    assert sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")) == sorted(NAMES)
    for name in NAMES:
        nb = nbformat.read(NOTEBOOKS / name, as_version=4)
        nbformat.validate(nb)
        code = [cell for cell in nb.cells if cell.cell_type == "code"]
        assert code and all(not c.outputs and c.execution_count is None for c in code), name


def test_quickstart_runs_and_draws_the_venn_grid():
    nb = execute("01_quickstart.ipynb")
    images = [out for cell in nb.cells if cell.cell_type == "code" for out in cell.outputs
              if "image/png" in out.get("data", {})]
    assert len(images) == 1


def test_auditing_claims_runs_and_finds_mem0s_convention():
    out = printed(execute("03_auditing_claims.ipynb"))
    assert "consistent under the mem0 convention" in out and "the locomo-paper convention gives 62.14" in out
    assert "b = 40, c = 60 of 500: exact McNemar p = 0.0569" in out and "3.25 points" in out


def test_real_locomo_notebook_uses_the_real_data_when_present(real_data):
    nb = execute("02_real_locomo.ipynb")
    assert "11 systems x 1540 questions" in printed(nb)


def test_real_locomo_notebook_skips_politely_without_the_data(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMDIAG_REAL_DATA", str(tmp_path / "absent"))
    out = printed(execute("02_real_locomo.ipynb"))
    assert "The real LoCoMo releases are not at" in out and "Skipping the analysis." in out


def test_across_settings_notebook_pools_the_trpc_settings(real_data):
    out = printed(execute("04_across_settings.ipynb"))
    assert "agentic - auto pooled over 6 settings: -7.0 points" in out
    assert "auto beats agentic in at least 4 of 6" in out and "Nemenyi CD = 2.708" in out


def test_across_settings_notebook_skips_politely_without_the_data(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMDIAG_REAL_DATA", str(tmp_path / "absent"))
    out = printed(execute("04_across_settings.ipynb"))
    assert "The trpc-agent-go release is not at" in out and "Skipping the analysis." in out
