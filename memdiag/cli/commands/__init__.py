"""The subcommands of ``memdiag``, one module each (its options beside its handler), and the parser
that lists them.

Every module here exposes the same two things: ``add_arguments(parser)``, which adds the
subcommand's options (from the shared groups of :mod:`memdiag.cli.groups` and its own), and
``run(args) -> int``, which reads them, calls the public functions a user would call, prints or
writes the result and returns the exit status. :data:`COMMANDS` names them with the line
``memdiag --help`` shows for each, so the top-level help imports none of them and a command
imports only its own.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Sequence
from types import ModuleType

import memdiag as md
from memdiag.cli.usage import Parser

#: Each subcommand and its line in ``memdiag --help``, in the order listed there; the module of
#: ``judge-error`` is ``judge_error``.
COMMANDS: dict[str, str] = {
    "validate": "what was read: systems, queries, repetitions, pairing, problems",
    "score": "official benchmark scores per system (overall and per group)",
    "compare": "paired differences between systems with intervals, p and Holm",
    "leaderboard": "systems in tiers statistically tied with the best, with rank intervals",
    "flows": "memory benefit and tax of each system against a reference",
    "evidence": "coverage, utilization, the accuracy decomposition and evidence length",
    "costs": "latency, tokens and LLM calls per system: mean, median, P95, cost per correct answer, ratios "
             "(speed-ups) with intervals",
    "audit": "check published claims against the verdicts, or a paper's published numbers alone with "
             "--summaries (exit 1 if any is not supported / flagged)",
    "rank": "how stable the ranking is: each system's bootstrap rank distribution",
    "attribute": "split a score change between two runs into changed and unchanged queries",
    "path": "P(path | result): how often a system keeps the path to a result it covers",
    "power": "the smallest difference each comparison can detect, and its power, under its design",
    "independence": "which pairwise conclusions of an iid analysis survive the cluster design",
    "robustness": "how every headline number moves: content-filter exclusion, the first judge call against the "
                  "mean, missing verdicts as wrong against right",
    "writes": "write-action (mutation) audit of a memory decision log",
    "agreement": "judge reliability across repetitions or judges, and the missing-verdict effect",
    "judge-error": "the verdict is not the truth: judge-error-corrected scores (Rogan–Gladen, PPI++), judge "
                   "leniency, wrong gold answers, judge-repetition variance",
    "plot": "publication figures (PDF + SVG + PNG): memdiag plot KIND --help",
    "across": "differences from a reference in every setting, pooled (random effects), the u-of-N settings "
              "count, and critical differences of mean ranks",
    "fragility": "how many verdict flips or removed conversations overturn each comparison",
    "report": "the whole analysis as a folder: report.md/.html, figures, tables, analysis.json",
    "inspect": "show the structure of files no reader recognises and draft a recipe",
    "demo": "the whole report on the bundled example data (data/example)",
    "simulate": "write the synthetic example data (known truth) into a folder",
}


def command_module(name: str) -> ModuleType:
    """The module of subcommand ``name`` (imported on first use)."""
    return importlib.import_module(f"{__name__}.{name.replace('-', '_')}")


def named_command(argv: Sequence[str]) -> list[str]:
    """The subcommand ``argv`` names (its first word that is not an option; ``memdiag`` itself takes
    no option value), as a list of at most one known name."""
    word = next((a for a in argv if not a.startswith("-")), None)
    return [word] if word in COMMANDS else []


def build_parser(only: Iterable[str] | None = None) -> Parser:
    """The argument parser of the ``memdiag`` command: every subcommand with its options, or only
    those of ``only`` (the others listed, for ``memdiag --help`` and the choice of a command, with
    no option of their own — their modules are not imported)."""
    chosen = set(COMMANDS if only is None else only)
    parser = Parser(
        prog="memdiag",
        description="What an agent-memory system really adds over plain retrieval: paired flows, "
                    "intervals, tests and figures from per-query verdicts.",
    )
    parser.add_argument("--version", action="version", version=f"memdiag {md.__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, line in COMMANDS.items():
        p = sub.add_parser(name, help=line)
        if name in chosen:
            module = command_module(name)
            module.add_arguments(p)
            p.set_defaults(run=module.run)
    return parser
