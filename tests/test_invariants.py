"""Invariants of the public API on generated verdicts (hypothesis).

- Permuting the rows of the input changes nothing: every output table renders to identical bytes.
- Duplicating every query (each query twice, same verdicts) leaves every point estimate unchanged.
- benefit − tax = N × the accuracy difference, and the four cells add up to N.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import memdiag as md
from memdiag.tables import render

CHECKS = settings(max_examples=20, deadline=None, derandomize=True,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
B = 200


@st.composite
def verdicts(draw, binary: bool = True) -> pd.DataFrame:
    """2-4 systems (the first is the reference 'rag') on 6-40 queries in 2-5 clusters, with
    categories and sufficiency labels; binary or fractional scores."""
    n = draw(st.integers(6, 40))
    k = draw(st.integers(2, 4))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    systems = ["rag", "mem0", "zep", "a-mem"][:k]
    ids = [f"q{i:03d}" for i in range(n)]
    cluster = [f"c{c}" for c in rng.integers(0, draw(st.integers(2, 5)), n)]
    category = [["temporal", "multi-hop", "single-hop"][c] for c in rng.integers(0, 3, n)]
    rows = []
    for s in systems:
        raw = rng.random(n)
        scores = (raw < 0.6).astype(float) if binary else np.round(raw, 2)
        sufficient = (rng.random(n) < 0.7).astype(float)
        sufficient[0] = 1.0  # every system has one sufficient query: utilization is defined
        rows.append(pd.DataFrame({"system": s, "query_id": ids, "score": scores, "cluster": cluster,
                                  "category": category, "sufficient": sufficient}))
    return pd.concat(rows, ignore_index=True)


def _tables(df: pd.DataFrame) -> list[pd.DataFrame]:
    """Every table of the main diagnostics, with fixed B and seed."""
    common = dict(options=dict(n_resamples=B, seed=3))
    return [
        md.flows(df, "rag", **common),
        md.flows(df, "rag", by="category", **common),
        md.compare(df, **common),
        md.omnibus(df, **common),
        md.bootstrap(df, **common),
        md.score(df, **common),
        md.evidence(df, **common),
        md.rank_stability(df, **common),
    ]


@CHECKS
@given(verdicts(), st.randoms(use_true_random=False))
def test_permuting_input_rows_leaves_every_table_byte_identical(df, shuffler):
    order = list(range(len(df)))
    shuffler.shuffle(order)
    shuffled = df.iloc[order].reset_index(drop=True)
    for a, b in zip(_tables(df), _tables(shuffled)):
        assert render(a, "csv") == render(b, "csv")
        assert render(a, "json") == render(b, "json")


def _duplicated(df: pd.DataFrame) -> pd.DataFrame:
    return pd.concat([df, df.assign(query_id=df["query_id"] + "#2")], ignore_index=True)


@CHECKS
@given(verdicts(binary=False))
def test_duplicating_every_query_leaves_point_estimates_unchanged(df):
    twice = _duplicated(df)
    for column, fn in [
        (["estimate_a", "estimate_b", "diff"], lambda d: md.compare(d, options=dict(n_resamples=B))),
        (["estimate"], lambda d: md.bootstrap(d, options=dict(n_resamples=B))),
        (["overall", "temporal", "multi-hop", "single-hop"], lambda d: md.score(d)),
        (["coverage", "utilization", "accuracy", "covered_term", "uncovered_term"],
         lambda d: md.evidence(d, options=dict(n_resamples=B))),
    ]:
        once, doubled = fn(df), fn(twice)
        present = [c for c in column if c in once]
        np.testing.assert_allclose(doubled[present].to_numpy(float), once[present].to_numpy(float),
                                   rtol=1e-12, atol=1e-12)


@CHECKS
@given(verdicts())
def test_duplicating_every_query_leaves_flow_rates_unchanged_and_doubles_counts(df):
    once, doubled = md.flows(df, "rag", options=dict(n_resamples=B)), md.flows(_duplicated(df), "rag", options=dict(n_resamples=B))
    rates = ["benefit_rate", "tax_rate", "net_rate", "retention", "recovery"]
    np.testing.assert_allclose(doubled[rates].to_numpy(float), once[rates].to_numpy(float), atol=1e-12)
    for cell in ("both", "benefit", "tax", "neither", "n", "net"):
        assert (doubled[cell] == 2 * once[cell]).all()


@CHECKS
@given(verdicts())
def test_benefit_minus_tax_is_n_times_the_accuracy_difference(df):
    flows = md.flows(df, "rag", options=dict(n_resamples=B)).set_index("system")
    accuracy = df.groupby("system")["score"].mean()
    for system, row in flows.iterrows():
        assert row["benefit"] - row["tax"] == pytest.approx(row["n"] * (accuracy[system] - accuracy["rag"]))
        assert row["both"] + row["benefit"] + row["tax"] + row["neither"] == row["n"]
