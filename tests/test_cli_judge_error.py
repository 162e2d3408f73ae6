"""The ``memdiag judge-error`` command (SPEC §9): the real locomo-audit files end to end, a calibration
column from a CSV, and one-line errors with exit 2."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from memdiag.cli import main

AUDIT = "dial481__locomo-audit"


@pytest.fixture(scope="module")
def audit(real_data):
    folder = real_data / AUDIT
    if not folder.is_dir():
        pytest.skip("the locomo-audit release is not in the real-data folder")
    return folder


def test_judge_error_on_the_audit(audit, tmp_path):
    out = tmp_path / "judge.json"
    runs = [str(audit / "fc-baseline" / "results" / r / "eval_results.json")
            for r in ("gpt-4o-mini-memos", "gpt-4.1-mini-cot")]
    code = main(["judge-error", "--locomo-audit", "--dataset", str(audit / "data" / "locomo10.json"), *runs,
                 "--wrong-answers", str(audit / "ap-baseline" / "v2" / "ap_eval_results_scored.json"),
                 "--gold-errors", str(audit / "errors.json"), "--reference", "gpt-4o-mini-memos",
                 "--components", "--target", "3", "--resamples", "999", "--format", "json", "-o", str(out)])
    assert code == 0
    tables = json.loads(out.read_text())
    functions = [t["provenance"]["function"] for t in tables]
    # one wrong-answer source: no within-question length test (it needs two answers per question)
    assert functions == ["judge_leniency", "leniency_bound", "gold_ceilings", "ceiling_flags", "clean_rescore",
                         "clean_rescore", "variance_components", "plan_evaluation"]
    overall = [r for r in tables[0]["rows"] if r["group"] == "overall"]
    assert [round(r["fpr"], 2) for r in overall] == [62.81]
    ceilings = {r["group"]: round(r["ceiling"], 2) for r in tables[2]["rows"]}
    assert ceilings["overall"] == 93.57


def test_judge_error_from_a_label_column(tmp_path, capsys):
    rng = np.random.default_rng(0)
    n = 300
    rows = []
    for q in range(n):
        for s, acc in (("mem", 0.7), ("rag", 0.6)):
            truth = rng.random() < acc
            judged = rng.random() < (0.95 if truth else 0.3)
            rows.append({"system": s, "query_id": f"q{q:03d}", "score": float(judged),
                         "human": float(truth) if q % 4 == 0 else np.nan})
    path = tmp_path / "verdicts.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    assert main(["judge-error", str(path), "--label", "human", "--reference", "rag", "--design", "iid"]) == 0
    printed = capsys.readouterr().out
    assert "judge error from calibration labels 'human'" in printed and "PPI++" in printed


def test_judge_error_usage_errors(tmp_path, capsys):
    path = tmp_path / "v.csv"
    pd.DataFrame({"system": ["a", "b"], "query_id": ["q", "q"], "score": [1, 0]}).to_csv(path, index=False)
    assert main(["judge-error", str(path)]) == 2
    assert "say what to compute" in capsys.readouterr().err
    assert main(["judge-error", str(path), "--sensitivity", "0.9"]) == 2
    assert "go together" in capsys.readouterr().err
    assert main(["judge-error", str(path), "--wrong-answers", str(path)]) == 2
    assert "--dataset" in capsys.readouterr().err
    audit_ids = tmp_path / "errors.json"  # the audit's own ids pair with nothing until the dataset maps them
    audit_ids.write_text('[{"question_id": "locomo_0_qa1", "error_type": "HALLUCINATION"}]', encoding="utf-8")
    assert main(["judge-error", str(path), "--gold-errors", str(audit_ids)]) == 2
    assert "--dataset" in capsys.readouterr().err
