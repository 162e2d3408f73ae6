"""Change attribution: which queries a score change between two runs of one system comes from.

When a system is re-run after an intervention (the paper's A.4.4: disabling turn expansion
under a 5,000-token budget), every answer and judgment is regenerated, so the score moves on
queries whose input did not change too (reader and judge variability). Splitting the change
into the part from changed queries and the part from unchanged ones shows how much of it the
intervention can claim (SPEC §7; paper A.4.4: 41 modified contexts +0.065 points, 1,499
unchanged +0.281 points).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from memdiag import _checks
from memdiag._prepare import prepare
from memdiag._provenance import stamp
from memdiag.errors import SchemeError, VerdictError, listing
from memdiag._inference.intervals import describe, infer
from memdiag._resampling import run_seed
from memdiag._schemes import Scheme, resolve_scheme
from memdiag._verdicts import MissingQueryPolicy, MissingVerdictPolicy

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


def attribute_change(
    before_df: pd.DataFrame,
    after_df: pd.DataFrame,
    changed: str | Iterable[str] | pd.Series,
    *,
    system: str | None = None,
    scheme: str | Path | Scheme | None = None,
    design: str | None = None,
    inference: str = "auto",
    n_resamples: int = 20_000,
    seed: int | np.random.Generator = 0,
    confidence_level: float = 0.95,
    missing: MissingQueryPolicy = "error",
    verdict_missing: MissingVerdictPolicy = "as-wrong",
    cluster_missing: str = "error",
) -> pd.DataFrame:
    """Split a score change between two runs into changed-query and unchanged-query parts.

    Parameters
    ----------
    before_df, after_df
        Canonical verdicts of the two runs (of one system, or name it with ``system``).
    changed
        Which queries had their input changed by the intervention: a list of query ids, a
        boolean Series indexed by query id, or the name of a 0/1 column of ``after_df``.
    system
        The system to attribute when the verdicts hold several (default: the only one).
    scheme
        A question-weighted scheme whose exclusions apply (e.g. ``locomo``); schemes with
        group weights do not split additively and are refused.
    design, n_resamples, seed, confidence_level
        The paired intervals of the contributions under the design (SPEC §4; default from the
        scheme and data): percentile bootstrap, or the cluster jackknife t interval with fewer
        than 200 clusters (SPEC §4.1); ``attrs["method"]`` says which.
    inference
        ``auto``, ``percentile``, ``jackknife`` or ``cr2`` (:mod:`memdiag._inference.rule`).
    missing, verdict_missing
        The missing-query and missing-verdict policies of SPEC §1.4 for aligning the two runs
        (default ``error`` and ``as-wrong``).
    cluster_missing
        Queries without a cluster label when the others have one: ``"error"`` (default) or
        ``"own"`` (each its own cluster), as in :func:`memdiag.prepare`.

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
        verdicts, queries one run lacks under ``missing="error"``, an unknown policy or
        ``inference``, a bad ``n_resamples`` or ``confidence_level``.
    SchemeError
        An unknown scheme, or one with group weights (a change does not split additively).
    ValueError
        An unknown ``design``.
    TypeError
        ``seed`` is neither an int nor a :class:`numpy.random.Generator`.

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
    >>> attribute_change(before, after, changed=["a"], n_resamples=200)[["part", "n", "contribution"]]
            part  n  contribution
    0    changed  1          25.0
    1  unchanged  3           0.0
    2      total  4          25.0
    """
    scheme_obj = resolve_scheme(scheme)
    if scheme_obj is not None and scheme_obj.weights is not None:
        raise SchemeError(f"scheme '{scheme_obj.name}' weights groups, so a change does not split into "
                          "per-query parts; use a question-weighted scheme.")
    frames = [_one_system(before_df, system, "before"), _one_system(after_df, system, "after")]
    df = pd.concat(frames, ignore_index=True, sort=False)
    prepared = prepare(df, scheme=scheme_obj, systems=["before", "after"], missing=missing,
                       verdict_missing=verdict_missing, design=design, cluster_missing=cluster_missing)
    seed = run_seed(seed)
    panel = prepared.panel
    ids = _changed_ids(changed, after_df)
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

    res = infer(X, prepared.resampling, contributions, inference=inference, test=False,
                n_resamples=_checks.n_resamples(n_resamples),
                seed=seed, confidence_level=_checks.confidence_level(confidence_level), bounds=(-1.0, 1.0))
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
        notes.append(f"{len(unknown)} changed query ids are not among the aligned queries and were ignored: "
                     f"{listing(sorted(unknown))}")
    stamp(out, "attribute_change", prepared, notes=notes, n_resamples=n_resamples, seed=seed,
          confidence_level=confidence_level, unit="points", method=res.method, inference=inference,
          mc_se={end: [float(100 * v) for v in res.mc_se[end]] for end in ("ci_low", "ci_high")})
    return out
