"""Canonical verdicts: hard checks, the validation summary and alignment policies (SPEC §1)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import memdiag as md


def frame(**columns):
    return pd.DataFrame(columns)


def test_duplicate_system_query_repeat_is_an_error_naming_file_and_record():
    df = frame(system=["a", "a"], query_id=["q1", "q1"], score=[1, 0],
               source_file=["runs/a.csv", "runs/a.csv"], source_record=[1, 2])
    with pytest.raises(md.VerdictError, match=r"runs/a.csv, record 2, field 'query_id'.*duplicate"):
        md.check(df)


def test_score_outside_unit_interval_names_the_record():
    df = frame(system=["a", "a"], query_id=["q1", "q2"], score=[1, 3],
               source_file=["x.csv", "x.csv"], source_record=[7, 8])
    with pytest.raises(md.VerdictError, match=r"x.csv, record 8, field 'score': 3.0 is outside \[0.0, 1.0\]"):
        md.check(df)


def test_score_that_is_not_a_number_names_the_record_and_the_escape_hatch():
    df = frame(system=["a", "a"], query_id=["q1", "q2"], score=["1", "CORRECT?"])
    with pytest.raises(md.VerdictError, match=r"record 2, field 'score': 'CORRECT\?' is not a number.*--field"):
        md.check(df)


def test_mixed_types_in_an_id_column_are_an_error():
    df = frame(system=["a", "a"], query_id=[17, "q2"], score=[1, 0])
    with pytest.raises(md.VerdictError, match=r"record 2, field 'query_id': mixed value types"):
        md.check(df)


def test_empty_table_is_an_error():
    with pytest.raises(md.VerdictError, match="empty"):
        md.check(frame(system=[], query_id=[], score=[]))


def test_missing_required_column_suggests_field_mapping():
    with pytest.raises(md.VerdictError, match=r"field 'score': required column is missing.*--field score="):
        md.check(frame(system=["a"], query_id=["q"], correct=[1]))


def test_null_verdicts_are_kept_and_counted_by_validate():
    df = frame(system=["a", "a", "b", "b"], query_id=["q1", "q2", "q1", "q2"], score=[1, None, 0, None])
    out = md.check(df)
    assert len(out) == 4 and out["score"].isna().sum() == 2
    summary = md.validate(df).set_index("system")
    assert summary.loc["a", "missing_verdicts"] == 1 and summary.loc["b", "missing_verdicts"] == 1


def test_validate_names_queries_a_system_lacks():
    df = frame(system=["a", "a", "b"], query_id=["q1", "q2", "q1"], score=[1, 1, 0])
    summary = md.validate(df)
    assert summary.set_index("system").loc["b", "missing_queries"] == 1
    assert any("'b' lacks 1 of 2 queries: q2" in n for n in summary.attrs["notes"])


def test_validate_reports_source_labels_that_disagree_with_the_canonical_category():
    df = frame(system=["trpc"] * 2, query_id=["q1", "q2"], score=[1, 0],
               category=["single-hop", "multi-hop"], source_category=["open-domain", "single-hop"])
    notes = md.validate(df).attrs["notes"]
    assert "system 'trpc' labels 1 'single-hop' queries as 'open-domain' (the canonical category is used)" in notes
    assert "system 'trpc' labels 1 'multi-hop' queries as 'single-hop' (the canonical category is used)" in notes


def test_missing_query_policy_error_lists_the_queries():
    df = frame(system=["a", "a", "b"], query_id=["q1", "q2", "q1"], score=[1, 1, 0])
    with pytest.raises(md.VerdictError, match=r"1 queries are missing for some systems \(b 1\): q2.*--missing drop"):
        md.align(df)


def test_missing_query_policy_drop_and_wrong_are_recorded_with_counts():
    df = frame(system=["a", "a", "b"], query_id=["q1", "q2", "q1"], score=[1, 1, 0])
    dropped = md.align(df, missing="drop")
    assert dropped.query_ids.tolist() == ["q1"]
    assert dropped.notes[0]["policy"] == "missing queries drop" and dropped.notes[0]["count"] == 1
    wrong = md.align(df, missing="wrong")
    assert wrong.scores.tolist() == [[1.0, 0.0], [1.0, 0.0]]
    assert wrong.n_repeats.tolist() == [[1, 1], [1, 0]]
    assert wrong.notes[0]["policy"] == "missing queries wrong" and wrong.notes[0]["count"] == 1


def test_missing_verdict_exclude_drops_the_query_for_every_system():
    df = frame(system=["a", "a", "b", "b"], query_id=["q1", "q2", "q1", "q2"], score=[1, 1, 0, None])
    panel = md.align(df, verdict_missing="exclude")
    assert panel.query_ids.tolist() == ["q1"]
    assert panel.notes[0]["count"] == 1 and panel.notes[0]["per_system"] == {"a": 0, "b": 1}


def test_judge_repetitions_are_averaged_per_query_and_missing_ones_count_as_wrong():
    # q1: judgments 1, 0, 1 -> 2/3; q2: 1, NaN(->0), 1 -> 2/3 under as-wrong
    df = frame(system=["a"] * 6, query_id=["q1"] * 3 + ["q2"] * 3, repeat=[0, 1, 2] * 2,
               score=[1, 0, 1, 1, None, 1])
    panel = md.align(df)
    np.testing.assert_allclose(panel.scores[:, 0], [2 / 3, 2 / 3])
    assert panel.n_repeats[:, 0].tolist() == [3, 3]


def test_align_keeps_query_attributes_and_extra_metric_matrices():
    df = frame(system=["a", "b", "a", "b"], query_id=["q1", "q1", "q2", "q2"], score=[1, 0, 0, 1],
               category=["x", "x", "y", "y"], cluster=["c1"] * 4, f1=[0.5, 0.1, 0.2, 0.9],
               sufficient=[1, 0, 1, 1])
    panel = md.align(df)
    assert panel.queries["category"].tolist() == ["x", "y"]
    codes, labels = panel.codes("category")
    assert codes.tolist() == [0, 1] and labels == ("x", "y")
    np.testing.assert_allclose(panel.matrix("f1"), [[0.5, 0.1], [0.2, 0.9]])
    np.testing.assert_allclose(panel.matrix("sufficient"), [[1, 0], [1, 1]])
    with pytest.raises(md.VerdictError, match="no 'stratum' column"):
        panel.codes("stratum")
    f1_panel = md.align(df, metric="f1")
    np.testing.assert_allclose(f1_panel.scores, [[0.5, 0.1], [0.2, 0.9]])


def test_panel_take_selects_rows_and_systems():
    df = frame(system=["a", "b", "a", "b"], query_id=["q1", "q1", "q2", "q2"], score=[1, 0, 0, 1])
    sub = md.align(df).take(np.array([False, True]), systems=["b"])
    assert sub.systems == ("b",) and sub.query_ids.tolist() == ["q2"] and sub.scores.tolist() == [[1.0]]
    with pytest.raises(md.VerdictError, match="system 'zz' is not in the data"):
        md.align(df).take(systems=["zz"])


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=1, max_value=30), st.integers(min_value=1, max_value=4), st.randoms())
def test_row_order_does_not_change_the_panel(n_queries, n_systems, rnd):
    rng = np.random.default_rng(rnd.randint(0, 2**32 - 1))
    rows = [(f"s{s}", f"q{q}", float(rng.integers(0, 2))) for s in range(n_systems) for q in range(n_queries)]
    df = pd.DataFrame(rows, columns=["system", "query_id", "score"])
    shuffled = df.sample(frac=1.0, random_state=rnd.randint(0, 2**31 - 1))
    a, b = md.align(df), md.align(shuffled)
    assert a.systems == b.systems and a.query_ids.tolist() == b.query_ids.tolist()
    np.testing.assert_array_equal(a.scores, b.scores)


# --------------------------------------------------------------------------------------------
# judges (issue 12)
# --------------------------------------------------------------------------------------------
def judged() -> pd.DataFrame:
    # q1: judge j1 twice (1, 0 -> 0.5), j2 once (1) -> mean over judges 0.75 (not 2/3 over rows)
    return pd.DataFrame({"system": "s", "query_id": ["q1", "q1", "q1", "q2", "q2"],
                         "judge": ["j1", "j1", "j2", "j1", "j2"], "repeat": [0, 1, 0, 0, 0],
                         "score": [1, 0, 1, 0, 0]})


def test_judges_mean_averages_each_judges_repetitions_first():
    prep = md.prepare(judged(), judges="mean")
    assert prep.panel.scores[:, 0].tolist() == [0.75, 0.0]
    assert prep.panel.n_repeats[:, 0].tolist() == [3, 2]
    assert "judges mean: each answer scored by the mean over its judges (j1, j2)" in prep.notes
    assert md.score(prep, options=dict(n_resamples=0)).attrs["judges"] == "mean"


def test_one_named_judge_scores_by_that_judge_alone():
    prep = md.prepare(judged(), judges="j2")
    assert prep.panel.scores[:, 0].tolist() == [1.0, 0.0]
    assert prep.notes[-1] == "judges j2: scores from judge j2 only (3 verdicts of j1 left out)"


@pytest.mark.parametrize("judges, message", [
    (None, r"hold 2 judges of the same answers \(j1, j2\): choose how to score them"),
    ("j3", r"judges='j3' is not a judge of these verdicts \(j1, j2\)"),
])
def test_several_judges_need_a_named_policy(judges, message):
    with pytest.raises(md.VerdictError, match=message):
        md.prepare(judged(), judges=judges)


def test_a_judge_column_makes_repeats_of_different_judges_no_duplicates():
    df = md.check(judged())
    assert list(df.columns[:5]) == ["system", "query_id", "score", "repeat", "judge"]
    with pytest.raises(md.VerdictError, match=r"duplicate verdict for \(system, query_id, judge, repeat\) = "
                                              r"\('s', 'q1', 'j1', 0\)"):
        md.check(pd.concat([judged(), judged().iloc[:1]]))


def test_settings_that_share_query_ids_are_named_with_the_fix():
    """Two benchmarks (or models) reuse query ids: not duplicates to remove, but settings to
    prepare one at a time or with md.prepare_settings."""
    one = pd.DataFrame({"system": ["s", "s"], "query_id": ["q1", "q2"], "score": [1.0, 0.0]})
    both = pd.concat([one.assign(benchmark="bench-a"), one.assign(benchmark="bench-b")], ignore_index=True)
    for call in (md.check, md.prepare):
        with pytest.raises(md.VerdictError, match=r"appears in several settings \(benchmark: 2 such rows in all\).*"
                                                  r"md\.prepare_settings\(df\)"):
            call(both)
    assert sorted(md.prepare_settings(both)) == [("bench-a", ""), ("bench-b", "")]
    # a copy within one setting is still a duplicate verdict
    with pytest.raises(md.VerdictError, match=r"record 5, field 'query_id': duplicate verdict for \(system, query_id, "
                                              r"repeat, benchmark\) = \('s', 'q1', 0, 'bench-a'\) \(1 duplicate"):
        md.check(pd.concat([both, both.iloc[:1]], ignore_index=True))
