"""Memory benefit and memory tax: per-query correctness flows against a reference (SPEC §2).

Against a reference R (usually raw-history RAG), each query of a system M falls in one cell:

    ============  ===========  ===========  ===========
    cell          R correct    M correct    name
    ============  ===========  ===========  ===========
    a             yes          yes          both
    b             no           yes          benefit
    c             yes          no           tax
    d             no           no           neither
    ============  ===========  ===========  ===========

and memdiag reports the counts, the rates b/N and c/N, net = b − c and (b − c)/N (the accuracy
difference for binary scores), retention a/(a + c) (share of R's successes kept) and recovery
b/(b + d) (share of R's failures fixed), each rate with a paired bootstrap interval under the
benchmark's resampling design, and the exact McNemar test of net ≠ 0 with Holm adjustment across
the systems compared with one reference (Memory Tax review; SPEC §2, §5).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from memdiag._compare import align_for
from memdiag.errors import VerdictError
from memdiag._designs import Design
from memdiag._resampling import bootstrap_sums
from memdiag._schemes import Scheme, resolve_scheme
from memdiag._inference import adjust, mcnemar
from memdiag._pairs import cell_indicators
from memdiag._verdicts import MissingQueryPolicy, MissingVerdictPolicy, Panel

#: The rates that get intervals, in column order.
RATES: tuple[str, ...] = ("benefit_rate", "tax_rate", "net_rate", "retention", "recovery")


def _rates(sums: np.ndarray) -> np.ndarray:
    """Rates from cell sums ``(b, 4·M)`` laid out [a, b, c, d] per system -> ``(b, 5·M)``.

    Retention and recovery are NaN in a replicate whose denominator is 0.
    """
    cells = sums.reshape(sums.shape[0], -1, 4)
    a, b, c, d = (cells[..., k] for k in range(4))
    n = cells.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.stack([b / n, c / n, (b - c) / n, a / (a + c), b / (b + d)], axis=-1)
    return out.reshape(sums.shape[0], -1)


def flows_panel(
    panel: Panel,
    reference: str,
    systems: Sequence[str] | None = None,
    threshold: float = 0.5,
    design: str = "iid",
    n_resamples: int = 20_000,
    seed: int | np.random.Generator = 0,
    confidence_level: float = 0.95,
    correction: str = "holm",
) -> pd.DataFrame:
    """Benefit/tax flows of every system against ``reference`` on an aligned :class:`Panel`.

    See :func:`flows` for the columns. All systems share one set of bootstrap replicates
    (paired, shared indices), so their intervals are jointly valid draws of one design.
    """
    ref_col = panel.system_index(reference)
    names = [s for s in (systems or panel.systems) if s != reference]
    if not names:
        raise VerdictError(f"no system to compare with the reference '{reference}': the data hold "
                           f"only {', '.join(panel.systems)}.")
    correct = panel.scores > threshold
    ref = correct[:, ref_col]
    X = np.hstack([cell_indicators(ref, correct[:, panel.system_index(s)]) for s in names])
    result = bootstrap_sums(X, Design.from_panel(panel, design), _rates, n_resamples=n_resamples,
                            seed=seed, ci=confidence_level)
    counts = X.sum(axis=0).reshape(-1, 4).astype(np.int64)
    point = result.estimate.reshape(-1, len(RATES))
    low = result.ci_low.reshape(-1, len(RATES))
    high = result.ci_high.reshape(-1, len(RATES))
    p_net = np.asarray(result.p_value).reshape(-1, len(RATES))[:, RATES.index("net_rate")]
    rows = []
    for i, name in enumerate(names):
        a, b, c, d = (int(v) for v in counts[i])
        row = {"system": name, "reference": reference, "n": a + b + c + d, "both": a, "benefit": b,
               "tax": c, "neither": d, "net": b - c}
        for j, rate in enumerate(RATES):
            row[rate] = point[i, j]
            row[f"{rate}_ci_low"] = low[i, j]
            row[f"{rate}_ci_high"] = high[i, j]
        row["p"] = mcnemar(benefit=b, tax=c).p_value
        row["p_bootstrap"] = float(p_net[i])
        rows.append(row)
    out = pd.DataFrame(rows)
    out["p_adj"] = adjust(out["p"].to_numpy(), method=correction)
    return out


def flows(
    df: pd.DataFrame,
    reference: str | Iterable[str],
    by: str | None = None,
    systems: Sequence[str] | None = None,
    threshold: float = 0.5,
    design: str = "iid",
    n_resamples: int = 20_000,
    seed: int | np.random.Generator = 0,
    confidence_level: float = 0.95,
    correction: str = "holm",
    scheme: str | Path | Scheme | None = None,
    missing: MissingQueryPolicy = "error",
    verdict_missing: MissingVerdictPolicy = "as-wrong",
) -> pd.DataFrame:
    """Memory benefit and memory tax of every system against one or more references (SPEC §2).

    Parameters
    ----------
    df
        Canonical verdicts.
    reference
        The reference system (e.g. ``"raw-rag"``), or several (e.g. RAG and full-context): the
        result stacks one block per reference.
    by
        A per-query column (e.g. ``"category"``): the same table per group, with a ``by`` and a
        ``group`` column; Holm adjustment is then within each (reference, group) family.
    systems
        The systems to compare (default: every system but the reference).
    threshold
        A query is correct when its score (mean over judge repetitions) is > ``threshold``.
    design, n_resamples, seed, confidence_level
        The paired bootstrap for the rate intervals (SPEC §4): ``iid``, ``stratified``,
        ``cluster`` or ``stratified-cluster``; B replicates; seed; interval level.
    correction
        Multiplicity adjustment of the McNemar p-values across the systems compared with one
        reference: ``holm`` (default), ``bonferroni`` or ``fdr_bh``.
    scheme
        A benchmark scheme whose query selection applies (e.g. ``locomo`` drops the adversarial
        category, ``meme`` keeps after-phase answers); flows count queries, so group weights
        do not enter.
    missing, verdict_missing
        Alignment policies (see :func:`memdiag.align`), recorded in ``attrs["notes"]``.

    Returns
    -------
    pandas.DataFrame
        One row per (reference, [group,] system): ``system, reference, n, both, benefit, tax,
        neither, net, benefit_rate, tax_rate, net_rate, retention, recovery`` (each rate with
        ``_ci_low`` / ``_ci_high``), ``p`` (exact McNemar on benefit and tax), ``p_bootstrap``
        (the two-sided bootstrap sign test of net ≠ 0 under ``design``) and ``p_adj`` (McNemar,
        adjusted). ``attrs`` hold design, B, seed, threshold, policies and notes.

    Notes
    -----
    With a = both, b = benefit, c = tax, d = neither and N = a + b + c + d:
    benefit_rate = b/N, tax_rate = c/N, net = b − c, net_rate = (b − c)/N (equal to the accuracy
    difference for binary scores), retention = a/(a + c), recovery = b/(b + d); McNemar
    p = min(1, 2·BinomCDF(min(b, c); b + c, ½)), 1 when b + c = 0. Retention or recovery is NaN
    (undefined) when its denominator is 0. SPEC §2 and §5; Memory Tax review.

    McNemar's test treats queries as independent. Under a clustered design (LoCoMo
    conversations, MEME episodes) read ``p_bootstrap``, which resamples whole clusters; a note
    says so.

    Examples
    --------
    >>> df = pd.DataFrame({"system": ["rag"] * 4 + ["mem"] * 4, "query_id": list("abcd") * 2,
    ...                    "score": [1, 1, 0, 0, 1, 0, 1, 0]})
    >>> out = flows(df, reference="rag", n_resamples=200)
    >>> out[["system", "both", "benefit", "tax", "neither", "net", "retention", "recovery"]]
      system  both  benefit  tax  neither  net  retention  recovery
    0    mem     1        1    1        1    0        0.5       0.5
    """
    references = [reference] if isinstance(reference, str) else list(reference)
    scheme_obj = resolve_scheme(scheme)
    panel, notes = align_for(df, scheme_obj, missing=missing, verdict_missing=verdict_missing)
    for ref in references:
        panel.system_index(ref)
    blocks = []
    for ref in references:
        others = [s for s in (systems or panel.systems) if s != ref]
        if by is None:
            blocks.append(flows_panel(panel, ref, others, threshold, design, n_resamples, seed,
                                      confidence_level, correction))
            continue
        codes, labels = panel.codes(by)
        for k, label in enumerate(labels):
            block = flows_panel(panel.take(codes == k), ref, others, threshold, design, n_resamples,
                                seed, confidence_level, correction)
            block.insert(0, "group", label)
            block.insert(0, "by", by)
            blocks.append(block)
    out = pd.concat(blocks, ignore_index=True)
    out.attrs = {"scheme": scheme_obj.name if scheme_obj else None, "design": design, "n_resamples": n_resamples,
                 "seed": seed if isinstance(seed, int) else "generator",
                 "confidence_level": confidence_level, "correction": correction,
                 "threshold": threshold, "missing": missing, "verdict_missing": verdict_missing,
                 "notes": notes}
    if design in ("cluster", "stratified-cluster"):
        out.attrs["notes"].append("p is the exact McNemar test, which treats queries as independent; "
                                  f"p_bootstrap is the bootstrap sign test under the {design} design")
    return out
