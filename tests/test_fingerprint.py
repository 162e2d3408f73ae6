"""A checked frame is re-checked after any edit of its checked contents, in place or not
(issue 19: the id()-keyed fingerprint let an in-place edit skip checking)."""

from __future__ import annotations

import pandas as pd
import pytest

import memdiag as md
from memdiag.errors import VerdictError


@pytest.fixture
def checked() -> pd.DataFrame:
    df = pd.DataFrame({"system": ["a", "a", "b", "b"], "query_id": ["q1", "q2", "q1", "q2"],
                       "score": [1.0, 0.0, 1.0, 1.0], "cluster": ["c1", "c2", "c1", "c2"]})
    return md.check(df)


def test_an_unedited_checked_frame_is_not_checked_again(checked):
    # checking returns a new frame in canonical dtypes; a frame it recognises as checked comes back as is
    assert md.check(checked) is checked
    copied = checked.copy()
    assert md.check(copied) is copied          # an unedited copy has the same contents
    copied.loc[0, "score"] = 0.0               # an edit in place: checked again, a new frame
    assert md.check(copied) is not copied


def test_a_duplicate_verdict_made_in_place_is_refused(checked):
    checked.loc[1, "query_id"] = "q1"          # a's two verdicts now both answer q1
    with pytest.raises(VerdictError, match="duplicate verdict"):
        md.check(checked)
    with pytest.raises(VerdictError, match="duplicate verdict"):
        md.prepare(checked)


@pytest.mark.parametrize(("column", "value", "message"), [
    ("score", 2.0, "outside"), ("system", None, "is empty"), ("cluster", 3, "mixed value types")])
def test_any_edit_in_place_of_a_checked_column_is_checked(checked, column, value, message):
    checked[column] = checked[column].astype(object)
    checked.loc[2, column] = value
    with pytest.raises(VerdictError, match=message):
        md.check(checked)


def test_a_new_column_is_checked_again_and_passes(checked):
    checked["note"] = "x"                      # a new column: checked again, and it passes
    assert len(md.check(checked)) == 4
