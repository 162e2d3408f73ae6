"""Judge-error corrections (SPEC §9.1, §9.2): Rogan–Gladen with the Lee et al. interval, the calibration
size, and PPI++ — against the published examples, the ``ppi-python`` package, hand cases and simulation."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import memdiag as md
from memdiag.engine.inference import misclassification as mc
from memdiag.errors import VerdictError


def test_lee_et_al_example():
    # Lee et al. (arXiv 2511.21140): p = 0.5, q0 = q1 = 0.9, n = 10,000, m0 = m1 = 5,000 -> 0.5, [0.4857, 0.5143]
    out = md.rogan_gladen(50, 0.9, 0.9, 10_000, 5_000, 5_000)
    assert out.loc[0, "corrected"] == pytest.approx(50.0)
    assert round(out.loc[0, "ci_low"] / 100, 4) == 0.4857
    assert round(out.loc[0, "ci_high"] / 100, 4) == 0.5143
    # by hand: Var = (0.25/1e4 + 0.25·0.09/5e3 · 2)/0.8² = 5.3125e-5; se = 0.0072887
    assert out.loc[0, "se"] / 100 == pytest.approx(math.sqrt(5.3125e-5), rel=1e-12)


def test_rogan_gladen_and_calibration_size_read_the_level_from_options():
    # Lee et al.'s example at 90%: the same se (0.72887 points), half-width z_0.95 · se = 1.644854 · 0.72887
    se = 100 * math.sqrt(5.3125e-5)
    out = md.rogan_gladen(50, 0.9, 0.9, 10_000, 5_000, 5_000, options={"confidence_level": 0.9})
    assert out.loc[0, "ci_high"] - out.loc[0, "corrected"] == pytest.approx(stats.norm.ppf(0.95) * se, rel=1e-12)
    assert out.attrs["confidence_level"] == 0.9
    # the 90% width of m0 = m1 = 5,000 is reached by exactly 5,000 + 5,000 under equal allocation
    width = 2 * stats.norm.ppf(0.95) * se
    size = md.calibration_size(50, 0.9, 0.9, 10_000, width + 1e-9, allocation="equal",
                               options=md.Options(confidence_level=0.9))
    assert (size.loc[0, "n_incorrect"], size.loc[0, "n_correct"]) == (5_000, 5_000)


def test_judgy_example():
    # judgy's README: TPR 1, TNR 0.75, observed 0.773 -> 0.6973  ((0.773 + 0.75 − 1)/(1 + 0.75 − 1))
    out = md.rogan_gladen(77.3, 1.0, 0.75, 1_000, 100, 100)
    assert round(out.loc[0, "corrected"] / 100, 4) == 0.6973


def test_judge_no_better_than_chance_is_an_error():
    with pytest.raises(VerdictError, match="no better than chance"):
        md.rogan_gladen(50, 0.5, 0.5, 100, 10, 10)


def test_rogan_gladen_interval_covers_by_simulation():
    # the interval must carry the calibration error: draw test and calibration sets and count coverage
    rng = np.random.default_rng(3)
    theta, q0, q1, n, m0, m1, reps = 0.7, 0.8, 0.92, 2_000, 150, 150, 4_000
    p = q1 * theta + (1 - q0) * (1 - theta)
    ph = rng.binomial(n, p, reps) / n
    q0h = rng.binomial(m0, q0, reps) / m0
    q1h = rng.binomial(m1, q1, reps) / m1
    hits = 0
    for a, b, c in zip(ph, q0h, q1h):
        r = mc.rogan_gladen(a, b, c, n, m0, m1)
        hits += r["ci_low"] <= theta <= r["ci_high"]
    assert 0.94 <= hits / reps <= 0.96
    # the test-set variance alone (calibration ignored) under-covers: the calibration term matters
    naive = np.mean([abs((a + b - 1) / (b + c - 1) - theta) <= 1.96 * math.sqrt(a * (1 - a) / n) / (b + c - 1)
                     for a, b, c in zip(ph, q0h, q1h)])
    assert naive < 0.85


def test_calibration_size_inverts_the_interval():
    # Lee's example: the width at m0 = m1 = 5,000 needs exactly 5,000 + 5,000 under equal allocation
    width = 100 * (0.5142855696368529 - 0.48571443036314693)
    out = md.calibration_size(50, 0.9, 0.9, 10_000, width + 1e-9, allocation="equal")
    assert (out.loc[0, "n_incorrect"], out.loc[0, "n_correct"]) == (5_000, 5_000)
    # optimal allocation: the returned sizes reach the width, one label fewer of the larger part does not
    p, q1, q0, n, target = 70.0, 0.95, 0.7, 1_540, 10.0
    out = md.calibration_size(p, q1, q0, n, target)
    m0, m1 = int(out.loc[0, "n_incorrect"]), int(out.loc[0, "n_correct"])

    def width(a, b):  # the interval written out again: Var = [p(1−p)/n + (1−θ)²q0(1−q0)/m0 + θ²q1(1−q1)/m1]/J²
        j = q0 + q1 - 1
        th = (p / 100 + q0 - 1) / j
        v = (p / 100 * (1 - p / 100) / n + (1 - th) ** 2 * q0 * (1 - q0) / a + th ** 2 * q1 * (1 - q1) / b) / j ** 2
        return 2 * 1.959963984540054 * math.sqrt(v) * 100

    assert width(m0, m1) <= target
    assert width(m0 - 1, m1) > target or width(m0, m1 - 1) > target
    equal = md.calibration_size(p, q1, q0, n, target, allocation="equal")
    assert out.loc[0, "n_calibration"] <= equal.loc[0, "n_calibration"]
    # a test set too small for the width: infinite, with a note
    tight = md.calibration_size(p, q1, q0, 100, 1.0)
    assert math.isnan(tight.loc[0, "n_calibration"]) and not tight.loc[0, "feasible"]
    assert any(getattr(n, "code", "") == "calibration-infeasible" for n in tight.attrs["notes"])


def _panel(seed: int = 0, n_clusters: int = 12, per: int = 40, label_share: float = 0.3):
    """Two systems, a judge with sensitivity 0.9 and specificity 0.75, and human labels on a random subset."""
    rng = np.random.default_rng(seed)
    rows = []
    for g in range(n_clusters):
        shift = rng.normal(0, 0.8)
        for i in range(per):
            qid = f"c{g:02d}-q{i:03d}"
            labelled = rng.random() < label_share
            for s, base in (("a", 0.4), ("b", 0.0)):
                truth = rng.random() < 1 / (1 + np.exp(-(base + shift)))
                judged = rng.random() < (0.9 if truth else 0.25)
                rows.append({"system": s, "query_id": qid, "cluster": f"c{g:02d}", "score": float(judged),
                             "human": float(truth) if labelled else np.nan})
    return pd.DataFrame(rows)


def test_judge_corrected_from_labels_matches_hand_formula():
    df = _panel()
    out = md.judge_corrected(df, label="human", reference="b", options=dict(design="iid"))
    lab = df.dropna(subset=["human"])
    q1 = lab.loc[lab.human == 1, "score"].mean()
    q0 = 1 - lab.loc[lab.human == 0, "score"].mean()
    m1, m0 = int((lab.human == 1).sum()), int((lab.human == 0).sum())
    a = out.set_index(["kind", "system"])
    assert a.loc[("score", "a"), "sensitivity"] == pytest.approx(q1)
    assert a.loc[("score", "a"), "specificity"] == pytest.approx(q0)
    for s in ("a", "b"):
        p = df.loc[df.system == s, "score"].mean()
        n = (df.system == s).sum()
        j = q0 + q1 - 1
        th = (p + q0 - 1) / j
        se = math.sqrt(p * (1 - p) / n + (1 - th) ** 2 * q0 * (1 - q0) / m0 + th ** 2 * q1 * (1 - q1) / m1) / j
        assert a.loc[("score", s), "corrected"] == pytest.approx(100 * th)
        assert a.loc[("score", s), "se"] == pytest.approx(100 * se)
    # the paired difference: variance of the per-query difference, divisor n
    w = df.pivot(index="query_id", columns="system", values="score")
    d = (w["a"] - w["b"]).to_numpy()
    delta = d.mean() / (q0 + q1 - 1)
    se = math.sqrt(d.var() / d.size + delta ** 2 * (q0 * (1 - q0) / m0 + q1 * (1 - q1) / m1)) / (q0 + q1 - 1)
    row = a.loc[("difference", "a")]
    assert row["corrected"] == pytest.approx(100 * delta)
    assert row["se"] == pytest.approx(100 * se)


def test_judge_corrected_under_clusters_uses_the_cluster_jackknife():
    df = _panel(seed=1)
    out = md.judge_corrected(df, sensitivity=0.9, specificity=0.75, n_correct=300, n_incorrect=300, reference="b")
    a = out.set_index(["kind", "system"])
    # the test-set variance by leaving each cluster out with pandas, t on G − 1 = 11 df
    w = df.pivot(index="query_id", columns="system", values="score").join(
        df.drop_duplicates("query_id").set_index("query_id")["cluster"])
    leave = np.array([w.loc[w.cluster != g, "a"].mean() for g in sorted(w.cluster.unique())])
    var_p = 11 / 12 * ((leave - leave.mean()) ** 2).sum()
    p = w["a"].mean()
    th = (p + 0.75 - 1) / 0.65
    se = math.sqrt(var_p + (1 - th) ** 2 * 0.75 * 0.25 / 300 + th ** 2 * 0.9 * 0.1 / 300) / 0.65
    assert a.loc[("score", "a"), "se"] == pytest.approx(100 * se)
    assert a.loc[("score", "a"), "df"] == 11
    t = stats.t.ppf(0.975, 11)
    assert a.loc[("score", "a"), "ci_high"] == pytest.approx(min(100, 100 * (th + t * se)))


def test_judge_corrected_needs_one_source():
    df = _panel()
    with pytest.raises(VerdictError, match="either label"):
        md.judge_corrected(df, label="human", sensitivity=0.9)
    with pytest.raises(VerdictError, match="needs label"):
        md.judge_corrected(df, sensitivity=0.9)
    bad = df.assign(human=df.human * 2)
    with pytest.raises(VerdictError, match="must be 0/1"):
        md.judge_corrected(bad, label="human")


ppi_py = pytest.importorskip("ppi_py")


@pytest.mark.parametrize("lam", [None, 1.0, 0.3])
def test_ppi_matches_ppi_python(lam):
    df = _panel(seed=2)
    out = md.ppi(df, label="human", reference="b", lam=lam, options=dict(design="iid")).set_index(["kind", "system"])
    w = df.pivot(index="query_id", columns="system", values="score")
    h = df.pivot(index="query_id", columns="system", values="human")
    lab = h["a"].notna().to_numpy()
    for kind, yhat, y in (("score", w["a"].to_numpy(), h["a"].to_numpy()),
                          ("difference", (w["a"] - w["b"]).to_numpy(), (h["a"] - h["b"]).to_numpy())):
        lo, hi = ppi_py.ppi_mean_ci(y[lab], yhat[lab], yhat[~lab], alpha=0.05, lam=lam)
        point = ppi_py.ppi_mean_pointestimate(y[lab], yhat[lab], yhat[~lab], lam=lam)
        row = out.loc[(kind, "a")]
        assert row["corrected"] == pytest.approx(100 * float(np.ravel(point)[0]), abs=1e-9)
        assert row["ci_low"] == pytest.approx(100 * float(np.ravel(lo)[0]), abs=1e-9)
        assert row["ci_high"] == pytest.approx(100 * float(np.ravel(hi)[0]), abs=1e-9)


def test_ppi_cluster_hand_case():
    # 3 clusters; labelled (y, ŷ) and unlabelled ŷ per cluster; λ = 1 (plain PPI)
    y = np.array([1, 0, 1, 1, 0, 1.])
    yh = np.array([1, 1, 1, 0, 0, 1.])
    cl = np.array(["A", "A", "B", "B", "C", "C"])
    yu = np.array([1, 0, 1, 1, 1, 0, 0.])
    cu = np.array(["A", "A", "B", "B", "C", "C", "C"])
    r = mc.ppi_mean(y, yh, yu, lam=1.0, clusters=cl, clusters_unlabelled=cu)
    # θ̂ = 4/7 + (0 − 1 + 0 + 1 + 0 + 0)/6 = 4/7
    assert r["estimate"] == pytest.approx(4 / 7)
    # leave A out: 3/5 + (1 + 0)/4... written out per cluster:
    #   −A: ŷ_U {1,1,1,0,0} = 3/5, rectifier {0,1,0,0}/4 = 1/4 -> 0.85
    #   −B: ŷ_U {1,0,1,0,0} = 2/5, rectifier {0,−1,0,0}/4 = −1/4 -> 0.15
    #   −C: ŷ_U {1,0,1,1} = 3/4, rectifier {0,−1,0,1}/4 = 0 -> 0.75
    leave = np.array([0.85, 0.15, 0.75])
    assert r["se"] ** 2 == pytest.approx(2 / 3 * ((leave - leave.mean()) ** 2).sum())
    assert r["df"] == 2
    assert r["ci_high"] == pytest.approx(4 / 7 + stats.t.ppf(0.975, 2) * r["se"])


def test_ppi_names_a_conclusion_the_labels_overturn():
    # equal true accuracy, but the judge accepts a's wrong answers far more often (differential leniency):
    # the judged difference excludes 0, the prediction-powered one does not
    rng = np.random.default_rng(4)
    rows = []
    for q in range(600):
        labelled = q % 2 == 0
        for s, fpr in (("a", 0.6), ("b", 0.1)):
            truth = rng.random() < 0.5
            judged = truth or rng.random() < fpr
            rows.append({"system": s, "query_id": f"q{q:03d}", "score": float(judged),
                         "human": float(truth) if labelled else np.nan})
    out = md.ppi(pd.DataFrame(rows), label="human", reference="b", options=dict(design="iid"))
    row = out[out["kind"] == "difference"].iloc[0]
    assert row["raw_ci_low"] > 0 and row["ci_low"] < 0 < row["ci_high"]
    changed = [n for n in out.attrs["notes"] if getattr(n, "code", "") == "judge-error-changes-conclusion"]
    assert len(changed) == 1 and changed[0].severity == "warning" and changed[0].concerns == ("a", "b")
    assert out.attrs["unit"] == "points"


@pytest.mark.slow
def test_ppi_cluster_interval_covers():
    # clustered truth and cluster-varying judge error at G = 12 (conversations); the target is the mean
    # over the cluster distribution, E[logistic(0.3 + u)], u ~ N(0, 1), by quadrature
    from scipy import integrate

    target = integrate.quad(lambda u: stats.norm.pdf(u) / (1 + np.exp(-(0.3 + u))), -10, 10)[0]
    rng = np.random.default_rng(11)
    G, per, reps, hits, naive = 12, 60, 1_000, 0, 0
    cl = np.repeat(np.arange(G), per)
    for _ in range(reps):
        u = rng.normal(0, 1.0, G)
        truth = rng.random(cl.size) < 1 / (1 + np.exp(-(0.3 + u[cl])))
        bias = rng.normal(0, 0.1, G)[cl]
        judged = (rng.random(cl.size) < np.clip(np.where(truth, 0.9, 0.2) + bias, 0, 1)).astype(float)
        lab = rng.random(cl.size) < 0.25
        args = (truth[lab].astype(float), judged[lab], judged[~lab])
        r = mc.ppi_mean(*args, clusters=cl[lab], clusters_unlabelled=cl[~lab])
        hits += r["ci_low"] <= target <= r["ci_high"]
        q = mc.ppi_mean(*args)  # the independent-items interval ignores the clusters
        naive += q["ci_low"] <= target <= q["ci_high"]
    assert 0.93 <= hits / reps <= 0.97
    assert naive / reps < 0.85


# --------------------------------------------------------------------------------------------
# issue 30, items 6–8: units, estimates outside [0, 100], a nearly uninformative judge
# --------------------------------------------------------------------------------------------
def test_an_accuracy_given_as_a_fraction_is_refused_with_the_number_to_pass():
    # 0.5 read in points is 0.005, below the judge's false-positive rate 1 − 0.9 = 0.1 that any true accuracy
    # gives (p = q1·θ + (1 − q0)(1 − θ) ≥ 1 − q0): 0.3.0 returned −11.875 with CI [0, −10.69]
    with pytest.raises(VerdictError, match=r"accuracy 0.5 looks like a fraction.*10.00 points.*Pass 50 "):
        md.rogan_gladen(0.5, 0.9, 0.9, 10_000, 5_000, 5_000)
    # 0.3.0 returned inf for 0.7 (fraction) with width 0.05
    with pytest.raises(VerdictError, match=r"accuracy 0.7 looks like a fraction.*Pass 70 "):
        md.calibration_size(0.7, 0.9, 0.8, 1000, 0.05)
    with pytest.raises(VerdictError, match=r"accuracy is in points \(0–100\), got 150"):
        md.rogan_gladen(150, 0.9, 0.9, 100, 10, 10)
    with pytest.raises(VerdictError, match=r"sensitivity is a fraction in \[0, 1\], got 90.*90 points is 0.9"):
        md.rogan_gladen(50, 90, 0.9, 100, 10, 10)
    with pytest.raises(VerdictError, match=r"specificity is a fraction in \[0, 1\], got 80"):
        md.judge_corrected(_panel(), sensitivity=0.9, specificity=80, n_correct=10, n_incorrect=10)


def test_a_small_accuracy_the_judge_can_give_is_read_in_points_with_a_caution():
    # specificity 0.999: false-positive rate 0.1 points, so 0.95 points is possible and is taken as points:
    # θ = (0.0095 + 0.999 − 1)/(0.9 + 0.999 − 1) = 0.0085/0.899 = 0.0094549 -> 0.94549 points
    out = md.rogan_gladen(0.95, 0.9, 0.999, 10_000, 1_000, 1_000)
    assert out.loc[0, "corrected"] == pytest.approx(100 * 0.0085 / 0.899)
    [note] = [n for n in out.attrs["notes"] if n.code == "accuracy-read-in-points"]
    assert note.severity == "caution" and "= 95 points" in note


def test_an_estimate_below_0_is_truncated_with_its_interval_and_a_note():
    # p = 0.15, q1 = 0.9, q0 = 0.8, n = 500, m1 = 40, m0 = 80: J = 0.7, θ = (0.15 + 0.8 − 1)/0.7 = −0.0714286;
    # Var = [0.15·0.85/500 + 1.0714286²·0.8·0.2/80 + 0.0714286²·0.9·0.1/40]/0.49
    #     = [2.55e-4 + 2.295918e-3 + 1.147959e-5]/0.49 = 5.229388e-3, se = 0.0723145;
    # θ ± 1.959964·se = [−0.213163, 0.070305]; 0.3.0 reported −7.14 with CI [0.00, 7.03]
    out = md.rogan_gladen(15, 0.9, 0.8, 500, 40, 80)
    row = out.iloc[0]
    assert row["corrected_untruncated"] == pytest.approx(-100 * 0.05 / 0.7)
    assert (row["corrected"], row["ci_low"]) == (0.0, 0.0)
    assert row["ci_high"] == pytest.approx(7.0305, abs=1e-3)
    [note] = [n for n in out.attrs["notes"] if n.code == "judge-corrected-truncated"]
    assert note.severity == "warning" and "-7.14 [-21.32, 7.03]" in note and "0.00 [0.00, 7.03]" in note
    # wholly below 0 (0.3.0: low 0 > high −12.28): the interval is [0, 0] and contains its estimate
    below = md.rogan_gladen(10, 0.9, 0.8, 10_000, 5_000, 5_000).iloc[0]
    assert (below["corrected"], below["ci_low"], below["ci_high"]) == (0.0, 0.0, 0.0)
    assert below["corrected_untruncated"] == pytest.approx(-100 / 7)
    [note] = [n for n in md.rogan_gladen(10, 0.9, 0.8, 10_000, 5_000, 5_000).attrs["notes"]]
    assert "-14.29 [-16.29, -12.28]" in note and "0.00 [0.00, 0.00]" in note


def test_no_estimate_leaves_its_interval_by_brute_force_over_a_grid():
    # every combination of a grid of inputs: the reported interval is ordered, inside [0, 100], and holds the
    # estimate; inside [0, 100] nothing changes from the untruncated numbers
    for acc in (0.0, 2.0, 10.0, 15.0, 50.0, 85.0, 97.0, 100.0):
        for sens in (0.6, 0.8, 0.95, 1.0):
            for spec in (0.55, 0.8, 0.9, 1.0):
                for m in (5, 40, 2_000):
                    row = md.rogan_gladen(acc, sens, spec, 300, m, m).iloc[0]
                    assert 0.0 <= row["ci_low"] <= row["corrected"] <= row["ci_high"] <= 100.0
                    if 0 <= row["corrected_untruncated"] <= 100:
                        assert row["corrected"] == row["corrected_untruncated"]


def test_a_difference_larger_than_j_is_truncated_at_100_through_the_cli(tmp_path):
    # a judged 90% and b judged 10% of 100 questions; stated q1 = 0.9, q0 = 0.8 (J = 0.7):
    # a: θ = (0.9 + 0.8 − 1)/0.7 = 1 exactly; b: (0.1 − 0.2)/0.7 = −0.142857 -> 0; a − b: 0.8/0.7 = 1.142857 -> 1
    from cli_run import run

    rows = [{"system": s, "query_id": f"q{i:03d}", "score": float(i < k)} for s, k in (("a", 90), ("b", 10))
            for i in range(100)]
    data = tmp_path / "v.csv"
    pd.DataFrame(rows).to_csv(data, index=False)
    out = tmp_path / "j.json"
    code, _, err = run("judge-error", data, "--sensitivity", 0.9, "--specificity", 0.8, "--n-correct", 40,
                       "--n-incorrect", 80, "--reference", "b", "--design", "iid", "--format", "json", "-o", out)
    assert code == 0, err
    import json
    tables = json.loads(out.read_text())
    [table] = [t for t in (tables if isinstance(tables, list) else [tables])
               if t["provenance"]["function"] == "judge_corrected"]
    rows = {(r["kind"], r["system"]): r for r in table["rows"]}
    b, diff = rows[("score", "b")], rows[("difference", "a")]
    assert b["corrected"] == 0.0 and b["corrected_untruncated"] == pytest.approx(-100 / 7)
    assert diff["corrected"] == 100.0 and diff["corrected_untruncated"] == pytest.approx(800 / 7)
    for r in rows.values():
        assert r["ci_low"] <= r["corrected"] <= r["ci_high"]
    text = " ".join(n["text"] if isinstance(n, dict) else n for n in table["provenance"]["notes"])
    assert "a − b: the corrected difference 114.29" in text and "b: the corrected score -14.29" in text


def test_j_interval_matches_statsmodels_newcombe():
    from statsmodels.stats.proportion import confint_proportions_2indep

    # J = sensitivity − false-positive rate: two independent proportions, k1/m1 and (m0 − k0)/m0
    for k1, m1, k0, m0 in ((90, 100, 90, 100), (40, 40, 60, 80), (51, 100, 50, 100), (3, 5, 4, 7)):
        low, high = confint_proportions_2indep(k1, m1, m0 - k0, m0, method="newcomb", compare="diff")
        got = mc.youden_interval(k0 / m0, k1 / m1, m0, m1)
        assert got == pytest.approx((low, high), abs=1e-12)
    low, high = confint_proportions_2indep(90, 100, 10, 100, method="newcomb", alpha=0.1)
    assert mc.youden_interval(0.9, 0.9, 100, 100, confidence_level=0.9) == pytest.approx((low, high), abs=1e-12)


def test_a_nearly_uninformative_judge_is_warned_about_and_chance_still_refused():
    from statsmodels.stats.proportion import confint_proportions_2indep

    # J = 0.51 + 0.5 − 1 = 0.01 on 100 + 100 calibration items: Newcombe's interval [−0.126, 0.146] reaches 0
    out = md.rogan_gladen(50.5, 0.51, 0.5, 1_000, 100, 100)
    row = out.iloc[0]
    assert row["youden"] == pytest.approx(0.01) and row["youden_ci_low"] < 0 < row["youden_ci_high"]
    [note] = [n for n in out.attrs["notes"] if n.code == "judge-nearly-uninformative"]
    assert note.severity == "warning" and "0.0100" in note and "100 right, 100 wrong" in note
    # Lee et al.'s judge (J = 0.8 on 10,000 items) gets no such warning
    assert not [n for n in md.rogan_gladen(50, 0.9, 0.9, 10_000, 5_000, 5_000).attrs["notes"]
                if n.code == "judge-nearly-uninformative"]
    with pytest.raises(VerdictError, match="no better than chance"):
        md.rogan_gladen(50, 0.5, 0.5, 1_000, 100, 100)
    # from calibration labels: the judge accepts 53% of the labelled right answers and 47% of the wrong ones
    df = _panel(seed=4)
    for truth, share in ((1.0, 0.53), (0.0, 0.47)):
        cells = df.index[df["human"] == truth]
        df.loc[cells, "score"] = (np.arange(cells.size) < round(share * cells.size)).astype(float)
    k1, m1 = int(df.loc[df.human == 1, "score"].sum()), int((df.human == 1).sum())
    f0, m0 = int(df.loc[df.human == 0, "score"].sum()), int((df.human == 0).sum())
    low, high = confint_proportions_2indep(k1, m1, f0, m0, method="newcomb", compare="diff")
    assert low < 0 < k1 / m1 - f0 / m0   # this calibration cannot tell the judge from chance
    out = md.judge_corrected(df, label="human", reference="b", options={"design": "iid"})
    assert np.allclose(out["youden_ci_low"], low, rtol=0, atol=1e-12)
    assert np.allclose(out["youden_ci_high"], high, rtol=0, atol=1e-12)
    assert any(n.code == "judge-nearly-uninformative" and n.severity == "warning" for n in out.attrs["notes"])


def test_the_cli_warns_about_a_nearly_uninformative_judge(tmp_path):
    # J = 0.52 + 0.5 − 1 = 0.02 on 200 + 200 items; Newcombe's interval reaches 0 (statsmodels:
    # confint_proportions_2indep(104, 200, 100, 200, method="newcomb") = [−0.0773, 0.1168]); mem0's score
    # divides by 0.02 and is reported truncated at 100 with the untruncated number in a warning
    from cli_run import run

    data = tmp_path / "v.csv"
    md.simulate(n_queries=200, seed=1).to_csv(data, index=False)
    code, out, err = run("judge-error", data, "--sensitivity", 0.52, "--specificity", 0.5, "--n-correct", 200,
                         "--n-incorrect", 200, "--design", "iid")
    assert code == 0, err
    assert "warning: the judge is nearly uninformative: J = sensitivity + specificity − 1 = 0.0200" in out
    assert "[-0.0773, 0.1168]" in out
    assert "warning: mem0: the corrected score 750.00" in out
