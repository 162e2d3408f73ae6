"""mem0-evaluation LoCoMo scores (also Memobase's fork): ``{"0": [...], ..., "9": [...]}``.

Layout
------
The ``evaluation_metrics``-style JSON written by mem0's ``evaluation/evals.py`` and by the fork in
memodb-io/memobase (``docs/experiments/locomo-benchmark/fixture/memobase/memobase_eval_*.json``):
a dict keyed by the conversation index ``"0"``..``"9"`` (key order in the file is not sorted), each
a list of the conversation's questions in LoCoMo release order::

    {"question": "...", "answer": "<gold>", "response": "<system answer>", "category": "2",
     "bleu_score": 0.72, "f1_score": 1.0, "llm_score": 1}

Mapping
-------
``score`` = ``llm_score`` (the binary LLM judge; null -> NaN, row kept); ``f1`` = ``f1_score``,
``bleu`` = ``bleu_score``; ``category`` = canonical name of the LoCoMo integer in ``category``
(an int or a digit string; Memobase's own labels 1 single_hop, 2 temporal, 3 multi_hop,
4 open_domain are not used), ``source_category`` = the raw value as text; ``query_id``,
``cluster``, ``benchmark`` by :func:`memdiag.io.readers._locomo.align`; ``source_record`` =
``"conversation <key>, item <n>"`` (n 1-based). ``question``, ``expected`` (``answer``, the gold
answer) and ``response`` are kept as text for per-query replay.

Default system: the file stem (``memobase_eval_0710_3000``).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from memdiag.errors import VerdictError, where
from memdiag.io.opening import stem
from memdiag.io.readers import _locomo
from memdiag.io.readers._common import finish

NAME = "mem0-locomo"
DESCRIPTION = ('mem0-evaluation / Memobase LoCoMo scores: '
               '{"0": [{question, category, llm_score, f1_score, bleu_score}], ...}')


def sniff(path: Path, content: object | None) -> bool:
    """A dict keyed by digit strings whose first list item has ``question`` and ``llm_score``."""
    if not isinstance(content, dict) or not content:
        return False
    if not all(isinstance(key, str) and key.isdigit() for key in content):
        return False
    first = next(iter(content.values()))
    return isinstance(first, list) and bool(first) and isinstance(first[0], dict) and {
        "question", "llm_score"} <= first[0].keys()


def read(path: Path, content: object | None, *, system: str | None = None,
         fields: dict[str, str] | None = None) -> pd.DataFrame:
    """Read a mem0/Memobase LoCoMo score file into the canonical long schema.

    Parameters
    ----------
    path : Path
        The file (named in errors and ``source_file``).
    content : dict
        Its parsed JSON.
    system : str, optional
        System name; default the file stem.
    fields : dict, optional
        Unused (column mapping is the ``mapped`` layout's job).

    Returns
    -------
    DataFrame
        One row per question, conversations in index order.

    Raises
    ------
    VerdictError
        A key that is not a conversation index 0-9, an item that is not an object, a category
        that is not 1-5 or a score that is not a verdict.
    """
    name = system or stem(path)
    rows = []
    for key in sorted(content, key=int):
        index = _locomo.conversation(int(key), path, f"conversation {key}")
        if not isinstance(content[key], list):
            raise VerdictError(f"{where(path, f'conversation {key}')}: expected a list of questions.")
        conversation = []
        for number, item in enumerate(content[key], start=1):
            record = f"conversation {key}, item {number}"
            if not isinstance(item, dict):
                raise VerdictError(f"{where(path, record)}: expected a JSON object, got {item!r:.60}.")
            conversation.append({
                "system": name,
                "score": item.get("llm_score"),
                "code": _locomo.category_code(item.get("category"), path, record),
                "source_category": str(item.get("category")),
                "f1": item.get("f1_score"),
                "bleu": item.get("bleu_score"),
                "question": item.get("question"),
                "expected": item.get("answer"),
                "response": item.get("response"),
                "source_record": record,
            })
        rows += _locomo.align(index, conversation)
    return finish(pd.DataFrame(rows), path, {"score": "llm_score", "f1": "f1_score", "bleu": "bleu_score"})
