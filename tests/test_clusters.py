"""Whole clusters a run answers all wrong (or all right): md.cluster_accuracy, validate, flows (issue 15, item 11)."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

import pandas as pd
import pytest

import memdiag as md
from memdiag.cli import main


def verdicts(system: str, per_cluster: dict[str, list[int]]) -> pd.DataFrame:
    rows = [{"system": system, "query_id": f"{cluster}-{k}", "cluster": cluster, "score": score}
            for cluster, scores in per_cluster.items() for k, score in enumerate(scores)]
    return pd.DataFrame(rows)


def test_a_cluster_all_wrong_is_flagged_when_improbable_at_the_accuracy_elsewhere():
    # failed: cluster a 0/12 while b and c hold 12/24 right: (1 - 0.5)^12 = 0.000244 < 0.001 -> flagged
    failed = verdicts("failed", {"a": [0] * 12, "b": [1, 0] * 6, "c": [0, 1] * 6})
    # weak: cluster a 0/4 at 1/8 elsewhere: (7/8)^4 = 0.586 -> a weak system, not flagged
    weak = verdicts("weak", {"a": [0] * 4, "b": [1, 0, 0, 0], "c": [0, 0, 0, 0]})
    # ace: cluster c 12/12 at 1/2 elsewhere: 0.5^12 -> flagged "all correct"
    ace = verdicts("ace", {"a": [1, 0] * 6, "b": [0, 1] * 6, "c": [1] * 12})
    out = md.cluster_accuracy(pd.concat([failed, weak, ace]))
    flagged = out[out["flag"] != ""].set_index("system")
    assert list(flagged.index) == ["ace", "failed"]
    assert flagged.loc["failed", ["cluster", "n", "correct", "flag"]].tolist() == ["a", 12, 0.0, "all wrong"]
    assert flagged.loc["failed", "p_chance"] == pytest.approx(0.5 ** 12)
    assert flagged.loc["ace", "flag"] == "all correct" and flagged.loc["ace", "accuracy_elsewhere"] == 50.0
    weak_a = out[(out["system"] == "weak") & (out["cluster"] == "a")].iloc[0]
    assert weak_a["p_chance"] == pytest.approx((7 / 8) ** 4) and weak_a["flag"] == ""
    assert [n.split(" answers")[0] for n in out.attrs["notes"]] == ["ace", "failed"]
    assert "a (0/12, all wrong) (1 of 3 clusters)" in out.attrs["notes"][1]


def test_repetitions_are_averaged_and_the_threshold_decides():
    df = verdicts("rag", {"a": [0] * 12, "b": [1] * 12, "c": [1, 0] * 6})
    twice = pd.concat([df.assign(repeat=0), df.assign(repeat=1, score=df["score"] * 0.4)])  # mean 0.7 or 0
    out = md.cluster_accuracy(twice).set_index("cluster")
    assert out["correct"].tolist() == [0, 12, 6]
    assert md.cluster_accuracy(md.prepare(twice, threshold=0.75)).set_index("cluster")["correct"].tolist() == [0, 0, 0]


def test_without_clusters_it_says_so():
    with pytest.raises(md.VerdictError, match="needs a 'cluster' column"):
        md.cluster_accuracy(pd.DataFrame({"system": "a", "query_id": ["q1"], "score": [1]}))


def test_flows_name_a_reference_that_fails_whole_clusters():
    ref = verdicts("rag", {"a": [0] * 12, "b": [1, 0] * 6, "c": [0, 1] * 6})
    mem = verdicts("mem", {"a": [1, 0] * 6, "b": [1, 0] * 6, "c": [0, 1] * 6})
    out = md.flows(pd.concat([ref, mem]), reference="rag", options=dict(n_resamples=200))
    [note] = [n for n in out.attrs["notes"] if n.code == "reference-fails-clusters"]
    assert note.startswith("the reference rag answers whole clusters") and "a (0/12, all wrong)" in note
    assert note.severity == "warning" and note.concerns == ("rag",)
    clean = md.flows(pd.concat([mem.assign(system="rag"), mem]), reference="rag", options=dict(n_resamples=200))
    assert not [n for n in clean.attrs["notes"] if "whole clusters" in n]


def test_validate_flags_the_real_trpc_rag_runs(real_data):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["validate", str(real_data / "trpc-group__trpc-agent-go" / "data_nohistory_gpt4omini")])
    assert code == 0, err.getvalue()
    notes = [line for line in out.getvalue().splitlines() if "whole clusters" in line]
    # adversarial questions answered "not mentioned" hide the failure per conversation; per category it shows
    assert [n.split(" answers")[0] for n in notes] == ["warning: by category: rag_observation_mysql",
                                                       "warning: by category: rag_observation_pgvector"]
    assert "conv-43 single-hop (0/107, all wrong)" in notes[1]


def test_the_real_rag_reference_fails_five_conversations(real_data):
    df = md.read_verdicts(real_data / "trpc-group__trpc-agent-go" / "data_nohistory_gpt4omini")
    out = md.cluster_accuracy(md.prepare(df, scheme="locomo", systems=["rag_observation_pgvector"]))
    failed = out[out["flag"] == "all wrong"]
    assert failed["cluster"].tolist() == ["conv-30", "conv-43", "conv-44", "conv-47", "conv-48"]
    assert failed["n"].tolist() == [81, 178, 123, 150, 191] and (failed["correct"] == 0).all()
