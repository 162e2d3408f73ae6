"""The lists of queries an option names: ``attribute --changed`` (a column, ``@FILE`` of query ids,
or ids) and ``robustness --filtered`` (a 0/1 column, or a CSV file of blocked answers)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from memdiag.cli.usage import UsageError
from memdiag.errors import VerdictError, listing, shown

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


def changed(value: str, after: pd.DataFrame) -> str | list[str]:
    """``--changed``: a 0/1 column of the after verdicts, ``@FILE`` (one query id a line), or ids
    separated by commas."""
    if value in after:
        return value
    if value.startswith("@"):
        text = Path(value[1:]).read_text(encoding="utf-8")
        return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return [item.strip() for item in value.split(",") if item.strip()]


def blocked_answers(path: str, systems: Sequence[str]) -> list[str] | dict[str, list[str]]:
    """The ``--filtered`` file: CSV with a header, one blocked answer a row — ``query_id`` and,
    optionally, ``system`` (empty: the query was blocked for every system); other columns are
    ignored. Query ids alone, or system -> query ids."""
    import csv

    with open(path, encoding="utf-8-sig", newline="") as fh:
        reader = csv.reader(fh)
        header = [name.strip() for name in next(reader, [])]
        if "query_id" not in header:
            raise VerdictError(f"{path}: no 'query_id' column (header: {', '.join(header) or 'empty'}). The "
                               "--filtered file is CSV with a header: query_id and optionally system, one blocked "
                               "answer a row.")
        rows = []
        for values in reader:
            if not any(v.strip() for v in values):
                continue
            row = dict(zip(header, (v.strip() for v in values)))
            query_id, system = row.get("query_id", ""), row.get("system", "")
            if not query_id:
                raise VerdictError(f"{path}, line {reader.line_num}, field 'query_id': empty. Give the query id "
                                   "of every blocked answer.")
            if system and system not in systems:
                raise VerdictError(f"{path}, line {reader.line_num}, field 'system': {system!r} is not a system of "
                                   f"the verdicts ({', '.join(systems)}). Fix the name, or leave it empty for "
                                   "every system.")
            rows.append((system, query_id))
    if not rows:
        raise VerdictError(f"{path}: lists no blocked answer (a header and no rows).")
    if "system" not in header:
        return [query_id for _, query_id in rows]
    blocked: dict[str, list[str]] = {}
    for system, query_id in rows:
        for name in [system] if system else systems:
            blocked.setdefault(name, []).append(query_id)
    return blocked


def filtered(value: str, df: pd.DataFrame) -> str | list[str] | dict[str, list[str]]:
    """``--filtered``: a 0/1 column of the verdicts (checked here), else a file (:func:`blocked_answers`)."""
    import pandas as pd

    if value in df:
        column = df[value]
        odd = (column.notna() & ~pd.to_numeric(column, errors="coerce").isin([0, 1])).to_numpy().nonzero()[0]
        if odd.size:
            raise VerdictError(f"--filtered {value}: record {odd[0] + 1} holds {shown(column.iloc[odd[0]])}, not 0 "
                               "or 1. Mark each blocked answer 1 and every other answer 0.")
        return value
    if not os.path.isfile(value):
        raise UsageError(f"--filtered {value!r} is neither a column of the verdicts ({listing(map(str, df.columns))}) "
                         "nor a file: give a 0/1 column, or a CSV file with query_id and optionally system")
    return blocked_answers(value, sorted(df["system"].unique()))
