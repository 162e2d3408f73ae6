"""The dial481/locomo-audit release read with one recipe drafted by ``memdiag inspect`` (issue 22).

Four full-context runs and two wrong-answer baselines, each question judged three times in a
dictionary ``llm_judgments: {judgment_1: ..., judgment_2: ..., judgment_3: ...}``. The numbers the
release states (fc-baseline/README.md, ap-baseline/README.md) are reproduced under the judge-repeat
rule that made them, and each is also recomputed here from the JSON with plain Python.
"""

from __future__ import annotations

import json

import pytest
from cli_inspect import inspect

import memdiag as md

RELEASE = "dial481__locomo-audit"

#: fc-baseline/README.md, "Overall Accuracy": per-run mean, majority vote, run 1, run 2, run 3.
FC_README = {
    "gpt-4o-mini-memos": (74.29, 74.35, 74.22, 74.29, 74.35),
    "gpt-4o-mini-cot": (79.89, 79.94, 79.81, 79.81, 80.06),
    "gpt-4.1-mini-memos": (81.95, 82.08, 81.82, 82.01, 82.01),
    "gpt-4.1-mini-cot": (92.62, 92.66, 92.60, 92.47, 92.79),
}
#: ap-baseline/README.md: the share of deliberately wrong answers the judge accepts (per-run mean).
AP_README = {"v1": 10.61, "v2": 62.81}
RULES = ("mean", "majority", "repeat:0", "repeat:1", "repeat:2")


@pytest.fixture(scope="module")
def release(real_data, tmp_path_factory):
    folder = real_data / RELEASE
    if not folder.is_dir():
        pytest.skip(f"{folder} is absent")
    out = tmp_path_factory.mktemp("audit")
    result = inspect([str(folder)], recipe_dir=out)   # the whole release folder, as downloaded
    (out / "release.yaml").write_text(result.recipe)
    return folder, result, md.read_verdicts(recipe=out / "release.yaml", allow_outside=True)


def _by_hand(path):
    """Per-run means, majority vote and each judgment's accuracy, in points, from the JSON alone."""
    data = json.loads(path.read_text())
    records = [r for conv in data["detailed_results"].values() for r in conv]
    votes = [[bool(r["llm_judgments"][f"judgment_{k}"]) for k in (1, 2, 3)] for r in records]
    n = len(votes)
    runs = [100 * sum(v[k] for v in votes) / n for k in range(3)]
    majority = 100 * sum(sum(v) >= 2 for v in votes) / n
    return (sum(runs) / 3, majority, *runs)


def test_the_draft_needs_no_answer(release):
    _, result, df = release
    assert result.complete, result.text
    roles = result.roles
    assert roles["per_category_breakdown.json"] == "summary"        # checked against, not read
    assert roles["answer_key.json"] == roles["errors.json"] == roles["locomo10.json"] == "manifest"
    assert "all 6 verdict files hold the same 1540 query ids" in result.text
    assert "judgments: llm_judgments" in result.recipe
    assert 'records: "detailed_results.*"' in result.recipe
    assert "fc-baseline/results/*/eval_results.json" in result.recipe
    assert sorted(df["system"].unique()) == sorted([*FC_README, *AP_README])
    per_answer = df.groupby(["system", "query_id"]).size()
    assert per_answer.eq(3).all() and df.groupby("system")["query_id"].nunique().eq(1540).all()
    assert df["cluster"].nunique() == 10  # the conversation key each record list sits under


@pytest.mark.parametrize("rule", RULES)
def test_full_context_runs_reproduce_the_readme(release, rule):
    folder, _, df = release
    table = md.score(md.prepare(df, judges=rule, systems=list(FC_README)), options=dict(n_resamples=0))
    column = RULES.index(rule)
    for _, row in table.iterrows():
        published = FC_README[row["system"]][column]
        hand = _by_hand(folder / "fc-baseline/results" / row["system"] / "eval_results.json")[column]
        assert row["overall"] == pytest.approx(hand, abs=1e-9)
        assert round(row["overall"], 2) == published, (row["system"], rule)


def test_wrong_answer_baselines_acceptance(release):
    folder, _, df = release
    table = md.score(md.prepare(df, judges="mean", systems=list(AP_README)), options=dict(n_resamples=0)).set_index("system")
    for name, published in AP_README.items():
        hand = _by_hand(folder / "ap-baseline" / name / "ap_eval_results_scored.json")[0]
        assert table.loc[name, "overall"] == pytest.approx(hand, abs=1e-9)
        assert round(table.loc[name, "overall"], 2) == published
    # v1: 490 of 4620 judgments accept a wrong answer: 490/4620 = 10.606 %
    assert table.loc["v1", "overall"] == pytest.approx(100 * 490 / 4620)


def test_check_aggregate_tells_the_rule(release):
    _, _, df = release
    for system, numbers in FC_README.items():
        own = df[df["system"] == system]
        table = md.check_aggregate(verdicts=own, system=system, reported_overall=numbers[0]).set_index("rule")
        for rule, published in zip(RULES, numbers):  # every rule's number is the README's for that rule
            assert round(table.loc[rule, "recomputed"], 2) == published, (system, rule)
        assert "mean" in table.attrs["consistent_rules"]
    # 4.1-mini cot: 92.62 is the per-run mean and no other rule (92.66, 92.60, 92.47, 92.79)
    table = md.check_aggregate(verdicts=df, system="gpt-4.1-mini-cot", reported_overall=92.62)
    assert table.attrs["consistent_rules"] == ["mean"]
    # 4o-mini memos: 74.35 is the majority vote, and judgment 3 alone gives it too: both are named
    table = md.check_aggregate(verdicts=df, system="gpt-4o-mini-memos", reported_overall=74.35)
    assert table.attrs["consistent_rules"] == ["majority", "repeat:2"]
    for name, published in AP_README.items():
        table = md.check_aggregate(verdicts=df, system=name, reported_overall=published)
        assert "mean" in table.attrs["consistent_rules"]


def test_dataset_matching_agrees_with_the_release_own_ids(real_data, tmp_path):
    # The release's question_id locomo_<c>_qa<k> is question k of conversation c's qa list in
    # locomo10.json; matching by text alone (ignoring that id) must give the canonical id of
    # exactly that question: its position among the conversation's non-adversarial questions.
    folder = real_data / RELEASE
    if not folder.is_dir():
        pytest.skip(f"{folder} is absent")
    data = json.loads((folder / "data" / "locomo10.json").read_text())
    recipe = {"dataset": str(folder / "data" / "locomo10.json"),
              "sources": [{"files": [str(folder / "fc-baseline/results/gpt-4o-mini-memos/eval_results.json")],
                           "records": "detailed_results.*", "judgments": "llm_judgments",
                           "fields": {"question": "question", "expected": "golden_answer", "category": "category",
                                      "cluster": "$1", "qid": "question_id"}}]}
    (tmp_path / "r.yaml").write_text(json.dumps(recipe))
    df = md.read_verdicts(recipe=tmp_path / "r.yaml", allow_outside=True).drop_duplicates("qid")

    def canonical(qid):
        conv, k = (int(x) for x in qid.removeprefix("locomo_").split("_qa"))
        qa = data[conv]["qa"]
        assert qa[k]["category"] != 5
        return f"locomo:{data[conv]['sample_id']}:{sum(q['category'] != 5 for q in qa[:k]):03d}"

    assert len(df) == 1540 and (df["qid"].map(canonical) == df["query_id"]).all()
    assert "1540 of 1540" in df.attrs["read_notes"][0]
