"""trpc-agent-go LoCoMo ``results.json`` (benchmark/memory/results/<run>/<scenario>_<backend>/).

Layout
------
::

    {"metadata": {...}, "summary": {...}, "by_category": {...},
     "sample_results": [{"sample_id": "locomo10_1", "by_category": {...}, "overall": {...},
                         "qa_results": [{"question_id": "locomo10_1_q_1", "question": "...",
                                         "category": "multi-hop", "expected": "...", "predicted": "...",
                                         "metrics": {"f1": 1, "bleu": 1, "llm_score": 1},
                                         "latency_ms": 4880, "tokens_used": 14393}]}]}

All 1,986 LoCoMo-10 questions, adversarial ones included. The judge returns {correct, confidence}
and ``llm_score`` = confidence when correct, else 0; the Go field is ``omitempty``, so a MISSING
``llm_score`` means 0 (judged wrong), while an explicit null is no verdict (NaN, row kept).

Mapping
-------
``score`` = 1.0 if ``llm_score`` > 0 else 0.0 (binary); ``llm_confidence`` = the fractional
``llm_score``; ``f1``, ``bleu`` from ``metrics``; ``latency_s`` = ``latency_ms`` / 1000;
``tokens_used`` when the run records it (long_context and rag_* runs). ``category`` = canonical
name of the LoCoMo integer that trpc's own label maps to (single-hop 1, multi-hop 2, temporal 3,
open-domain 4, adversarial 5 — trpc's label text differs from the canonical names),
``source_category`` = trpc's label. ``sample_id`` ``locomo10_<k>`` is conversation index k-1;
``query_id``, ``cluster``, ``benchmark`` by :func:`memdiag.io.readers._locomo.align` (adversarial
questions get ``adv`` ids); ``source_record`` = ``"<sample_id>, item <n>"`` (n 1-based).
``question``, ``expected`` (the gold answer) and ``response`` (``predicted``) are kept as text for
per-query replay.

Default system: the name of the folder holding the file (``auto_pgvector``). The three run
folders (data_nohistory_*, data_history300_*, data_history700_*) reuse the same folder names, so
pass ``system=`` when reading runs of several of them together.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from memdiag.errors import VerdictError, where
from memdiag.io.readers import _locomo
from memdiag.io.readers._common import finish

NAME = "trpc-locomo"
DESCRIPTION = ("trpc-agent-go LoCoMo results.json: {metadata, summary, sample_results: [{sample_id, "
               "qa_results: [{question_id, category, metrics: {f1, bleu, llm_score}, latency_ms}]}]}")
#: trpc-agent-go's own category labels -> the LoCoMo integer.
TRPC_CATEGORIES: dict[str, int] = {
    "single-hop": 1, "multi-hop": 2, "temporal": 3, "open-domain": 4, "adversarial": 5,
}
SAMPLE_ID = re.compile(r"locomo10_(\d+)$")
LABELS = {"score": "metrics.llm_score", "llm_confidence": "metrics.llm_score", "f1": "metrics.f1",
          "bleu": "metrics.bleu", "latency_s": "latency_ms"}


def sniff(path: Path, content: object | None) -> bool:
    """A dict with a ``sample_results`` list whose first item has ``qa_results``."""
    if not isinstance(content, dict):
        return False
    samples = content.get("sample_results")
    return isinstance(samples, list) and bool(samples) and isinstance(samples[0], dict) and \
        "qa_results" in samples[0]


def _category(label: object, source: object, record: str) -> int:
    if label not in TRPC_CATEGORIES:
        raise VerdictError(
            f"{where(source, record, 'category')}: {label!r} is not a trpc-agent-go LoCoMo category "
            f"({', '.join(TRPC_CATEGORIES)}). Fix the record."
        )
    return TRPC_CATEGORIES[label]


def _sample(sample: object, source: object, number: int) -> tuple[str, int, list]:
    """``(sample_id, conversation index, qa_results)`` of one sample, checked."""
    sample_id = sample.get("sample_id") if isinstance(sample, dict) else None
    match = SAMPLE_ID.match(sample_id) if isinstance(sample_id, str) else None
    if not match or not isinstance(sample.get("qa_results"), list):
        raise VerdictError(
            f"{where(source, f'sample_results item {number}')}: expected {{'sample_id': 'locomo10_<k>', "
            "'qa_results': [...]}. Is this a LoCoMo-10 run?"
        )
    return sample_id, _locomo.conversation(int(match.group(1)) - 1, source, sample_id), sample["qa_results"]


def read(path: Path, content: object | None, *, system: str | None = None,
         fields: dict[str, str] | None = None) -> pd.DataFrame:
    """Read a trpc-agent-go LoCoMo ``results.json`` into the canonical long schema.

    Parameters
    ----------
    path : Path
        The ``results.json`` (named in errors and ``source_file``).
    content : dict
        Its parsed JSON.
    system : str, optional
        System name; default the folder name.
    fields : dict, optional
        Unused (column mapping is the ``mapped`` layout's job).

    Returns
    -------
    DataFrame
        One row per question (1,986 for a full run), samples and questions in file order.

    Raises
    ------
    VerdictError
        A sample that is not ``locomo10_<k>``, a question that is not an object, an unknown
        category label, or a metric that is not a number.
    """
    name = system or path.resolve().parent.name
    rows = []
    for sample_number, sample in enumerate(content["sample_results"], start=1):
        sample_id, index, questions = _sample(sample, path, sample_number)
        conversation = []
        for number, item in enumerate(questions, start=1):
            record = f"{sample_id}, item {number}"
            if not isinstance(item, dict):
                raise VerdictError(f"{where(path, record)}: expected a JSON object, got {item!r:.60}.")
            metrics = item.get("metrics") if isinstance(item.get("metrics"), dict) else {}
            row = {
                "system": name,
                "score": metrics.get("llm_score", 0),  # binarised below; omitempty: missing = 0
                "code": _category(item.get("category"), path, record),
                "source_category": item.get("category"),
                "f1": metrics.get("f1"),
                "bleu": metrics.get("bleu"),
                "llm_confidence": metrics.get("llm_score", 0),
                "latency_s": item.get("latency_ms"),  # in ms until converted below
                "question": item.get("question"),
                "expected": item.get("expected"),
                "response": item.get("predicted"),
                "source_record": record,
            }
            if "tokens_used" in item:
                row["tokens_used"] = item["tokens_used"]
            conversation.append(row)
        rows += _locomo.align(index, conversation)
    frame = finish(pd.DataFrame(rows), path, LABELS)
    frame["score"] = np.where(frame["llm_confidence"].isna(), np.nan, frame["llm_confidence"] > 0)
    frame["latency_s"] /= 1000
    return frame
