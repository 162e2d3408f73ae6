"""Views of paired comparisons: the forest of differences from the reference, the pairwise matrix,
and the matrix of the evidence tests (SPEC §3, §5, §8).
"""

from __future__ import annotations

from functools import partial

import pandas as pd

from memdiag import plots
from memdiag.analyses.compare import compare
from memdiag.analyses.evidence import evidence_tests
from memdiag.errors import VerdictError
from memdiag.panel.prepare import Prepared, metric_column
from memdiag.plots._reading import alpha, alpha_text
from memdiag.plots.matrix import max_matrix_systems
from memdiag.views._view import Inputs, Parameter, Shown, Unavailable, View, register
from memdiag.views.captions import (
    caption,
    cluster_warnings,
    intervals,
    significance,
    warnings_of,
    with_warnings,
)

#: The forest's layouts of the groups of ``by``.
ARRANGEMENTS: tuple[str, ...] = ("auto", "stacked", "grid")


def for_metric(prepared: Prepared, metric: str, **changes: object) -> Prepared:
    """``prepared`` holding ``metric`` (prepared again, with ``changes``, when it holds another)."""
    if metric_column(metric) == prepared.column and not changes:
        return prepared
    return prepared.reprepare(metric=metric, **changes)


def compared(inputs: Inputs, view: str) -> Prepared:
    """The prepared verdicts of a comparison, which needs two systems."""
    prepared = inputs.verdicts(view)
    if len(prepared.systems) < 2:
        raise Unavailable(view, "a comparison needs at least two systems")
    return prepared


def table_name(by: str | None) -> str:
    """The report's name of the table of differences from the reference (by groups of ``by``)."""
    return "pairwise_vs_reference" if by is None else f"contrasts_by_{by}"


def _forest(inputs: Inputs, *, metric: str, by: str | None, arrange: str) -> Shown:
    prepared = compared(inputs, "forest")
    reference = inputs.compared_with("forest")
    if arrange != "auto" and by is None:
        raise VerdictError("arrange= (--arrange) lays out the groups of by= (--by); without by there is one "
                           "block. Give by, or drop arrange.")
    table = inputs.once(("compare", "reference", reference, metric, by),
                        lambda: compare(for_metric(prepared, metric), metric=metric, by=by,
                                        reference=reference, options=inputs.options))
    drawn = with_warnings(table, cluster_warnings(inputs, prepared.systems, reference))
    what = f"{str(table.attrs.get('metric', metric)).capitalize()} difference of every system from {reference}"
    if by is None:
        text = (f"{what} with its {intervals(table, one=True)}; filled markers: {significance(table)} over the "
                f"comparisons with {reference}.")
    else:
        heading = "the category's integer and name" if by == "category" else f"the {by}"
        text = (f"{what} within each {by} with its {intervals(table, one=True)}, under a heading with {heading}; "
                f"filled markers: {significance(table)} within the {by}.")
    warned = warnings_of(drawn)
    return Shown("forest", {table_name(by): table},
                 partial(plots.forest, drawn, reference=reference, all_systems=inputs.systems,
                         labels=inputs.figure_labels, layout=arrange),
                 caption(text, warned), warned, labels=inputs.labels)


def _order(systems: tuple[str, ...], reference: str | None) -> list[str]:
    """The matrix's rows and columns: the reference first, when there is one."""
    return [reference, *(s for s in systems if s != reference)] if reference in systems else list(systems)


def _left_out(name: str, systems: list[str]) -> str | None:
    """Why the matrix ``name`` is not drawn for ``systems`` (the matrix limit), or None."""
    if len(systems) <= max_matrix_systems():
        return None
    return (f"figure {name} left out: it draws at most {max_matrix_systems()} systems (the matrix limit; set "
            f"MEMDIAG_MAX_MATRIX_SYSTEMS to raise it), the data have {len(systems)}; the tables hold every pair.")


def _cells(upper: pd.DataFrame, lower: pd.DataFrame | None = None) -> str:
    """How a matrix cell reads: its interval, the star and the bold, at the result's level."""
    a = alpha_text(alpha(upper))
    scales = ", each triangle on its own colour scale" if lower is not None else ""
    return (f"row − column in points{scales}, with its {intervals(upper, one=True)}; * marks p < {a} for the "
            f"comparison (as its interval), bold a {significance(upper)} over all pairs.")


def _matrix(inputs: Inputs, *, metric: str, lower: str | None) -> Shown:
    prepared = compared(inputs, "matrix")
    upper = inputs.once(("compare", "all", metric),
                        lambda: compare(for_metric(prepared, metric), metric=metric,
                                        options=inputs.options))
    below = (compare(for_metric(prepared, lower, scheme=None), metric=lower, options=inputs.options)
             if lower else None)
    systems = _order(prepared.systems, inputs.reference)
    warned = cluster_warnings(inputs, systems)
    drawn = [with_warnings(upper, warned), None if below is None else with_warnings(below, warned)]
    if below is None:
        text = f"Every pairwise {metric} difference, {_cells(upper)}"
    else:
        text = f"Pairwise {metric} differences (upper triangle) and {lower} differences (lower triangle), {_cells(upper, below)}"
    if inputs.reference in systems:
        text += f" {inputs.reference} comes first."
    left_out = _left_out("matrix", systems)
    tables = {"pairwise": upper} | ({f"pairwise_{lower}": below} if below is not None else {})
    shown = warnings_of(drawn[0])
    return Shown("matrix", tables,
                 None if left_out else partial(plots.matrix, drawn[0], drawn[1], systems=systems,
                                               labels=inputs.figure_labels),
                 caption(text, shown), shown, left_out, inputs.labels)


def labelled_systems(df: pd.DataFrame) -> list[str]:
    """Systems with a ``sufficient`` label for some query (queries without one are left out of
    the evidence diagnostics and counted in their notes, under the label_missing policy)."""
    if "sufficient" not in df:
        return []
    some = df["sufficient"].notna().groupby(df["system"]).any()
    return sorted(some.index[some])


def _metric_rows(pairs: pd.DataFrame, metric: str) -> pd.DataFrame:
    rows = pairs[pairs["metric"] == metric].reset_index(drop=True)
    rows.attrs = {**pairs.attrs, "metric": metric}
    return rows


def _evidence_matrix(inputs: Inputs) -> Shown:
    prepared = inputs.verdicts("evidence-matrix")
    labelled = labelled_systems(prepared.frame)
    if len(labelled) < 2:
        raise Unavailable("evidence-matrix", "fewer than two systems carry 'sufficient' (evidence sufficiency) labels")
    pairs, tests = evidence_tests(prepared.restrict(labelled), options=inputs.options)
    warned = cluster_warnings(inputs, labelled)
    upper, lower = (with_warnings(_metric_rows(pairs, m), warned) for m in ("coverage", "utilization"))
    text = f"Pairwise coverage differences (upper triangle) and utilization differences (lower triangle), {_cells(upper, lower)}"
    left_out = _left_out("evidence_matrix", labelled)
    shown = warnings_of(upper)
    return Shown("evidence-matrix", {"evidence_omnibus": tests, "evidence_pairs": pairs},
                 None if left_out else partial(plots.matrix, upper, lower, systems=labelled,
                                               labels=inputs.figure_labels),
                 caption(text, shown), shown, left_out, inputs.labels)


register(View(
    "forest", "differences from the reference with intervals and adjusted p (one block per group of by)", _forest,
    (Parameter("metric", "accuracy", "metric of the differences"),
     Parameter("by", None, "one block per group of this column (e.g. category), adjusted within each"),
     Parameter("arrange", "auto", "with by: the groups stacked, or small multiples on one x scale (auto: small "
                                  "multiples when stacking would not fit a page)", ARRANGEMENTS)),
    reference="required"))
register(View(
    "matrix", "pairwise differences of every pair: metric above the diagonal, lower below (the reference first)",
    _matrix,
    (Parameter("metric", "accuracy", "metric of the upper triangle"),
     Parameter("lower", None, "metric of the lower triangle (e.g. utilization; default: the upper one)"))))
register(View(
    "evidence-matrix", "pairwise coverage (upper triangle) and utilization (lower) differences of the evidence tests",
    _evidence_matrix, reference="unused"))
