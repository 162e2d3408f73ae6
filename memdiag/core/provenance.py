"""The provenance every result carries in ``DataFrame.attrs`` and the kinds of its columns (one builder for every function).

STYLE: results are values, not prints; the settings behind a number travel with it. Every public
function that returns a table makes it with :func:`stamp`: a :class:`~memdiag.core.result.Result`
with the kinds of its columns (:mod:`memdiag.core.kinds`) and ``attrs`` filled by
:func:`provenance`; the tables, the report and the figures read these instead of assuming them (a
figure says "Holm" only when ``attrs["correction"] == "holm"``, a table writes a column as a count
because it was declared one).

Keys (absent when they do not apply to the result):

==================  ==================================================================
``version``         the memdiag version that computed the table
``function``        the public function (``flows``, ``compare``, ...)
``unit``            ``points`` (rates, scores and differences ×100) where numbers have one
``scheme``          the benchmark scheme, ``metric`` what was measured
``design``          the resampling design, ``design_reason`` why it was used,
                    ``n_clusters`` the number of clusters when the data have them
``n_resamples``     bootstrap replicates B, ``seed`` the int that reproduces them,
                    ``confidence_level`` the interval level
``correction``      the multiplicity adjustment of ``p_adj``
``threshold``       the correctness threshold when scores were binarised
``missing``         the missing-query policy, ``verdict_missing`` the missing-verdict policy
``judges``          the judge policy (``mean`` or one judge) when several judges rated the answers
``notes``           every line a reader must see (exclusions, policies, undefined replicates), each
                    a :class:`memdiag.core.notes.Note` (code, severity, concerns)
==================  ==================================================================
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from memdiag.core.notes import Note, as_note

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Mapping

    import pandas as pd

    from memdiag.core.kinds import Kind
    from memdiag.core.result import Result
    from memdiag.panel.prepare import Prepared

#: The unit of every rate, score and difference memdiag reports.
POINTS = "points"


def provenance(function: str, prepared: Prepared | None = None, *, notes: Iterable[str] = (),
               resampled: bool = True, **settings: object) -> dict:
    """The ``attrs`` of a result of ``function``: version, unit, the prepared data's scheme, design
    and policies, the given settings (``None`` values left out) and the notes.

    ``notes`` come after the prepared data's own notes (design reason, scheme exclusions, alignment
    policies), in order. ``resampled=False`` leaves the design out (a result without intervals).

    >>> a = provenance("score", n_resamples=0, seed=None)
    >>> a["function"], "seed" in a, a["notes"]
    ('score', False, [])
    """
    from memdiag import __version__

    attrs: dict = {"version": __version__, "function": function}
    lines: list[str] = []
    if prepared is not None:
        attrs.update(scheme=prepared.scheme.name if prepared.scheme is not None else None,
                     n_clusters=prepared.n_clusters, missing=prepared.missing,
                     verdict_missing=prepared.verdict_missing, judges=prepared.judges)
        if resampled:
            attrs.update(design=prepared.design, design_reason=prepared.design_reason)
            lines.append(Note(prepared.design_reason, code="design"))
        lines += prepared.notes
    attrs.update(settings)
    attrs = {key: value for key, value in attrs.items() if value is not None}
    attrs["notes"] = [as_note(n) for n in lines] + [as_note(n) for n in notes]
    return attrs


def stamp(frame: pd.DataFrame, function: str, prepared: Prepared | None = None, *, kinds: Mapping[str, Kind],
          notes: Iterable[str] = (), resampled: bool = True, **settings: object) -> Result:
    """``frame`` as a :class:`~memdiag.core.result.Result` with ``kinds`` declared (on top of any
    it declares already: a table built from other results) and its ``attrs`` set to
    :func:`provenance`.

    ``kinds`` (``{column: Kind}``, :func:`memdiag.core.kinds.declare`) must name every float
    column: a float may be points, a p-value, a fraction or a count with missing values; bool,
    integer and text columns are settled by their dtype when left out.

    >>> import pandas as pd
    >>> from memdiag.core.kinds import POINTS
    >>> out = stamp(pd.DataFrame({"system": ["a"], "overall": [66.9]}), "score", kinds={"overall": POINTS},
    ...             n_resamples=0)
    >>> type(out).__name__, out.attrs["function"]
    ('Result', 'score')
    """
    from memdiag.core.result import as_result

    out = as_result(frame, kinds)
    out.attrs = provenance(function, prepared, notes=notes, resampled=resampled, **settings)
    return out
