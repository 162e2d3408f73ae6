"""System labels for figures: the user's aliases, else a readable shortening that keeps names apart.

Released runs are named after files and repositories (``Backboard-io__Backboard-Locomo-Benchmark``,
``memobase_eval_0503_3000``, ``agentic_pgvector_history300``). A figure draws each system under a
*label*:

1. an alias the user gave (the ``labels=`` argument of every plot function, else the result
   frame's ``attrs["labels"]``) is used as it is;
2. a name of at most :data:`LABEL_CHARS` characters is drawn in full;
3. a longer name is shortened, one step at a time and only while it is still too long: drop a
   GitHub ``owner__`` prefix; drop words that name the benchmark or the file rather than the
   system (:data:`FILLER`: ``locomo``, ``benchmark``, ``eval``, ...); drop the words a system
   shares with every *sibling* (the other systems whose first word is the same), marking each
   dropped run with ``…``; a single word with no separator is cut in the middle. Words are never
   cut while the name has separators, the first word is always kept, and a word that tells a
   system from a sibling (``0503`` vs ``0710``, ``pgvector`` vs ``mysql``) is never dropped —
   so a name whose every word matters stays long and the layout makes room for it;
4. labels that still coincide fall back to the full names.

So ``Backboard-io__Backboard-Locomo-Benchmark`` becomes ``Backboard``. Figures list every
shortened name with its full name in a key (:func:`name_key`), so a caption can give both.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache

from memdiag.core.escape import one_line

#: Names up to this many characters are drawn in full.
LABEL_CHARS = 24
#: Words that name the benchmark, the evaluation or the file rather than the system.
FILLER = frozenset({"benchmark", "bench", "eval", "evals", "evaluation", "locomo", "longmemeval",
                    "results", "result", "grades", "output", "outputs", "run", "json"})
#: A word separator: underscore, hyphen, dot, slash or space.
_SEPARATOR = re.compile(r"[_\-./ ]+")
ELLIPSIS = "\u2026"


def _words(name: str) -> tuple[list[str], list[str]]:
    """The words of ``name`` and the separators before each (``""`` before the first)."""
    parts = _SEPARATOR.split(name)
    seps = [""] + _SEPARATOR.findall(name)
    pairs = [(w, s) for w, s in zip(parts, seps) if w]
    if not pairs:
        return [name], [""]
    words, separators = map(list, zip(*pairs))
    separators[0] = ""
    return words, separators


def _join(words: list[str], separators: list[str], keep: Iterable[int]) -> str:
    """The kept words with their separators; ``…`` wherever a run of words was dropped."""
    keep = sorted(set(keep))
    out = ""
    for position, i in enumerate(keep):
        if position == 0:
            out = words[i]
        elif i == keep[position - 1] + 1:
            out += separators[i] + words[i]
        else:
            out += ELLIPSIS + words[i]
    if keep[-1] < len(words) - 1:
        out += ELLIPSIS
    return out


def _tidy(name: str, limit: int) -> str:
    """Drop the ``owner__`` prefix, then filler words, each only while ``name`` is too long."""
    if len(name) > limit and "__" in name and name.rsplit("__", 1)[1]:
        name = name.rsplit("__", 1)[1]
    if len(name) > limit:
        words, separators = _words(name)
        keep = [i for i, w in enumerate(words) if w.lower() not in FILLER]
        if keep and len(keep) < len(words):
            name = words[keep[0]] + "".join(separators[i] + words[i] for i in keep[1:])
    return name


def _shorten(name: str, siblings: list[list[str]], limit: int) -> str:
    """``name`` (already tidied) cut to ``limit`` characters at word boundaries (rules above)."""
    if len(name) <= limit:
        return name
    words, separators = _words(name)
    if len(words) == 1:
        head = (limit - 1) // 2
        return f"{name[:head]}{ELLIPSIS}{name[len(name) - (limit - 1 - head):]}"
    lowered = [w.lower() for w in words]
    required = {0}
    uncovered = [set(other) for other in siblings if lowered[0] in other]
    while uncovered:  # greedy cover: keep words until every sibling lacks one of the kept words
        gains = [sum(w not in other for other in uncovered) if i not in required else 0
                 for i, w in enumerate(lowered)]
        best = max(range(len(words)), key=lambda i: (gains[i], -i))
        if gains[best] == 0:
            return name  # a sibling holds every word: only the full name tells them apart
        required.add(best)
        uncovered = [other for other in uncovered if lowered[best] in other]
    if len(_join(words, separators, required)) > limit:
        return _join(words, separators, required)
    keep = set(required)
    for i in [len(words) - 1] + list(range(1, len(words) - 1)):  # the last word, then in order,
        near = i == len(words) - 1 or i - 1 in keep or i + 1 in keep  # extending kept runs
        if i not in keep and near and len(_join(words, separators, keep | {i})) <= limit:
            keep.add(i)
    return _join(words, separators, keep)


def system_labels(systems: Iterable[str], labels: Mapping[str, str] | None = None,
                  limit: int = LABEL_CHARS) -> dict[str, str]:
    """The label of every system: its alias, else its name, shortened when long (module docstring).

    Parameters
    ----------
    systems
        The system names (duplicates are ignored).
    labels
        Aliases ``{system: label}``; systems not in it get an automatic label. Aliases are kept
        verbatim and must be distinct.
    limit
        Names longer than this many characters are shortened.

    Returns
    -------
    dict
        ``{system: label}``; the labels are distinct, on one line, with bidi controls, zero-width
        characters and spaces at either end shown as escapes (:func:`memdiag.core.escape.one_line`).

    Raises
    ------
    ValueError
        Two systems given the same alias (or an alias that is another system's name), or an
        alias that is empty.

    Examples
    --------
    >>> system_labels(["Backboard-io__Backboard-Locomo-Benchmark", "zep"])
    {'Backboard-io__Backboard-Locomo-Benchmark': 'Backboard', 'zep': 'zep'}
    >>> names = ["memobase_eval_0503_3000_gpt4o_mini_run1", "memobase_eval_0710_3000_gpt4o_mini_run1"]
    >>> list(system_labels(names).values())
    ['memobase_0503_3000…run1', 'memobase_0710_3000…run1']
    """
    names = list(dict.fromkeys(str(s) for s in systems))
    aliases = {str(k): str(v) for k, v in (labels or {}).items() if str(k) in names}
    empty = [k for k, v in aliases.items() if not v.strip()]
    if empty:
        raise ValueError(f"the label of system '{empty[0]}' is empty; give it a name or leave it out "
                         "of labels=.")
    taken: dict[str, str] = {}
    for system, alias in aliases.items():
        if alias in taken:
            raise ValueError(f"systems '{taken[alias]}' and '{system}' have the same label '{alias}'; "
                             "give them different labels.")
        taken[alias] = system
    tidy = {s: _tidy(s, limit) for s in names if s not in aliases}
    words = {s: [w.lower() for w in _words(t)[0]] for s, t in tidy.items()}
    out = dict(aliases)
    for system, name in tidy.items():
        siblings = [w for other, w in words.items() if other != system and w[0] == words[system][0]]
        out[system] = _shorten(name, siblings, limit)
    clash = True
    while clash:  # labels that coincide (with each other or a full name) fall back to full names
        seen: dict[str, list[str]] = {}
        for system in names:
            seen.setdefault(out[system], []).append(system)
        clash = False
        for group in seen.values():
            for system in group if len(group) > 1 else ():
                if system not in aliases and out[system] != system:
                    out[system] = system
                    clash = True
    # drawn as data: a line break, a control, a bidi override (U+202E) or a zero-width character
    # becomes visible (memdiag.core.escape.one_line), so no label reorders or hides its text
    shown = {s: one_line(out[s]) for s in names}
    drawn: dict[str, str] = {}
    for system in names:  # an alias that is another system's name: two systems under one label
        if shown[system] in drawn:
            raise ValueError(f"systems '{one_line(drawn[shown[system]])}' and '{one_line(system)}' would both be "
                             f"drawn as '{shown[system]}'; give them different labels.")
        drawn[shown[system]] = system
    return shown


def name_key(labels: Mapping[str, str], aliases: Mapping[str, str] | None = None) -> str:
    """``"Names: Backboard = Backboard-io__Backboard-Locomo-Benchmark; …"`` for the labels that were
    shortened automatically (aliases are the user's names and are not listed); ``""`` when none.

    >>> name_key({"Backboard-io__Backboard-Locomo-Benchmark": "Backboard", "zep": "zep"})
    'Names: Backboard = Backboard-io__Backboard-Locomo-Benchmark.'
    """
    aliases = aliases or {}
    pairs = [f"{label} = {one_line(system)}" for system, label in labels.items()
             if label != one_line(system) and system not in aliases]  # names drawn as data, too
    return f"Names: {'; '.join(pairs)}." if pairs else ""


#: Characters that continue a system name in running text: a name with one of these beside it is part
#: of a longer token (``mem0`` in ``mem0+raw``, ``rag`` in ``raw-rag``), not that name.
_NAME_CHARS = r"\w+\-/@=."


@lru_cache(maxsize=64)
def _names_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=lambda n: (-len(n), n)))
    return re.compile(rf"(?<![{_NAME_CHARS}])(?:{alternatives})(?![{_NAME_CHARS.replace('.', '')}]|\.\w)")


def in_text(text: str, labels: Mapping[str, str] | None) -> str:
    """``text`` with every system name that stands as a whole token replaced by its label.

    How a title, a sentence, a caption or a note names a system for people: a name counts where
    the characters on either side of it are not word characters or the name characters
    ``+ - / @ = .`` (a full stop that ends a sentence does not join the name), and longer names
    are matched first, so ``mem0+raw`` is never read as ``mem0`` nor ``raw-rag`` as ``rag``.

    Parameters
    ----------
    text
        Any text for people.
    labels
        ``{system: label}``; None or empty: ``text`` as it is.

    Returns
    -------
    str
        The text with the labels in place of the names.

    Examples
    --------
    >>> in_text("mem0 − raw-rag: mem0+raw beats rag.", {"mem0": "Mem0", "raw-rag": "RAG", "rag": "R"})
    'Mem0 − RAG: mem0+raw beats R.'
    >>> in_text("the reference raw-rag's conv-3 (0/12)", {"raw-rag": "RAG"})
    "the reference RAG's conv-3 (0/12)"
    """
    changed = {str(k): str(v) for k, v in (labels or {}).items() if str(k) and str(k) != str(v)}
    if not changed or not text:
        return text
    return _names_pattern(tuple(sorted(changed))).sub(lambda m: changed[m.group(0)], text)
