"""Change attribution: which queries a score change between two runs of one system comes from.

When a system is re-run after an intervention (the paper's A.4.4: disabling turn expansion
under a 5,000-token budget), every answer and judgment is regenerated, so the score moves on
queries whose input did not change too (reader and judge variability). Splitting the change
into the part from changed queries and the part from unchanged ones shows how much of it the
intervention can claim (SPEC §7; paper A.4.4: 41 modified contexts +0.065 points, 1,499
unchanged +0.281 points).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from memdiag.core.kinds import declare
from memdiag.core.notes import Note
from memdiag.core.provenance import stamp
from memdiag.engine.inference.intervals import describe, infer
from memdiag.engine.options import Options, as_options
from memdiag.errors import SchemeError, VerdictError, listing
from memdiag.io.canonical import check
from memdiag.panel.prepare import Prepared, prepare

PARTS: tuple[str, ...] = ("changed", "unchanged", "total")


def _one_system(df: pd.DataFrame, system: str | None, label: str) -> pd.DataFrame:
    names = sorted(pd.unique(df["system"]))
    if system is None:
        if len(names) != 1:
            raise VerdictError(f"the {label} verdicts hold {len(names)} systems ({', '.join(names)}): "
                               "name the one to attribute with system=...")
        system = names[0]
    elif system not in names:
        raise VerdictError(f"system '{system}' is not in the {label} verdicts (systems: {', '.join(names)}).")
    return df[df["system"] == system].assign(system=label)


def _changed_ids(changed: str | Iterable[str] | pd.Series, after: pd.DataFrame) -> set[str]:
    if isinstance(changed, str):
        if changed not in after:
            raise VerdictError(f"changed='{changed}' is not a column of the after verdicts; pass the column "
                               "of 0/1 flags or the list of changed query ids.")
        flags = after.groupby("query_id")[changed].max()
        return set(flags.index[flags.astype(float) > 0].astype(str))
    if isinstance(changed, pd.Series) and changed.dtype == bool:
        return set(changed.index[changed].astype(str))
    return {str(q) for q in changed}


#: The choices of two prepared runs that must agree to pair them (systems differ by run).
_SHARED = ("scheme", "metric", "missing", "verdict_missing", "judges", "label_missing", "cluster_missing")


def _runs(before: pd.DataFrame | Prepared, after: pd.DataFrame | Prepared) -> tuple[pd.DataFrame, pd.DataFrame, Prepared | None]:
    """The verdict rows of the two runs and the prepared run whose choices pair them (None: both
    are verdicts, paired with the defaults)."""
    given = [run for run in (before, after) if isinstance(run, Prepared)]
    if len(given) == 2:
        differ = [k for k in _SHARED if _choice(before, k) != _choice(after, k)]
        if differ:
            raise VerdictError(f"the before and after runs were prepared with other {', '.join(differ)}; prepare "
                               "both with the same choices (md.prepare(df, ...)).")
    rows = [(run.source if run.source is not None else run.frame) if isinstance(run, Prepared) else check(run)
            for run in (before, after)]  # both checked: the same canonical columns
    return rows[0], rows[1], given[0] if given else None


def _choice(prepared: Prepared, key: str) -> object:
    value = prepared.choices.get(key)
    return getattr(value, "name", value)
def attribute_change(
    before_df: pd.DataFrame | Prepared,
    after_df: pd.DataFrame | Prepared,
    changed: str | Iterable[str] | pd.Series,
    *,
    system: str | None = None,
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """Split a score change between two runs into changed-query and unchanged-query parts.

    Parameters
    ----------
    before_df, after_df
        Canonical verdicts of the two runs (of one system, or name it with ``system``), or
        :func:`memdiag.prepare` output of either or both: the data choices that pair them (a
        question-weighted scheme whose exclusions apply, e.g. ``locomo`` — schemes with group
        weights do not split additively and are refused —, the missing-query, missing-verdict
        and cluster policies of SPEC §1.4) come from the prepared run(s), which must agree; the
        defaults (``error``, ``as-wrong``) for verdicts. The two runs are paired in one panel
        of systems ``before`` and ``after`` prepared here (:meth:`memdiag.Prepared.reprepare`).
    changed
        Which queries had their input changed by the intervention: a list of query ids, a
        boolean Series indexed by query id, or the name of a 0/1 column of ``after_df``.
    system
        The system to attribute when the verdicts hold several (default: the only one).
    options
        :class:`memdiag.Options` (a mapping of its fields, or None for the defaults): reads
        design, inference, n_resamples (at least 1), seed and confidence_level — the paired
        intervals of the contributions under the design (SPEC §4; default from the scheme and
        data): percentile bootstrap, or the cluster jackknife t interval with fewer than 200
        clusters (SPEC §4.1); ``attrs["method"]`` says which. No correction (one family of
        three parts that add up).

    Returns
    -------
    pandas.DataFrame
        Rows ``changed``, ``unchanged``, ``total``: ``n`` (queries in the part), ``contribution``
        (points of the overall change coming from the part) with ``ci_low`` / ``ci_high``,
        ``mean_change`` (the part's own mean change, points), ``before`` and ``after`` (the
        part's mean scores, points).

    Raises
    ------
    VerdictError
        Several systems and no ``system``, or a ``system`` not in the verdicts; ``changed``
        naming no column of ``after_df``, or none of its ids among the aligned queries; bad
        verdicts, queries one run lacks under ``missing="error"``; two prepared runs with
        other choices.
    SchemeError
        A scheme with group weights (a change does not split additively).

    Notes
    -----
    With Δ_i = after_i − before_i over the N aligned queries, the total change is
    (1/N) Σ_i Δ_i = (1/N) Σ_{i changed} Δ_i + (1/N) Σ_{i unchanged} Δ_i, and each term is that
    part's contribution (paper A.4.4). The parts add up to the total exactly, in the point
    estimate and in every replicate (and every leave-one-cluster-out estimate).

    References
    ----------
    SPEC §7.5 (change attribution), SPEC §4 and §4.1 (the intervals); Raw-RAG paper A.4.4 (on
    LoCoMo the 41 modified contexts contribute +0.065 points, the 1,499 unchanged +0.281).
    Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.

    Examples
    --------
    >>> before = pd.DataFrame({"system": "rag", "query_id": list("abcd"), "score": [0, 1, 0, 1]})
    >>> after = before.assign(score=[1, 1, 1, 0])
    >>> attribute_change(before, after, changed=["a"], options={"n_resamples": 200})[["part", "n", "contribution"]]
            part  n  contribution
    0    changed  1          25.0
    1  unchanged  3           0.0
    2      total  4          25.0
    """
    opts = as_options(options)
    before_rows, after_rows, base = _runs(before_df, after_df)
    scheme_obj = base.choices.get("scheme") if base is not None else None
    if scheme_obj is not None and scheme_obj.weights is not None:
        raise SchemeError(f"scheme '{scheme_obj.name}' weights groups, so a change does not split into "
                          "per-query parts; use a question-weighted scheme.")
    frames = [_one_system(before_rows, system, "before"), _one_system(after_rows, system, "after")]
    df = pd.concat(frames, ignore_index=True, sort=False)
    if base is None:
        prepared = prepare(df, systems=["before", "after"], design=opts.design)
    else:
        design = {"design": opts.design} if opts.design is not None else {}
        prepared = base.reprepare(rows=df, systems=["before", "after"], **design)
    seed, n_resamples = opts.seed, opts.resampled("attribute_change")
    confidence_level, inference = opts.confidence_level, opts.inference
    panel = prepared.panel
    ids = _changed_ids(changed, after_rows)
    unknown = ids.difference(panel.query_ids)
    if unknown and len(unknown) == len(ids):
        raise VerdictError(f"none of the {len(ids)} changed query ids is among the aligned queries "
                           f"(e.g. {sorted(unknown)[0]!r}). Check the ids.")
    mask = np.isin(panel.query_ids, list(ids)).astype(float)
    delta = panel.scores[:, 1] - panel.scores[:, 0]
    n = panel.n
    X = np.column_stack([delta * mask, delta * (1 - mask), np.ones(n)])

    def contributions(sums: np.ndarray) -> np.ndarray:
        parts = sums[:, :2] / sums[:, 2:3]
        return np.column_stack([parts, parts.sum(axis=1)])

    res = infer(X, prepared.resampling, contributions, inference=inference, test=False, n_resamples=n_resamples,
                seed=seed, confidence_level=confidence_level, bounds=(-1.0, 1.0))
    masks = (mask == 1, mask == 0, np.ones(n, dtype=bool))
    out = pd.DataFrame({
        "part": PARTS,
        "n": [int(m.sum()) for m in masks],
        "contribution": 100 * res.estimate,
        "ci_low": 100 * res.ci_low,
        "ci_high": 100 * res.ci_high,
        "mean_change": [100 * delta[m].mean() if m.any() else np.nan for m in masks],
        "before": [100 * panel.scores[m, 0].mean() if m.any() else np.nan for m in masks],
        "after": [100 * panel.scores[m, 1].mean() if m.any() else np.nan for m in masks],
    })
    notes = [describe(res, prepared.n_clusters)]
    if unknown:
        notes.append(Note(f"{len(unknown)} changed query ids are not among the aligned queries and were ignored: "
                          f"{listing(sorted(unknown))}", code="unknown-queries", severity="caution"))
    return stamp(out, "attribute_change", prepared, notes=notes, n_resamples=n_resamples, seed=seed,
                 kinds=declare(points=("contribution", "ci_low", "ci_high", "mean_change", "before", "after")),
                 confidence_level=confidence_level, unit="points", method=res.method, inference=inference,
                 mc_se={end: [float(100 * v) for v in res.mc_se[end]] for end in ("ci_low", "ci_high")})
