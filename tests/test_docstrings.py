"""The documentation spine: every public function and class has complete numpydoc sections.

Public means: the names of ``memdiag.__all__`` (less ``__version__``, the two exception classes
and the ``plot`` namespace), the functions of ``memdiag.plots.__all__`` and the table functions of
``memdiag.tables``. A function's docstring must have Parameters (naming every parameter of its
signature, and nothing else), Returns (or Yields), Raises (exception classes that exist),
References (citing a section of docs/spec.md that exists) and Examples (doctests, which
``--doctest-modules`` runs; never skipped). A class needs Parameters or Attributes, and Examples.
Sections are parsed with numpydoc's own parser, as Sphinx would read them.
"""

from __future__ import annotations

import builtins
import importlib
import inspect
import re
from pathlib import Path

import pytest
from numpydoc.docscrape import NumpyDocString

import memdiag
import memdiag.errors
import memdiag.plots
import memdiag.tables

SPEC = Path(__file__).resolve().parents[1] / "docs" / "spec.md"
SKIPPED = {"__version__", "SchemeError", "VerdictError", "plot"}
TABLE_FUNCTIONS = ("render", "display", "signature", "columns", "html", "select", "paper_columns")


def _public() -> dict[str, object]:
    names = {f"memdiag.{name}": getattr(memdiag, name) for name in memdiag.__all__ if name not in SKIPPED}
    names |= {f"memdiag.plots.{name}": getattr(memdiag.plots, name) for name in memdiag.plots.__all__
              if inspect.isfunction(getattr(memdiag.plots, name))}
    names |= {f"memdiag.tables.{name}": getattr(memdiag.tables, name) for name in TABLE_FUNCTIONS}
    return names


PUBLIC = _public()
FUNCTIONS = sorted(name for name, value in PUBLIC.items() if not inspect.isclass(value))
CLASSES = sorted(name for name, value in PUBLIC.items() if inspect.isclass(value))


def _doc(name: str) -> NumpyDocString:
    text = inspect.getdoc(PUBLIC[name])
    assert text, f"{name} has no docstring"
    return NumpyDocString(text)


def _documented(entries: list) -> set[str]:
    """Parameter names of a Parameters section; ``n_resamples, seed`` documents both."""
    return {part.strip().lstrip("*") for entry in entries for part in entry.name.split(",") if part.strip()}


def _spec_sections() -> set[str]:
    """Section numbers of docs/spec.md: ``1``, ``1.4``, ``4.1``, ..."""
    return set(re.findall(r"^#{2,4} (\d+(?:\.\d+)*)\.? ", SPEC.read_text(encoding="utf-8"), flags=re.M))


def _examples(doc: NumpyDocString) -> str:
    return "\n".join(doc["Examples"])


def test_the_public_surface_is_found():
    # a collection that silently found nothing would pass every check below
    assert {"memdiag.flows", "memdiag.compare", "memdiag.plots.forest", "memdiag.tables.render"} <= set(FUNCTIONS)
    assert {"memdiag.Prepared", "memdiag.Scheme", "memdiag.Panel"} <= set(CLASSES)
    assert "memdiag.VerdictError" not in PUBLIC and "memdiag.plot" not in PUBLIC


@pytest.mark.parametrize("name", FUNCTIONS)
def test_function_docstring_has_every_section(name):
    doc = _doc(name)
    parameters = [p for p in inspect.signature(PUBLIC[name]).parameters if p != "self"]
    missing = [section for section, present in [
        ("Parameters", bool(doc["Parameters"]) or not parameters),
        ("Returns", bool(doc["Returns"] or doc["Yields"])),
        ("Raises", bool(doc["Raises"])),
        ("References", bool(doc["References"])),
        ("Examples", bool(doc["Examples"])),
    ] if not present]
    assert not missing, f"{name}: no {', '.join(missing)} section"


@pytest.mark.parametrize("name", FUNCTIONS)
def test_parameters_section_names_exactly_the_signature(name):
    parameters = {p for p in inspect.signature(PUBLIC[name]).parameters if p != "self"}
    documented = _documented(_doc(name)["Parameters"])
    assert not parameters - documented, f"{name}: parameters not documented: {sorted(parameters - documented)}"
    assert not documented - parameters, f"{name}: documents parameters it has not: {sorted(documented - parameters)}"


def _exception(name: str) -> object:
    """The class a Raises entry names: a builtin, a memdiag.errors class, or a dotted path."""
    if "." not in name:
        return getattr(builtins, name, None) or getattr(memdiag.errors, name, None)
    module, _, attribute = name.rpartition(".")
    try:
        return getattr(importlib.import_module(module), attribute, None)
    except ImportError:
        return None


@pytest.mark.parametrize("name", FUNCTIONS)
def test_raises_names_real_exception_classes(name):
    for entry in _doc(name)["Raises"]:
        for exception in re.split(r"\s*(?:,|\bor\b)\s*", entry.type or entry.name):
            value = _exception(exception)
            assert isinstance(value, type) and issubclass(value, BaseException), \
                f"{name}: Raises names {exception!r}, not an exception class"
            assert entry.desc, f"{name}: Raises {exception} without saying when"


@pytest.mark.parametrize("name", FUNCTIONS + CLASSES)
def test_references_cite_sections_of_the_spec_that_exist(name):
    if inspect.isclass(PUBLIC[name]) and not _doc(name)["References"]:
        return  # References are required of functions; a class's are checked when present
    text = "\n".join(_doc(name)["References"])
    cited = re.findall(r"SPEC §(\d+(?:\.\d+)*)", text)
    assert cited, f"{name}: References cite no 'SPEC §N' of docs/spec.md"
    unknown = sorted(set(cited) - _spec_sections())
    assert not unknown, f"{name}: References cite SPEC §{', §'.join(unknown)}, which docs/spec.md does not have"


@pytest.mark.parametrize("name", CLASSES)
def test_class_docstring_has_parameters_or_attributes_and_examples(name):
    doc = _doc(name)
    assert doc["Parameters"] or doc["Attributes"], f"{name}: neither a Parameters nor an Attributes section"
    assert doc["Examples"], f"{name}: no Examples section"


@pytest.mark.parametrize("name", FUNCTIONS + CLASSES)
def test_examples_are_doctests_that_run(name):
    examples = _examples(_doc(name))
    assert ">>> " in examples, f"{name}: Examples hold no doctest"
    assert "+SKIP" not in examples, f"{name}: an Example is skipped"


def test_the_exception_lookup_tells_exception_classes_from_other_names():
    # the oracle of the Raises check: builtins, memdiag.errors and dotted paths resolve; other names do not
    assert _exception("ValueError") is ValueError and _exception("VerdictError") is memdiag.errors.VerdictError
    assert issubclass(_exception("memdiag.reporting.publish.Interrupted"), KeyboardInterrupt)
    assert _exception("NoSuchError") is None and _exception("memdiag.no_module.Error") is None
    assert not isinstance(_exception("memdiag.tables.render"), type)


def test_the_spec_section_parser_reads_the_spec():
    # the oracle of the References check: numbered headings of docs/spec.md at three depths
    assert {"1", "1.4", "4.1", "5.1", "7.10", "8", "9", "9.5", "10", "10.4"} <= _spec_sections()
    assert "11" not in _spec_sections() and "10.9" not in _spec_sections()
