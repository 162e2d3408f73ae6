"""The report's judge-error section (SPEC §9): on a panel with a calibration subset it shows corrected scores
and differences beside the raw ones, with a sentence on what changed."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from memdiag.cli import main


def test_report_with_a_calibration_subset(tmp_path):
    rng = np.random.default_rng(3)
    rows = []
    for g in range(12):
        for q in range(30):
            qid = f"c{g:02d}-q{q:03d}"
            for system, acc in (("raw-rag", 0.55), ("mem", 0.62)):
                truth = rng.random() < acc
                judged = rng.random() < (0.97 if truth else 0.35)  # a lenient judge
                rows.append({"system": system, "query_id": qid, "cluster": f"c{g:02d}", "score": float(judged),
                             "human_label": float(truth) if q % 3 == 0 else np.nan})
    path = tmp_path / "verdicts.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    out = tmp_path / "report"
    assert main(["report", str(path), "--reference", "raw-rag", "--out", str(out), "--resamples", "200"]) == 0
    text = (out / "report.md").read_text(encoding="utf-8")
    assert "Judge error: corrected scores and differences" in text
    section = text[text.index("Judge error: corrected scores and differences"):]
    assert "sensitivity is" in section and "specificity" in section
    assert ("changes its conclusion" in section) or ("corrected interval" in section)
    doc = json.loads((out / "analysis.json").read_text(encoding="utf-8"))
    keys = {s["key"]: s for s in doc["sections"]}
    assert not keys["judge_error"]["omitted"]
    corrected = pd.read_csv(out / "tables" / "judge_corrected.csv")
    assert {"raw", "corrected", "ci_low", "ci_high", "raw_ci_low"} <= set(corrected.columns)
    assert set(corrected["kind"]) == {"score", "difference"}
    # a lenient judge inflates both scores; the correction lowers them
    scores = corrected[corrected["kind"] == "score"]
    assert (scores["corrected"] < scores["raw"]).all()
    assert (out / "tables" / "ppi.csv").is_file()
