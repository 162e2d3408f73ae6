"""README "What memdiag guarantees", second hostile sweep (issue 21): one test per class of input
that broke a promise in memdiag 0.2.0 — data lost or misread, names injected, resources unbounded,
wrong exit codes, faults half-written, recipe paths escaping their folder.

Every test here fails on 0.2.0 (checked by running this file against that release's tree)."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import os
import shutil
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pandas as pd
import pytest
import zstandard

import memdiag as md
from memdiag.cli import main

ROOT = Path(__file__).resolve().parents[1]
CODECS = {"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress,
          "zst": zstandard.ZstdCompressor().compress}


def run(*argv: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


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
print("peak", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
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


def test_a_trailing_comma_in_a_systems_table_keeps_the_columns(tmp_path, small):
    table = tmp_path / "systems.csv"
    table.write_text("system,label\nraw-rag,R,\nmem0,M,\n", encoding="utf-8")
    from memdiag._side_files import read_csv

    frame = read_csv(table, "systems table")
    assert frame["system"].tolist() == ["raw-rag", "mem0"] and frame["label"].tolist() == ["R", "M"]


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
    assert document["inputs"]["verdicts"]["rerun"]["recipe"]["path"] == str(recipe.resolve())
    for name in ("analysis.json", "tables/flows.csv", "report.md"):
        assert (second / name).read_bytes() == (first / name).read_bytes() == (third / name).read_bytes()
