"""Native retrieval vs the complete store vs raw evidence (Raw-RAG paper §5.3, Figure 5, Table 29,
A.5.2, C.5; SPEC §7.10).

The paper runs three conditions per memory system on the same questions: **native** (N), the
system's own retrieval and readout; **complete store** (C), gold-informed selection over every
memory the system persisted, under a 5,000-token budget and a task-aware reader policy; and one
shared **raw-evidence control** (R), the same selection over the original support sessions. C − N
says how much better access to what the system stored recovers; R − C is the gap that remains —
information the store lost, or presents less usably — "with all paired 95% intervals for these
gaps excluding zero".

Each condition is a run of the verdicts (a system); a systems table says which run is which:
``system, base, variant`` with ``variant`` one of ``native``, ``complete`` and ``raw`` (one raw
run, shared; its ``base`` may be empty). :func:`store_gap` computes every score and both paired
differences per memory system under the benchmark's design (MEME: six-task macro-average,
episodes resampled), as :func:`memdiag.compare` does.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from memdiag.analyses.compare import bootstrap, compare
from memdiag.core.kinds import declare, with_intervals
from memdiag.core.notes import Note
from memdiag.core.provenance import stamp
from memdiag.engine.inference import adjust
from memdiag.engine.options import Options, as_options
from memdiag.errors import VerdictError
from memdiag.panel.prepare import Prepared, as_prepared

__all__ = ["VARIANTS", "store_gap", "store_variants"]

#: The three conditions, in the order they are drawn.
VARIANTS: tuple[str, ...] = ("native", "complete", "raw")


def store_variants(table: pd.DataFrame, systems: list[str] | tuple[str, ...] | None = None) -> pd.DataFrame:
    """The ``system, base, variant`` rows of a systems table that tag the store conditions, checked.

    Parameters
    ----------
    table
        A systems table with ``system`` and ``variant`` columns (and ``base`` for the native and
        complete runs; a native run without one is its own base).
    systems
        The systems of the verdicts: every tagged run must be one of them.

    Returns
    -------
    pandas.DataFrame
        ``system, base, variant`` (variant lower-cased), rows with an empty variant left out.

    Raises
    ------
    VerdictError
        No ``variant`` column, an unknown variant, not exactly one raw run, a memory system with
        two runs of one variant or no complete run, a run that is not in the verdicts.

    Examples
    --------
    >>> t = pd.DataFrame({"system": ["mem0", "mem0 (store)", "raw"], "base": ["mem0", "mem0", ""],
    ...                   "variant": ["native", "complete", "raw"]})
    >>> store_variants(t).to_dict("list")
    {'system': ['mem0', 'mem0 (store)', 'raw'], 'base': ['mem0', 'mem0', 'raw'], 'variant': ['native', 'complete', 'raw']}
    """
    if "variant" not in table or "system" not in table:
        raise VerdictError("the systems table needs 'system' and 'variant' columns (variant: native, complete or "
                           f"raw) to compare the store conditions; it has {', '.join(map(str, table.columns))}.")
    rows = table[table["variant"].notna() & (table["variant"].astype(str).str.strip() != "")]
    out = pd.DataFrame({"system": rows["system"].astype(str),
                        "variant": rows["variant"].astype(str).str.strip().str.lower()})
    base = rows["base"] if "base" in rows else pd.Series(np.nan, index=rows.index)
    out["base"] = [str(b).strip() if pd.notna(b) and str(b).strip() else s for b, s in zip(base, out["system"])]
    out = out[["system", "base", "variant"]].reset_index(drop=True)
    unknown = sorted(set(out["variant"]) - set(VARIANTS))
    if unknown:
        raise VerdictError(f"unknown variant '{unknown[0]}' in the systems table; use native, complete or raw.")
    if (out["variant"] == "raw").sum() != 1:
        raise VerdictError(f"the systems table tags {(out['variant'] == 'raw').sum()} runs as variant 'raw'; tag "
                           "exactly one: the shared raw-evidence control.")
    twice = out[out["variant"] != "raw"].duplicated(["base", "variant"], keep=False)
    if twice.any():
        row = out[out["variant"] != "raw"][twice].iloc[0]
        raise VerdictError(f"memory system '{row['base']}' has more than one {row['variant']} run in the systems "
                           "table; tag one.")
    memory = out[out["variant"] != "raw"]
    lacking = sorted(set(memory["base"]) - set(memory.loc[memory["variant"] == "complete", "base"]))
    if lacking:
        raise VerdictError(f"memory system '{lacking[0]}' has no complete-store run (variant complete) in the "
                           "systems table.")
    if systems is not None:
        absent = [s for s in out["system"] if s not in set(systems)]
        if absent:
            raise VerdictError(f"the systems table tags run '{absent[0]}', which is not in the verdicts (systems: "
                               f"{', '.join(systems)}).")
    return out
def store_gap(
    data: pd.DataFrame | Prepared,
    variants: pd.DataFrame,
    *,
    options: Options | Mapping | None = None,
) -> pd.DataFrame:
    """Native, complete-store and raw-evidence scores per memory system, with the paired gain
    C − N and the remaining gap R − C (Raw-RAG paper Table 29, Figure 5).

    Parameters
    ----------
    data
        :func:`memdiag.prepare` output, or canonical verdicts (prepared with the defaults),
        holding every tagged run. The data choices are made there: the scheme, whose official
        aggregation is recomputed in every replicate (the paper: MEME's six-task
        macro-average), and the missing-data policies; the tagged runs are taken from it.
    variants
        The systems table that tags the runs (:func:`store_variants`).
    options
        :class:`memdiag.Options` (None: the defaults); reads every field: design (None: the
        prepared data's), inference, n_resamples (at least 1), seed and confidence_level as
        :func:`memdiag.compare`, and the correction within each family: the gains C − N of all
        memory systems, and the gaps R − C.

    Returns
    -------
    pandas.DataFrame
        One row per memory system (systems-table order): ``system`` (its base name),
        ``native_run, complete_run, raw_run``; ``native, complete, raw`` scores with
        ``_ci_low`` / ``_ci_high`` (points; ``native`` NaN when there is no native run);
        ``gain`` = complete − native and ``gap`` = raw − complete, each with ``_ci_low``,
        ``_ci_high``, ``_p``, ``_p_adj``; ``n``, ``test``, ``method``.

    Notes
    -----
    Scores: :func:`memdiag.bootstrap`; differences: :func:`memdiag.compare` on each pair of runs
    (the same replicates and tests a pair gets in every memdiag table). The paper's intervals are
    paired episode-bootstrap intervals with 20,000 resamples (C.6); memdiag follows the SPEC §4.1
    rule (``inference="percentile"`` reproduces the paper's method).

    Raises
    ------
    VerdictError
        A systems table :func:`store_variants` refuses (no ``system`` or ``variant`` column, an
        unknown variant, not exactly one raw run, a memory system with two runs of one variant or
        no complete run, a tagged run not in the verdicts); bad verdicts, an unknown policy or
        ``inference``, bad options (``n_resamples=0``).
    SchemeError
        An unknown scheme, or one the data cannot satisfy.
    ValueError
        An unknown ``design``.

    References
    ----------
    SPEC §7.10 (native retrieval, complete store and raw evidence), SPEC §4.1 (the interval and
    test rule) and SPEC §5.3 (Holm within each family); Raw-RAG paper §5.3, C.5, A.5.2, Table 29
    and Figure 5 (paired episode-bootstrap intervals with 20,000 resamples, C.6).
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scandinavian
    Journal of Statistics 6(2), 65–70.

    Examples
    --------
    >>> rows = [(s, f"q{i}", float(i < k)) for s, k in (("mem", 3), ("mem/C", 5), ("raw", 7)) for i in range(10)]
    >>> df = pd.DataFrame(rows, columns=["system", "query_id", "score"])
    >>> tags = pd.DataFrame({"system": ["mem", "mem/C", "raw"], "base": ["mem", "mem", None],
    ...                      "variant": ["native", "complete", "raw"]})
    >>> store_gap(df, tags, options={"n_resamples": 200})[["system", "native", "complete", "raw", "gain", "gap"]]
      system  native  complete   raw  gain   gap
    0    mem    30.0      50.0  70.0  20.0  20.0
    """
    opts = as_options(options)
    seed, n_resamples, confidence_level = opts.seed, opts.resampled("store_gap"), opts.confidence_level
    inference, correction = opts.inference, opts.correction
    tags = store_variants(variants)
    runs = list(dict.fromkeys(tags["system"]))
    prepared = as_prepared(data, systems=runs, design=opts.design)
    tags = store_variants(variants, prepared.systems)
    scores = bootstrap(prepared, "accuracy", options=opts).set_index("system")
    raw = str(tags.loc[tags["variant"] == "raw", "system"].iloc[0])
    rows, pairs = [], []
    for base, group in tags[tags["variant"] != "raw"].groupby("base", sort=False):
        run = dict(zip(group["variant"], group["system"]))
        row: dict = {"system": base, "native_run": run.get("native"), "complete_run": run["complete"],
                     "raw_run": raw}
        for variant in VARIANTS:
            name = run.get(variant, raw if variant == "raw" else None)
            for column, source in ((variant, "estimate"), (f"{variant}_ci_low", "ci_low"),
                                   (f"{variant}_ci_high", "ci_high")):
                row[column] = float(scores.loc[name, source]) if name is not None else np.nan
        for kind, a, b in (("gain", run["complete"], run.get("native")), ("gap", raw, run["complete"])):
            if b is None:
                row.update({kind: np.nan, f"{kind}_ci_low": np.nan, f"{kind}_ci_high": np.nan, f"{kind}_p": np.nan})
                continue
            pair = compare(prepared.restrict([a, b]), options=opts).iloc[0]
            row.update({kind: pair["diff"], f"{kind}_ci_low": pair["ci_low"], f"{kind}_ci_high": pair["ci_high"],
                        f"{kind}_p": pair["p"]})
            pairs.append(pair)
        rows.append(row)
    out = pd.DataFrame(rows)
    for kind in ("gain", "gap"):
        p = out[f"{kind}_p"].to_numpy(dtype=float)
        adjusted = np.full(len(p), np.nan)
        tested = ~np.isnan(p)
        adjusted[tested] = adjust(p[tested], method=correction)
        out.insert(out.columns.get_loc(f"{kind}_p") + 1, f"{kind}_p_adj", adjusted)
    out["n"] = prepared.n
    out["test"] = " / ".join(dict.fromkeys(str(p["test"]) for p in pairs))
    out["method"] = scores.attrs.get("method", "")
    notes = [Note(f"native (N): each system's own retrieval; complete store (C): selection over everything it "
                  f"stored; raw (R): the shared raw-evidence control '{raw}' (Raw-RAG paper §5.3, C.5)",
                  code="store-variants"),
             Note(f"gain = C − N, gap = R − C, paired on the same {prepared.n} queries; {correction} within each "
                  "family", code="store-gap-definition"),
             Note(f"intervals: {scores.attrs.get('method', '')}; tests: {out['test'].iloc[0] if len(out) else ''}",
                  code="inference-method")]
    kinds = declare(points=with_intervals("native", "complete", "raw", "gain", "gap"),
                    p=("gain_p", "gain_p_adj", "gap_p", "gap_p_adj"))
    return stamp(out, "store_gap", prepared, kinds=kinds, notes=notes, metric=scores.attrs.get("metric", "accuracy"),
                 n_resamples=n_resamples, seed=seed, confidence_level=confidence_level, correction=correction,
                 unit="points", inference=inference)
