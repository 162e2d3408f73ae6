"""Parameter sensitivity (paper Figure 4): each setting against the default, from md.compare."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import memdiag as md


@pytest.fixture(scope="module")
def sweep() -> pd.DataFrame:
    df = md.simulate(n_queries=400, systems=("final_k=5", "final_k=15", "final_k=30"), reference="final_k=15",
                     accuracy={"final_k=5": 0.55, "final_k=15": 0.62, "final_k=30": 0.63}, seed=8)
    other = df.assign(system="zep " + df["system"])
    return pd.concat([df, other], ignore_index=True)


def test_each_setting_equals_compare_against_the_default(sweep):
    out = md.sensitivity(sweep, parameter="final_k", default=15, options=dict(n_resamples=1_000, seed=3))
    plain = out[out["system"] == ""].set_index("value")
    direct = md.compare(sweep[~sweep["system"].str.startswith("zep")], reference="final_k=15",
                        options=dict(n_resamples=1_000, seed=3)).set_index("system_a")
    for value in (5.0, 30.0):
        row = direct.loc[f"final_k={value:g}"]
        assert plain.loc[value, "diff"] == pytest.approx(row["diff"])
        assert plain.loc[value, "ci_low"] == pytest.approx(row["ci_low"])
        assert plain.loc[value, "p_adj"] == pytest.approx(row["p_adj"])
    assert plain.loc[15.0, "diff"] == 0 and np.isnan(plain.loc[15.0, "ci_low"])
    assert set(out["system"]) == {"", "zep"} and out.attrs["default"] == 15.0


def test_missing_default_and_unnamed_settings_are_clear_errors(sweep):
    with pytest.raises(md.VerdictError, match="no run with final_k=20"):
        md.sensitivity(sweep, default=20, options=dict(n_resamples=100))
    with pytest.raises(md.VerdictError, match="no system is named 'top_k=<value>'"):
        md.sensitivity(sweep, parameter="top_k", default=5, options=dict(n_resamples=100))
