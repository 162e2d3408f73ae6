"""``memdiag plot KIND``: one publication figure (PDF + SVG + PNG) of a view of
:mod:`memdiag.views` — the figure the report draws, with the report's defaults and options.

Each kind is a subcommand built from its view: the inputs it reads (verdicts, settings, a log, a
systems table), the reference when it uses one, the fields of :class:`memdiag.Options` its result
depends on, and its own parameters (``--by``, ``--lower``, ...). Running it is: look the view up,
compute, draw, save.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from memdiag.cli import groups
from memdiag.cli.usage import Parser
from memdiag.views import VIEWS

if TYPE_CHECKING:  # pragma: no cover
    from memdiag.views import Inputs, View

#: The figure kinds of ``memdiag plot``, each with the line ``memdiag plot --help`` shows.
FIGURES: dict[str, str] = {name: view.summary for name, view in VIEWS.items()}
#: What ``--reference`` does in a kind that needs one, and in a kind that draws one when given.
REFERENCE_HELP = {"required": "reference system: the other systems are compared with it",
                  "optional": "reference system, drawn first or grey"}


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


def _add_inputs(p: argparse.ArgumentParser, view: View) -> None:
    """The inputs ``view`` reads: verdict files (with ``--scheme``, the short names and an optional
    ``--systems-table``), settings, or one log file."""
    needs = set(view.needs)
    if "verdicts" in needs:
        groups.add_input(p)
        groups.add_choices(p)
        p.add_argument("--scheme", help="official aggregation (locomo, meme, FILE.yaml; default: the one the rows "
                                        "imply, else mean)")
        what = ("its costs (tokens_per_query, ...) and store size (store_tokens or store_size; none: equal bubbles)"
                if view.name == "bubble" else "the variant of each run (system, base, variant: native, complete "
                "or raw)" if view.name == "store-gap" else "")
        p.add_argument("--systems-table", metavar="CSV",
                       help="system-level table, one row per system: " + (f"{what}, and " if what else "")
                            + "an optional label column naming the systems drawn")
        groups.add_alias(p)
    elif "settings" in needs:
        groups.add_input(p)
        groups.add_choices(p)
        groups.add_setting(p)
    else:
        log = "the memory decision log" if "write_log" in needs else "per-item ingestion durations"
        p.add_argument("log", metavar="LOG", help=f"{log} (CSV or JSONL)")


def _add_options(p: argparse.ArgumentParser, view: View) -> None:
    """The shared options of the :class:`memdiag.Options` fields ``view``'s result depends on."""
    fields = set(view.options)
    if "n_resamples" in fields:
        groups.add_resampling(p, inference="inference" in fields, design="design" in fields,
                              ci="confidence_level" in fields)
    elif "confidence_level" in fields:
        groups.add_level(p)
    if "correction" in fields:
        groups.add_correction(p)


def _add_parameters(p: argparse.ArgumentParser, view: View) -> None:
    """One option per parameter of ``view`` (``shared_scale`` -> ``--shared-scale``), with its default."""
    for parameter in view.parameters:
        flag = "--" + parameter.name.replace("_", "-")
        if isinstance(parameter.default, bool):
            p.add_argument(flag, dest=parameter.name, action=argparse.BooleanOptionalAction,
                           default=parameter.default, help=f"{parameter.help} (default: {'on' if parameter.default else 'off'})")
        else:
            shown = "" if parameter.default is None else f" (default {parameter.default})"
            p.add_argument(flag, dest=parameter.name, default=parameter.default, choices=parameter.choices,
                           metavar=None if parameter.choices else parameter.name.upper(),
                           help=parameter.help + shown)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The figure files, then one subcommand per view of :data:`memdiag.views.VIEWS`."""
    p.description = ("One publication figure, written as OUT.pdf, OUT.svg and OUT.png: the figure the report draws, "
                     "with its defaults. -o, --force and --width go before or after the kind; every other option "
                     "after it (memdiag plot KIND --help).")
    add_figure_files(p, kind=False)
    kinds = p.add_subparsers(dest="figure", required=True, metavar="KIND", action=FigureKinds,
                             parser_class=KindParser, help="the figure to draw")
    for name, view in VIEWS.items():
        k = kinds.add_parser(name, help=view.summary, description=f"{view.summary[0].upper()}{view.summary[1:]}.")
        _add_inputs(k, view)
        if view.reference != "unused":
            k.add_argument("--reference", metavar="NAME", required=view.reference == "required",
                           help=REFERENCE_HELP[view.reference])
        _add_parameters(k, view)
        _add_options(k, view)
        add_figure_files(k, kind=True)


def inputs(args: argparse.Namespace, view: View) -> Inputs:
    """What ``view`` computes from, read and prepared once from the command's options."""
    import memdiag as md
    from memdiag.cli.choices import options, prepared, prepared_settings
    from memdiag.cli.reading import labels, read
    from memdiag.cli.settings import setting_verdicts
    from memdiag.io.systems_table import read_systems_table
    from memdiag.views import Inputs

    needs = set(view.needs)
    data = names = settings = None
    if "verdicts" in needs:
        df = read(args)
        data, names = prepared(args, df), labels(args, df)
    elif "settings" in needs:
        settings = prepared_settings(args, setting_verdicts(args))
    table = getattr(args, "systems_table", None)
    return Inputs(prepared=data, options=options(args), reference=getattr(args, "reference", None),
                  labels=names or {}, systems_table=read_systems_table(table) if table else None,
                  write_log=md.read_write_log(args.log) if "write_log" in needs else None,
                  ingestion_log=md.read_ingestion_log(args.log) if "ingestion_log" in needs else None,
                  settings=settings)


def run(args: argparse.Namespace) -> int:
    """The view of ``args.figure`` computed, drawn under the width preset and saved; prints each file written."""
    from memdiag import plots
    from memdiag.plots.style import width_preset

    view = VIEWS[args.figure]
    shown = view.show(inputs(args, view), **{p.name: getattr(args, p.name) for p in view.parameters})
    with width_preset(args.width):
        fig = shown.figure()
    for path in plots.save(fig, args.output):
        print(path)
    return 0
