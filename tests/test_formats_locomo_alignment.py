"""Every LoCoMo reader yields the same 1,540 canonical query ids, with the same question at each id."""

from __future__ import annotations

import re
import unicodedata

import pandas as pd
import pytest
from locomo_facts import CONVERSATIONS, query_id

import memdiag as md

NON_ADVERSARIAL = [152, 81, 152, 199, 178, 123, 150, 191, 156, 158]  # per conversation, 1,540 in all


def normalise(text: str) -> str:
    """Case-, whitespace- and punctuation-insensitive form of a question."""
    return re.sub(r"[\W_]+", " ", unicodedata.normalize("NFKC", text).casefold()).strip()


@pytest.fixture(scope="module")
def sources(real_data) -> dict[str, pd.DataFrame]:
    trpc = real_data / "trpc-group__trpc-agent-go"
    frames = {
        "zep": md.read_verdicts(real_data / "getzep__zep-papers" / "zep_locomo_grades.json"),
        "memobase-0710": md.read_verdicts(real_data / "memodb-io__memobase" / "memobase_eval_0710_3000.json"),
        "memobase-0503": md.read_verdicts(real_data / "memodb-io__memobase" / "memobase_eval_0503_3000.json"),
        "backboard": pd.concat([md.read_verdicts(p) for p in sorted((real_data / "Backboard-io__Backboard-Locomo-Benchmark").glob("*.json"))]),
    }
    for path in sorted(trpc.glob("*/*/results.json")):
        frames[f"trpc/{path.parent.parent.name}/{path.parent.name}"] = md.read_verdicts(path)
    return frames


def test_every_locomo_source_has_the_same_1540_non_adversarial_ids(sources):
    expected = {query_id(k, i) for k, n in enumerate(NON_ADVERSARIAL) for i in range(n)}
    assert len(sources) == 4 + 15
    for name, df in sources.items():
        ids = df.loc[df["category"] != "adversarial", "query_id"]
        assert ids.is_unique and set(ids) == expected, name
        assert df["benchmark"].eq("locomo").all() and set(df["cluster"]) == set(CONVERSATIONS), name


def test_question_text_agrees_at_every_id_across_sources(sources):
    texts = pd.DataFrame({name: df.set_index("query_id")["question"].map(normalise) for name, df in sources.items()})
    reference = texts["zep"]
    # all 1,540 non-adversarial ids: same question in Zep, both Memobase runs, Backboard and all 15 trpc runs
    disagree = {name: texts.index[texts[name].notna() & (texts[name] != reference) & reference.notna()].tolist()
                for name in texts}
    assert disagree == {name: [] for name in texts}
    # adversarial ids exist only in trpc, and all 15 runs list the same questions there
    adversarial = texts[reference.isna()]
    assert len(adversarial) == 446 and (adversarial.drop(columns=[c for c in texts if not c.startswith("trpc/")])
                                        .nunique(axis=1) == 1).all()


def test_categories_agree_at_every_id_across_sources(sources):
    categories = pd.DataFrame({name: df.set_index("query_id")["category"] for name, df in sources.items()})
    assert (categories.nunique(axis=1) == 1).all()


def test_duplicated_question_texts_in_conv48_stay_distinct_queries(sources):
    zep = sources["zep"]
    conv48 = zep[zep["cluster"] == "conv-48"]
    assert conv48["question"].duplicated().sum() == 11 and conv48["query_id"].is_unique
