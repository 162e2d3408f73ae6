"""Official benchmark aggregation as data (SPEC §6; Raw-RAG paper D.5 and D.1).

A :class:`Scheme` says which queries count, how they are grouped, how the groups are weighted
and which gates apply. :meth:`Scheme.layout` resolves it on a :class:`~memdiag._verdicts.Panel`
into a :class:`SchemeLayout`, whose per-query contribution columns ``X`` carry everything the
official number needs: for count-weights ``W`` over queries (a bootstrap replicate, or all ones)
the statistic is a function of the weighted sums ``W @ X`` alone, so the resampling engine
evaluates it for a whole chunk of replicates with one matrix product, never a Python loop.

Built-in schemes (:func:`known_schemes`): ``mean``, ``locomo``, ``longmemeval``,
``longmemeval-no-abs``, ``meme``, ``memoryagentbench``, ``personamem``. Users declare their own in
a small YAML or JSON file (:meth:`Scheme.from_file`; example in ``data/example/scheme_example.yaml``).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from memdiag.errors import SchemeError, listing
from memdiag._designs import KINDS
from memdiag._schema import LOCOMO_CATEGORIES, QUERY_ATTRIBUTES
from memdiag._verdicts import Panel, check

#: The group of every query when a scheme has no groups (or the data has no group column).
ALL = "all"

#: The group of queries with no label in an open scheme (one that lists no groups).
UNLABELLED = "(none)"

#: Per-query attributes a scheme can group by.
GROUPABLE: tuple[str, ...] = tuple(c for c in QUERY_ATTRIBUTES if c != "pair_id")


def _key(label: object) -> str:
    """Matching key of a group label: case, spaces and punctuation ignored ('Multi_Hop' -> 'multihop')."""
    return re.sub(r"[^0-9a-z]+", "", str(label).casefold())


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _member(values: np.ndarray, names: Sequence[object]) -> np.ndarray:
    """Elementwise ``value in names`` for an object array that may hold None."""
    names = set(names)
    return np.array([v in names for v in values], dtype=bool)


def _labels(value: object, fail) -> tuple[str, ...]:
    """A list of group names (a single name or number is a list of one) as a tuple of strings."""
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, Sequence) or any(isinstance(v, (Mapping, list, bool)) or v is None for v in value):
        raise fail(f"{value!r} is not a list of group names. Write e.g. [a, b].")
    return tuple(str(v) for v in value)


def _absent(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


# --------------------------------------------------------------------------------------------
# weight trees
# --------------------------------------------------------------------------------------------
def tree_weights(tree: Mapping | Sequence | str) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """Flatten a weight tree into per-group weights and the weights of its named nodes.

    Grammar: a **string** is a group (a leaf). A **list** is the equal-weight mean of its items.
    A **mapping** is the weighted mean of its entries: ``name: number`` is the group ``name``
    with that relative weight; ``name: list-or-mapping`` is a named sub-tree with relative
    weight 1. A flat mapping of numbers is therefore a plain weighted mean of group means.

    Parameters
    ----------
    tree
        The nested structure (as read from YAML/JSON).

    Returns
    -------
    weights
        Group -> weight in the overall, summing to 1, in tree order.
    nodes
        Named sub-tree -> its own group weights (summing to 1), e.g. ``TTL`` of MemoryAgentBench.

    Raises
    ------
    SchemeError
        A weight that is not a positive number, a group listed twice, an empty node.

    Examples
    --------
    MemoryAgentBench's test-time learning (D.5, eq. 6): TTL = ½(ReDial + mean of 5 ICL sources).

    >>> w, nodes = tree_weights({"ReDial": 1, "ICL": ["a", "b", "c", "d", "e"]})
    >>> w["ReDial"], w["a"]
    (0.5, 0.1)
    >>> nodes["ICL"]["a"]
    0.2
    """
    weights: dict[str, float] = {}
    nodes: dict[str, dict[str, float]] = {}

    def walk(node: object, share: float, name: str | None) -> dict[str, float]:
        if isinstance(node, str):
            if node in weights:
                raise SchemeError(f"group '{node}' appears twice in the weight tree. List each group once.")
            weights[node] = share
            return {node: share}
        if isinstance(node, Mapping):
            children = [(str(k), str(k), float(v)) if _is_number(v) else (str(k), v, 1.0)
                        for k, v in node.items()]
        elif isinstance(node, Sequence):
            children = [(None, item, 1.0) if not isinstance(item, str) else (item, item, 1.0)
                        for item in node]
        else:
            raise SchemeError(f"{node!r} is not a group name, a list or a mapping.")
        if not children:
            raise SchemeError(f"node '{name or 'root'}' is empty. Give it at least one group.")
        bad = [label for label, _, w in children if not (math.isfinite(w) and w > 0)]
        if bad:
            raise SchemeError(f"the weight of {listing(bad)} is not a positive number.")
        total = sum(w for _, _, w in children)
        part: dict[str, float] = {}
        for label, child, w in children:
            inner = label if not isinstance(child, str) else None
            part.update(walk(child, share * w / total, inner))
        if name is not None:
            if name in nodes or name in weights:
                raise SchemeError(f"node name '{name}' is used twice. Name nodes and groups apart.")
            nodes[name] = {g: v / share for g, v in part.items()}
        return part

    walk(tree, 1.0, None)
    clash = set(nodes) & set(weights)
    if clash:
        raise SchemeError(f"'{listing(sorted(clash))}' names both a node and a group. Name them apart.")
    return weights, nodes


# --------------------------------------------------------------------------------------------
# the scheme
# --------------------------------------------------------------------------------------------
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
        A regular expression; queries whose id matches it (``re.search``) are excluded.
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
    aliases
        Data label -> canonical group name, beyond the case/punctuation-insensitive matching
        that always applies.
    design
        The resampling design the benchmark asks for (``cluster``, ``stratified``,
        ``stratified-cluster``; SPEC §4, paper C.6), used by default when the data carry the
        columns it needs; None leaves the default to ``iid``.
    description, source
        What the scheme is and where its rule comes from.
    origin
        Where it was defined (``built-in`` or the file); used to locate errors.
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
    aliases: Mapping[str, str] = field(default_factory=dict)
    design: str | None = None
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
                re.compile(self.exclude_ids)
            except (re.error, TypeError) as err:
                raise fail("exclude_ids", f"{self.exclude_ids!r} is not a regular expression ({err}).") from None
        if not _is_number(self.threshold) or not 0 <= self.threshold < 1:
            raise fail("threshold", f"{self.threshold!r} is not a number in [0, 1).")
        if self.expected_n is not None and not (isinstance(self.expected_n, int) and not isinstance(
                self.expected_n, bool) and self.expected_n > 0):
            raise fail("expected_n", f"{self.expected_n!r} is not a positive whole number.")
        if self.phase is not None:
            set_("phase", str(self.phase).strip().lower())
        if self.design is not None and self.design not in KINDS:
            raise fail("design", f"'{self.design}' is not a resampling design (use one of {', '.join(KINDS)}).")
        if not isinstance(self.aliases, Mapping):
            raise fail("aliases", "give a mapping data label -> group name.")
        set_("aliases", {str(k): str(v) for k, v in self.aliases.items()})
        if self.group_by is None and self.needs_groups:
            raise fail("group_by", "the scheme names groups (include, exclude, weights, gates or "
                       "required_groups); say which column holds them (e.g. group_by: category).")
        closed = self.declared_groups
        if closed:  # names that refer to the closed list take its spelling (del -> Del)
            lookup = {_key(g): g for g in closed}
            for key in ("gates", "required_groups", "aliases"):
                names = list(self.aliases.values()) if key == "aliases" else getattr(self, key)
                unknown = [v for v in names if _key(v) not in lookup]
                if unknown:
                    raise fail(key, f"{listing(unknown)} is not one of the scheme's groups ({', '.join(closed)}).")
            set_("gates", tuple(lookup[_key(g)] for g in self.gates))
            set_("required_groups", tuple(lookup[_key(g)] for g in self.required_groups))
            set_("aliases", {k: lookup[_key(v)] for k, v in self.aliases.items()})

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
        lookup = {_key(g): g for g in self._vocabulary()}
        lookup.update({_key(k): v for k, v in self.aliases.items()})
        return lookup

    def canonical(self, label: object) -> str:
        """The scheme's name for a data label (matched ignoring case and punctuation, or by alias).

        >>> get_scheme("memoryagentbench").canonical("icl_banking77_5900shot_balance")
        'Banking77'
        >>> get_scheme("locomo").canonical("Multi_Hop")
        'multi-hop'
        """
        return self._lookup().get(_key(label), str(label))

    # -- reading ----------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, spec: Mapping, origin: str = "<dict>") -> Scheme:
        """A scheme from a mapping with the keys of :class:`Scheme` (``name`` defaults to ``origin``).

        Raises
        ------
        SchemeError
            An unknown key (listing the known ones) or a bad value, naming ``origin`` and the key.
        """
        if not isinstance(spec, Mapping):
            raise SchemeError(f"{origin}: a scheme is a mapping of keys (group_by, weights, ...), "
                              f"not {type(spec).__name__}.")
        allowed = [f.name for f in fields(cls) if f.name != "origin"]
        unknown = [str(k) for k in spec if k not in allowed]
        if unknown:
            raise SchemeError(f"{origin}, key '{unknown[0]}': unknown key (known keys: "
                              f"{', '.join(allowed)}). Fix its spelling or remove it.")
        values = dict(spec)
        values.setdefault("name", Path(origin).stem if origin != "<dict>" else "custom")
        return cls(**values, origin=origin)

    @classmethod
    def from_file(cls, path: str | Path) -> Scheme:
        """A user scheme from a YAML (``.yaml``/``.yml``) or JSON file; see ``data/example/scheme_example.yaml``.

        Raises
        ------
        SchemeError
            Missing or unparsable file, unknown key, bad value (each naming file and key).
        """
        path = Path(path)
        if not path.is_file():
            raise SchemeError(f"{path}: no such scheme file. Check the path, or use a built-in "
                              f"scheme ({', '.join(known_schemes())}).")
        text = path.read_text(encoding="utf-8")
        try:
            spec = json.loads(text) if path.suffix.lower() == ".json" else yaml.safe_load(text)
        except (json.JSONDecodeError, yaml.YAMLError) as err:
            raise SchemeError(f"{path}: not valid {'JSON' if path.suffix.lower() == '.json' else 'YAML'} "
                              f"({' '.join(str(err).split())}). Fix the syntax.") from None
        return cls.from_dict(spec if spec is not None else {}, origin=str(path))

    # -- resolving on data ------------------------------------------------------------------
    def _assign(self, queries: pd.DataFrame, query_ids: np.ndarray, for_selection: bool = False):
        """Group label, kept mask, group list, notes and phases of each query (the one rule for
        :meth:`select` and :meth:`layout`)."""
        n = len(query_ids)
        keep = np.ones(n, dtype=bool)
        notes: list[dict] = []

        def drop(mask: np.ndarray, detail) -> None:
            mask = mask & keep
            if mask.any():
                count = int(mask.sum())
                notes.append({"policy": f"scheme {self.name}", "count": count, "detail": detail(count)})
                keep[mask] = False

        column = self.group_by
        if column is None or (column not in queries and not self.needs_groups):
            labels = np.full(n, ALL, dtype=object)
        else:
            if column not in queries:
                raise SchemeError(f"scheme '{self.name}' groups queries by '{column}', but the verdicts "
                                  f"have no '{column}' column. Add it (or map it with --field "
                                  f"{column}=<column>), or choose another scheme.")
            lookup = self._lookup()
            labels = np.array([None if _absent(v) else lookup.get(_key(v), str(v))
                               for v in queries[column].to_numpy(dtype=object)], dtype=object)
        unlabelled = np.array([v is None for v in labels], dtype=bool)
        closed = self.declared_groups
        if closed:
            drop(unlabelled, lambda k: f"{k} queries without a {column} excluded")
            outside = keep & ~_member(labels, closed)
            counts = pd.Series(labels[outside]).value_counts()
            drop(outside, lambda k: f"{k} queries whose {column} is not in the scheme excluded ("
                 + listing([f"{label} {c}" for label, c in counts.items()]) + ")")
        else:
            labels[unlabelled] = UNLABELLED
            if unlabelled.any():
                notes.append({"policy": f"scheme {self.name}", "count": int(unlabelled.sum()),
                              "detail": f"{int(unlabelled.sum())} queries without a {column} "
                                        f"form the group '{UNLABELLED}'"})
            for group in self.exclude:
                drop(labels == group, lambda k, group=group: f"{k} queries of {column} '{group}' excluded")
        if self.exclude_ids is not None:
            pattern = re.compile(self.exclude_ids)
            drop(np.array([bool(pattern.search(str(q))) for q in query_ids], dtype=bool),
                 lambda k: f"{k} queries whose id matches '{self.exclude_ids}' excluded")
        phases = None
        if self.phase is not None or self.gates:
            if "phase" not in queries:
                raise SchemeError(f"scheme '{self.name}' needs the 'phase' column (before/after) of "
                                  "every query. Add it, or map it with --field phase=<column>.")
            phases = np.array(["" if _absent(v) else str(v).strip().lower()
                               for v in queries["phase"].to_numpy(dtype=object)], dtype=object)
            if self.phase is not None and not (for_selection and self.gates):
                drop(phases != self.phase, lambda k: f"{k} queries not in phase '{self.phase}' excluded")
        if closed:
            groups = closed
        else:  # the known names in scheme order, then other labels present, sorted
            present, vocabulary = set(labels[keep]), self._vocabulary()
            groups = tuple([g for g in vocabulary if g in present or g in self.required_groups]
                           + sorted(present - set(vocabulary)))
        return labels, keep, groups, notes, phases

    def select(self, df: pd.DataFrame) -> pd.DataFrame:
        """The verdict rows the scheme uses, before alignment, and what was dropped.

        Applied before :func:`~memdiag._verdicts.align` so that runs that kept excluded queries
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
        df = check(df)
        attributes = [c for c in QUERY_ATTRIBUTES if c in df]
        queries = (df.groupby("query_id", sort=False)[attributes].first() if attributes
                   else pd.DataFrame(index=pd.Index(pd.unique(df["query_id"]), name="query_id")))
        _, keep, _, notes, _ = self._assign(queries, queries.index.to_numpy(), for_selection=True)
        kept = df[df["query_id"].isin(queries.index[keep])].reset_index(drop=True)
        if kept.empty:
            raise SchemeError(f"the scheme '{self.name}' keeps no query of these verdicts ("
                              f"{'; '.join(n['detail'] for n in notes)}). Check the scheme against "
                              "the data's groups.")
        kept.attrs["scheme_notes"] = notes
        return kept

    def layout(self, panel: Panel) -> SchemeLayout:
        """Resolve the scheme on an aligned panel: groups, gated scores, weights, completeness.

        Raises
        ------
        SchemeError
            The data lack a column the scheme needs; a gated after-phase query has no
            before-phase twin; twins sit in different clusters; a pair has two before questions.
        """
        labels, keep, groups, notes, phases = self._assign(panel.queries, panel.query_ids)
        scores = panel.scores
        if self.gates:
            scores, gate_notes = self._gate(panel, labels, keep, phases)
            notes.extend(gate_notes)
        index = {g: i for i, g in enumerate(groups)}
        group_of = np.array([index[g] if k else -1 for g, k in zip(labels, keep)], dtype=np.int64)
        counts = np.bincount(group_of[group_of >= 0], minlength=len(groups))
        missing = tuple(g for g in self.required_groups if counts[index[g]] == 0)
        complete = not missing
        if missing:
            notes.append({"policy": f"scheme {self.name}", "count": len(missing),
                          "detail": f"incomplete: {len(missing)} of {len(self.required_groups)} required "
                                    f"{self.group_by} groups have no query ({listing(missing)}); not a "
                                    "full-benchmark result"})
        if self.expected_n is not None and int(counts.sum()) != self.expected_n:
            complete = False
            notes.append({"policy": f"scheme {self.name}", "count": int(counts.sum()),
                          "detail": f"incomplete: the official denominator is {self.expected_n} queries, "
                                    f"these data have {int(counts.sum())}"})
        weights = self.group_weights
        return SchemeLayout(
            scheme=self,
            systems=panel.systems,
            groups=groups,
            group_of=group_of,
            scores=scores,
            weights=None if weights is None else np.array([weights[g] for g in groups]),
            summaries={name: np.array([w.get(g, 0.0) for g in groups])
                       for name, w in self.summaries.items()},
            complete=complete,
            missing_groups=missing,
            notes=tuple(notes),
        )

    def _gate(self, panel: Panel, labels, keep, phases) -> tuple[np.ndarray, list[dict]]:
        """Before-pass gate (MEME D.1.3): gated after-phase scores × 1[before twin score > threshold]."""
        gated = keep & _member(labels, self.gates) & (phases == "after")
        if not gated.any():
            return panel.scores, []
        if "pair_id" not in panel.queries:
            raise SchemeError(f"scheme '{self.name}' gates {', '.join(self.gates)} on the before-phase "
                              "twin, but the verdicts have no 'pair_id' column linking the twins. Add it.")
        pairs = np.array([None if _absent(p) else str(p)
                          for p in panel.queries["pair_id"].to_numpy(dtype=object)], dtype=object)
        if "cluster" in panel.queries:
            linked = pd.DataFrame({"pair": pairs, "cluster": panel.queries["cluster"].to_numpy(dtype=object)})
            spread = linked.dropna().groupby("pair")["cluster"].nunique()
            split = spread.index[spread > 1]
            if len(split):
                raise SchemeError(f"{len(split)} pair_id twins sit in different clusters "
                                  f"({listing(split)}). Both phases of a pair must share a cluster "
                                  "(episode) so that resampling keeps them together; fix the cluster labels.")
        twin: dict[str, int] = {}
        first_id: dict[str, object] = {}
        ambiguous = []
        for i in np.flatnonzero((phases == "before") & ~_member(pairs, (None,))):
            p = pairs[i]
            if first_id.setdefault(p, panel.query_ids[i]) != panel.query_ids[i]:
                ambiguous.append(p)
            twin.setdefault(p, int(i))
        if ambiguous:
            raise SchemeError(f"{len(set(ambiguous))} pair_ids have more than one before-phase "
                              f"question ({listing(sorted(set(ambiguous)))}). Give each pair one before twin.")
        rows = np.flatnonzero(gated)
        twins = np.array([twin.get(pairs[i], -1) if pairs[i] is not None else -1 for i in rows])
        orphans = panel.query_ids[rows[twins < 0]]
        if len(orphans):
            raise SchemeError(
                f"{len(orphans)} gated after-phase queries ({', '.join(self.gates)}) have no before-phase "
                f"twin with the same pair_id: {listing(orphans)}. The gate needs both answers: add the "
                "before-phase verdicts, fix pair_id, or align with missing='wrong' if those before "
                "answers are absent because the system gave none.")
        scores = panel.scores.copy()
        passed = panel.scores[twins] > self.threshold
        removed = ((scores[rows] > 0) & ~passed).sum(axis=0)
        scores[rows] = scores[rows] * passed
        per_system = ", ".join(f"{s} {int(r)}" for s, r in zip(panel.systems, removed))
        return scores, [{"policy": f"scheme {self.name} gate", "count": int(removed.sum()),
                         "detail": f"{len(rows)} after-phase {'/'.join(self.gates)} answers credited only "
                                   f"when the before twin scored > {self.threshold}; credit removed "
                                   f"({per_system})"}]


# --------------------------------------------------------------------------------------------
# the layout: contributions, sums, statistic
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SchemeLayout:
    """A scheme resolved on a panel: the arrays behind the official number.

    Attributes
    ----------
    scheme
        The :class:`Scheme`.
    systems
        The ``S`` systems, in panel order.
    groups
        The ``G`` group labels (weighted or included groups, or those present plus required).
    group_of
        ``(N,)`` int: each query's group index, -1 = excluded.
    scores
        ``(N, S)`` per-query scores after the gates (before-phase rows unchanged).
    weights
        ``(G,)`` group weights summing to 1, or None for the question-weighted mean.
    summaries
        Named nodes of the weight tree (``AR``, ``TTL``, ...) -> ``(G,)`` weights.
    complete
        Every required group present and the expected query count met.
    missing_groups
        The required groups with no query.
    notes
        What the scheme excluded, gated and found missing: ``{"policy", "count", "detail"}``.

    Notes
    -----
    Contribution columns (:meth:`columns`), for query i, system s, group g = ``group_of[i]``::

        X[i, s*G + g] = scores[i, s]        (score slot of (s, g))
        X[i, S*G + g] = 1                   (count slot of g)

    and zero elsewhere (an excluded query's row is all zero). For count-weights ``W`` (b, N),
    ``T = W @ X``; the group mean is ``m[s, g] = T[s*G + g] / T[S*G + g]`` and the statistic is

    - question-weighted: ``θ_s = Σ_g T[s*G + g] / Σ_g T[S*G + g]``
    - weighted: ``θ_s = Σ_g w_g m[s, g]`` (SPEC §6; D.5 eq. 6 for MemoryAgentBench).

    A group with no query in a replicate has an undefined mean (NaN); a weighted statistic that
    needs it is NaN too (re-weighting the other groups would change the estimand), and so is a
    question-weighted one with no included query at all. The resampling engine must count such
    replicates. The statistic of all-ones weights is the point estimate (:meth:`estimate`).
    """

    scheme: Scheme
    systems: tuple[str, ...]
    groups: tuple[str, ...]
    group_of: np.ndarray
    scores: np.ndarray
    weights: np.ndarray | None
    summaries: Mapping[str, np.ndarray]
    complete: bool
    missing_groups: tuple[str, ...]
    notes: tuple[dict, ...] = ()

    @property
    def n_columns(self) -> int:
        """Width ``S*G + G`` of :meth:`columns`."""
        return (len(self.systems) + 1) * len(self.groups)

    @property
    def counts(self) -> np.ndarray:
        """``(G,)`` number of included queries per group."""
        return np.bincount(self.group_of[self.group_of >= 0], minlength=len(self.groups))

    @property
    def n(self) -> int:
        """Number of included queries (the official denominator of a question-weighted scheme)."""
        return int((self.group_of >= 0).sum())

    def columns(self) -> np.ndarray:
        """``(N, S*G + G)`` per-query contributions (see Notes of the class)."""
        n, s = self.scores.shape
        g = len(self.groups)
        x = np.zeros((n, self.n_columns))
        rows = np.flatnonzero(self.group_of >= 0)
        group = self.group_of[rows]
        x[rows[:, None], np.arange(s)[None, :] * g + group[:, None]] = self.scores[rows]
        x[rows, s * g + group] = 1.0
        return x

    def _split(self, sums: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        sums = np.asarray(sums, dtype=float)
        if sums.shape[-1] != self.n_columns:
            raise ValueError(f"sums have {sums.shape[-1]} columns; this layout has {self.n_columns} "
                             "(S*G + G). Use W @ layout.columns().")
        s, g = len(self.systems), len(self.groups)
        totals = sums[..., : s * g].reshape(*sums.shape[:-1], s, g)
        counts = sums[..., s * g:][..., None, :]
        return totals, counts

    def group_scores(self, sums: np.ndarray) -> np.ndarray:
        """``(..., S, G)`` group means from sums ``(..., S*G + G)``; NaN for an empty group."""
        totals, counts = self._split(sums)
        counts = np.broadcast_to(counts, totals.shape)
        return np.divide(totals, counts, out=np.full(totals.shape, np.nan), where=counts > 0)

    def statistic(self, sums: np.ndarray) -> np.ndarray:
        """``(..., S)`` official overall per system from sums ``(..., S*G + G)``, in [0, 1]."""
        if self.weights is not None:
            return self.group_scores(sums) @ self.weights
        totals, counts = self._split(sums)
        top, bottom = totals.sum(axis=-1), np.broadcast_to(counts.sum(axis=-1), totals.shape[:-1])
        return np.divide(top, bottom, out=np.full(top.shape, np.nan), where=bottom > 0)

    def summary_scores(self, sums: np.ndarray) -> np.ndarray:
        """``(..., S, K)`` scores of the named tree nodes (``summaries`` order), NaN if a group is empty."""
        means = self.group_scores(sums)
        if not self.summaries:
            return means[..., :0]
        weights = np.stack(list(self.summaries.values()), axis=1)  # (G, K)
        empty = np.isnan(means)
        undefined = (empty.astype(float) @ (weights > 0).astype(float)) > 0
        return np.where(undefined, np.nan, np.where(empty, 0.0, means) @ weights)

    def estimate(self) -> np.ndarray:
        """``(S,)`` point estimate: the statistic of all-ones weights."""
        return self.statistic(self.columns().sum(axis=0))

    def notes_text(self) -> list[str]:
        """The notes as one readable line each."""
        return [f"{n['policy']}: {n['detail']}" for n in self.notes]


# --------------------------------------------------------------------------------------------
# built-in schemes
# --------------------------------------------------------------------------------------------
#: LongMemEval-S question types with their official counts (SPEC §6; D.1.2).
LONGMEMEVAL_TYPES: dict[str, int] = {
    "single-session-user": 70, "single-session-assistant": 56, "single-session-preference": 30,
    "multi-session": 133, "knowledge-update": 78, "temporal-reasoning": 133,
}

#: MEME tasks (D.1.3) and the label variants accepted for them.
MEME_TASKS: dict[str, tuple[str, ...]] = {
    "ER": ("exact recall",), "Agg": ("aggregation",), "Tr": ("tracking",),
    "Del": ("deletion",), "Cas": ("cascade",), "Abs": ("absence",),
}

#: MemoryAgentBench: capability -> canonical source names (D.1.4, D.5 eq. 6) as a weight tree.
MEMORYAGENTBENCH_TREE: dict = {
    "AR": ["LongMemEval", "EventQA", "RULER-QA1", "RULER-QA2"],
    "TTL": {"ReDial": 1, "ICL": ["Banking77", "CLINC150", "NLU", "TREC-coarse", "TREC-fine"]},
    "LRU": ["DetectiveQA", "InfBench-Sum"],
    "CR": ["FactConsolidation-SH", "FactConsolidation-MH"],
}

#: Source-name variants of MemoryAgentBench (the released source ids and common spellings).
MEMORYAGENTBENCH_ALIASES: dict[str, str] = {
    "longmemeval_s*": "LongMemEval", "longmemeval_s": "LongMemEval",
    "eventqa_full": "EventQA",
    "ruler_qa1_197K": "RULER-QA1", "ruler_qa1": "RULER-QA1",
    "ruler_qa2_421K": "RULER-QA2", "ruler_qa2": "RULER-QA2",
    "recsys_redial_full": "ReDial", "recsys_redial": "ReDial",
    "icl_banking77_5900shot_balance": "Banking77", "icl_banking77": "Banking77",
    "icl_clinic150_7050shot_balance": "CLINC150", "icl_clinic150": "CLINC150", "clinic150": "CLINC150",
    "icl_nlu_8296shot_balance": "NLU", "icl_nlu": "NLU",
    "icl_trec_coarse_6600shot_balance": "TREC-coarse", "icl_trec_coarse": "TREC-coarse",
    "icl_trec_fine_6400shot_balance": "TREC-fine", "icl_trec_fine": "TREC-fine",
    "detective_qa": "DetectiveQA",
    "infbench_sum_eng_shots2": "InfBench-Sum", "infbench_sum": "InfBench-Sum", "InfBench": "InfBench-Sum",
    "factconsolidation_sh_262k": "FactConsolidation-SH", "factconsolidation_sh": "FactConsolidation-SH",
    "FactConsolidation single-hop": "FactConsolidation-SH", "FC-SH": "FactConsolidation-SH",
    "factconsolidation_mh_262k": "FactConsolidation-MH", "factconsolidation_mh": "FactConsolidation-MH",
    "FactConsolidation multi-hop": "FactConsolidation-MH", "FC-MH": "FactConsolidation-MH",
}

_LOCOMO = tuple(LOCOMO_CATEGORIES[k] for k in sorted(LOCOMO_CATEGORIES))
_LOCOMO_ALIASES = {**{str(k): v for k, v in LOCOMO_CATEGORIES.items()},
                   "temporal-reasoning": "temporal", "temporal reasoning": "temporal"}

BUILTIN: dict[str, Scheme] = {s.name: s for s in (
    Scheme("mean", group_by="category", origin="built-in",
           description="question-weighted mean over every query (per-category columns when present)"),
    Scheme("locomo", group_by="category", exclude=("adversarial",), required_groups=_LOCOMO[:4],
           expected_n=1540, aliases=_LOCOMO_ALIASES, origin="built-in",
           description="LoCoMo-10: category 5 (adversarial) excluded; question-weighted mean over the "
                       "1,540 included questions and all judge repetitions (multi-hop 282, temporal 321, "
                       "open-domain 96, single-hop 841)",
           source="SPEC §6; Raw-RAG paper D.5, D.1.1"),
    Scheme("longmemeval", group_by="category", required_groups=tuple(LONGMEMEVAL_TYPES),
           expected_n=500, origin="built-in",
           description="LongMemEval-S: question-weighted mean over the 500 examples (six question types)",
           source="SPEC §6; Raw-RAG paper D.5, D.1.2"),
    Scheme("longmemeval-no-abs", group_by="category", exclude_ids=r"_abs$",
           required_groups=tuple(LONGMEMEVAL_TYPES), expected_n=470, origin="built-in",
           description="LongMemEval-S without the 30 abstention questions (ids ending '_abs'): "
                       "question-weighted mean over 470",
           source="SPEC §6; Raw-RAG paper D.1.2"),
    Scheme("meme", group_by="category", weights=list(MEME_TASKS), gates=("Del", "Cas", "Abs"),
           phase="after", required_groups=tuple(MEME_TASKS), expected_n=694, design="cluster",
           origin="built-in",
           aliases={alias: task for task, names in MEME_TASKS.items() for alias in names},
           description="MEME: task scores from after-phase answers; a Del/Cas/Abs pass counts only "
                       "if the before-phase twin (same pair_id) was correct; Overall = macro-average "
                       "of the six tasks ER, Agg, Tr, Del, Cas, Abs",
           source="SPEC §6; Raw-RAG paper D.5, D.1.3 (694 after-phase questions, A.5)"),
    Scheme("memoryagentbench", group_by="stratum", weights=MEMORYAGENTBENCH_TREE,
           required_groups=tuple(tree_weights(MEMORYAGENTBENCH_TREE)[0]), expected_n=2071,
           aliases=MEMORYAGENTBENCH_ALIASES, design="stratified", origin="built-in",
           description="MemoryAgentBench: 14 source scores -> AR = mean(LongMemEval, EventQA, RULER-QA1, "
                       "RULER-QA2); TTL = ½(ReDial + mean of 5 ICL sources); LRU = mean(DetectiveQA, "
                       "InfBench-Sum); CR = mean(FactConsolidation-SH, -MH); Overall = mean(AR, TTL, LRU, CR)",
           source="SPEC §6; Raw-RAG paper D.5 eq. 6, D.1.4"),
    Scheme("personamem", group_by="category", expected_n=5000, origin="built-in",
           description="PersonaMem-v2: question-weighted multiple-choice accuracy over 5,000 questions",
           source="SPEC §6; Raw-RAG paper D.5, D.1.5"),
)}


def known_schemes() -> tuple[str, ...]:
    """Names of the built-in schemes."""
    return tuple(BUILTIN)


def get_scheme(name_or_path: str | Path | Scheme | Mapping) -> Scheme:
    """A built-in scheme by name, a user scheme from a ``.yaml``/``.yml``/``.json`` file or a mapping.

    Names match ignoring case and punctuation (``MemoryAgentBench`` = ``memoryagentbench``).

    Raises
    ------
    SchemeError
        An unknown name (listing the built-in ones) or a bad scheme file.

    Examples
    --------
    >>> get_scheme("LoCoMo").exclude
    ('adversarial',)
    >>> {k: round(v, 4) for k, v in get_scheme("memoryagentbench").group_weights.items()}["ReDial"]
    0.125
    """
    if isinstance(name_or_path, Scheme):
        return name_or_path
    if isinstance(name_or_path, Mapping):
        return Scheme.from_dict(name_or_path)
    text = str(name_or_path)
    if Path(text).suffix.lower() in {".yaml", ".yml", ".json"} or Path(text).is_file():
        return Scheme.from_file(text)
    for name, scheme in BUILTIN.items():
        if _key(name) == _key(text):
            return scheme
    raise SchemeError(f"unknown scheme '{text}' (known: {', '.join(known_schemes())}). Give a built-in "
                      "name or a .yaml/.json scheme file.")


def resolve_scheme(scheme: str | Path | Scheme | Mapping | None) -> Scheme | None:
    """:func:`get_scheme` for an optional argument: None stays None (no official aggregation)."""
    return None if scheme is None else get_scheme(scheme)
