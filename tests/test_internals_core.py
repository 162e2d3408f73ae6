"""Internals of the core layer that no public call shows on its own.

Every test here imports a private module on purpose: the Markdown code span (the report's
signature line) is written only inside a whole report, which is too slow to run once per
hostile name; here each name goes through it directly and back through CommonMark.
"""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt
from test_escape import HOSTILE, _Tags

from memdiag.core.escape import code_span


@pytest.mark.parametrize("name", HOSTILE)
def test_a_code_span_round_trips_through_commonmark(name):
    body = MarkdownIt("commonmark").render(code_span(name))
    parser = _Tags()
    parser.feed(body)
    assert {tag for tag, _ in parser.tags} <= {"p", "code"}
    assert "<script" not in body and "<a " not in body and "<img" not in body
