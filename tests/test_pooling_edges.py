"""Pooling across settings at its edges (issue 30 items 1–4; SPEC §10.1): the Knapp–Hartung ad hoc floor,
DerSimonian–Laird truncated at 0, no p-value from a NaN or zero standard error, the prediction interval's
notes at small k and the REML fallback. Oracles: hand-worked formulas and pymare (DerSimonianLaird with
``small_sample_correction="knapp-hartung-conservative"``, the q ≥ 1 floor of metafor's ``test="adhoc"``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import memdiag as md
from memdiag.core.notes import with_code
from memdiag.engine.inference import meta
from memdiag.engine.inference.meta import pool_effects


def _codes(result) -> set[str]:
    return {n.code for n in result.notes}


def _pymare_dl(y, v, correction):
    pymare = pytest.importorskip("pymare")
    est = pymare.estimators.DerSimonianLaird(small_sample_correction=correction)
    s = est.fit(np.asarray(y, float)[:, None], np.asarray(v, float)[:, None], np.ones((len(y), 1))).summary()
    return float(np.ravel(s.tau2)[0]), s.get_fe_stats()


def test_two_settings_that_agree_exactly_get_the_floored_t1_interval():
    # issue 30: b − ref = 15.00 in both settings, each p = 0.38 (se = 15/z_{0.81} = 15/0.8779 = 17.09).
    # Q = 0 so τ̂² = 0 and the unfloored HKSJ variance Σw(y − μ)²/((k − 1)Σw) is 0 (15.00 [15.00, 15.00]).
    # Floored: Var = 1/Σw = se²/2, se_pooled = 17.09/√2 = 12.08; CI 15 ± t_{1,.975}·12.08 = 15 ± 12.706·12.08
    # = [−138.5, 168.5]; p = 2·P(t₁ > 15/12.08 = 1.241) = 0.432.
    se1 = 15.0 / stats.norm.isf(0.38 / 2)
    r = pool_effects([15.0, 15.0], [se1 ** 2, se1 ** 2])
    assert r.tau2 == 0.0 and r.interval == "hksj" and r.df == 1
    assert r.se == pytest.approx(se1 / np.sqrt(2), rel=1e-12)
    half = 12.706204736174696 * se1 / np.sqrt(2)                       # qt(.975, 1)
    assert (r.ci_low, r.ci_high) == pytest.approx((15 - half, 15 + half), rel=1e-10)
    assert round(r.ci_low, 1) == -138.5 and round(r.ci_high, 1) == 168.5
    assert r.p_value == pytest.approx(2 * stats.t.sf(15 / (se1 / np.sqrt(2)), 1), rel=1e-12)
    assert round(r.p_value, 3) == 0.432
    assert {"hksj-floor", "hksj-t1", "no-prediction-interval"} <= _codes(r)


@pytest.mark.parametrize("seed", range(6))
def test_hksj_matches_pymare_knapp_hartung_conservative(seed):
    # small heterogeneity: the floor binds in some data sets, not in others; both must match pymare
    rng = np.random.default_rng(seed)
    k = 3 + seed
    v = rng.uniform(0.5, 3.0, k)
    y = 1 + rng.normal(0, np.sqrt(v)) * (0.2 if seed % 2 else 1.5)
    r = pool_effects(y, v, tau2="dl", interval="hksj")
    t2, fe = _pymare_dl(y, v, "knapp-hartung-conservative")
    assert r.tau2 == pytest.approx(t2, abs=1e-12)
    assert r.estimate == pytest.approx(fe["est"].item(), rel=1e-10)
    assert r.se == pytest.approx(fe["se"].item(), rel=1e-10)
    assert r.p_value == pytest.approx(fe["p"].item(), rel=1e-8)
    assert (r.ci_low, r.ci_high) == pytest.approx((fe["ci_l"].item(), fe["ci_u"].item()), rel=1e-8)


def test_floor_leaves_heterogeneous_settings_alone():
    # spread-out effects: the unfloored HKSJ variance Σw(y − μ)²/((k − 1)Σw) exceeds 1/Σw and is kept as is
    y, v = np.array([0.0, 1.0, 8.0]), np.array([1.0, 0.5, 2.0])
    r = pool_effects(y, v, tau2="dl")
    w = 1 / (v + r.tau2)
    mu = np.sum(w * y) / np.sum(w)
    unfloored = np.sum(w * (y - mu) ** 2) / (2 * np.sum(w))
    assert unfloored > 1.2 / np.sum(w) and r.se ** 2 == pytest.approx(unfloored, rel=1e-12)
    assert "hksj-floor" not in _codes(r)


def test_the_same_folder_twice_is_not_a_certainty_through_pool_settings():
    d = pd.DataFrame({"setting": ["a", "a-again"], "system": "mem", "reference": "rag",
                      "diff": [15.0, 15.0], "se": [17.09, 17.09], "p": [0.38, 0.38]})
    out = md.pool_settings(d)
    row = out.iloc[0]
    assert row["ci_high"] - row["ci_low"] > 100 and row["p"] > 0.3
    assert with_code(out.attrs["notes"], "hksj-floor") and with_code(out.attrs["notes"], "hksj-t1")
    text = [str(n) for n in with_code(out.attrs["notes"], "no-prediction-interval")]
    assert text and text[0].startswith("mem: k < 3: no prediction interval")


@pytest.mark.parametrize("seed", range(8))
def test_dl_is_truncated_at_zero_like_pymare(seed):
    # near-homogeneous effects: the untruncated moment estimate (Q − (k − 1))/(Σw − Σw²/Σw) is negative
    rng = np.random.default_rng(100 + seed)
    k = 2 + seed % 4
    v = rng.uniform(0.5, 3.0, k)
    y = 1 + 0.1 * rng.normal(0, np.sqrt(v))
    w = 1 / v
    q = np.sum(w * (y - np.sum(w * y) / np.sum(w)) ** 2)
    assert (q - (k - 1)) / (np.sum(w) - np.sum(w ** 2) / np.sum(w)) < 0
    t2, fe = _pymare_dl(y, v, "wald")
    r = pool_effects(y, v, tau2="dl", interval="z")
    assert r.tau2 == 0.0 == t2
    assert np.isfinite(r.se) and 0 < r.p_value <= 1
    assert r.se == pytest.approx(fe["se"].item(), rel=1e-10)
    assert r.p_value == pytest.approx(fe["p"].item(), rel=1e-8)


def test_a_zero_robust_standard_error_gives_no_p_value():
    # every setting equal: the CR2 residuals are 0, so V = 0; the p is NaN with a warning, never 0
    r = pool_effects([2.0, 2.0, 2.0, 2.0], [1.0, 1.0, 1.0, 1.0], clusters=["a", "a", "b", "b"])
    assert r.se == 0.0 and np.isnan(r.p_value)
    assert [n.severity for n in r.notes if n.code == "pooled-se-undefined"] == ["warning"]


def test_design_p_of_a_nan_standard_error_is_nan():
    from memdiag.audit.published import _design_p
    p = _design_p(np.array([0.1, 0.1, 0.0]), np.array([np.nan, 0.2, 0.0]), 100, 1.0, 99.0)
    assert np.isnan(p[0]) and 0 < p[1] < 1 and p[2] == 1.0


@pytest.mark.parametrize("k, present, absent", [
    (2, {"no-prediction-interval", "hksj-t1"}, {"few-for-prediction"}),
    (3, {"few-for-prediction"}, {"no-prediction-interval", "hksj-t1"}),
    (9, {"few-for-prediction"}, {"no-prediction-interval"}),
    (10, set(), {"few-for-prediction", "no-prediction-interval", "hksj-t1"}),
])
def test_prediction_interval_notes_by_k(k, present, absent):
    rng = np.random.default_rng(k)
    r = pool_effects(rng.normal(0, 3, k), np.ones(k))
    assert present <= _codes(r) and not absent & _codes(r)
    assert np.isnan(r.pi_low) == (k < 3)
    if k == 2:
        assert next(str(n) for n in r.notes if n.code == "no-prediction-interval").startswith("k < 3: no prediction")


# found by simulation (k = 7, τ² = 0 drawn, v ~ U(0.5, 3)): Fisher scoring oscillates 0.0775 ↔ 0.0838 around
# a flat maximum and did not settle in 500 steps (the bare ValueError, 1 data set in 2,000)
OSCILLATING = (np.array([-0.05707617292180389, 2.120190699167116, 1.0564518173130886, -0.20092651168551412,
                         0.5722975023824881, 1.1526559861345838, -0.21488604979450066]),
               np.array([2.4211733645884648, 0.70338237890715, 2.519830665934292, 2.6745503265006083,
                         2.0851672647298427, 1.7323915187354215, 1.3052938531509986]))


def test_reml_that_oscillates_converges_to_pymare_reml():
    pymare = pytest.importorskip("pymare")
    y, v = OSCILLATING
    est = pymare.estimators.VarianceBasedLikelihoodEstimator(method="REML").fit(y[:, None], v[:, None],
                                                                                np.ones((7, 1)))
    want = float(np.ravel(est.summary().tau2)[0])                    # 0.0807696 (pymare, L-BFGS)
    assert meta.reml_tau2(y, v) == pytest.approx(want, abs=1e-6)
    r = pool_effects(y, v)
    assert r.tau2_method == "reml" and "reml-fallback-pm" not in _codes(r)


def test_reml_that_does_not_converge_falls_back_to_paule_mandel(monkeypatch):
    from statsmodels.stats.meta_analysis import combine_effects
    y, v = np.array([0.5, 3.0, -1.0, 2.0]), np.array([1.0, 0.8, 1.5, 2.0])

    def fails(*_args, **_kwargs):
        raise ValueError("REML τ² did not converge in 500 Fisher-scoring steps; use tau2='pm' or 'dl'.")

    monkeypatch.setattr(meta, "reml_tau2", fails)
    r = pool_effects(y, v)
    assert r.tau2_method == "pm" and r.tau2 == pytest.approx(combine_effects(y, v, method_re="pm").tau2)
    note = [n for n in r.notes if n.code == "reml-fallback-pm"]
    assert note and note[0].severity == "caution" and "Paule–Mandel" in note[0]
    out = md.pool_settings(pd.DataFrame({"setting": list("abcd"), "system": "mem", "reference": "rag",
                                         "diff": y, "se": np.sqrt(v), "p": 0.5}))
    assert out["tau2_method"].iloc[0] == "pm" and with_code(out.attrs["notes"], "reml-fallback-pm")


def _setting(seed: int, prefix: str) -> pd.DataFrame:
    frame = md.simulate(n_queries=120, systems=("rag", "mem"), accuracy={"rag": 0.6, "mem": 0.7}, reference="rag",
                        seed=seed)
    return frame.assign(query_id=prefix + frame["query_id"].astype(str))


def test_settings_sharing_question_ids_are_detected_and_clustered():
    # item 5: "a" and "a-again" are the same data (all 120 ids shared), "b" asks other questions
    # (ids prefixed "b-": no overlap). Groups by hand: a → a, a-again → a, b → b.
    runs = {"a": _setting(1, ""), "a-again": _setting(1, ""), "b": _setting(2, "b-")}
    d = md.setting_differences(runs, reference="rag", options={"n_resamples": 300, "seed": 1})
    assert dict(zip(d["setting"], d["questions"])) == {"a": "a", "a-again": "a", "b": "b"}
    shared = with_code(d.attrs["notes"], "settings-share-questions")
    assert len(shared) == 1 and shared[0].severity == "warning" and shared[0].concerns == ("a", "a-again")
    naive = md.pool_settings(d)
    warned = with_code(naive.attrs["notes"], "settings-share-questions")
    assert warned and "clusters='questions'" in warned[0] and set(warned[0].concerns) == {"mem", "a", "a-again"}
    robust = md.pool_settings(d, clusters="questions")
    assert robust["interval"].iloc[0] == "robust" and not with_code(robust.attrs["notes"], "settings-share-questions")


def test_settings_with_their_own_questions_get_no_sharing_warning():
    runs = {"a": _setting(1, "a-"), "b": _setting(2, "b-"), "c": _setting(3, "c-")}
    d = md.setting_differences(runs, reference="rag", options={"n_resamples": 300, "seed": 1})
    assert list(d["questions"]) == ["a", "b", "c"]
    assert not with_code(d.attrs["notes"], "settings-share-questions")
    assert not with_code(md.pool_settings(d).attrs["notes"], "settings-share-questions")


def test_one_question_set_under_clusters_is_refused_with_the_fix():
    runs = {"a": _setting(1, ""), "a-again": _setting(1, "")}
    d = md.setting_differences(runs, reference="rag", options={"n_resamples": 300, "seed": 1})
    with pytest.raises(md.errors.VerdictError, match="keep one setting"):
        md.pool_settings(d, clusters="questions")
