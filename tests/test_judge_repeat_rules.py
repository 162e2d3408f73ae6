"""Judgments in a dictionary (recipe ``judgments:``) and the judge-repeat rules mean / majority /
repeat:K (issue 22), on hand-made cases with the arithmetic in comments."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from recipe_files import write_recipe

import memdiag as md
from memdiag.errors import VerdictError


def _release(tmp_path, records):
    (tmp_path / "run").mkdir(exist_ok=True)
    (tmp_path / "run" / "eval.json").write_text(json.dumps({"results": records}))
    return {"sources": [{"files": ["run/eval.json"], "records": "results", "judgments": "votes",
                         "fields": {"query_id": "id"}}]}


def test_each_key_is_a_repeat_by_name(tmp_path):
    records = [{"id": "a", "votes": {"judgment_1": True, "judgment_2": True, "judgment_3": False}},
               {"id": "b", "votes": {"judgment_2": "yes", "judgment_3": "no"}},       # no judgment_1
               {"id": "c", "votes": [1, 0, 0]}]                                          # a list
    df = md.read_verdicts(recipe=write_recipe(tmp_path, _release(tmp_path, records)))
    got = df.set_index(["query_id", "judgment"])[["score", "repeat"]]
    assert got.loc[("a", "judgment_1")].tolist() == [1.0, 0]
    assert got.loc[("b", "judgment_2")].tolist() == [1.0, 1]   # judgment_2 is repeat 1 in every record
    assert got.loc[("b", "judgment_3")].tolist() == [0.0, 2]
    assert df[df["query_id"] == "c"]["judgment"].tolist() == ["1", "2", "3"]
    assert len(df) == 8


def test_judgments_errors(tmp_path):
    bad = _release(tmp_path, [{"id": "a", "votes": True}])
    with pytest.raises(VerdictError, match="expected an object"):
        md.read_verdicts(recipe=write_recipe(tmp_path, bad))
    both = _release(tmp_path, [{"id": "a", "votes": {"x": 1}}])
    both["sources"][0]["fields"]["score"] = "id"
    with pytest.raises(VerdictError, match="drop score"):
        md.read_verdicts(recipe=write_recipe(tmp_path, both))


@pytest.fixture
def votes():
    # four answers of system s, three judgments each:
    #   a 1 1 0 (2/3), b 1 1 1 (3/3), c 0 0 0 (0/3), d 0 1 0 (1/3)
    return pd.DataFrame({"system": "s", "query_id": [q for q in "abcd" for _ in range(3)],
                         "repeat": [0, 1, 2] * 4, "score": [1, 1, 0, 1, 1, 1, 0, 0, 0, 0, 1, 0]})


def test_rules_by_hand(votes):
    def overall(rule):
        return float(md.score(md.prepare(votes, judges=rule), options=dict(n_resamples=0))["overall"].iloc[0])
    assert overall("mean") == pytest.approx(100 * 6 / 12)      # per-run mean (2+3+0+1)/12
    assert overall("majority") == pytest.approx(100 * 2 / 4)   # a and b have a majority
    assert overall("repeat:0") == pytest.approx(100 * 2 / 4)   # 1 1 0 0
    assert overall("repeat:1") == pytest.approx(100 * 3 / 4)   # 1 1 0 1
    assert overall("repeat:2") == pytest.approx(100 * 1 / 4)   # 0 1 0 0
    assert md.prepare(votes, judges="majority").judges == "majority"


def test_majority_tie_scores_zero_and_is_noted():
    # two judgments 1/0: as many correct as wrong -> 0, and a note counts it
    df = pd.DataFrame({"system": "s", "query_id": ["a", "a", "b", "b"], "repeat": [0, 1, 0, 1],
                       "score": [1, 0, 1, 1]})
    prep = md.prepare(df, judges="majority")
    assert prep.panel.scores.ravel().tolist() == [0.0, 1.0]
    assert any("1 answers with as many correct as wrong" in n for n in prep.notes)


def test_repeat_rule_counts_answers_without_it():
    df = pd.DataFrame({"system": ["s", "s", "s", "t", "t"], "query_id": ["a", "a", "b", "a", "b"],
                       "repeat": [0, 1, 0, 0, 0], "score": [1, 0, 1, 1, 1]})
    with pytest.raises(VerdictError, match="missing for some systems"):
        md.prepare(df, judges="repeat:1")
    prep = md.prepare(df, judges="repeat:1", missing="drop", systems=["s"])
    assert prep.panel.scores.ravel().tolist() == [0.0]
    assert any("1 answers have no judgment 1" in n for n in prep.notes)
    with pytest.raises(VerdictError, match="no verdict has repeat 5"):
        md.prepare(df, judges="repeat:5")
    with pytest.raises(VerdictError, match="repeat:K"):
        md.prepare(df, judges="repeat:x")


def test_check_aggregate_rules(votes):
    table = md.check_aggregate(verdicts=votes, reported_overall=75.0)
    assert table.attrs["consistent_rules"] == ["repeat:1"]
    assert table["judgments"].unique().tolist() == ["3"]
    assert md.check_aggregate(verdicts=votes, reported_overall=33.3).attrs["consistent_rules"] == []
    with pytest.raises(VerdictError, match="not both"):
        md.check_aggregate({"x": 1.0}, verdicts=votes, reported_overall=50.0)
    with pytest.raises(VerdictError, match="not in the verdicts"):
        md.check_aggregate(verdicts=votes, system="z", reported_overall=50.0)
