"""Files that list query ids: a plain list, one id a line (``memdiag attribute --changed @FILE``), and
a CSV of blocked answers (``memdiag robustness --filtered FILE``, SPEC §7.8), read strictly.

Both go through the strict readers (:func:`memdiag.io.opening.read_text`,
:func:`memdiag.io.csv_text.read_csv`): compression, caps, binary content and UTF-8 refused, naming the
file. Ids are text as written (``007`` stays ``007``, blanks around them dropped); an id listed twice,
a list without ids, a row without a query id and a system the verdicts do not have are errors
naming the file, the line or row and the field — never skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from memdiag.errors import VerdictError, listing, where
from memdiag.io.csv_text import read_csv, unique_header
from memdiag.io.opening import read_text

__all__ = ["read_blocked_answers", "read_id_list"]


def read_id_list(path: str | Path) -> list[str]:
    """The query ids of a list file: one id a line; blank lines and lines starting with ``#`` skipped.

    Parameters
    ----------
    path
        A text file (compressed or not), e.g. the ``@FILE`` of ``memdiag attribute --changed``.

    Returns
    -------
    list of str
        The ids in file order, as written (surrounding blanks dropped).

    Raises
    ------
    VerdictError
        A missing, binary, non-UTF-8 or over-large file; a file with no id; an id listed twice
        (naming both lines).

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "changed.txt"
    >>> _ = path.write_text("# queries whose input changed\\n007\\n\\n q12 \\n")
    >>> read_id_list(path)
    ['007', 'q12']
    >>> _ = path.write_text("007\\nq12\\n007\\n")
    >>> read_id_list(path)
    Traceback (most recent call last):
    ...
    memdiag.errors.VerdictError: ...changed.txt, line 3: query id '007' is listed twice (also line 1). List each query once.
    """
    path = Path(path)
    what = "list of query ids"
    seen: dict[str, int] = {}
    for number, line in enumerate(read_text(path, what).split("\n"), start=1):
        item = line.strip()
        if not item or item.startswith("#"):
            continue
        if item in seen:
            raise VerdictError(f"{where(path, f'line {number}')}: query id {item!r} is listed twice (also line "
                               f"{seen[item]}). List each query once.")
        seen[item] = number
    if not seen:
        raise VerdictError(f"{where(path)}: the {what} holds no query id. Write one query id a line.")
    return list(seen)


def read_blocked_answers(path: str | Path, systems: Sequence[str]) -> list[str] | dict[str, list[str]]:
    """The blocked answers of a content filter (SPEC §7.8): a CSV with a header, one blocked answer a
    row — ``query_id`` and, optionally, ``system`` (empty: the query was blocked for every system);
    other columns are ignored.

    Parameters
    ----------
    path
        The CSV file (compressed or not), e.g. the ``--filtered`` file of ``memdiag robustness``.
    systems
        The systems of the verdicts: a ``system`` cell must name one of them, and an empty one
        stands for all of them.

    Returns
    -------
    list of str or dict
        Without a ``system`` column, the blocked query ids in file order; with one, each system's
        blocked query ids (system -> ids, systems in the order met).

    Raises
    ------
    VerdictError
        A file the strict CSV reader refuses; no ``query_id`` column; a row without a query id; a
        system not among ``systems``; no row — naming the file, the row and the field.

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "blocked.csv"
    >>> _ = path.write_text("query_id,system,reason\\n007,mem,filter\\n012,,filter\\n")
    >>> read_blocked_answers(path, ["mem", "rag"])
    {'mem': ['007', '012'], 'rag': ['012']}
    >>> _ = path.write_text("query_id,system\\n007,zep\\n")
    >>> read_blocked_answers(path, ["mem", "rag"])
    Traceback (most recent call last):
    ...
    memdiag.errors.VerdictError: ...blocked.csv, row 1, field 'system': 'zep' is not a system of the verdicts (mem, rag). Fix the name, or leave it empty for every system.
    """
    path = Path(path)
    table = read_csv(path, "list of blocked answers")
    header = [str(name).strip() for name in table.columns]
    unique_header(header, path, "list of blocked answers")
    table.columns = header
    if "query_id" not in table:
        raise VerdictError(f"{where(path, None, 'query_id')}: no 'query_id' column (header: {', '.join(header)}). "
                           "The file of blocked answers is CSV with a header: query_id and optionally system, one "
                           "blocked answer a row.")
    rows: list[tuple[str, str]] = []
    for k, (query_id, system) in enumerate(zip(table["query_id"], table.get("system", [None] * len(table))),
                                          start=1):
        query_id = "" if not isinstance(query_id, str) else query_id.strip()
        system = "" if not isinstance(system, str) else system.strip()
        if not query_id:
            raise VerdictError(f"{where(path, f'row {k}', 'query_id')}: empty. Give the query id of every blocked "
                               "answer.")
        if system and system not in systems:
            raise VerdictError(f"{where(path, f'row {k}', 'system')}: {system!r} is not a system of the verdicts "
                               f"({listing(systems)}). Fix the name, or leave it empty for every system.")
        rows.append((system, query_id))
    if not rows:
        raise VerdictError(f"{where(path)}: lists no blocked answer (a header and no rows).")
    if "system" not in table:
        return [query_id for _, query_id in rows]
    blocked: dict[str, list[str]] = {}
    for system, query_id in rows:
        for name in [system] if system else systems:
            blocked.setdefault(name, []).append(query_id)
    return blocked
