"""The dial481/locomo-audit release: judged runs with three judgments each, and the LoCoMo-10 question index.

One job: give the audit's records memdiag's canonical ids (SPEC §1.7). The audit names a question
``locomo_<c>_qa<p>``: conversation index c (0-9, LoCoMo-10 release order) and p, the 0-based
position in that conversation's full ``qa`` list, adversarial questions (category 5) included. The
canonical id counts non-adversarial questions only, so the mapping needs the dataset
(``data/locomo10.json``): in conv-30 an adversarial question sits at position 79, so
``locomo_1_qa80`` is ``locomo:conv-30:079``.

- :func:`locomo_questions` — every LoCoMo-10 question with its canonical id, audit id, cluster and
  category, from the dataset file;
- :func:`read_locomo_audit` — an ``eval_results.json`` / ``ap_eval_results_scored.json`` file
  (``detailed_results`` keyed ``locomo_exp_user_<i>``, each record's ``llm_judgments``) as canonical
  verdicts, one row per judgment (``repeat`` 0, 1, 2); the public door is
  ``md.read_verdicts(files, format="locomo-audit", dataset=...)``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from memdiag.errors import VerdictError, where
from memdiag.io.schema import LOCOMO_CATEGORIES, LOCOMO_CONVERSATIONS, locomo_query_id
from memdiag.io.strict import read_json

__all__ = ["locomo_questions", "read_locomo_audit"]

AUDIT_ID = re.compile(r"^locomo_(\d+)_qa(\d+)$")


def locomo_questions(dataset: str | Path) -> pd.DataFrame:
    """Every question of LoCoMo-10 (``locomo10.json``) with its canonical and audit ids.

    Parameters
    ----------
    dataset
        Path of the LoCoMo-10 dataset file (a list of ten conversations, each with a ``qa`` list).

    Returns
    -------
    pandas.DataFrame
        One row per question in release order: ``query_id`` (canonical, SPEC §1.7), ``audit_id``
        (``locomo_<c>_qa<p>``), ``cluster`` (the conversation), ``category`` (canonical name),
        ``category_code`` (the LoCoMo integer) and ``question``.

    Raises
    ------
    VerdictError
        A missing or non-JSON file, not ten conversations, a record without ``qa``/``category``.

    References
    ----------
    SPEC §1.7 (canonical LoCoMo ids) and SPEC §9.4 (the audit's ids).

    Examples
    --------
    >>> import json, tempfile, os
    >>> conv = [{"sample_id": f"c{i}", "qa": [{"question": "q", "category": 2}, {"question": "a", "category": 5},
    ...                                       {"question": "r", "category": 4}]} for i in range(10)]
    >>> path = os.path.join(tempfile.mkdtemp(), "locomo10.json")
    >>> _ = open(path, "w").write(json.dumps(conv))
    >>> locomo_questions(path)[["query_id", "audit_id", "category"]].head(3).values.tolist()
    [['locomo:conv-26:000', 'locomo_0_qa0', 'temporal'], ['locomo:conv-26:adv000', 'locomo_0_qa1', 'adversarial'], ['locomo:conv-26:001', 'locomo_0_qa2', 'single-hop']]
    """
    data = read_json(dataset, "LoCoMo-10 dataset file")
    if not isinstance(data, list) or len(data) != len(LOCOMO_CONVERSATIONS):
        raise VerdictError(f"{dataset}: expected the ten LoCoMo-10 conversations, got "
                           f"{len(data) if isinstance(data, list) else type(data).__name__}.")
    rows = []
    for c, conv in enumerate(data):
        if not isinstance(conv, dict) or not isinstance(conv.get("qa"), list):
            raise VerdictError(f"{where(str(dataset), c + 1, 'qa')}: a conversation needs a 'qa' list.")
        positions = {False: 0, True: 0}
        for p, qa in enumerate(conv["qa"]):
            code = qa.get("category") if isinstance(qa, dict) else None
            if code not in LOCOMO_CATEGORIES:
                raise VerdictError(f"{where(str(dataset), f'{c + 1}, question {p}', 'category')}: "
                                   f"{code!r} is not a LoCoMo category (1-5).")
            adversarial = code == 5
            rows.append({"query_id": locomo_query_id(c, positions[adversarial], adversarial=adversarial),
                         "audit_id": f"locomo_{c}_qa{p}", "cluster": LOCOMO_CONVERSATIONS[c],
                         "category": LOCOMO_CATEGORIES[code], "category_code": int(code),
                         "question": str(qa.get("question", ""))})
            positions[adversarial] += 1
    return pd.DataFrame(rows)


def canonical_ids(audit_ids: pd.Series, questions: pd.DataFrame, source: str) -> pd.Series:
    """Map audit ids to canonical ids; an id outside the dataset is an error naming it."""
    index = dict(zip(questions["audit_id"], questions["query_id"]))
    bad = [a for a in audit_ids if a not in index]
    if bad:
        raise VerdictError(f"{source}: question_id {bad[0]!r} is not a LoCoMo-10 question of the dataset "
                           f"({len(bad)} such ids); expected ids like locomo_0_qa0.")
    return audit_ids.map(index)


def read_locomo_audit(path: str | Path, *, dataset: str | Path, system: str | None = None) -> pd.DataFrame:
    """A judged run of the LoCoMo audit (three judgments per answer) as canonical verdicts.

    Parameters
    ----------
    path
        An ``eval_results.json`` (fc-baseline) or ``ap_eval_results_scored.json`` (ap-baseline) file.
    dataset
        The LoCoMo-10 dataset file that fixes question positions (``data/locomo10.json``).
    system
        The system name (default: the file's folder name, e.g. ``gpt-4o-mini-cot`` or ``v2``).

    Returns
    -------
    pandas.DataFrame
        One row per judgment: ``system``, ``query_id`` (canonical), ``repeat`` (0-based judgment
        number), ``score`` (1.0 accepted, 0.0 rejected), ``benchmark``, ``cluster``, ``category``,
        ``response`` (the generated answer), ``expected`` (the gold answer), ``audit_id``,
        ``source_file``, ``source_record``.

    Raises
    ------
    VerdictError
        A missing or non-JSON file, no ``detailed_results``, a record without ``question_id`` or
        ``llm_judgments``, a judgment that is not true/false, an id not in the dataset, or a record
        whose question text differs from the dataset's.

    References
    ----------
    SPEC §1.7 (canonical ids) and SPEC §9.3–§9.5 (what the audit's runs measure).

    Examples
    --------
    >>> import json, tempfile, os
    >>> conv = [{"qa": [{"question": "q", "category": 2}]} for _ in range(10)]
    >>> folder = tempfile.mkdtemp()
    >>> _ = open(os.path.join(folder, "locomo10.json"), "w").write(json.dumps(conv))
    >>> run = {"detailed_results": {"locomo_exp_user_0": [{"question_id": "locomo_0_qa0", "question": "q",
    ...        "golden_answer": "a", "generated_answer": "b", "category": "2",
    ...        "llm_judgments": {"judgment_1": True, "judgment_2": False, "judgment_3": True}}]}}
    >>> _ = open(os.path.join(folder, "run.json"), "w").write(json.dumps(run))
    >>> df = read_locomo_audit(os.path.join(folder, "run.json"), dataset=os.path.join(folder, "locomo10.json"),
    ...                        system="x")
    >>> df[["query_id", "repeat", "score"]].to_dict("list")
    {'query_id': ['locomo:conv-26:000', 'locomo:conv-26:000', 'locomo:conv-26:000'], 'repeat': [0, 1, 2], 'score': [1.0, 0.0, 1.0]}
    """
    path = Path(path)
    data = read_json(path, "locomo-audit results file")
    results = data.get("detailed_results") if isinstance(data, dict) else None
    if not isinstance(results, dict):
        raise VerdictError(f"{path}: no 'detailed_results' mapping; is this a locomo-audit eval_results.json?")
    questions = locomo_questions(dataset)
    text = dict(zip(questions["audit_id"], questions["question"]))
    name = system or path.parent.name
    rows = []
    for key in results:
        for k, rec in enumerate(results[key]):
            record = f"{key}[{k}]"
            if not isinstance(rec, dict) or "question_id" not in rec or not isinstance(rec.get("llm_judgments"), dict):
                raise VerdictError(f"{where(str(path), record)}: needs 'question_id' and an 'llm_judgments' mapping.")
            qid = str(rec["question_id"])
            if qid in text and "question" in rec and str(rec["question"]) != text[qid]:
                raise VerdictError(f"{where(str(path), record, 'question')}: the text differs from the dataset's "
                                   f"question {qid}; the file and the dataset do not match.")
            judgments = sorted(rec["llm_judgments"].items(), key=lambda kv: int(re.sub(r"\D", "", kv[0]) or 0))
            for r, (field, verdict) in enumerate(judgments):
                if not isinstance(verdict, bool):
                    raise VerdictError(f"{where(str(path), record, 'llm_judgments.' + field)}: {verdict!r} is not "
                                       "true/false.")
                rows.append({"system": name, "audit_id": qid, "repeat": r, "score": float(verdict),
                             "response": str(rec.get("generated_answer", "")),
                             "expected": str(rec.get("golden_answer", "")),
                             "source_file": str(path), "source_record": record})
    out = pd.DataFrame(rows)
    if out.empty:
        raise VerdictError(f"{path}: 'detailed_results' holds no record.")
    out["query_id"] = canonical_ids(out["audit_id"], questions, str(path))
    meta = questions.set_index("query_id")
    out["benchmark"] = "locomo"
    out["cluster"] = out["query_id"].map(meta["cluster"])
    out["category"] = out["query_id"].map(meta["category"])
    columns = ["system", "query_id", "repeat", "score", "benchmark", "cluster", "category", "response", "expected",
               "audit_id", "source_file", "source_record"]
    return out[columns]
