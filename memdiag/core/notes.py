"""Notes as records: a line a reader must see, with a code, a severity and what it concerns.

A :class:`Note` is a ``str`` (so every table, report and JSON file that prints notes keeps working)
that also carries

- ``code``: a stable identifier code reads instead of the prose (``"cluster-missing"``,
  ``"reference-fails-clusters"``, ...); rewording a note never changes its code;
- ``severity``: ``"info"`` (how a number was made), ``"caution"`` (a number may mislead: read it
  with the note) or ``"warning"`` (a conclusion is at risk);
- ``concerns``: the systems, groups or queries it is about (a tuple of strings, possibly empty).

Code that needs to know whether a note is present asks for its code (:func:`with_code`), never
matches its text. A plain ``str`` passed where a note is expected is an ``info`` note with the
code ``"note"`` (:func:`as_note`).
"""

from __future__ import annotations

from collections.abc import Iterable

#: The severities, least to most severe.
SEVERITIES: tuple[str, ...] = ("info", "caution", "warning")


class Note(str):
    """A note: its text (the ``str`` value), ``code``, ``severity`` and ``concerns``.

    >>> n = Note("the reference fails 5 of 10 conversations", code="reference-fails-clusters",
    ...          severity="warning", concerns=("raw-rag",))
    >>> n, n.code, n.severity, n.concerns
    ('the reference fails 5 of 10 conversations', 'reference-fails-clusters', 'warning', ('raw-rag',))
    >>> n == "the reference fails 5 of 10 conversations"
    True
    """

    __slots__ = ("code", "severity", "concerns")

    def __new__(cls, text: str, *, code: str = "note", severity: str = "info",
                concerns: Iterable[str] = ()) -> Note:
        if severity not in SEVERITIES:
            raise ValueError(f"a note's severity is one of {', '.join(SEVERITIES)}, not {severity!r}")
        note = super().__new__(cls, text)
        note.code = str(code)
        note.severity = severity
        note.concerns = tuple(str(c) for c in concerns)
        return note

    def __reduce__(self) -> tuple:
        return (_rebuild, (str(self), self.code, self.severity, self.concerns))

    def record(self) -> dict:
        """The note as a JSON-ready record.

        >>> Note("B = 2,000", code="resamples").record()
        {'code': 'resamples', 'severity': 'info', 'concerns': [], 'text': 'B = 2,000'}
        """
        return {"code": self.code, "severity": self.severity, "concerns": list(self.concerns), "text": str(self)}


def _rebuild(text: str, code: str, severity: str, concerns: tuple[str, ...]) -> Note:
    return Note(text, code=code, severity=severity, concerns=concerns)


def from_record(record: object) -> Note:
    """The :class:`Note` of a record :meth:`Note.record` wrote (a plain string, as 0.3 recorded
    notes, is an ``info`` note with code ``"note"``).

    >>> n = from_record({"code": "files-skipped", "severity": "caution", "concerns": [], "text": "1 file skipped"})
    >>> n, n.code, n.severity
    ('1 file skipped', 'files-skipped', 'caution')

    Raises
    ------
    ValueError
        A record that is neither a string nor an object with a text, a code, a severity of
        :data:`SEVERITIES` and a list of concerned names.
    """
    if isinstance(record, str):
        return as_note(record)
    if not (isinstance(record, dict) and set(record) == {"code", "severity", "concerns", "text"}
            and all(isinstance(record[k], str) for k in ("code", "severity", "text"))
            and isinstance(record["concerns"], list) and all(isinstance(c, str) for c in record["concerns"])):
        raise ValueError("a note is a string or an object with text, code, severity and concerns (a list of "
                         f"names), not {str(record)[:80]!r}")
    return Note(record["text"], code=record["code"], severity=record["severity"], concerns=record["concerns"])


def as_note(line: str) -> Note:
    """``line`` as a :class:`Note` (a plain string becomes an ``info`` note with code ``"note"``).

    >>> as_note("plain").severity
    'info'
    """
    return line if isinstance(line, Note) else Note(str(line))


def with_code(notes: Iterable[str], code: str) -> list[Note]:
    """The notes of ``notes`` whose code is ``code``.

    >>> with_code(["x", Note("y", code="k")], "k")
    ['y']
    """
    return [n for n in map(as_note, notes) if n.code == code]


def most_severe_first(notes: Iterable[str]) -> list[Note]:
    """The distinct notes, warnings first, then cautions, then the rest, each group in order.

    >>> most_severe_first(["a", Note("b", severity="warning"), "a"])
    ['b', 'a']
    """
    distinct = list(dict.fromkeys(map(as_note, notes)))
    return sorted(distinct, key=lambda n: -SEVERITIES.index(n.severity))


def prefixed(prefix: str, note: str) -> Note:
    """``note`` with ``prefix`` before its text, keeping its code, severity and concerns (a note of
    one group of a ``by=`` table: ``"category temporal: ..."``).

    >>> n = prefixed("by category: ", Note("x", code="k", severity="caution"))
    >>> n, n.code, n.severity
    ('by category: x', 'k', 'caution')
    """
    note = as_note(note)
    return Note(prefix + str(note), code=note.code, severity=note.severity, concerns=note.concerns)


def shown(notes: Iterable[str], quiet: bool = False) -> list[Note]:
    """The notes a reader is shown: each distinct note once, warnings first, then cautions, then
    information; ``quiet`` keeps only the warnings.

    >>> shown(["a", Note("b", severity="warning"), "a"], quiet=True)
    ['b']
    """
    ordered = most_severe_first(notes)
    return [n for n in ordered if n.severity == "warning"] if quiet else ordered
