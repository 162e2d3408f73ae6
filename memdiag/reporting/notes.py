"""The report's notes said once: which notes several tables share, which belong to one table
(ARCHITECTURE: ``report/``; SPEC §4.6).

Every result carries its notes (:class:`memdiag.core.notes.Note`: code, severity, concerns), and many
share them — the design reason, the scheme's exclusions, the category-naming convention. The
report prints each distinct note once: the notes of two tables or more in one "Notes" block at the
top with the number of tables they apply to, the notes of one table under that table; each group
warnings first, then cautions, then information. A note the policies already say is not repeated.
The files under ``tables/`` keep every note of their table (a table read alone needs them).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import pandas as pd

from memdiag.core.notes import SEVERITIES, Note, as_note, most_severe_first, with_code
from memdiag.errors import listing

#: The heading of each severity's group, most severe first.
HEADINGS: dict[str, str] = {"warning": "Warnings", "caution": "Cautions", "info": "Information"}


@dataclass(frozen=True)
class ReportNotes:
    """The notes of a report's tables, each said once.

    Attributes
    ----------
    shared
        ``(note, tables)`` for every note of two tables or more, most severe first.
    own
        Per table name, the notes of that table alone, most severe first.
    """

    shared: list[tuple[Note, int]] = field(default_factory=list)
    own: dict[str, list[Note]] = field(default_factory=dict)

    def grouped(self) -> list[tuple[str, list[tuple[Note, int]]]]:
        """The shared notes by severity: ``[(heading, [(note, tables), ...]), ...]``, warnings first,
        empty groups left out."""
        return [(HEADINGS[level], [(n, k) for n, k in self.shared if n.severity == level])
                for level in reversed(SEVERITIES) if any(n.severity == level for n, _ in self.shared)]


def report_notes(tables: Mapping[str, pd.DataFrame], said: Iterable[str] = ()) -> ReportNotes:
    """Split the notes of ``tables`` (name -> table, in report order) into those several tables share
    and those of one table; notes in ``said`` (the policies printed above) are left out.

    >>> a, b = pd.DataFrame(), pd.DataFrame()
    >>> a.attrs["notes"] = ["design iid", Note("x fails", severity="warning")]
    >>> b.attrs["notes"] = ["design iid", "ties split"]
    >>> out = report_notes({"a": a, "b": b})
    >>> out.shared, out.own
    ([('design iid', 2)], {'a': ['x fails'], 'b': ['ties split']})
    """
    said = set(map(str, said))
    per_table = {name: [n for n in dict.fromkeys(map(as_note, t.attrs.get("notes", []))) if str(n) not in said]
                 for name, t in tables.items()}
    counts = Counter(str(n) for notes in per_table.values() for n in notes)
    first: dict[str, Note] = {}
    for notes in per_table.values():
        for n in notes:
            first.setdefault(str(n), n)
    shared = [(n, counts[str(n)]) for n in most_severe_first(first.values()) if counts[str(n)] > 1]
    own = {name: most_severe_first(n for n in notes if counts[str(n)] == 1) for name, notes in per_table.items()}
    return ReportNotes(shared=shared, own=own)


def condensed(notes: Iterable[str]) -> list[Note]:
    """The validation notes with the per-(system, label) relabelling lines (code
    ``category-relabel``, four per LoCoMo run) as one line counting them, when there are more than
    three; ``memdiag validate --verbose`` prints them all.

    >>> lines = [Note(f"system 's{k}' labels 3 'a' queries as 'b' (the canonical category is used)",
    ...               code="category-relabel", concerns=(f"s{k}",)) for k in range(4)]
    >>> out = condensed(["x"] + lines)
    >>> len(out), out[1].code, out[1].concerns
    (2, 'category-relabels', ('s0', 's1', 's2', 's3'))
    """
    notes = [as_note(n) for n in notes]
    relabels = with_code(notes, "category-relabel")
    if len(relabels) <= 3:
        return notes
    line = Note(f"{len(relabels)} (system, label) pairs where a source's own category label names another category "
                f"(the canonical category is used; memdiag validate --verbose lists them): "
                + listing([n.removesuffix(" (the canonical category is used)") for n in relabels], 2),
                code="category-relabels", concerns=sorted({s for n in relabels for s in n.concerns}))
    return [n for n in notes if n.code != "category-relabel"] + [line]


def label(note: Note) -> str:
    """The prefix that marks a note's severity where notes of several severities are listed
    together (``"Warning: "``, ``"Caution: "``; nothing for information).

    >>> label(Note("x", severity="warning")), label(Note("y"))
    ('Warning: ', '')
    """
    return {"warning": "Warning: ", "caution": "Caution: "}.get(note.severity, "")


def applies(tables: int) -> str:
    """``"applies to 17 tables"``.

    >>> applies(2)
    'applies to 2 tables'
    """
    return f"applies to {tables} tables"


def without_notes(table: pd.DataFrame) -> pd.DataFrame:
    """A shallow copy of ``table`` whose notes are empty (the report prints them apart)."""
    out = table.copy(deep=False)
    out.attrs = {**table.attrs, "notes": []}
    return out
