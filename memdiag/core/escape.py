"""Escaping user-supplied text (system, query, group and scheme names, notes) for each output format.

Names come from the user's files, so every format memdiag writes treats them as data, never as
markup: a name can neither start a new line, nor open a link, a tag, a formula or a LaTeX command.

- :func:`one_line` — every line break becomes a space and every other control character a
  visible ``\\xNN`` escape (terminal output, error messages, LaTeX ``%`` comment lines); the
  invisible characters that reorder or hide text (bidi controls such as U+202E, zero-width
  spaces and joiners, the BOM, the soft hyphen) a visible ``\\uNNNN``; a space at either end a
  visible ``\\x20`` (so ``mem0 `` and ``mem0`` look different).
- :func:`markdown` — CommonMark backslash escapes for the characters that make links, images,
  raw HTML, emphasis, code, tables and block starts (CommonMark 0.31, §2.4: any ASCII
  punctuation may be backslash-escaped); and GitHub's extended autolinks broken: the dot of
  ``www.`` and the colon of ``http:``/``https:``/``ftp:`` escaped, and every ``@`` set as a code
  span (GFM joins escaped text back together before it looks for e-mail addresses, so only a
  separate inline node stops ``a@b.example`` from becoming a ``mailto:`` link).
- :func:`code_span` — a Markdown code span whose fence is longer than any backtick run inside.
- :func:`latex` — the LaTeX special characters as commands; a leading ``[`` braced so that it
  is not read as the optional argument of the ``\\\\`` or ``\\midrule`` before it.
- :func:`csv_cell` — OWASP's CSV-injection rule: a text cell starting with ``=``, ``+``, ``-``,
  ``@``, a tab or a carriage return gets a leading single quote; numbers are left alone.

HTML and SVG are escaped where they are written (Jinja2 autoescaping, tabulate's ``html`` format,
matplotlib's SVG backend); the tests check all of them with the same hostile names.
"""

from __future__ import annotations

import re

#: Every character :meth:`str.splitlines` breaks at (LaTeX and Markdown end lines at some of them).
_BREAKS = re.compile("[\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029]+")
#: The other C0 and C1 control characters (ANSI escapes start with \x1b), and DEL.
_CONTROLS = re.compile("[\x00-\x08\x0e-\x1b\x1f\x7f-\x84\x86-\x9f]")
#: Invisible characters that reorder or hide text: the Arabic letter mark, the Mongolian vowel
#: separator, zero-width space/non-joiner/joiner, LRM/RLM, the bidi embeddings, overrides and
#: isolates, the word joiner and invisible operators, the BOM / zero-width no-break space, the
#: soft hyphen (Unicode TR #9 and TR #36, "Bidirectional text spoofing").
_INVISIBLE = re.compile("[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
#: Spaces at either end of a name.
_EDGE_SPACES = re.compile("^ +| +$")
#: GitHub's extended autolinks (GFM 0.29, §6.9): ``www.`` and the URL schemes it links.
_WWW = re.compile(r"(?i)(www)\.")
_SCHEME = re.compile(r"(?i)(https?|ftp|mailto|xmpp):")
#: Markdown characters escaped wherever they are (links, images, HTML, emphasis, code, tables,
#: entities, headings, strikethrough).
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()<>#!|~&])")
#: Characters that start a block (list item, heading underline, blockquote) at a line start.
_MARKDOWN_LEAD = re.compile(r"^([-+=:.])")
_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
          "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
          "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}"}
_LATEX_CHARS = re.compile("[" + re.escape("".join(_LATEX)) + "]")
#: OWASP: cells starting with these are read as formulas by spreadsheet programs.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
#: A plain decimal number (``-0.5``, ``+3``, ``1e-5``): a spreadsheet reads it as a number.
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def one_line(text: object) -> str:
    """``text`` on one line: line breaks become a space, other control characters ``\\xNN``.

    >>> one_line("a\\nb\\x1b[31mc\\td")
    'a b\\\\x1b[31mc d'
    """
    flat = _BREAKS.sub(" ", str(text)).replace("\t", " ")
    flat = _EDGE_SPACES.sub(lambda m: "\\x20" * len(m.group()), flat)
    flat = _INVISIBLE.sub(lambda m: f"\\u{ord(m.group()):04x}", flat)
    return _CONTROLS.sub(lambda m: f"\\x{ord(m.group()):02x}", flat)


def markdown(text: object) -> str:
    """``text`` as literal Markdown inline text: no link, image, HTML, emphasis, code or new block.

    >>> markdown("x](javascript:alert(1)) <b>")
    'x\\\\]\\\\(javascript:alert\\\\(1\\\\)\\\\) \\\\<b\\\\>'
    """
    escaped = _MARKDOWN_LEAD.sub(r"\\\1", _MARKDOWN.sub(r"\\\1", one_line(text)))
    escaped = _SCHEME.sub(r"\1\\:", _WWW.sub(r"\1\\.", escaped))
    return escaped.replace("@", "`@`")


def code_span(text: object) -> str:
    """``text`` as one Markdown code span (its content is shown literally).

    >>> code_span("a `b` c")
    '``a `b` c``'
    """
    flat = one_line(text)
    fence = "`" * (max((len(run) for run in re.findall("`+", flat)), default=0) + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def latex(text: object) -> str:
    """``text`` as literal LaTeX text (for a table cell or heading).

    >>> print(latex("a_b 95% {x} \\\\input{y}"))
    a\\_b 95\\% \\{x\\} \\textbackslash{}input\\{y\\}
    """
    escaped = _LATEX_CHARS.sub(lambda m: _LATEX[m.group()], one_line(text))
    return "{[}" + escaped[1:] if escaped.startswith("[") else escaped


def latex_comment(text: object) -> str:
    """``text`` as one LaTeX comment line (``% ...``): nothing in it can reach a new line.

    >>> latex_comment("note\\n\\\\input{/etc/passwd}")
    '% note \\\\input{/etc/passwd}'
    """
    return f"% {one_line(text)}"


def csv_cell(value: object) -> object:
    """A CSV cell safe to open in a spreadsheet: a text cell that would start a formula gets a
    leading single quote (OWASP CSV injection); numbers, and text that is a number, are unchanged.
    A carriage return becomes a line feed (the csv writer quotes a cell holding a line feed, not
    one holding a lone carriage return, which would end the row for a reader).

    >>> csv_cell("=HYPERLINK(1)"), csv_cell("-0.5"), csv_cell(-0.5), csv_cell("raw-rag")
    ("'=HYPERLINK(1)", '-0.5', -0.5, 'raw-rag')
    """
    if not isinstance(value, str):
        return value
    text = value.replace("\r\n", "\n").replace("\r", "\n")
    return "'" + text if value.startswith(_FORMULA_START) and not _NUMBER.fullmatch(value) else text
