"""Every name the README and docs use works after ``import memdiag as md``, and the README's
runnable Python blocks run as written (issue 19: ``md.tables.render`` raised AttributeError)."""

from __future__ import annotations

import importlib
import os
import re
from pathlib import Path

import pytest

import memdiag as md

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
#: ``md.name`` / ``memdiag.name.attr`` inside code spans and fenced blocks.
NAME = re.compile(r"\b(md|memdiag)((?:\.[A-Za-z_]\w*)+)")
#: README blocks that are fragments, not programs: the reader's own files stand in.
FRAGMENTS = ("md.read_verdicts([...])", 'md.read_verdicts("runs/mysystem.jsonl"')
#: The diagnostic docs/architecture.md's worked example adds (it is not in the package).
EXAMPLE_ONLY = {("architecture.md", "memdiag.best_gap"), ("architecture.md", "memdiag.analyses.best_gap")}


def _code(text: str) -> str:
    fenced = re.findall(r"```[\w-]*\n(.*?)```", text, re.S)
    spans = re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", text, flags=re.S))
    return "\n".join(fenced + spans)


def _names() -> list[tuple[str, str]]:
    found = []
    for path in DOCS:
        for root, rest in NAME.findall(_code(path.read_text(encoding="utf-8"))):
            found.append((path.name, "memdiag" + rest))
    return sorted(set(found) - EXAMPLE_ONLY)


def _resolve(dotted: str) -> object:
    """``memdiag.a.b`` as attribute access from ``import memdiag`` (a private module is imported
    first, as ``memdiag.io.readers.known_formats`` needs ``import memdiag.io.readers``)."""
    parts = dotted.split(".")
    value: object = md
    for k, part in enumerate(parts[1:], start=2):
        try:
            value = getattr(value, part)
        except AttributeError:
            value = importlib.import_module(".".join(parts[:k]))
    return value


def test_the_docs_name_something():
    names = {name for _, name in _names()}
    assert {"memdiag.tables.render", "memdiag.check_aggregate", "memdiag.compare"} <= names


def test_the_worked_example_adds_a_name_the_package_does_not_have():
    found = {(path.name, "memdiag" + rest) for path in DOCS
             for _, rest in NAME.findall(_code(path.read_text(encoding="utf-8")))}
    assert EXAMPLE_ONLY <= found and not hasattr(md, "best_gap")


@pytest.mark.parametrize(("doc", "name"), _names())
def test_every_name_the_docs_use_resolves(doc, name):
    # a file suffix or a CLI module path is no attribute: memdiag.cli is a module and resolves too
    if name.split(".")[-1] in {"py", "md", "json", "yaml", "csv", "html"}:
        pytest.skip(f"{name} names a file")
    assert _resolve(name) is not None, f"{doc}: {name}"


def test_tables_render_after_import_memdiag():
    import pandas as pd

    text = md.tables.render(pd.DataFrame({"system": ["a"], "overall": [1.0]}), "latex")
    assert "\\toprule" in text


def _blocks() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, re.S)


def test_readme_fragments_are_the_only_blocks_left_out():
    runnable = [b for b in _blocks() if not any(f in b for f in FRAGMENTS)]
    assert len(runnable) >= 2 and len(runnable) + len(FRAGMENTS) == len(_blocks())


@pytest.mark.slow
def test_readme_python_blocks_run_as_written(tmp_path):
    os.symlink(REPO / "data", tmp_path / "data")
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        for block in _blocks():
            if any(f in block for f in FRAGMENTS):
                continue
            exec(compile("import memdiag as md\n" + block, "README.md", "exec"), {})  # noqa: S102
    finally:
        os.chdir(here)
    assert (tmp_path / "report" / "report.md").is_file()


def _own_runs() -> tuple[int, int, list[str]]:
    """The line of ``memdiag demo``, the line of the "Your own runs" heading, and that section's
    commands (continuation lines joined, comments dropped)."""
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    demo = lines.index('pip install -e ".[dev]" && memdiag demo')
    heading = lines.index("## Your own runs")
    block = re.search(r"```bash\n(.*?)```", "\n".join(lines[heading:]), re.S).group(1)
    commands = [line.split("#")[0].strip() for line in block.replace("\\\n", " ").splitlines()]
    return demo, heading, [c for c in commands if c]


def test_the_quick_path_for_own_runs_sits_near_the_two_commands():
    demo, heading, commands = _own_runs()
    # issue 19 item 7: within 40 lines of the two commands, which stay exactly as they are
    assert 0 < heading - demo <= 40
    assert "python -m pytest" in (REPO / "README.md").read_text(encoding="utf-8").splitlines()[demo:heading]
    assert [c.split()[1] for c in commands] == ["validate", "score", "flows", "report"]


def test_the_quick_path_for_own_runs_runs_on_files_laid_out_as_it_says(tmp_path, monkeypatch, capsys):
    import shlex

    from memdiag.cli import main

    # runs/rag.csv and runs/mem0.csv: system, query_id, a 0/1 score and a category
    runs = tmp_path / "runs"
    runs.mkdir()
    df = md.simulate(n_queries=60, systems=("raw-rag", "mem0"), n_clusters=6, sufficiency=False, costs=False, seed=2)
    df["system"] = df["system"].replace({"raw-rag": "rag"})
    for system, part in df.groupby("system"):
        part[["system", "query_id", "score", "category"]].to_csv(runs / f"{system}.csv", index=False)
    monkeypatch.chdir(tmp_path)
    for command in _own_runs()[2]:
        argv = shlex.split(command)[1:]
        if argv[0] != "validate":  # the README's default of 20,000 replicates, cut for a fast test
            argv += ["--resamples", "200"]
        assert main(argv) == 0, (command, capsys.readouterr().err)
        shown = capsys.readouterr().out
        if argv[0] in ("validate", "score"):
            assert "mem0" in shown and "rag" in shown
    assert (tmp_path / "report" / "report.md").is_file()
