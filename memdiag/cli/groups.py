"""The option groups several subcommands share, each defined once: input files and how they are
read, the data choices of :func:`memdiag.prepare`, short names, output, notes, resampling,
inference, correction and α.

Every default a group shows is read from :class:`memdiag.Options` (:data:`DEFAULTS`), where it is
written once; the values are checked by :mod:`memdiag.cli.values`.
"""

from __future__ import annotations

import argparse

from memdiag.cli import values
from memdiag.core.checks import (
    CORRECTIONS,
    FORMATS,
    INFERENCE,
    KINDS,
    LABEL_MISSING,
    MIN_RESAMPLES,
    MISSING,
    VERDICT_MISSING,
    alpha_of,
)
from memdiag.engine.options import Options

#: The default resampling and inference options (20,000 replicates, seed 0, level 0.95, Holm).
DEFAULTS = Options()


def add_input(p: argparse.ArgumentParser, option: str | None = None) -> None:
    """The verdict files (positional, or behind ``option``, e.g. ``--verdicts``) and how they are read."""
    named = {"dest": "files"} if option else {}
    p.add_argument(*([option] if option else ["files"]), nargs="*", metavar="FILES",
                   help="verdict files, folders or glob patterns (with --recipe: files replacing the recipe's)",
                   **named)
    p.add_argument("--recipe", metavar="YAML",
                   help="a release recipe describing the files (docs/recipes.md; draft one with memdiag inspect)")
    p.add_argument("--allow-outside", action="store_true",
                   help="let the recipe read sources/join files outside its own folder (refused by default: a "
                        "downloaded recipe could otherwise read any file)")
    add_layout(p)
    p.add_argument("--system", action="append", metavar="NAME | PATH=NAME",
                   help="system name for every file, or for one file (repeatable)")
    add_field(p)
    add_records(p)
    p.add_argument("--judge", action="append", metavar="NAME | PATH=NAME",
                   help="rater label for every file, or for one file: judges of one run kept apart (repeatable)")
    p.add_argument("--dataset", metavar="PATH",
                   help="the benchmark's dataset file (LoCoMo-10: locomo10.json): records without ids get their "
                        "canonical id by conversation and question text (map question and cluster); unmatched "
                        "records are listed, never guessed")
    p.add_argument("--join", action="append", metavar="FILE[,records=PATH][,system=NAME],COLUMN=FIELD...",
                   help="attach per-query columns from a side file by query_id, e.g. "
                        "--join coverage.json,records=questions,sufficient=fully_covered (repeatable)")


def add_layout(p: argparse.ArgumentParser) -> None:
    """``--layout``: the reader of every file."""
    p.add_argument("--layout", default="auto", help="input layout (default: auto-detect per file)")


def add_field(p: argparse.ArgumentParser) -> None:
    """``--field CANONICAL=SOURCE``: a source column mapped to a canonical one."""
    p.add_argument("--field", action="append", metavar="CANONICAL=SOURCE",
                   help="map a source column to a canonical one, e.g. --field score=correct (repeatable)")


def add_records(p: argparse.ArgumentParser) -> None:
    """``--records PATH``: where the records are in a JSON file."""
    p.add_argument("--records", metavar="PATH",
                   help="where the records are in each JSON file, e.g. results or data.items (with --field)")


def add_choices(p: argparse.ArgumentParser, judges: bool = False, runs: bool = False) -> None:
    """The data choices of :func:`memdiag.prepare`: the missing-query and missing-verdict policies
    (``runs``: worded for the two runs of ``attribute``) and, with ``judges``, the judge, label and
    cluster policies."""
    among, each = ("one run lacks", "drop it") if runs else ("some systems lack", "drop it for all")
    p.add_argument("--missing", choices=MISSING, default="error",
                   help=f"a query {among}: error (default), {each}, or score it 0")
    p.add_argument("--verdict-missing", choices=VERDICT_MISSING, default="as-wrong",
                   help=f"a verdict with no usable score: score 0 (default) or drop the query{'' if runs else ' for all'}")
    if judges:
        p.add_argument("--judges", metavar="mean | NAME",
                       help="several judges of the same answers: score by their mean, or by one judge; judge "
                            "repeats: mean (per-run mean, default), majority (per-question vote) or repeat:K "
                            "(judgment K alone, from 0)")
        p.add_argument("--label-missing", choices=LABEL_MISSING, default="exclude",
                       help="a query without a label (sufficient, ...): leave it out of that diagnostic, "
                            "counted (default), or refuse it")
        p.add_argument("--cluster-missing", choices=("error", "own"), default="error",
                       help="some queries without a cluster label: refuse, naming them (default), or make each "
                            "a cluster of its own, counted in a note")


def add_setting(p: argparse.ArgumentParser) -> None:
    """``--setting NAME=PATH``: one setting and its verdicts (``across``, ``plot overview``, ``plot critical``)."""
    p.add_argument("--setting", action="append", metavar="NAME=PATH",
                   help="one benchmark (or benchmark/model) setting and its verdicts (repeatable); without it "
                        "FILES are split by their benchmark and model columns")


def add_alias(p: argparse.ArgumentParser) -> None:
    """``--alias``: the short names tables and figures for people show."""
    p.add_argument("--alias", action="append", metavar="NAME=SHORT | PATH=SHORT",
                   help="the short name figures and tables for people (table, md, latex, html; CSV and JSON keep "
                        "the full name) show for a system, or for the system read from a file or folder "
                        "(repeatable; also a recipe's labels: or a label column in --systems-table)")


def add_force(p: argparse.ArgumentParser, what: str, default: object = False) -> None:
    """``--force``: replace ``what`` (never an input file)."""
    p.add_argument("--force", action="store_true", default=default, help=f"replace {what} (never an input file)")


def add_output(p: argparse.ArgumentParser, alias: bool = True) -> None:
    """``--format``, ``--columns``, ``-o``/``--force``, ``--quiet``/``--verbose`` and, for commands
    whose tables name the systems of the verdicts read (``alias``), ``--alias``."""
    p.add_argument("--format", choices=FORMATS, default="table", help="output format (default: table)")
    p.add_argument("--columns", type=values.column_list, metavar="COL[,COL...] | paper | all",
                   help="keep only these columns of the (first) table, in this order, in every format (an estimate "
                        "keeps its interval); paper: the compact table of every table that has an estimate "
                        "(the rows' names, estimate [CI], p_adj); all: every column of every table")
    if alias:
        add_alias(p)
    p.add_argument("-o", "--output", metavar="FILE", help="write the table here instead of stdout")
    add_force(p, "an existing --output file")
    add_verbosity(p)


def add_verbosity(p: argparse.ArgumentParser) -> None:
    """``--quiet`` / ``--verbose``: which notes the formats for people print (each distinct note
    once, warnings first, by default)."""
    group = p.add_mutually_exclusive_group()
    group.add_argument("--quiet", action="store_true",
                       help="print only the notes that are warnings (a conclusion is at risk)")
    group.add_argument("--verbose", action="store_true",
                       help="print every note under every table, each relabelled category one a line")


def add_pairs(p: argparse.ArgumentParser, default: str = "all") -> None:
    """``--pairs all|reference`` (``default`` first): every pair of systems, or each against the
    command's own ``--reference``; :func:`memdiag.cli.choices.pair_reference` maps the two onto
    the API's ``reference=`` (None: every pair)."""
    meanings = {"all": "all pairs of systems", "reference": "each system against --reference"}
    other = "reference" if default == "all" else "all"
    p.add_argument("--pairs", choices=(default, other), default=default,
                   help=f"{meanings[default]} (default), or {meanings[other]}")


def add_correction(p: argparse.ArgumentParser) -> None:
    """``--correction``: the multiplicity adjustment of ``p_adj`` (default :attr:`Options.correction`)."""
    named = [name + (" (default)" if name == DEFAULTS.correction else "")
             + (" (Benjamini-Hochberg false discovery rate)" if name == "fdr_bh" else "") for name in CORRECTIONS]
    p.add_argument("--correction", choices=CORRECTIONS, default=DEFAULTS.correction,
                   help=f"multiplicity adjustment of p_adj within each family: {', '.join(named[:-1])}, or "
                        f"{named[-1]}")


def add_resampling(p: argparse.ArgumentParser, inference: bool = True, *, allow_zero: bool = False,
                   default: str | None = None, design: bool = True, ci: bool = True) -> None:
    """``--design`` (unless ``design=False``: the command resamples without one), ``--resamples`` (0
    allowed with ``allow_zero``: point estimates only; a ``default`` text leaves it None for the
    command to decide, and is shown as its default), ``--seed``, ``--ci`` (unless ``ci=False``: the
    command shows no interval) and ``--inference`` (unless ``inference=False``)."""
    if design:
        p.add_argument("--design", choices=KINDS,
                       help="resampling design (default: from the data and scheme; the choice is printed)")
    p.add_argument("--resamples", type=values.resamples_or_zero if allow_zero else values.resamples,
                   default=DEFAULTS.n_resamples if default is None else None, metavar="B",
                   help=f"bootstrap replicates, {MIN_RESAMPLES} or more"
                        f"{' (0: point estimates only)' if allow_zero else ''} "
                        f"(default {DEFAULTS.n_resamples if default is None else default})")
    p.add_argument("--seed", type=values.seed, default=DEFAULTS.seed, help=f"random seed (default {DEFAULTS.seed})")
    if ci:
        add_level(p)
    if inference:
        add_inference(p)


def add_level(p: argparse.ArgumentParser, what: str = "confidence level", after: str = "") -> None:
    """``--ci``: the confidence level (None when not given: :attr:`Options.confidence_level`), helped as
    ``what`` and its default, then ``after``."""
    p.add_argument("--ci", type=values.level, help=f"{what} (default {DEFAULTS.confidence_level}{after})")


def add_inference(p: argparse.ArgumentParser) -> None:
    """``--inference``: how intervals and tests are made (default :attr:`Options.inference`)."""
    p.add_argument("--inference", choices=INFERENCE, default=DEFAULTS.inference,
                   help="how intervals and tests are made: auto (default: cluster jackknife t intervals and the "
                        "wild cluster bootstrap with fewer than 200 clusters, else percentile bootstrap), "
                        "percentile (the published method), jackknife or cr2 (cluster designs)")


def add_alpha(p: argparse.ArgumentParser, what: str, ci: bool = True, also: str = "") -> None:
    """``--alpha``: ``what`` it is the level of; None when not given, for α = 1 − the confidence
    level (``--ci`` where the command offers it, else :attr:`Options.confidence_level`); ``also``
    follows the default in the help."""
    source = "--ci" if ci else "the confidence level"
    p.add_argument("--alpha", type=values.alpha,
                   help=f"{what} (default 1 − {source}: {alpha_of(DEFAULTS.confidence_level):g}{also})")
