"""Backboard LoCoMo results, one file per conversation (Backboard-io/Backboard-Locomo-Benchmark).

Layout
------
``locomo_conversation_<k>.json`` (k = 1..10, conversation index k-1)::

    {"conversation_id": "conv-26", "total": 152, "evaluated_count": 152, "correct_count": 144,
     "accuracy_percentage": 94.74, "by_type": {...},
     "responses": [{"conversation_id": "conv-26", "question_type": "temporal_reasoning",
                    "category": 2, "question": "...", "expected_answer": "...", "ai_response": "...",
                    "evaluation": {"is_correct": true, "reasoning": "...", "error": null}}]}

``by_type`` repeats the same responses grouped by type; only the top-level ``responses`` are read.

Mapping
-------
``score`` = ``evaluation.is_correct``; NaN (row kept, counted later) when ``evaluation.error`` is
not null or ``is_correct`` is null. ``category`` = canonical name of the LoCoMo integer,
``source_category`` = ``question_type`` (Backboard's label); ``query_id``, ``cluster``,
``benchmark`` by :func:`memdiag.io.readers._locomo.align`, the conversation index coming from the
file name (k-1) and checked against ``conversation_id`` (or from ``conversation_id`` alone when the
file was renamed); ``source_record`` = ``"responses item <n>"`` (n 1-based). ``question``,
``expected`` (``expected_answer``) and ``response`` (``ai_response``) are kept as text for
per-query replay.

Default system: the name of the folder holding the file.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from memdiag.errors import VerdictError, where
from memdiag.io.readers import _locomo
from memdiag.io.readers._common import finish
from memdiag.io.schema import LOCOMO_CONVERSATIONS

NAME = "backboard-locomo"
DESCRIPTION = ("Backboard LoCoMo conversation file: {conversation_id, total, by_type, "
               "responses: [{question_type, category, question, evaluation: {is_correct, error}}]}")
FILE_NAME = re.compile(r"locomo_conversation_(\d+)$")
#: One run is released as one file per conversation: files of one folder are parts of one system.
PARTS = "conversation"


def sniff(path: Path, content: object | None) -> bool:
    """A dict with ``conversation_id`` and a ``responses`` list whose first item has ``evaluation``."""
    if not isinstance(content, dict) or "conversation_id" not in content:
        return False
    responses = content.get("responses")
    return isinstance(responses, list) and bool(responses) and isinstance(responses[0], dict) and \
        isinstance(responses[0].get("evaluation"), dict)


def _conversation_index(path: Path, content: dict) -> int:
    """Conversation index from the file name, checked against ``conversation_id``."""
    named = content.get("conversation_id")
    match = FILE_NAME.match(path.stem)
    if match:
        index = _locomo.conversation(int(match.group(1)) - 1, path)
        if named is not None and named != LOCOMO_CONVERSATIONS[index]:
            raise VerdictError(
                f"{where(path, field='conversation_id')}: {named!r}, but the file name says "
                f"conversation {match.group(1)} = {LOCOMO_CONVERSATIONS[index]}. Rename the file."
            )
        return index
    if named in LOCOMO_CONVERSATIONS:
        return LOCOMO_CONVERSATIONS.index(named)
    raise VerdictError(
        f"{where(path, field='conversation_id')}: {named!r} is not a LoCoMo-10 conversation and the "
        "file name is not locomo_conversation_<k>.json. Name the file after its conversation."
    )


def _verdict(evaluation: object) -> object:
    """``is_correct`` unless the evaluation failed (error set) or is missing: then None (NaN)."""
    if not isinstance(evaluation, dict) or evaluation.get("error") is not None:
        return None
    return evaluation.get("is_correct")


def read(path: Path, content: object | None, *, system: str | None = None,
         fields: dict[str, str] | None = None) -> pd.DataFrame:
    """Read one Backboard conversation file into the canonical long schema.

    Parameters
    ----------
    path : Path
        The file ``locomo_conversation_<k>.json`` (named in errors and ``source_file``).
    content : dict
        Its parsed JSON.
    system : str, optional
        System name; default the folder name.
    fields : dict, optional
        Unused (column mapping is the ``mapped`` layout's job).

    Returns
    -------
    DataFrame
        One row per response, in file order.

    Raises
    ------
    VerdictError
        A file name and ``conversation_id`` that disagree, a response that is not an object, a
        category that is not 1-5 or an ``is_correct`` that is not a verdict.
    """
    index = _conversation_index(path, content)
    name = system or path.resolve().parent.name
    rows = []
    for number, item in enumerate(content["responses"], start=1):
        record = f"responses item {number}"
        if not isinstance(item, dict):
            raise VerdictError(f"{where(path, record)}: expected a JSON object, got {item!r:.60}.")
        rows.append({
            "system": name,
            "score": _verdict(item.get("evaluation")),
            "code": _locomo.category_code(item.get("category"), path, record),
            "source_category": item.get("question_type"),
            "question": item.get("question"),
            "expected": item.get("expected_answer"),
            "response": item.get("ai_response"),
            "source_record": record,
        })
    return finish(pd.DataFrame(_locomo.align(index, rows)), path, {"score": "evaluation.is_correct"})
