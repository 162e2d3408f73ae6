"""``memdiag evidence``: coverage, utilization, the accuracy decomposition and evidence length, with
their tests (``--tests``) or a paper's procedure (``--procedure``)."""

from __future__ import annotations

import argparse

import memdiag as md
from memdiag.cli import groups, values
from memdiag.cli.choices import options, prepared
from memdiag.cli.emit import emit
from memdiag.cli.reading import read
from memdiag.cli.usage import UsageError
from memdiag.core.notes import Note


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The verdicts, the tests or procedure, correction, the token budget, resampling and output."""
    groups.add_input(p)
    groups.add_choices(p, judges=True)
    p.add_argument("--tests", action="store_true", help="also the omnibus and pairwise tests (paper A.5.1)")
    p.add_argument("--procedure", metavar="NAME",
                   help="instead of --tests, a paper's procedure by name: raw-rag-c6 (Cochran's Q and exact "
                        "McNemar for coverage, max-range and sign tests for utilization, 50,000-replicate "
                        "percentile intervals; Raw-RAG C.6, A.5.1): its omnibus table, matrix and pairs")
    groups.add_correction(p)
    p.add_argument("--budget", type=values.budget, default=5_000, help="evidence-token budget (default 5000)")
    groups.add_resampling(p, default=f"{groups.DEFAULTS.n_resamples}; with --procedure the procedure's own, 50000 for raw-rag-c6")
    groups.add_output(p)


def run(args: argparse.Namespace) -> int:
    """:func:`memdiag.evidence`, its tests or :func:`memdiag.evidence_procedure`, and
    :func:`memdiag.evidence_length` where the verdicts have evidence tokens."""
    if args.procedure:
        fixed = [o for o, v in (("--inference", args.inference != groups.DEFAULTS.inference),
                                ("--correction", args.correction != groups.DEFAULTS.correction), ("--tests", args.tests)) if v]
        if fixed:
            raise UsageError(f"--procedure {args.procedure} fixes its own tests, inference and correction; "
                             f"drop {fixed[0]}")
    raw = read(args)
    df = prepared(args, raw)
    procedure, own = None, {}
    if args.procedure:  # every table under the procedure's settings (B defaults to its own)
        from memdiag.analyses.procedures import PROCEDURES

        if args.procedure not in PROCEDURES:
            md.evidence_procedure(df, args.procedure)  # the error that names the known procedures
        spec = PROCEDURES[args.procedure]
        own = {"n_resamples": spec["n_resamples"] if args.resamples is None else args.resamples,
               "inference": spec["inference"], "correction": spec["correction"]}
    opts = options(args, **own)
    if args.procedure:
        procedure = md.evidence_procedure(df, args.procedure, options=opts)
    frames = []
    if "sufficient" in raw or "evidence_tokens" not in raw:  # evidence length needs no sufficiency label
        frames.append(md.evidence(df, options=opts))
    if procedure is not None:
        matrix = procedure.matrix.reset_index(names="row − column")
        matrix.attrs = {**procedure.matrix.attrs, "function": "pairwise_matrix"}
        frames += [procedure.omnibus, matrix, procedure.pairs]
    elif args.tests and "sufficient" in raw:
        pairs, omni = md.evidence_tests(df, options=opts)
        matrix = md.pairwise_matrix(pairs[pairs["metric"] == "coverage"], pairs[pairs["metric"] == "utilization"])
        matrix = matrix.reset_index(names="row − column")
        matrix.attrs["function"] = "pairwise_matrix"
        matrix.attrs["notes"] = [Note("upper triangle: coverage, lower triangle: utilization (paper Tables 27/28)",
                                      code="matrix-triangles"),
                                 *matrix.attrs["notes"]]  # the reading, with the correction of --correction
        frames += [omni, pairs, matrix]
    if "evidence_tokens" in raw:
        frames.append(md.evidence_length(df, budget=args.budget))
    emit(frames, args)
    return 0
