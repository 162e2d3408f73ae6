"""A paper's statistical procedure as a named preset, run in one call (SPEC §3, §5.8).

One job: :func:`evidence_procedure` runs the Raw-RAG paper's coverage and utilization tests
exactly as its Appendix C.6 and A.5.1 describe them — ``raw-rag-c6``: Cochran's Q across the
systems, then exact paired McNemar tests with Holm over the 21 pairs for coverage (questions
treated as independent), the centered max-range bootstrap and two-sided bootstrap sign tests for
utilization, every interval a 50,000-replicate percentile bootstrap under the benchmark's design
(source-stratified for MemoryAgentBench, whole episodes for MEME, where the sign tests and the
max-range replace Cochran and McNemar for both metrics) — and returns its Tables 25 and 27/28.

It says what the procedure assumes. memdiag's own default (:func:`memdiag.evidence_tests`) uses
the small-cluster rule of SPEC §4.1 instead; this preset exists to reproduce published numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import pandas as pd

from memdiag.analyses.evidence import evidence_tests
from memdiag.core.checks import alpha_of
from memdiag.core.notes import Note
from memdiag.engine.inference import adjust, cochrans_q, mcnemar
from memdiag.engine.options import Options, as_options
from memdiag.engine.pairs import pairwise_matrix
from memdiag.errors import VerdictError
from memdiag.panel.metrics import metric_columns
from memdiag.panel.prepare import Prepared, as_prepared

__all__ = ["PROCEDURES", "EvidenceProcedure", "evidence_procedure"]

#: The named procedures: their settings and where they come from.
PROCEDURES: dict[str, dict] = {
    "raw-rag-c6": {
        "n_resamples": 50_000, "inference": "percentile", "correction": "holm",
        "source": "Raw-RAG paper C.6 and A.5.1 (Tables 25, 27, 28)",
        "description": "coverage: Cochran's Q, then exact paired McNemar with Holm over the pairs (questions as "
                       "independent); utilization: centered max-range bootstrap, then two-sided bootstrap sign "
                       "tests with Holm; episode-clustered designs: the max-range and sign tests for both; "
                       "50,000-replicate percentile intervals under the benchmark's design",
    },
}


class EvidenceProcedure(NamedTuple):
    """The tables of a procedure: the omnibus table (Table 25 layout), the pairwise matrix
    (Tables 27/28: coverage above the diagonal, utilization below) and the pairs behind it."""

    omnibus: pd.DataFrame
    matrix: pd.DataFrame
    pairs: pd.DataFrame


def _exact_coverage(prepared: Prepared, pairs: pd.DataFrame) -> pd.DataFrame:
    """Coverage pairs with the paper's exact McNemar p (Holm over the pairs) in place of the
    design's sign test; the intervals stay the design's percentile bootstrap."""
    cov = metric_columns(prepared.with_labels(("sufficient",)), "coverage")
    c = cov.per_query > 0.5
    index = {s: k for k, s in enumerate(prepared.systems)}
    out = pairs.copy()
    for row in out.itertuples():
        a, b = c[:, index[row.system_a]], c[:, index[row.system_b]]
        out.at[row.Index, "p"] = mcnemar(benefit=int((a & ~b).sum()), tax=int((~a & b).sum())).p_value
    out["p_adj"] = adjust(out["p"].to_numpy(), method="holm")
    out["p_floor"] = False
    out["test"] = "exact McNemar (questions as independent)"
    return out


def _procedure_options(options: Options | Mapping | None, spec: dict) -> Options:
    """``options`` with the procedure's own settings where the user did not set them: its B
    (``n_resamples`` absent from a mapping, or an :class:`Options` with the default 20,000), its
    inference (for the default ``auto``) and correction; another inference or correction than
    the procedure's is an error (they define the procedure)."""
    opts = as_options(options)
    default = Options()
    if isinstance(options, Mapping):
        given = "n_resamples" in options
    else:
        given = options is not None and opts.n_resamples != default.n_resamples
    changes = {} if given else {"n_resamples": spec["n_resamples"]}
    for field in ("inference", "correction"):
        value = getattr(opts, field)
        if value not in (getattr(default, field), spec[field]):
            raise VerdictError(f"the procedure fixes {field}={spec[field]!r} (got {value!r}); use "
                               f"md.evidence_tests(options={{{field!r}: {value!r}}}) for other choices.")
        changes[field] = spec[field]
    return opts.replace(**changes)
def evidence_procedure(
    data: pd.DataFrame | Prepared,
    procedure: str = "raw-rag-c6",
    *,
    options: Options | Mapping | None = None,
) -> EvidenceProcedure:
    """A paper's coverage and utilization tests as one named procedure (SPEC §5.8).

    Parameters
    ----------
    data
        :func:`memdiag.prepare` output, or canonical verdicts (prepared with the defaults), with
        ``sufficient`` labels; the scheme, systems, missing-data and label policies are chosen
        there, as for :func:`memdiag.evidence_tests`.
    procedure
        ``raw-rag-c6`` (:data:`PROCEDURES`).
    options
        :class:`memdiag.Options`; reads design (None: the prepared data's — the scheme's or the
        data's, as everywhere; MemoryAgentBench ``stratified``, MEME ``cluster``), seed and
        confidence_level as :func:`memdiag.compare` does (α = 1 − confidence_level is the level of
        the "Holm sig." count and the matrix's stars; 0.95 gives exactly 0.05), and n_resamples — the procedure's own
        B (50,000) unless set: a mapping without ``n_resamples``, None, or an :class:`Options`
        whose n_resamples is the default 20,000 leave the procedure's B (pass
        ``{"n_resamples": 20000}`` for exactly 20,000). inference and correction are the
        procedure's (``percentile``, ``holm``): the defaults ``auto`` and ``holm`` stand for
        them, any other value is an error.

    Returns
    -------
    EvidenceProcedure
        ``omnibus``: one row per metric — ``metric, test, statistic, df, p, p_floor, k, n, design,
        n_resamples, seed``, then ``n_pairs`` and ``holm_significant`` (pairs with a Holm-adjusted
        p < α; the paper's "Holm sig.") — Table 25's layout; ``matrix``: Tables 27/28 (row −
        column, interval, * for Holm p < α; coverage above the diagonal, utilization below);
        ``pairs``: every pairwise row behind the matrix. The notes say what the procedure assumes.

    Raises
    ------
    VerdictError
        An unknown ``procedure``, fewer than two systems, verdicts without ``sufficient``, a
        missing label under ``label_missing="error"``, an inference or correction other than
        the procedure's, bad verdicts or options (as :func:`memdiag.evidence_tests`).
    SchemeError
        An unknown scheme, or one that keeps no query of the data.
    ValueError
        An unknown ``design``.

    Notes
    -----
    Under a query-level design (``iid``, ``stratified``) coverage gets Cochran's Q
    (Q = (k − 1)(k Σ C_j² − T²)/(k T − Σ R_i²) on k − 1 df) and exact McNemar per pair, which
    treat the questions as independent, while the intervals resample within the design's strata.
    Under a cluster design both metrics get the percentile cluster bootstrap's centered max-range
    and sign tests, which with 100 MEME episodes under-cover slightly (SPEC §4.1: 0.938–0.950 at
    G = 100) and with 10 LoCoMo conversations badly (0.89); memdiag's default uses the cluster
    jackknife and the wild cluster bootstrap there.

    References
    ----------
    SPEC §5.8 (named procedures), SPEC §3 (the evidence tests), SPEC §5.1, §5.2 and §5.4 (exact
    McNemar, Cochran's Q, the pairwise matrix) and SPEC §4.1 (why memdiag's default differs);
    Raw-RAG paper C.6 and A.5.1 (Tables 25, 27 and 28).
    Cochran, W. G. (1950). The comparison of percentages in matched samples. Biometrika 37,
    256–266.
    McNemar, Q. (1947). Note on the sampling error of the difference between correlated
    proportions or percentages. Psychometrika 12(2), 153–157.
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scandinavian
    Journal of Statistics 6(2), 65–70.

    Examples
    --------
    >>> import memdiag as md
    >>> df = md.simulate_memoryagentbench(n_per_source=12, systems=("raw-rag", "mem0", "zep"), seed=2)
    >>> opts = {"design": "stratified", "n_resamples": 2000}          # within the 14 sources
    >>> out = md.evidence_procedure(df, options=opts)
    >>> out.omnibus[["metric", "test", "df", "n_pairs"]]
            metric                                       test    df  n_pairs
    0     coverage                                Cochran's Q     2        3
    1  utilization  centered max-range bootstrap (stratified)  None        3
    >>> out.matrix.shape
    (3, 3)
    """
    if procedure not in PROCEDURES:
        raise VerdictError(f"unknown procedure {procedure!r}; use one of {', '.join(PROCEDURES)}.")
    spec = PROCEDURES[procedure]
    opts = _procedure_options(options, spec)
    prepared = as_prepared(data, metric="coverage", design=opts.design)
    if len(prepared.systems) < 2:
        raise VerdictError(f"the procedure compares systems; the data hold {len(prepared.systems)}.")
    opts.resampled(f"procedure {procedure}")
    pairs, omnibus = evidence_tests(prepared, options=opts)
    notes = [Note(f"procedure {procedure}: {spec['description']} ({spec['source']})", code="procedure")]
    if prepared.design in ("iid", "stratified"):
        coverage = pairs["metric"] == "coverage"
        pairs.loc[coverage] = _exact_coverage(prepared, pairs[coverage].drop(columns="metric")) \
            .assign(metric="coverage")[pairs.columns].to_numpy()
        if len(prepared.systems) >= 3:
            omnibus[["df", "n_resamples", "seed"]] = omnibus[["df", "n_resamples", "seed"]].astype(object)
            q = cochrans_q(metric_columns(prepared.with_labels(("sufficient",)), "coverage").per_query)
            omnibus.loc[omnibus["metric"] == "coverage", ["test", "statistic", "df", "p", "p_floor", "n_resamples",
                                                          "seed"]] = ["Cochran's Q", float(q.statistic),
                                                                      int(q.df), float(q.p_value), False, None, None]
        notes.append(Note("coverage: Cochran's Q and exact McNemar treat the questions as independent; the "
                          f"intervals resample under the {prepared.design} design"
                          + (" (within strata)" if prepared.design == "stratified" else ""), code="procedure-tests"))
    else:
        notes.append(Note(f"both metrics: the percentile {prepared.design} bootstrap's max-range and sign tests "
                          f"with {prepared.n_clusters} clusters, as the paper; with few clusters they under-cover "
                          "(SPEC §4.1) and memdiag's default (md.evidence_tests) uses the cluster jackknife and the "
                          "wild cluster bootstrap instead", code="procedure-tests", severity="caution"))
    for key in ("p", "p_adj"):
        pairs[key] = pairs[key].astype(float)
    alpha = alpha_of(opts.confidence_level)
    significant = pairs.groupby("metric")["p_adj"].apply(lambda p: int((p < alpha).sum()))
    omnibus["n_pairs"] = omnibus["metric"].map(pairs.groupby("metric").size()).astype(int)
    omnibus["holm_significant"] = omnibus["metric"].map(significant).astype(int)
    matrix = pairwise_matrix(pairs[pairs["metric"] == "coverage"], pairs[pairs["metric"] == "utilization"],
                             systems=list(prepared.systems))
    for table in (omnibus, pairs, matrix):
        table.attrs = {**table.attrs, "procedure": procedure, "notes": list(table.attrs.get("notes", [])) + notes}
    matrix.attrs["notes"].insert(0, Note("upper triangle: coverage, lower triangle: utilization (Raw-RAG Tables "
                                         "27/28)", code="matrix-triangles"))
    return EvidenceProcedure(omnibus=omnibus, matrix=matrix, pairs=pairs)
