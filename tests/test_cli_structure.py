"""The command line as a package: one module per subcommand (its options beside its handler), each
option group defined once, only the named subcommand imported, and option values refused by the
validators the Python API uses, with the API's message."""

from __future__ import annotations

import ast
import contextlib
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cli_run import run

import memdiag as md
from memdiag.cli import build_parser
from memdiag.cli.commands import COMMANDS, command_module
from memdiag.core import checks
from memdiag.errors import VerdictError

CLI = Path(md.__file__).parent / "cli"
#: Verdicts to run commands on: the bundled example (five systems, LoCoMo ids).
EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "example" / "verdicts"
COMMAND_FILES = sorted(p for p in (CLI / "commands").glob("*.py") if p.name != "__init__.py")


# --------------------------------------------------------------------------------------------
# one module per subcommand
# --------------------------------------------------------------------------------------------
def test_every_subcommand_is_one_module_with_a_parser_and_a_handler():
    assert [p.stem for p in COMMAND_FILES] == sorted(name.replace("-", "_") for name in COMMANDS)
    for name in COMMANDS:
        module = command_module(name)
        assert callable(module.add_arguments) and callable(module.run), name
        assert module.__doc__.startswith(f"``memdiag {name}"), name


def test_no_cli_module_is_over_650_lines():
    sizes = {p.relative_to(CLI).as_posix(): len(p.read_text(encoding="utf-8").splitlines()) for p in CLI.rglob("*.py")}
    assert max(sizes.values()) <= 650, sizes
    assert sizes["__init__.py"] <= 80  # main alone


def _imported_after(argv: list[str]) -> set[str]:
    """The memdiag.cli modules and heavy libraries loaded by ``memdiag ARGV`` in a fresh interpreter."""
    code = ("import sys, contextlib, io\nfrom memdiag.cli import main\n"
            f"with contextlib.redirect_stdout(io.StringIO()): main({argv!r})\n"
            "print(' '.join(m for m in sys.modules if m.startswith('memdiag.cli.') or m in "
            "('numpy', 'pandas', 'scipy', 'matplotlib')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(done.stdout.split())


def test_memdiag_help_imports_no_subcommand_and_no_numpy():
    loaded = _imported_after(["--help"])
    assert not {m for m in loaded if m.startswith("memdiag.cli.commands.")}
    assert not loaded & {"numpy", "pandas", "scipy", "matplotlib"}


def test_a_subcommand_imports_only_its_own_module():
    loaded = _imported_after(["flows", "--help"])
    assert {m for m in loaded if m.startswith("memdiag.cli.commands.")} == {"memdiag.cli.commands.flows"}
    assert not loaded & {"numpy", "pandas", "scipy", "matplotlib"}


def _help(parser, argv: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        parser.parse_args([*argv, "--help"])
    return out.getvalue()


@pytest.mark.parametrize("name", list(COMMANDS))
def test_the_parser_of_one_subcommand_is_the_full_parsers(name, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    assert _help(build_parser(only=[name]), [name]) == _help(build_parser(), [name])


def test_memdiag_help_lists_every_subcommand_with_its_line(monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")
    text = _help(build_parser(only=[]), [])
    for name, line in COMMANDS.items():
        assert re.search(rf"^    {re.escape(name)}\s+{re.escape(line)}$", text, re.M), name


def test_an_unknown_subcommand_is_refused_naming_the_known_ones():
    code, out, err = run("nope")
    assert code == 2 and out == "" and "invalid choice: 'nope'" in err and "'judge-error'" in err


# --------------------------------------------------------------------------------------------
# each option group once
# --------------------------------------------------------------------------------------------
def _options_added(path: Path) -> list[str]:
    """The option strings of every ``add_argument`` call in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "add_argument":
            found += [a.value for a in node.args if isinstance(a, ast.Constant) and str(a.value).startswith("-")]
    return found


#: Options of a shared group that a subcommand also defines with a meaning of its own, with the reason.
OWN_MEANING = {
    ("agreement.py", "--judges"): "the judge whose missing-verdict effect is shown (agreement prepares no panel)",
    ("robustness.py", "--judges"): "the one judge whose verdicts are checked, chosen before preparing",
    ("attribute.py", "--system"): "the system to attribute, not the name of a file's system",
    ("inspect.py", "--dataset"): "written into the draft recipe, not read with the verdicts",
    ("simulate.py", "--seed"): "the example's seed (default: the bundled example's), not a resampling seed",
    ("plot.py", "-o"): "the figure files' stem (three files), not a table's file",
    ("plot.py", "--output"): "the figure files' stem (three files), not a table's file",
}


def test_no_option_of_a_shared_group_is_defined_twice():
    shared = _options_added(CLI / "groups.py")
    assert len(shared) == len(set(shared)), sorted(o for o in shared if shared.count(o) > 1)
    again = {(path.name, option) for path in CLI.rglob("*.py") if path.name != "groups.py"
             for option in _options_added(path) if option in shared}
    assert again == set(OWN_MEANING)


# --------------------------------------------------------------------------------------------
# option values: the API's validators and messages
# --------------------------------------------------------------------------------------------
def _api_message(**option: object) -> str:
    with pytest.raises(VerdictError) as refused:
        md.Options(**option)
    return str(refused.value).removesuffix(".")


@pytest.mark.parametrize("value", [-1, 2**64, 2**70])
def test_the_command_and_options_refuse_the_same_seeds_with_the_same_message(value):
    code, out, err = run("flows", EXAMPLE, "--reference", "raw-rag", "--seed", value)
    assert code == 2 and out == ""
    assert err == f"memdiag flows: error: argument --seed: {_api_message(seed=value)} (see memdiag flows --help)\n"


@pytest.mark.parametrize("value", [0.0, 1.0, 1.5, -0.5])  # the command reads a level as a float
def test_the_command_and_options_refuse_the_same_levels_with_the_same_message(value):
    code, out, err = run("flows", EXAMPLE, "--reference", "raw-rag", "--ci", value)
    assert code == 2 and out == ""
    assert f"argument --ci: {_api_message(confidence_level=value)} (see" in err


def test_the_command_and_options_refuse_the_same_resample_limit_with_the_same_message():
    code, _, err = run("flows", EXAMPLE, "--reference", "raw-rag", "--resamples", 10**9)
    assert code == 2 and f"argument --resamples: {_api_message(n_resamples=10**9)} (see" in err


def test_a_seed_the_api_accepts_the_command_accepts():
    # 0.3 refused seeds from 2**63 on, which md.Options(seed=2**63) accepts
    seed = 2**64 - 1
    code, out, err = run("flows", EXAMPLE, "--reference", "raw-rag", "--resamples", 100, "--seed", seed,
                         "--inference", "percentile", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["provenance"]["seed"] == seed == md.Options(seed=seed).seed


def test_the_command_refuses_text_as_the_validator_refuses_it():
    code, _, err = run("flows", EXAMPLE, "--reference", "raw-rag", "--seed", "seven")
    with pytest.raises(VerdictError) as refused:
        checks.seed("seven")
    assert code == 2 and str(refused.value).removesuffix(".") in err


@pytest.mark.parametrize("option, value, check", [
    ("--threshold", "1", lambda: checks.threshold(1.0)),
    ("--alpha", "0", lambda: checks.alpha(0.0)),
    ("--alpha", "1.5", lambda: checks.alpha(1.5)),
])
def test_threshold_and_alpha_are_refused_with_the_validators_message(option, value, check):
    command = "independence" if option == "--alpha" else "flows"
    code, _, err = run(command, EXAMPLE, "--reference", "raw-rag", option, value)
    with pytest.raises(VerdictError) as refused:
        check()
    assert code == 2 and f"argument {option}: {str(refused.value).removesuffix('.')} (see" in err


def test_alpha_of_a_level_is_the_decimal_difference():
    # 1 - 0.95 in binary floating point is 0.050000000000000044; α is what a reader writes: 0.05
    assert 1 - 0.95 != 0.05 and checks.alpha_of(0.95) == 0.05 and checks.alpha_of(0.9) == 0.1
    assert checks.alpha_of(0.999) == 0.001
    with pytest.raises(VerdictError, match="confidence_level must be"):
        checks.alpha_of(1.0)


# --------------------------------------------------------------------------------------------
# defaults written once (md.Options)
# --------------------------------------------------------------------------------------------
def test_the_defaults_the_help_shows_are_the_options_defaults(monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")
    defaults = md.Options()
    text = _help(build_parser(only=["compare"]), ["compare"])
    assert f"(default {defaults.n_resamples})" in text and f"confidence level (default {defaults.confidence_level})" in text
    assert f"{defaults.correction} (default)" in text and f"{defaults.inference} (default:" in text
    args = build_parser().parse_args(["compare", "x"])
    assert (args.resamples, args.seed, args.correction, args.inference) == (
        defaults.n_resamples, defaults.seed, defaults.correction, defaults.inference)


def test_columns_all_keeps_every_column_of_every_table():
    base = ["compare", EXAMPLE, "--resamples", 100, "--omnibus", "--format", "json"]
    _, whole, _ = run(*base)
    code, everything, err = run(*base, "--columns", "all")
    assert code == 0, err
    assert json.loads(everything) == json.loads(whole)
    _, paper, _ = run(*base, "--columns", "paper")
    assert len(json.loads(paper)[0]["rows"][0]) < len(json.loads(everything)[0]["rows"][0])


def test_the_terminal_shows_the_compact_table_and_columns_all_every_column():
    base = ["flows", EXAMPLE, "--reference", "raw-rag", "--resamples", 100]
    _, compact, _ = run(*base)
    code, everything, err = run(*base, "--columns", "all")
    assert code == 0, err
    header = compact.splitlines()[0].split()
    every = everything.splitlines()[0].split()
    assert set(header) < set(every)
    assert {"system", "benefit", "tax", "p_adj"} <= set(header) and "retention" in every and "retention" not in header
