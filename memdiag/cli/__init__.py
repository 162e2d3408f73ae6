"""The ``memdiag`` command: each subcommand parses its options and calls one public function.

This module is the one boundary between the user and memdiag: every option is checked by an
argparse ``type=`` function before anything runs, and :func:`main` turns every outcome into an
exit status and at most one line on stderr, never a traceback:

====  =====================================================================================
0     done
1     the analysis ran but a check failed (``audit``: a claim is not supported)
2     bad input, option or output path: one line naming the file, record, field or option
      and what to do
3     an internal error (a bug): one line with the path of the saved traceback
130   interrupted (Ctrl-C); 143 terminated (SIGTERM); 129 hung up (SIGHUP): nothing is left
      half-written
====  =====================================================================================

Outputs never replace a file that exists (unless ``--force``) nor one of the inputs
(:mod:`memdiag.io.outputs`; report folders: :mod:`memdiag.reporting.publish`).
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import sys
import tempfile
import traceback
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import memdiag as md
from memdiag.core.checks import (
    CORRECTIONS,
    FORMATS,
    INFERENCE,
    KINDS,
    MIN_RESAMPLES,
    max_resamples,
)
from memdiag.core.escape import one_line
from memdiag.errors import VerdictError, listing, shown

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: Exit status of an internal error (a bug in memdiag; its traceback is saved to a file).
INTERNAL_ERROR = 3
#: The largest seed the command accepts (a signed 64-bit integer, as most tools store seeds).
MAX_SEED = 2**63


class UsageError(ValueError):
    """A command-line option that cannot be used as given (exit 2)."""


class _ParseError(UsageError):
    """An option argparse rejected; ``prog`` is the (sub)command it belongs to."""

    def __init__(self, prog: str, message: str) -> None:
        super().__init__(message)
        self.prog = prog


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (raised, for :func:`main` to print)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise _ParseError(self.prog, f"{message} (see {self.prog} --help)")


class _KindParser(_Parser):
    """The parser of one figure kind (``memdiag plot KIND``): an option it does not offer is refused
    by the kind itself, naming ``memdiag plot KIND --help`` (argparse would leave it to the top
    parser, whose help lists no figure options)."""

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        namespace, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras


class _FigureKinds(argparse._SubParsersAction):
    """The figure kinds of ``memdiag plot``. ``-o`` may come before the kind or after it, so neither
    parser can require it: it is required here, once both have parsed."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Sequence[str], option_string: str | None = None) -> None:  # type: ignore[override]
        super().__call__(parser, namespace, values, option_string)
        if namespace.output is None:
            self.choices[values[0]].error("the following arguments are required: -o/--output")


# --------------------------------------------------------------------------------------------
# option values (argparse type= functions)
# --------------------------------------------------------------------------------------------
def _whole(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} must be a whole number, got {text!r}") from None


def _number(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} must be a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{what} must be a finite number, got {text!r}")
    return value


def _resamples(text: str, allow_zero: bool = False) -> int:
    """Bootstrap replicates B: at least MIN_RESAMPLES (or 0 where no interval is an option)."""
    value = _whole(text, "B")
    if allow_zero and value == 0:
        return 0
    if value < MIN_RESAMPLES:
        raise argparse.ArgumentTypeError(
            f"B must be at least {MIN_RESAMPLES}{' (or 0 for no interval)' if allow_zero else ''}, got {value}: "
            f"intervals and p-values from B replicates move in steps of 1/B (the specification uses 20000)")
    if value > max_resamples():
        raise argparse.ArgumentTypeError(f"B must be at most {max_resamples():,}, got {value:,}: time and memory "
                                         "grow with B, and 20000 is plenty for 95% intervals (set "
                                         "MEMDIAG_MAX_RESAMPLES to raise the limit)")
    return value


def _resamples_or_zero(text: str) -> int:
    return _resamples(text, allow_zero=True)


def _seed(text: str) -> int:
    value = _whole(text, "the seed")
    if not 0 <= value < MAX_SEED:
        raise argparse.ArgumentTypeError(f"the seed must be a whole number in [0, 2**63), got {value}")
    return value


def _level(text: str) -> float:
    value = _number(text, "the confidence level")
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"the confidence level must be strictly between 0 and 1 (e.g. 0.95), "
                                         f"got {text}")
    return value


def _alpha(text: str) -> float:
    value = _number(text, "alpha")
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"alpha must be strictly between 0 and 1 (e.g. 0.05), got {text}")
    return value


def _power_level(text: str) -> float:
    value = _number(text, "the power")
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"the power must be strictly between 0 and 1 (e.g. 0.8), got {text}")
    return value


def _threshold(text: str) -> float:
    value = _number(text, "the threshold")
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"the threshold must be in [0, 1) (correct = score > threshold), "
                                         f"got {text}")
    return value


def _delta(text: str) -> float:
    value = _number(text, "the difference")
    if value < 0:
        raise argparse.ArgumentTypeError(f"the difference must be 0 points or more, got {text}")
    return value


def _budget(text: str) -> float:
    value = _number(text, "the budget")
    if value < 0:
        raise argparse.ArgumentTypeError(f"the budget must be 0 or more evidence tokens, got {text}")
    return value


# --------------------------------------------------------------------------------------------
# shared options
# --------------------------------------------------------------------------------------------
def _key_values(items: Sequence[str] | None, option: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            raise UsageError(f"{option} {item!r}: expected NAME=VALUE (e.g. {option} query_id=question_id)")
        out[key.strip()] = value.strip()
    return out


def _add_input(p: argparse.ArgumentParser, align: bool = True, option: str | None = None,
               judges: bool = False) -> None:
    """Input options; the verdict files are positional, or behind ``option`` (e.g. ``--verdicts``).

    ``judges`` adds ``--judges`` (the judge policy of scoring, :func:`memdiag.prepare`)."""
    named = dict(dest="files") if option else {}
    p.add_argument(*([option] if option else ["files"]), nargs="*", metavar="FILES",
                   help="verdict files, folders or glob patterns (with --recipe: files replacing the recipe's)",
                   **named)
    p.add_argument("--recipe", metavar="YAML",
                   help="a release recipe describing the files (docs/recipes.md; draft one with memdiag inspect)")
    p.add_argument("--allow-outside", action="store_true",
                   help="let the recipe read sources/join files outside its own folder (refused by default: a "
                        "downloaded recipe could otherwise read any file)")
    p.add_argument("--layout", default="auto", help="input layout (default: auto-detect per file)")
    p.add_argument("--system", action="append", metavar="NAME | PATH=NAME",
                   help="system name for every file, or for one file (repeatable)")
    p.add_argument("--field", action="append", metavar="CANONICAL=SOURCE",
                   help="map a source column to a canonical one, e.g. --field score=correct (repeatable)")
    p.add_argument("--records", metavar="PATH",
                   help="where the records are in each JSON file, e.g. results or data.items (with --field)")
    p.add_argument("--judge", action="append", metavar="NAME | PATH=NAME",
                   help="rater label for every file, or for one file: judges of one run kept apart (repeatable)")
    p.add_argument("--dataset", metavar="PATH",
                   help="the benchmark's dataset file (LoCoMo-10: locomo10.json): records without ids get their "
                        "canonical id by conversation and question text (map question and cluster); unmatched "
                        "records are listed, never guessed")
    p.add_argument("--join", action="append", metavar="FILE[,records=PATH][,system=NAME],COLUMN=FIELD...",
                   help="attach per-query columns from a side file by query_id, e.g. "
                        "--join coverage.json,records=questions,sufficient=fully_covered (repeatable)")
    if align:
        p.add_argument("--missing", choices=("error", "drop", "wrong"), default="error",
                       help="a query some systems lack: error (default), drop it for all, or score it 0")
        p.add_argument("--verdict-missing", choices=("as-wrong", "exclude"), default="as-wrong",
                       help="a verdict with no usable score: score 0 (default) or drop the query for all")
    if judges:
        p.add_argument("--judges", metavar="mean | NAME",
                       help="several judges of the same answers: score by their mean, or by one judge; judge "
                            "repeats: mean (per-run mean, default), majority (per-question vote) or repeat:K "
                            "(judgment K alone, from 0)")
        p.add_argument("--label-missing", choices=("exclude", "error"), default="exclude",
                       help="a query without a label (sufficient, ...): leave it out of that diagnostic, "
                            "counted (default), or refuse it")
        p.add_argument("--cluster-missing", choices=("error", "own"), default="error",
                       help="some queries without a cluster label: refuse, naming them (default), or make each "
                            "a cluster of its own, counted in a note")


def _add_alias(p: argparse.ArgumentParser) -> None:
    p.add_argument("--alias", action="append", metavar="NAME=SHORT | PATH=SHORT",
                   help="the short name figures and tables for people (table, md, latex, html; CSV and JSON keep "
                        "the full name) show for a system, or for the system read from a file or folder "
                        "(repeatable; also a recipe's labels: or a label column in --systems-table)")


def _column_list(text: str) -> list[str]:
    """``--columns COL[,COL...]``: the names, in order (``paper``: the compact paper table)."""
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"{text!r}: expected column names separated by commas, e.g. "
                                         "system,diff,p_adj (or paper)")
    return names


def _add_force(p: argparse.ArgumentParser, what: str, default: object = False) -> None:
    p.add_argument("--force", action="store_true", default=default, help=f"replace {what} (never an input file)")


def _add_output(p: argparse.ArgumentParser, alias: bool = True) -> None:
    """``--format``, ``--columns``, ``-o``/``--force``, ``--quiet``/``--verbose`` and, for commands
    whose tables name the systems of the verdicts read (``alias``), ``--alias``."""
    p.add_argument("--format", choices=FORMATS, default="table", help="output format (default: table)")
    p.add_argument("--columns", type=_column_list, metavar="COL[,COL...] | paper",
                   help="keep only these columns of the (first) table, in this order, in every format (an estimate "
                        "keeps its interval); paper: the compact table of every table that has an estimate "
                        "(the rows' names, estimate [CI], p_adj)")
    if alias:
        _add_alias(p)
    p.add_argument("-o", "--output", metavar="FILE", help="write the table here instead of stdout")
    _add_force(p, "an existing --output file")
    _add_verbosity(p)


def _add_verbosity(p: argparse.ArgumentParser) -> None:
    """``--quiet`` / ``--verbose``: which notes the formats for people print (each distinct note
    once, warnings first, by default)."""
    group = p.add_mutually_exclusive_group()
    group.add_argument("--quiet", action="store_true",
                       help="print only the notes that are warnings (a conclusion is at risk)")
    group.add_argument("--verbose", action="store_true",
                       help="print every note under every table, each relabelled category one a line")


def _add_correction(p: argparse.ArgumentParser) -> None:
    p.add_argument("--correction", choices=CORRECTIONS, default="holm",
                   help="multiplicity adjustment of p_adj within each family: holm (default), bonferroni, or "
                        "fdr_bh (Benjamini-Hochberg false discovery rate)")


def _add_resampling(p: argparse.ArgumentParser, inference: bool = True, *, allow_zero: bool = False,
                    default: str = "20000", design: bool = True, ci: bool = True) -> None:
    """``--design`` (unless ``design=False``: the command resamples without one), ``--resamples`` (0
    allowed with ``allow_zero``: point estimates only; ``default`` other than ``"20000"`` leaves it
    None for the command to decide), ``--seed``, ``--ci`` (unless ``ci=False``: the command shows
    no interval)."""
    if design:
        p.add_argument("--design", choices=KINDS,
                       help="resampling design (default: from the data and scheme; the choice is printed)")
    p.add_argument("--resamples", type=_resamples_or_zero if allow_zero else _resamples,
                   default=20_000 if default == "20000" else None, metavar="B",
                   help=f"bootstrap replicates, {MIN_RESAMPLES} or more"
                        f"{' (0: point estimates only)' if allow_zero else ''} (default {default})")
    p.add_argument("--seed", type=_seed, default=0, help="random seed (default 0)")
    if ci:
        p.add_argument("--ci", type=_level, default=0.95, help="confidence level (default 0.95)")
    if inference:
        _add_inference(p)


def _add_inference(p: argparse.ArgumentParser) -> None:
    p.add_argument("--inference", choices=INFERENCE, default="auto",
                   help="how intervals and tests are made: auto (default: cluster jackknife t intervals and the "
                        "wild cluster bootstrap with fewer than 200 clusters, else percentile bootstrap), "
                        "percentile (the published method), jackknife or cr2 (cluster designs)")


# --------------------------------------------------------------------------------------------
# inputs and outputs
# --------------------------------------------------------------------------------------------
#: Options that name an input file.
_INPUT_OPTIONS = ("files", "claims", "log", "scheme", "systems_table", "write_log", "recipe", "summaries",
                  "ingestion_log", "before", "after", "filtered", "dataset", "gold_errors", "wrong_answers")


def _inputs(args: argparse.Namespace, df: pd.DataFrame | None = None) -> list[str]:
    """Every input file of the command: the files named, and the verdict files read."""
    named = []
    for option in _INPUT_OPTIONS:
        value = getattr(args, option, None)
        named += value if isinstance(value, list) else [value] if isinstance(value, str) else []
    named += [spec.split(",")[0] for spec in getattr(args, "join", None) or ()]  # side files of --join
    files = [v for v in named if os.path.isfile(v)]
    if df is not None and "source_file" in df:
        files += [str(f) for f in df["source_file"].dropna().unique()]
    return files


def _outputs(args: argparse.Namespace) -> list[Path]:
    """The files the command will write: -o of a table; the three figure files of ``plot -o``; the
    files of ``flows --replay DIR``."""
    from memdiag.analyses.replay import FILES

    replay = [Path(args.replay) / name for name in FILES] if getattr(args, "replay", None) else []
    if not getattr(args, "output", None):
        return replay
    path = Path(args.output)
    if args.command != "plot":
        return [path, *replay]
    stem = path.with_suffix("") if path.suffix.lower() in {".pdf", ".svg", ".png"} else path
    return [stem.parent / f"{stem.name}.{suffix}" for suffix in ("pdf", "svg", "png")]


def _check_outputs(args: argparse.Namespace, df: pd.DataFrame | None = None) -> None:
    """Refuse before any analysis: an output that exists (without --force) or is an input."""
    from memdiag.io.outputs import check_outputs

    check_outputs(_outputs(args), _inputs(args, df), force=getattr(args, "force", False))


def _named(items: Sequence[str] | None, option: str) -> str | dict[str, str] | None:
    """``--system``/``--judge`` values: one NAME for every file, or PATH=NAME per file."""
    items = items or []
    named = [s for s in items if "=" in s]
    plain = [s for s in items if "=" not in s]
    if len(plain) > 1:
        raise UsageError(f"{option} NAME given more than once: use {option} PATH=NAME to name files apart")
    if named and plain:
        raise UsageError(f"use either {option} NAME (all files) or {option} PATH=NAME (per file), not both")
    return _key_values(named, option) if named else (plain[0] if plain else None)


def _join_spec(text: str) -> dict:
    """``--join FILE[,records=PATH][,system=NAME],COLUMN=FIELD...`` as a recipe join entry."""
    path, *pairs = [part.strip() for part in text.split(",")]
    if not path or "=" in path:
        raise UsageError(f"--join {text!r}: start with the side file, e.g. --join coverage.json,sufficient=covered")
    options = _key_values(pairs, "--join")
    spec: dict = {"files": [path], "fields": {}}
    for key, value in options.items():
        if key in ("records", "system"):
            spec[key] = value
        else:
            spec["fields"][key] = value
    return spec


def _read(args: argparse.Namespace) -> pd.DataFrame:
    if not args.files and not args.recipe:
        raise UsageError("give verdict files, folders or glob patterns, or --recipe FILE")
    fields = _key_values(args.field, "--field") or None
    join = [_join_spec(j) for j in args.join or ()] or None
    if args.allow_outside and not args.recipe:  # an offered option has an effect, or says why not
        raise UsageError("--allow-outside lets a recipe read files outside its folder; give --recipe FILE "
                         "(files named on the command line are always read)")
    if args.recipe:
        clashes = [o for o, v in (("--layout", args.layout != "auto"), ("--system", args.system),
                                  ("--field", args.field), ("--records", args.records), ("--judge", args.judge)) if v]
        if clashes:
            raise UsageError(f"--recipe describes how to read the files; drop {clashes[0]} (put it in the recipe)")
        df = md.read_verdicts(args.files or None, recipe=args.recipe, join=join,
                              dataset=getattr(args, "dataset", None), allow_outside=args.allow_outside)
    else:
        df = md.read_verdicts(args.files, format=args.layout, system=_named(args.system, "--system"),
                              fields=fields, records=args.records, judge=_named(args.judge, "--judge"),
                              join=join, dataset=getattr(args, "dataset", None))
    if args.command != "validate" and not getattr(args, "quiet", False):  # validate's table lists them
        for note in df.attrs.get("read_notes", ()):
            print(f"memdiag {args.command}: note: {note}", file=sys.stderr)
    _imply_scheme(args, df)
    _check_outputs(args, df)
    _remember_labels(args, df)
    return df


def _remember_labels(args: argparse.Namespace, df: pd.DataFrame) -> None:
    """Keep on ``args`` the short names the tables of a command that prints tables show for the
    systems of ``df`` (:func:`_labels`), for :func:`_emit`."""
    if hasattr(args, "format"):
        args.table_labels = _labels(args, df)


def _imply_scheme(args: argparse.Namespace, df: pd.DataFrame) -> None:
    """``--scheme`` not given: the scheme the rows imply (LoCoMo rows: ``locomo``), said in a note
    on stderr (:func:`memdiag.panel.schemes._default.implied_scheme`)."""
    from memdiag.panel.schemes._default import implied_scheme

    if not hasattr(args, "scheme") or args.scheme is not None:
        return
    name, note = implied_scheme(df)
    if name is not None:
        args.scheme = name
        if not getattr(args, "quiet", False):
            print(f"memdiag {args.command}: note: {note}", file=sys.stderr)


def _prepared(args: argparse.Namespace, df: pd.DataFrame, metric: str = "accuracy", scheme: str | None = None):
    """``df`` prepared once with the command's data choices (scheme, missing-data, judge, label and
    cluster policies): what every diagnostic of the command then works on."""
    return md.prepare(df, scheme=scheme, metric=metric, missing=args.missing, verdict_missing=args.verdict_missing,
                      design=getattr(args, "design", None), judges=getattr(args, "judges", None),
                      label_missing=args.label_missing, cluster_missing=args.cluster_missing)


#: :class:`memdiag.Options` field -> the command-line option that sets it (``--resamples`` -> B).
_OPTION_ARGS: tuple[tuple[str, str], ...] = (("design", "design"), ("inference", "inference"),
                                             ("n_resamples", "resamples"), ("seed", "seed"),
                                             ("confidence_level", "ci"), ("correction", "correction"))


def _options(args: argparse.Namespace, **fixed: object) -> md.Options:
    """The command's :class:`memdiag.Options`, built once from its shared option groups (an
    option the command does not offer keeps its default); ``fixed`` overrides."""
    given = {field: getattr(args, name) for field, name in _OPTION_ARGS if getattr(args, name, None) is not None}
    return md.Options(**{**given, **fixed})


def _table_files(output: Path, frames: Sequence[pd.DataFrame]) -> list[Path]:
    """Where CSV tables go: the first to ``output``, each further one beside it as
    ``<stem>.<name><suffix>`` (``X.csv``, ``X.omnibus.csv``), named after the function that made it."""
    paths, taken = [output], {""}
    for k, frame in enumerate(frames[1:], start=2):
        name = str(frame.attrs.get("function") or frame.attrs.get("table") or f"table{k}")
        name = name if name not in taken else f"{name}{k}"
        taken.add(name)
        paths.append(output.with_name(f"{output.stem}.{name}{output.suffix}"))
    return paths


def _emit(frames: pd.DataFrame | Sequence[pd.DataFrame], args: argparse.Namespace) -> None:
    """Print or write one or several result tables.

    Several tables: JSON becomes one list, HTML one page, the formats for people follow one
    another; CSV holds one table per file — with ``-o X.csv`` the first goes to ``X.csv`` and
    each further one to ``X.<name>.csv`` (``X.omnibus.csv``), and without ``-o`` it is refused.
    """
    from memdiag.io.outputs import check_outputs, write_file
    from memdiag.tables import html_document, render

    frames = _shown(list(frames) if isinstance(frames, (list, tuple)) else [frames], args)
    if args.format == "csv" and len(frames) > 1:
        if not args.output:
            names = ", ".join(str(f.attrs.get("function") or f.attrs.get("table") or "table") for f in frames)
            raise UsageError(f"this command prints {len(frames)} tables ({names}) and a CSV file holds one: give "
                             "-o FILE.csv (the first table goes there, each other one to FILE.<name>.csv) or "
                             "use --format json")
        paths = _table_files(Path(args.output), frames)
        check_outputs(paths[1:], _inputs(args), force=getattr(args, "force", False))
        for path, frame in zip(paths, frames):
            write_file(path, render(frame, "csv"))  # whole or not at all (a temporary file renamed)
        return
    if args.format == "html":
        text = html_document(frames)
    elif args.format in ("table", "md") and not getattr(args, "verbose", False):
        text = _with_notes_once(frames, args.format, quiet=getattr(args, "quiet", False))
    else:
        texts = [render(f, args.format) for f in frames]
        if args.format == "json" and len(texts) > 1:
            text = "[\n" + ",\n".join(texts) + "\n]"
        else:
            text = "\n".join(t if t.endswith("\n") else t + "\n" for t in texts)
    text = text if text.endswith("\n") else text + "\n"
    if args.output:
        write_file(args.output, text)  # whole or not at all (a temporary file renamed)
    else:
        sys.stdout.write(text)


def _shown(frames: list[pd.DataFrame], args: argparse.Namespace) -> list[pd.DataFrame]:
    """The tables as ``_emit`` prints them: ``--columns`` applied (a list to the first table, ``paper``
    to every table that has an estimate) and, in the formats for people, each system under its short
    name (``--alias``, a recipe's ``labels:``, a systems table's ``label``; CSV and JSON keep the
    names, for joining)."""
    from memdiag.tables import PAPER, paper_columns, select
    from memdiag.tables.aliases import relabel

    wanted = getattr(args, "columns", None)
    try:
        if wanted == [PAPER] and any(paper_columns(f) is not None for f in frames):
            frames = [f if paper_columns(f) is None else select(f, wanted) for f in frames]
        elif wanted:
            frames = [select(frames[0], wanted), *frames[1:]]
    except ValueError as error:  # an unknown column, or no estimate for a paper table
        raise UsageError(f"--columns: {error}") from None
    if getattr(args, "alias", None) and not hasattr(args, "table_labels"):
        raise UsageError(f"--alias names systems of the verdicts read; memdiag {args.command} read none here "
                         "(drop --alias)")
    labels = getattr(args, "table_labels", None)
    if labels and args.format not in ("csv", "json"):
        frames = [relabel(f, labels) for f in frames]
    return frames


#: How a note of each severity starts in the formats for people.
_NOTE_PREFIX = {"info": "note", "caution": "caution", "warning": "warning"}


def _with_notes_once(frames: Sequence[pd.DataFrame], fmt: str, quiet: bool = False) -> str:
    """The tables as ``fmt`` (``table`` or ``md``) with each distinct note printed once: a table's
    own notes under it, the notes several tables share after the last, with the number of tables
    they apply to; each group warnings first, then cautions, then information (only warnings
    with ``quiet``)."""
    from memdiag.core.escape import markdown
    from memdiag.core.notes import Note
    from memdiag.reporting.notes import applies, report_notes, without_notes
    from memdiag.tables import render

    escape = markdown if fmt == "md" else one_line
    split = report_notes({str(k): frame for k, frame in enumerate(frames)})

    def lines(notes: list[tuple[Note, str]]) -> list[str]:
        kept = [(n, extra) for n, extra in notes if not quiet or n.severity == "warning"]
        return [("- " if fmt == "md" else "") + f"{_NOTE_PREFIX[n.severity]}: {escape(n)}{extra}" for n, extra in kept]

    texts = []
    for k, frame in enumerate(frames):
        body, sign = render(without_notes(frame), fmt).rstrip("\n").rsplit("\n", 1)
        own = lines([(n, "") for n in split.own[str(k)]])
        texts.append("\n".join([body.rstrip("\n"), "", *own, *([""] if own and fmt == "md" else []), sign]))
    shared = lines([(n, f" ({applies(count)})") for n, count in split.shared])
    if shared:
        texts.append("\n".join(shared))
    return "\n".join(t + "\n" for t in texts)


# --------------------------------------------------------------------------------------------
# subcommands
# --------------------------------------------------------------------------------------------
def _cmd_validate(args: argparse.Namespace) -> int:
    from memdiag.analyses.clusters import validation_notes

    df = _read(args)
    summary = md.validate(df)
    files = df["source_file"].nunique() if "source_file" in df else 0
    summary.attrs["notes"] = ([f"{files} files, {len(df)} verdict rows, {summary.attrs['n_queries']} "
                               f"distinct queries, {len(summary)} systems"] + summary.attrs["notes"]
                              + validation_notes(df))
    if not args.verbose:  # the relabelled categories counted in one line; --verbose lists them
        from memdiag.reporting.notes import condensed

        summary.attrs["notes"] = condensed(summary.attrs["notes"])
    _emit(summary, args)
    return 0


def _cmd_score(args: argparse.Namespace) -> int:
    df = _prepared(args, _read(args), metric=args.metric, scheme=args.scheme)
    table = md.score(df, metric=args.metric, options=_options(args))
    _emit(table, args)
    return 0


def _cmd_compare(args: argparse.Namespace) -> int:
    df = _prepared(args, _read(args), metric=args.metric, scheme=args.scheme)
    options = _options(args)
    table = md.compare(df, metric=args.metric, pairs=args.pairs, reference=args.reference, threshold=args.threshold,
                       by=args.by, test=args.test, margin=args.margin, options=options)
    frames = [table]
    if args.omnibus:
        frames.append(md.omnibus(df, metric=args.metric, threshold=args.threshold, options=options))
    _emit(frames, args)
    return 0


def _cmd_leaderboard(args: argparse.Namespace) -> int:
    df = _prepared(args, _read(args), metric=args.metric, scheme=args.scheme)
    _emit(md.leaderboard(df, metric=args.metric, margin=args.margin, threshold=args.threshold,
                         options=_options(args)), args)
    return 0


def _cmd_flows(args: argparse.Namespace) -> int:
    df = _prepared(args, _read(args), scheme=args.scheme)
    table = md.flows(df, reference=args.reference, by=args.by, threshold=args.threshold, options=_options(args))
    _emit(table, args)
    if args.replay:
        from memdiag.analyses.replay import write_replay

        cells = md.replay(df, args.reference, threshold=args.threshold)
        written = write_replay(cells, args.replay)
        print(f"memdiag flows: note: per-query replay of every flow cell written to "
              f"{one_line(written[0])} and {one_line(written[1])}", file=sys.stderr)
    return 0


def _cmd_evidence(args: argparse.Namespace) -> int:
    if args.procedure:
        fixed = [o for o, v in (("--inference", args.inference != "auto"),
                                ("--correction", args.correction != "holm"), ("--tests", args.tests)) if v]
        if fixed:
            raise UsageError(f"--procedure {args.procedure} fixes its own tests, inference and correction; "
                             f"drop {fixed[0]}")
    raw = _read(args)
    df = _prepared(args, raw)
    procedure, options = None, _options(args, n_resamples=args.resamples or 20_000)
    if args.procedure:  # every table under the procedure's settings (B defaults to its own)
        from memdiag.analyses.procedures import PROCEDURES

        if args.procedure not in PROCEDURES:
            md.evidence_procedure(df, args.procedure)  # the error that names the known procedures
        spec = PROCEDURES[args.procedure]
        resamples = spec["n_resamples"] if args.resamples is None else args.resamples
        options = _options(args, n_resamples=resamples, inference=spec["inference"], correction=spec["correction"])
        procedure = md.evidence_procedure(df, args.procedure, options=options)
    frames = []
    if "sufficient" in raw or "evidence_tokens" not in raw:  # evidence length needs no sufficiency label
        frames.append(md.evidence(df, options=options))
    if procedure is not None:
        matrix = procedure.matrix.reset_index(names="row − column")
        matrix.attrs = {**procedure.matrix.attrs, "function": "pairwise_matrix"}
        frames += [procedure.omnibus, matrix, procedure.pairs]
    elif args.tests and "sufficient" in raw:
        pairs, omni = md.evidence_tests(df, options=options)
        matrix = md.pairwise_matrix(pairs[pairs["metric"] == "coverage"], pairs[pairs["metric"] == "utilization"])
        matrix = matrix.reset_index(names="row − column")
        matrix.attrs["function"] = "pairwise_matrix"
        matrix.attrs["notes"] = ["upper triangle: coverage, lower triangle: utilization (paper Tables 27/28)",
                                 *matrix.attrs["notes"]]  # the reading, with the correction of --correction
        frames += [omni, pairs, matrix]
    if "evidence_tokens" in raw:
        frames.append(md.evidence_length(df, budget=args.budget))
    _emit(frames, args)
    return 0


def _cmd_costs(args: argparse.Namespace) -> int:
    df = _prepared(args, _read(args), scheme=args.scheme)
    options = _options(args)
    frames = [md.costs(df, quantities=args.quantity, threshold=args.threshold, options=options)]
    if args.reference or args.pairs == "all":
        frames.append(md.cost_ratios(df, quantities=args.quantity, pairs=args.pairs, reference=args.reference,
                                     options=options))
    if args.systems_table:
        from memdiag.io.systems_table import read_systems_table

        frames.append(md.system_costs(read_systems_table(args.systems_table), reference=args.reference))
    if args.ingestion_log:
        frames.append(md.ingestion(md.read_ingestion_log(args.ingestion_log), reference=args.reference))
    _emit(frames, args)
    return 0


def _cmd_audit(args: argparse.Namespace) -> int:
    if args.summaries:
        return _audit_summaries(args)
    if not args.claims:
        raise UsageError("give a claims file (memdiag audit CLAIMS --verdicts FILES) or --summaries YAML")
    df = _read(args)
    if (args.missing, args.verdict_missing) != ("error", "as-wrong"):  # every claim's rows get these policies
        df = md.prepare(df, missing=args.missing, verdict_missing=args.verdict_missing)
    table = md.audit_claims(df, args.claims, alpha=args.alpha, options=_options(args))
    _emit(table, args)
    return 0 if (table["verdict"] == "supported").all() else 1


def _audit_summaries(args: argparse.Namespace) -> int:
    """``memdiag audit --summaries FILE``: the published numbers alone, no verdicts."""
    if args.claims or args.files or args.recipe:
        raise UsageError("--summaries audits published numbers alone: drop the claims file and --verdicts")
    table = md.audit_summaries(args.summaries, alpha=args.alpha)
    frames = [table]
    if args.details:
        for name, detail in table.attrs["details"].items():
            if detail is not None:
                detail = detail.copy()
                detail.attrs = {**detail.attrs, "notes": [f"check {name}"] + list(detail.attrs.get("notes", []))}
                frames.append(detail)
    _emit(frames, args)
    return 1 if (table["verdict"] == "flagged").any() else 0
def _cmd_rank(args: argparse.Namespace) -> int:
    df = _prepared(args, _read(args), metric=args.metric, scheme=args.scheme)
    table = md.rank_stability(df, metric=args.metric, threshold=args.threshold,
                              higher_is_better=not args.lower_is_better, options=_options(args))
    _emit(table, args)
    return 0


def _changed(value: str, after: pd.DataFrame) -> str | list[str]:
    """``--changed``: a 0/1 column of the after verdicts, ``@FILE`` (one query id a line), or ids
    separated by commas."""
    if value in after:
        return value
    if value.startswith("@"):
        text = Path(value[1:]).read_text(encoding="utf-8")
        return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return [item.strip() for item in value.split(",") if item.strip()]


def _cmd_attribute(args: argparse.Namespace) -> int:
    fields = _key_values(args.field, "--field") or None
    runs = [md.read_verdicts(path, format=args.layout, fields=fields, records=args.records)
            for path in (args.before, args.after)]
    for frame in runs:
        for note in frame.attrs.get("read_notes", ()):
            print(f"memdiag attribute: note: {note}", file=sys.stderr)
    names = sorted(runs[0]["system"].dropna().unique())
    system = args.system or (names[0] if len(names) == 1 else None)
    before = runs[0] if system not in names else md.prepare(  # the data choices, carried to the pair of runs
        runs[0], scheme=args.scheme, systems=[system], missing=args.missing, verdict_missing=args.verdict_missing,
        design=args.design)
    table = md.attribute_change(before, runs[1], _changed(args.changed, runs[1]), system=args.system,
                                options=_options(args))
    _emit(table, args)
    return 0


def _cmd_path(args: argparse.Namespace) -> int:
    df = _prepared(args, _read(args))
    categories = [c.strip() for c in args.categories.split(",") if c.strip()] if args.categories else None
    table = md.path_given_result(df, categories=categories, phase=None if args.phase == "all" else args.phase,
                                 allow_inconsistent=args.allow_inconsistent, options=_options(args))
    _emit(table, args)
    return 0


def _cmd_power(args: argparse.Namespace) -> int:
    from memdiag.analyses.power import comparison_power

    if args.pairs == "reference" and not args.reference:
        raise UsageError("power needs --reference NAME (or --pairs all)")
    df = _prepared(args, _read(args), metric=args.metric, scheme=args.scheme)
    compared = md.compare(df, metric=args.metric, pairs=args.pairs, reference=args.reference,
                          threshold=args.threshold, options=_options(args))
    _emit(comparison_power(compared, alpha=args.alpha, power=args.power, delta=args.delta), args)
    return 0


def _cmd_independence(args: argparse.Namespace) -> int:
    if args.pairs == "reference" and not args.reference:
        raise UsageError("independence --pairs reference needs --reference NAME")
    df = _prepared(args, _read(args), metric=args.metric, scheme=args.scheme)
    table = md.audit_independence(df, metric=args.metric, pairs=args.pairs, reference=args.reference,
                                  alpha=args.alpha, threshold=args.threshold, options=_options(args))
    _emit(table, args)
    return 0


#: The checks of ``memdiag robustness`` and the function each runs (SPEC §7.8).
_CHECKS: dict[str, str] = {"content-filter": "content_filter_sensitivity",
                           "judge-repeats": "judge_repetition_sensitivity",
                           "missing-verdicts": "missing_verdict_bounds"}


def _blocked_answers(path: str, systems: Sequence[str]) -> list[str] | dict[str, list[str]]:
    """The ``--filtered`` file: CSV with a header, one blocked answer a row — ``query_id`` and,
    optionally, ``system`` (empty: the query was blocked for every system); other columns are
    ignored. Query ids alone, or system -> query ids."""
    import csv

    with open(path, encoding="utf-8-sig", newline="") as fh:
        reader = csv.reader(fh)
        header = [name.strip() for name in next(reader, [])]
        if "query_id" not in header:
            raise VerdictError(f"{path}: no 'query_id' column (header: {', '.join(header) or 'empty'}). The "
                               "--filtered file is CSV with a header: query_id and optionally system, one blocked "
                               "answer a row.")
        rows = []
        for values in reader:
            if not any(v.strip() for v in values):
                continue
            row = dict(zip(header, (v.strip() for v in values)))
            query_id, system = row.get("query_id", ""), row.get("system", "")
            if not query_id:
                raise VerdictError(f"{path}, line {reader.line_num}, field 'query_id': empty. Give the query id "
                                   "of every blocked answer.")
            if system and system not in systems:
                raise VerdictError(f"{path}, line {reader.line_num}, field 'system': {system!r} is not a system of "
                                   f"the verdicts ({', '.join(systems)}). Fix the name, or leave it empty for "
                                   "every system.")
            rows.append((system, query_id))
    if not rows:
        raise VerdictError(f"{path}: lists no blocked answer (a header and no rows).")
    if "system" not in header:
        return [query_id for _, query_id in rows]
    blocked: dict[str, list[str]] = {}
    for system, query_id in rows:
        for name in [system] if system else systems:
            blocked.setdefault(name, []).append(query_id)
    return blocked


def _filtered(value: str, df: pd.DataFrame) -> str | list[str] | dict[str, list[str]]:
    """``--filtered``: a 0/1 column of the verdicts (checked here), else a file (:func:`_blocked_answers`)."""
    import pandas as pd

    if value in df:
        column = df[value]
        odd = (column.notna() & ~pd.to_numeric(column, errors="coerce").isin([0, 1])).to_numpy().nonzero()[0]
        if odd.size:
            raise VerdictError(f"--filtered {value}: record {odd[0] + 1} holds {shown(column.iloc[odd[0]])}, not 0 "
                               "or 1. Mark each blocked answer 1 and every other answer 0.")
        return value
    if not os.path.isfile(value):
        raise UsageError(f"--filtered {value!r} is neither a column of the verdicts ({listing(map(str, df.columns))}) "
                         "nor a file: give a 0/1 column, or a CSV file with query_id and optionally system")
    return _blocked_answers(value, sorted(df["system"].unique()))


def _one_judge(df: pd.DataFrame, judges: str | None) -> pd.DataFrame:
    """The verdicts of one judge (``--judges NAME``), as :func:`memdiag.align` selects them; the
    frame itself when it names at most one judge."""
    from memdiag.panel.judges import judges_of

    names = judges_of(df)
    if judges is None and len(names) < 2:
        return df
    if judges is None or judges == "mean" or judges not in names:
        given = "" if judges is None else f"--judges {judges}: "
        raise UsageError(f"{given}the verdicts hold the judges {', '.join(names) or 'none'}; each check moves "
                         "one judge's verdicts: choose one with --judges NAME")
    return df[(df["judge"] == judges) | df["judge"].isna()]


def _cmd_robustness(args: argparse.Namespace) -> int:
    df = _one_judge(_read(args), args.judges)
    frame = md.check(df)
    calls = frame.groupby(["system", "query_id"])["repeat"].nunique()
    why = {"content-filter": None if args.filtered is not None else
           "--check content-filter needs --filtered COLUMN_OR_FILE (a 0/1 column of the verdicts, or a CSV file "
           "with query_id and optionally system)",
           "judge-repeats": None if calls.max() > 1 else
           "--check judge-repeats: every answer has one judge call (no 'repeat' column with several values), so "
           "there is nothing to compare",
           "missing-verdicts": None if frame["score"].isna().any() else
           "--check missing-verdicts: no verdict is missing, so both bounds are the data"}
    checks = list(dict.fromkeys(args.check or [c for c in _CHECKS if why[c] is None]))
    if not checks:
        raise UsageError("nothing to check: every answer has one judge call and no verdict is missing; give "
                         "--filtered COLUMN_OR_FILE for the content-filter check")
    refused = [why[c] for c in checks if why[c] is not None]
    if refused:
        raise UsageError(refused[0])
    if args.filtered is not None and "content-filter" not in checks:
        raise UsageError("--filtered is for --check content-filter; add that check or drop --filtered")
    prepared = md.prepare(frame, scheme=args.scheme, missing=args.missing, verdict_missing=args.verdict_missing,
                          design=args.design)
    own = {"content-filter": {"verdict_missing": args.verdict_missing} |
                             ({"filtered": _filtered(args.filtered, frame)} if args.filtered is not None else {}),
           "judge-repeats": {}, "missing-verdicts": {}}
    options = _options(args)
    frames = [getattr(md, _CHECKS[name])(prepared, reference=args.reference, **own[name], options=options)
              for name in checks]
    _emit(frames, args)
    return 0


def _cmd_writes(args: argparse.Namespace) -> int:
    _emit(md.write_audit(md.read_write_log(args.log)), args)
    return 0


def _cmd_agreement(args: argparse.Namespace) -> int:
    df = _read(args)
    several = "judge" in df and df["judge"].dropna().nunique() > 1
    by = args.by or ("judge" if several else "repeat")
    frames = [md.agreement(df, by=by, threshold=args.threshold, verdict_missing=args.verdict_missing,
                           options=_options(args)),
              md.missing_verdict_effect(df, missing=args.missing, judges=args.judges)]  # per judge when several
    _emit(frames, args)
    return 0


def _labels(args: argparse.Namespace, df: pd.DataFrame) -> dict[str, str] | None:
    """The short names figures and tables for people show: the recipe's labels, the systems
    table's ``label`` column, then ``--alias`` (:mod:`memdiag.tables.aliases`)."""
    from memdiag.tables.aliases import alias_options, aliases

    table = None
    if getattr(args, "systems_table", None):  # table commands without a systems table
        from memdiag.io.systems_table import read_systems_table

        table = read_systems_table(args.systems_table)
    given = alias_options(_key_values(args.alias, "--alias"), df)
    return aliases(df, table, given) or None


def _cmd_judge_error(args: argparse.Namespace) -> int:
    """Judge error and gold-answer error (SPEC §9): each option adds its tables."""
    import pandas as pd

    stated = (args.sensitivity, args.specificity, args.n_correct, args.n_incorrect)
    if any(v is not None for v in stated) and not all(v is not None for v in stated):
        raise UsageError("--sensitivity, --specificity, --n-correct and --n-incorrect go together")
    if (args.locomo_audit or args.wrong_answers) and not args.dataset:
        raise UsageError("the locomo-audit files need --dataset locomo10.json (it fixes the question ids)")
    if args.locomo_audit:
        if not args.files:
            raise UsageError("give the locomo-audit eval_results.json files")
        df = pd.concat([md.read_locomo_audit(f, dataset=args.dataset) for f in args.files], ignore_index=True)
        _remember_labels(args, df)
    else:
        df = _read(args)
    frames: list[pd.DataFrame] = []
    if args.label or all(v is not None for v in stated):
        corrected = dict(reference=args.reference, options=_options(args))
        if args.label:
            frames.append(md.judge_corrected(df, label=args.label, **corrected))
            frames.append(md.ppi(df, label=args.label, **corrected))
        else:
            frames.append(md.judge_corrected(df, sensitivity=args.sensitivity, specificity=args.specificity,
                                             n_correct=args.n_correct, n_incorrect=args.n_incorrect, **corrected))
    if args.wrong_answers:
        wrong = pd.concat([md.read_locomo_audit(f, dataset=args.dataset) for f in args.wrong_answers],
                          ignore_index=True)
        leniency = md.judge_leniency(wrong, confidence_level=args.ci)
        frames.append(leniency)
        if wrong["system"].nunique() > 1:  # the within-question length test compares answers to one question
            frames.append(md.length_effect(wrong, confidence_level=args.ci))
        for system in leniency["system"].unique():
            bound = md.leniency_bound(df, leniency[leniency["system"] == system], options=_options(args))
            bound.insert(1, "wrong_answers", system)
            frames.append(bound)
    if args.breakeven is not None:
        if not args.reference:
            raise UsageError("--breakeven needs --reference NAME")
        frames.append(md.leniency_breakeven(df, args.reference, false_positive_rate=args.breakeven,
                                            options=_options(args)))
    if args.gold_errors:
        errors = md.read_gold_errors(args.gold_errors, dataset=args.dataset)
        prep = md.prepare(df, missing=args.missing, verdict_missing=args.verdict_missing, design=args.design)
        ceilings = md.gold_ceilings(prep, errors)
        clean = md.clean_rescore(prep, errors, reference=args.reference, options=_options(args))
        flags = md.ceiling_flags(clean["scores"][["system", "group", "full"]], ceilings)
        frames += [ceilings, flags, clean["scores"], clean["differences"]]
    if args.components:
        components = md.variance_components(df, reference=args.reference)
        frames.append(components)
        if args.target is not None:
            frames.append(md.plan_evaluation(components, target=args.target))
    if not frames:
        raise UsageError("say what to compute: --label COLUMN, --sensitivity/--specificity/--n-correct/--n-incorrect, "
                         "--wrong-answers FILE, --breakeven POINTS, --gold-errors FILE or --components")
    _emit(frames, args)
    return 0


def _cmd_plot(args: argparse.Namespace) -> int:
    from memdiag import plots
    from memdiag.plots.style import width_preset

    with width_preset(args.width):
        fig = _figure(args)
    for path in plots.save(fig, args.output):
        print(path)
    return 0


def _figure(args: argparse.Namespace):
    """The figure ``memdiag plot KIND`` draws (under the caller's width preset); each kind reads
    only the options its subcommand offers."""
    from memdiag import plots

    kind = args.figure
    if kind in ("writes", "actions"):
        audit = md.write_audit(md.read_write_log(args.log))
        return plots.mutation_rates(audit) if kind == "writes" else plots.write_actions(audit)
    if kind == "ingestion":
        return plots.ingestion(md.ingestion_curve(md.read_ingestion_log(args.log)), reference=args.reference)
    if kind == "overview" and args.pooled:
        if not args.reference:
            raise UsageError("plot overview --pooled needs --reference NAME (the system every other is compared with)")
        data = _settings_prepared(args, _setting_verdicts(args))
        options = _options(args)
        pooled = md.pool_settings(md.setting_differences(data, reference=args.reference, options=options),
                                  confidence_level=options.confidence_level)
        return plots.overview(md.overview(data, reference=args.reference, options=options), reference=args.reference,
                              pooled=pooled)
    if kind == "overview":
        return plots.overview(_overview(args), reference=args.reference)
    if kind == "critical":
        return plots.critical_difference(md.critical_difference(_overview(args, md.Options(n_resamples=0)),
                                                                confidence_level=args.ci))
    df = _read(args)
    systems = sorted(df["system"].unique())
    labels = _labels(args, df)
    if kind == "venn3":
        memory, augmented = _venn3_systems(args, systems)
        trio = [args.reference, memory, augmented or f"{memory}+raw"]  # augmentation refuses repeated names
        prepared = md.prepare(df, scheme=args.scheme, systems=trio if len(set(trio)) == 3 else None,
                              missing=args.missing, verdict_missing=args.verdict_missing)
        table = md.augmentation(prepared, memory, reference=args.reference, augmented=augmented)
        return plots.venn3(table, all_systems=systems, labels=labels)
    if kind == "store-gap":
        from memdiag.analyses.store_gap import store_variants
        from memdiag.io.systems_table import read_systems_table

        variants = read_systems_table(args.systems_table)
        runs = list(dict.fromkeys(store_variants(variants)["system"]))  # prepared on the tagged runs alone
        prepared = md.prepare(df, scheme=args.scheme, systems=runs, missing=args.missing,
                              verdict_missing=args.verdict_missing)
        table = md.store_gap(prepared, variants, options=_options(args, inference="auto", correction="holm"))
        return plots.store_gap(table, labels=labels)
    if kind == "sensitivity":
        sweep = df[df["system"].astype(str).str.contains(f"{args.parameter}=", regex=False)]  # other runs ignored
        runs = md.prepare(sweep if len(sweep) else df, scheme=args.scheme, metric=args.metric, missing=args.missing,
                          verdict_missing=args.verdict_missing, design=args.design)
        table = md.sensitivity(runs, parameter=args.parameter, default=args.default, metric=args.metric,
                               options=_options(args))
        return plots.sensitivity(table, parameter=args.parameter, default=table.attrs["default"], labels=labels)
    options = _options(args)  # venn, forest, matrix and bubble also choose how intervals are made (--inference)

    def prepared(metric: str = "accuracy", scheme: str | None = args.scheme):
        return md.prepare(df, scheme=scheme, metric=metric, missing=args.missing, verdict_missing=args.verdict_missing)

    if kind == "venn":
        flows = md.flows(prepared(), reference=args.reference, options=options)
        return plots.venn(flows, reference=args.reference, shared_scale=args.shared_scale, all_systems=systems,
                          labels=labels)
    if kind == "forest":
        if args.arrange != "auto" and not args.by:
            raise UsageError("--arrange lays out the groups of --by; without --by there is one block")
        table = md.compare(prepared(args.metric), pairs="reference", reference=args.reference, metric=args.metric,
                           by=args.by, options=options)
        return plots.forest(table, reference=args.reference, all_systems=systems, labels=labels, layout=args.arrange)
    if kind == "matrix":
        upper = md.compare(prepared(args.metric), metric=args.metric, options=options)
        lower = md.compare(prepared(args.lower, None), metric=args.lower, options=options) if args.lower else None
        return plots.matrix(upper, lower, labels=labels)
    from memdiag.io.systems_table import read_systems_table  # bubble

    table = read_systems_table(args.systems_table)
    size = args.size or next((c for c in ("store_size", "store_tokens") if c in table), "store_size")
    absent = [c for c in (args.cost, size) if c not in table]
    if absent:
        raise VerdictError(f"{args.systems_table}: the systems table has no column {absent[0]!r} (it has "
                           f"{', '.join(map(str, table.columns))}). Add it, or choose another with --cost / --size.")
    scores = md.bootstrap(prepared(), "accuracy", options=options)
    return plots.bubble(scores, table, reference=args.reference, cost=args.cost, size=size, all_systems=systems,
                        labels=labels)


def _venn3_systems(args: argparse.Namespace, systems: Sequence[str]) -> tuple[str, str | None]:
    """``(memory, augmented)`` of ``plot venn3``: ``--systems MEMORY [AUGMENTED]`` with ``--reference``,
    ``--systems REFERENCE MEMORY AUGMENTED``, or without ``--systems`` the first system named
    ``<memory>+raw`` whose memory system is present."""
    from memdiag.analyses.augmentation import augmented_pairs

    names = args.systems or []
    found = augmented_pairs(systems)
    if not names and args.reference and found:
        return found[0]
    if len(names) == 3 and args.reference in (None, names[0]):
        args.reference = names[0]
        return names[1], names[2]
    if not args.reference or len(names) not in (1, 2):
        raise UsageError("plot venn3 needs --reference NAME and --systems MEMORY [AUGMENTED] (default "
                         "AUGMENTED: MEMORY+raw), or --systems REFERENCE MEMORY AUGMENTED")
    return names[0], names[1] if len(names) == 2 else None


def _overview(args: argparse.Namespace, options: md.Options | None = None):
    """The scores of ``plot overview`` (and ``plot critical``, with ``options`` of no resampling):
    one setting per ``--setting NAME=PATH``, else per value of the verdicts' ``benchmark`` /
    ``model`` columns."""
    options = options or _options(args)
    reference = getattr(args, "reference", None)
    if args.setting:
        if args.files or args.recipe:
            raise UsageError("plot overview reads either --setting NAME=PATH (one per setting) or FILES, not both")
        settings = {}
        for name, path in _key_values(args.setting, "--setting").items():
            benchmark, _, model = name.partition("/")
            settings[(benchmark, model)] = md.read_verdicts(path)
        for frame in settings.values():
            _check_outputs(args, frame)
        return md.overview(_settings_prepared(args, settings), reference=reference, options=options)
    return md.overview(_settings_prepared(args, _read(args)), reference=reference, options=options)


def _settings_prepared(args: argparse.Namespace, data: pd.DataFrame | dict, metric: str = "accuracy") -> dict:
    """Every setting of ``data`` prepared under its benchmark's scheme with the command's data
    choices (missing-data policies): what ``overview`` and ``setting_differences`` take."""
    from memdiag.analyses.overview import prepare_settings

    return prepare_settings(data, metric=metric, missing=args.missing, verdict_missing=args.verdict_missing)


def _setting_verdicts(args: argparse.Namespace) -> pd.DataFrame | dict:
    """The verdicts of ``across``: ``{(benchmark, model): verdicts}`` from ``--setting NAME=PATH``, else
    the FILES (split into settings by their benchmark and model columns)."""
    import pandas as pd

    if not args.setting:
        return _read(args)
    if args.files or args.recipe:
        raise UsageError(f"{args.command} reads either --setting NAME=PATH (one per setting) or FILES, not both")
    reading = [o for o, v in (("--layout", args.layout != "auto"), ("--system", args.system), ("--field", args.field),
                              ("--records", args.records), ("--judge", args.judge), ("--join", args.join),
                              ("--dataset", args.dataset), ("--allow-outside", args.allow_outside)) if v]
    if reading:  # each --setting is read in its own layout; these options describe FILES
        raise UsageError(f"{reading[0]} describes how FILES are read; --setting NAME=PATH reads each setting as "
                         "it is (give FILES with benchmark and model columns instead)")
    settings = {}
    for name, path in _key_values(args.setting, "--setting").items():
        benchmark, _, model = name.partition("/")
        settings[(benchmark, model)] = md.read_verdicts(path)
    for frame in settings.values():
        _check_outputs(args, frame)
    _remember_labels(args, pd.concat([f[["system"]] for f in settings.values()], ignore_index=True))
    return settings


def _cmd_across(args: argparse.Namespace) -> int:
    verdicts = _setting_verdicts(args)
    options = _options(args)
    data = _settings_prepared(args, verdicts, metric=args.metric)
    differences = md.setting_differences(data, reference=args.reference, metric=args.metric, options=options)
    frames = [differences, md.pool_settings(differences, tau2=args.tau2, interval=args.interval,
                                            clusters=args.clusters, combine=args.combine, confidence_level=args.ci)]
    if args.cd != "none":
        scores = data if args.metric == "accuracy" else _settings_prepared(args, verdicts)
        frames.append(md.critical_difference(md.overview(scores, reference=args.reference, options=options),
                                             method=args.cd, confidence_level=args.ci))
    _emit(frames, args)
    return 0


def _cmd_fragility(args: argparse.Namespace) -> int:
    df = _prepared(args, _read(args), scheme=args.scheme)
    _emit(md.fragility(df, pairs=args.pairs, reference=args.reference, metric=args.metric, threshold=args.threshold,
                       max_subsets=args.max_subsets, options=_options(args)), args)
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from memdiag.reporting import report, report_from_json
    from memdiag.reporting.publish import resolve_target
    from memdiag.tables.aliases import alias_options

    resolve_target(args.out, args.force)  # before reading anything: a refused --out costs nothing
    if args.rerun:
        if len(args.files) != 1:
            raise UsageError("--rerun takes one analysis.json: memdiag report --rerun DIR/analysis.json --out NEW")
        out = report_from_json(args.files[0], args.out, force=args.force)
    else:
        if not args.reference:
            raise UsageError("report needs --reference NAME (e.g. --reference raw-rag)")
        df = _read(args)
        prepare = dict(scheme=args.scheme, missing=args.missing, verdict_missing=args.verdict_missing,
                       judges=args.judges, label_missing=args.label_missing, cluster_missing=args.cluster_missing)
        out = report(df, args.reference, args.out, prepare=prepare, options=_options(args), threshold=args.threshold,
                     labels=alias_options(_key_values(args.alias, "--alias"), df) or None,
                     systems_table=args.systems_table, claims=args.claims, write_log=args.write_log,
                     ingestion_log=args.ingestion_log, read_options=_read_options(args), force=args.force)
    print(out / "report.html")
    return 0


def _read_options(args: argparse.Namespace) -> dict:
    """How the report's verdicts were read, recorded for ``--rerun``."""
    dataset = {"dataset": args.dataset} if getattr(args, "dataset", None) else {}
    if args.recipe:
        return {"recipe": str(args.recipe), "files": args.files or None,
                "join": [_join_spec(j) for j in args.join or ()] or None, **dataset,
                **({"allow_outside": True} if args.allow_outside else {})}
    return {"format": args.layout, "fields": _key_values(args.field, "--field") or None,
            "records": args.records, "judge": _named(args.judge, "--judge"),
            "join": [_join_spec(j) for j in args.join or ()] or None, **dataset}


def _cmd_inspect(args: argparse.Namespace) -> int:
    from pathlib import Path

    from memdiag.io.outputs import check_outputs, write_file
    from memdiag.io.readers._inspect import inspect

    if args.write:  # the rules of every other output, before anything is read
        check_outputs([args.write], [f for f in args.files if os.path.isfile(f)]
                      + ([args.dataset] if args.dataset else []), force=args.force)
    found = inspect(args.files, recipe_dir=Path(args.write).resolve().parent if args.write else None,
                    dataset=args.dataset)
    sys.stdout.write(found.text)
    if args.write:
        target = Path(args.write)
        check_outputs([target], [f for f in args.files if os.path.isfile(f)], force=args.force)  # + files read
        write_file(target, found.recipe)
        print(f"draft recipe written to {target}" + ("" if found.complete else
              " (it needs your answers: see 'could not decide' above)"))
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from memdiag.reporting import demo
    from memdiag.reporting.publish import resolve_target

    if args.figures is None:
        resolve_target(args.out, args.force)

    out = demo(out=args.out, figures=args.figures, options=_options(args), force=args.force)
    print(out if args.figures else out / "report.html")
    return 0


def _cmd_simulate(args: argparse.Namespace) -> int:
    from memdiag.synthetic import EXAMPLE_SEED, write_example

    folder = Path(args.write)
    if folder.exists() and not folder.is_dir():
        raise FileExistsError(17, "is a file; give a folder to write the example data into", str(folder))
    if folder.is_dir() and any(folder.iterdir()) and not args.force:
        raise FileExistsError(17, "is a folder that holds files; memdiag does not write into it. Choose an "
                                  "empty or new folder, or pass --force to overwrite the example files in it",
                              str(folder))
    for path in write_example(args.write, seed=EXAMPLE_SEED if args.seed is None else args.seed):
        print(path)
    return 0


# --------------------------------------------------------------------------------------------
# memdiag plot KIND: one subcommand per figure, each with the options it reads
# --------------------------------------------------------------------------------------------
#: The figure kinds of ``memdiag plot``, each with the line ``memdiag plot --help`` shows.
FIGURES = {
    "venn": "benefit/tax Venn panels of each system against --reference (the flows)",
    "venn3": "three-set Venn: the reference, a memory system and the memory system with raw evidence",
    "forest": "differences from --reference with intervals and adjusted p (one block per --by group)",
    "matrix": "pairwise differences of every pair: --metric above the diagonal, --lower below",
    "bubble": "accuracy against a cost of --systems-table, area by memory-store size, Pareto front",
    "overview": "every system's score in every benchmark × model setting (--pooled: and the pooled difference)",
    "critical": "mean ranks across settings and the groups not shown to differ (critical differences)",
    "writes": "proposed and effective mutation rates per cluster, from a memory decision log",
    "actions": "the distribution of ADD / UPDATE / DELETE / NONE decisions, from a memory decision log",
    "ingestion": "cumulative ingestion time of each system, from an ingestion log",
    "sensitivity": "score and difference from --default across a parameter's values (systems PARAM=VALUE)",
    "store-gap": "native vs complete-store scores per memory system and the gap to raw evidence",
}


def _add_figure_files(p: argparse.ArgumentParser, kind: bool) -> None:
    """``-o``, ``--force`` and ``--width``, which every figure reads: on ``plot`` itself, before the
    kind, with their defaults; and on each kind (``kind=True``) without a default, so that a value
    given before the kind stands unless the kind is given one too (:class:`_FigureKinds` requires
    ``-o`` in one place or the other)."""
    unset = argparse.SUPPRESS if kind else None
    p.add_argument("-o", "--output", metavar="OUT.pdf", default=unset,
                   help="output stem: OUT.pdf, OUT.svg and OUT.png are written (required, before or after the kind)")
    _add_force(p, "existing figure files", default=unset if kind else False)
    p.add_argument("--width", choices=("column", "page"), default=unset if kind else "column",
                   help="column (default): one paper column (3.5 in) unless the figure's text needs two; page: at "
                        "least the two-column page width (7.2 in)")


#: ``--systems-table`` of the figures that read it for its ``label`` column alone.
_LABEL_TABLE = "system-level table whose label column names the systems drawn"


def _add_verdicts(p: argparse.ArgumentParser, table: str = _LABEL_TABLE, required_table: bool = False) -> None:
    """The verdict files a figure reads, the ``--scheme`` it scores them under, and the short
    names it draws (``--alias``; ``--systems-table``: its ``label`` column, and what ``table`` says)."""
    _add_input(p)
    p.add_argument("--scheme", help="official aggregation (locomo, meme, FILE.yaml; default: the one the rows "
                                    "imply, else mean)")
    p.add_argument("--systems-table", metavar="CSV", required=required_table, help=table)
    _add_alias(p)


def _add_settings(p: argparse.ArgumentParser) -> None:
    """The benchmark × model settings of ``overview`` and ``critical``: ``--setting NAME=PATH`` or FILES."""
    _add_input(p)
    p.add_argument("--setting", action="append", metavar="NAME=PATH",
                   help="one benchmark (or benchmark/model) setting and its verdicts (repeatable); without it "
                        "FILES are split by their benchmark and model columns")


def _add_log(p: argparse.ArgumentParser, what: str) -> None:
    """The one log file a figure of the memory's writes or ingestion draws."""
    p.add_argument("log", metavar="LOG", help=f"{what} (CSV or JSONL)")


def _add_plot(sub: argparse._SubParsersAction) -> None:
    """``memdiag plot KIND``: one subcommand per figure of :data:`FIGURES`."""
    p = sub.add_parser("plot", help="publication figures (PDF + SVG + PNG): memdiag plot KIND --help",
                       description="One publication figure, written as OUT.pdf, OUT.svg and OUT.png. -o, --force "
                                   "and --width go before or after the kind; every other option after it "
                                   "(memdiag plot KIND --help).")
    _add_figure_files(p, kind=False)
    p.set_defaults(run=_cmd_plot)
    kinds = p.add_subparsers(dest="figure", required=True, metavar="KIND", action=_FigureKinds,
                             parser_class=_KindParser, help="the figure to draw")

    def kind(name: str) -> argparse.ArgumentParser:
        """The subcommand ``memdiag plot NAME``, described by its line of :data:`FIGURES`."""
        return kinds.add_parser(name, help=FIGURES[name], description=f"{FIGURES[name][0].upper()}"
                                                                      f"{FIGURES[name][1:]}.")

    reference = "reference system: the other systems are compared with it"
    k = kind("venn")
    _add_verdicts(k)
    k.add_argument("--reference", required=True, metavar="NAME", help=reference)
    k.add_argument("--shared-scale", action=argparse.BooleanOptionalAction, default=True,
                   help="circle areas to scale, comparable across panels (default, as in the report); "
                        "--no-shared-scale draws every panel with the same layout")
    _add_resampling(k)

    k = kind("venn3")
    _add_verdicts(k)
    k.add_argument("--reference", metavar="NAME", help="the reference system (or the first of three --systems)")
    k.add_argument("--systems", nargs="+", metavar="NAME",
                   help="MEMORY [AUGMENTED] with --reference (default AUGMENTED: MEMORY+raw), or REFERENCE MEMORY "
                        "AUGMENTED (after FILES); default: the first system named MEMORY+raw")

    k = kind("forest")
    _add_verdicts(k)
    k.add_argument("--reference", required=True, metavar="NAME", help=reference)
    k.add_argument("--metric", default="accuracy", help="metric of the differences (default accuracy)")
    k.add_argument("--by", metavar="COLUMN",
                   help="one block per group of this column (e.g. --by category), adjusted within each")
    k.add_argument("--arrange", choices=("auto", "stacked", "grid"), default="auto",
                   help="with --by: the groups stacked, or small multiples on one x scale (auto, the default: "
                        "small multiples when stacking would not fit a page)")
    _add_resampling(k)

    k = kind("matrix")
    _add_verdicts(k)
    k.add_argument("--metric", default="accuracy", help="metric of the upper triangle (default accuracy)")
    k.add_argument("--lower", help="metric of the lower triangle (e.g. utilization; default: none)")
    _add_resampling(k)

    k = kind("bubble")
    _add_verdicts(k, "system-level table: one row per system with its costs (tokens_per_query, ...) and "
                     "store size (store_size or store_tokens), and an optional label column", required_table=True)
    k.add_argument("--reference", metavar="NAME", help="reference system, drawn grey")
    k.add_argument("--cost", default="tokens_per_query", help="cost column (default tokens_per_query)")
    k.add_argument("--size", help="bubble-area column (default: store_size, else store_tokens)")
    _add_resampling(k)

    k = kind("overview")
    _add_settings(k)
    k.add_argument("--reference", metavar="NAME", help="reference system, drawn grey (needed by --pooled)")
    k.add_argument("--pooled", action="store_true",
                   help="add the pooled difference from --reference and the u-of-N count (SPEC §10)")
    _add_resampling(k)

    k = kind("critical")          # ranks of point estimates: nothing is resampled
    _add_settings(k)
    k.add_argument("--ci", type=_level, default=0.95,
                   help="confidence level of the critical difference (default 0.95: α = 0.05)")

    _add_log(kind("writes"), "the memory decision log")
    _add_log(kind("actions"), "the memory decision log")
    k = kind("ingestion")
    _add_log(k, "per-item ingestion durations")
    k.add_argument("--reference", metavar="NAME", help="reference system, drawn grey")

    k = kind("sensitivity")
    _add_verdicts(k)
    k.add_argument("--parameter", default="final_k", help="parameter in the system names PARAM=VALUE "
                                                          "(default final_k)")
    k.add_argument("--default", required=True, help="the default value of the parameter (e.g. --default 15)")
    k.add_argument("--metric", default="accuracy", help="metric (default accuracy)")
    _add_resampling(k, inference=False)

    k = kind("store-gap")
    _add_verdicts(k, "system-level table with columns system, base and variant (native, complete or raw), "
                     "and an optional label column", required_table=True)
    _add_resampling(k, inference=False)

    for k in kinds.choices.values():
        _add_figure_files(k, kind=True)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``memdiag`` command."""
    parser = _Parser(
        prog="memdiag",
        description="What an agent-memory system really adds over plain retrieval: paired flows, "
                    "intervals, tests and figures from per-query verdicts.",
    )
    parser.add_argument("--version", action="version", version=f"memdiag {md.__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("validate", help="what was read: systems, queries, repetitions, pairing, problems")
    _add_input(p, align=False)
    _add_output(p)
    p.set_defaults(run=_cmd_validate)

    p = sub.add_parser("score", help="official benchmark scores per system (overall and per group)")
    _add_input(p, judges=True)
    p.add_argument("--scheme", help="built-in scheme name or a YAML/JSON scheme file (default: locomo for LoCoMo "
                                    "rows, else mean)")
    p.add_argument("--metric", default="score", help="per-query column to score (score, f1, bleu, ...)")
    p.add_argument("--design", choices=KINDS,
                   help="resampling design of the intervals (default: from the scheme and data)")
    p.add_argument("--resamples", type=_resamples_or_zero, default=20_000, metavar="B",
                   help=f"bootstrap replicates for intervals of the scores, {MIN_RESAMPLES} or more (default "
                        "20000; 0: point estimates only)")
    p.add_argument("--seed", type=_seed, default=0, help="random seed (default 0)")
    p.add_argument("--ci", type=_level, default=0.95, help="confidence level (default 0.95)")
    _add_inference(p)
    _add_output(p)
    p.set_defaults(run=_cmd_score)

    p = sub.add_parser("compare", help="paired differences between systems with intervals, p and Holm")
    _add_input(p, judges=True)
    p.add_argument("--metric", default="accuracy",
                   help="accuracy (default), coverage, utilization, or a per-query column (f1, ...)")
    p.add_argument("--scheme", help="official aggregation recomputed in every replicate (locomo, meme, FILE.yaml)")
    p.add_argument("--pairs", choices=("all", "reference"), default="all",
                   help="all pairs of systems (default), or each system against --reference")
    p.add_argument("--reference", help="reference system for --pairs reference")
    _add_correction(p)
    p.add_argument("--threshold", type=_threshold, help="binarise scores at > THRESHOLD first")
    p.add_argument("--omnibus", action="store_true", help="also print the omnibus test across systems")
    p.add_argument("--by", help="every pair within each group of this column (e.g. --by category), Holm within each")
    p.add_argument("--test", choices=("difference", "equivalence", "noninferiority"), default="difference",
                   help="difference (default), equivalence within ±MARGIN (TOST), or not worse by more than MARGIN")
    p.add_argument("--margin", type=lambda text: _number(text, "the margin"), metavar="POINTS",
                   help="equivalence / non-inferiority margin in points (with --test)")
    _add_resampling(p)
    _add_output(p)
    p.set_defaults(run=_cmd_compare)

    p = sub.add_parser("leaderboard", help="systems in tiers statistically tied with the best, with rank intervals")
    _add_input(p, judges=True)
    p.add_argument("--metric", default="accuracy", help="accuracy (default), coverage, utilization, or a column")
    p.add_argument("--scheme", help="official aggregation recomputed in every replicate (locomo, meme, FILE.yaml)")
    p.add_argument("--margin", type=lambda text: _number(text, "the margin"), metavar="POINTS",
                   help="also tie a system shown not worse than its tier's leader by more than POINTS")
    _add_correction(p)
    p.add_argument("--threshold", type=_threshold, help="binarise scores at > THRESHOLD first")
    _add_resampling(p)
    _add_output(p)
    p.set_defaults(run=_cmd_leaderboard)

    p = sub.add_parser("flows", help="memory benefit and tax of each system against a reference")
    _add_input(p, judges=True)
    p.add_argument("--reference", action="append", required=True,
                   help="reference system, e.g. raw-rag (repeatable for several references)")
    p.add_argument("--by", help="per group of this column, e.g. --by category")
    p.add_argument("--scheme", help="apply a scheme's query selection (e.g. locomo drops adversarial questions)")
    p.add_argument("--threshold", type=_threshold, help="correct = score > THRESHOLD (default 0.5)")
    _add_correction(p)
    p.add_argument("--replay", metavar="DIR",
                   help="also write every query of every flow cell (benefit, tax, both, neither) with its question, "
                        "expected answer and the responses, as DIR/replay.csv and DIR/replay.jsonl")
    _add_resampling(p)
    _add_output(p)
    p.set_defaults(run=_cmd_flows)

    p = sub.add_parser("evidence", help="coverage, utilization, the accuracy decomposition and evidence length")
    _add_input(p, judges=True)
    p.add_argument("--tests", action="store_true", help="also the omnibus and pairwise tests (paper A.5.1)")
    p.add_argument("--procedure", metavar="NAME",
                   help="instead of --tests, a paper's procedure by name: raw-rag-c6 (Cochran's Q and exact "
                        "McNemar for coverage, max-range and sign tests for utilization, 50,000-replicate "
                        "percentile intervals; Raw-RAG C.6, A.5.1): its omnibus table, matrix and pairs")
    _add_correction(p)
    p.add_argument("--budget", type=_budget, default=5_000, help="evidence-token budget (default 5000)")
    _add_resampling(p, default="20000; with --procedure the procedure's own, 50000 for raw-rag-c6")
    _add_output(p)
    p.set_defaults(run=_cmd_evidence)

    p = sub.add_parser("costs", help="latency, tokens and LLM calls per system: mean, median, P95, cost per correct "
                                     "answer, ratios (speed-ups) with intervals")
    _add_input(p, judges=True)
    p.add_argument("--quantity", action="append", metavar="COLUMN",
                   help="a per-query cost column (repeatable; default: latency_s, input_tokens, output_tokens, "
                        "evidence_tokens, tokens_used, llm_calls, ... as present)")
    p.add_argument("--reference", help="ratios of every system's mean cost to this system's (speed-ups)")
    p.add_argument("--pairs", choices=("reference", "all"), default="reference",
                   help="ratios against --reference (default) or between all pairs")
    p.add_argument("--scheme", help="apply a scheme's query selection (e.g. locomo drops adversarial questions)")
    p.add_argument("--threshold", type=_threshold, help="cost per correct answer: correct = score > THRESHOLD "
                                                       "(default: the score as it is)")
    _add_correction(p)
    p.add_argument("--systems-table", metavar="CSV", help="system-level costs (ingestion hours and tokens, ...) "
                                                          "with their ratios to --reference")
    p.add_argument("--ingestion-log", metavar="LOG", help="per-item ingestion durations (CSV or JSONL): "
                                                          "total ingestion time per system")
    _add_resampling(p)
    _add_output(p)
    p.set_defaults(run=_cmd_costs)

    p = sub.add_parser("audit", help="check published claims against the verdicts, or a paper's published numbers "
                                     "alone with --summaries (exit 1 if any is not supported / flagged)")
    p.add_argument("claims", metavar="CLAIMS", nargs="?", help="claims file (YAML or CSV)")
    p.add_argument("--summaries", metavar="YAML",
                   help="audit published numbers without verdicts: granularity, McNemar p bounds, power, p at a "
                        "bootstrap floor, family adjustment, aggregates (docs/spec.md §7.7)")
    p.add_argument("--details", action="store_true", help="with --summaries: also print each check's full table")
    _add_input(p, option="--verdicts")
    p.add_argument("--alpha", type=_alpha, default=0.05,
                   help="significance level of the family-adjusted p (Holm within each family; default 0.05)")
    _add_resampling(p, design=False)  # each claim's design is its own (the claims file's, or its scheme's)
    _add_output(p)
    p.set_defaults(run=_cmd_audit)

    p = sub.add_parser("rank", help="how stable the ranking is: each system's bootstrap rank distribution")
    _add_input(p, judges=True)
    p.add_argument("--metric", default="accuracy", help="accuracy (default) or a per-query column (f1, ...)")
    p.add_argument("--scheme", help="official aggregation recomputed in every replicate (locomo, meme, FILE.yaml)")
    p.add_argument("--threshold", type=_threshold, help="binarise scores at > THRESHOLD first")
    p.add_argument("--lower-is-better", action="store_true", help="rank 1 is the smallest value (e.g. a cost)")
    _add_resampling(p)
    _add_output(p)
    p.set_defaults(run=_cmd_rank)

    p = sub.add_parser("attribute", help="split a score change between two runs into changed and unchanged queries")
    p.add_argument("before", metavar="BEFORE", help="verdicts of the run before the intervention (file or folder)")
    p.add_argument("after", metavar="AFTER", help="verdicts of the run after it")
    p.add_argument("--changed", required=True, metavar="COLUMN | @FILE | ID,ID,...",
                   help="the queries whose input the intervention changed: a 0/1 column of AFTER, a file of "
                        "query ids (one a line), or ids separated by commas")
    p.add_argument("--system", help="the system to attribute when the files hold several")
    p.add_argument("--layout", default="auto", help="input layout (default: auto-detect per file)")
    p.add_argument("--field", action="append", metavar="CANONICAL=SOURCE",
                   help="map a source column to a canonical one (repeatable)")
    p.add_argument("--records", metavar="PATH", help="where the records are in each JSON file")
    p.add_argument("--scheme", help="a question-weighted scheme whose exclusions apply (e.g. locomo)")
    p.add_argument("--missing", choices=("error", "drop", "wrong"), default="error",
                   help="a query one run lacks: error (default), drop it, or score it 0")
    p.add_argument("--verdict-missing", choices=("as-wrong", "exclude"), default="as-wrong",
                   help="a verdict with no usable score: score 0 (default) or drop the query")
    _add_resampling(p)
    _add_output(p, alias=False)  # no verdicts of several systems to name
    p.set_defaults(run=_cmd_attribute)

    p = sub.add_parser("path", help="P(path | result): how often a system keeps the path to a result it covers")
    _add_input(p, judges=True)
    p.add_argument("--categories", metavar="A,B,...", help="keep only these categories, e.g. Tr,Cas (MEME)")
    p.add_argument("--phase", default="after", help="keep this phase when the data have one (default after; all)")
    p.add_argument("--allow-inconsistent", action="store_true",
                   help="count rows with path_covered = 1 and result_covered = 0 instead of refusing them")
    _add_resampling(p)
    _add_output(p)
    p.set_defaults(run=_cmd_path)

    p = sub.add_parser("power", help="the smallest difference each comparison can detect, and its power, under its design")
    _add_input(p, judges=True)
    p.add_argument("--reference", help="compare every system with this one (--pairs reference, the default)")
    p.add_argument("--pairs", choices=("reference", "all"), default="reference",
                   help="each system against --reference (default), or all pairs of systems")
    p.add_argument("--metric", default="accuracy", help="accuracy (default) or a per-query column")
    p.add_argument("--scheme", help="official aggregation (locomo, meme, FILE.yaml)")
    p.add_argument("--threshold", type=_threshold, help="binarise scores at > THRESHOLD first")
    p.add_argument("--alpha", type=_alpha, default=0.05, help="two-sided level per comparison (default 0.05)")
    p.add_argument("--power", type=_power_level, default=0.8, help="power of the detectable difference (default 0.8)")
    p.add_argument("--delta", type=_delta, action="append", metavar="POINTS",
                   help="also the power at this true difference in points (repeatable)")
    _add_resampling(p, ci=False)  # the detectable difference and power use --alpha and --power, no interval
    _add_output(p)
    p.set_defaults(run=_cmd_power)

    p = sub.add_parser("independence", help="which pairwise conclusions of an iid analysis survive the cluster design")
    _add_input(p, judges=True)
    p.add_argument("--pairs", choices=("all", "reference"), default="all",
                   help="all pairs of systems (default), or each system against --reference")
    p.add_argument("--reference", help="reference system for --pairs reference")
    p.add_argument("--metric", default="accuracy", help="accuracy (default) or a per-query column")
    p.add_argument("--scheme", help="official aggregation (locomo, meme, FILE.yaml)")
    p.add_argument("--threshold", type=_threshold, help="binarise scores at > THRESHOLD first")
    p.add_argument("--alpha", type=_alpha, default=0.05, help="significance level of the adjusted p (default 0.05)")
    _add_correction(p)
    _add_resampling(p)
    _add_output(p)
    p.set_defaults(run=_cmd_independence)

    p = sub.add_parser("robustness", help="how every headline number moves: content-filter exclusion, the first "
                                          "judge call against the mean, missing verdicts as wrong against right")
    _add_input(p)
    p.add_argument("--check", action="append", choices=tuple(_CHECKS),
                   help="content-filter (with --filtered), judge-repeats or missing-verdicts (repeatable; default: "
                        "every check the data allow)")
    p.add_argument("--filtered", metavar="COLUMN | FILE",
                   help="the answers a content filter blocked: a 0/1 column of the verdicts, or a CSV file with a "
                        "query_id column and optionally system (empty or absent: every system)")
    p.add_argument("--judges", metavar="NAME", help="several judges of the same answers: check this judge's verdicts")
    p.add_argument("--scheme", help="official aggregation of the headline scores (locomo, meme, FILE.yaml)")
    p.add_argument("--reference", help="each system's difference from this one is a headline number too")
    _add_correction(p)
    _add_resampling(p, allow_zero=True)
    _add_output(p)
    p.set_defaults(run=_cmd_robustness)

    p = sub.add_parser("writes", help="write-action (mutation) audit of a memory decision log")
    p.add_argument("log", metavar="LOG", help="decision log (CSV or JSONL): cluster, decision, persisted, old_text, new_text")
    _add_output(p, alias=False)  # no verdicts of several systems to name
    p.set_defaults(run=_cmd_writes)

    p = sub.add_parser("agreement", help="judge reliability across repetitions or judges, and the missing-verdict effect")
    _add_input(p)
    p.add_argument("--by", choices=("repeat", "judge"),
                   help="raters are repetitions or judges (default: judges when the data name several)")
    p.add_argument("--judges", metavar="mean | NAME",
                   help="several judges: the missing-verdict effect per judge (default; also with mean) or of "
                        "one judge; the agreement table always compares them all")
    p.set_defaults(verdict_missing="exclude")  # agreement leaves missing verdicts out, counted (issue 14)
    p.add_argument("--threshold", type=_threshold, help="correct = score > THRESHOLD (default 0.5)")
    _add_resampling(p, inference=False, design=False)  # κ intervals resample answers: no design to follow
    _add_output(p)
    p.set_defaults(run=_cmd_agreement)

    p = sub.add_parser("judge-error", help="the verdict is not the truth: judge-error-corrected scores (Rogan–Gladen, "
                                          "PPI++), judge leniency, wrong gold answers, judge-repetition variance")
    _add_input(p)
    p.add_argument("--locomo-audit", action="store_true",
                   help="FILES are locomo-audit eval_results.json files (three judgments per answer; needs --dataset)")
    p.add_argument("--label", metavar="COLUMN", help="human 0/1 verdicts on a calibration subset: Rogan–Gladen and PPI++")
    p.add_argument("--sensitivity", type=lambda t: _number(t, "the sensitivity"), help="stated judge sensitivity")
    p.add_argument("--specificity", type=lambda t: _number(t, "the specificity"), help="stated judge specificity")
    p.add_argument("--n-correct", type=int, help="truly right calibration items behind --sensitivity")
    p.add_argument("--n-incorrect", type=int, help="truly wrong calibration items behind --specificity")
    p.add_argument("--reference", help="differences against this system (default: every pair)")
    p.add_argument("--wrong-answers", action="append", metavar="FILE",
                   help="known-wrong answers judged like the systems (locomo-audit ap-baseline files, repeatable): "
                        "false-positive rate, length test, accuracy bound")
    p.add_argument("--breakeven", type=lambda t: _number(t, "the false-positive rate"), metavar="POINTS",
                   help="with --reference: how much more lenient with one side the judge would have to be "
                        "(false-positive rate POINTS on the other) to explain each difference away")
    p.add_argument("--gold-errors", metavar="FILE",
                   help="wrong gold answers (errors.json or a CSV of query_id): ceilings, flags, clean re-scoring")
    p.add_argument("--components", action="store_true",
                   help="split each score's and difference's variance into conversation, question, run and judge parts")
    p.add_argument("--target", type=lambda t: _number(t, "the target"), metavar="POINTS",
                   help="with --components: designs (conversations × runs × judge calls) that detect this difference")
    _add_resampling(p, inference=False)
    _add_output(p)
    p.set_defaults(run=_cmd_judge_error)

    _add_plot(sub)

    p = sub.add_parser("across", help="differences from a reference in every setting, pooled (random effects), "
                                      "the u-of-N settings count, and critical differences of mean ranks")
    _add_input(p)
    p.add_argument("--setting", action="append", metavar="NAME=PATH",
                   help="one benchmark (or benchmark/model) setting and its verdicts (repeatable); without it "
                        "FILES are split by their benchmark and model columns")
    p.add_argument("--reference", required=True, help="the system every other is compared with in each setting")
    p.add_argument("--metric", default="accuracy", help="accuracy (default), coverage, utilization, or a column")
    p.add_argument("--tau2", choices=("reml", "pm", "dl", "fixed"), default="reml",
                   help="between-setting variance: REML (default), Paule-Mandel, DerSimonian-Laird, or fixed effect")
    p.add_argument("--interval", choices=("auto", "hksj", "z"), default="auto",
                   help="pooled interval: auto (Hartung-Knapp below 10 settings, else normal), hksj or z")
    p.add_argument("--clusters", metavar="COLUMN",
                   help="settings sharing this column's value (e.g. benchmark) are correlated: CR2 robust interval")
    p.add_argument("--combine", choices=("bonferroni", "simes", "fisher"), default="bonferroni",
                   help="partial-conjunction combination of the u-of-N count (default bonferroni: any dependence)")
    p.add_argument("--cd", choices=("nemenyi", "wilcoxon-holm", "none"), default="nemenyi",
                   help="critical differences of mean ranks across settings (default nemenyi; none: skip)")
    _add_resampling(p)
    _add_output(p)
    p.set_defaults(run=_cmd_across)

    p = sub.add_parser("fragility", help="how many verdict flips or removed conversations overturn each comparison")
    _add_input(p, judges=True)
    p.add_argument("--scheme", help="the benchmark scheme whose queries are counted (locomo, meme, FILE.yaml)")
    p.add_argument("--pairs", choices=("all", "reference"), default="all",
                   help="every pair of systems (default), or each system against --reference")
    p.add_argument("--reference", help="reference system for --pairs reference")
    p.add_argument("--metric", default="accuracy",
                   help="accuracy (default), coverage or a per-query column (f1, ...): flips need 0/1 values")
    p.add_argument("--threshold", type=_threshold,
                   help="accuracy: correct when the score is > THRESHOLD (graded scores: 0.5 unless given)")
    p.add_argument("--max-subsets", type=int, default=200_000, metavar="N",
                   help="refits the exact search over removed clusters may use before the AMIP approximation")
    p.add_argument("--ci", type=_level, default=0.95, help="confidence level: alpha = 1 - level (default 0.95)")
    _add_output(p)
    p.set_defaults(run=_cmd_fragility)

    p = sub.add_parser("report", help="the whole analysis as a folder: report.md/.html, figures, tables, analysis.json")
    _add_input(p, judges=True)
    p.add_argument("--reference", help="reference system of the flows and the forest plot, e.g. raw-rag")
    p.add_argument("--out", required=True, metavar="DIR", help="report folder (replaced only if it is an earlier report)")
    p.add_argument("--scheme", help="official aggregation (locomo, meme, FILE.yaml), recomputed in every replicate")
    p.add_argument("--systems-table", metavar="CSV", help="system-level table: tokens_per_query, store_tokens, ...")
    p.add_argument("--claims", metavar="YAML", help="claims file to audit (YAML, JSON or CSV)")
    p.add_argument("--write-log", metavar="LOG", help="memory decision log (CSV or JSONL) for the write-action audit")
    p.add_argument("--ingestion-log", metavar="LOG",
                   help="per-item ingestion durations (CSV or JSONL) for the cumulative ingestion time")
    p.add_argument("--threshold", type=_threshold, default=0.5,
                   help="flows: correct = score > THRESHOLD (default 0.5)")
    _add_correction(p)
    _add_alias(p)
    p.add_argument("--rerun", action="store_true",
                   help="FILES is the analysis.json of an earlier report: re-run it exactly into --out")
    _add_force(p, "an --out folder that holds files memdiag did not write (they are deleted)")
    _add_resampling(p)
    p.set_defaults(run=_cmd_report)

    p = sub.add_parser("inspect", help="show the structure of files no reader recognises and draft a recipe")
    p.add_argument("files", nargs="+", metavar="FILES", help="files, folders or glob patterns of one release")
    p.add_argument("--write", metavar="YAML", help="write the draft recipe here (relative paths: put it in the "
                                                   "release folder)")
    p.add_argument("--force", action="store_true", help="replace an existing --write file")
    p.add_argument("--dataset", metavar="PATH",
                   help="the benchmark's dataset file (LoCoMo-10: locomo10.json), for records without ids: the "
                        "draft matches them by conversation and question text (dataset: in the recipe)")
    p.set_defaults(run=_cmd_inspect)

    p = sub.add_parser("demo", help="the whole report on the bundled example data (data/example)")
    p.add_argument("--out", default="memdiag-demo", metavar="DIR", help="report folder (default memdiag-demo)")
    p.add_argument("--figures", metavar="DIR",
                   help="write only the figures (PDF, SVG, PNG) into DIR: memdiag demo --figures figures/")
    p.add_argument("--resamples", type=_resamples, default=20_000, metavar="B",
                   help=f"bootstrap replicates, {MIN_RESAMPLES} or more (default 20000)")
    p.add_argument("--seed", type=_seed, default=0, help="random seed (default 0)")
    _add_force(p, "an --out folder that is not a memdiag report, or existing --figures files")
    p.set_defaults(run=_cmd_demo)
    p = sub.add_parser("simulate", help="write the synthetic example data (known truth) into a folder")
    p.add_argument("--write", metavar="DIR", required=True, help="folder to write into, e.g. data/example")
    p.add_argument("--seed", type=_seed, help="seed (default: the bundled example's seed)")
    _add_force(p, "the example files in a --write folder that holds files")
    p.set_defaults(run=_cmd_simulate)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``memdiag`` command; returns the exit status (see the module docstring)."""
    command = "memdiag"
    try:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as done:  # --help, --version
            return done.code if isinstance(done.code, int) else 0
        command = f"memdiag {args.command}"
        run: Callable[[argparse.Namespace], int] = args.run

        def show(message, category, filename, lineno, file=None, line=None) -> None:  # noqa: ANN001
            print(f"{command}: warning: {one_line(message)}", file=sys.stderr)

        from memdiag.io.outputs import recording
        from memdiag.io.signals import interruptible

        # SIGTERM and SIGHUP stop every command as Ctrl-C does: temporary files removed, exit 128 + N
        with warnings.catch_warnings(), recording(), interruptible():
            warnings.showwarning = show
            _check_outputs(args)
            return run(args)
    except KeyboardInterrupt as stop:
        signum = getattr(stop, "signum", signal.SIGINT)
        print(f"{command}: interrupted ({signal.Signals(signum).name}); nothing was left half-written",
              file=sys.stderr)
        return 128 + signum
    except Exception as error:  # noqa: BLE001 - the one place every error becomes one line
        message, code = _explain(error)
        prog = error.prog if isinstance(error, _ParseError) else command
        print(f"{prog}: {'error' if code == 2 else 'internal error'}: {one_line(message)}", file=sys.stderr)
        return code


def _explain(error: Exception) -> tuple[str, int]:
    """The one-line message of an error and its exit status: 2 for what a user can fix, 3 (with
    the traceback saved to a file) for anything else."""
    if isinstance(error, OSError):
        where = f"{error.filename}: " if error.filename else ""
        hint = "" if isinstance(error, FileExistsError) else ". Check the path and permissions"
        return f"{where}{error.strerror or error}{hint}.", 2
    if isinstance(error, UnicodeDecodeError):
        return (f"cannot read an input as UTF-8 text ({error.reason} at byte {error.start}). Save it as "
                "UTF-8.", 2)
    if isinstance(error, RecursionError):
        return "an input is nested too deeply to read (thousands of levels of JSON or YAML).", 2
    if isinstance(error, ValueError) or type(error).__module__.split(".")[0] == "yaml":
        return str(error) or type(error).__name__, 2
    try:
        handle, path = tempfile.mkstemp(prefix="memdiag-traceback-", suffix=".txt")
        with os.fdopen(handle, "w", encoding="utf-8") as fh:
            fh.write("".join(traceback.format_exception(error)))
    except (OSError, FileNotFoundError):  # no writable temporary folder: still one line, no traceback
        return (f"{type(error).__name__}: {str(error)[:300]}. This is a bug in memdiag; its traceback could "
                "not be saved (no writable temporary folder: set TMPDIR to one) (please report it).",
                INTERNAL_ERROR)
    return (f"{type(error).__name__}: {str(error)[:300]}. This is a bug in memdiag; the traceback is "
            f"saved in {path} (please report it).", INTERNAL_ERROR)


if __name__ == "__main__":  # pragma: no cover - `python -m memdiag.cli`
    sys.exit(main())
