"""Rewrite the "Every module" table of docs/architecture.md: one row per module of memdiag/, the
first sentence of its docstring.

Run from the repository root: ``python docs/modules.py`` rewrites the table; ``python
docs/modules.py --check`` exits 1 when it is out of date (tests/test_architecture.py checks the
same: every module listed, with today's first sentence).
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "architecture.md"
HEADER = "| module | its one job |"


def first_sentence(path: Path) -> str:
    """The first sentence of the module's docstring (its first paragraph up to the first ". "),
    with ``|`` escaped for the Markdown table."""
    paragraph = " ".join((ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or "").split("\n\n")[0].split())
    match = re.match(r"(.+?\.)(\s|$)", paragraph)
    return (match.group(1) if match else paragraph).replace("|", "\\|")


def rows() -> list[str]:
    """One table row per module, sorted by path."""
    package = ROOT / "memdiag"
    paths = sorted((p for p in package.rglob("*.py") if "__pycache__" not in p.parts),
                   key=lambda p: p.relative_to(package).as_posix())
    return [f"| `{p.relative_to(package).as_posix()}` | {first_sentence(p)} |" for p in paths]


def page() -> str:
    """docs/architecture.md with its module table made from today's modules."""
    text = PAGE.read_text(encoding="utf-8")
    start = text.index(HEADER)
    lines = text[start:].split("\n")
    end = 2
    while end < len(lines) and lines[end].startswith("| `"):
        end += 1
    return text[:start] + "\n".join(lines[:2] + rows() + lines[end:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the table is out of date")
    args = parser.parse_args()
    text = page()
    if args.check:
        if text != PAGE.read_text(encoding="utf-8"):
            print("docs/architecture.md: the module table is out of date; run python docs/modules.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)} ({len(rows())} modules)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
