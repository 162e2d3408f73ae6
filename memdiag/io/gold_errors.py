"""Reading a list of questions with wrong gold answers (SPEC §9.4): the LoCoMo audit's ``errors.json``,
or a CSV with ``query_id`` and an optional ``corrupting`` flag, through the strict readers.

The file is read by :func:`memdiag.io.strict.read_json` or :func:`memdiag.io.csv_text.read_csv`,
so it gets every guarantee of a verdict file (compression, caps, binary content and UTF-8 refused,
a key twice in a JSON object refused, a header line repeated refused). A CSV is read as text: ids
stay as written (``007`` is not ``7``), and ``corrupting`` must say yes or no in every row — an
empty or unknown cell is an error naming the file, the row and the field, never a guess (pandas'
``astype(bool)`` read ``no`` and ``false`` as true: every listed question counted as corrupted).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from memdiag.errors import VerdictError, where
from memdiag.io.csv_text import filled, flag, is_empty, read_csv
from memdiag.io.opening import logical_suffix
from memdiag.io.readers.locomo_audit import canonical_ids, locomo_questions
from memdiag.io.strict import read_json

__all__ = ["NOT_CORRUPTING", "read_gold_errors"]

#: Error types of the LoCoMo audit that do not change how an answer is scored.
NOT_CORRUPTING: tuple[str, ...] = ("WRONG_CITATION",)

#: What the file is called in messages.
WHAT = "gold-error file"

#: The optional columns kept from the file, after ``query_id, audit_id, error_type, corrupting``.
_KEPT: tuple[str, ...] = ("category", "golden_answer", "correct_answer")


def _from_csv(path: Path) -> tuple[pd.DataFrame, list[str]]:
    """The rows of a CSV list (text, as written) with ``audit_id``, ``error_type``, ``corrupting``."""
    table = read_csv(path, WHAT)
    records = [f"row {k}" for k in range(1, len(table) + 1)]
    if "query_id" not in table:
        raise VerdictError(f"{where(path, None, 'query_id')}: a CSV list of corrupted questions needs a 'query_id' "
                           f"column (have: {', '.join(map(str, table.columns))}).")
    filled(table, "query_id", path, "Give the id of every listed question.")
    out = table.assign(audit_id=table["query_id"])
    if "corrupting" in table:
        values = [flag(v) for v in table["corrupting"]]
        for record, value, cell in zip(records, values, table["corrupting"]):
            if value is None:
                said = "empty" if is_empty(cell) else f"{cell!r} is not true or false"
                raise VerdictError(f"{where(path, record, 'corrupting')}: {said}. Write true or false (yes/no, 1/0): "
                                   "true when the wrong gold answer changes how answers are scored, false when it "
                                   "does not (a wrong citation).")
        out["corrupting"] = pd.Series(values, index=table.index, dtype=bool)
    else:
        out["corrupting"] = True
    out["error_type"] = table["error_type"].fillna("listed") if "error_type" in table else "listed"
    return out, records


def _from_json(path: Path) -> tuple[pd.DataFrame, list[str]]:
    """The records of an ``errors.json`` list with ``audit_id``, ``error_type``, ``corrupting``."""
    records = read_json(path, WHAT)
    if not isinstance(records, list):
        raise VerdictError(f"{where(path)}: expected a list of error records (the LoCoMo audit's errors.json), got "
                           f"a JSON {type(records).__name__}.")
    if not records:
        raise VerdictError(f"{where(path)}: lists no question. Point memdiag at the list of wrong gold answers.")
    for i, rec in enumerate(records, start=1):
        if not isinstance(rec, dict) or "question_id" not in rec:
            raise VerdictError(f"{where(path, i, 'question_id')}: every record needs a question_id.")
        qid = rec["question_id"]
        if isinstance(qid, bool) or not isinstance(qid, str | int) or not str(qid).strip():
            raise VerdictError(f"{where(path, i, 'question_id')}: {qid!r} is not a question id. Write the id as "
                               "text (\"locomo_0_qa12\").")
    out = pd.DataFrame(records).rename(columns={"question_id": "audit_id"})
    out["audit_id"] = out["audit_id"].astype(str)
    out["error_type"] = out.get("error_type", pd.Series("listed", index=out.index)).fillna("listed").astype(str)
    out["corrupting"] = ~out["error_type"].isin(NOT_CORRUPTING)
    out["query_id"] = out["audit_id"]
    return out, [f"record {i}" for i in range(1, len(out) + 1)]


def read_gold_errors(path: str | Path, *, dataset: str | Path | None = None) -> pd.DataFrame:
    """An audit's list of questions with wrong gold answers (the LoCoMo audit's ``errors.json`` format).

    Parameters
    ----------
    path
        A JSON list of records with ``question_id`` and ``error_type`` (and optionally ``category``,
        ``golden_answer``, ``correct_answer``); or a CSV (``.csv``/``.tsv``, compressed or not) with
        ``query_id`` and an optional ``corrupting`` column saying in every row whether the wrong gold
        answer changes scoring: ``true``/``false``, ``yes``/``no`` or ``1``/``0`` (any case; without
        the column every listed question is corrupting).
    dataset
        The LoCoMo-10 dataset file: needed to map audit ids ``locomo_<c>_qa<p>`` to canonical ids
        (SPEC §1.7). None: the ids are used as they are.

    Returns
    -------
    pandas.DataFrame
        One row per listed question: ``query_id`` (canonical), ``audit_id`` (as written in the file),
        ``error_type``, ``corrupting`` (bool; in JSON False for error types that do not change
        scoring, :data:`NOT_CORRUPTING`), and ``category``, ``golden_answer``, ``correct_answer``
        where given. A CSV's cells are text as written (``007`` stays ``007``).

    Raises
    ------
    VerdictError
        A missing, empty, binary, non-UTF-8 or unparsable file; a key twice in a JSON record; a CSV
        header that names a column twice or is repeated as a row; a record without ``question_id``
        (a row without ``query_id``); a ``corrupting`` cell that is empty or not true/false; an id
        the dataset does not have; a question listed twice — naming the file, the row or record
        and the field.

    References
    ----------
    SPEC §9.4 (ceilings) and SPEC §1.7 (canonical ids).

    Examples
    --------
    >>> import tempfile, os
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "errors.json")
    >>> _ = open(path, "w").write('[{"question_id": "q1", "error_type": "HALLUCINATION"}, '
    ...                           '{"question_id": "q2", "error_type": "WRONG_CITATION"}]')
    >>> read_gold_errors(path)[["query_id", "corrupting"]].values.tolist()
    [['q1', True], ['q2', False]]
    >>> path = os.path.join(folder, "errors.csv")
    >>> _ = open(path, "w").write("query_id,corrupting\\n007,yes\\n012,No\\n")
    >>> read_gold_errors(path)[["query_id", "corrupting"]].values.tolist()
    [['007', True], ['012', False]]
    >>> _ = open(path, "w").write("query_id,corrupting\\n007,yes\\n012,\\n")
    >>> read_gold_errors(path)
    Traceback (most recent call last):
    ...
    memdiag.errors.VerdictError: ...errors.csv, row 2, field 'corrupting': empty. Write true or false (yes/no, 1/0): ...
    """
    path = Path(path)
    if logical_suffix(path) in (".csv", ".tsv"):
        out, records = _from_csv(path)
    else:
        out, records = _from_json(path)
    if dataset is not None:
        out["query_id"] = canonical_ids(out["audit_id"], locomo_questions(dataset), str(path))
    elif out["audit_id"].str.fullmatch(r"locomo_\d+_qa\d+").any():
        raise VerdictError(f"{where(path)}: the ids are the LoCoMo audit's ({out['audit_id'].iloc[0]}), which pair "
                           "with no verdicts; give the LoCoMo-10 dataset (dataset=, --dataset locomo10.json) to map "
                           "them to canonical ids.")
    dup = out["query_id"].duplicated().to_numpy()
    if dup.any():
        second = int(dup.argmax())
        first = int((out["query_id"] == out["query_id"].iloc[second]).to_numpy().argmax())
        raise VerdictError(f"{where(path, records[second], 'query_id')}: question {out['query_id'].iloc[second]!r} is "
                           f"listed twice (also {records[first]}). List each question once.")
    keep = ["query_id", "audit_id", "error_type", "corrupting", *(c for c in _KEPT if c in out)]
    return out[keep].reset_index(drop=True)
