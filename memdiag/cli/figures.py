"""The figure each kind of ``memdiag plot`` draws: the public functions a user would call, then the
plot function of :mod:`memdiag.plots` over their result. Each kind reads only the options its
subcommand offers (:mod:`memdiag.cli.commands.plot`)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

import memdiag as md
from memdiag.cli.choices import options, prepared, prepared_settings
from memdiag.cli.reading import labels, read
from memdiag.cli.settings import setting_verdicts
from memdiag.cli.usage import UsageError
from memdiag.errors import VerdictError

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure


def figure(args: argparse.Namespace) -> Figure:
    """The figure ``memdiag plot KIND`` draws (under the caller's width preset)."""
    from memdiag import plots

    kind = args.figure
    if kind in ("writes", "actions"):
        audit = md.write_audit(md.read_write_log(args.log))
        return plots.mutation_rates(audit) if kind == "writes" else plots.write_actions(audit)
    if kind == "ingestion":
        return plots.ingestion(md.ingestion_curve(md.read_ingestion_log(args.log)), reference=args.reference)
    if kind in ("overview", "critical"):
        return _settings_figure(args)
    df = read(args)
    systems = sorted(df["system"].unique())
    names = labels(args, df)
    if kind == "venn3":
        memory, augmented = venn3_systems(args, systems)
        trio = [args.reference, memory, augmented or f"{memory}+raw"]  # augmentation refuses repeated names
        data = prepared(args, df, systems=trio if len(set(trio)) == 3 else None)
        table = md.augmentation(data, memory, reference=args.reference, augmented=augmented)
        return plots.venn3(table, all_systems=systems, labels=names)
    opts = options(args)  # the other kinds draw intervals: resampled (venn, forest, matrix, bubble: --inference)
    if kind == "store-gap":
        from memdiag.analyses.store_gap import store_variants
        from memdiag.io.systems_table import read_systems_table

        variants = read_systems_table(args.systems_table)
        runs = list(dict.fromkeys(store_variants(variants)["system"]))  # prepared on the tagged runs alone
        return plots.store_gap(md.store_gap(prepared(args, df, systems=runs), variants, options=opts), labels=names)
    if kind == "sensitivity":
        sweep = df[df["system"].astype(str).str.contains(f"{args.parameter}=", regex=False)]  # other runs ignored
        runs = prepared(args, sweep if len(sweep) else df, metric=args.metric)
        table = md.sensitivity(runs, parameter=args.parameter, default=args.default, metric=args.metric, options=opts)
        return plots.sensitivity(table, parameter=args.parameter, default=table.attrs["default"], labels=names)
    if kind == "venn":
        flows = md.flows(prepared(args, df), reference=args.reference, options=opts)
        return plots.venn(flows, reference=args.reference, shared_scale=args.shared_scale, all_systems=systems,
                          labels=names)
    if kind == "forest":
        if args.arrange != "auto" and not args.by:
            raise UsageError("--arrange lays out the groups of --by; without --by there is one block")
        table = md.compare(prepared(args, df, metric=args.metric), pairs="reference", reference=args.reference,
                           metric=args.metric, by=args.by, options=opts)
        return plots.forest(table, reference=args.reference, all_systems=systems, labels=names, layout=args.arrange)
    if kind == "matrix":
        upper = md.compare(prepared(args, df, metric=args.metric), metric=args.metric, options=opts)
        lower = (md.compare(prepared(args, df, metric=args.lower, scheme=None), metric=args.lower, options=opts)
                 if args.lower else None)
        return plots.matrix(upper, lower, labels=names)
    return _bubble(args, df, systems, names, opts)


def _settings_figure(args: argparse.Namespace) -> Figure:
    """``plot overview`` (``--pooled``: with the pooled difference from ``--reference``) and ``plot
    critical`` (ranks of point estimates: nothing resampled)."""
    from memdiag import plots

    if args.figure == "overview" and args.pooled and not args.reference:
        raise UsageError("plot overview --pooled needs --reference NAME (the system every other is compared with)")
    reference = getattr(args, "reference", None)
    opts = options(args) if args.figure == "overview" else options(args, n_resamples=0)
    data = prepared_settings(args, setting_verdicts(args))
    scores = md.overview(data, reference=reference, options=opts)
    if args.figure == "critical":
        return plots.critical_difference(md.critical_difference(scores, confidence_level=opts.confidence_level))
    pooled = (md.pool_settings(md.setting_differences(data, reference=reference, options=opts),
                               confidence_level=opts.confidence_level) if args.pooled else None)
    return plots.overview(scores, reference=reference, pooled=pooled)


def _bubble(args: argparse.Namespace, df, systems: list[str], names: dict[str, str] | None,
            opts: md.Options) -> Figure:
    """``plot bubble``: accuracy with its interval against a cost of the systems table, area by store size."""
    from memdiag import plots
    from memdiag.io.systems_table import read_systems_table

    table = read_systems_table(args.systems_table)
    size = args.size or next((c for c in ("store_size", "store_tokens") if c in table), "store_size")
    absent = [c for c in (args.cost, size) if c not in table]
    if absent:
        raise VerdictError(f"{args.systems_table}: the systems table has no column {absent[0]!r} (it has "
                           f"{', '.join(map(str, table.columns))}). Add it, or choose another with --cost / --size.")
    scores = md.bootstrap(prepared(args, df), "accuracy", options=opts)
    return plots.bubble(scores, table, reference=args.reference, cost=args.cost, size=size, all_systems=systems,
                        labels=names)


def venn3_systems(args: argparse.Namespace, systems: Sequence[str]) -> tuple[str, str | None]:
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
