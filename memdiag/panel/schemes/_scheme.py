"""The :class:`Scheme` definition: its fields, their validation, and the groups they name (SPEC §6).

A scheme is data: this module checks and normalises what a user (or a built-in file) wrote and
derives the group vocabulary from it. Reading schemes is :mod:`memdiag.panel.schemes._files`; resolving
one on verdicts is :mod:`memdiag.panel.schemes._resolve`, which :meth:`Scheme.select` and
:meth:`Scheme.layout` call (imported on use, so that reading a scheme needs no pandas).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import regex

from memdiag.engine.designs import KINDS
from memdiag.errors import SchemeError, listing
from memdiag.io.schema import QUERY_ATTRIBUTES
from memdiag.panel.schemes._keys import match_key
from memdiag.panel.schemes._tree import is_number, tree_weights

if TYPE_CHECKING:  # pragma: no cover - names for annotations only
    import pandas as pd

    from memdiag.panel.align import Panel
    from memdiag.panel.schemes._resolve import SchemeLayout

#: Per-query attributes a scheme can group by.
GROUPABLE: tuple[str, ...] = tuple(c for c in QUERY_ATTRIBUTES if c != "pair_id")


def _labels(value: object, fail) -> tuple[str, ...]:
    """A list of group names (a single name or number is a list of one) as a tuple of strings."""
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, Sequence) or any(isinstance(v, (Mapping, list, bool)) or v is None for v in value):
        raise fail(f"{value!r} is not a list of group names. Write e.g. [a, b].")
    return tuple(str(v) for v in value)


@dataclass(frozen=True)
class Scheme:
    """How per-query scores become a benchmark's official number (SPEC §6).

    Attributes
    ----------
    name
        Short name (``locomo``, ...).
    group_by
        The per-query attribute that defines the groups (``category``, ``stratum``, ...), or
        None for a single group. A scheme that needs no groups (no include, exclude, weights,
        gates or required groups) falls back to one group ``all`` when the data lack the column.
    include
        The groups kept (a closed list); queries of other groups are excluded and reported.
    exclude
        Groups dropped from an open list (every other group is kept). Not with include/weights.
    exclude_ids
        A regular expression; queries whose id matches it (a search, Python ``re`` syntax) are
        excluded. It is matched with a time limit (:data:`PATTERN_SECONDS` for all ids together),
        so that a pattern with catastrophic backtracking is an error, never a hang.
    weights
        None for the question-weighted mean (Σ scores / Σ queries over the included queries), or
        a weight tree (see :func:`tree_weights`) for a weighted mean of group means. The groups
        of the tree are the scheme's closed group list.
    gates
        Groups whose after-phase answers are gated: a pass counts only if the before-phase twin
        (same ``pair_id``) was correct (MEME Del, Cas, Abs; D.1.3).
    phase
        Keep only queries of this phase (MEME: ``after``). Other phases still feed the gates.
    required_groups
        Groups that must be present for a full-benchmark result (``complete``).
    threshold
        Binary correctness of a before-phase answer in a gate: ``score > threshold``.
    expected_n
        The official number of queries in the denominator (LoCoMo 1,540); a different count is
        noted and makes the result incomplete.
    expected_counts
        The official number of queries per group: group -> count, where a key may join several
        groups with ``+`` when only their total is known (MEME ``ER + Agg + Tr: 300``). A group
        whose count differs makes the result incomplete, and the note names the group. When the
        keys cover every group of a closed scheme once, their counts must add up to
        ``expected_n``.
    aliases
        Data label -> canonical group name, beyond the case/punctuation-insensitive matching
        that always applies.
    design
        The resampling design the benchmark asks for (``cluster``, ``stratified``,
        ``stratified-cluster``; SPEC §4, paper C.6), used by default when the data carry the
        columns it needs; None leaves the default to ``iid``.
    cluster_from_id
        A regular expression with one group that finds a query's cluster in its id (LoCoMo:
        ``^locomo:(conv-[^:]+):`` finds ``conv-26`` in ``locomo:conv-26:000``); used when the
        verdicts carry no ``cluster`` column and every query id matches (SPEC §4.2).
    description, source
        What the scheme is and where its rule comes from.
    origin
        Where it was defined (``built-in`` or the file); used to locate errors.

    Raises
    ------
    SchemeError
        A field that breaks the rules of SPEC §6.1 (no name, an unknown ``group_by``, include
        with exclude or weights, a bad weight tree or regular expression, a threshold outside
        [0, 1), a gate or alias naming no group of a closed list, bad expected counts), naming
        ``origin`` and the key.

    References
    ----------
    SPEC §6.1 (schemes: the fields and the weight-tree grammar) and SPEC §6.3 (the built-in
    schemes); Raw-RAG paper D.5 (official weights and exclusions) and D.1.3 (MEME's gates).

    Examples
    --------
    A macro average of two categories (a flat mapping of weights), against the
    question-weighted mean of the same four answers:

    >>> scheme = Scheme.from_dict({"name": "macro", "group_by": "category", "weights": {"a": 1, "b": 1}})
    >>> scheme.group_weights, scheme.declared_groups
    ({'a': 0.5, 'b': 0.5}, ('a', 'b'))
    >>> import memdiag as md
    >>> import pandas as pd
    >>> df = pd.DataFrame({"system": "rag", "query_id": list("wxyz"), "score": [1, 1, 1, 0],
    ...                    "category": ["a", "a", "a", "b"]})
    >>> md.score(md.prepare(df, scheme=scheme))[["overall", "a", "b", "n"]].to_dict("records")
    [{'overall': 50.0, 'a': 100.0, 'b': 0.0, 'n': 4}]
    >>> md.score(df, options={"n_resamples": 0})["overall"].tolist()
    [75.0]
    >>> Scheme(name="broken", include=("a",), exclude=("b",))
    Traceback (most recent call last):
    ...
    memdiag.errors.SchemeError: scheme 'broken', key 'include': give either include or weights (a closed group list) or exclude (an open one), not both.
    """

    name: str
    group_by: str | None = "category"
    include: tuple[str, ...] | None = None
    exclude: tuple[str, ...] = ()
    exclude_ids: str | None = None
    weights: Mapping | Sequence | None = None
    gates: tuple[str, ...] = ()
    phase: str | None = None
    required_groups: tuple[str, ...] = ()
    threshold: float = 0.5
    expected_n: int | None = None
    expected_counts: Mapping[str, int] | None = None
    aliases: Mapping[str, str] = field(default_factory=dict)
    design: str | None = None
    cluster_from_id: str | None = None
    description: str = ""
    source: str = ""
    origin: str = ""

    def __post_init__(self) -> None:
        def fail(key: str, message: str) -> SchemeError:
            return SchemeError(f"{self.origin or 'scheme ' + repr(self.name)}, key '{key}': {message}")

        def set_(key: str, value: object) -> None:  # the dataclass is frozen
            object.__setattr__(self, key, value)

        if not isinstance(self.name, str) or not self.name:
            raise fail("name", "a scheme needs a non-empty name.")
        if self.group_by is not None and self.group_by not in GROUPABLE:
            raise fail("group_by", f"'{self.group_by}' is not a per-query attribute (use one of "
                       f"{', '.join(GROUPABLE)}).")
        for key in ("exclude", "gates", "required_groups"):  # written empty (`exclude:`) = none
            if getattr(self, key) is None:
                set_(key, ())
        for key in ("include", "exclude", "gates", "required_groups"):
            value = getattr(self, key)
            if value is not None:
                set_(key, _labels(value, lambda message, key=key: fail(key, message)))
        if self.include is not None and (self.exclude or self.weights is not None):
            raise fail("include", "give either include or weights (a closed group list) or "
                       "exclude (an open one), not both.")
        if self.exclude and self.weights is not None:
            raise fail("exclude", "weights already list the groups kept; drop exclude.")
        if self.weights is not None:
            try:
                tree_weights(self.weights)
            except SchemeError as err:
                raise fail("weights", str(err)) from None
        if self.exclude_ids is not None:
            try:
                regex.compile(self.exclude_ids)
            except (regex.error, TypeError, ValueError, OverflowError, RecursionError) as err:
                raise fail("exclude_ids", f"{self.exclude_ids!r} is not a regular expression ({err}).") from None
        if not is_number(self.threshold) or not 0 <= self.threshold < 1:
            raise fail("threshold", f"{self.threshold!r} is not a number in [0, 1).")
        if self.expected_n is not None and not (isinstance(self.expected_n, int) and not isinstance(
                self.expected_n, bool) and self.expected_n > 0):
            raise fail("expected_n", f"{self.expected_n!r} is not a positive whole number.")
        if self.phase is not None:
            set_("phase", str(self.phase).strip().lower())
        if self.design is not None and self.design not in KINDS:
            raise fail("design", f"'{self.design}' is not a resampling design (use one of {', '.join(KINDS)}).")
        if self.cluster_from_id is not None:
            try:
                groups = regex.compile(self.cluster_from_id).groups
            except (regex.error, TypeError, ValueError, OverflowError, RecursionError) as err:
                raise fail("cluster_from_id", f"{self.cluster_from_id!r} is not a regular expression ({err}).") from None
            if groups != 1:
                raise fail("cluster_from_id", f"{self.cluster_from_id!r} has {groups} groups; give exactly one, "
                           "the part of the query id that names the cluster (e.g. '^locomo:(conv-[^:]+):').")
        if not isinstance(self.aliases, Mapping):
            raise fail("aliases", "give a mapping data label -> group name.")
        set_("aliases", {str(k): str(v) for k, v in self.aliases.items()})
        if self.group_by is None and self.needs_groups:
            raise fail("group_by", "the scheme names groups (include, exclude, weights, gates or "
                       "required_groups); say which column holds them (e.g. group_by: category).")
        closed = self.declared_groups
        if closed:  # names that refer to the closed list take its spelling (del -> Del)
            lookup = {match_key(g): g for g in closed}
            for key in ("gates", "required_groups", "aliases"):
                names = list(self.aliases.values()) if key == "aliases" else getattr(self, key)
                unknown = [v for v in names if match_key(v) not in lookup]
                if unknown:
                    raise fail(key, f"{listing(unknown)} is not one of the scheme's groups ({', '.join(closed)}).")
            set_("gates", tuple(lookup[match_key(g)] for g in self.gates))
            set_("required_groups", tuple(lookup[match_key(g)] for g in self.required_groups))
            set_("aliases", {k: lookup[match_key(v)] for k, v in self.aliases.items()})
        if self.expected_counts is not None:
            set_("expected_counts", self._counts(lambda message: fail("expected_counts", message)))

    def _counts(self, fail) -> dict[str, int]:
        """``expected_counts`` checked: keys in the scheme's spelling (``Del``, ``ER + Agg + Tr``),
        positive whole counts, each group in at most one key, and a total equal to ``expected_n``
        when the keys cover a closed scheme's groups."""
        if not isinstance(self.expected_counts, Mapping) or not self.expected_counts:
            raise fail("give a mapping group -> official number of queries, e.g. {Del: 100, ER + Agg + Tr: 300}.")
        vocabulary = self._vocabulary()
        lookup = {match_key(g): g for g in vocabulary}
        out, seen = {}, []
        for key, value in self.expected_counts.items():
            if not (isinstance(value, int) and not isinstance(value, bool) and value > 0):
                raise fail(f"{key!r}: {value!r} is not a positive whole number of queries.")
            parts = [p.strip() for p in str(key).split("+")]
            unknown = [p for p in parts if match_key(p) not in lookup]
            if unknown or not vocabulary:
                raise fail(f"{listing(unknown or parts)} is not one of the scheme's groups "
                           f"({', '.join(vocabulary) or 'it names none: list them in required_groups'}).")
            names = [lookup[match_key(p)] for p in parts]
            twice = [n for n in names if n in seen or names.count(n) > 1]
            if twice:
                raise fail(f"{listing(sorted(set(twice)))} is counted in two keys; give each group one count.")
            seen += names
            out[" + ".join(names)] = value
        closed = self.declared_groups or self.required_groups
        if self.expected_n is not None and closed and sorted(seen) == sorted(closed) \
                and sum(out.values()) != self.expected_n:
            raise fail(f"the counts add up to {sum(out.values())}, but expected_n is {self.expected_n}.")
        return out

    # -- derived ----------------------------------------------------------------------------
    @property
    def group_weights(self) -> dict[str, float] | None:
        """Group -> weight in the overall (summing to 1), or None when question-weighted."""
        return None if self.weights is None else tree_weights(self.weights)[0]

    @property
    def summaries(self) -> dict[str, dict[str, float]]:
        """Named nodes of the weight tree (e.g. AR, TTL, LRU, CR) -> their own group weights."""
        return {} if self.weights is None else tree_weights(self.weights)[1]

    @property
    def declared_groups(self) -> tuple[str, ...]:
        """The closed group list (the weighted or included groups), empty for an open scheme."""
        if self.weights is not None:
            return tuple(tree_weights(self.weights)[0])
        return self.include or ()

    @property
    def needs_groups(self) -> bool:
        """Whether the scheme refers to groups (and so needs its ``group_by`` column)."""
        return bool(self.declared_groups or self.exclude or self.gates or self.required_groups)

    def _vocabulary(self) -> tuple[str, ...]:
        names = (*self.declared_groups, *self.required_groups, *self.gates, *self.exclude,
                 *self.aliases.values())
        return tuple(dict.fromkeys(names))

    def _lookup(self) -> dict[str, str]:
        lookup = {match_key(g): g for g in self._vocabulary()}
        lookup.update({match_key(k): v for k, v in self.aliases.items()})
        return lookup

    def canonical(self, label: object) -> str:
        """The scheme's name for a data label (matched ignoring case and punctuation, or by alias).

        >>> from memdiag.panel.schemes import get_scheme
        >>> get_scheme("memoryagentbench").canonical("icl_banking77_5900shot_balance")
        'Banking77'
        >>> get_scheme("locomo").canonical("Multi_Hop")
        'multi-hop'
        """
        return self._lookup().get(match_key(label), str(label))

    # -- reading (memdiag.panel.schemes._load) ---------------------------------------------------
    @classmethod
    def from_dict(cls, spec: Mapping, origin: str = "<dict>") -> Scheme:
        """A scheme from a mapping with the keys of :class:`Scheme` (``name`` defaults to ``origin``).

        Raises
        ------
        SchemeError
            An unknown key (listing the known ones) or a bad value, naming ``origin`` and the key.
        """
        from memdiag.panel.schemes._files import from_dict

        return from_dict(spec, origin, cls)

    @classmethod
    def from_file(cls, path: str | Path) -> Scheme:
        """A user scheme from a YAML (``.yaml``/``.yml``) or JSON file; see ``data/example/scheme_example.yaml``.

        Raises
        ------
        SchemeError
            Missing or unparsable file, unknown key, bad value (each naming file and key).
        """
        from memdiag.panel.schemes._files import from_file

        return from_file(path, cls)

    # -- resolving on data (memdiag.panel.schemes._resolve) --------------------------------------
    def select(self, df: pd.DataFrame) -> pd.DataFrame:
        """The verdict rows the scheme uses, before alignment, and what was dropped.

        Applied before :func:`~memdiag.panel.align.align` so that runs that kept excluded queries
        (e.g. LoCoMo adversarial questions) pair with runs that dropped them. Before-phase rows
        are kept when the scheme has gates (they decide the after-phase credit).

        Returns
        -------
        pandas.DataFrame
            The kept rows of ``check(df)``; ``attrs["scheme_notes"]`` lists one note
            (``{"policy", "count", "detail"}``) per exclusion rule that dropped queries.

        Raises
        ------
        SchemeError
            The scheme keeps no query of ``df`` (its notes say which rules dropped them).
        """
        from memdiag.panel.schemes._resolve import select

        return select(self, df)

    def layout(self, panel: Panel) -> SchemeLayout:
        """Resolve the scheme on an aligned panel: groups, gated scores, weights, completeness.

        Raises
        ------
        SchemeError
            The data lack a column the scheme needs; a gated after-phase query has no
            before-phase twin; twins sit in different clusters; a pair has two before questions.
        """
        from memdiag.panel.schemes._resolve import layout

        return layout(self, panel)
