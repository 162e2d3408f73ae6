"""docs/architecture.md lists every module of the package (issue 19, item 7)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MODULES = sorted(p.relative_to(REPO / "memdiag").as_posix() for p in (REPO / "memdiag").rglob("*.py")
                 if "__pycache__" not in p.parts)


@pytest.mark.parametrize("module", MODULES)
def test_every_module_is_listed_in_the_architecture(module):
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert f"| `{module}` |" in text, f"memdiag/{module} is not in docs/architecture.md: run python docs/modules.py"


def test_the_module_table_is_todays():
    """Each row says the first sentence of its module's docstring as it is now."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, str(REPO / "docs" / "modules.py"), "--check"], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
