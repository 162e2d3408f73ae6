"""Prepare verdicts once: check, scheme selection, alignment and design choice -> :class:`Prepared`.

Every diagnostic (flows, comparisons, scores, evidence, audits) works on a :class:`Prepared`; the
public functions accept either verdicts (and prepare them) or a :class:`Prepared` (and use it as
it is), so an analysis that asks many questions of one panel checks and aligns it once:

>>> import memdiag as md
>>> import pandas as pd
>>> df = pd.DataFrame({"system": ["rag"] * 4 + ["mem"] * 4, "query_id": list("abcd") * 2,
...                    "score": [1, 1, 0, 0, 1, 0, 1, 1]})
>>> prep = md.prepare(df)
>>> prep.systems, prep.n, prep.design
(('mem', 'rag'), 4, 'iid')
>>> md.flows(prep, "rag", options={"n_resamples": 200})[["system", "benefit", "tax"]]
  system  benefit  tax
0    mem        2    1
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from memdiag.core import checks as _checks
from memdiag.core.checks import LABEL_MISSING
from memdiag.core.notes import Note
from memdiag.engine.designs import Design, resolve_design
from memdiag.errors import VerdictError, listing
from memdiag.io.canonical import check
from memdiag.panel.align import MissingQueryPolicy, MissingVerdictPolicy, Panel, align
from memdiag.panel.cluster_labels import CLUSTER_MISSING, assign_clusters
from memdiag.panel.judges import judges_of, repeat_rule
from memdiag.panel.validate import (
    attribute_conflicts,
    label_disagreements,
    source_conventions,
)

if TYPE_CHECKING:  # pragma: no cover
    from memdiag.panel.schemes import Scheme, SchemeLayout

#: Metrics computed from the ``score`` column (accuracy) or the sufficiency labels beside it.
SCORE_METRICS: tuple[str, ...] = ("accuracy", "coverage", "utilization")
#: The label columns a metric needs for every query it uses (SPEC §3).
LABELS: dict[str, tuple[str, ...]] = {"coverage": ("sufficient",), "utilization": ("sufficient",)}


def metric_column(metric: str) -> str:
    """The per-query column a metric is computed from: ``score`` for accuracy, coverage and
    utilization (the labels ride along), the metric's own column otherwise (``f1``, ``bleu``).

    >>> metric_column("coverage"), metric_column("f1")
    ('score', 'f1')
    """
    return "score" if metric in SCORE_METRICS else metric


@dataclass(frozen=True, eq=False)
class Prepared:
    """Verdicts checked, selected by a scheme, aligned into a :class:`~memdiag.Panel`, with the
    resampling design chosen — once, for every diagnostic that follows.

    Attributes
    ----------
    panel
        The aligned, paired arrays (SPEC §1), after the scheme's selection.
    frame
        The checked verdict rows behind the panel (the scheme's selection applied, before
        alignment), for the diagnostics that need rows (judge agreement, evidence length).
    scheme
        The benchmark scheme (None: question-weighted mean, nothing excluded).
    column
        The per-query column the panel's scores hold (``score``, ``f1``, ...).
    design, design_reason
        The resampling design and the one line saying why (SPEC §4).
    missing, verdict_missing
        The alignment policies applied (SPEC §1).
    notes
        What the scheme excluded and what alignment did, and the label conflicts
        :func:`~memdiag.validate` reports (a query whose category differs between systems, a
        source label that names another category), one line each.
    judges
        The judge policy (``"mean"`` or a judge's name) when the verdicts name several judges.
    label_missing
        What a diagnostic does with queries whose label (``sufficient``, ...) is missing:
        ``"exclude"`` leaves them out of that diagnostic only (counted per system in the notes),
        ``"error"`` refuses them.
    cluster_missing
        What :func:`prepare` did with queries without a cluster label: ``"error"`` refused them,
        ``"own"`` made each a cluster of its own (SPEC §4.2).
    threshold
        The correctness threshold (a query is correct when its score > ``threshold``), or None:
        the scores as given, and 0.5 where a diagnostic needs a correct/incorrect outcome
        (SPEC §1.5). Read by every diagnostic that binarises or counts correct answers (flows,
        compare, costs, agreement, ...); the panel keeps the scores as given.
    choices
        The keyword arguments of :func:`prepare` that made these data (scheme, metric, systems,
        policies, design, judges, threshold), so a diagnostic that varies one of them
        (:meth:`reprepare`) keeps the others.
    source
        The checked verdict rows before the scheme's selection (what :meth:`reprepare` starts
        from).

    References
    ----------
    SPEC §1.4 (pairing and the missing-data policies), SPEC §4 (resampling designs) and SPEC §6.1
    (scheme selection).

    Examples
    --------
    Made by :func:`memdiag.prepare`; every diagnostic accepts it in place of the verdicts:

    >>> import memdiag as md
    >>> df = pd.DataFrame({"system": ["rag"] * 4 + ["mem"] * 4, "query_id": list("abcd") * 2,
    ...                    "score": [1, 1, 0, 0, 1, 0, 1, 1], "cluster": list("xxyy") * 2})
    >>> prep = md.prepare(df)
    >>> prep.systems, prep.n, prep.n_clusters, prep.design
    (('mem', 'rag'), 4, 2, 'cluster')
    >>> prep.design_reason
    'design cluster (default: the queries come in 2 clusters, resampled whole)'
    >>> prep.with_design("iid").design, prep.restrict(["rag"]).systems
    ('iid', ('rag',))
    """

    panel: Panel
    frame: pd.DataFrame = field(repr=False)
    scheme: Scheme | None
    column: str
    design: str
    design_reason: str
    missing: str
    verdict_missing: str
    notes: tuple[str, ...] = ()
    judges: str | None = None
    label_missing: str = "exclude"
    cluster_missing: str = "error"
    threshold: float | None = None
    choices: dict = field(default_factory=dict, repr=False)
    source: pd.DataFrame | None = field(default=None, repr=False)
    _layouts: dict = field(default_factory=dict, repr=False)

    @property
    def systems(self) -> tuple[str, ...]:
        """The aligned systems, in column order."""
        return self.panel.systems

    @property
    def n(self) -> int:
        """The number of aligned queries N."""
        return self.panel.n

    @cached_property
    def n_clusters(self) -> int | None:
        """The number of clusters G when every query has one, else None."""
        clusters = self.panel.queries.get("cluster")
        if clusters is None or clusters.isna().any():
            return None
        return int(clusters.nunique())

    @cached_property
    def resampling(self) -> Design:
        """The :class:`~memdiag.engine.designs.Design` of :attr:`design` for the panel's queries."""
        return Design.from_panel(self.panel, self.design)

    def layout(self, threshold: float | None = None) -> SchemeLayout | None:
        """The scheme resolved on the panel (scores binarised at ``threshold`` when given); cached."""
        if self.scheme is None:
            return None
        if threshold not in self._layouts:
            panel = self.panel if threshold is None else replace(
                self.panel, scores=(self.panel.scores > threshold).astype(float))
            self._layouts[threshold] = self.scheme.layout(panel)
        return self._layouts[threshold]

    def with_design(self, design: str | None) -> Prepared:
        """The same panel under another design (None: the benchmark's default)."""
        kind, why = resolve_design(self.panel.queries, design, self.scheme)
        if kind == self.design and why == self.design_reason:
            return self
        return replace(self, design=kind, design_reason=why, choices={**self.choices, "design": design},
                       _layouts={})

    def with_threshold(self, threshold: float | None) -> Prepared:
        """The same panel with another correctness threshold (:attr:`threshold`; nothing is
        aligned again: the panel keeps the scores, the diagnostics read the threshold).

        >>> import memdiag as md
        >>> df = pd.DataFrame({"system": ["a", "b"], "query_id": ["q1", "q1"], "score": [0.6, 1]})
        >>> prep = md.prepare(df)
        >>> prep.threshold, prep.with_threshold(0.7).threshold, prep.with_threshold(0.7).choices["threshold"]
        (None, 0.7, 0.7)
        """
        threshold = _checks.threshold(threshold)
        if threshold == self.threshold:
            return self
        return replace(self, threshold=threshold, choices={**self.choices, "threshold": threshold})

    def reprepare(self, rows: pd.DataFrame | None = None, **changes: object) -> Prepared:
        """:func:`prepare` again with these data's choices (:attr:`choices`) except ``changes``,
        on ``rows`` (default: the rows these were prepared from, :attr:`source`) — e.g. the
        same analysis on a filtered copy of the verdicts, or under another missing-query policy.

        >>> import memdiag as md
        >>> df = pd.DataFrame({"system": ["a", "a", "b"], "query_id": ["q1", "q2", "q1"], "score": [1, 0, 1]})
        >>> md.prepare(df, missing="wrong").reprepare(missing="drop").n
        1
        """
        if rows is None and self.source is None:
            raise VerdictError("these prepared data do not keep their source rows; call md.prepare(...) again.")
        return prepare(self.source if rows is None else rows, **{**self.choices, **changes})

    def restrict(self, systems: Sequence[str]) -> Prepared:
        """The same queries for ``systems`` only, in that order."""
        systems = list(systems)
        if tuple(systems) == self.systems:
            return self
        panel = self.panel.take(systems=systems)
        return replace(self, panel=panel, frame=self.frame[self.frame["system"].isin(systems)],
                       choices={**self.choices, "systems": systems}, _layouts={})

    def with_labels(self, columns: Sequence[str]) -> Prepared:
        """The queries every system has the labels ``columns`` for (SPEC §3), under
        :attr:`label_missing`: ``exclude`` leaves the others out of the diagnostic, with a note
        counting them per system; ``error`` refuses them.

        Raises
        ------
        VerdictError
            A label column the verdicts lack, missing labels under ``error``, or no query left.
        """
        panel = self.panel
        lacking = np.zeros((panel.n, len(panel.systems)), dtype=bool)
        gaps = []
        for column in columns:
            absent = np.isnan(panel.matrix(column))
            lacking |= absent
            gaps += [column] if absent.any() else []
        if not lacking.any():
            return self
        names = " / ".join(f"'{c}'" for c in gaps)
        per_system = ", ".join(f"{name} {int(k)}" for name, k in zip(panel.systems, lacking.sum(axis=0)))
        if self.label_missing == "error":
            i, j = np.argwhere(lacking)[0]
            raise VerdictError(f"{names} is missing for {int(lacking.sum())} (system, query) pairs ({per_system}), "
                               f"e.g. system '{panel.systems[j]}', query '{panel.query_ids[i]}'. Leave those "
                               "queries out of this diagnostic with label_missing='exclude' "
                               "(--label-missing exclude), or add the labels.")
        rows = ~lacking.any(axis=1)
        if not rows.any():
            empty = [name for name, col in zip(panel.systems, lacking.T) if col.all()]
            hint = f" Systems without any label: {', '.join(empty)}; leave them out (systems=...)." if empty else ""
            raise VerdictError(f"no query has {names} labels for every system ({per_system} missing).{hint}")
        out = self.subset(rows)
        note = Note(f"label missing exclude: {int((~rows).sum())} of {panel.n} queries without {names} labels for "
                    f"some system left out of this diagnostic (missing per system: {per_system}): "
                    f"{listing(panel.query_ids[~rows])}", code="label-missing", severity="caution")
        return replace(out, notes=self.notes + (note,))

    def subset(self, rows: np.ndarray) -> Prepared:
        """The queries ``rows`` (bool mask or indices), e.g. one category of a ``by=`` table."""
        panel = self.panel.take(rows)
        return replace(self, panel=panel, frame=self.frame[self.frame["query_id"].isin(panel.query_ids)],
                       _layouts={})


def _conflicts(rows: pd.DataFrame) -> list[str]:
    """The label conflicts :func:`~memdiag.validate` reports, for the notes of every result: one
    line per query attribute whose value differs between systems, one for all source labels that
    name another category than the canonical one."""
    notes = attribute_conflicts(rows)
    labels = label_disagreements(rows)
    if labels:
        notes.append(Note(f"{len(labels)} (system, label) pairs where a source's own category label names another "
                          f"category (the canonical category is used; md.validate lists them): "
                          + listing([line.removesuffix(" (the canonical category is used)") for line in labels], 2),
                          code="category-relabels", concerns=sorted({s for n in labels for s in n.concerns})))
    return notes + source_conventions(rows)


def scheme_notes(rows: pd.DataFrame) -> list[Note]:
    """The notes of a scheme's selection (``rows.attrs["scheme_notes"]``: the queries it excluded
    or could not place), one :class:`~memdiag.core.notes.Note` each with code ``scheme-selection``."""
    return [Note(f"{n['policy']}: {n['detail']}", code="scheme-selection")
            for n in rows.attrs.get("scheme_notes", ())]


def prepare(
    df: pd.DataFrame,
    *,
    scheme: str | Path | Scheme | None = None,
    metric: str = "accuracy",
    systems: Sequence[str] | None = None,
    missing: MissingQueryPolicy = "error",
    verdict_missing: MissingVerdictPolicy = "as-wrong",
    design: str | None = None,
    judges: str | None = None,
    label_missing: str = "exclude",
    cluster_missing: str = "error",
    threshold: float | None = None,
) -> Prepared:
    """Check, select, align and choose the design once (SPEC §1, §4, §6).

    Parameters
    ----------
    df
        Canonical verdicts (:func:`memdiag.read_verdicts`, or a frame with ``system``,
        ``query_id``, ``score``). A frame ``read_verdicts`` returned is not checked again.
    scheme
        A benchmark scheme (built-in name, YAML/JSON file or :class:`~memdiag.Scheme`): its query
        selection applies before pairing (runs that kept LoCoMo's adversarial questions pair with
        runs that dropped them) and its aggregation is what ``score`` and ``compare`` report.
    metric
        ``accuracy``, ``coverage`` or ``utilization`` (aligned on ``score``), or another per-query
        column (``f1``, ``bleu``), which the panel then holds as its scores.
    systems
        Keep these systems, in this order (default: all, sorted by name).
    missing, verdict_missing
        The missing-query (``error``, ``drop``, ``wrong``) and missing-verdict (``as-wrong``,
        ``exclude``) policies of SPEC §1, applied here and recorded in the notes.
    design
        ``iid``, ``stratified``, ``cluster`` or ``stratified-cluster``; None follows the scheme and
        the data (:func:`memdiag.engine.designs.resolve_design`). The choice and its reason are kept.
    judges
        Required when a ``judge`` column names several judges of the same answers: ``"mean"``
        (each answer scored by the mean over its judges) or one judge's name
        (:func:`memdiag.align`); recorded in the notes and ``attrs["judges"]`` of every result.
        With one judge or several, ``"majority"`` (per-question majority vote over the judge
        repeats) or ``"repeat:K"`` (judgment K alone) instead of the mean over repeats.
    label_missing
        ``"exclude"`` (default): a query whose label (``sufficient`` for coverage/utilization,
        ``result_covered``/``path_covered`` for retention) is missing for some system is left out
        of that diagnostic only, counted per system in its notes; ``"error"`` refuses it.
    cluster_missing
        ``"error"`` (default): when some queries have a ``cluster`` label and others do not,
        stop and name them (a missing label must never turn the design into ``iid``);
        ``"own"``: each unlabelled query is a cluster of its own, counted in a caution note.
        Without a ``cluster`` column the cluster is read from the query ids when they carry it
        (canonical LoCoMo ids, a scheme's ``cluster_from_id``); a clustered benchmark whose
        clusters cannot be found gets a warning note (:mod:`memdiag.panel.cluster_labels`).
    threshold
        A query is correct when its score (mean over judge repetitions) is > ``threshold``, a
        number in [0, 1); kept as :attr:`Prepared.threshold` and read by every diagnostic that
        binarises the scores or counts correct answers (flows, replay, compare, omnibus,
        bootstrap, costs, leaderboard, rank stability, fragility, the independence audit,
        agreement, cluster accuracy, augmentation). None (default): the scores as given, and 0.5
        where a correct/incorrect outcome is needed (SPEC §1.5). The panel keeps the scores.

    Returns
    -------
    Prepared
        The checked, selected and aligned panel with its design, policies and notes.

    Raises
    ------
    VerdictError
        Bad verdicts, unpaired queries under ``missing="error"``, an unknown system or policy, no
        query left after alignment, several judges and no ``judges`` policy, missing labels of a
        coverage or utilization metric under ``label_missing="error"``, queries without a cluster
        label under ``cluster_missing="error"``, a ``threshold`` outside [0, 1).
    SchemeError
        An unknown scheme, or one that keeps no query of the data.
    ValueError
        An unknown ``design``.

    References
    ----------
    SPEC §1.3–§1.4 (one score per query; pairing and the missing-data policies), SPEC §4 (the
    resampling design and its default) and SPEC §6.1 (scheme selection before pairing); Raw-RAG
    paper C.6 (the benchmark's resampling unit) and G.3 (unusable verdicts score 0).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"system": ["a", "a", "b"], "query_id": ["q1", "q2", "q1"], "score": [1, 0, 1]})
    >>> prep = prepare(df, missing="drop")
    >>> prep.n, prep.notes
    (1, ('missing queries drop: 1 queries not answered by every system dropped (b 1): q2',))
    """
    from memdiag.panel.schemes import resolve_scheme

    _checks.choice(missing, _checks.MISSING, "missing-query policy")
    _checks.choice(verdict_missing, _checks.VERDICT_MISSING, "missing-verdict policy")
    _checks.choice(label_missing, LABEL_MISSING, "missing-label policy")
    _checks.choice(cluster_missing, CLUSTER_MISSING, "missing-cluster policy")
    threshold = _checks.threshold(threshold)
    chosen = resolve_scheme(scheme)
    rows = check(df)
    source = rows
    notes: list[str] = []
    if chosen is not None:
        rows = chosen.select(rows)  # check() inside recognises the checked frame
        notes += scheme_notes(rows)
    column = metric_column(metric)
    panel = align(rows, missing=missing, verdict_missing=verdict_missing, systems=systems, metric=column,
                  checked=True, judges=judges)
    notes += panel.notes_text()
    notes += _conflicts(rows)
    if panel.n == 0:
        raise VerdictError("no query is left to analyse after alignment (" + "; ".join(panel.notes_text())
                           + "). The systems share no query id: check that the files are runs of the same "
                           "benchmark, and the query_id column (--field query_id=<column>).")
    clusters, cluster_notes = assign_clusters(panel.queries, panel.query_ids, chosen, cluster_missing)
    if clusters is not None:
        panel = replace(panel, queries=panel.queries.assign(cluster=clusters))
        labelled = rows["query_id"].map(dict(zip(panel.query_ids, clusters.to_numpy())))
        rows = rows.assign(cluster=labelled if "cluster" not in rows else labelled.where(labelled.notna(),
                                                                                          rows["cluster"]))
    notes = cluster_notes + notes   # a warning that the benchmark's clusters are unknown comes first
    kind, why = resolve_design(panel.queries, design, chosen)
    prepared = Prepared(panel=panel, frame=rows, scheme=chosen, column=column, design=kind, design_reason=why,
                        missing=missing, verdict_missing=verdict_missing, notes=tuple(notes),
                        judges=judges if judges_of(rows) or repeat_rule(judges) is not None else None,
                        label_missing=label_missing, cluster_missing=cluster_missing, threshold=threshold,
                        choices=dict(scheme=chosen, metric=metric, systems=None if systems is None else list(systems),
                                     missing=missing, verdict_missing=verdict_missing, design=design, judges=judges,
                                     label_missing=label_missing, cluster_missing=cluster_missing,
                                     threshold=threshold),
                        source=source)
    return prepared.with_labels(LABELS[metric]) if metric in LABELS else prepared


def as_prepared(
    data: pd.DataFrame | Prepared,
    *,
    scheme: str | Path | Scheme | None = None,
    metric: str = "accuracy",
    systems: Sequence[str] | None = None,
    missing: MissingQueryPolicy | None = None,
    verdict_missing: MissingVerdictPolicy | None = None,
    design: str | None = None,
    judges: str | None = None,
    label_missing: str | None = None,
    cluster_missing: str | None = None,
) -> Prepared:
    """``data`` prepared: verdicts go through :func:`prepare`; a :class:`Prepared` is used as it
    is, restricted to ``systems`` and moved to ``design`` when those are given; for coverage and
    utilization, only the queries with labels (:meth:`Prepared.with_labels`).

    The other preparation options cannot change a :class:`Prepared` (its panel was built with
    them): giving a different scheme, metric column or policy is an error that says to call
    :func:`prepare` again.
    """
    if not isinstance(data, Prepared):
        if not isinstance(data, pd.DataFrame):
            raise VerdictError(f"expected a verdict DataFrame or md.prepare(...) output, got "
                               f"{type(data).__name__}. Read files with md.read_verdicts first.")
        return prepare(data, scheme=scheme, metric=metric, systems=systems, missing=missing or "error",
                       verdict_missing=verdict_missing or "as-wrong", design=design, judges=judges,
                       label_missing=label_missing or "exclude", cluster_missing=cluster_missing or "error")
    clashes = []
    if scheme is not None:
        from memdiag.panel.schemes import resolve_scheme

        name = resolve_scheme(scheme).name
        if data.scheme is None or data.scheme.name != name:
            clashes.append(f"scheme {name} (prepared: {data.scheme.name if data.scheme else 'none'})")
    if metric_column(metric) != data.column:
        clashes.append(f"metric {metric} (prepared on column '{data.column}')")
    for option, value, have in (("missing", missing, data.missing),
                                ("verdict_missing", verdict_missing, data.verdict_missing),
                                ("judges", judges, data.judges), ("label_missing", label_missing, data.label_missing),
                                ("cluster_missing", cluster_missing, data.cluster_missing)):
        if value is not None and value != have:
            clashes.append(f"{option}={value} (prepared: {have})")
    if clashes:
        raise VerdictError("these data were prepared with other options: " + "; ".join(clashes)
                           + ". Call md.prepare(...) again with the options you want.")
    out = data.restrict(systems) if systems is not None else data
    out = out.with_design(design) if design is not None else out
    return out.with_labels(LABELS[metric]) if metric in LABELS else out
