"""Issue 12, done when: a release laid out as researchers publish it, analysed with the CLI alone.

The synthetic release (tests/synthetic_release.py) has four runs in ``<run>/`` folders, each judged
by three judges (one file per judge, records under ``results``, verdicts as judge text), a coverage
side file keyed by question id with null sufficiency for the abstention questions, and a
context-token side file. Every number the CLI prints is checked against an oracle computed from the
truth the generator returns (statsmodels / scipy / numpy on the raw verdicts).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa, fleiss_kappa
from synthetic_release import JUDGES, RUNS, write_release

from memdiag.cli import main


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> tuple[Path, dict]:
    folder = tmp_path_factory.mktemp("release")
    return folder, write_release(folder)


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def rows(capsys, *argv) -> list[dict]:
    code, out, err = run(capsys, *argv, "--format", "json")
    assert code == 0, err
    document = json.loads(out)
    return document["rows"] if isinstance(document, dict) else [r for d in document for r in d["rows"]]


def table(capsys, *argv) -> list[list[dict]]:
    code, out, err = run(capsys, *argv, "--format", "json")
    assert code == 0, err
    document = json.loads(out)
    return [d["rows"] for d in (document if isinstance(document, list) else [document])]


def mean_over_judges(truth: dict, run_name: str) -> np.ndarray:
    return np.mean([truth["verdicts"][run_name][j] for j in JUDGES], axis=0)


@pytest.mark.parametrize("scheme, keep_abs", [("longmemeval", True), ("longmemeval-no-abs", False)])
def test_score_four_runs_under_longmemeval_with_and_without_abstention(release, capsys, scheme, keep_abs):
    folder, truth = release
    keep = np.array([keep_abs or not qid.endswith("_abs") for qid, _ in truth["questions"]])
    out = {r["system"]: r for r in rows(capsys, "score", "--recipe", folder / "release.yaml", "--scheme", scheme,
                                       "--judges", "mean")}
    assert sorted(out) == sorted(RUNS)
    for name in RUNS:
        assert out[name]["overall"] == pytest.approx(100 * mean_over_judges(truth, name)[keep].mean(), abs=1e-9)
        assert out[name]["n"] == keep.sum()


def test_one_named_judge_scores_by_that_judge_alone(release, capsys):
    folder, truth = release
    out = {r["system"]: r["overall"] for r in rows(capsys, "score", "--recipe", folder / "release.yaml",
                                                  "--judges", "claude")}
    for name in RUNS:
        assert out[name] == pytest.approx(100 * truth["verdicts"][name]["claude"].mean(), abs=1e-9)


def test_several_judges_without_a_policy_is_one_clear_error(release, capsys):
    folder, _ = release
    code, _, err = run(capsys, "score", "--recipe", folder / "release.yaml")
    assert code == 2 and "3 judges of the same answers (claude, gpt-4o, llama)" in err and "--judges mean" in err


def test_flows_and_mcnemar_between_two_runs(release, capsys):
    folder, truth = release
    a, b = truth["verdicts"]["run-a"]["gpt-4o"], truth["verdicts"]["run-b"]["gpt-4o"]
    out = rows(capsys, "flows", "--recipe", folder / "release.yaml", "--judges", "gpt-4o", "--reference", "run-a",
               "--resamples", 200)
    row = next(r for r in out if r["system"] == "run-b")
    benefit, tax = int(((b == 1) & (a == 0)).sum()), int(((b == 0) & (a == 1)).sum())
    assert (row["benefit"], row["tax"], row["n"]) == (benefit, tax, 60)
    assert row["p"] == pytest.approx(mcnemar([[0, benefit], [tax, 0]], exact=True).pvalue, rel=1e-12)
    assert row["p"] == pytest.approx(stats.binomtest(benefit, benefit + tax).pvalue, rel=1e-12)


def test_cohens_kappa_for_every_pair_of_judges_and_fleiss(release, capsys):
    folder, truth = release
    out = table(capsys, "agreement", "--recipe", folder / "release.yaml", "--resamples", 200)
    assert len(out) == 2  # the kappas, then the missing-verdict effect of each judge on its own verdicts
    by_kind, effect = out
    assert [(r["judge"], r["system"]) for r in effect] == [(j, name) for j in sorted(JUDGES) for name in sorted(RUNS)]
    for r in effect:
        assert r["score_as_wrong"] == pytest.approx(100 * truth["verdicts"][r["system"]][r["judge"]].mean(), abs=1e-9)
    units = {j: np.concatenate([truth["verdicts"][name][j] for name in sorted(RUNS)]) for j in JUDGES}
    cohen = [r for r in by_kind if r["kind"] == "cohen"]
    assert len(cohen) == 3
    for r in cohen:
        x, y = units[r["rater_a"]], units[r["rater_b"]]
        expected = cohens_kappa(np.array([[np.sum((x == 1) & (y == 1)), np.sum((x == 1) & (y == 0))],
                                          [np.sum((x == 0) & (y == 1)), np.sum((x == 0) & (y == 0))]]))
        assert r["kappa"] == pytest.approx(expected.kappa, rel=1e-12) and r["n"] == 240
    fleiss = next(r for r in by_kind if r["kind"] == "fleiss")
    counts, _ = aggregate_raters(np.column_stack([units[j] for j in sorted(JUDGES)]))
    assert fleiss["kappa"] == pytest.approx(fleiss_kappa(counts), rel=1e-12) and fleiss["n_raters"] == 3


def test_coverage_utilization_and_decomposition_with_unlabelled_queries_counted_and_excluded(release, capsys):
    folder, truth = release
    code, out, err = run(capsys, "evidence", "--recipe", folder / "release.yaml", "--judges", "mean",
                         "--resamples", 200, "--format", "json")
    assert code == 0, err
    document = json.loads(out)
    evidence = {r["system"]: r for r in document[0]["rows"]}
    notes = document[0]["provenance"]["notes"]
    assert any("12 of 60 queries without 'sufficient' labels for some system left out of this diagnostic "
               "(missing per system: run-a 12, run-b 12, run-c 12, run-d 12)" in n for n in notes)
    for name in RUNS:
        covered = truth["covered"][name]
        labelled = np.array([c is not None for c in covered])
        c = np.array([bool(v) for v in covered])[labelled].astype(float)
        y = mean_over_judges(truth, name)[labelled]
        row = evidence[name]
        assert row["n"] == 48 and row["n_sufficient"] == c.sum()
        assert row["coverage"] == pytest.approx(100 * c.mean(), abs=1e-9)
        assert row["utilization"] == pytest.approx(100 * (c * y).sum() / c.sum(), abs=1e-9)
        assert row["accuracy"] == pytest.approx(100 * y.mean(), abs=1e-9)
        assert row["covered_term"] + row["uncovered_term"] == pytest.approx(row["accuracy"], abs=1e-9)
    # --label-missing error keeps the strict behaviour
    code, _, err = run(capsys, "evidence", "--recipe", folder / "release.yaml", "--judges", "mean",
                       "--label-missing", "error", "--resamples", 200)
    assert code == 2 and "'sufficient' is missing for 48 (system, query) pairs" in err


def test_evidence_token_statistics_from_a_side_file(release, capsys):
    folder, truth = release
    code, out, err = run(capsys, "evidence", "--recipe", folder / "release.yaml", "--judges", "mean",
                         "--resamples", 200, "--format", "json")
    length = {r["system"]: r for r in json.loads(out)[-1]["rows"]}
    for name in RUNS:
        tokens = truth["tokens"][name].astype(float)
        row = length[name]
        assert (row["n"], row["n_missing"]) == (60, 0)
        assert row["mean"] == pytest.approx(tokens.mean()) and row["median"] == pytest.approx(np.median(tokens))
        assert row["p95"] == pytest.approx(np.percentile(tokens, 95)) and row["max"] == tokens.max()
        assert row["n_over_budget"] == int((tokens > 5000).sum())


def test_evidence_length_needs_no_sufficiency_label(release, capsys, tmp_path):
    folder, truth = release
    recipe = (folder / "release.yaml").read_text().split("join:")[0] + (
        "join:\n  - files: \"*/context_tokens.json\"\n    records: items\n    system: \"{folder}\"\n"
        "    fields: {query_id: question_id, evidence_tokens: context_tokens}\n")
    (folder / "tokens_only.yaml").write_text(recipe)
    out = table(capsys, "evidence", "--recipe", folder / "tokens_only.yaml", "--judges", "mean")
    assert len(out) == 1 and out[0][0]["mean"] == pytest.approx(truth["tokens"]["run-a"].mean())


def test_the_full_report_has_the_evidence_and_judge_agreement_sections(release, capsys, tmp_path):
    folder, _ = release
    out = tmp_path / "report"
    code, stdout, err = run(capsys, "report", "--recipe", folder / "release.yaml", "--judges", "mean",
                            "--reference", "run-a", "--out", out, "--resamples", 200)
    assert code == 0, err
    markdown = (out / "report.md").read_text()
    sections = {}
    for heading in ("Evidence diagnostics", "Judge agreement"):
        found = re.search(rf"^## \d+\. {heading}\n(.*?)(?=^## |^\*[^\n]* — omitted:|\Z)", markdown, re.S | re.M)
        assert found, f"no section {heading}"
        sections[heading] = found.group(1)
        assert "|" in found.group(1) and "omitted" not in found.group(1)  # tables, not the omission line
    evidence = sections["Evidence diagnostics"]
    assert "### Evidence length" in evidence
    # several evidence tables share the label note: said once, in the report's block of shared notes
    assert markdown.count("12 of 60 queries without 'sufficient' labels") == 1
    assert "### Judge agreement" in sections["Judge agreement"] and "judges=mean" in markdown
    analysis = json.loads((out / "analysis.json").read_text())
    assert analysis["settings"]["judges"] == "mean"
    rerun = tmp_path / "rerun"
    code, _, err = run(capsys, "report", "--rerun", out / "analysis.json", "--out", rerun)
    assert code == 0, err
    assert (rerun / "tables").is_dir() and sorted(p.name for p in (rerun / "tables").iterdir()) == \
        sorted(p.name for p in (out / "tables").iterdir())
