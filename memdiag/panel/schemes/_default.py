"""The scheme data imply when none is named: LoCoMo rows use the LoCoMo scheme (issue 19, item 5).

A newcomer who reads LoCoMo releases and runs ``memdiag score`` expects LoCoMo's official
numbers: the adversarial questions excluded and the categories named as the benchmark names
them. Rows say they are LoCoMo when every row's ``benchmark`` is ``locomo`` or every query id is
a canonical LoCoMo id (``locomo:conv-26:000``, :func:`memdiag.io.schema.locomo_query_id`). Mixed
or other data imply no scheme. The command line applies it and says so in a note; naming a
scheme (``--scheme mean`` keeps every query) overrides it.
"""

from __future__ import annotations

import pandas as pd

from memdiag.core.notes import Note

#: The prefix of canonical LoCoMo query ids.
LOCOMO_ID = "locomo:"


def implied_scheme(df: pd.DataFrame) -> tuple[str | None, Note | None]:
    """The built-in scheme the rows imply and the note that says why, or ``(None, None)``.

    >>> df = pd.DataFrame({"system": ["a"], "query_id": ["locomo:conv-26:000"], "score": [1.0]})
    >>> name, note = implied_scheme(df)
    >>> name, note.code
    ('locomo', 'scheme-implied')
    >>> implied_scheme(df.assign(query_id="q1"))
    (None, None)
    """
    if len(df) == 0:
        return None, None
    why = None
    if "benchmark" in df:
        benchmark = df["benchmark"].astype("string").str.lower()
        if benchmark.notna().all() and (benchmark == "locomo").all():
            why = "every row's benchmark is locomo"
    if why is None and df["query_id"].astype(str).str.startswith(LOCOMO_ID).all():
        why = f"every query id is a canonical LoCoMo id ({LOCOMO_ID}...)"
    if why is None:
        return None, None
    return "locomo", Note(f"scheme locomo applied because {why}: the adversarial questions are excluded and the "
                          "official aggregation is used (name another with --scheme; --scheme mean keeps every "
                          "query)", code="scheme-implied")
