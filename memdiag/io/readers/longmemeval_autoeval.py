"""LongMemEval's own judged output (xiaowu0162/LongMemEval ``src/evaluation/evaluate_qa.py``).

Layout
------
``evaluate_qa.py <judge> <hyp_file> <ref_file>`` writes ``<hyp_file>.eval-results-<judge>``: JSONL,
one line per hypothesis, the hypothesis record with the judge's verdict added::

    {"question_id": "gpt4_2655b836", "hypothesis": "...",
     "autoeval_label": {"model": "gpt-4o-2024-08-06", "label": true}}

Abstention questions have ids ending in ``_abs``. The question type lives in the reference file,
not here; it is read only when the hypothesis records carry ``question_type``.

Mapping
-------
``query_id`` = ``question_id``; ``score`` = ``autoeval_label.label`` (bool; a missing label or
null -> NaN, row kept); ``benchmark`` = ``"longmemeval"``; ``category`` = ``question_type`` when
present; ``response`` = ``hypothesis`` (the system's answer, for per-query replay) when present;
``source_record`` = the 1-based line number.

Default system: the file name without the ``.eval-results-<judge>`` suffix and without a
``.jsonl``/``.json`` extension (``my_run.jsonl.eval-results-gpt-4o`` -> ``my_run``).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from memdiag.io.readers._common import as_records, finish, first_record

NAME = "longmemeval-autoeval"
DESCRIPTION = ("LongMemEval evaluate_qa.py output (JSONL): {question_id, hypothesis, "
               "autoeval_label: {model, label}}")
SUFFIX = re.compile(r"\.eval-results-.*$")


def default_system(path: Path) -> str:
    """The run name in a LongMemEval result file name.

    Examples
    --------
    >>> default_system(Path("out/my_run.jsonl.eval-results-gpt-4o"))
    'my_run'
    >>> default_system(Path("my_run.eval-results-llama-3.1-70b-instruct.jsonl"))
    'my_run'
    """
    name = SUFFIX.sub("", path.name)
    return re.sub(r"\.(jsonl|json)$", "", name)


def sniff(path: Path, content: object | None) -> bool:
    """A list of records whose first has ``question_id`` and an ``autoeval_label`` object."""
    record = first_record(content)
    return record is not None and "question_id" in record and isinstance(record.get("autoeval_label"), dict)


def read(path: Path, content: object | None, *, system: str | None = None,
         fields: dict[str, str] | None = None) -> pd.DataFrame:
    """Read a LongMemEval ``.eval-results-<judge>`` file into the canonical long schema.

    Parameters
    ----------
    path : Path
        The file (named in errors and ``source_file``).
    content : list of dict
        Its parsed JSONL (or JSON list).
    system : str, optional
        System name; default from the file name (:func:`default_system`).
    fields : dict, optional
        Unused (column mapping is the ``mapped`` layout's job).

    Returns
    -------
    DataFrame
        One row per line, in file order.

    Raises
    ------
    VerdictError
        A line that is not an object, a line without a question id, or a label that is not a
        verdict.
    """
    records = as_records(content, path)
    labels = [r.get("autoeval_label") if isinstance(r.get("autoeval_label"), dict) else {} for r in records]
    frame = pd.DataFrame({
        "system": system or default_system(path),
        "query_id": [r.get("question_id") for r in records],
        "score": [label.get("label") for label in labels],
        "benchmark": "longmemeval",
        "source_record": np.arange(1, len(records) + 1),
    })
    if any("question_type" in r for r in records):
        frame["category"] = [r.get("question_type") for r in records]
    if any("hypothesis" in r for r in records):
        frame["response"] = [r.get("hypothesis") for r in records]
    return finish(frame, path, {"query_id": "question_id", "score": "autoeval_label.label",
                                "category": "question_type"})
