"""Fuzzing the command with hostile inputs (README "What memdiag guarantees").

hypothesis generates verdict files (encodings, layouts, shapes, value types, names holding every
special character of LaTeX, Markdown, CSV, HTML and paths, line breaks, control characters),
schemes, claims, decision logs and option values, and runs them through ``memdiag.cli.main`` in
process. Every run must:

- exit 0, 1 (``audit`` only) or 2 — never 3 (an internal error) — with no traceback on stderr,
  and exactly one error line when it exits 2;
- write nothing outside its output path, and change no input (a snapshot of the folder, bytes
  included, before and after);
- show every name as data in every format it wrote: Markdown parsed by markdown-it-py has no
  link, image, HTML or emphasis; LaTeX parsed by pylatexenc has only the escape macros and no
  math; no CSV text cell starts a formula; the terminal table has no control character; report.html
  has no script and only in-page links.

The examples are derandomized (the same on every run); the fast suite keeps them few (the file
runs in well under a minute), ``pytest -m slow`` runs many more.
"""

from __future__ import annotations

import csv
import importlib
import io
import json
import re
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from pylatexenc.latexwalker import LatexMacroNode, LatexMathNode, LatexWalker

from memdiag.cli import main

resolve = importlib.import_module("memdiag.panel.schemes._resolve")

#: Characters that mean something in LaTeX, Markdown, CSV, HTML, paths or a terminal.
SPECIAL = "\\{}$&#^_~%[]()<>`|*!=+-@'\",;:/.?\t\n\r\x1b\x00\u2028é中 "
NAME = st.text(alphabet=st.sampled_from(list("abcq01" + SPECIAL)), min_size=1, max_size=12)
#: Names that survive the readers (non-blank, no NUL): the ones whose escaping is checked.
GOOD_NAME = NAME.map(lambda s: s.replace("\x00", "")).filter(lambda s: s.strip() != "")
SCORE = st.sampled_from([0, 1, 1, 0, 0.5, 1.0, True, None, "", "1", "yes", "CORRECT", -1, 2, float("nan"), "0x1",
                         [1], {"value": 1}])
ENCODINGS = ("utf-8", "utf-8-sig", "latin-1", "utf-16", "cp1252")
FORMULA = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?(inf|nan)")
LATEX_MACROS = {"textbackslash", "{", "}", "%", "$", "&", "#", "_", "textasciicircum", "textasciitilde",
                "textless", "textgreater", "textbar", "toprule", "midrule", "bottomrule", "\\",
                "textminus"}  # memdiag's minus sign in numbers (tables.render), never from a name
#: The only links a report holds: its per-query replay files (written by memdiag, never from a name).
REPLAY_LINKS = {"replay/replay.csv", "replay/replay.jsonl"}
MARKDOWN_TAGS = {"table", "thead", "tbody", "tr", "th", "td", "ul", "li", "p", "code"}
FAST = settings(max_examples=30, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SLOW = settings(FAST, max_examples=300)


# --------------------------------------------------------------------------------------------
# strategies
# --------------------------------------------------------------------------------------------
@st.composite
def verdicts(draw, names=NAME, scores=SCORE, min_systems=1) -> tuple[list[dict], list[str]]:
    """Verdict records of 1-3 systems over 1-8 queries (some systems lack some queries)."""
    systems = draw(st.lists(names, min_size=min_systems, max_size=3, unique=True))
    queries = draw(st.lists(names, min_size=1, max_size=8, unique=True))
    categories = draw(st.lists(st.one_of(st.none(), names), min_size=len(queries), max_size=len(queries)))
    records = []
    for system in systems:
        kept = draw(st.lists(st.booleans(), min_size=len(queries), max_size=len(queries)))
        for query, category, keep in zip(queries, categories, kept):
            if keep or system == systems[0] or query == queries[0]:
                records.append({"system": system, "query_id": query, "score": draw(scores),
                                "category": category, "cluster": f"c{len(records) % 3}"})
    return records, systems


def write_verdicts(draw, folder: Path, records: list[dict]) -> list[Path]:
    """The records as one or several CSV / JSON / JSONL files in some encoding."""
    layout = draw(st.sampled_from(["csv", "json", "jsonl", "split-csv", "garbage"]))
    encoding = draw(st.sampled_from(ENCODINGS))
    folder.mkdir(parents=True, exist_ok=True)
    if layout == "garbage":
        path = folder / draw(st.sampled_from(["v.csv", "v.json", "v.parquet"]))
        path.write_bytes(draw(st.binary(max_size=200)))
        return [path]
    if layout == "split-csv":
        paths = []
        for k, system in enumerate(dict.fromkeys(r["system"] for r in records)):
            path = folder / f"v{k}.csv"
            pd.DataFrame([r for r in records if r["system"] == system]).to_csv(
                path, index=False, encoding=encoding, errors="replace")
            paths.append(path)
        return paths
    path = folder / f"v.{layout}"
    if layout == "csv":
        pd.DataFrame(records).to_csv(path, index=False, encoding=encoding, errors="replace")
    else:
        ascii_only = draw(st.booleans())
        text = (json.dumps(records, ensure_ascii=ascii_only) if layout == "json"
                else "\n".join(json.dumps(r, ensure_ascii=ascii_only) for r in records))
        path.write_bytes(text.encode(encoding, errors="replace"))
    return [path]


OPTION_VALUE = st.one_of(st.integers(-5, 300).map(str), st.floats(allow_nan=True, allow_infinity=True).map(str),
                         st.sampled_from(["0", "1", "100", "0.5", "0.95", "1e3", "nan", "-inf", "", "abc",
                                          str(2**63), "2**63", "1_000"]), st.text(max_size=6))


# --------------------------------------------------------------------------------------------
# the properties
# --------------------------------------------------------------------------------------------
def snapshot(root: Path) -> dict[str, bytes | None]:
    return {p.relative_to(root).as_posix(): (p.read_bytes() if p.is_file() else None)
            for p in sorted(root.rglob("*"))}


def invoke(root: Path, argv: list[object], outputs: tuple[str, ...] = ()) -> tuple[int, str, str]:
    """Run the command; check the exit status, stderr, and that nothing but ``outputs`` changed."""
    before = snapshot(root)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    stderr = err.getvalue()
    event(f"{argv[0]} exit {code}")
    assert code in ((0, 1, 2) if argv[0] == "audit" else (0, 2)), (code, stderr)
    assert "Traceback" not in stderr, stderr
    lines = stderr.splitlines()
    assert all(re.match(r"memdiag( \w+)?: (note|warning|error): ", line) for line in lines), stderr
    if code == 2:
        assert sum(": error: " in line for line in lines) == 1 and lines[-1].split(": ")[1] == "error", stderr
    after = snapshot(root)
    changed = {k for k in before.keys() | after.keys() if before.get(k, b"?") != after.get(k, b"?")}
    assert {k for k in changed if not k.startswith(outputs) or not outputs} == set(), changed
    return code, out.getvalue(), stderr


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def tags_of(html: str) -> list[tuple[str, dict]]:
    parser = _Tags()
    parser.feed(html)
    return parser.tags


def check_markdown(text: str, images: bool = False) -> None:
    html = MarkdownIt("commonmark").enable("table").enable("strikethrough").render(text)
    for tag, attrs in tags_of(html):
        if images and tag == "img":
            assert re.fullmatch(r"figures/\w+\.png", attrs["src"]), attrs
            continue
        if images and tag == "a":  # a report links its per-query replay, and nothing else
            assert attrs["href"] in REPLAY_LINKS, attrs
            continue
        assert tag in MARKDOWN_TAGS | ({"h1", "h2", "h3", "em"} if images else set()), (tag, attrs)


def check_latex(text: str) -> None:
    nodes, _, _ = LatexWalker(text, tolerant_parsing=False).get_latex_nodes()

    def walk(items):
        for node in items or ():
            yield node
            yield from walk(getattr(node, "nodelist", None))
            if isinstance(node, LatexMacroNode) and node.nodeargd is not None:
                yield from walk([a for a in node.nodeargd.argnlist if a is not None])

    every = list(walk(nodes))
    assert not [n for n in every if isinstance(n, LatexMathNode)]
    macros = {n.macroname for n in every if isinstance(n, LatexMacroNode)}
    assert macros <= LATEX_MACROS, macros - LATEX_MACROS
    for line in text.split("\\end{tabular}")[-1].strip("\n").split("\n"):
        assert not line or line.startswith("% "), line


def check_csv(text: str) -> None:
    for row in csv.reader(io.StringIO(text)):
        for cell in row:
            assert not cell.startswith(FORMULA) or NUMBER.fullmatch(cell), cell


def check_output(fmt: str, text: str) -> None:
    if fmt == "md":
        check_markdown(text)
    elif fmt == "latex":
        for part in text.split("\\begin{tabular}")[1:]:
            check_latex("\\begin{tabular}" + part)
    elif fmt == "csv":
        check_csv(text)
    elif fmt == "json":
        json.loads(text)
    else:
        assert not re.search("[\x00-\x09\x0b-\x1f\x7f\u2028\u2029]", text), repr(text)


def check_report(out: Path) -> None:
    check_markdown((out / "report.md").read_text(encoding="utf-8"), images=True)
    for tag, attrs in tags_of((out / "report.html").read_text(encoding="utf-8")):
        assert tag not in ("script", "iframe", "object", "embed"), tag
        if tag == "a":
            assert attrs.get("href", "#").startswith("#") or attrs["href"] in REPLAY_LINKS, attrs
        if tag == "img":
            assert attrs["src"].startswith("data:image/png;base64,"), attrs["src"][:40]
        assert not any(k.startswith("on") for k in attrs), attrs
    for table in (out / "tables").glob("*"):
        text = table.read_text(encoding="utf-8")
        {".md": check_markdown, ".tex": check_latex, ".csv": check_csv}[table.suffix](text)
    if (out / "replay").is_dir():  # names, questions and answers in the per-query replay
        check_csv((out / "replay" / "replay.csv").read_text(encoding="utf-8"))
        for line in (out / "replay" / "replay.jsonl").read_text(encoding="utf-8").splitlines():
            json.loads(line)
    for svg in (out / "figures").glob("*.svg"):
        assert [t for t, _ in tags_of(svg.read_text(encoding="utf-8")) if t in ("script", "foreignobject")] == []


@pytest.fixture(autouse=True)
def quick_patterns(monkeypatch):
    """A catastrophic exclude_ids pattern gives up after 0.05 s instead of 2 s."""
    monkeypatch.setattr(resolve, "PATTERN_SECONDS", 0.05)


# --------------------------------------------------------------------------------------------
# the fuzz tests
# --------------------------------------------------------------------------------------------
TABLE_COMMANDS = [("validate",), ("score", "--resamples", "100"), ("compare", "--resamples", "100", "--omnibus"),
                  ("flows", "--reference={ref}", "--by", "category", "--resamples", "100"),
                  ("agreement", "--resamples", "100"), ("evidence", "--resamples", "100")]


def _tables(data: st.DataObject) -> None:
    records, systems = data.draw(verdicts())
    command = data.draw(st.sampled_from(TABLE_COMMANDS))
    fmt = data.draw(st.sampled_from(["table", "md", "csv", "json", "latex"]))
    missing = data.draw(st.sampled_from(["error", "drop", "wrong"]))
    with tempfile.TemporaryDirectory() as name:
        root = Path(name)
        files = write_verdicts(data.draw, root / "in", records)
        to_file = data.draw(st.booleans())
        argv = [command[0], *files, *[a.format(ref=systems[0]) for a in command[1:]], "--format", fmt]
        argv += ["--missing", missing] if command[0] != "validate" else []
        argv += ["-o", root / "out.txt"] if to_file else []
        # several CSV tables go to out.txt, out.<name>.txt, ...
        code, out, _ = invoke(root, argv, ("out.",) if to_file else ())
        if code == 0:
            check_output(fmt, (root / "out.txt").read_text(encoding="utf-8") if to_file else out)


@FAST
@given(data=st.data())
def test_tables_from_hostile_verdict_files(data):
    _tables(data)


@pytest.mark.slow
@SLOW
@given(data=st.data())
def test_tables_from_hostile_verdict_files_many(data):
    _tables(data)


def _well_formed(data: st.DataObject) -> None:
    """Valid verdicts whose names are hostile: the command must succeed and escape every name."""
    records, systems = data.draw(verdicts(names=GOOD_NAME, scores=st.sampled_from([0, 1]), min_systems=2))
    fmt = data.draw(st.sampled_from(["table", "md", "csv", "latex"]))
    with tempfile.TemporaryDirectory() as name:
        root = Path(name)
        path = root / "v.json"
        path.write_text(json.dumps(records), encoding="utf-8")
        code, out, err = invoke(root, ["flows", path, f"--reference={systems[0]}", "--by", "category",
                                       "--missing", "wrong", "--resamples", "100", "--format", fmt])
        assert code == 0, err
        if code == 0:
            check_output(fmt, out)


@FAST
@given(data=st.data())
def test_well_formed_verdicts_with_hostile_names_are_escaped(data):
    _well_formed(data)


@pytest.mark.slow
@SLOW
@given(data=st.data())
def test_well_formed_verdicts_with_hostile_names_are_escaped_many(data):
    _well_formed(data)


def _options(data: st.DataObject) -> None:
    option = data.draw(st.sampled_from(["--resamples", "--seed", "--ci", "--threshold", "--design", "--missing",
                                        "--correction", "--format", "--by", "--reference"]))
    value = data.draw(OPTION_VALUE)
    records = [{"system": s, "query_id": f"q{i}", "score": (i * 7 + len(s)) % 2, "category": "abc"[i % 3],
                "cluster": f"c{i % 4}"} for s in ("rag", "mem") for i in range(12)]
    with tempfile.TemporaryDirectory() as name:
        root = Path(name)
        path = root / "v.csv"
        pd.DataFrame(records).to_csv(path, index=False)
        argv = ["flows", path, "--reference", "rag", "--resamples", "100", option, value]
        invoke(root, argv)


@FAST
@given(data=st.data())
def test_option_values(data):
    _options(data)


@pytest.mark.slow
@SLOW
@given(data=st.data())
def test_option_values_many(data):
    _options(data)


SCHEME_VALUE = st.one_of(NAME, st.none(), st.integers(-2, 3), st.floats(), st.lists(NAME, max_size=3),
                         st.dictionaries(NAME, st.one_of(st.floats(0, 1), NAME), max_size=3),
                         st.sampled_from(["^(a|aa)+$", "(", "[", "q\\d+", "category", "stratum", "cluster",
                                          "after", "iid", ".*"]))
SCHEME_KEY = st.sampled_from(["name", "group_by", "include", "exclude", "exclude_ids", "weights", "gates",
                              "phase", "required_groups", "threshold", "expected_n", "aliases", "design", "bogus"])
CLAIM_VALUE = st.one_of(NAME, st.none(), st.floats(), st.integers(-5, 200), st.booleans(),
                        st.sampled_from(["rag", "mem", "greater", "less", "different", "accuracy", "cluster",
                                         ".inf", "-5", "locomo"]))
CLAIM_KEY = st.sampled_from(["id", "family", "scheme", "benchmark", "metric", "system_a", "system_b", "threshold",
                             "direction", "design", "reported_value", "reported_diff", "reported_p", "tolerance",
                             "bogus"])
LOG_VALUE = st.one_of(NAME, st.none(), st.booleans(), st.integers(-1, 2), st.sampled_from(["yes", "no", "add",
                                                                                       "update", "delete", "noop"]))
LOG_KEY = st.sampled_from(["cluster", "decision", "persisted", "old_text", "new_text", "memory_id", "decision_id"])


def _side_files(data: st.DataObject) -> None:
    kind = data.draw(st.sampled_from(["scheme", "claims", "log"]))
    records = [{"system": s, "query_id": f"q{i}", "score": (i * 5 + len(s)) % 2, "category": "abc"[i % 3],
                "cluster": f"c{i % 4}"} for s in ("rag", "mem") for i in range(12)]
    as_text = data.draw(st.booleans())
    with tempfile.TemporaryDirectory() as name:
        root = Path(name)
        verdict_file = root / "v.csv"
        pd.DataFrame(records).to_csv(verdict_file, index=False)
        if kind == "scheme":
            spec = data.draw(st.dictionaries(SCHEME_KEY, SCHEME_VALUE, max_size=5))
            path = root / "s.yaml"
            argv = ["score", verdict_file, "--scheme", path, "--resamples", "100"]
        elif kind == "claims":
            spec = data.draw(st.lists(st.dictionaries(CLAIM_KEY, CLAIM_VALUE, max_size=8), max_size=3))
            path = root / data.draw(st.sampled_from(["c.yaml", "c.csv", "c.json"]))
            argv = ["audit", path, "--verdicts", verdict_file, "--resamples", "100"]
        else:
            spec = data.draw(st.lists(st.dictionaries(LOG_KEY, LOG_VALUE, max_size=7), max_size=6))
            path = root / data.draw(st.sampled_from(["w.csv", "w.jsonl"]))
            argv = ["writes", path]
        if as_text:
            if path.suffix == ".csv":
                frame = pd.DataFrame(spec if isinstance(spec, list) else [spec])
                payload = frame.to_csv(index=False).encode(data.draw(st.sampled_from(ENCODINGS)), errors="replace")
            elif path.suffix == ".jsonl":
                payload = "\n".join(json.dumps(r, default=str) for r in spec).encode()
            else:
                payload = json.dumps(spec, default=str).encode() if path.suffix == ".json" else \
                    __import__("yaml").safe_dump(spec, allow_unicode=True).encode()
        else:
            payload = data.draw(st.binary(max_size=120))
        path.write_bytes(payload)
        invoke(root, argv)


@FAST
@given(data=st.data())
def test_schemes_claims_and_write_logs(data):
    _side_files(data)


@pytest.mark.slow
@SLOW
@given(data=st.data())
def test_schemes_claims_and_write_logs_many(data):
    _side_files(data)


def _report(data: st.DataObject) -> None:
    names = data.draw(st.lists(GOOD_NAME, min_size=2, max_size=3, unique_by=lambda s: s.strip()))
    categories = data.draw(st.lists(st.one_of(st.none(), GOOD_NAME), min_size=3, max_size=3))
    records = [{"system": s, "query_id": f"q{i}", "score": (i * 3 + k) % 2, "category": categories[i % 3],
                "cluster": f"c{i % 5}"} for k, s in enumerate(names) for i in range(30)]
    with tempfile.TemporaryDirectory() as name:
        root = Path(name)
        path = root / "in" / "v.json"
        path.parent.mkdir()
        path.write_text(json.dumps(records), encoding="utf-8")
        code, _, err = invoke(root, ["report", path, f"--reference={names[0]}", "--out", root / "out",
                                     "--resamples", "100"], ("out",))
        assert code == 0, err
        check_report(root / "out")


@settings(FAST, max_examples=2)
@given(data=st.data())
def test_report_with_hostile_names(data):
    _report(data)


@pytest.mark.slow
@settings(SLOW, max_examples=15)
@given(data=st.data())
def test_report_with_hostile_names_many(data):
    _report(data)


# --------------------------------------------------------------------------------------------
# the classes of the second hostile sweep (issue 21): codecs, row shapes, duplicate keys,
# line separators, recipes (NaN, paths outside, aliases, alias bombs), autolink / bidi names
# --------------------------------------------------------------------------------------------
#: Names GitHub would link, or that reorder, hide or pad their text.
SWEEP_NAME = st.sampled_from(["www.example.org/x", "https://e.example/a", "a@b.example", "xmpp:me@c.example",
                              "evil\u202egnp", "ze\u200bro", "rtl\u2067x\u2069", "bom\ufeff", "mem0 ", " lead",
                              "(none)", "Single_Hop", "single-hop", "plain"])
CODECS = {"gz": __import__("gzip").compress, "bz2": __import__("bz2").compress, "xz": __import__("lzma").compress,
          "zst": __import__("zstandard").ZstdCompressor().compress}


def _sweep_file(data: st.DataObject, root: Path, records: list[dict]) -> list[object]:
    """One hostile input of the second sweep; returns the arguments that read it."""
    kind = data.draw(st.sampled_from(["codec", "csv-shape", "json-duplicate", "jsonl-separator", "recipe"]))
    event(f"sweep {kind}")
    frame = pd.DataFrame(records)
    if kind == "codec":
        codec = data.draw(st.sampled_from(sorted(CODECS)))
        payload = frame.to_csv(index=False).encode()
        split = data.draw(st.integers(0, len(payload)))
        body = CODECS[codec](payload[:split]) + CODECS[codec](payload[split:])  # two streams
        cut = data.draw(st.one_of(st.none(), st.integers(0, len(body) - 1)))
        path = root / f"v.csv.{codec}"
        path.write_bytes(body if cut is None else body[:cut])
        return [path]
    if kind == "csv-shape":
        ending = data.draw(st.sampled_from(["\n", "\r\n", "\r"]))
        extra = data.draw(st.sampled_from(["", ",", ",,", ",x"]))
        lines = [",".join(frame.columns)] + [",".join("" if pd.isna(v) else str(v).replace(",", ";").replace(
            "\n", " ").replace("\r", " ").replace('"', "'") for v in row) + extra for row in frame.itertuples(index=False)]
        path = root / "v.csv"
        path.write_bytes(ending.join(lines).encode("utf-8", errors="replace"))
        return [path]
    if kind == "json-duplicate":
        text = json.dumps(records)
        if data.draw(st.booleans()):
            text = text.replace('"score": ', '"score": 0, "score": ', 1)
        path = root / "v.json"
        path.write_text(text, encoding="utf-8", errors="replace")
        return [path]
    if kind == "jsonl-separator":
        sep = data.draw(st.sampled_from(["\u2028", "\u2029", "\u0085", "\x1c"]))
        path = root / "v.jsonl"
        path.write_text("\n".join(json.dumps({**r, "note": f"a{sep}b"}, ensure_ascii=False) for r in records),
                        encoding="utf-8", errors="replace")
        return [path]
    (root / "v.csv").write_text(frame.to_csv(index=False), encoding="utf-8", errors="replace")
    files = data.draw(st.sampled_from(["[v.csv]", "[../v.csv]", "[/etc/hostname]", "['../*.csv']", "[v.csv]"]))
    twist = data.draw(st.sampled_from(["", "sources:\n  - files: [v.csv]\n", "labels: {a: b, b: b}\n",
                                       "x: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n"
                                       + "".join(f"x{k}: &a{k} [" + ", ".join([f"*a{k - 1}" if k else "*a"] * 10)
                                                 + "]\n" for k in range(7)) + "description: *a6\n"]))
    above = data.draw(st.sampled_from(["", ", above: .nan", ", above: 0.5"]))
    recipe = root / "r.yaml"
    recipe.write_text(f"sources:\n  - files: {files}\n    fields: {{query_id: query_id, system: system, "
                      f"score: {{from: score{above}}}}}\n" + twist, encoding="utf-8")
    return ["--recipe", recipe]


def _sweep(data: st.DataObject) -> None:
    records, systems = data.draw(verdicts(names=st.one_of(SWEEP_NAME, GOOD_NAME), scores=st.sampled_from([0, 1]),
                                          min_systems=2))
    fmt = data.draw(st.sampled_from(["table", "md"]))
    with tempfile.TemporaryDirectory() as name:
        root = Path(name) / "release"
        root.mkdir()
        args = _sweep_file(data, root, records)
        code, out, _ = invoke(root, ["score", *args, "--format", fmt])
        if code == 0:
            check_output(fmt, out)
            if fmt == "md":
                import cmarkgfm

                assert "<a " not in cmarkgfm.github_flavored_markdown_to_html(out), out
            else:
                assert not re.search("[\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]", out), repr(out)


@settings(FAST, max_examples=15)
@given(data=st.data())
def test_second_sweep_inputs(data):
    _sweep(data)


@pytest.mark.slow
@SLOW
@given(data=st.data())
def test_second_sweep_inputs_many(data):
    _sweep(data)


def test_a_json_list_as_a_score_is_one_line(tmp_path, tmp_path_factory, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path_factory.mktemp("tracebacks")))  # not /tmp
    path = tmp_path / "v.json"
    path.write_text(json.dumps([{"system": "a", "query_id": "q1", "score": [1]},
                                {"system": "b", "query_id": "q1", "score": 1}]), encoding="utf-8")
    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        code = main(["validate", str(path)])
    assert code == 2 and "field 'score': a JSON list ([1]) is not a verdict" in err.getvalue()
