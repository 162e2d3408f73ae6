"""Views across benchmark × model settings: scores as small multiples with the pooled difference,
and the critical-difference diagram of mean ranks (Raw-RAG paper Figure 1 left; SPEC §10).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

from memdiag import plots
from memdiag.analyses.overview import overview, prepare_settings
from memdiag.engine.options import NO_RESAMPLING
from memdiag.panel.prepare import Prepared
from memdiag.plots._reading import alpha, alpha_text
from memdiag.synthesis.critical import critical_difference
from memdiag.synthesis.settings import pool_settings, setting_differences
from memdiag.views._view import Inputs, Parameter, Shown, Unavailable, View, register
from memdiag.views.captions import caption, intervals, warnings_of, with_warnings


def settings_of(inputs: Inputs, view: str) -> Mapping[tuple[str, str], Prepared]:
    """The benchmark × model settings: as given, else the verdicts split by their ``benchmark`` and
    ``model`` columns and each prepared under its benchmark's scheme with the data's policies."""
    if inputs.settings is not None:
        return inputs.settings
    prepared = inputs.verdicts(view)
    rows = prepared.source if prepared.source is not None else prepared.frame
    if "benchmark" not in rows and "model" not in rows:
        raise Unavailable(view, "one setting: give several (settings=, --setting NAME=PATH), or verdicts with "
                                "'benchmark' or 'model' columns")
    return inputs.once("settings", lambda: prepare_settings(rows, missing=prepared.missing,
                                                            verdict_missing=prepared.verdict_missing))


def _overview(inputs: Inputs, *, pooled: bool) -> Shown:
    settings = settings_of(inputs, "overview")
    scores = overview(settings, reference=inputs.reference, options=inputs.options)
    tables = {"overview": scores}
    if pooled:
        if not inputs.reference:
            raise Unavailable("overview", "the pooled difference needs the reference every other system is "
                                          "compared with (reference=, --reference NAME)")
        differences = setting_differences(settings, reference=inputs.reference, options=inputs.options)
        tables |= {"settings_differences": differences,
                   "settings_pooled": pool_settings(differences, options=inputs.options)}
    text = (f"Every system's official score in each of the {len(settings)} settings with its "
            f"{intervals(scores, one=True)}, each panel on its own scale")
    text += (f"; last panel: the random-effects pooled difference from {inputs.reference} with its "
             f"{intervals(tables['settings_pooled'], one=True)}." if pooled else ".")
    warned = tuple(dict.fromkeys(w for table in tables.values() for w in warnings_of(table)))
    return Shown("overview", tables,
                 partial(plots.overview, with_warnings(scores, warned), reference=inputs.reference,
                         labels=inputs.figure_labels, pooled=tables.get("settings_pooled")),
                 caption(text, warned), warned, labels=inputs.labels)


def _critical(inputs: Inputs) -> Shown:
    settings = settings_of(inputs, "critical")
    ranks = critical_difference(overview(settings, options=NO_RESAMPLING), options=inputs.options)
    text = (f"Mean rank of every system over the {len(settings)} settings (1 = best); bars join the systems not shown "
            f"to differ (α = {alpha_text(alpha(ranks))}).")
    warned = warnings_of(ranks)
    return Shown("critical", {"critical": ranks},
                 partial(plots.critical_difference, ranks, labels=inputs.figure_labels),
                 caption(text, warned), warned, labels=inputs.labels)


register(View(
    "overview", "every system's score in every benchmark × model setting (pooled: and the pooled difference)",
    _overview,
    (Parameter("pooled", False, "add the pooled difference from the reference and the u-of-N count (SPEC §10)"),),
    needs=("settings",), options=("design", "inference", "n_resamples", "seed", "confidence_level")))
register(View("critical", "mean ranks across settings and the groups not shown to differ (critical differences)",
              _critical, needs=("settings",), reference="unused", options=("confidence_level",)))
