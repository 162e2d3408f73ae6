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
b/(b + d) (share of R's failures fixed), each rate in points with a paired bootstrap interval
under the benchmark's resampling design, and the exact McNemar test of net ≠ 0 with a family
adjustment across the systems compared with one reference (Memory Tax review; SPEC §2, §5).

Every rate is a function of the four cell counts, so the bootstrap draws the cells themselves
(:func:`memdiag._resampling.cell_bootstrap`): conditional binomials per stratum under the
query-level designs, count-weights times per-cluster cells under the cluster designs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from memdiag import _checks
from memdiag._inference import adjust, mcnemar
from memdiag._pairs import CELLS, THRESHOLD, binarize, contrast_codes
from memdiag._prepare import Prepared, as_prepared
from memdiag._provenance import stamp
from memdiag._resampling import cell_bootstrap, run_seed
from memdiag._verdicts import MissingQueryPolicy, MissingVerdictPolicy
from memdiag.errors import VerdictError

if TYPE_CHECKING:  # pragma: no cover
    from memdiag._schemes import Scheme

#: The group of queries that have no label in the ``by`` column.
UNLABELLED = "(none)"

#: The rates that get intervals, in column order.
RATES: tuple[str, ...] = ("benefit_rate", "tax_rate", "net_rate", "retention", "recovery")


def flow_rates(cells: np.ndarray) -> np.ndarray:
    """Rates in points from cell counts ``(b, k, 4)`` -> ``(b, 5·k)``, five per contrast in
    :data:`RATES` order; retention and recovery are NaN where their denominator is 0.

    >>> flow_rates(np.array([[[1.0, 1.0, 1.0, 1.0]]])).tolist()
    [[25.0, 25.0, 0.0, 50.0, 50.0]]
    """
    a, b, c, d = (cells[..., k] for k in range(4))
    n = cells.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = 100 * np.stack([b / n, c / n, (b - c) / n, a / (a + c), b / (b + d)], axis=-1)
    return out.reshape(cells.shape[0], -1)


def _flows_table(prepared: Prepared, reference: str, names: list[str], threshold: float | None,
                 n_resamples: int, seed: int, confidence_level: float,
                 correction: str) -> tuple[pd.DataFrame, list[str]]:
    """The flows of ``names`` against ``reference`` on prepared data, and the notes it needs."""
    panel = prepared.panel
    correct = binarize(panel.scores, threshold)
    ref = panel.system_index(reference)
    contrasts = [(panel.system_index(s), ref) for s in names]
    codes, keys, swap = contrast_codes(correct, panel.systems, contrasts)
    result = cell_bootstrap(codes, prepared.resampling, flow_rates, n_resamples=n_resamples, seed=seed,
                            keys=keys, swap=swap, confidence_level=confidence_level)
    counts = np.stack([(codes == k).sum(axis=0) for k in range(4)], axis=1)   # drawn orientation
    counts[swap] = counts[swap][:, [0, 2, 1, 3]]
    point, low, high = (v.reshape(-1, len(RATES)) for v in (result.estimate, result.ci_low, result.ci_high))
    p_net = result.p_value.reshape(-1, len(RATES))[:, RATES.index("net_rate")]
    undefined = result.n_undefined.reshape(-1, len(RATES))
    rows, notes = [], []
    for i, name in enumerate(names):
        a, b, c, d = (int(v) for v in counts[i])
        row = {"system": name, "reference": reference, "n": a + b + c + d,
               **dict(zip(CELLS, (a, b, c, d))), "net": b - c}
        for j, rate in enumerate(RATES):
            row[rate] = point[i, j]
            row[f"{rate}_ci_low"] = low[i, j]
            row[f"{rate}_ci_high"] = high[i, j]
            if 0 < undefined[i, j] < n_resamples:
                notes.append(f"{name} vs {reference}: {rate} undefined in {int(undefined[i, j])} of "
                             f"{n_resamples} replicates (empty denominator), left out of its interval")
        row["p"] = mcnemar(benefit=b, tax=c).p_value
        row["p_bootstrap"] = float(p_net[i])
        rows.append(row)
    out = pd.DataFrame(rows)
    out["p_adj"] = adjust(out["p"].to_numpy(), method=correction)
    return out, notes


def flows(
    data: pd.DataFrame | Prepared,
    reference: str | Iterable[str],
    *,
    by: str | None = None,
    systems: Sequence[str] | None = None,
    threshold: float | None = None,
    design: str | None = None,
    n_resamples: int = 20_000,
    seed: int | np.random.Generator = 0,
    confidence_level: float = 0.95,
    correction: str = "holm",
    scheme: str | Path | Scheme | None = None,
    missing: MissingQueryPolicy | None = None,
    verdict_missing: MissingVerdictPolicy | None = None,
) -> pd.DataFrame:
    """Memory benefit and memory tax of every system against one or more references (SPEC §2).

    Parameters
    ----------
    data
        Canonical verdicts, or :func:`memdiag.prepare` output.
    reference
        The reference system (e.g. ``"raw-rag"``), or several (e.g. RAG and full-context): the
        result stacks one block per reference.
    by
        A per-query column (e.g. ``"category"``): the same table per group, with a ``by`` and a
        ``group`` column; the adjustment is then within each (reference, group) family.
    systems
        The systems to compare (default: every system but the reference).
    threshold
        A query is correct when its score (mean over judge repetitions) is > ``threshold``
        (default None: 0.5, SPEC §2).
    design
        ``iid``, ``stratified``, ``cluster`` or ``stratified-cluster``; None follows the scheme and
        the data, as in every function (:func:`memdiag._designs.resolve_design`).
    n_resamples, seed, confidence_level
        The paired bootstrap for the rate intervals (SPEC §4).
    correction
        Multiplicity adjustment of the McNemar p-values across the systems compared with one
        reference: ``holm`` (default), ``bonferroni`` or ``fdr_bh``.
    scheme
        A benchmark scheme whose query selection applies (e.g. ``locomo`` drops the adversarial
        category, ``meme`` keeps after-phase answers and their before twins); flows count
        queries, so group weights do not enter.
    missing, verdict_missing
        Alignment policies (see :func:`memdiag.align`; default ``error`` and ``as-wrong``).

    Returns
    -------
    pandas.DataFrame
        One row per (reference, [group,] system): ``system, reference, n, both, benefit, tax,
        neither, net, benefit_rate, tax_rate, net_rate, retention, recovery`` (rates in points,
        each with ``_ci_low`` / ``_ci_high``), ``p`` (exact McNemar on benefit and tax),
        ``p_bootstrap`` (the two-sided bootstrap sign test of net ≠ 0 under the design) and
        ``p_adj`` (McNemar, adjusted). ``attrs`` hold the provenance.

    Raises
    ------
    VerdictError
        A reference or system not in the data, no system to compare, bad options or verdicts.

    Notes
    -----
    With a = both, b = benefit, c = tax, d = neither and N = a + b + c + d:
    benefit_rate = b/N, tax_rate = c/N, net = b − c, net_rate = (b − c)/N (equal to the accuracy
    difference for binary scores), retention = a/(a + c), recovery = b/(b + d); McNemar
    p = min(1, 2·BinomCDF(min(b, c); b + c, ½)), 1 when b + c = 0. Retention or recovery is NaN
    (undefined) when its denominator is 0; replicates where it is undefined are counted in the
    notes and left out of its interval. SPEC §2 and §5; Memory Tax review.

    McNemar's test treats queries as independent. Under a clustered design (LoCoMo
    conversations, MEME episodes) read ``p_bootstrap``, which resamples whole clusters; a note
    says so.

    References
    ----------
    McNemar, Q. (1947). Psychometrika 12(2), 153–157.

    Examples
    --------
    >>> df = pd.DataFrame({"system": ["rag"] * 4 + ["mem"] * 4, "query_id": list("abcd") * 2,
    ...                    "score": [1, 1, 0, 0, 1, 0, 1, 0]})
    >>> out = flows(df, reference="rag", n_resamples=200)
    >>> out[["system", "both", "benefit", "tax", "neither", "net", "retention", "recovery"]]
      system  both  benefit  tax  neither  net  retention  recovery
    0    mem     1        1    1        1    0       50.0      50.0
    """
    references = [reference] if isinstance(reference, str) else list(reference)
    prepared = as_prepared(data, scheme=scheme, missing=missing, verdict_missing=verdict_missing,
                           design=design)
    seed = run_seed(seed)
    n_resamples = _checks.n_resamples(n_resamples)
    confidence_level = _checks.confidence_level(confidence_level)
    correction = _checks.choice(correction, _checks.CORRECTIONS, "correction")
    threshold = _checks.threshold(threshold)
    for ref in references:
        prepared.panel.system_index(ref)
    blocks, notes = [], []
    for ref in references:
        names = [s for s in (systems or prepared.systems) if s != ref]
        if not names:
            raise VerdictError(f"no system to compare with the reference '{ref}': the data hold "
                               f"only {', '.join(prepared.systems)}.")
        groups = [(None, prepared)]
        if by is not None:
            codes, labels = prepared.panel.codes(by)
            groups = [(label, prepared.subset(codes == k)) for k, label in enumerate(labels)]
            if (codes < 0).any():  # queries without a label form their own group, never dropped
                groups.append((UNLABELLED, prepared.subset(codes < 0)))
        for label, part in groups:
            block, block_notes = _flows_table(part, ref, names, threshold, n_resamples, seed,
                                              confidence_level, correction)
            if by is not None:
                block.insert(0, "group", label)
                block.insert(0, "by", by)
                block_notes = [f"{by} {label}: {n}" for n in block_notes]
            blocks.append(block)
            notes += block_notes
    out = pd.concat(blocks, ignore_index=True)
    if prepared.design in ("cluster", "stratified-cluster"):
        notes.append("p is the exact McNemar test, which treats queries as independent; "
                     f"p_bootstrap is the bootstrap sign test under the {prepared.design} design")
    return stamp(out, "flows", prepared, notes=notes, n_resamples=n_resamples, seed=seed,
                 confidence_level=confidence_level, correction=correction,
                 threshold=THRESHOLD if threshold is None else threshold, unit="points")
