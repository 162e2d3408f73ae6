"""``memdiag across``: differences from a reference in every benchmark × model setting, pooled
(random effects), the u-of-N settings count, and critical differences of mean ranks."""

from __future__ import annotations

import argparse

import memdiag as md
from memdiag.cli import groups
from memdiag.cli.choices import options, prepared_settings
from memdiag.cli.emit import emit
from memdiag.cli.settings import setting_verdicts


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The settings, the reference and metric, the pooling, the critical differences, resampling and output."""
    groups.add_input(p)
    groups.add_choices(p)
    groups.add_setting(p)
    p.add_argument("--reference", required=True, help="the system every other is compared with in each setting")
    p.add_argument("--metric", default="accuracy", help="accuracy (default), coverage, utilization, or a column")
    p.add_argument("--tau2", choices=("reml", "pm", "dl", "fixed"), default="reml",
                   help="between-setting variance: REML (default), Paule-Mandel, DerSimonian-Laird, or fixed effect")
    p.add_argument("--interval", choices=("auto", "hksj", "z"), default="auto",
                   help="pooled interval: auto (= hksj: Hartung-Knapp with the ad hoc floor, at any k), hksj or z")
    p.add_argument("--clusters", metavar="COLUMN",
                   help="settings sharing this column's value (e.g. questions) are correlated: CR2 robust interval")
    p.add_argument("--combine", choices=("bonferroni", "simes", "fisher"), default="bonferroni",
                   help="partial-conjunction combination of the u-of-N count (default bonferroni: any dependence)")
    p.add_argument("--cd", choices=("nemenyi", "wilcoxon-holm", "none"), default="nemenyi",
                   help="critical differences of mean ranks across settings (default nemenyi; none: skip)")
    groups.add_resampling(p)
    groups.add_output(p)


def run(args: argparse.Namespace) -> int:
    """:func:`memdiag.setting_differences`, :func:`memdiag.pool_settings` and (unless ``--cd none``)
    :func:`memdiag.critical_difference` of :func:`memdiag.overview`."""
    verdicts = setting_verdicts(args)
    opts = options(args)
    data = prepared_settings(args, verdicts, metric=args.metric)
    differences = md.setting_differences(data, reference=args.reference, metric=args.metric, options=opts)
    frames = [differences, md.pool_settings(differences, tau2=args.tau2, interval=args.interval,
                                            clusters=args.clusters, combine=args.combine, options=opts)]
    if args.cd != "none":
        scores = data if args.metric == "accuracy" else prepared_settings(args, verdicts)
        frames.append(md.critical_difference(md.overview(scores, reference=args.reference, options=opts),
                                             method=args.cd, options=opts))
    emit(frames, args)
    return 0
