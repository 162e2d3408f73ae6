"""The layers of the package run one way: no module imports from a layer above its own.

Read from the source with ``ast`` (imports inside functions count; imports only for type
checkers, under ``if TYPE_CHECKING:``, do not), so a lazy import cannot hide a backwards edge.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "memdiag"

#: Layer of each top-level module or package of memdiag, lowest first (see docs/architecture.md).
LAYERS: dict[str, int] = {
    # 0: vocabulary, errors, escaping of names, output paths
    "errors": 0, "_notes": 0, "_checks": 0, "_schema": 0, "_escape": 0, "_outputs": 0, "_strict": 0, "_signals": 0,
    # 1: designs, the paired 2x2 table, provenance
    "_designs": 1, "_pairs": 1, "_provenance": 1,
    # 2: the resampling engine and the tests
    "_resampling": 2, "_inference": 2,
    # 3: data: readers, canonical verdicts, schemes, side files (claims, logs, systems tables)
    "_readers": 3, "_verdicts": 3, "_schemes": 3, "_side_files": 3, "_conventions": 3,
    # 4: prepared data and metrics
    "_prepare": 4, "_metrics": 4, "_cluster_labels": 4, "_options": 4,
    # 5: the diagnostics and the simulators
    "_flows": 5, "_compare": 5, "_evidence": 5, "_scoring": 5, "_runs": 5, "_agreement": 5, "_attribution": 5,
    "_sensitivity": 5, "_robustness": 5, "_groups": 5, "_procedures": 5, "_writes": 5, "_audit": 5, "_simulate": 5,
    "_costs": 5, "_ingestion": 5, "_augmentation": 5, "_store_gap": 5, "_overview": 5, "_clusters": 5, "_replay": 5,
    "_power": 5, "_aliases": 5,
    "_judge_error": 5, "_leniency": 5, "_gold_errors": 5, "_judge_variance": 5,
    "_settings": 5, "_fragility": 5, "_critical": 5,
    # 6: what people read
    "tables": 6, "plots": 6,
    # 7: the report, 8: the command line
    "_report": 7, "cli": 8,
}

#: What every layer may import: the package root (its version and the lazy public names).
ANYWHERE = {"memdiag"}


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def _owner(path: Path) -> str | None:
    rel = path.relative_to(PACKAGE).parts
    return None if rel == ("__init__.py",) else rel[0].removesuffix(".py")


def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def _imported(path: Path) -> list[tuple[int, str]]:
    """``(line, top-level memdiag module)`` of every runtime import in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_lines(tree)
    found = []
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module] + ([f"memdiag.{a.name}" for a in node.names if a.name in LAYERS]
                                     if node.module == "memdiag" else [])
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "memdiag":
                found.append((node.lineno, parts[1] if len(parts) > 1 else "memdiag"))
    return found


def test_every_module_has_a_layer():
    owners = {_owner(p) for p in _modules()} - {None}
    assert owners <= set(LAYERS), f"modules without a layer: {sorted(owners - set(LAYERS))}"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_imports_from_a_layer_above_it(path):
    owner = _owner(path)
    if owner is None:
        return  # memdiag/__init__.py re-exports the public API from every layer
    for line, target in _imported(path):
        if target in ANYWHERE or target == owner:
            continue
        assert target in LAYERS, f"{path.name}:{line} imports unknown memdiag module {target}"
        assert LAYERS[target] <= LAYERS[owner], (
            f"{path.relative_to(PACKAGE)}:{line} (layer {LAYERS[owner]}, {owner}) imports {target} "
            f"(layer {LAYERS[target]})")


def test_the_layer_check_sees_lazy_imports(tmp_path):
    # a backwards import hidden inside a function is still found; one for type checkers is not
    source = tmp_path / "x.py"
    source.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from memdiag import _report\n"
                      "def f():\n    from memdiag._flows import flows\n    import memdiag.cli\n")
    assert _imported(source) == [(5, "_flows"), (6, "cli")]
