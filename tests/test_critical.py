"""Critical differences across settings (memdiag.synthesis.critical, SPEC §10.4): Demšar's Table 5, Friedman and
Wilcoxon–Holm from scipy/statsmodels, hand-worked mean ranks, and the diagram's artists."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

import memdiag as md
from memdiag.errors import VerdictError


def test_nemenyi_q_matches_demsar_table_5():
    # Demšar (2006), Table 5(a) (α = .05) and 5(b) (α = .10), k = 2..10; the table's third decimal is
    # off by up to 0.001 (2.343 for 2.3437, 2.949 for 2.9483). The critical difference md reports is
    # q_α·√(k(k + 1)/(6N)), N = 14 settings here.
    a05 = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
    a10 = [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920]
    rng = np.random.default_rng(0)
    for k, want05, want10 in zip(range(2, 11), a05, a10):
        scores = pd.DataFrame([(f"s{n}", f"x{j}", rng.normal()) for n in range(14) for j in range(k)],
                              columns=["setting", "system", "estimate"])
        for level, want in ((0.95, want05), (0.90, want10)):
            out = md.critical_difference(scores, options={"confidence_level": level})
            assert out.attrs["q_alpha"] == pytest.approx(want, abs=1e-3)
            assert out.attrs["cd"] == pytest.approx(out.attrs["q_alpha"] * np.sqrt(k * (k + 1) / (6 * 14)), rel=1e-12)
    # Demšar's worked example: k = 4 classifiers on N = 14 data sets, CD = 2.569·√(4·5/(6·14)) = 1.25
    scores = pd.DataFrame([(f"s{n}", f"x{j}", rng.normal()) for n in range(14) for j in range(4)],
                          columns=["setting", "system", "estimate"])
    cd = md.critical_difference(scores).attrs["cd"]
    assert cd == pytest.approx(2.569 * np.sqrt(20 / 84), abs=1e-3) and round(cd, 2) == 1.25


def _scores():
    # 6 settings × 3 systems; ranks per setting (x, y, z): a 1 2 3, b 1 2 3, c 1 3 2, d 1 2 3, e 1 2 3, f 1 2 3
    # mean ranks x = 1, y = 13/6 = 2.1667, z = 17/6 = 2.8333
    est = [70, 60, 50, 71, 62, 55, 69, 50, 61, 72, 66, 52, 75, 61, 58, 70, 65, 49]
    return pd.DataFrame({"setting": [c for c in "abcdef" for _ in "xyz"], "system": list("xyz") * 6, "estimate": est})


def test_mean_ranks_friedman_and_nemenyi():
    s = _scores()
    out = md.critical_difference(s)
    assert out["mean_rank"].tolist() == pytest.approx([1.0, 13 / 6, 17 / 6])
    wide = s.pivot(index="setting", columns="system", values="estimate")
    f = stats.friedmanchisquare(wide["x"], wide["y"], wide["z"])
    assert out.attrs["friedman_statistic"] == pytest.approx(f.statistic) and out.attrs["friedman_p"] == pytest.approx(f.pvalue)
    # CD = 2.343·√(3·4/36) = 1.353: x–z differ (1.83), x–y (1.17) and y–z (0.67) do not
    q = stats.studentized_range.ppf(0.95, 3, np.inf) / np.sqrt(2)     # q_0.05 for k = 3 (Demšar: 2.343)
    assert out.attrs["cd"] == pytest.approx(q * np.sqrt(12 / 36), rel=1e-6)
    assert out.set_index("system")["tied_with"].to_dict() == {"x": "y", "y": "x, z", "z": "y"}
    assert out.set_index("system").loc["x", "significantly_better_than"] == "z"
    low = md.critical_difference(s.assign(estimate=-s["estimate"]), higher_is_better=False)
    assert low["mean_rank"].tolist() == pytest.approx(out["mean_rank"].tolist())


def test_wilcoxon_holm_matches_scipy_and_statsmodels():
    rng = np.random.default_rng(3)
    s = pd.DataFrame([(f"s{j}", n, 60 + d + rng.normal(0, 2)) for j in range(10)
                      for n, d in (("a", 4), ("b", 0), ("c", 1), ("d", -3))], columns=["setting", "system", "estimate"])
    out = md.critical_difference(s, method="wilcoxon-holm").set_index("system")
    wide = s.pivot(index="setting", columns="system", values="estimate")
    order = list(out.index)
    pairs = [(a, b) for i, a in enumerate(order) for b in order[i + 1:]]
    raw = [stats.wilcoxon(wide[a], wide[b]).pvalue for a, b in pairs]
    reject = multipletests(raw, method="holm")[0]
    for (a, b), r in zip(pairs, reject):
        assert (b in out.loc[a, "tied_with"].split(", ")) == (not r)
    assert np.isnan(out.attrs["cd"])


def test_incomplete_systems_are_left_out_and_named():
    s = pd.concat([_scores(), pd.DataFrame({"setting": ["a"], "system": ["w"], "estimate": [99.0]})])
    out = md.critical_difference(s)
    assert "w" not in set(out["system"])
    assert any(getattr(n, "code", "") == "cd-incomplete-systems" and n.concerns == ("w",) for n in out.attrs["notes"])
    with pytest.raises(VerdictError, match="method"):
        md.critical_difference(_scores(), method="bonferroni-dunn")
    with pytest.raises(VerdictError, match="more than once"):
        md.critical_difference(pd.concat([_scores(), _scores().iloc[:1]]))


def test_diagram_draws_the_cd_and_the_groups_from_the_frame(tmp_path):
    out = md.critical_difference(_scores())
    fig = md.plot.critical_difference(out)
    lines = {line.get_gid(): line for line in fig.axes[0].lines if line.get_gid()}
    x = lines["cd-bar"].get_xdata()
    assert x[1] - x[0] == pytest.approx(out.attrs["cd"])
    assert sorted(g for g in lines if g.startswith("cd-group")) == ["cd-group-0", "cd-group-1"]
    # each system's leader line starts at its mean rank on the axis
    for row in out.itertuples():
        assert lines[f"cd-system-{row.system}"].get_xdata()[0] == pytest.approx(row.mean_rank)
    paths = md.plot.save(fig, tmp_path / "cd")
    assert {p.suffix for p in paths} == {".pdf", ".svg", ".png"}


def test_diagram_note_names_the_method_from_attrs():
    for method, words in (("nemenyi", "Nemenyi test, α = 0.05"), ("wilcoxon-holm", "Holm-adjusted")):
        fig = md.plot.critical_difference(md.critical_difference(_scores(), method=method))
        [note] = [t for t in fig.texts if t.get_gid() == "cd-note"]
        assert words in note.get_text().replace("\n", " ") and "6 settings" in note.get_text()
    fig = md.plot.critical_difference(md.critical_difference(_scores(), method="wilcoxon-holm"))
    assert not any(line.get_gid() == "cd-bar" for line in fig.axes[0].lines)      # no CD without Nemenyi
