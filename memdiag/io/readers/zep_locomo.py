"""Zep LoCoMo grades (getzep/zep-papers ``zep_locomo_grades.json``), with latencies when available.

Layout
------
``kg_architecture_agent_memory/locomo_eval/data/zep_locomo_grades.json``: a dict keyed
``locomo_experiment_user_0`` .. ``locomo_experiment_user_9`` (conversation index 0-9), each a list
of the conversation's non-adversarial questions in LoCoMo release order::

    {"question": "...", "answer": "<Zep-backed response>", "golden_answer": "7 May 2023",
     "grade": true, "category": 2}

The companion ``zep_locomo_responses.json`` has the same keys and order, with ``duration_ms``
instead of ``grade``.

Mapping
-------
``score`` = ``grade`` (bool; null -> NaN, row kept); ``category`` = canonical name of the LoCoMo
integer, ``source_category`` = the integer as text; ``query_id``, ``cluster``, ``benchmark`` by
:func:`memdiag.io.readers._locomo.align`; ``source_record`` = ``"<key>, item <n>"`` (n 1-based).
When the responses file sits beside the grades file (same name with ``grades`` replaced by
``responses``), ``latency_s`` = ``duration_ms`` / 1000, after checking that both files list the
same questions in the same order. The responses file alone has no verdicts: reading it is an error
that points to the grades file. ``question``, ``expected`` (``golden_answer``) and ``response``
(``answer``, Zep's) are kept as text for per-query replay.

Default system: the file stem (``zep_locomo_grades``).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from memdiag.errors import VerdictError, where
from memdiag.io.opening import stem
from memdiag.io.readers import _locomo
from memdiag.io.readers._common import finish
from memdiag.io.strict import read_json

NAME = "zep-locomo"
DESCRIPTION = ('Zep LoCoMo grades: '
               '{"locomo_experiment_user_0": [{question, answer, golden_answer, grade, category}], ...}')
PREFIX = "locomo_experiment_user_"


def sniff(path: Path, content: object | None) -> bool:
    """A dict whose keys are all ``locomo_experiment_user_<k>`` (grades or responses file)."""
    return isinstance(content, dict) and bool(content) and all(
        isinstance(key, str) and key.startswith(PREFIX) and key[len(PREFIX):].isdigit() for key in content
    )


def _items(content: dict, key: str, source: object) -> list:
    items = content[key]
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        raise VerdictError(f"{where(source, key)}: expected a list of question objects. Fix the file.")
    return items


def _latencies(path: Path, content: dict) -> dict[str, list] | None:
    """``duration_ms`` per key from the companion responses file, or None when it is absent."""
    companion = path.with_name(path.name.replace("grades", "responses"))
    if companion == path or not companion.is_file():
        return None
    responses = read_json(companion, "Zep responses file (beside the grades)")
    latencies = {}
    for key in content:
        present = isinstance(responses, dict) and key in responses
        items = _items(responses, key, companion) if present else None
        grades = content[key]
        if items is None or len(items) != len(grades) or any(
            a.get("question") != b.get("question") for a, b in zip(items, grades)
        ):
            raise VerdictError(
                f"{where(companion, key)}: does not list the same questions as {path.name}, so its "
                "latencies cannot be attached. Move it away to read the grades without latencies."
            )
        latencies[key] = [item.get("duration_ms") for item in items]
    return latencies


def read(path: Path, content: object | None, *, system: str | None = None,
         fields: dict[str, str] | None = None) -> pd.DataFrame:
    """Read a Zep LoCoMo grades file into the canonical long schema.

    Parameters
    ----------
    path : Path
        The grades file (named in errors and ``source_file``).
    content : dict
        Its parsed JSON.
    system : str, optional
        System name; default the file stem.
    fields : dict, optional
        Unused (column mapping is the ``mapped`` layout's job).

    Returns
    -------
    DataFrame
        One row per question, conversations in index order; ``latency_s`` when the responses
        file sits beside it.

    Raises
    ------
    VerdictError
        For the responses file (no grades), a companion file that does not match, a category
        that is not 1-5 or a grade that is not a verdict.
    """
    for key in content:
        _items(content, key, path)
    if not any("grade" in item for items in content.values() for item in items):
        raise VerdictError(
            f"{where(path)}: has no 'grade' in any question; this looks like the Zep responses file "
            "(answers and duration_ms only). Read the grades file (zep_locomo_grades.json) instead; "
            "latencies are attached from this file when it sits beside it."
        )
    latencies = _latencies(path, content)
    name = system or stem(path)
    rows = []
    for key in sorted(content, key=lambda k: int(k[len(PREFIX):])):
        index = _locomo.conversation(int(key[len(PREFIX):]), path, key)
        conversation = []
        for number, item in enumerate(content[key], start=1):
            record = f"{key}, item {number}"
            row = {
                "system": name,
                "score": item.get("grade"),
                "code": _locomo.category_code(item.get("category"), path, record),
                "source_category": str(item.get("category")),
                "question": item.get("question"),
                "expected": item.get("golden_answer"),
                "response": item.get("answer"),
                "source_record": record,
            }
            if latencies is not None:
                row["latency_s"] = latencies[key][number - 1]  # in ms until converted below
            conversation.append(row)
        rows += _locomo.align(index, conversation)
    frame = finish(pd.DataFrame(rows), path, {"score": "grade", "latency_s": "duration_ms"})
    if latencies is not None:
        frame["latency_s"] /= 1000
    return frame
