"""The tests speak to memdiag as a user does: at most a third of the test files import a private module.

Public: ``memdiag`` and the names of ``memdiag.__all__``, ``memdiag.errors``, ``memdiag.tables``,
``memdiag.plot``/``memdiag.plots`` and ``memdiag.cli`` (``main``). Every other module (``memdiag.core``,
``memdiag.io``, ``memdiag.engine``, ...; ``memdiag.tables.text``; a ``_name`` taken from ``memdiag``) is
private, and a test that imports one breaks when the layout moves although no user would notice.
The files that still need an internal say why in their module docstring."""

from __future__ import annotations

import ast
from pathlib import Path

PUBLIC = {"memdiag", "memdiag.errors", "memdiag.tables", "memdiag.plot", "memdiag.plots", "memdiag.cli"}
TESTS = Path(__file__).parent


def private_imports(source: str) -> set[str]:
    """The private memdiag modules ``source`` imports (``import``, ``from ... import``, ``import_module``)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            if node.module == "memdiag":
                found |= {f"memdiag.{alias.name}" for alias in node.names if alias.name.startswith("_")}
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module"
              and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            found.add(node.args[0].value)
    return {name for name in found if name.startswith("memdiag.") and name not in PUBLIC}


def test_the_rule_sees_every_form_of_import():
    source = ("import memdiag as md\nimport memdiag.engine.resampling\nfrom memdiag.io import strict\n"
              "from memdiag import _private, tables\nfrom memdiag.errors import VerdictError\n"
              "from memdiag.tables import render\nimportlib.import_module('memdiag.core.kinds')\n")
    assert private_imports(source) == {"memdiag.engine.resampling", "memdiag.io", "memdiag._private",
                                       "memdiag.core.kinds"}


def test_at_most_a_third_of_the_test_files_import_private_modules():
    files = sorted(TESTS.glob("test_*.py"))
    private = {path.name: sorted(private_imports(path.read_text(encoding="utf-8"))) for path in files}
    private = {name: modules for name, modules in private.items() if modules}
    listing = "\n".join(f"  {name}: {', '.join(modules)}" for name, modules in private.items())
    assert 3 * len(private) <= len(files), (
        f"{len(private)} of {len(files)} test files import private modules (at most a third may):\n{listing}\n"
        "test through md.* / memdiag.tables / memdiag.plot / the command line, or gather the internals "
        "in a tests/test_internals_*.py file that says why")
