"""Names from the user's files are data in every output format: checked with independent parsers
(markdown-it-py for CommonMark + GFM tables, pylatexenc for LaTeX, the csv module, html.parser)."""

from __future__ import annotations

import csv
import io
import re
from html.parser import HTMLParser

import pandas as pd
import pytest
from markdown_it import MarkdownIt
from pylatexenc.latexwalker import (
    LatexCommentNode,
    LatexEnvironmentNode,
    LatexGroupNode,
    LatexMacroNode,
    LatexMathNode,
    LatexSpecialsNode,
    LatexWalker,
)

from memdiag.tables import render

#: Names a hostile (or unlucky) user can give: links, images, HTML, LaTeX commands, formulas,
#: line breaks, terminal escapes, table pipes, emphasis, code, Windows paths.
HOSTILE = [
    "x](javascript:alert(1)) <script>alert(1)</script>",
    "![img](http://evil/x.png)",
    "a\n\\input{/etc/passwd}",
    "b\r\n\\immediate\\write18{rm -rf /}",
    "=HYPERLINK(\"http://evil\",\"click\")",
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(1,1)",
    "\tTAB",
    "c | d *e* _f_ `g` ~~h~~ &amp; #i",
    "[ref]: http://evil",
    "100% $x^2$ {y} ~ ^",
    "\x1b[31mred\x1b[0m\x07",
    "lone\rcarriage return",
    "C:\\Users\\me\\..\\x",
    "[leading bracket",
    "- list\u2028# heading\u2029> quote",
    "<img src=x onerror=alert(1)>",
]

#: Each name as a cell or note shows it, on one line: line breaks and tabs become a space, a space
#: at either end and other control characters are written as escapes (\x20, \x1b, ...).
SHOWN = [
    "x](javascript:alert(1)) <script>alert(1)</script>",
    "![img](http://evil/x.png)",
    "a \\input{/etc/passwd}",
    "b \\immediate\\write18{rm -rf /}",
    "=HYPERLINK(\"http://evil\",\"click\")",
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(1,1)",
    "\\x20TAB",
    "c | d *e* _f_ `g` ~~h~~ &amp; #i",
    "[ref]: http://evil",
    "100% $x^2$ {y} ~ ^",
    "\\x1b[31mred\\x1b[0m\\x07",
    "lone carriage return",
    "C:\\Users\\me\\..\\x",
    "[leading bracket",
    "- list # heading > quote",
    "<img src=x onerror=alert(1)>",
]

LATEX_MACROS = {"textbackslash", "{", "}", "%", "$", "&", "#", "_", "textasciicircum", "textasciitilde",
                "textless", "textgreater", "textbar", "toprule", "midrule", "bottomrule", "\\",
                "textminus"}  # memdiag's minus sign in numbers (tables.render), never from a name


def hostile_frame() -> pd.DataFrame:
    df = pd.DataFrame({"system": HOSTILE, "diff": [-0.5 + k for k in range(len(HOSTILE))],
                       "ci_low": [-1.0 + k for k in range(len(HOSTILE))],
                       "ci_high": [1.0 + k for k in range(len(HOSTILE))], "n": range(len(HOSTILE))})
    df[HOSTILE[0]] = HOSTILE[::-1]  # a user name as a column header too (pairwise matrices)
    df.attrs = {"scheme": HOSTILE[2], "metric": HOSTILE[0], "confidence_level": 0.95,
                "notes": [f"system '{name}' lacks 1 query" for name in HOSTILE]}
    return df


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.cells: list[str] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.cells.append("".join(self._cell))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def html_of(markdown_text: str) -> _Tags:
    parser = _Tags()
    parser.feed(MarkdownIt("commonmark").enable("table").enable("strikethrough").render(markdown_text))
    return parser


def flat(text: str) -> str:
    return " ".join(text.split())


def test_markdown_table_shows_every_name_as_text_and_nothing_else():
    df = hostile_frame()
    parsed = html_of(render(df, "md"))
    # "code": every '@' is set as a code span, the one way to keep GitHub from making an e-mail link
    assert {tag for tag, _ in parsed.tags} <= {"table", "thead", "tbody", "tr", "th", "td", "ul", "li", "p", "code"}
    assert len(parsed.cells) == (len(df) + 1) * 4  # system, diff [95% CI], n, the named column
    cells = parsed.cells[4:]
    assert [flat(c) for c in cells[0::4]] == [flat(n) for n in SHOWN]
    assert [flat(c) for c in cells[3::4]] == [flat(n) for n in SHOWN[::-1]]
    assert flat(parsed.cells[3]) == flat(SHOWN[0])


def test_markdown_notes_and_signature_stay_one_list_item_and_one_paragraph_each():
    df = hostile_frame()
    parsed = html_of(render(df, "md"))
    assert sum(tag == "li" for tag, _ in parsed.tags) == len(HOSTILE)
    assert sum(tag == "p" for tag, _ in parsed.tags) == 1  # the signature line


@pytest.mark.parametrize("name", HOSTILE)
def test_a_name_as_cell_and_as_note_round_trips_through_commonmark(name):
    df = pd.DataFrame({"system": [name], "n": [1]})
    df.attrs["notes"] = [name]
    body = MarkdownIt("commonmark").enable("table").render(render(df, "md"))
    parser = _Tags()
    parser.feed(body)
    assert {tag for tag, _ in parser.tags} <= {"table", "thead", "tbody", "tr", "th", "td", "ul", "li", "p", "code"}
    assert "<script" not in body and "<a " not in body and "<img" not in body
    shown = SHOWN[HOSTILE.index(name)]
    assert flat(parser.cells[2]) == flat(shown)                         # the cell under the header
    items = body.split("<li>")[1].split("</li>")[0]
    assert flat(_text(items)) == flat(shown)                            # the note


def _text(html: str) -> str:
    """The text of an HTML fragment (entities decoded, tags dropped)."""
    parser = HTMLParser(convert_charrefs=True)
    parts: list[str] = []
    parser.handle_data = parts.append
    parser.feed(html)
    parser.close()
    return "".join(parts)


def _walk(nodes):
    for node in nodes or ():
        yield node
        for child in ("nodelist", "nodeargs"):
            yield from _walk(getattr(node, child, None) or ())
        if isinstance(node, LatexMacroNode) and node.nodeargd is not None:
            yield from _walk([a for a in node.nodeargd.argnlist if a is not None])


def test_latex_table_has_only_escapes_and_its_comments_stay_comments():
    df = hostile_frame()
    text = render(df, "latex")
    nodes, _, _ = LatexWalker(text, tolerant_parsing=False).get_latex_nodes()
    every = list(_walk(nodes))
    macros = {n.macroname for n in every if isinstance(n, LatexMacroNode)}
    assert macros <= LATEX_MACROS, macros - LATEX_MACROS
    assert not [n for n in every if isinstance(n, LatexMathNode)]
    assert [n.envname for n in every if isinstance(n, LatexEnvironmentNode)] == ["tabular"]
    comments = [n for n in every if isinstance(n, LatexCommentNode)]
    assert len(comments) == 1 + len(HOSTILE)  # the signature, then one per note
    rows = text.split("\\midrule\n")[1].split("\\bottomrule")[0].strip().split("\n")
    assert len(rows) == len(df)
    tabular = next(n for n in every if isinstance(n, LatexEnvironmentNode))
    ampersands = [n for n in _walk(tabular.nodelist) if isinstance(n, LatexSpecialsNode)
                  and n.specials_chars == "&"]
    assert len(ampersands) == (len(df) + 1) * 3  # 4 columns: 3 separators per row, header included
    assert not [n for n in every if isinstance(n, LatexGroupNode) and n.delimiters == ("[", "]")]


def test_latex_escape_reads_back_as_the_name():
    from pylatexenc.latex2text import LatexNodes2Text

    name = "a_b 95% {x} \\input{y} & $z$ #1"
    rows = render(pd.DataFrame({"system": [name, "[x]"], "n": [1, 2]}), "latex")
    rows = rows.split("\\midrule\n")[1].split("\\bottomrule")[0].strip().split("\n")
    first = re.split(r"(?<!\\)&", rows[0])[0].strip()              # the cell before the first column separator
    assert LatexNodes2Text().latex_to_text(first) == name
    assert rows[1].startswith("{[}x]")                              # not an optional argument of \\


def test_csv_neutralises_formulas_in_text_cells_only():
    df = hostile_frame()
    rows = list(csv.reader(io.StringIO(render(df, "csv"))))
    header, body = rows[0], rows[1:]
    assert header[-1] == HOSTILE[0]                   # text that starts no formula is unchanged
    names = [row[0] for row in body]
    assert len(body) == len(HOSTILE)  # a carriage return in a name does not end its row
    for shown, name in zip(names, HOSTILE):
        lf = name.replace("\r\n", "\n").replace("\r", "\n")
        assert shown == ("'" + lf if name[0] in "=+-@\t\r" else lf)
    assert [float(row[1]) for row in body] == [-0.5 + k for k in range(len(HOSTILE))]  # numbers untouched
    # text that is a number is not a formula; text that starts like one is
    rows = list(csv.reader(io.StringIO(render(pd.DataFrame({"system": ["-0.5", "+3e-2", "-x"], "n": [1, 2, 3]}), "csv"))))
    assert [row[0] for row in rows[1:4]] == ["-0.5", "+3e-2", "'-x"]


def test_terminal_table_has_no_control_characters_and_one_line_per_row():
    df = hostile_frame()
    text = render(df, "table")
    assert "\x1b" not in text and "\x07" not in text and "\r" not in text and "\u2028" not in text
    lines = text.split("\n")
    assert len(lines) == 2 + len(df) + 1 + len(HOSTILE) + 1  # header, rule, rows, blank, notes, signature
