"""README "What memdiag guarantees", second hostile sweep (issue 21): one test per class of input
that broke a promise in memdiag 0.2.0 — data lost or misread, names injected, resources unbounded,
wrong exit codes, faults half-written, recipe paths escaping their folder.

Every test here fails on 0.2.0 (checked by running this file against that release's tree)."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import zstandard
from cli_run import run

import memdiag as md

ROOT = Path(__file__).resolve().parents[1]
CODECS = {"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress,
          "zst": zstandard.ZstdCompressor().compress}



def one_line(err: str) -> bool:
    return err.count("\n") == 1 and "Traceback" not in err


def rows(systems=("rag", "mem"), n=6) -> list[dict]:
    return [{"system": s, "query_id": f"q{i}", "score": (i + k) % 2, "cluster": f"c{i % 3}"}
            for k, s in enumerate(systems) for i in range(n)]


def csv_bytes(records: list[dict]) -> bytes:
    return pd.DataFrame(records).to_csv(index=False).encode()


@pytest.fixture
def small(tmp_path) -> Path:
    folder = tmp_path / "verdicts"
    folder.mkdir()
    df = md.simulate(n_queries=24, systems=("raw-rag", "mem0"), n_clusters=6, sufficiency=False, costs=False,
                     seed=4)
    for system, part in df.groupby("system"):
        part.to_csv(folder / f"{system}.csv", index=False)
    return folder


# --------------------------------------------------------------------------------------------
# 1. data loss and silent misreading
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("codec", sorted(CODECS))
def test_every_stream_of_a_concatenated_compressed_file_is_read(tmp_path, codec):
    records = rows(n=8)
    first, second = csv_bytes(records[:5]), csv_bytes(records[5:]).split(b"\n", 1)[1]  # one header
    path = tmp_path / f"v.csv.{codec}"
    path.write_bytes(CODECS[codec](first) + CODECS[codec](second))  # as `cat a.gz b.gz` makes
    df = md.read_verdicts(path)
    assert len(df) == 16 and sorted(df["query_id"].unique()) == sorted(f"q{i}" for i in range(8))


@pytest.mark.parametrize("codec", sorted(CODECS))
@pytest.mark.parametrize("cut", [0.3, 0.6, 0.99])
def test_a_cut_compressed_file_is_an_error_naming_it(tmp_path, codec, cut):
    data = CODECS[codec](csv_bytes(rows(n=40)))
    path = tmp_path / f"v.csv.{codec}"
    path.write_bytes(data[:int(len(data) * cut)])
    code, out, err = run("validate", path)
    assert code == 2 and out == "" and one_line(err)
    assert str(path) in err and "cut" in err and "empty" not in err


def test_a_cut_second_stream_is_an_error_not_the_first_stream_alone(tmp_path):
    records = rows(n=8)
    data = lzma.compress(csv_bytes(records[:5])) + lzma.compress(csv_bytes(records[5:]).split(b"\n", 1)[1])
    path = tmp_path / "v.csv.xz"
    path.write_bytes(data[:-4])
    code, _, err = run("validate", path)
    assert code == 2 and one_line(err) and "cut xz file" in err


_LIMITED = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (3_000_000 * 1024, 3_000_000 * 1024))  # ulimit -v 3000000
from memdiag.cli import main
code = main(["validate", sys.argv[1]])
# VmHWM is this program's own peak (ru_maxrss can carry the forking pytest process's peak across exec)
hwm = next(line for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print("peak", int(hwm.split()[1]), file=sys.stderr)
sys.exit(code)
"""


@pytest.mark.parametrize("codec", ["gz", "zst"])
def test_a_small_compressed_file_reads_under_a_3_gb_address_space_limit(tmp_path, codec):
    """0.2.0 reserved 4 GiB for every .gz/.zst (a 1 KB file failed under ``ulimit -v 3000000``)."""
    path = tmp_path / f"v.csv.{codec}"
    path.write_bytes(CODECS[codec](csv_bytes(rows())))
    done = subprocess.run([sys.executable, "-c", _LIMITED, str(path)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert done.returncode == 0, done.stderr


def test_a_1_mb_gz_is_read_in_bounded_memory(tmp_path):
    """A 1 MB .gz of verdicts (200,000 rows, 4 MB of CSV) reads in well under 1 GB of memory."""
    n = 200_000
    text = "system,query_id,score\n" + "".join(f"s{i % 4},q{i // 4},{(i * 7) % 3 % 2}\n" for i in range(n))
    path = tmp_path / "big.csv.gz"
    path.write_bytes(gzip.compress(text.encode(), 9))
    assert path.stat().st_size < 1_500_000
    done = subprocess.run([sys.executable, "-c", _LIMITED, str(path)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert done.returncode == 0, done.stderr
    peak_kib = int(done.stderr.rsplit("peak", 1)[1])
    assert peak_kib < 1_000_000, peak_kib


def test_a_decompression_bomb_names_the_limit_and_how_to_raise_it(tmp_path, monkeypatch):
    path = tmp_path / "v.csv.gz"
    path.write_bytes(gzip.compress(b"system,query_id,score\n" + b"a,q,1\n" * 400_000))
    monkeypatch.setenv("MEMDIAG_MAX_DECOMPRESSED_MIB", "1")
    code, _, err = run("validate", path)
    assert code == 2 and one_line(err) and "more than 1 MiB" in err and "MEMDIAG_MAX_DECOMPRESSED_MIB" in err


def _recipe_in_out(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    """A recipe and its join side file inside the report folder, the verdicts outside it."""
    data = tmp_path / "data"
    data.mkdir()
    verdicts = data / "v.csv"
    verdicts.write_bytes(csv_bytes(rows()))
    out = tmp_path / "out"
    out.mkdir()
    side = out / "side.json"
    side.write_text(json.dumps({f"q{i}": {"hop": "one" if i % 2 else "two"} for i in range(6)}), encoding="utf-8")
    recipe = out / "recipe.yaml"
    recipe.write_text("sources:\n  - files: [v.csv]\njoin:\n  - files: [side.json]\n    fields: {category: hop}\n",
                      encoding="utf-8")
    return out, recipe, side, verdicts


def test_report_force_never_deletes_the_recipe_or_its_side_files(tmp_path):
    out, recipe, side, verdicts = _recipe_in_out(tmp_path)
    kept = {p: p.read_bytes() for p in out.iterdir()}
    code, _, err = run("report", verdicts, "--recipe", recipe, "--reference", "rag", "--out", out,
                       "--resamples", 100, "--force")
    assert code == 2 and one_line(err) and "holds the input" in err
    assert {p: p.read_bytes() for p in out.iterdir()} == kept


def test_report_force_never_deletes_a_join_side_file(tmp_path, small):
    out = tmp_path / "out"
    out.mkdir()
    side = out / "side.json"
    side.write_text(json.dumps({}), encoding="utf-8")
    code, _, err = run("report", small, "--join", f"{side},category=hop", "--reference", "raw-rag", "--out", out,
                       "--resamples", 100, "--force")
    assert code == 2 and one_line(err) and side.exists()


def test_an_output_that_is_a_hard_link_of_an_input_is_refused(tmp_path, small):
    link = tmp_path / "hard.csv"
    os.link(small / "mem0.csv", link)
    before = (small / "mem0.csv").read_bytes()
    code, _, err = run("score", small, "-o", link, "--force")
    assert code == 2 and one_line(err) and "is one of the inputs" in err
    assert (small / "mem0.csv").read_bytes() == before


def test_an_output_may_not_be_a_file_a_recipe_reads(tmp_path):
    out, recipe, side, verdicts = _recipe_in_out(tmp_path)
    before = side.read_bytes()
    code, _, err = run("score", verdicts, "--recipe", recipe, "-o", side, "--force")
    assert code == 2 and one_line(err) and "is one of the inputs" in err and side.read_bytes() == before


def test_inspect_write_obeys_the_output_rules(tmp_path, small):
    dangling = tmp_path / "recipe.yaml"
    dangling.symlink_to(tmp_path / "elsewhere" / "nothing.yaml")
    code, _, err = run("inspect", small, "--write", dangling)
    assert code == 2 and one_line(err) and "--force" in err
    assert dangling.is_symlink() and not (tmp_path / "elsewhere").exists()
    code, _, err = run("inspect", small / "mem0.csv", "--write", small / "mem0.csv", "--force")
    assert code == 2 and one_line(err) and "is one of the inputs" in err


def test_a_trailing_comma_on_every_row_keeps_the_columns(tmp_path):
    path = tmp_path / "v.csv"
    path.write_text("system,query_id,score\n" + "".join(f"{r['system']},{r['query_id']},{r['score']},\n"
                                                       for r in rows()), encoding="utf-8")
    df = md.read_verdicts(path)
    assert sorted(df["system"].unique()) == ["mem", "rag"] and len(df) == 12


def test_a_filled_field_beyond_the_header_is_an_error_naming_the_row(tmp_path):
    path = tmp_path / "v.csv"
    path.write_text("system,query_id,score\nrag,q1,1\nmem,q1,0,extra\n", encoding="utf-8")
    code, _, err = run("validate", path)
    assert code == 2 and one_line(err) and str(path) in err and ("record 2" in err or "line 3" in err)


def test_a_trailing_comma_in_a_systems_table_keeps_the_columns(tmp_path):
    verdicts = tmp_path / "v.csv"
    md.simulate(n_queries=24, systems=("raw-rag", "mem0"), n_clusters=6, seed=4).to_csv(verdicts, index=False)
    table = tmp_path / "systems.csv"
    table.write_text("system,label,hours\nraw-rag,R,1,\nmem0,M,2,\n", encoding="utf-8")
    code, out, err = run("costs", verdicts, "--systems-table", table, "--reference", "raw-rag", "--resamples", 100,
                         "--format", "json")
    assert code == 0, err
    rows = json.loads(out)[-1]["rows"]             # the systems table's costs: system names and hours as written
    assert [(r["system"], r["quantity"], r["value"]) for r in rows] == [("raw-rag", "hours", 1), ("mem0", "hours", 2)]


@pytest.mark.slow  # three (two) whole reports
def test_rerun_of_a_report_read_through_a_recipe_keeps_the_recipe_and_is_byte_identical(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "v.csv").write_bytes(csv_bytes(rows(n=12)))
    recipe = data / "recipe.yaml"
    recipe.write_text("sources:\n  - files: [v.csv]\n", encoding="utf-8")
    first = tmp_path / "first"
    code, _, err = run("report", "--recipe", recipe, "--reference", "rag", "--out", first, "--resamples", 100)
    assert code == 0, err
    second, third = tmp_path / "second", tmp_path / "third"
    code, _, err = run("report", "--rerun", first / "analysis.json", "--out", second)
    assert code == 0, err
    code, _, err = run("report", "--rerun", second / "analysis.json", "--out", third)
    assert code == 0, err
    document = json.loads((second / "analysis.json").read_text(encoding="utf-8"))
    assert (second / document["inputs"]["verdicts"]["rerun"]["recipe"]["path"]).resolve() == recipe.resolve()
    for name in ("analysis.json", "tables/flows.csv", "report.md"):
        assert (second / name).read_bytes() == (first / name).read_bytes() == (third / name).read_bytes()


@pytest.mark.parametrize("kind", ["recipe", "scheme-yaml", "scheme-json", "claims", "verdicts-json",
                                  "verdicts-jsonl", "log-jsonl"])
def test_a_key_written_twice_is_refused_naming_the_file_and_key(tmp_path, small, kind):
    verdicts = tmp_path / "v.csv"
    verdicts.write_bytes(csv_bytes(rows()))
    record = '{"system": "rag", "query_id": "q1", "score": 1, "score": 0}'
    path, argv, key = {
        "recipe": ("r.yaml", ["validate", "--recipe", "{p}"], "sources"),
        "scheme-yaml": ("s.yaml", ["score", verdicts, "--scheme", "{p}"], "group_by"),
        "scheme-json": ("s.json", ["score", verdicts, "--scheme", "{p}"], "group_by"),
        "claims": ("c.yaml", ["audit", "{p}", "--verdicts", verdicts, "--resamples", 100], "system_a"),
        "verdicts-json": ("v.json", ["validate", "{p}"], "score"),
        "verdicts-jsonl": ("v.jsonl", ["validate", "{p}"], "score"),
        "log-jsonl": ("w.jsonl", ["writes", "{p}"], "decision"),
    }[kind]
    text = {
        "recipe": "sources:\n  - files: [v.csv]\nsources:\n  - files: [other.csv]\n",
        "scheme-yaml": "group_by: category\ngroup_by: cluster\n",
        "scheme-json": '{"group_by": "category", "group_by": "cluster"}',
        "claims": "- {id: c, system_a: rag, system_a: mem, threshold: 10, direction: greater}\n",
        "verdicts-json": "[" + record + ', {"system": "mem", "query_id": "q1", "score": 1}]',
        "verdicts-jsonl": record + '\n{"system": "mem", "query_id": "q1", "score": 1}\n',
        "log-jsonl": '{"cluster": "c1", "decision": "ADD", "decision": "NONE", "persisted": true}\n',
    }[kind]
    path = tmp_path / path
    path.write_text(text, encoding="utf-8")
    code, _, err = run(*[str(a).format(p=path) for a in argv])
    assert code == 2 and one_line(err) and path.name in err and repr(key) in err
    assert "duplicate" in err or "twice" in err


def test_a_yaml_alias_bomb_is_refused_quickly_naming_the_limit(tmp_path):
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for prev, name in zip("abcdefgh", "bcdefghi"):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 10) + "]")
    (tmp_path / "v.csv").write_bytes(csv_bytes(rows()))
    recipe = tmp_path / "r.yaml"
    recipe.write_text("\n".join(lines) + "\nsources:\n  - files: [v.csv]\ndescription: *i\n", encoding="utf-8")
    claims = tmp_path / "c.yaml"
    claims.write_text("\n".join(lines) + "\nclaims: *i\n", encoding="utf-8")
    scheme = tmp_path / "s.yaml"
    scheme.write_text("\n".join(lines) + "\ngroup_by: category\n", encoding="utf-8")
    summaries = tmp_path / "summaries.yaml"
    summaries.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for argv in (["validate", "--recipe", recipe],
                 ["audit", claims, "--verdicts", tmp_path / "v.csv", "--resamples", 100],
                 ["score", tmp_path / "v.csv", "--scheme", scheme], ["audit", "--summaries", summaries]):
        code, _, err = run(*argv)
        assert code == 2 and one_line(err) and "MEMDIAG_MAX_YAML_NODES" in err and "1,000,000 nodes" in err


def test_yaml_merge_keys_still_override_and_are_no_duplicates(tmp_path):
    claims = tmp_path / "claims.yaml"
    claims.write_text("claims:\n  - &b {id: one, system_a: mem, system_b: rag, direction: greater}\n"
                      "  - <<: *b\n    id: two\n    direction: less\n", encoding="utf-8")
    read = md.read_claims(claims)[["id", "system_a", "system_b", "direction"]]
    assert read.to_numpy().tolist() == [["one", "mem", "rag", "greater"], ["two", "mem", "rag", "less"]]


@pytest.mark.parametrize("value", [".nan", ".inf", "-.inf"])
def test_a_recipe_number_that_is_not_finite_is_refused(tmp_path, value):
    (tmp_path / "v.csv").write_bytes(csv_bytes(rows()))
    recipe = tmp_path / "r.yaml"
    recipe.write_text("sources:\n  - files: [v.csv]\n    fields: {query_id: query_id, system: system, "
                      f"score: {{from: score, above: {value}}}}}\n", encoding="utf-8")
    code, _, err = run("validate", "--recipe", recipe)
    assert code == 2 and one_line(err) and "above must be a finite number" in err and str(recipe) in err


@pytest.mark.parametrize("columns, says", [("{1: x}", "'columns' key 1"), ("{x: [1, 2]}", "one text or number"),
                                           ("{x: {a: 1}}", "one text or number")])
def test_recipe_constant_columns_must_be_named_scalars(tmp_path, columns, says):
    (tmp_path / "v.csv").write_bytes(csv_bytes(rows()))
    recipe = tmp_path / "r.yaml"
    recipe.write_text(f"sources:\n  - files: [v.csv]\n    columns: {columns}\n", encoding="utf-8")
    code, _, err = run("flows", "--recipe", recipe, "--reference", "rag", "--resamples", 100)
    assert code == 2 and one_line(err) and says in err and str(recipe) in err


def _labelled() -> pd.DataFrame:
    cats = ["single-hop", "Single_Hop", "multi-hop", None, "(none)", "multi-hop"]
    return pd.DataFrame([{"system": s, "query_id": f"q{i}", "score": (i + k) % 2, "category": cats[i % 6]}
                         for k, s in enumerate(["rag", "mem"]) for i in range(12)])


def test_labels_pooled_by_a_scheme_say_so_in_a_note():
    scores = md.score(md.prepare(_labelled(), scheme={"group_by": "category", "weights": {"single-hop": 0.5, "multi-hop": 0.5}}), options=dict(n_resamples=0))
    pooled = [n for n in scores.attrs["notes"] if "pooled" in n]
    assert len(pooled) == 1 and "'single-hop', 'Single_Hop'" in pooled[0] and "4 queries" in pooled[0]


def test_a_real_none_label_is_not_the_unlabelled_group():
    flows = md.flows(_labelled(), "rag", by="category", options=dict(n_resamples=100))
    groups = flows["group"].tolist()
    assert groups.count("(none)") == 1 and "(no label)" in groups
    assert flows.set_index("group").loc["(none)", "n"] == 2 and flows.set_index("group").loc["(no label)", "n"] == 2


def test_an_alias_that_is_another_systems_name_is_refused(tmp_path, small):
    code, _, err = run("report", small, "--reference", "raw-rag", "--alias", "mem0=raw-rag", "--out",
                       tmp_path / "out", "--resamples", 100)
    assert code == 2 and one_line(err) and "'mem0' and 'raw-rag' would both be drawn as 'raw-rag'" in err
    assert not (tmp_path / "out").exists()


def test_recipe_labels_that_draw_two_systems_under_one_name_are_refused(tmp_path):
    (tmp_path / "v.csv").write_bytes(csv_bytes(rows()))
    recipe = tmp_path / "r.yaml"
    recipe.write_text("sources:\n  - files: [v.csv]\nlabels: {rag: M, mem: M}\n", encoding="utf-8")
    code, _, err = run("report", "--recipe", recipe, "--reference", "rag", "--out", tmp_path / "out",
                       "--resamples", 100)
    assert code == 2 and one_line(err) and "both be drawn as 'M'" in err


# --------------------------------------------------------------------------------------------
# 2. injection: autolinks, bidi controls, invisible characters, spaces at the ends of names
# --------------------------------------------------------------------------------------------
AUTOLINKS = ["www.example.org/x", "https://evil.example/a", "a@b.example", "WWW.EXAMPLE.COM", "ftp://f.example",
             "xmpp:me@chat.example"]
INVISIBLE = ["evil\u202egnp.exe", "ze\u200bro", "rtl\u2067x\u2069", "bom\ufeff", "mem0 "]


def gfm(text: str) -> str:
    import cmarkgfm
    from cmarkgfm.cmark import Options

    return cmarkgfm.github_flavored_markdown_to_html(text, options=Options.CMARK_OPT_UNSAFE)


@pytest.mark.parametrize("name", AUTOLINKS)
def test_names_never_become_links_on_github(name):
    table = pd.DataFrame({"system": [name], "n": [1]})
    table.attrs.update(notes=[name], scheme=name)
    html = gfm(md.tables.render(table, "md"))     # the name in a table cell, a list item and a paragraph
    assert "<a " not in html, html
    assert html.replace("<code>@</code>", "@").count(name) == 3  # shown as written, each time


def test_a_report_with_autolink_names_has_no_link_on_github(tmp_path):
    records = [{"system": s, "query_id": f"q{i}", "score": (i * 3 + k) % 2, "category": AUTOLINKS[i % 3],
                "cluster": f"c{i % 5}"} for k, s in enumerate(AUTOLINKS[:3]) for i in range(30)]
    path = tmp_path / "v.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    out = tmp_path / "out"
    code, _, err = run("report", path, "--reference", AUTOLINKS[0], "--out", out, "--resamples", 100)
    assert code == 0, err
    links = {"replay/replay.csv", "replay/replay.jsonl"}  # the report's own links to its replay files
    for md_file in [out / "report.md", *sorted((out / "tables").glob("*.md"))]:
        html = gfm(md_file.read_text(encoding="utf-8"))
        hrefs = [h for h in __import__("re").findall(r'<a href="([^"]*)"', html) if h not in links]
        assert hrefs == [], (md_file.name, hrefs)
    code, out_md, _ = run("score", path, "--format", "md")
    assert code == 0 and "<a " not in gfm(out_md)


@pytest.mark.parametrize("name", INVISIBLE)
def test_bidi_controls_zero_width_and_edge_spaces_are_visible_in_terminal_tables(tmp_path, name):
    path = tmp_path / "v.json"
    path.write_text(json.dumps([{"system": name, "query_id": "q1", "score": 1},
                                {"system": "mem0", "query_id": "q1", "score": 0}]), encoding="utf-8")
    code, out, err = run("validate", path)
    assert code == 0, err
    shown = [line.split()[0] for line in out.splitlines()[2:4]]
    assert all(ord(ch) < 0x2000 or ch.isprintable() and ch not in "\u200b\u200c\u200d\u2060\ufeff"
               for line in out.splitlines() for ch in line)
    assert not any(ch in out for ch in "\u202e\u200b\u2067\u2069\ufeff")
    assert len(set(shown)) == 2  # "mem0 " and "mem0" look different


@pytest.mark.parametrize("name", INVISIBLE[:3])
def test_bidi_controls_and_zero_width_characters_are_visible_in_figures(name):
    label = md.plot.system_styles([name, "mem0"])[name].label
    assert not any(ch in label for ch in "\u202e\u200b\u2067\u2069")
    assert "\\u" in label
    fig = md.plot.matrix(md.compare(pd.DataFrame(
        [{"system": s, "query_id": f"q{i}", "score": (i + k) % 2} for k, s in enumerate([name, "mem0", "rag"])
         for i in range(20)]),
                                    options=dict(n_resamples=100)))
    from matplotlib.text import Text

    drawn = "".join(t.get_text() for t in fig.findobj(Text))
    assert "mem0" in drawn and not any(ch in drawn for ch in "\u202e\u200b\u2067\u2069")


# --------------------------------------------------------------------------------------------
# 3. resources: globs, replicates, the matrix figure (YAML and decompression above)
# --------------------------------------------------------------------------------------------
def test_repeated_double_star_globs_are_linear(tmp_path):
    import time

    folder = tmp_path
    for level in range(30):
        folder = folder / f"d{level}"
    folder.mkdir(parents=True)
    (folder / "v.csv").write_bytes(csv_bytes(rows()))
    pattern = str(tmp_path) + "/" + "**/" * 10 + "*.csv"
    start = time.perf_counter()
    df = md.read_verdicts(pattern)
    assert len(df) == 12 and time.perf_counter() - start < 5
    start = time.perf_counter()  # no match: 0.2.0 tried every way to split 31 parts over 10 '**' (hours)
    with pytest.raises(md.VerdictError, match="no file matches"):
        md.read_verdicts(str(tmp_path) + "/" + "**/" * 10 + "*.json")
    assert time.perf_counter() - start < 5


def test_the_python_api_refuses_more_replicates_than_the_cli_and_says_how_to_raise_it(monkeypatch):
    df = pd.DataFrame(rows())
    with pytest.raises(md.VerdictError, match=r"at most 10,000,000 .*MEMDIAG_MAX_RESAMPLES"):
        md.flows(df, "rag", options=dict(n_resamples=10**12))
    monkeypatch.setenv("MEMDIAG_MAX_RESAMPLES", "100")
    with pytest.raises(md.VerdictError, match="at most 100 "):
        md.score(df, options=dict(n_resamples=200))


def test_rerun_refuses_a_recorded_replicate_count_past_the_limit(tmp_path, small):
    first = tmp_path / "first"
    code, _, err = run("report", small, "--reference", "raw-rag", "--out", first, "--resamples", 100)
    assert code == 0, err
    document = json.loads((first / "analysis.json").read_text(encoding="utf-8"))
    document["settings"]["n_resamples"] = 10**12
    tampered = tmp_path / "analysis.json"
    tampered.write_text(json.dumps(document), encoding="utf-8")
    code, _, err = run("report", "--rerun", tampered, "--out", tmp_path / "again")
    assert code == 2 and one_line(err) and "at most 10,000,000" in err and "MEMDIAG_MAX_RESAMPLES" in err


def test_the_matrix_figure_of_many_systems_is_a_clear_error_not_gigabytes():
    k = 41                                          # one past the default limit
    names = [f"s{i}" for i in range(k)]
    frame = pd.DataFrame([{"system_a": a, "system_b": b, "diff": 1.0, "ci_low": 0.0, "ci_high": 2.0, "p": 0.5,
                           "p_adj": 0.5} for i, a in enumerate(names) for b in names[i + 1:]])
    with pytest.raises(md.VerdictError, match=r"at most 40 systems .*MEMDIAG_MAX_MATRIX_SYSTEMS"):
        md.plot.matrix(frame)


def test_a_report_of_more_systems_than_the_matrix_limit_leaves_the_figure_out_with_a_warning(tmp_path, small,
                                                                                             monkeypatch):
    monkeypatch.setenv("MEMDIAG_MAX_MATRIX_SYSTEMS", "1")
    out = tmp_path / "out"
    code, _, err = run("report", small, "--reference", "raw-rag", "--out", out, "--resamples", 100)
    assert code == 0, err
    assert not (out / "figures" / "matrix.png").exists() and (out / "figures" / "forest.png").exists()
    text = (out / "report.md").read_text(encoding="utf-8")  # the report's warnings list says why
    assert "figure matrix left out" in text and "MEMDIAG\\_MAX\\_MATRIX\\_SYSTEMS" in text


# --------------------------------------------------------------------------------------------
# 4. exit codes: exit 2 and one line naming the file, never exit 3 or a traceback
# --------------------------------------------------------------------------------------------
def _parquet_cases(tmp_path: Path) -> dict[str, Path]:
    lists = tmp_path / "lists.parquet"
    pd.DataFrame({"system": ["a", "b"], "query_id": ["q1", "q1"], "score": [[1], [0]]}).to_parquet(lists)
    whole = tmp_path / "whole.parquet"
    pd.DataFrame({"system": ["a", "b"], "query_id": ["q1", "q1"], "score": [1, 0]}).to_parquet(whole)
    cut = tmp_path / "cut.parquet"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    return {"lists": lists, "cut": cut}


@pytest.mark.parametrize("case", ["cr-only", "huge-int", "parquet-lists", "parquet-cut", "surrogate", "tokenizer"])
def test_hostile_verdict_files_exit_2_with_one_line_naming_the_file(tmp_path, case):
    if case.startswith("parquet"):
        path = _parquet_cases(tmp_path)[case.split("-")[1]]
    else:
        path = tmp_path / ("v.json" if case == "surrogate" else "v.csv")
        path.write_text({
            "cr-only": "system,query_id,score\rrag,q1,1\rmem,q1,0\r",
            "huge-int": "system,query_id,score\nrag,q1," + "9" * 400 + "\nmem,q1,1\n",
            "surrogate": '[{"system": "a", "query_id": "q\\ud800", "score": 1}, '
                         '{"system": "b", "query_id": "q\\ud800", "score": 0}]',
            "tokenizer": 'system,query_id,score\nrag,q1,1\nmem,"q1,0\nx,y,1\n',
        }[case], encoding="utf-8", newline="")
    code, out, err = run("flows", path, "--reference", "rag" if case in ("cr-only", "huge-int") else "a",
                         "--resamples", 100)
    assert "internal error" not in err and "Traceback" not in err
    if case == "cr-only":
        assert code == 0, err  # old-Mac line endings are line endings
    elif case == "huge-int":
        assert code in (0, 2) and "could not be read as a verdict" in err  # counted and named, never exit 3
    else:
        assert code == 2 and one_line(err) and str(path) in err, err
    if case == "parquet-cut":
        assert "not a readable Parquet file" in err  # 0.2.0: "unknown layout (a table without a header)"


def test_a_symbolic_link_loop_in_an_output_path_is_exit_2(tmp_path, small):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    for argv in (["score", small, "-o", tmp_path / "a" / "x.csv"],
                 ["report", small, "--reference", "raw-rag", "--out", tmp_path / "a" / "out", "--resamples", 100],
                 ["inspect", small, "--write", tmp_path / "a" / "r.yaml"]):
        code, _, err = run(*argv)
        assert code == 2 and one_line(err) and "symbolic-link loop" in err, err


@pytest.mark.parametrize("shape", ["multiindex", "duplicate"])
def test_python_api_frames_with_unusable_columns_are_verdict_errors(shape):
    df = pd.DataFrame(rows())
    if shape == "multiindex":
        df.columns = pd.MultiIndex.from_tuples([(c, "") for c in df.columns])
    else:
        df = pd.concat([df, df[["score"]]], axis=1)
    for call in (md.validate, md.score, lambda d: md.flows(d, "rag", options=dict(n_resamples=100))):
        with pytest.raises(md.VerdictError, match="MultiIndex" if shape == "multiindex" else "more than once"):
            call(df)


def test_an_internal_error_without_a_writable_temp_folder_is_still_one_line(small, monkeypatch, tmp_path):
    import tempfile

    def broken(df):
        raise RuntimeError("a bug")

    monkeypatch.setattr(md, "validate", broken)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "no-such-folder"))
    code, _, err = run("validate", small)
    assert code == 3 and one_line(err) and "could not be saved" in err and "TMPDIR" in err


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\u0085", "\x0b", "\x1c"])
def test_jsonl_strings_may_hold_characters_splitlines_breaks_at(tmp_path, separator):
    path = tmp_path / "v.jsonl"
    lines = [json.dumps({"system": s, "query_id": f"q{i}", "score": 1, "question": f"a{separator}b"},
                        ensure_ascii=False) for s in ("rag", "mem") for i in range(3)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    df = md.read_verdicts(path)
    assert len(df) == 6


def test_a_full_disk_while_writing_o_keeps_the_old_file_and_names_it(tmp_path, small, monkeypatch):
    target = tmp_path / "scores.csv"
    target.write_text("old\n", encoding="utf-8")

    def full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    code, _, err = run("score", small, "-o", target, "--force")
    monkeypatch.undo()
    assert code == 2 and one_line(err) and str(target) in err and "No space left" in err
    assert target.read_text(encoding="utf-8") == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == [
        "scores.csv", "verdicts"]


def test_a_full_disk_while_writing_replay_leaves_no_truncated_file(tmp_path, small, monkeypatch):
    replay = tmp_path / "replay"

    def full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    code, _, err = run("flows", small, "--reference", "raw-rag", "--resamples", 100, "--replay", replay)
    monkeypatch.undo()
    assert code == 2 and one_line(err) and "No space left" in err and "replay" in err
    assert not replay.exists() or list(replay.iterdir()) == []


# --------------------------------------------------------------------------------------------
# 5. faults: signals everywhere a command writes, a killed report run recovered
# --------------------------------------------------------------------------------------------
_SIGNALLED = """
import os, signal, sys
import memdiag as md
import memdiag.reporting.publish as publish
from memdiag.cli import main
signum = getattr(signal, sys.argv[1])
where = sys.argv[2]
if where == "score":
    real = md.score
    def killed(*args, **kwargs):
        os.kill(os.getpid(), signum)
        return real(*args, **kwargs)
    md.score = killed
else:
    real = publish._save_figures
    def killed(*args, **kwargs):
        os.kill(os.getpid(), signum)
        return real(*args, **kwargs)
    publish._save_figures = killed
sys.exit(main(sys.argv[3:]))
"""


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
@pytest.mark.parametrize("where", ["score", "report"])
def test_sigterm_and_sighup_stop_every_command_cleanly(tmp_path, small, name, where):
    import signal

    argv = (["score", str(small), "-o", str(tmp_path / "scores.csv")] if where == "score" else
            ["report", str(small), "--reference", "raw-rag", "--out", str(tmp_path / "out"), "--resamples", "100"])
    done = subprocess.run([sys.executable, "-c", _SIGNALLED, name, where, *argv], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert done.returncode == 128 + getattr(signal, name), (done.returncode, done.stderr)
    assert one_line(done.stderr) and f"interrupted ({name})" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["verdicts"]  # nothing half-written, no staging


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_report_run_killed_between_its_renames_is_recovered_by_the_next_run(tmp_path, small):
    out = tmp_path / "out"
    code, _, err = run("report", small, "--reference", "raw-rag", "--out", out, "--resamples", 100)
    assert code == 0, err
    pid = _dead_pid()
    aside = tmp_path / f".out.{pid}.k3j2.old"
    os.replace(out, aside)  # the state SIGKILL leaves between the two renames
    staging = tmp_path / f".out.{pid}.x9q1.partial"
    staging.mkdir()
    (staging / "report.md").write_text("half", encoding="utf-8")
    code, _, err = run("report", small, "--reference", "raw-rag", "--out", out, "--resamples", 100, "--seed", 5)
    assert code == 0, err
    assert "restored the report" in err and "unfinished report" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "verdicts"]
    assert "seed=5" in (out / "report.md").read_text(encoding="utf-8")


def test_a_replaced_report_left_aside_by_a_killed_run_is_removed(tmp_path, small):
    out = tmp_path / "out"
    code, _, err = run("report", small, "--reference", "raw-rag", "--out", out, "--resamples", 100)
    assert code == 0, err
    aside = tmp_path / f".out.{_dead_pid()}.a1b2.old"
    shutil.copytree(out, aside)  # killed after the second rename, before the old one was deleted
    code, _, err = run("report", small, "--reference", "raw-rag", "--out", out, "--resamples", 100, "--seed", 6)
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "verdicts"]


def test_a_staging_folder_of_a_live_run_is_left_alone(tmp_path, small):
    live = tmp_path / f".out.{os.getpid()}.live.partial"
    live.mkdir()
    code, _, err = run("report", small, "--reference", "raw-rag", "--out", tmp_path / "out", "--resamples", 100)
    assert code == 0, err
    assert live.is_dir()


# --------------------------------------------------------------------------------------------
# 6. design: a recipe reads only files in its own folder
# --------------------------------------------------------------------------------------------
def _release(tmp_path: Path) -> tuple[Path, Path]:
    secret = tmp_path / "secret.csv"
    secret.write_bytes(csv_bytes(rows()))
    release = tmp_path / "release"
    release.mkdir()
    (release / "v.csv").write_bytes(csv_bytes(rows()))
    (release / "link.csv").symlink_to(secret)
    (tmp_path / "side.json").write_text(json.dumps({"q1": {"c": "x"}}), encoding="utf-8")
    return release, secret


@pytest.mark.parametrize("case", ["dotdot", "absolute", "link", "glob", "join"])
def test_a_recipe_path_outside_its_folder_is_refused_unless_allowed(tmp_path, case):
    release, secret = _release(tmp_path)
    recipe = release / "recipe.yaml"
    recipe.write_text({
        "dotdot": "sources:\n  - files: [../secret.csv]\n",
        "absolute": f"sources:\n  - files: [{json.dumps(str(secret))}]\n",
        "link": "sources:\n  - files: [link.csv]\n",
        "glob": "sources:\n  - files: ['../*.csv']\n",
        "join": "sources:\n  - files: [v.csv]\njoin:\n  - files: [../side.json]\n    fields: {category: c}\n",
    }[case], encoding="utf-8")
    code, out, err = run("validate", "--recipe", recipe)
    assert code == 2 and out == "" and one_line(err) and "outside the recipe's folder" in err and "--allow-outside" in err
    with pytest.raises(md.VerdictError, match="allow_outside=True"):
        md.read_verdicts(recipe=recipe)
    code, _, err = run("validate", "--recipe", recipe, "--allow-outside")
    assert code == 0, err
    assert len(md.read_verdicts(recipe=recipe, allow_outside=True)) >= 12


def test_a_file_named_on_the_command_line_may_lie_anywhere(tmp_path):
    release, secret = _release(tmp_path)
    recipe = release / "recipe.yaml"
    recipe.write_text("sources:\n  - files: [v.csv]\n", encoding="utf-8")
    code, _, err = run("validate", "--recipe", recipe, secret)
    assert code == 0, err


@pytest.mark.slow  # three (two) whole reports
def test_rerun_of_a_report_read_with_allow_outside_keeps_it(tmp_path):
    release, secret = _release(tmp_path)
    recipe = release / "recipe.yaml"
    recipe.write_text("sources:\n  - files: [../secret.csv]\n", encoding="utf-8")
    code, _, err = run("report", "--recipe", recipe, "--allow-outside", "--reference", "rag", "--out",
                       tmp_path / "first", "--resamples", 100)
    assert code == 0, err
    code, _, err = run("report", "--rerun", tmp_path / "first" / "analysis.json", "--out", tmp_path / "second")
    assert code == 0, err
    assert (tmp_path / "first" / "analysis.json").read_bytes() == (tmp_path / "second" / "analysis.json").read_bytes()


def test_plot_labels_that_draw_two_systems_under_one_name_are_refused_in_python():
    with pytest.raises(ValueError, match="would both be drawn as 'b'"):
        md.plot.system_styles(["a", "b"], labels={"a": "b"})
