"""ci/check_floors.py: the floors venv of .ci/run must test exactly the declared floors."""

from __future__ import annotations

import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("check_floors", REPO / "ci" / "check_floors.py")
check_floors = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_floors)


def test_the_constraints_file_pins_exactly_the_declared_floors():
    pinned = check_floors.pins(check_floors.CONSTRAINTS)
    # installed := pinned, so only the agreement of pyproject.toml and the constraints is checked
    assert check_floors.problems(check_floors.PYPROJECT, check_floors.CONSTRAINTS,
                                 lambda name: pinned[check_floors.canonical(name)]) == []
    assert "seaborn" not in pinned and "seaborn" not in check_floors.floors(check_floors.PYPROJECT)


def test_every_way_of_testing_other_versions_is_named(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[project]\ndependencies = ["numpy>=1.26", "pandas>=2.1", "tqdm", '
                         '"scipy>=1.11.1", "PyYAML>=6.0", "tabulate>=0.10,<0.11", "Jinja2>=3.1.2"]\n')
    constraints = tmp_path / "oldest-constraints.txt"
    constraints.write_text("# floors\nnumpy==1.26.0\npandas==2.2.0  # raised here only\nseaborn==0.13.0\n"
                           "pyyaml==6\ntabulate==0.10.0\njinja2==3.1.2\n")
    installed = {"numpy": "2.0.0", "PyYAML": "6.0", "tabulate": "0.10.0"}.get
    assert check_floors.problems(pyproject, constraints, installed) == [
        "seaborn is pinned in oldest-constraints.txt but is not a runtime dependency; drop the pin.",
        "numpy 2.0.0 is installed but its floor is 1.26; install with -c oldest-constraints.txt.",
        "pandas is pinned at 2.2.0 but its floor is 2.1; make them equal.",
        "tqdm has no '>=' floor in pyproject.toml; declare the oldest version it works with.",
        "scipy has no pin in oldest-constraints.txt; add scipy==1.11.1.",
        # PyYAML: names compare as PEP 503 names and 6 == 6.0 == 6.0.0, so no problem
        # tabulate: the upper bound is not a floor
        "Jinja2 is not installed; install memdiag with -c oldest-constraints.txt.",
    ]
