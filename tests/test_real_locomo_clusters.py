"""The README's numbers on the real LoCoMo panel: how many published-style iid conclusions (exact
McNemar + Holm) survive the cluster-correct analysis (issue 13). Recomputed from ../shared; skipped
when the real data are absent."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import memdiag as md

README = Path(__file__).resolve().parents[1] / "README.md"
REFERENCE = "rag_observation_pgvector"


@pytest.fixture(scope="module")
def panel(real_data) -> pd.DataFrame:
    """The 7 trpc-agent-go no-history runs, Zep, Memobase v0.0.37 and Backboard on LoCoMo."""
    runs = sorted((real_data / "trpc-group__trpc-agent-go" / "data_nohistory_gpt4omini").glob("*/results.json"))
    frames = [md.read_verdicts(path) for path in runs]
    others = {"zep": [real_data / "getzep__zep-papers" / "zep_locomo_grades.json"],
              "memobase-v0.0.37": [real_data / "memodb-io__memobase" / "memobase_eval_0710_3000.json"],
              "backboard": sorted((real_data / "Backboard-io__Backboard-Locomo-Benchmark").glob("*.json"))}
    for name, paths in others.items():
        frames.append(pd.concat([md.read_verdicts(p) for p in paths]).assign(system=name))
    return pd.concat(frames, ignore_index=True)


def _readme_counts(pattern: str) -> tuple[int, int]:
    match = re.search(pattern, " ".join(README.read_text(encoding="utf-8").split()))
    assert match, f"README.md lacks: {pattern}"
    return int(match.group(1)), int(match.group(2))


def test_iid_conclusions_against_the_reference_that_survive_the_conversations(panel):
    out = md.audit_independence(md.prepare(panel, scheme="locomo"), reference=REFERENCE)
    assert len(out) == 9 and out.attrs["n_clusters"] == 10 and (out.attrs["design"] == "cluster")
    assert (out["test_iid"] == "exact McNemar").all() and (out["method"] == "cluster jackknife, t(9)").all()
    survive, significant = out.attrs["n_survive"], out.attrs["n_significant_iid"]
    assert (survive, significant) == (4, 8)
    assert (survive, significant) == _readme_counts(r"(\d+) of the (\d+) differences from rag_observation_pgvector")
    kept = set(out.loc[out["outcome"] == "survives", "system_a"])
    assert kept == {"backboard", "long_context", "memobase-v0.0.37", "zep"}
    # the reference answers nothing on 5 of the 10 conversations: the honest intervals are 5-6x wider
    assert out.loc[out["outcome"] != "neither", "width_ratio"].between(5, 7).all()


def test_iid_conclusions_over_all_pairs_that_survive_the_conversations(panel):
    out = md.audit_independence(md.prepare(panel, scheme="locomo"))
    assert len(out) == 45
    survive, significant = out.attrs["n_survive"], out.attrs["n_significant_iid"]
    assert (survive, significant) == (33, 42)
    assert (survive, significant) == _readme_counts(r"(\d+) of the (\d+) significant pairs")
    assert (out["outcome"] != "gained").all()


def test_the_reference_fails_on_five_conversations(panel):
    prepared = md.prepare(panel, scheme="locomo")
    reference = prepared.panel.scores[:, prepared.systems.index(REFERENCE)]
    by_conversation = pd.Series(reference).groupby(prepared.panel.queries["cluster"].to_numpy()).mean()
    assert int((by_conversation < 0.02).sum()) == 5 and np.isclose(prepared.n, 1540)
