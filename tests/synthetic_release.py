"""A small synthetic LongMemEval-like release, laid out as researchers publish them (issue 12).

::

    release/
      run-a/eval_results_gpt-4o.json       {"overall_accuracy": 0.62, "results": [{question_id,
      run-a/eval_results_claude.json         question_type, hypothesis, judgment: "Yes." / "No" /
      run-a/eval_results_llama.json          "CORRECT" / "Yes, because ..."}]}   (3 judges per run)
      run-a/coverage.json                  {"questions": {"<qid>": {"fully_covered": true | false | null}}}
      run-a/context_tokens.json            {"items": [{"question_id", "context_tokens"}]}
      run-b/ ... run-d/

Four runs answer the same 60 questions (6 question types x 10, two abstention questions ``_abs``
per type); a judge's verdict agrees with the run's true correctness with a judge-specific
probability; coverage is null for the abstention questions. :func:`write_release` returns the
truth that the tests check the CLI's numbers against.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

TYPES = ("single-session-user", "single-session-assistant", "single-session-preference",
         "multi-session", "knowledge-update", "temporal-reasoning")
RUNS = {"run-a": 0.45, "run-b": 0.60, "run-c": 0.70, "run-d": 0.80}
JUDGES = {"gpt-4o": 0.95, "claude": 0.92, "llama": 0.88}
YES = ("Yes.", "yes", "CORRECT", "Yes, because the answer names the right date", "true")
NO = ("No.", "no", "WRONG", "No - the answer misses the second session", "incorrect")

RECIPE = """\
description: synthetic LongMemEval-like release (4 runs x 3 judges, coverage and context tokens)
sources:
  - files: "*/eval_results_gpt-4o.json"
    records: results
    judge: gpt-4o
    fields: {query_id: question_id, score: judgment, category: question_type}
    columns: {benchmark: longmemeval}
  - files: "*/eval_results_claude.json"
    records: results
    judge: claude
    fields: {query_id: question_id, score: judgment, category: question_type}
    columns: {benchmark: longmemeval}
  - files: "*/eval_results_llama.json"
    records: results
    judge: llama
    fields: {query_id: question_id, score: judgment, category: question_type}
    columns: {benchmark: longmemeval}
join:
  - files: "*/coverage.json"
    records: questions
    system: "{folder}"
    fields: {sufficient: fully_covered}
  - files: "*/context_tokens.json"
    records: items
    system: "{folder}"
    fields: {query_id: question_id, evidence_tokens: context_tokens}
"""


def question_ids() -> list[tuple[str, str]]:
    """(question_id, question_type) of the 60 questions; ids of abstention questions end in _abs."""
    out = []
    for t, name in enumerate(TYPES):
        for k in range(10):
            qid = f"q{t}{k:02d}" + ("_abs" if k >= 8 else "")
            out.append((qid, name))
    return out


def write_release(folder: Path, seed: int = 12) -> dict:
    """Write the release under ``folder`` (and its recipe as ``folder/release.yaml``); return the
    truth: ``correct[run]`` (0/1 per question), ``verdicts[run][judge]``, ``covered[run]``
    (1/0/None), ``tokens[run]`` and the question list."""
    rng = np.random.default_rng(seed)
    questions = question_ids()
    n = len(questions)
    truth: dict = {"questions": questions, "correct": {}, "verdicts": {}, "covered": {}, "tokens": {}}
    for run, accuracy in RUNS.items():
        root = folder / run
        root.mkdir(parents=True, exist_ok=True)
        correct = (rng.random(n) < accuracy).astype(int)
        truth["correct"][run] = correct
        truth["verdicts"][run] = {}
        for judge, agree in JUDGES.items():
            verdict = np.where(rng.random(n) < agree, correct, 1 - correct)
            truth["verdicts"][run][judge] = verdict
            results = [{"question_id": qid, "question_type": qtype, "hypothesis": f"answer {i}",
                        "judgment": (YES if v else NO)[int(rng.integers(len(YES)))]}
                       for i, ((qid, qtype), v) in enumerate(zip(questions, verdict))]
            (root / f"eval_results_{judge}.json").write_text(json.dumps(
                {"overall_accuracy": round(float(verdict.mean()), 4), "results": results}, indent=1))
        covered = [None if qid.endswith("_abs") else bool(c or rng.random() < 0.3)
                   for (qid, _), c in zip(questions, correct)]
        truth["covered"][run] = covered
        (root / "coverage.json").write_text(json.dumps(
            {"questions": {qid: {"fully_covered": c} for (qid, _), c in zip(questions, covered)}}))
        tokens = rng.integers(200, 9000, n)
        truth["tokens"][run] = tokens
        (root / "context_tokens.json").write_text(json.dumps(
            {"items": [{"question_id": qid, "context_tokens": int(t)} for (qid, _), t in zip(questions, tokens)]}))
    (folder / "release.yaml").write_text(RECIPE)
    return truth
