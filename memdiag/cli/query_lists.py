"""The lists of queries an option names: ``attribute --changed`` (a column, ``@FILE`` of query ids,
or ids) and ``robustness --filtered`` (a 0/1 column, or a CSV file of blocked answers)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from memdiag.cli.usage import UsageError
from memdiag.errors import VerdictError, listing, shown
from memdiag.io.query_lists import read_blocked_answers, read_id_list

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


def changed(value: str, after: pd.DataFrame) -> str | list[str]:
    """``--changed``: a 0/1 column of the after verdicts, ``@FILE`` (one query id a line), or ids
    separated by commas."""
    if value in after:
        return value
    if value.startswith("@"):
        return read_id_list(value[1:])
    return [item.strip() for item in value.split(",") if item.strip()]


def filtered(value: str, df: pd.DataFrame) -> str | list[str] | dict[str, list[str]]:
    """``--filtered``: a 0/1 column of the verdicts (checked here), else a file (:func:`memdiag.io.query_lists.read_blocked_answers`)."""
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
    return read_blocked_answers(value, sorted(df["system"].unique()))
