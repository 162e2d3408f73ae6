"""saxenauts/persona LongMemEval comparison files: one record per question, one column group per system.

Layout
------
``evals/final_results/benchmark_*.json`` in saxenauts/persona: a JSON list of records::

    {"question": "...", "gold": "...", "type": "temporal-reasoning",
     "Persona_ans": "...", "Persona_grade": 5, "Persona_reason": "...", "Persona_latency": 3e-06,
     "Mem0_ans": "...", "Mem0_grade": 1, ...}

Each system ``<S>`` has ``<S>_ans`` and either ``<S>_grade`` (a 1-5 Likert grade) or
``<S>_correct`` (bool, with ``<S>_raw_eval`` "yes"/"no"), e.g. ``Mem0 (Vector)_grade``,
``Zep (Graphiti)_correct``. The records carry no question id.

Mapping
-------
``system`` = the key prefix ``<S>``. ``score`` = 1 if ``<S>_grade`` >= 4 else 0 (evals/README.md:
"Correct = Grade >= 4"; the grade is kept as ``grade``), or ``<S>_correct``; a null grade/verdict
is NaN (row kept). ``latency_s`` = ``<S>_latency`` as recorded (in the 80-question files these are
~1e-6 s and not real latencies). ``query_id`` = ``"lme:" + sha1(normalised question)[:12]``
(:func:`question_id`: Unicode NFKC, case-folded, whitespace collapsed), so files over the same
questions pair; two records of one file with the same id are an error. ``category`` = ``type``
(``"unknown"`` when absent), ``benchmark`` = ``"longmemeval"``; ``source_record`` = the 1-based
record number. ``question``, ``expected`` (``gold``) and ``response`` (``<S>_ans``) are kept as
text for per-query replay.

Default system: the key prefix. ``system=`` renames the system only when the file holds exactly
one; for a file with several it is an error (renaming would merge them).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from pathlib import Path

import numpy as np
import pandas as pd

from memdiag.errors import VerdictError, where
from memdiag.io.readers._common import as_records, finish, first_record, single_system

NAME = "persona-longmemeval"
DESCRIPTION = ("saxenauts/persona LongMemEval list: [{question, type, <System>_ans, "
               "<System>_grade (1-5) or <System>_correct}]")
VERDICT_SUFFIXES = ("_grade", "_correct")
CORRECT_GRADE = 4


def question_id(text: str) -> str:
    """Stable LongMemEval query id from the question text.

    Examples
    --------
    >>> question_id("What degree did I graduate with?") == question_id("  what degree did  I graduate with? ")
    True
    >>> question_id("What degree did I graduate with?")
    'lme:f25879d9eca7'
    """
    normal = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text).casefold()).strip()
    return "lme:" + hashlib.sha1(normal.encode("utf-8")).hexdigest()[:12]


def _systems(record: dict) -> dict[str, str]:
    """System prefix -> its verdict key (``_grade`` preferred), for systems that also have ``_ans``."""
    systems = {}
    for key in record:
        for suffix in VERDICT_SUFFIXES:
            prefix = key.removesuffix(suffix)
            if key.endswith(suffix) and f"{prefix}_ans" in record and prefix not in systems:
                systems[prefix] = f"{prefix}_grade" if f"{prefix}_grade" in record else key
    return systems


def sniff(path: Path, content: object | None) -> bool:
    """A list of records with ``question`` and some ``<S>_ans`` + ``<S>_grade``/``_correct`` pair."""
    record = first_record(content)
    return record is not None and "question" in record and bool(_systems(record))


def _query_ids(records: list[dict], source: object) -> list[str]:
    """One id per record from its question text; two records with one id are an error."""
    seen: dict[str, int] = {}
    ids = []
    for number, record in enumerate(records, start=1):
        text = record.get("question")
        if not isinstance(text, str) or not text.strip():
            raise VerdictError(
                f"{where(source, number, 'question')}: no question text to identify the query. "
                "Fix the record."
            )
        qid = question_id(text)
        if qid in seen:
            raise VerdictError(
                f"{where(source, number, 'question')}: same question (id {qid}) as record {seen[qid]}; "
                "the file has no question ids, so the two cannot be told apart. Remove one."
            )
        seen[qid] = number
        ids.append(qid)
    return ids


def _system_frame(path: Path, records: list[dict], ids: list[str], prefix: str, key: str,
                  name: str) -> pd.DataFrame:
    """The rows of one system (verdict key ``key``), graded to 0/1 when ``key`` is a grade."""
    graded = key.endswith("_grade")
    frame = pd.DataFrame({
        "system": name,
        "query_id": ids,
        "score": [record.get(key) for record in records],
        "benchmark": "longmemeval",
        "category": [record.get("type", "unknown") for record in records],
        "latency_s": [record.get(f"{prefix}_latency") for record in records],
        "question": [record["question"] for record in records],
        "expected": [record.get("gold") for record in records],
        "response": [record.get(f"{prefix}_ans") for record in records],
        "source_record": np.arange(1, len(records) + 1),
    })
    if graded:
        frame["grade"] = frame["score"]
    frame = finish(frame, path, {"score": key, "grade": key, "latency_s": f"{prefix}_latency"})
    if graded:
        frame["score"] = np.where(frame["grade"].isna(), np.nan, frame["grade"] >= CORRECT_GRADE)
    return frame


def read(path: Path, content: object | None, *, system: str | None = None,
         fields: dict[str, str] | None = None) -> pd.DataFrame:
    """Read a persona LongMemEval file (one or several systems) into the canonical long schema.

    Parameters
    ----------
    path : Path
        The file (named in errors and ``source_file``).
    content : list of dict
        Its parsed JSON.
    system : str, optional
        New name for the file's only system; an error when it holds several.
    fields : dict, optional
        Unused (column mapping is the ``mapped`` layout's job).

    Returns
    -------
    DataFrame
        One row per (system, question): systems in key order, questions in file order.

    Raises
    ------
    VerdictError
        A record without question text, two records with the same question, ``system=`` on a
        multi-system file, or a grade/verdict that is not a number or verdict.
    """
    records = as_records(content, path)
    systems = _systems(records[0])
    names = single_system(list(systems), system, path)
    ids = _query_ids(records, path)
    return pd.concat([_system_frame(path, records, ids, prefix, key, names[prefix])
                      for prefix, key in systems.items()], ignore_index=True)
