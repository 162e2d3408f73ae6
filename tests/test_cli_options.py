"""Every option a subcommand offers is used (issue 19: ``leaderboard --inference``, ``audit
--design``, ``agreement --design`` and ``plot --ci`` were accepted and ignored).

Two checks, on tiny data:

1. **Read**: each subcommand (each figure kind of ``plot`` on its own: ``plot forest``) runs on
   one or more baseline command lines with its arguments in a namespace that records which
   attributes the command reads; every option the subcommand offers must be read by one of them
   (an option never read cannot have an effect), and its ``--help`` lists exactly those options.
2. **Effect**: the shared resampling options (``--design``, ``--inference``, ``--seed``,
   ``--ci``, ``--resamples``, ``--correction``) change the rows of the JSON output (not only
   its provenance) of every command that offers them, and ``--quiet``/``--verbose`` change
   its printed notes.
"""

from __future__ import annotations

import argparse
import io
import json
import re
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import memdiag as md
from memdiag import cli
from memdiag.cli.commands.plot import FIGURES
from memdiag.cli.files import check_outputs

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "data" / "example"
B = "100"

#: Subcommands left out of the read check, each with the reason.
SKIPPED = {"report": "a whole report (tests/test_report.py checks its options are recorded and used)",
           "demo": "a whole report", "inspect": "drafts a recipe (tests/test_recipes.py)",
           "simulate": "writes simulated files (tests/test_simulate.py)"}


class Tracked(argparse.Namespace):
    """A namespace that records the attributes read from it."""

    def __getattribute__(self, name: str) -> object:
        if not name.startswith("_"):
            object.__getattribute__(self, "_reads").add(name)
        return object.__getattribute__(self, name)


def parse(argv: list[str]) -> Tracked:
    namespace = Tracked()
    object.__setattr__(namespace, "_reads", set())
    args = cli.build_parser().parse_args(argv, namespace=namespace)
    object.__getattribute__(args, "_reads").clear()
    return args


def run_tracked(argv: list[str]) -> set[str]:
    args = parse(argv)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        check_outputs(args)
        code = args.run(args)
    assert code in (0, 1), f"{argv}: exit {code}\n{err.getvalue()}"
    return set(object.__getattribute__(args, "_reads"))


def run(argv: list[str]) -> str:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli.main(argv)
    assert code in (0, 1), f"{argv}: exit {code}\n{err.getvalue()}"
    return out.getvalue()


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("options")
    df = md.simulate(n_queries=80, systems=("raw-rag", "mem0", "mem0+raw"), n_clusters=20, n_repeats=2, seed=3)
    judged = md.simulate(n_queries=80, systems=("raw-rag", "mem0"), n_clusters=20, n_repeats=3, judge_error=0.2,
                         seed=4)
    judged.to_csv(root / "judged.csv", index=False)
    verdicts = root / "verdicts"
    verdicts.mkdir()
    for system, part in df.groupby("system"):
        part.to_csv(verdicts / f"{system}.csv", index=False)
    after = df[df["system"] == "mem0"].copy()
    after["score"] = 1.0 - after["score"]
    after["changed"] = 1
    after.loc[after.index[::2], ["score", "changed"]] = [1.0, 0]
    after.to_csv(root / "after.csv", index=False)
    df[df["system"] == "mem0"].to_csv(root / "before.csv", index=False)
    meme = root / "meme"
    meme.mkdir()
    for name in ("raw-rag.csv", "mem0.csv"):
        (meme / name).write_bytes((EXAMPLE / "meme" / name).read_bytes())
    pd.DataFrame({"query_id": [df["query_id"].iloc[0]], "system": ["mem0"]}).to_csv(root / "blocked.csv", index=False)
    claims = root / "claims.yaml"
    claims.write_text("claims:\n  - id: mem0-beats-rag\n    system_a: mem0\n    system_b: raw-rag\n"
                      "    direction: greater\n    family: f\n  - id: raw-beats-rag\n    system_a: mem0+raw\n"
                      "    system_b: raw-rag\n    direction: greater\n    family: f\n", encoding="utf-8")
    labelled = judged[judged["repeat"] == 0].drop(columns="repeat")
    truth = labelled["score"].to_numpy().copy()
    truth[::7] = 1.0 - truth[::7]  # a human who disagrees with the judge on every seventh answer
    chosen = labelled["query_id"].isin(labelled["query_id"].drop_duplicates().iloc[::3])  # both systems' answers
    labelled = labelled.assign(human=np.where(chosen, truth, np.nan))
    labelled.to_csv(root / "labelled.csv", index=False)
    labelled[["query_id"]].drop_duplicates().iloc[::5].to_csv(root / "gold.csv", index=False)  # wrong gold answers
    settings = pd.concat([df.assign(benchmark=name, query_id=f"{name}-" + df["query_id"])
                          for name in ("one", "two", "three")], ignore_index=True)
    settings.to_csv(root / "settings.csv", index=False)  # three settings in one file, split by benchmark
    sweep = md.simulate(n_queries=80, systems=("final_k=5", "final_k=15", "final_k=30"), reference="final_k=15",
                        n_clusters=20, seed=5)
    sweep.to_csv(root / "sweep.csv", index=False)
    store = md.simulate(n_queries=80, systems=("raw", "mem0", "mem0 (C)"), reference="raw", n_clusters=20,
                        sufficiency=False, costs=False, seed=6)
    store.to_csv(root / "store.csv", index=False)
    variants = pd.DataFrame({"system": ["mem0", "mem0 (C)", "raw"], "base": ["mem0", "mem0", None],
                             "variant": ["native", "complete", "raw"], "label": ["M", "MC", "R"]})
    variants.to_csv(root / "variants.csv", index=False)
    return {"verdicts": str(verdicts), "settings": str(root / "settings.csv"), "sweep": str(root / "sweep.csv"),
            "store": str(root / "store.csv"), "variants": str(root / "variants.csv"),
            "labelled": str(root / "labelled.csv"),
            "gold": str(root / "gold.csv"), "agreement": str(root / "judged.csv"), "before": str(root / "before.csv"),
            "after": str(root / "after.csv"),
            "meme": str(meme), "blocked": str(root / "blocked.csv"), "claims": str(claims), "out": str(root),
            "systems": str(EXAMPLE / "systems.csv"), "writes": str(EXAMPLE / "write_log.csv"),
            "ingestion": str(EXAMPLE / "ingestion_log.csv"),
            "summaries": str(EXAMPLE / "summaries_memory_tax.yaml")}


def baselines(f: dict[str, str]) -> dict[str, list[list[str]]]:
    """One or more command lines per subcommand that together read every option it offers."""
    v, r = f["verdicts"], ["--reference", "raw-rag"]
    res = ["--resamples", B]
    fig = str(Path(f["out"]) / "fig.png")
    plot = ["plot", "-o", fig, "--force"]  # -o and --force before the kind, as after it below
    return {
        "validate": [["validate", v]],
        "score": [["score", v, *res, "--columns", "paper", "--alias", "mem0=M"]],
        "compare": [["compare", v, *res, "--omnibus", "--columns", "system_a,system_b,diff,p_adj"],
                    ["compare", v, *r, "--pairs", "reference", *res]],
        "leaderboard": [["leaderboard", v, *res]],
        "flows": [["flows", v, *r, *res, "--replay", str(Path(f["out"]) / "replay")]],
        "evidence": [["evidence", v, *res, "--tests"], ["evidence", v, *res, "--procedure", "raw-rag-c6"]],
        "costs": [["costs", v, *r, *res, "--systems-table", f["systems"], "--ingestion-log", f["ingestion"]]],
        "audit": [["audit", f["claims"], "--verdicts", v, *res], ["audit", "--summaries", f["summaries"], "--details"]],
        "rank": [["rank", v, *res]],
        "attribute": [["attribute", f["before"], f["after"], "--changed", "changed", *res]],
        "path": [["path", f["meme"], *res]],
        "power": [["power", v, *r, *res]],
        "independence": [["independence", v, *res], ["independence", v, *r, "--pairs", "reference", *res]],
        "robustness": [["robustness", v, *r, *res, "--filtered", f["blocked"]]],
        "writes": [["writes", f["writes"], "--columns", "cluster"]],
        "agreement": [["agreement", v, *res]],
        "plot venn": [[*plot, "venn", v, *r, *res, "--no-shared-scale", "--scheme", "locomo"]],
        "plot forest": [[*plot, "forest", v, *r, *res, "--by", "category", "--alias", "mem0=M", "--width", "page", "--arrange", "grid"]],
        "plot matrix": [["plot", "matrix", v, *r, *res, "--lower", "score", "-o", fig, "--force"]],
        "plot evidence-matrix": [[*plot, "evidence-matrix", v, *res]],
        "plot bubble": [[*plot, "bubble", v, *r, *res, "--systems-table", f["systems"], "--cost", "tokens_per_query",
                         "--size", "store_tokens"]],
        "plot venn3": [[*plot, "venn3", v, *r, "--memory", "mem0", "--augmented", "mem0+raw"]],
        "plot overview": [[*plot, "overview", *r, *res, "--setting", f"one={v}", "--setting", f"two={v}"],
                          [*plot, "overview", f["settings"], *r, *res, "--pooled"]],
        "plot critical": [[*plot, "critical", f["settings"], "--ci", "0.9"]],
        "plot writes": [[*plot, "writes", f["writes"], "--ci", "0.9"]],
        "plot actions": [["plot", "actions", f["writes"], "-o", fig, "--force", "--width", "page"]],
        "plot ingestion": [[*plot, "ingestion", f["ingestion"], *r]],
        "plot sensitivity": [[*plot, "sensitivity", f["sweep"], "--default", "15", "--parameter", "final_k", *res]],
        "plot store-gap": [[*plot, "store-gap", f["store"], "--systems-table", f["variants"], *res]],
        "across": [["across", "--setting", f"one={v}", "--setting", f"two={v}", *r, *res]],
        "fragility": [["fragility", v, *r, "--pairs", "reference"]],
        "judge-error": [["judge-error", f["labelled"], "--label", "human", *r, *res],
                        ["judge-error", f["labelled"], "--sensitivity", "0.9", "--specificity", "0.8", "--n-correct",
                         "50", "--n-incorrect", "50", *r, "--breakeven", "5"],
                        ["judge-error", f["agreement"], *r, "--components", "--target", "5"],
                        ["judge-error", f["labelled"], *r, *res, "--gold-errors", f["gold"], "--missing", "drop",
                         "--verdict-missing", "exclude"]],
    }


def _parsers(parser: argparse.ArgumentParser | None = None, path: str = "") -> dict[str, argparse.ArgumentParser]:
    """Every (sub)command's parser by its words after ``memdiag``: ``score``, ``plot``, ``plot forest``."""
    parser = parser or cli.build_parser()
    found = {path: parser} if path else {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found |= _parsers(sub, f"{path} {name}".strip())
    return found


def _leaf(parser: argparse.ArgumentParser) -> bool:
    return not any(isinstance(a, argparse._SubParsersAction) for a in parser._actions)


def _offered(command: str) -> set[str]:
    return {a.dest for a in _parsers()[command]._actions if a.dest != "help"}


def _commands() -> list[str]:
    """The commands that run: every subcommand, and each figure kind of ``plot`` on its own."""
    return [path for path, parser in _parsers().items() if _leaf(parser)]


def test_every_subcommand_is_checked_or_skipped_with_a_reason(files):
    assert set(_commands()) == set(baselines(files)) | set(SKIPPED)


@pytest.mark.parametrize("command", [c for c in _commands() if c not in SKIPPED])
def test_every_offered_option_is_read(command, files, monkeypatch):
    from memdiag import plots

    monkeypatch.setattr(plots, "save", lambda fig, path: [])  # drawn, not written: the options act on the figure
    read: set[str] = set()
    for argv in baselines(files)[command]:
        read |= run_tracked(argv)
    unread = _offered(command) - read
    assert not unread, f"memdiag {command} offers {sorted(unread)} but never reads them"


#: (option, value) pairs of the shared resampling group. --seed and --resamples act on sampled
#: intervals and tests, so they are checked under --inference percentile; the others from the default.
EFFECTS = [("--seed", "7"), ("--ci", "0.8"), ("--resamples", "200"), ("--design", "iid"),
           ("--inference", "percentile"), ("--correction", "bonferroni")]
SAMPLED = ("--seed", "--resamples")
#: The command lines whose rows the options must move.
ROWS = {"compare": ["compare"], "leaderboard": ["leaderboard"], "flows": ["flows", "--reference", "raw-rag"],
        "power": ["power", "--reference", "raw-rag"], "independence": ["independence"],
        "score": ["score", "--metric", "accuracy"], "rank": ["rank"], "agreement": ["agreement"]}
#: Options a command offers whose effect is not on these rows, each with the reason.
NO_ROW_EFFECT = {
    ("independence", "--design"): "compares iid with the cluster design by definition; --design iid gives "
                                  "the same table twice",
}


def _rows(argv: list[str]) -> list:
    document = json.loads(run([*argv, "--format", "json"]))
    tables = document if isinstance(document, list) else [document]
    return [t["rows"] for t in tables]


@pytest.mark.parametrize(("command", "option"), [(c, o) for c in ROWS for o in EFFECTS])
def test_resampling_options_move_the_rows(command, option, files):
    name, value = option
    if name.removeprefix("--") not in _offered(command):
        pytest.skip(f"memdiag {command} does not offer {name}")
    if (command, name) in NO_ROW_EFFECT:
        pytest.skip(NO_ROW_EFFECT[(command, name)])
    base = [*ROWS[command], files["agreement" if command == "agreement" else "verdicts"], "--resamples", B]
    if name in SAMPLED and "inference" in _offered(command):
        base += ["--inference", "percentile"]
    assert _rows(base) != _rows([*base, name, value]), f"memdiag {command} {name} {value} changes no number"


def test_offered_resampling_options_per_command():
    # what each command offers is what acts (the rows test above skips the rest)
    assert "ci" not in _offered("power") and "design" not in _offered("agreement")
    assert "design" not in _offered("audit") and "inference" in _offered("leaderboard")


def test_plot_ci_sets_the_interval_drawn(files, tmp_path):
    for level in ("0.95", "0.8"):
        run(["plot", "forest", files["verdicts"], "--reference", "raw-rag", "--resamples", B, "--ci", level,
             "-o", str(tmp_path / f"forest{level}.svg")])
    assert "80% interval" in (tmp_path / "forest0.8.svg").read_text(encoding="utf-8")
    assert "80% interval" not in (tmp_path / "forest0.95.svg").read_text(encoding="utf-8")


def test_plot_figures_without_an_interval_offer_no_resampling_options(files, capsys):
    code = cli.main(["plot", "actions", files["writes"], "--ci", "0.8", "-o", "x.png"])
    assert code == 2 and capsys.readouterr().err == ("memdiag plot actions: error: unrecognized arguments: --ci 0.8 "
                                                     "(see memdiag plot actions --help)\n")


def _listed(help_text: str) -> set[str]:
    """The option strings a ``--help`` lists: the invocations that open its option lines."""
    lines = [line.strip() for line in help_text.splitlines() if line.startswith("  -")]
    return {o for line in lines for o in re.findall(r"(?:^|, )(-{1,2}[\w-]+)", re.split(r"\s{2,}", line)[0])}


def _help(argv: list[str], capsys) -> str:
    capsys.readouterr()
    assert cli.main([*argv, "--help"]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("kind", list(FIGURES))
def test_plot_kind_help_lists_exactly_the_options_of_the_kind(kind, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    parser = _parsers()[f"plot {kind}"]
    options = {o for a in parser._actions for o in a.option_strings}
    assert _listed(_help(["plot", kind], capsys)) == options
    # and these are the options the kind reads (test_every_offered_option_is_read): here by name
    resampling = {"--design", "--resamples", "--seed", "--ci"}
    no_interval = kind in ("venn3", "actions", "ingestion")
    assert ("--pooled" in options) == (kind == "overview")
    assert ("--shared-scale" in options) == (kind == "venn")
    assert ("--by" in options) == ("--arrange" in options) == (kind == "forest")
    assert ("--lower" in options) == (kind == "matrix")
    assert ("--cost" in options) == ("--size" in options) == (kind == "bubble")
    assert ("--default" in options) == ("--parameter" in options) == (kind == "sensitivity")
    assert ("--memory" in options) == ("--augmented" in options) == (kind == "venn3")
    assert ("--setting" in options) == (kind in ("overview", "critical"))
    # critical ranks point estimates: nothing is resampled, --ci is the critical difference's level; the
    # write audit's intervals have a level and nothing else
    assert options & resampling == (set() if no_interval else {"--ci"} if kind in ("critical", "writes")
                                    else resampling)
    assert ("--inference" in options) == (kind in ("venn", "forest", "matrix", "evidence-matrix", "bubble",
                                                   "overview", "store-gap"))
    # p_adj is drawn (forest, matrix, Venn titles' tests, the evidence tests, the store gap's gains): the
    # correction reaches the figure; the bubble's intervals of each system's score are not tested
    assert ("--correction" in options) == (kind in ("venn", "forest", "matrix", "evidence-matrix", "store-gap"))
    assert ("--alias" in options) == ("--scheme" in options) == ("--systems-table" in options) == (
        kind not in ("overview", "critical", "writes", "actions", "ingestion"))
    assert ("--recipe" in options) == (kind not in ("writes", "actions", "ingestion"))
    # a reference is compared with (venn, venn3, forest: required) or drawn first or grey when given
    assert ("--reference" in options) == (kind not in ("evidence-matrix", "store-gap", "writes", "actions",
                                                       "critical"))
    required = {o for a in parser._actions if a.required for o in a.option_strings}
    assert ("--reference" in required) == (kind in ("venn", "venn3", "forest"))
    assert {"-o", "--output", "--force", "--width", "-h", "--help"} <= options


def test_plot_help_lists_each_kind_on_one_line_and_only_the_options_every_kind_reads(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    text = _help(["plot"], capsys)
    for kind, line in FIGURES.items():
        assert re.search(rf"^    {re.escape(kind)} +{re.escape(line)}$", text, re.M), kind
    assert _listed(text) == {"-h", "--help", "-o", "--output", "--force", "--width"}
    assert "--resamples" not in text and "--reference" not in text.split("options:")[1]


def test_plot_takes_the_figure_file_options_before_or_after_the_kind(capsys):
    parse = cli.build_parser().parse_args
    before = parse(["plot", "-o", "a.pdf", "--force", "--width", "page", "writes", "log.csv"])
    after = parse(["plot", "writes", "log.csv", "-o", "a.pdf", "--force", "--width", "page"])
    for args in (before, after):
        assert (args.figure, args.log, args.output, args.force, args.width) == ("writes", "log.csv", "a.pdf", True,
                                                                                "page")
    plain = parse(["plot", "writes", "log.csv", "-o", "a.pdf"])
    assert (plain.force, plain.width) == (False, "column")
    assert parse(["plot", "--width", "page", "writes", "log.csv", "-o", "a.pdf", "--width", "column"]).width == "column"
    assert cli.main(["plot", "writes", "log.csv"]) == 2
    assert capsys.readouterr().err == ("memdiag plot writes: error: the following arguments are required: "
                                       "-o/--output (see memdiag plot writes --help)\n")


def test_quiet_and_verbose_change_the_notes(files):
    base = ["compare", files["verdicts"], "--resamples", B, "--omnibus"]
    default, quiet, verbose = run(base), run([*base, "--quiet"]), run([*base, "--verbose"])
    assert len({default, quiet, verbose}) == 3


def test_correction_has_help_in_every_command():
    for name, command in _parsers().items():
        for action in command._actions:
            assert action.help, f"memdiag {name} {action.option_strings or action.dest} has no help text"


def test_pairwise_matrix_names_the_correction_it_reads():
    frame = pd.DataFrame({"system_a": ["a"], "system_b": ["b"], "diff": [4.0], "ci_low": [1.0], "ci_high": [7.0],
                          "p_adj": [0.01]})
    frame.attrs["correction"] = "bonferroni"
    assert md.pairwise_matrix(frame).attrs["notes"] == ["row − column in points [interval]; * Bonferroni-adjusted "
                                                        "p < 0.05"]
    frame.attrs["correction"] = "holm"
    assert "Holm-adjusted" in md.pairwise_matrix(frame).attrs["notes"][0]


def test_pairwise_matrix_reads_alpha_from_the_frames_level():
    # p_adj 0.08: not starred at the default 95% (α = 0.05), starred at 90% (α = 0.10), said as 0.10
    frame = pd.DataFrame({"system_a": ["a"], "system_b": ["b"], "diff": [4.0], "ci_low": [-0.004], "ci_high": [7.0],
                          "p_adj": [0.08]})
    frame.attrs["correction"] = "holm"
    assert md.pairwise_matrix(frame).loc["a", "b"] == "4.00 [0.00, 7.00]"      # points: never "-0.00"
    frame.attrs["confidence_level"] = 0.9
    matrix = md.pairwise_matrix(frame)
    assert matrix.loc["a", "b"] == "4.00* [0.00, 7.00]" and matrix.loc["b", "a"] == "-4.00* [-7.00, 0.00]"
    assert matrix.attrs["notes"][0].endswith("p < 0.10") and matrix.attrs["alpha"] == 0.1
    other = frame.copy()
    other.attrs = {**frame.attrs, "confidence_level": 0.95}
    with pytest.raises(ValueError, match="different levels"):
        md.pairwise_matrix(frame, other)


@pytest.mark.parametrize("argv", [["independence"], ["power", "--reference", "raw-rag", "--pairs", "all"]])
def test_alpha_is_one_minus_the_confidence_level_unless_given(argv, files):
    # power offers no --ci: its α is 1 − md.Options' level (0.95 -> 0.05, not 0.050000000000000044)
    def alpha(*extra: str) -> float:
        document = json.loads(run([*argv, files["verdicts"], "--resamples", B, "--format", "json", *extra]))
        return document["provenance"]["alpha"]

    assert alpha() == 0.05
    assert alpha("--alpha", "0.2") == 0.2
    if "ci" in _offered(argv[0]):
        # the independence audit derives α from the level: --alpha sets the level, a --ci that disagrees is refused
        assert alpha("--ci", "0.9") == 0.1 and alpha("--ci", "0.9", "--alpha", "0.1") == 0.1
        err = io.StringIO()
        with redirect_stdout(io.StringIO()), redirect_stderr(err):
            assert cli.main([*argv, files["verdicts"], "--ci", "0.9", "--alpha", "0.05"]) == 2
        assert "--alpha 0.05 and --ci 0.9 disagree" in err.getvalue()


def test_audit_alpha_is_one_minus_the_level_and_sets_it(files):
    # md.audit_claims derives α from options.confidence_level: --alpha 0.01 runs at the 0.99 level
    claims = ["audit", files["claims"], "--verdicts", files["verdicts"], "--resamples", B, "--format", "json"]

    def provenance(*extra: str) -> tuple[float, float]:
        document = json.loads(run([*claims, *extra]))["provenance"]
        return document["alpha"], document["confidence_level"]

    assert provenance() == (0.05, 0.95)
    assert provenance("--ci", "0.5") == (0.5, 0.5)
    assert provenance("--alpha", "0.01") == (0.01, 0.99)
    assert provenance("--alpha", "0.1", "--ci", "0.9") == (0.1, 0.9)
    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        assert cli.main([*claims, "--ci", "0.5", "--alpha", "0.01"]) == 2
    assert "--alpha 0.01 and --ci 0.5 disagree" in err.getvalue()


def test_audit_summaries_alpha_is_the_files_unless_alpha_or_ci_is_given(files, tmp_path):
    text = Path(files["summaries"]).read_text(encoding="utf-8")
    assert "\nalpha: 0.05\n" in text
    strict = tmp_path / "strict.yaml"
    strict.write_text(text.replace("\nalpha: 0.05\n", "\nalpha: 0.001\n"), encoding="utf-8")

    def findings(path: Path | str, *extra: str) -> list[str]:
        document = json.loads(run(["audit", "--summaries", str(path), "--format", "json", *extra]))
        return [row["finding"] for row in document["rows"]]

    assert findings(strict) != findings(files["summaries"])  # the file's alpha is read
    assert findings(strict, "--alpha", "0.05") == findings(files["summaries"])
    assert findings(strict, "--ci", "0.95") == findings(files["summaries"])
