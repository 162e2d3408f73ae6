"""``memdiag judge-error``: the verdict is not the truth — judge-error-corrected scores
(Rogan–Gladen, PPI++), judge leniency, wrong gold answers and judge-repetition variance (SPEC §9);
each option adds its tables."""

from __future__ import annotations

import argparse

import memdiag as md
from memdiag.cli import groups, values
from memdiag.cli.choices import options, prepared
from memdiag.cli.emit import emit
from memdiag.cli.reading import read, remember_labels
from memdiag.cli.usage import UsageError


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The verdicts (or locomo-audit files), the calibration, wrong answers, gold errors and
    variance options, resampling and output."""
    groups.add_input(p)
    groups.add_choices(p)
    p.add_argument("--locomo-audit", action="store_true",
                   help="FILES are locomo-audit eval_results.json files (three judgments per answer; needs --dataset)")
    p.add_argument("--label", metavar="COLUMN", help="human 0/1 verdicts on a calibration subset: Rogan–Gladen and PPI++")
    p.add_argument("--sensitivity", type=values.number("sensitivity"), help="stated judge sensitivity")
    p.add_argument("--specificity", type=values.number("specificity"), help="stated judge specificity")
    p.add_argument("--n-correct", type=int, help="truly right calibration items behind --sensitivity")
    p.add_argument("--n-incorrect", type=int, help="truly wrong calibration items behind --specificity")
    p.add_argument("--reference", help="differences against this system (default: every pair)")
    p.add_argument("--wrong-answers", action="append", metavar="FILE",
                   help="known-wrong answers judged like the systems (locomo-audit ap-baseline files, repeatable): "
                        "false-positive rate, length test, accuracy bound")
    p.add_argument("--breakeven", type=values.number("false-positive rate"), metavar="POINTS",
                   help="with --reference: how much more lenient with one side the judge would have to be "
                        "(false-positive rate POINTS on the other) to explain each difference away")
    p.add_argument("--gold-errors", metavar="FILE",
                   help="wrong gold answers (errors.json or a CSV of query_id): ceilings, flags, clean re-scoring")
    p.add_argument("--components", action="store_true",
                   help="split each score's and difference's variance into conversation, question, run and judge parts")
    p.add_argument("--target", type=values.number("target"), metavar="POINTS",
                   help="with --components: designs (conversations × runs × judge calls) that detect this difference")
    groups.add_resampling(p, inference=False)
    groups.add_output(p)


def _audit_files(files: list[str], dataset: str):
    """locomo-audit files read with their dataset's question ids, as one frame."""
    return md.read_verdicts(files, format="locomo-audit", dataset=dataset)


def run(args: argparse.Namespace) -> int:
    """The tables each option asks for, under one set of options."""
    stated = (args.sensitivity, args.specificity, args.n_correct, args.n_incorrect)
    if any(v is not None for v in stated) and not all(v is not None for v in stated):
        raise UsageError("--sensitivity, --specificity, --n-correct and --n-incorrect go together")
    if (args.locomo_audit or args.wrong_answers) and not args.dataset:
        raise UsageError("the locomo-audit files need --dataset locomo10.json (it fixes the question ids)")
    if args.locomo_audit:
        if not args.files:
            raise UsageError("give the locomo-audit eval_results.json files")
        df = _audit_files(args.files, args.dataset)
        remember_labels(args, df)
    else:
        df = read(args)
    opts = options(args)
    frames = []
    if args.label or all(v is not None for v in stated):
        if args.label:
            frames.append(md.judge_corrected(df, label=args.label, reference=args.reference, options=opts))
            frames.append(md.ppi(df, label=args.label, reference=args.reference, options=opts))
        else:
            frames.append(md.judge_corrected(df, sensitivity=args.sensitivity, specificity=args.specificity,
                                             n_correct=args.n_correct, n_incorrect=args.n_incorrect,
                                             reference=args.reference, options=opts))
    if args.wrong_answers:
        wrong = _audit_files(args.wrong_answers, args.dataset)
        leniency = md.judge_leniency(wrong, options=opts)
        frames.append(leniency)
        if wrong["system"].nunique() > 1:  # the within-question length test compares answers to one question
            frames.append(md.length_effect(wrong, options=opts))
        for system in leniency["system"].unique():
            bound = md.leniency_bound(df, leniency[leniency["system"] == system], options=opts)
            bound.insert(1, "wrong_answers", system)
            frames.append(bound)
    if args.breakeven is not None:
        if not args.reference:
            raise UsageError("--breakeven needs --reference NAME")
        frames.append(md.leniency_breakeven(df, args.reference, false_positive_rate=args.breakeven, options=opts))
    if args.gold_errors:
        errors = md.read_gold_errors(args.gold_errors, dataset=args.dataset)
        data = prepared(args, df)
        ceilings = md.gold_ceilings(data, errors)
        clean = md.clean_rescore(data, errors, reference=args.reference, options=opts)
        flags = md.ceiling_flags(clean["scores"][["system", "group", "full"]], ceilings)
        frames += [ceilings, flags, clean["scores"]]
        if len(clean["differences"]):  # one system: no comparison (a note in the scores says so)
            frames.append(clean["differences"])
    if args.components:
        components = md.variance_components(df, reference=args.reference)
        frames.append(components)
        if args.target is not None:
            frames.append(md.plan_evaluation(components, target=args.target))
    if not frames:
        raise UsageError("say what to compute: --label COLUMN, --sensitivity/--specificity/--n-correct/--n-incorrect, "
                         "--wrong-answers FILE, --breakeven POINTS, --gold-errors FILE or --components")
    emit(frames, args)
    return 0
