"""Shared fixtures: where the real released outputs live, and a skip when they are absent.

The real files are never copied into the project; they are read from ``../shared/data/real``
(relative to the repository root), or from ``$MEMDIAG_REAL_DATA`` when set.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
REAL_DATA = Path(os.environ.get("MEMDIAG_REAL_DATA", REPO.parent / "shared" / "data" / "real"))


@pytest.fixture(scope="session")
def real_data() -> Path:
    """The folder of real released per-query outputs; skips the test when it is absent."""
    if not REAL_DATA.is_dir():
        pytest.skip(f"real released outputs not found at {REAL_DATA} (needs ../shared/data/real)")
    return REAL_DATA


@pytest.fixture()
def no_gc_collect(monkeypatch):
    """statsmodels' ``multipletests`` runs ``gc.collect()`` on every Holm call (about 0.25 s each late
    in a full run, with the suite's objects alive): switched off for the test, never in memdiag."""
    import gc

    monkeypatch.setattr(gc, "collect", lambda *args: 0)
