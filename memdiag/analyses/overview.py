"""Accuracy across benchmark × model settings, each under its own official aggregation (Raw-RAG paper
Figure 1 left: "accuracy across seven benchmark–model settings"; §4.2: Raw-RAG ranks first in six
of seven; SPEC §8).

A *setting* is a benchmark scored with one reader model. :func:`overview` scores every system of
every setting under that benchmark's scheme (LoCoMo without its adversarial category, MEME's
gated six-task macro, MemoryAgentBench's nested capabilities, ...), with the interval its design
gives, and ranks the systems within the setting; :func:`memdiag.plots.overview` draws one panel
per setting on its own scale.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from memdiag.analyses.compare import bootstrap
from memdiag.core.kinds import declare
from memdiag.core.notes import Note
from memdiag.core.provenance import stamp
from memdiag.engine.options import Options, as_options
from memdiag.errors import VerdictError
from memdiag.panel.metrics import metric_columns
from memdiag.panel.prepare import Prepared, prepare
from memdiag.panel.schemes import known_schemes

__all__ = ["overview", "prepare_settings", "scheme_for"]

#: Columns that name a setting, in order.
SETTING: tuple[str, ...] = ("benchmark", "model")


def scheme_for(benchmark: str, frame: pd.DataFrame | None = None) -> str | None:
    """The built-in scheme of a benchmark: its name when memdiag knows it (case and spaces
    ignored), else the data's own ``benchmark`` column when that names one, else None (plain mean).

    >>> scheme_for("LoCoMo"), scheme_for("MEME"), scheme_for("my-benchmark")
    ('locomo', 'meme', None)
    """
    known = set(known_schemes()) - {"mean"}
    name = str(benchmark).strip().lower().replace(" ", "")
    if name in known:
        return name
    if frame is not None and "benchmark" in frame:
        values = {str(v).strip().lower() for v in frame["benchmark"].dropna().unique()}
        if len(values) == 1 and next(iter(values)) in known:
            return next(iter(values))
    return None


def _settings(data: pd.DataFrame | Mapping) -> list[tuple[str, str, pd.DataFrame | Prepared]]:
    """``(benchmark, model, verdicts)`` of every setting, in order."""
    if isinstance(data, Mapping):
        out = []
        for key, frame in data.items():
            benchmark, model = (key if isinstance(key, tuple) else (key, ""))
            out.append((str(benchmark), str(model), frame))
        return out
    if not isinstance(data, pd.DataFrame):
        raise VerdictError(f"overview takes verdicts (a DataFrame with a 'benchmark' and/or 'model' column) or "
                           f"a mapping {{setting: verdicts}}, not {type(data).__name__}.")
    by = [c for c in SETTING if c in data]
    if not by:
        raise VerdictError("the verdicts name no setting: give them a 'benchmark' and/or 'model' column, or pass "
                           "a mapping {(benchmark, model): verdicts}.")
    keys = data[by].astype("string").fillna("")
    grouped = data.groupby(keys[by[0]] if len(by) == 1 else [keys[c] for c in by], sort=False)
    out = []
    for values, part in grouped:
        named = dict(zip(by, values if isinstance(values, tuple) else (values,)))
        out.append((named.get("benchmark", ""), named.get("model", ""), part))
    return out


def _prepared(benchmark: str, frame: pd.DataFrame | Prepared, schemes: Mapping[str, str | None] | None,
              metric: str = "accuracy", **choices: Any) -> Prepared:
    """One setting's data prepared under its benchmark's scheme (``schemes`` overriding
    :func:`scheme_for`) with ``choices``; prepared data as they are."""
    if isinstance(frame, Prepared):
        return frame
    scheme = (schemes or {}).get(benchmark, scheme_for(benchmark, frame))
    return prepare(frame, scheme=scheme, metric=metric, **choices)


def _estimates(prepared: Prepared) -> pd.DataFrame:
    """Each system's official accuracy in points without an interval (``n_resamples=0``)."""
    cols = metric_columns(prepared, "accuracy", None)
    estimate = 100 * cols.statistic(cols.X.sum(axis=0)[None, :])[0]
    out = pd.DataFrame({"system": list(prepared.systems), "estimate": estimate, "ci_low": np.nan,
                        "ci_high": np.nan, "n": prepared.n, "design": prepared.design})
    out.attrs["method"] = "point estimates (n_resamples=0)"
    return out


def prepare_settings(
    data: pd.DataFrame | Mapping[str | tuple[str, str], pd.DataFrame | Prepared],
    *,
    schemes: Mapping[str, str | None] | None = None,
    metric: str = "accuracy",
    **choices: Any,
) -> dict[tuple[str, str], Prepared]:
    """Every benchmark × model setting of ``data`` prepared once, under its benchmark's scheme.

    What :func:`memdiag.prepare` is to one panel, this is to several: verdicts of several
    benchmarks may share query ids, so they cannot be aligned as one panel. Pass the result to
    :func:`memdiag.overview` or :func:`memdiag.setting_differences` to apply the same data
    choices in every setting.

    Parameters
    ----------
    data
        Verdicts with ``benchmark`` (and optionally ``model``) columns, or a mapping
        ``{(benchmark, model) or benchmark: verdicts or md.prepare(...) output}``. Prepared
        values are kept as they are.
    schemes
        ``{benchmark: scheme}`` overriding the scheme read from each benchmark's name (None:
        no scheme, the question-weighted mean).
    metric
        The metric the panels hold (as in :func:`memdiag.prepare`).
    **choices
        The other keywords of :func:`memdiag.prepare` (``missing``, ``verdict_missing``,
        ``judges``, ``label_missing``, ``cluster_missing``, ``design``), for every setting.

    Returns
    -------
    dict
        ``{(benchmark, model): Prepared}`` in the order of the data (model ``""`` when absent).

    Raises
    ------
    VerdictError
        Bad verdicts or policies in some setting (the message names it).
    SchemeError
        A scheme a setting's verdicts cannot satisfy.

    References
    ----------
    SPEC §8 (accuracy across settings) and SPEC §10.1 (per-setting differences); SPEC §1.4
    (the missing-data policies).

    Examples
    --------
    >>> rows = [(b, s, f"q{i}", float(i < k)) for b, s, k in (("x", "rag", 3), ("y", "rag", 2)) for i in range(4)]
    >>> df = pd.DataFrame(rows, columns=["benchmark", "system", "query_id", "score"])
    >>> {key: p.missing for key, p in prepare_settings(df, missing="drop").items()}
    {('x', ''): 'drop', ('y', ''): 'drop'}
    """
    return {(benchmark, model): _prepared(benchmark, frame, schemes, metric, **choices)
            for benchmark, model, frame in _settings(data)}


def overview(
    data: pd.DataFrame | Mapping[str | tuple[str, str], pd.DataFrame | Prepared],
    *,
    schemes: Mapping[str, str | None] | None = None,
    reference: str | None = None,
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """Every system's official score in every benchmark × model setting, with intervals and ranks.

    Parameters
    ----------
    data
        Verdicts with a ``benchmark`` and/or ``model`` column (one setting per value, or pair of
        values), or a mapping ``{benchmark: verdicts}`` / ``{(benchmark, model): verdicts}`` (a
        :func:`memdiag.prepare` output as the value keeps its own scheme and policies). Verdicts
        are prepared with the defaults under their benchmark's scheme; to set the data choices
        (missing-data policies, judges) for every setting, pass :func:`prepare_settings` output.
    schemes
        ``{benchmark: scheme}`` overriding :func:`scheme_for` (None for a plain mean).
    reference
        A system to mark (usually raw-history RAG): ``is_reference`` is True on its rows.
    options
        :class:`memdiag.Options` (or a mapping of its fields; None: the defaults), as in
        :func:`memdiag.bootstrap`, for every setting: reads design (None: each setting's scheme
        and clusters), inference, n_resamples (0: point estimates only, without intervals —
        what a ranking such as :func:`memdiag.critical_difference` needs), seed and
        confidence_level; not correction (nothing is tested).

    Returns
    -------
    pandas.DataFrame
        One row per (setting, system): ``benchmark, model, setting`` (``benchmark · model``),
        ``system, estimate, ci_low, ci_high`` (points), ``rank`` (1 = best within the setting;
        ties share the better rank), ``n_systems, n, scheme, design, method, is_reference``.

    Raises
    ------
    VerdictError
        Data that are neither verdicts nor a mapping of them, verdicts without a ``benchmark``
        or ``model`` column, no setting to score, or what :func:`memdiag.bootstrap` raises for a
        setting (bad verdicts).
    SchemeError
        An unknown scheme in ``schemes``, or one a setting's data cannot satisfy.

    Notes
    -----
    Each setting is analysed on its own (its own queries, alignment, design and interval): the
    settings share no queries, so no difference between settings is tested.

    References
    ----------
    SPEC §8 (overview across settings), SPEC §6.3 (the built-in schemes) and SPEC §4.1 (each
    setting's interval); Raw-RAG paper §4.2 (Raw-RAG ranks first in six of seven settings) and
    Figure 1 (left).

    Examples
    --------
    >>> rows = [(b, s, f"q{i}", float(i < k)) for b, s, k in (("locomo-like", "rag", 6), ("locomo-like", "mem", 4),
    ...         ("other", "rag", 3), ("other", "mem", 5)) for i in range(8)]
    >>> df = pd.DataFrame(rows, columns=["benchmark", "system", "query_id", "score"])
    >>> overview(df, options={"n_resamples": 200})[["setting", "system", "estimate", "rank"]]
           setting system  estimate  rank
    0  locomo-like    mem      50.0     2
    1  locomo-like    rag      75.0     1
    2        other    mem      62.5     1
    3        other    rag      37.5     2
    """
    opts = as_options(options)
    n_resamples, seed, confidence_level, inference = (opts.n_resamples, opts.seed, opts.confidence_level,
                                                      opts.inference)
    parts = []
    for benchmark, model, frame in _settings(data):
        prepared = _prepared(benchmark, frame, schemes)
        scheme = prepared.scheme.name if prepared.scheme is not None else None
        scores = bootstrap(prepared, "accuracy", options=opts) if n_resamples else _estimates(prepared)
        part = scores[["system", "estimate", "ci_low", "ci_high", "n", "design"]].copy()
        part.insert(0, "setting", " · ".join(v for v in (benchmark, model) if v))
        part.insert(0, "model", model)
        part.insert(0, "benchmark", benchmark)
        part["rank"] = part["estimate"].rank(ascending=False, method="min").astype(int)
        part["n_systems"] = len(part)
        part["scheme"] = scheme or "mean"
        part["method"] = scores.attrs.get("method", "")
        parts.append(part)
    if not parts:
        raise VerdictError("overview found no setting to score.")
    out = pd.concat(parts, ignore_index=True)
    out["is_reference"] = out["system"] == reference
    out = out[["benchmark", "model", "setting", "system", "estimate", "ci_low", "ci_high", "rank", "n_systems",
               "n", "scheme", "design", "method", "is_reference"]]
    notes = [Note(f"{row.setting}: scheme {row.scheme}, {row.n} queries, design {row.design}, {row.method}",
                  code="setting-method") for row in out.drop_duplicates("setting").itertuples()]
    if reference is not None:
        first = out[out["is_reference"] & (out["rank"] == 1)]
        shown = out[out["is_reference"]]
        notes.append(Note(f"{reference} ranks first in {len(first)} of {len(shown)} settings where it was run",
                          code="reference-ranks-first", concerns=(reference,)))
    return stamp(out, "overview", kinds=declare(points=("estimate", "ci_low", "ci_high")), notes=notes, resampled=False, unit="points", n_resamples=n_resamples, seed=seed,
                 confidence_level=confidence_level, inference=inference)
