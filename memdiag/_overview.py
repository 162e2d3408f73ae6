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

import numpy as np
import pandas as pd

from memdiag._compare import bootstrap
from memdiag._prepare import Prepared
from memdiag._provenance import stamp
from memdiag._resampling import run_seed
from memdiag._schemes import known_schemes
from memdiag._verdicts import MissingQueryPolicy, MissingVerdictPolicy
from memdiag.errors import VerdictError

__all__ = ["overview", "scheme_for"]

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


def overview(
    data: pd.DataFrame | Mapping[str | tuple[str, str], pd.DataFrame | Prepared],
    *,
    schemes: Mapping[str, str | None] | None = None,
    reference: str | None = None,
    design: str | None = None,
    inference: str = "auto",
    n_resamples: int = 20_000,
    seed: int | np.random.Generator = 0,
    confidence_level: float = 0.95,
    missing: MissingQueryPolicy | None = None,
    verdict_missing: MissingVerdictPolicy | None = None,
) -> pd.DataFrame:
    """Every system's official score in every benchmark × model setting, with intervals and ranks.

    Parameters
    ----------
    data
        Verdicts with a ``benchmark`` and/or ``model`` column (one setting per value, or pair of
        values), or a mapping ``{benchmark: verdicts}`` / ``{(benchmark, model): verdicts}`` (a
        :func:`memdiag.prepare` output as the value keeps its own scheme and policies).
    schemes
        ``{benchmark: scheme}`` overriding :func:`scheme_for` (None for a plain mean).
    reference
        A system to mark (usually raw-history RAG): ``is_reference`` is True on its rows.
    design, inference, n_resamples, seed, confidence_level, missing, verdict_missing
        As in :func:`memdiag.bootstrap`, for every setting (the design follows each setting's
        scheme and clusters by default).

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
        setting (bad verdicts, policies or options).
    SchemeError
        An unknown scheme in ``schemes``, or one a setting's data cannot satisfy.
    ValueError
        An unknown ``design``.
    TypeError
        ``seed`` is neither an int nor a :class:`numpy.random.Generator`.

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
    >>> overview(df, n_resamples=200)[["setting", "system", "estimate", "rank"]]
           setting system  estimate  rank
    0  locomo-like    mem      50.0     2
    1  locomo-like    rag      75.0     1
    2        other    mem      62.5     1
    3        other    rag      37.5     2
    """
    seed = run_seed(seed)
    parts = []
    for benchmark, model, frame in _settings(data):
        if isinstance(frame, Prepared):
            scheme = frame.scheme.name if frame.scheme is not None else None
            scores = bootstrap(frame, "accuracy", design=design, inference=inference, n_resamples=n_resamples,
                               seed=seed, confidence_level=confidence_level)
        else:
            scheme = (schemes or {}).get(benchmark, scheme_for(benchmark, frame))
            scores = bootstrap(frame, "accuracy", scheme=scheme, design=design, inference=inference,
                               n_resamples=n_resamples, seed=seed, confidence_level=confidence_level,
                               missing=missing, verdict_missing=verdict_missing)
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
    notes = [f"{row.setting}: scheme {row.scheme}, {row.n} queries, design {row.design}, {row.method}"
             for row in out.drop_duplicates("setting").itertuples()]
    if reference is not None:
        first = out[out["is_reference"] & (out["rank"] == 1)]
        shown = out[out["is_reference"]]
        notes.append(f"{reference} ranks first in {len(first)} of {len(shown)} settings where it was run")
    return stamp(out, "overview", notes=notes, resampled=False, unit="points", n_resamples=n_resamples, seed=seed,
                 confidence_level=confidence_level, inference=inference)
