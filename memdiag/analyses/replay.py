"""Per-query replay of the flows: which queries make up each cell — benefit, tax, both, neither —
with the question, the expected answer and each system's response where the release has them
(SPEC §2; the Memory Tax review calls per-query replays the central evidence).

:func:`replay` lists, for every system against the reference, each aligned query with its cell,
so that the benefit a system claims can be read query by query. :func:`write_replay` writes the
list as CSV (text cells that a spreadsheet would run as formulas are quoted,
:func:`memdiag.core.escape.csv_cell`) and JSON lines.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from memdiag.core.escape import csv_cell
from memdiag.core.kinds import declare
from memdiag.core.notes import Note
from memdiag.core.provenance import stamp
from memdiag.engine.pairs import CELLS, THRESHOLD, binarize, cell_codes
from memdiag.errors import VerdictError
from memdiag.io.outputs import write_file
from memdiag.io.schema import ANSWER_TEXT
from memdiag.panel.prepare import Prepared, as_prepared

#: The cells in the order a replay lists them: what a system adds and costs first.
ORDER: tuple[str, ...] = ("benefit", "tax", "both", "neither")
#: The files :func:`write_replay` writes into its folder.
FILES: tuple[str, ...] = ("replay.csv", "replay.jsonl")


def _texts(frame: pd.DataFrame, column: str) -> pd.Series:
    """The first non-empty ``column`` text per (system, query) of the verdict rows (repetitions of
    one answer share it)."""
    rows = frame[["system", "query_id", column]].dropna(subset=[column])
    return rows.groupby(["system", "query_id"], sort=False)[column].first()
def replay(
    data: pd.DataFrame | Prepared,
    reference: str | Iterable[str],
) -> pd.DataFrame:
    """Every aligned query of every system against the reference, with its flow cell (SPEC §2).

    Parameters
    ----------
    data
        :func:`memdiag.prepare` output, or canonical verdicts (prepared with the defaults); the
        scheme's query selection and the alignment policies are chosen there, as for
        :func:`memdiag.flows`: the same queries, the same systems (every prepared system but
        the reference) and the same correctness (the prepared threshold).
    reference
        The reference system, or several.

    Returns
    -------
    pandas.DataFrame
        One row per (reference, system, query), cells in the order benefit, tax, both, neither
        and queries in id order within a cell: ``reference, system, cell, query_id``, the query's
        ``cluster`` and ``category`` when the data have them, ``question`` and ``expected`` (the
        gold answer) when the release has them, ``score_reference`` and ``score_system`` (mean
        over judge repetitions), and ``response_reference`` / ``response_system`` (each system's
        answer) when the release has them. The cell counts are those of :func:`memdiag.flows`.

    Raises
    ------
    VerdictError
        A reference or system not in the data, no system to compare, bad verdicts, unpaired
        queries under ``missing="error"`` or an unknown policy.
    SchemeError
        An unknown scheme, or one that keeps no query of the data.

    References
    ----------
    SPEC §2 (benefit and tax flows; per-query replay) and SPEC §1.5 (the threshold); Memory Tax
    review (per-query replays as the central evidence of a benefit or a tax).

    Examples
    --------
    >>> df = pd.DataFrame({"system": ["rag"] * 4 + ["mem"] * 4, "query_id": list("abcd") * 2,
    ...                    "score": [1, 1, 0, 0, 1, 0, 1, 0]})
    >>> replay(df, "rag")[["system", "cell", "query_id", "score_reference", "score_system"]]
      system     cell query_id  score_reference  score_system
    0    mem  benefit        c              0.0           1.0
    1    mem      tax        b              1.0           0.0
    2    mem     both        a              1.0           1.0
    3    mem  neither        d              0.0           0.0
    """
    references = [reference] if isinstance(reference, str) else list(reference)
    prepared = as_prepared(data)
    threshold = prepared.threshold
    panel = prepared.panel
    correct = binarize(panel.scores, threshold)
    queries = panel.queries
    attributes = [c for c in ("cluster", "category") if c in queries]
    frame = prepared.frame
    question = (_texts(frame, "question").groupby(level="query_id").first() if "question" in frame else None)
    answers = {c: _texts(frame, c) for c in ANSWER_TEXT if c in frame}
    expected = answers["expected"].groupby(level="query_id").first() if "expected" in answers else None
    blocks = []
    for ref in references:
        r = panel.system_index(ref)
        names = [s for s in panel.systems if s != ref]
        if not names:
            raise VerdictError(f"no system to compare with the reference '{ref}': the data hold only "
                               f"{', '.join(panel.systems)}.")
        for name in names:
            s = panel.system_index(name)
            codes = cell_codes(correct[:, r], correct[:, s]).ravel()
            block = pd.DataFrame({"reference": ref, "system": name,
                                  "cell": np.array(CELLS, dtype=object)[codes], "query_id": panel.query_ids})
            for column in attributes:
                block[column] = queries[column].to_numpy()
            if question is not None:
                block["question"] = question.reindex(panel.query_ids).to_numpy()
            if expected is not None:
                block["expected"] = expected.reindex(panel.query_ids).to_numpy()
            block["score_reference"] = panel.scores[:, r]
            block["score_system"] = panel.scores[:, s]
            if "response" in answers:
                responses = answers["response"]
                for side, who in (("reference", ref), ("system", name)):
                    index = pd.MultiIndex.from_arrays([np.full(panel.n, who, dtype=object), panel.query_ids])
                    block[f"response_{side}"] = responses.reindex(index).to_numpy()
            block["_order"] = [ORDER.index(c) for c in block["cell"]]
            blocks.append(block.sort_values(["_order", "query_id"], kind="mergesort").drop(columns="_order"))
    out = pd.concat(blocks, ignore_index=True)
    counts = out.groupby(["reference", "system", "cell"], sort=False).size()
    notes = [Note(f"{ref} vs {name}: " + ", ".join(f"{cell} {int(counts.get((ref, name, cell), 0))}" for cell in ORDER),
                  code="replay-cells", concerns=(name,))
             for ref in references for name in pd.unique(out.loc[out["reference"] == ref, "system"])]
    lacking = [c for c in ("question", "expected", "response") if c not in frame]
    if lacking:
        notes.append(Note(f"the verdicts carry no {', '.join(lacking)} text: not in the replay", code="replay-no-text"))
    return stamp(out, "replay", prepared, resampled=False, notes=notes,
                 kinds=declare(fraction=("score_reference", "score_system")),
                 threshold=THRESHOLD if threshold is None else threshold)


def write_replay(table: pd.DataFrame, folder: str | Path) -> list[Path]:
    """Write a :func:`replay` table into ``folder`` as ``replay.csv`` and ``replay.jsonl``; returns
    the files. Text cells go through :func:`memdiag.core.escape.csv_cell` in the CSV (a question or
    answer starting with ``=`` is not a formula); the JSON lines hold the values as they are."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    csv_path, jsonl_path = folder / FILES[0], folder / FILES[1]
    safe = table.copy()
    for k in range(safe.shape[1]):
        column = safe.iloc[:, k]
        if not pd.api.types.is_numeric_dtype(column):  # each distinct text escaped once
            safe.isetitem(k, column.map({value: csv_cell(value) for value in pd.unique(column.dropna())}))
    safe.columns = [csv_cell(str(c)) for c in safe.columns]
    # each file whole or not at all (a temporary file renamed): full precision, as memdiag.tables writes CSV
    write_file(csv_path, safe.to_csv(index=False, lineterminator="\n"))
    columns = [str(c) for c in table.columns]
    values = [table[c].tolist() for c in table.columns]
    encode = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode  # json.dumps builds one per call
    lines = []
    for row in zip(*values):  # every number at full precision; NaN (no text, no score) as null
        record = {c: None if isinstance(v, float) and math.isnan(v) else v for c, v in zip(columns, row)}
        # U+2028 and U+2029 are valid inside a JSON string, but many line readers (str.splitlines,
        # JavaScript) take them for line breaks: escaped, each record stays on its one line
        text = encode(record)
        lines.append(text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029") + "\n")
    write_file(jsonl_path, "".join(lines))
    return [csv_path, jsonl_path]
