"""One view per diagnostic: its result, figure and caption, shared by the report, ``memdiag plot`` and the API.

A view (:class:`View`) knows how its result is computed from prepared data and options — the one
call the report makes, with the report's defaults — which plot function draws it, and its caption,
built from the result: its level, correction and design, and the warnings attached to it.
:data:`VIEWS` holds every view by name (``venn``, ``venn3``, ``forest``, ``matrix``,
``evidence-matrix``, ``bubble``, ``ingestion``, ``sensitivity``, ``store-gap``, ``writes``,
``actions``, ``overview``, ``critical``); adding a diagnostic's figure is one :func:`register`
call in one module of this package.

This module is ``md.plot``: the drawing functions of :mod:`memdiag.plots` (a result frame in,
a figure out) and, from data, :func:`view` (the result frames, the figure and its caption) and
:func:`draw` (the figure alone), with the defaults of the report::

    fig = md.plot.draw("forest", df, reference="raw-rag", options={"confidence_level": 0.9})
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from memdiag.analyses.overview import prepare_settings
from memdiag.engine.options import Options, as_options
from memdiag.panel.prepare import Prepared, prepare
from memdiag.plots import (
    ONE_COLUMN,
    TWO_COLUMN,
    bubble,
    critical_difference,
    forest,
    ingestion,
    matrix,
    mutation_rates,
    overview,
    save,
    sensitivity,
    store_gap,
    system_colors,
    system_styles,
    venn,
    venn3,
    write_actions,
)
from memdiag.tables.aliases import aliases
from memdiag.views import compare as _compare  # noqa: F401  (each module registers its views)
from memdiag.views import costs as _costs  # noqa: F401
from memdiag.views import flows as _flows  # noqa: F401
from memdiag.views import settings as _settings  # noqa: F401
from memdiag.views import sweeps as _sweeps  # noqa: F401
from memdiag.views import writes as _writes  # noqa: F401
from memdiag.views._view import (
    VIEWS,
    Inputs,
    Parameter,
    Shown,
    Unavailable,
    View,
    register,
)

__all__ = ["ONE_COLUMN", "TWO_COLUMN", "VIEWS", "Inputs", "Parameter", "Shown", "Unavailable", "View", "bubble",
           "critical_difference", "draw", "forest", "ingestion", "matrix", "mutation_rates", "overview", "register",
           "save", "sensitivity", "store_gap", "system_colors", "system_styles", "venn", "venn3", "view",
           "write_actions"]


def view(
    kind: str,
    data: pd.DataFrame | Prepared | Mapping | None = None,
    *,
    reference: str | None = None,
    options: Options | Mapping | None = None,
    labels: Mapping[str, str] | None = None,
    systems_table: pd.DataFrame | None = None,
    write_log: pd.DataFrame | None = None,
    ingestion_log: pd.DataFrame | None = None,
    **parameters: Any,
) -> Shown:
    """A diagnostic's result frames, figure and caption from data, as the report makes them.

    Parameters
    ----------
    kind
        The view's name, a key of :data:`VIEWS` (``venn``, ``forest``, ``matrix``, ``bubble``, ...).
    data
        Canonical verdicts (prepared with the defaults of :func:`memdiag.prepare`), a
        :class:`memdiag.Prepared` (its data choices kept), or for the views across settings
        (``overview``, ``critical``) verdicts with ``benchmark`` / ``model`` columns or a mapping
        ``{(benchmark, model): verdicts}`` (:func:`memdiag.prepare_settings`); None for the views
        of a log alone. The views that count correct answers (flows, Venn diagrams) read the
        prepared threshold (``md.prepare(threshold=...)``; None: 0.5).
    reference
        The system every other is compared with (required by ``venn``, ``venn3`` and ``forest``).
    options
        :class:`memdiag.Options` (or a mapping of its fields; None: the defaults): design,
        inference, B, seed, confidence level (every interval, α = 1 − the level in every legend
        and caption) and correction.
    labels
        Aliases ``{system: label}``, added to a recipe's labels and the systems table's ``label``
        column (:func:`memdiag.tables.aliases.aliases`): drawn in the figure and written in the caption.
    systems_table
        System-level facts keyed by ``system``: costs and store sizes (``bubble``), variants
        (``store-gap``), labels.
    write_log
        A memory decision log (:func:`memdiag.read_write_log`) for ``writes`` and ``actions``.
    ingestion_log
        Per-item ingestion durations (:func:`memdiag.read_ingestion_log`) for ``ingestion``.
    **parameters
        The view's own options (``VIEWS[kind].parameters``), e.g. ``shared_scale=False`` of
        ``venn``, ``by="category"`` of ``forest``, ``lower="utilization"`` of ``matrix``.

    Returns
    -------
    Shown
        ``tables`` (the result frames, under the report's table names), ``draw`` / ``figure()``,
        ``caption`` and ``warnings``.

    Raises
    ------
    KeyError
        An unknown ``kind`` (the message lists the views).
    TypeError
        A parameter the view does not have.
    Unavailable
        The data cannot support the view (the reason says what to give): a VerdictError.
    VerdictError, SchemeError
        Bad verdicts, options or side inputs.

    References
    ----------
    SPEC §8 (the figures), SPEC §4.6 (one number per pair: the figure draws the report's numbers).

    Examples
    --------
    >>> import memdiag as md
    >>> df = md.simulate(n_queries=200, systems={"raw-rag": 0.6, "mem0": 0.55}, seed=1)
    >>> shown = view("forest", df, reference="raw-rag", options={"n_resamples": 200, "confidence_level": 0.9},
    ...              labels={"raw-rag": "RAG"})
    >>> list(shown.tables), "90% interval" in shown.caption, "RAG" in shown.caption, "raw-rag" in shown.caption
    (['pairwise_vs_reference'], True, True, False)
    """
    if kind not in VIEWS:
        raise KeyError(f"no view named {kind!r}; the views: {', '.join(VIEWS)}.")
    target = VIEWS[kind]
    prepared, settings = None, None
    if "settings" in target.needs and data is not None and not isinstance(data, Prepared):
        settings = prepare_settings(data)
    elif isinstance(data, Prepared):
        prepared = data
    elif data is not None:
        prepared = prepare(data)
    names = aliases(prepared.frame, systems_table, labels) if prepared is not None else dict(labels or {})
    inputs = Inputs(prepared, as_options(options), reference, None, names, systems_table, write_log,
                    ingestion_log, settings)
    return target.show(inputs, **parameters)


def draw(kind: str, data: pd.DataFrame | Prepared | Mapping | None = None, **given: Any) -> Figure:
    """The figure of a diagnostic drawn from data, with the report's defaults (:func:`view`).

    Parameters
    ----------
    kind
        The view's name, a key of :data:`VIEWS`.
    data
        As for :func:`view`.
    **given
        The other arguments of :func:`view` (``reference``, ``options``, ``labels``, ...) and the
        view's own parameters.

    Returns
    -------
    matplotlib.figure.Figure
        The figure, with the warnings attached to its result among its notes.

    Raises
    ------
    KeyError, TypeError, VerdictError, SchemeError
        As for :func:`view`; a VerdictError also when the figure is left out (more systems than
        a matrix holds).

    References
    ----------
    SPEC §8 (the figures).

    Examples
    --------
    >>> import memdiag as md
    >>> df = md.simulate(n_queries=200, systems={"raw-rag": 0.6, "mem0": 0.55, "zep": 0.5}, seed=1)
    >>> fig = draw("matrix", df, reference="raw-rag", options={"n_resamples": 200})
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()][0]
    'raw-rag'
    """
    return view(kind, data, **given).figure()
