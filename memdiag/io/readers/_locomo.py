"""LoCoMo-10 alignment shared by the LoCoMo readers (mem0/Memobase, Zep, Backboard, trpc-agent-go).

Every LoCoMo release lists the questions of each conversation in the same (release) order; some
drop the adversarial category 5. Question texts repeat inside a conversation (conv-48 has 11
duplicated texts), so queries are identified by position, never by text:
``query_id = locomo_query_id(conversation, position)`` where position counts the non-adversarial
questions of the conversation (adversarial ones are counted separately, ``adv000``...).
``category`` is the canonical name of the LoCoMo integer (:data:`memdiag.io.schema.LOCOMO_CATEGORIES`);
the source's own label is kept as ``source_category``.
"""

from __future__ import annotations

from memdiag.errors import VerdictError, where
from memdiag.io.schema import LOCOMO_CATEGORIES, LOCOMO_CONVERSATIONS, locomo_query_id

ADVERSARIAL = 5


def conversation(index: int, source: object, record: object = None) -> int:
    """Check a 0-based LoCoMo-10 conversation index (0-9) and return it."""
    if not 0 <= index < len(LOCOMO_CONVERSATIONS):
        raise VerdictError(
            f"{where(source, record)}: conversation index {index} is outside LoCoMo-10 (0-9). "
            "Is this a LoCoMo-10 result file?"
        )
    return index


def category_code(value: object, source: object, record: object, field: str = "category") -> int:
    """The LoCoMo category integer 1-5 of a cell holding an int or a digit string.

    Examples
    --------
    >>> category_code("2", "f.json", 1), category_code(4, "f.json", 2)
    (2, 4)
    """
    if isinstance(value, int | str) and not isinstance(value, bool) and str(value).strip().isdigit():
        code = int(value)
        if code in LOCOMO_CATEGORIES:
            return code
    raise VerdictError(
        f"{where(source, record, field)}: {value!r} is not a LoCoMo category (1-5). Fix the record."
    )


def align(index: int, rows: list[dict]) -> list[dict]:
    """Add ``query_id``, ``benchmark``, ``cluster`` and ``category`` to one conversation's rows.

    Parameters
    ----------
    index : int
        Conversation index 0-9 (:data:`memdiag.io.schema.LOCOMO_CONVERSATIONS`).
    rows : list of dict
        The conversation's questions in release order, each with the integer ``code`` (1-5),
        which is replaced by the canonical ``category`` name.

    Examples
    --------
    >>> [r["query_id"] for r in align(7, [{"code": 2}, {"code": 5}, {"code": 4}])]
    ['locomo:conv-48:000', 'locomo:conv-48:adv000', 'locomo:conv-48:001']
    """
    positions = {False: 0, True: 0}
    for row in rows:
        code = row.pop("code")
        adversarial = code == ADVERSARIAL
        row["query_id"] = locomo_query_id(index, positions[adversarial], adversarial=adversarial)
        row["benchmark"] = "locomo"
        row["cluster"] = LOCOMO_CONVERSATIONS[index]
        row["category"] = LOCOMO_CATEGORIES[code]
        positions[adversarial] += 1
    return rows
