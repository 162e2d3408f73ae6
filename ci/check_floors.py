"""Check that the floors venv tests the declared floors: pins == floors == installed versions.

Run by .ci/run in the venv built from ``ci/oldest-constraints.txt``, before the fast tests. Every
runtime dependency in ``pyproject.toml`` must have a ``>=`` floor, the constraints file must pin
exactly that version (``==``, and nothing else), and the installed distribution must be that
version. A floor raised in one file only, or a resolver that picked a newer version, then fails
the step instead of silently testing something else. Exits 1 with one line per problem.

Usage: python ci/check_floors.py
"""

from __future__ import annotations

import re
import sys
import tomllib
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"
CONSTRAINTS = ROOT / "ci" / "oldest-constraints.txt"
REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(.*?)\s*$")


def canonical(name: str) -> str:
    """PEP 503 name: lower case, runs of ``-_.`` as one ``-`` (``PyYAML`` -> ``pyyaml``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def release(text: str) -> tuple[int, ...]:
    """A plain release version as numbers without trailing zeros (``1.26`` == ``1.26.0``)."""
    numbers = [int(part) for part in text.split(".")]
    while len(numbers) > 1 and numbers[-1] == 0:
        numbers.pop()
    return tuple(numbers)


def floors(pyproject: Path) -> dict[str, tuple[str, str]]:
    """Canonical name -> (name as declared, its ``>=`` version or "") per runtime dependency."""
    declared = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["dependencies"]
    out = {}
    for requirement in declared:
        name, specifiers = REQUIREMENT.match(requirement).groups()
        lower = [s.strip()[2:].strip() for s in specifiers.split(",") if s.strip().startswith(">=")]
        out[canonical(name)] = (name, lower[0] if lower else "")
    return out


def pins(constraints: Path) -> dict[str, str]:
    """Canonical name -> ``==`` version per line of the constraints file (comments skipped)."""
    out = {}
    for line in constraints.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, pinned = line.split("==")
            out[canonical(name)] = pinned.strip()
    return out


def installed_version(name: str) -> str | None:
    """The installed version of distribution ``name``; None when it is not installed."""
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def problems(pyproject: Path, constraints: Path,
             installed: Callable[[str], str | None] = installed_version) -> list[str]:
    """Everything that makes the venv test other versions than the declared floors ([]: nothing).

    ``installed`` maps a distribution name to its installed version (None when absent).
    """
    declared, pinned = floors(pyproject), pins(constraints)
    found = [f"{name} is pinned in {constraints.name} but is not a runtime dependency; drop the pin."
             for name in sorted(pinned.keys() - declared.keys())]
    for key, (name, floor) in declared.items():
        if not floor:
            found.append(f"{name} has no '>=' floor in pyproject.toml; declare the oldest version it works with.")
        elif key not in pinned:
            found.append(f"{name} has no pin in {constraints.name}; add {name}=={floor}.")
        elif release(pinned[key]) != release(floor):
            found.append(f"{name} is pinned at {pinned[key]} but its floor is {floor}; make them equal.")
        elif (have := installed(name)) is None:
            found.append(f"{name} is not installed; install memdiag with -c {constraints.name}.")
        elif release(have) != release(floor):
            found.append(f"{name} {have} is installed but its floor is {floor}; install with -c {constraints.name}.")
    return found


def main() -> int:
    found = problems(PYPROJECT, CONSTRAINTS)
    for line in found:
        print(f"check_floors: {line}", file=sys.stderr)
    if found:
        return 1
    print("check_floors: testing the declared floors: "
          + ", ".join(f"{name}=={installed_version(name)}" for name, _ in floors(PYPROJECT).values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
