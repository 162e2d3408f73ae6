"""The layers of the package run one way: no module imports from a layer above its own.

Read from the source with ``ast`` (imports inside functions count; imports only for type
checkers, under ``if TYPE_CHECKING:``, do not), so a lazy import cannot hide a backwards edge.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "memdiag"

#: Layer of each top-level module or subpackage of memdiag, lowest first (see docs/architecture.md).
LAYERS: dict[str, int] = {
    "errors": 0,           # error families and the vocabulary of messages
    "core": 1,             # option values and checks, notes, provenance, escaping
    "io": 2,               # every file read or written: strict parsers, readers, recipes, side files, outputs
    "engine": 3,           # designs, the bootstrap engine, inference, options
    "panel": 4,            # canonical verdicts -> Prepared: checks, schemes, conventions, alignment
    "analyses": 5,         # one module per question a reader asks
    "synthetic": 5,        # synthetic verdicts with known truth
    "measurement": 6,      # judge error, gold errors, judge variance, agreement
    "synthesis": 7,        # across settings, fragility, critical differences
    "audit": 8,            # claims, aggregates, rankings, published numbers
    "tables": 9,           # result frames -> text tables
    "plots": 10,           # result frames -> figures
    "views": 11,           # one view per diagnostic: its result, figure and caption (plot, report, md.plot)
    "reporting": 12,       # a whole analysis -> a folder
    "cli": 13,             # the memdiag command
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


#: The engine resamples and infers; it knows nothing of files, verdict panels, tables or figures.
ENGINE_MAY_IMPORT = {"errors", "core", "engine"}


@pytest.mark.parametrize("path", sorted(p for p in _modules() if _owner(p) == "engine"),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_the_engine_knows_nothing_of_files_tables_or_figures(path):
    beyond = [(line, target) for line, target in _imported(path) if target not in ENGINE_MAY_IMPORT | ANYWHERE]
    assert not beyond, f"{path.relative_to(PACKAGE)} imports {beyond} (the engine may use only errors and core)"


def test_the_layer_check_sees_lazy_imports(tmp_path):
    # a backwards import hidden inside a function is still found; one for type checkers is not
    source = tmp_path / "x.py"
    source.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from memdiag import reporting\n"
                      "def f():\n    from memdiag.analyses.flows import flows\n    import memdiag.cli\n")
    assert _imported(source) == [(5, "analyses"), (6, "cli")]


def _module_name(path: Path) -> str:
    parts = ("memdiag", *path.relative_to(PACKAGE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _module_graph() -> dict[str, set[str]]:
    """Module -> the memdiag modules it imports at run time (``from pkg import name`` resolved to
    ``pkg.name`` where that is a module, else to ``pkg``; the package root left out)."""
    paths = {_module_name(p): p for p in _modules()}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _type_checking_lines(tree)
        targets: set[str] = set()
        for node in ast.walk(tree):
            if getattr(node, "lineno", None) in skip:
                continue
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                targets.update(f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in paths else node.module
                               for a in node.names)
        graph[name] = {t for t in targets if t in paths and t not in (name, "memdiag")}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_between_modules():
    assert _cycles(_module_graph()) == []


def test_the_cycle_check_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]
