"""``memdiag plot KIND``: one publication figure (PDF + SVG + PNG), each kind a subcommand with the
options it reads; what each draws is :func:`memdiag.cli.figures.figure`."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from memdiag.cli import groups
from memdiag.cli.usage import Parser
from memdiag.core.checks import alpha_of

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


class KindParser(Parser):
    """The parser of one figure kind (``memdiag plot KIND``): an option it does not offer is refused
    by the kind itself, naming ``memdiag plot KIND --help`` (argparse would leave it to the top
    parser, whose help lists no figure options)."""

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        namespace, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras


class FigureKinds(argparse._SubParsersAction):
    """The figure kinds of ``memdiag plot``. ``-o`` may come before the kind or after it, so neither
    parser can require it: it is required here, once both have parsed."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Sequence[str], option_string: str | None = None) -> None:  # type: ignore[override]
        super().__call__(parser, namespace, values, option_string)
        if namespace.output is None:
            self.choices[values[0]].error("the following arguments are required: -o/--output")


def add_figure_files(p: argparse.ArgumentParser, kind: bool) -> None:
    """``-o``, ``--force`` and ``--width``, which every figure reads: on ``plot`` itself, before the
    kind, with their defaults; and on each kind (``kind=True``) without a default, so that a value
    given before the kind stands unless the kind is given one too (:class:`FigureKinds` requires
    ``-o`` in one place or the other)."""
    unset = argparse.SUPPRESS if kind else None
    p.add_argument("-o", "--output", metavar="OUT.pdf", default=unset,
                   help="output stem: OUT.pdf, OUT.svg and OUT.png are written (required, before or after the kind)")
    groups.add_force(p, "existing figure files", default=unset if kind else False)
    p.add_argument("--width", choices=("column", "page"), default=unset if kind else "column",
                   help="column (default): one paper column (3.5 in) unless the figure's text needs two; page: at "
                        "least the two-column page width (7.2 in)")


#: ``--systems-table`` of the figures that read it for its ``label`` column alone.
LABEL_TABLE = "system-level table whose label column names the systems drawn"


def add_verdicts(p: argparse.ArgumentParser, table: str = LABEL_TABLE, required_table: bool = False) -> None:
    """The verdict files a figure reads, the ``--scheme`` it scores them under, and the short
    names it draws (``--alias``; ``--systems-table``: its ``label`` column, and what ``table`` says)."""
    groups.add_input(p)
    groups.add_choices(p)
    p.add_argument("--scheme", help="official aggregation (locomo, meme, FILE.yaml; default: the one the rows "
                                    "imply, else mean)")
    p.add_argument("--systems-table", metavar="CSV", required=required_table, help=table)
    groups.add_alias(p)


def add_settings(p: argparse.ArgumentParser) -> None:
    """The benchmark × model settings of ``overview`` and ``critical``: ``--setting NAME=PATH`` or FILES."""
    groups.add_input(p)
    groups.add_choices(p)
    groups.add_setting(p)


def add_log(p: argparse.ArgumentParser, what: str) -> None:
    """The one log file a figure of the memory's writes or ingestion draws."""
    p.add_argument("log", metavar="LOG", help=f"{what} (CSV or JSONL)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The figure files, then one subcommand per figure of :data:`FIGURES`."""
    p.description = ("One publication figure, written as OUT.pdf, OUT.svg and OUT.png. -o, --force and --width go "
                     "before or after the kind; every other option after it (memdiag plot KIND --help).")
    add_figure_files(p, kind=False)
    kinds = p.add_subparsers(dest="figure", required=True, metavar="KIND", action=FigureKinds,
                             parser_class=KindParser, help="the figure to draw")

    def kind(name: str) -> argparse.ArgumentParser:
        """The subcommand ``memdiag plot NAME``, described by its line of :data:`FIGURES`."""
        return kinds.add_parser(name, help=FIGURES[name], description=f"{FIGURES[name][0].upper()}"
                                                                      f"{FIGURES[name][1:]}.")

    reference = "reference system: the other systems are compared with it"
    k = kind("venn")
    add_verdicts(k)
    k.add_argument("--reference", required=True, metavar="NAME", help=reference)
    k.add_argument("--shared-scale", action=argparse.BooleanOptionalAction, default=True,
                   help="circle areas to scale, comparable across panels (default, as in the report); "
                        "--no-shared-scale draws every panel with the same layout")
    groups.add_resampling(k)

    k = kind("venn3")
    add_verdicts(k)
    k.add_argument("--reference", metavar="NAME", help="the reference system (or the first of three --systems)")
    k.add_argument("--systems", nargs="+", metavar="NAME",
                   help="MEMORY [AUGMENTED] with --reference (default AUGMENTED: MEMORY+raw), or REFERENCE MEMORY "
                        "AUGMENTED (after FILES); default: the first system named MEMORY+raw")

    k = kind("forest")
    add_verdicts(k)
    k.add_argument("--reference", required=True, metavar="NAME", help=reference)
    k.add_argument("--metric", default="accuracy", help="metric of the differences (default accuracy)")
    k.add_argument("--by", metavar="COLUMN",
                   help="one block per group of this column (e.g. --by category), adjusted within each")
    k.add_argument("--arrange", choices=("auto", "stacked", "grid"), default="auto",
                   help="with --by: the groups stacked, or small multiples on one x scale (auto, the default: "
                        "small multiples when stacking would not fit a page)")
    groups.add_resampling(k)

    k = kind("matrix")
    add_verdicts(k)
    k.add_argument("--metric", default="accuracy", help="metric of the upper triangle (default accuracy)")
    k.add_argument("--lower", help="metric of the lower triangle (e.g. utilization; default: none)")
    groups.add_resampling(k)

    k = kind("bubble")
    add_verdicts(k, "system-level table: one row per system with its costs (tokens_per_query, ...) and "
                    "store size (store_size or store_tokens), and an optional label column", required_table=True)
    k.add_argument("--reference", metavar="NAME", help="reference system, drawn grey")
    k.add_argument("--cost", default="tokens_per_query", help="cost column (default tokens_per_query)")
    k.add_argument("--size", help="bubble-area column (default: store_size, else store_tokens)")
    groups.add_resampling(k)

    k = kind("overview")
    add_settings(k)
    k.add_argument("--reference", metavar="NAME", help="reference system, drawn grey (needed by --pooled)")
    k.add_argument("--pooled", action="store_true",
                   help="add the pooled difference from --reference and the u-of-N count (SPEC §10)")
    groups.add_resampling(k)

    k = kind("critical")          # ranks of point estimates: nothing is resampled
    add_settings(k)
    groups.add_level(k, "confidence level of the critical difference",
              f": α = {alpha_of(groups.DEFAULTS.confidence_level):g}")

    add_log(kind("writes"), "the memory decision log")
    add_log(kind("actions"), "the memory decision log")
    k = kind("ingestion")
    add_log(k, "per-item ingestion durations")
    k.add_argument("--reference", metavar="NAME", help="reference system, drawn grey")

    k = kind("sensitivity")
    add_verdicts(k)
    k.add_argument("--parameter", default="final_k", help="parameter in the system names PARAM=VALUE "
                                                          "(default final_k)")
    k.add_argument("--default", required=True, help="the default value of the parameter (e.g. --default 15)")
    k.add_argument("--metric", default="accuracy", help="metric (default accuracy)")
    groups.add_resampling(k, inference=False)

    k = kind("store-gap")
    add_verdicts(k, "system-level table with columns system, base and variant (native, complete or raw), "
                    "and an optional label column", required_table=True)
    groups.add_resampling(k, inference=False)

    for k in kinds.choices.values():
        add_figure_files(k, kind=True)


def run(args: argparse.Namespace) -> int:
    """The figure of ``args.figure`` drawn under the width preset and saved; prints each file written."""
    from memdiag import plots
    from memdiag.cli.figures import figure
    from memdiag.plots.style import width_preset

    with width_preset(args.width):
        fig = figure(args)
    for path in plots.save(fig, args.output):
        print(path)
    return 0
