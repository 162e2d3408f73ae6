"""Category naming conventions as data: which name each paper or release gives each integer
category of a benchmark (SPEC §6.2).

One job: read ``<benchmark>.yaml`` (package data beside this file; only LoCoMo has integer
categories with competing names) and answer the questions the rest of memdiag asks of it: the
integer of a canonical group (``multi-hop`` -> 1), the label a table prints ("1 (multi-hop)"),
the integer a published name stands for under a convention, the question count of each integer,
and which conventions a source's labels follow. No pandas here.

The same published LoCoMo table reads differently under each convention: Mem0's category scores
give the published overall 66.88 under Mem0's harness naming and 62.14 under the LoCoMo paper's
(:func:`memdiag.check_aggregate` searches them).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources

import yaml

from memdiag.core.notes import Note
from memdiag.errors import VerdictError

__all__ = ["Convention", "aliases", "benchmark_of", "canonical", "category_ids", "column_labels", "convention",
           "conventions", "counts", "identify", "in_order", "integer_of", "known_benchmarks", "labelled", "naming_note"]


def _key(label: object) -> str:
    """Matching key of a label: case, spaces and punctuation ignored ('Single_Hop' -> 'singlehop')."""
    return "".join(ch for ch in str(label).casefold() if ch.isalnum())


@dataclass(frozen=True)
class Convention:
    """One naming of a benchmark's integer categories.

    Attributes
    ----------
    name
        Short name (``locomo-paper``, ``mem0``, ...).
    benchmark
        The benchmark (``locomo``).
    names
        Integer -> the name this convention gives it.
    description
        Who uses it.
    sources
        Where it was read and what checks it (files, published numbers).
    """

    name: str
    benchmark: str
    names: Mapping[int, str]
    description: str
    sources: tuple[str, ...]

    def integer(self, label: object, aliases: Mapping[str, str] | None = None) -> int | None:
        """The integer a label names under this convention (case and punctuation ignored), or None.

        >>> convention("mem0").integer("Single_Hop"), convention("locomo-paper").integer("single hop")
        (1, 4)
        """
        key = _key(label)
        key = _key((aliases or {}).get(key, key))
        for integer, name in self.names.items():
            if _key(name) == key:
                return integer
        return None


@cache
def _load(benchmark: str) -> dict:
    item = resources.files("memdiag.panel.conventions") / f"{benchmark}.yaml"
    if not item.is_file():
        raise VerdictError(f"no category conventions for benchmark '{benchmark}' (known: "
                           f"{', '.join(known_benchmarks())}).")
    spec = yaml.safe_load(item.read_text(encoding="utf-8"))
    table = {name: Convention(name=name, benchmark=benchmark,
                              names={int(k): str(v) for k, v in entry["names"].items()},
                              description=entry["description"], sources=tuple(entry["sources"]))
             for name, entry in spec["conventions"].items()}
    return {"conventions": table, "canonical": spec["canonical"],
            "counts": {int(k): int(v) for k, v in spec["counts"].items()},
            "excluded": tuple(int(k) for k in spec.get("excluded", ())),
            "aliases": {_key(k): str(v) for k, v in (spec.get("aliases") or {}).items()}}


@cache
def known_benchmarks() -> tuple[str, ...]:
    """Benchmarks with integer categories whose names differ between sources.

    >>> known_benchmarks()
    ('locomo',)
    """
    folder = resources.files("memdiag.panel.conventions")
    return tuple(sorted(item.name.removesuffix(".yaml") for item in folder.iterdir()
                        if item.name.endswith(".yaml")))


def conventions(benchmark: str = "locomo") -> dict[str, Convention]:
    """Every convention of ``benchmark``, in file order.

    >>> list(conventions())[:3]
    ['dataset', 'locomo-paper', 'mem0']
    """
    return dict(_load(benchmark)["conventions"])


def convention(name: str, benchmark: str = "locomo") -> Convention:
    """One convention by name (case and punctuation ignored).

    Raises
    ------
    VerdictError
        An unknown name, listing the known ones.
    """
    table = _load(benchmark)["conventions"]
    for known, value in table.items():
        if _key(known) == _key(name):
            return value
    raise VerdictError(f"unknown {benchmark} category convention {name!r} (known: {', '.join(table)}).")


def canonical(benchmark: str = "locomo") -> Convention:
    """The convention memdiag's readers and schemes use (LoCoMo: the LoCoMo paper's names)."""
    return convention(_load(benchmark)["canonical"], benchmark)


def counts(benchmark: str = "locomo", *, scored: bool = False) -> dict[int, int]:
    """Questions per integer category; ``scored`` leaves out the categories the official score
    excludes (LoCoMo's adversarial 5).

    >>> counts(scored=True)
    {1: 282, 2: 321, 3: 96, 4: 841}
    """
    data = _load(benchmark)
    return {k: v for k, v in data["counts"].items() if not (scored and k in data["excluded"])}


def aliases(benchmark: str = "locomo") -> dict[str, str]:
    """Published spellings that name the same category (``temporal reasoning`` -> ``temporal``)."""
    return dict(_load(benchmark)["aliases"])


def integer_of(label: object, name: str, benchmark: str = "locomo") -> int | None:
    """The integer ``label`` stands for under convention ``name`` (None if it names none).

    >>> integer_of("Temporal Reasoning", "mem0"), integer_of("multi-hop", "mem0")
    (2, 3)
    """
    return convention(name, benchmark).integer(label, aliases(benchmark))


def category_ids(groups: Iterable[object], benchmark: str = "locomo") -> dict[str, int]:
    """The integer of each canonical group name that has one (others are left out).

    >>> category_ids(["multi-hop", "temporal", "other"])
    {'multi-hop': 1, 'temporal': 2}
    """
    found = {}
    for group in groups:
        integer = integer_of(group, _load(benchmark)["canonical"], benchmark)
        if integer is not None:
            found[str(group)] = integer
    return found


def in_order(groups: Iterable[object], benchmark: str | None) -> list[str]:
    """Groups in the benchmark's order: by their integer category, groups without one after them
    in the order given (all of them in that order without a benchmark) (SPEC §6.2).

    >>> in_order(["multi-hop", "open-domain", "single-hop", "temporal", "(none)"], "locomo")
    ['multi-hop', 'temporal', 'open-domain', 'single-hop', '(none)']
    >>> in_order(["b", "a"], None)
    ['b', 'a']
    """
    groups = [str(g) for g in groups]
    if benchmark is None:
        return groups
    ids = category_ids(groups, benchmark)
    return sorted(groups, key=lambda g: (g not in ids, ids.get(g, 0)))


def labelled(group: object, benchmark: str = "locomo") -> str:
    """A canonical group as tables print it: the integer, then the name ("1 (multi-hop)").

    >>> labelled("multi-hop"), labelled("something else")
    ('1 (multi-hop)', 'something else')
    """
    integer = category_ids([group], benchmark).get(str(group))
    return str(group) if integer is None else f"{integer} ({group})"


def benchmark_of(scheme: str | None, benchmarks: Iterable[object] = ()) -> str | None:
    """The benchmark with conventions an analysis is about: its scheme's name, else the one
    value of the data's ``benchmark`` column; None when neither names one.

    >>> benchmark_of("locomo"), benchmark_of(None, ["locomo", "locomo"]), benchmark_of("meme")
    ('locomo', 'locomo', None)
    """
    known = known_benchmarks()
    if scheme is not None and _key(scheme) in map(_key, known):
        return next(b for b in known if _key(b) == _key(scheme))
    values = {_key(v) for v in benchmarks if v is not None and v == v}
    if len(values) == 1:
        value = values.pop()
        return next((b for b in known if _key(b) == value), None)
    return None


def identify(pairs: Mapping[int, object], benchmark: str = "locomo") -> list[str]:
    """The conventions under which every ``integer -> label`` pair holds (the conventions a
    source's own labels follow), in file order.

    >>> identify({1: "single_hop", 3: "multi_hop"})
    ['mem0']
    >>> identify({1: "single-hop"})
    ['mem0', 'trpc-agent-go', 'memobase-zep-row']
    """
    table = aliases(benchmark)
    return [name for name, conv in conventions(benchmark).items()
            if all(conv.integer(label, table) == integer for integer, label in pairs.items())]


def column_labels(groups: Iterable[object], benchmark: str) -> dict[str, str]:
    """Header of each group column (and its ``n_`` count column) of a wide table, with the integer
    beside the canonical name (``multi-hop`` -> ``1 (multi-hop)``); groups without one are left out.

    >>> column_labels(["temporal", "x"], "locomo")
    {'temporal': '2 (temporal)', 'n_temporal': 'n 2 (temporal)'}
    """
    out = {}
    for group, integer in category_ids(groups, benchmark).items():
        out[group] = f"{integer} ({group})"
        out[f"n_{group}"] = f"n {integer} ({group})"
    return out


def naming_note(benchmark: str = "locomo") -> str:
    """One line saying how a benchmark's categories are shown and what the other sources call them.

    >>> print(naming_note())  # doctest: +NORMALIZE_WHITESPACE
    locomo categories are the dataset's integers, shown with the locomo-paper names (1 multi-hop,
    2 temporal, 3 open-domain, 4 single-hop); mem0: 1 single-hop, 2 temporal, 3 multi-hop,
    4 open-domain; trpc-agent-go: 1 single-hop, 2 multi-hop, 3 temporal, 4 open-domain; zep-papers:
    1 multi-hop, 2 open-domain, 3 temporal, 4 single-hop; memobase-zep-row: 1 single-hop, 2 multi-hop,
    3 open-domain, 4 temporal (SPEC §6.2)
    """
    scored = counts(benchmark, scored=True)
    main = canonical(benchmark)

    def names(conv: Convention) -> str:
        return ", ".join(f"{k} {conv.names[k]}" for k in scored)

    others = [f"{c.name}: {names(c)}" for c in conventions(benchmark).values()
              if c.name not in (main.name, "dataset")]
    return Note(f"{benchmark} categories are the dataset's integers, shown with the {main.name} names "
                f"({names(main)}); " + "; ".join(others) + " (SPEC §6.2)", code="category-naming")
