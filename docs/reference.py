"""Write docs/reference.md: every public name of memdiag, grouped by the question it answers.

Run from the repository root: ``python docs/reference.py`` rewrites the page; ``python
docs/reference.py --check`` exits 1 when the page is out of date. The page lists each name of
``memdiag.__all__``, the public functions of ``memdiag.tables`` and ``memdiag.plot``, the classes of
``memdiag.errors``, ``memdiag.cli.main`` and the ``memdiag`` subcommands, each with the first
paragraph of its docstring (or its ``--help`` line) and its signature (or its arguments), read
from the package itself; tests/test_reference.py fails when the page and the package disagree.
"""

from __future__ import annotations

import argparse
import inspect
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import memdiag as md
import memdiag.cli
import memdiag.errors
import memdiag.tables

PAGE = Path(__file__).resolve().parent / "reference.md"

#: The questions, in the order a user meets them, and what each section holds.
GROUPS: dict[str, str] = {
    "read": "verdict files, side files and synthetic data into checked frames, and the errors every door raises",
    "prepare": "the data choices (md.prepare) and the resampling and inference options (md.Options), made once",
    "analyse": "what memory adds: scores, flows, paired comparisons, evidence, costs, and the exact tests beneath them",
    "measure": "the measuring instrument: judges, gold answers, judge calls and runs",
    "synthesise": "across settings: pooled differences, mean ranks, what overturns a comparison",
    "audit": "published claims and published numbers checked",
    "render": "results as tables (md.tables)",
    "plot": "results as figures (md.plot)",
    "report": "the whole analysis, the command line and the version",
}

#: The implementing package of a public name -> its question (the longest prefix wins).
PACKAGES: dict[str, str] = {
    "memdiag.errors": "read", "memdiag.io": "read", "memdiag.synthetic": "read", "memdiag.panel.validate": "read",
    "memdiag.panel": "prepare", "memdiag.engine.options": "prepare",
    "memdiag.analyses": "analyse", "memdiag.engine": "analyse",
    "memdiag.measurement": "measure", "memdiag.synthesis": "synthesise", "memdiag.audit": "audit",
    "memdiag.tables": "render", "memdiag.views": "plot", "memdiag.reporting": "report", "memdiag.cli": "report",
}

#: Each subcommand's question.
COMMANDS: dict[str, str] = {
    "validate": "read", "inspect": "read", "simulate": "read",
    "score": "analyse", "compare": "analyse", "flows": "analyse", "evidence": "analyse", "costs": "analyse",
    "attribute": "analyse", "path": "analyse", "power": "analyse", "robustness": "analyse", "writes": "analyse",
    "agreement": "measure", "judge-error": "measure",
    "across": "synthesise", "fragility": "synthesise",
    "audit": "audit", "independence": "audit", "leaderboard": "audit", "rank": "audit",
    "plot": "plot", "report": "report", "demo": "report",
}


class _Shown(str):
    """An annotation written as the source wrote it (``str | None``, not ``'str | None'``)."""

    def __repr__(self) -> str:
        return str(self)


def signature(name: str, obj: Callable) -> str:
    """``name(parameters) -> return`` with annotations as written and defaults as their repr (a
    function's by its name).

    Raises
    ------
    ValueError
        A default whose repr holds a memory address (the page would differ between runs).
    """
    sig = inspect.signature(obj)
    shown = sig.replace(
        parameters=[p.replace(annotation=_Shown(p.annotation) if isinstance(p.annotation, str) else p.annotation,
                              default=_Shown(p.default.__name__) if inspect.isfunction(p.default) else p.default)
                    for p in sig.parameters.values()],
        return_annotation=_Shown(sig.return_annotation) if isinstance(sig.return_annotation, str)
        else sig.return_annotation)
    text = f"{name}{shown}"
    if " at 0x" in text:
        raise ValueError(f"{name}: a default's repr holds a memory address: {text}")
    return text


def summary(obj: object) -> str:
    """The first paragraph of ``obj``'s own docstring, on one line."""
    doc = inspect.getdoc(obj) or ""
    return " ".join(doc.split("\n\n")[0].split())


def group_of(module: str) -> str:
    """The question of a name defined in ``module`` (:data:`PACKAGES`, longest prefix)."""
    found = [prefix for prefix in PACKAGES if module == prefix or module.startswith(prefix + ".")]
    if not found:
        raise KeyError(f"{module}: no question for this package; add it to PACKAGES in docs/reference.py")
    return PACKAGES[max(found, key=len)]


def _functions(module: ModuleType) -> list[str]:
    """The functions among ``module.__all__``."""
    return sorted(n for n in module.__all__ if inspect.isfunction(getattr(module, n)))


def _entry(shown: str, obj: object) -> tuple[str, str]:
    """(signature line, summary) of one public object."""
    if inspect.isclass(obj) and issubclass(obj, BaseException):
        bases = ", ".join(b.__name__ for b in obj.__bases__)
        return f"class {shown}({bases})", summary(obj)
    if isinstance(obj, ModuleType):
        return f"{shown} (module: its functions are listed below)", summary(obj)
    if callable(obj):
        return signature(shown, obj), summary(obj)
    return f"{shown}: {type(obj).__name__} = {obj!r}", "The version of memdiag, recorded in every result's provenance."


def api_entries() -> Iterator[tuple[str, str, str, str]]:
    """(group, public name, signature line, summary) of every public Python name."""
    for name in md.__all__:
        obj = getattr(md, name)
        module = obj.__name__ if isinstance(obj, ModuleType) else getattr(obj, "__module__", "memdiag.reporting")
        yield (group_of(module), f"md.{name}", *_entry(f"md.{name}", obj))
    for name in _functions(memdiag.tables):
        yield ("render", f"md.tables.{name}", *_entry(f"md.tables.{name}", getattr(memdiag.tables, name)))
    for name in _functions(md.plot):
        yield ("plot", f"md.plot.{name}", *_entry(f"md.plot.{name}", getattr(md.plot, name)))
    for name, obj in sorted(vars(memdiag.errors).items()):
        if inspect.isclass(obj) and obj.__module__ == "memdiag.errors" and f"md.{name}" not in {f"md.{n}" for n in md.__all__}:
            yield ("read", f"memdiag.errors.{name}", *_entry(f"memdiag.errors.{name}", obj))
    yield ("report", "memdiag.cli.main", *_entry("memdiag.cli.main", memdiag.cli.main))


def _arguments(parser: argparse.ArgumentParser) -> str:
    """A subcommand's positional arguments and options, as its usage names them."""
    parts = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        if not action.option_strings:
            word = action.metavar or action.dest.upper()
            parts.append(f"[{word} ...]" if action.nargs in ("*", "?") else f"{word} ..." if action.nargs == "+" else word)
        else:
            parts.append(f"[{max(action.option_strings, key=len)}]")
    return " ".join(parts)


def command_entries() -> Iterator[tuple[str, str, str, str]]:
    """(group, ``memdiag NAME``, its arguments, its ``--help`` line) of every subcommand."""
    parser = memdiag.cli.build_parser()
    [commands] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    helps = {action.dest: action.help for action in commands._choices_actions}
    for name, sub in commands.choices.items():
        if name not in COMMANDS:
            raise KeyError(f"memdiag {name}: no question for this subcommand; add it to COMMANDS in docs/reference.py")
        yield COMMANDS[name], f"memdiag {name}", f"memdiag {name} {_arguments(sub)}", helps[name]


def public_parameters() -> int:
    """The parameters of the callables of ``memdiag.__all__`` that are not classes (``*args`` and
    ``**kwargs`` not counted): the size of the API that tests/test_reference.py keeps at most 343."""
    return sum(len([p for p in inspect.signature(getattr(md, n)).parameters.values()
                    if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)])
               for n in md.__all__ if callable(getattr(md, n)) and not inspect.isclass(getattr(md, n)))


def render() -> str:
    """The text of docs/reference.md."""
    entries = list(api_entries()) + list(command_entries())
    lines = ["# memdiag reference", "",
             "Every public name, grouped by the question it answers, with the first paragraph of its docstring "
             "and its signature: the names of `memdiag.__all__` (`import memdiag as md`), the public functions "
             "of `md.tables` and `md.plot`, the classes of `memdiag.errors`, `memdiag.cli.main` and the "
             "`memdiag` subcommands (their arguments; `memdiag NAME --help` says what each option does).", "",
             "Generated from the package: regenerate with `python docs/reference.py` from the repository root "
             "after adding, removing or changing a public name (tests/test_reference.py fails until then).", "",
             f"{len(entries)} names; {public_parameters()} public parameters (the parameters of the functions of "
             "`memdiag.__all__`).", ""]
    lines += [f"- [{group}](#{group}): {what}" for group, what in GROUPS.items()]
    for group, what in GROUPS.items():
        lines += ["", f"## {group}", "", what[0].upper() + what[1:] + ".", ""]
        for _, name, line, text in sorted(e for e in entries if e[0] == group):
            lines += [f"### `{name}`", "", f"`{line}`", "", text or "(no docstring)", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: list[str]) -> int:
    """Rewrite the page, or with ``--check`` say whether it is up to date (exit 1 when not)."""
    text = render()
    if argv[1:] == ["--check"]:
        if PAGE.read_text(encoding="utf-8") != text:
            print(f"{PAGE} is out of date: run python docs/reference.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
