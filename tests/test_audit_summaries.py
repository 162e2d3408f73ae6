"""Auditing from published summaries alone (SPEC §7.7): granularity, McNemar p bounds, power, p at
a bootstrap floor, family adjustment — each against brute force, statsmodels or scipy, through the one
door a user has to them: ``md.audit_summaries`` on a file or a mapping of the same grammar."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from noncentral_t import t_detectable, t_power
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.multitest import multipletests

import memdiag as md
from memdiag.cli import main
from memdiag.errors import VerdictError

EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "example"
LOCOMO_SIZES = [152, 81, 152, 199, 178, 123, 150, 191, 156, 158]


def sm_p(b: int, c: int) -> float:
    return 1.0 if b + c == 0 else float(sm_mcnemar([[0, b], [c, 0]], exact=True).pvalue)


def detail(check: dict, n: int | None = None) -> pd.DataFrame:
    """The full table of one check run by md.audit_summaries on an in-memory summaries mapping."""
    out = md.audit_summaries({"checks": [{"id": "x", **check, **({} if n is None else {"n": n})}]})
    table = out.attrs["details"]["x"]
    assert table is not None, out.loc[0, "finding"]
    return table


def granularity(value: str, n: int | None = None, **fields) -> pd.DataFrame:
    return detail({"check": "granularity", "value": value, **fields}, n)


EVERY_N = {"denominators": {"from": 1, "to": 694}}


# --------------------------------------------------------------------------------------------
# granularity
# --------------------------------------------------------------------------------------------
def test_granularity_matches_brute_force_rounding():
    rng = np.random.default_rng(3)
    for _ in range(200):
        n, d = int(rng.integers(5, 800)), int(rng.integers(0, 3))
        value = round(100 * int(rng.integers(0, n + 1)) / n, d)
        text = f"{value:.{d}f}"
        found = granularity(text, n)["counts"].iloc[0]
        brute = tuple(k for k in range(n + 1) if abs(100 * k / n - value) <= 0.5 * 10 ** -d + 1e-9)
        assert found == brute and found, (text, n)


def test_granularity_flags_an_impossible_percentage_and_finds_denominators():
    out = granularity("12.3", 500)          # 61/500 = 12.2, 62/500 = 12.4: nothing gives 12.3
    assert not out.loc[0, "consistent"] and out.loc[0, "counts"] == ()
    assert out.loc[0, "closest"] in (12.2, 12.4)
    fits = granularity("46.95", **EVERY_N)
    assert fits.loc[fits["consistent"], "n"].iloc[0] == 164     # 77/164 = 46.951: the smallest n


def test_meme_task_percentages_imply_the_schemes_counts_at_the_least():
    # A.5.2: uncapped MemMachine ER 95.00, Agg 50.00, Tr 55.00, Del 61.00, Cas 46.95, Abs 16.15 (%)
    printed = {"ER": "95.00", "Agg": "50.00", "Tr": "55.00", "Del": "61.00", "Cas": "46.95", "Abs": "16.15"}
    fits = {t: granularity(v, **EVERY_N).query("consistent")["n"].tolist() for t, v in printed.items()}
    assert (fits["Del"][0], fits["Cas"][0], fits["Abs"][0]) == (100, 164, 130)
    assert fits["ER"][:3] == [20, 40, 60] and fits["Agg"][:2] == [2, 4]
    scheme = md.get_scheme("meme").expected_counts
    assert (scheme["Del"], scheme["Cas"], scheme["Abs"]) == (100, 164, 130)
    assert scheme["ER + Agg + Tr"] == 694 - 100 - 164 - 130
    # ... but the percentages alone do not single them out: with the 694 total, 29 (Del, Cas, Abs)
    # triples fit (brute force over every denominator each percentage allows)
    rest = {e + t + g for e in fits["ER"] for t in fits["Tr"] for g in fits["Agg"]}   # ER + Tr + Agg sums
    triples = {(d, c, a) for d in fits["Del"] for c in fits["Cas"] for a in fits["Abs"] if 694 - d - c - a in rest}
    assert len(triples) == 29 and (100, 164, 130) in triples


def test_granularity_of_a_difference_counts_nets_within_two_half_units():
    # +1.0 points of 934: nets m with |100 m/934 − 1.0| ≤ 0.1 -> 8.4 ≤ m ≤ 10.3
    assert granularity("1.0", 934, difference=True)["counts"].iloc[0] == (9, 10)
    assert granularity("-4.0", 500, difference=True)["counts"].iloc[0] == (-20,)


# --------------------------------------------------------------------------------------------
# McNemar p bounds
# --------------------------------------------------------------------------------------------
def test_mcnemar_bounds_enumerate_every_table_the_summaries_allow():
    # brute force over every 2x2 table of n = 40 with accuracies 55.0 and 45.0 (22 and 18 correct)
    n, acc_a, acc_b = 40, 22, 18
    brute = sorted({(b, c) for a in range(n + 1) for b in range(n + 1) for c in range(n + 1)
                    if a + b == acc_a and a + c == acc_b and n - a - b - c >= 0})
    out = detail({"check": "mcnemar", "accuracy_a": "55.0", "accuracy_b": "45.0"}, n)
    assert sorted(zip(out["benefit"], out["tax"])) == brute
    np.testing.assert_allclose(out["p"], [sm_p(b, c) for b, c in zip(out["benefit"], out["tax"])], rtol=1e-12)
    assert out.attrs["p_min"] == pytest.approx(min(sm_p(b, c) for b, c in brute))


def test_simplemem_net_of_minus_20_with_a_tax_of_12_percent():
    # Memory Tax review: net −20 on LongMemEval-s's 500 questions; tax 12.0% = 60 -> benefit 40
    out = detail({"check": "mcnemar", "net": -20, "tax": "12.0"}, 500)
    assert out[["benefit", "tax"]].values.tolist() == [[40, 60]]
    assert out.loc[0, "p"] == pytest.approx(sm_p(40, 60), rel=1e-12)
    assert 0.05 < out.loc[0, "p"] < 0.06 and not out.loc[0, "significant"]
    alone = detail({"check": "mcnemar", "net": -20}, 500)
    assert alone.attrs["p_min"] == pytest.approx(2 * 0.5 ** 20)              # b = 0, c = 20
    assert sm_p(37, 57) <= 0.05 < sm_p(38, 58)                                # 94 discordant, not 96
    assert alone.attrs["max_significant_discordant"] == 94


def test_mcnemar_bounds_with_clusters_add_the_designs_t_test():
    out = detail({"check": "mcnemar", "diff": "1.0", "clusters": 40}, 934)
    m, total = out["net"].to_numpy(), out["discordant"].to_numpy()
    delta, psi = m / 934, total / 934
    by_hand = 2 * stats.t.sf(np.abs(delta) / np.sqrt((psi - delta ** 2) / 934), 39)
    np.testing.assert_allclose(out["p_design"], by_hand, rtol=1e-10)
    assert out.attrs["n_clusters"] == 40 and out.attrs["max_significant_discordant"] == 20
    impossible = md.audit_summaries({"checks": [{"id": "x", "check": "mcnemar", "n": 500, "net": -20, "tax": "12.0",
                                                 "benefit": "10.0"}]})
    assert impossible.loc[0, "verdict"] == "flagged" and "inconsistent" in impossible.loc[0, "finding"]


# --------------------------------------------------------------------------------------------
# power, floors, families
# --------------------------------------------------------------------------------------------
def test_summary_power_is_exact_mcnemar_for_independent_queries_and_the_t_test_for_clusters():
    iid = detail({"check": "power", "diff": -4.0, "discordance": 20}, 500)
    assert iid.loc[0, "detectable_effect"] == pytest.approx(100 * md.detectable_effect(500, 0.2))
    assert iid.loc[0, "power"] == pytest.approx(md.mcnemar_power(500, 0.12, 0.08))
    # LoCoMo's ten conversations, icc 0.02: deff = 1 + (Σn²/N − 1)·0.02 by hand
    deff = 1 + (sum(s * s for s in LOCOMO_SIZES) / 1540 - 1) * 0.02
    assert md.design_effect(LOCOMO_SIZES, 0.02) == pytest.approx(deff)
    out = detail({"check": "power", "diff": 3.0, "discordance": 20, "cluster_sizes": LOCOMO_SIZES, "icc": 0.02}, 1540)
    se0, se = math.sqrt(deff * 0.2 / 1540), math.sqrt(deff * (0.2 - 0.03 ** 2) / 1540)
    assert out.loc[0, "detectable_effect"] == pytest.approx(100 * t_detectable(se0, 9), rel=1e-9)
    assert out.loc[0, "power"] == pytest.approx(t_power(0.03, se, 9), rel=1e-9)
    assert out.loc[0, "df"] == 9


def test_p_at_floor_finds_the_holm_family_of_the_papers_0_0012():
    def p_at_floor(p: str) -> pd.DataFrame:
        return detail({"check": "floor", "p": p, "n_resamples": 20_000})

    out = p_at_floor("0.0012")
    assert out["multiple"].tolist() == [12]                      # 12 · 2/20,001 = 0.00119994
    assert abs(11 * 2 / 20_001 - 0.0012) > 0.00005 and abs(13 * 2 / 20_001 - 0.0012) > 0.00005
    assert p_at_floor("0.025").empty
    assert p_at_floor("0.0001")["multiple"].tolist() == [1]   # the floor itself


def test_survives_family_bounds_holm_whatever_the_other_p_values(no_gc_collect):
    rng = np.random.default_rng(7)
    for _ in range(40):     # multipletests runs gc.collect() on every call: a few dozen families suffice
        m = int(rng.integers(2, 30))
        family = rng.uniform(0, 0.2, m)
        p = float(family[0])
        adjusted = multipletests(family, method="holm")[1][0]
        row = detail({"check": "family", "p": p, "family": m}).iloc[0]
        assert row["p_adj_low"] - 1e-15 <= adjusted <= row["p_adj_high"] + 1e-15
        if row["verdict"] == "survives":
            assert adjusted <= 0.05
        if row["verdict"] == "does not survive":
            assert adjusted > 0.05
    exact = detail({"check": "family", "p": [0.001, 0.02, 0.04]})
    np.testing.assert_allclose(exact["p_adj_high"], multipletests([0.001, 0.02, 0.04], method="holm")[1])


# --------------------------------------------------------------------------------------------
# the summaries file and the command
# --------------------------------------------------------------------------------------------
def test_memory_tax_review_audit():
    out = md.audit_summaries(EXAMPLE / "summaries_memory_tax.yaml").set_index("id")
    assert out.loc["simplemem-tax", "finding"] == "12.0 of 500 = count 60"
    assert out.loc["simplemem-net", "finding"].startswith("b = 40, c = 60 of 500: exact McNemar p = 0.0569")
    # "credible evidence" for +1.0 and +2.0 points on 934 questions in 40 personas: only if MemOS
    # disagrees with RAG on at most 20 questions (2.1%); Memory-R2 on at most 83 (8.9%)
    assert out.loc["memos-personamem", "verdict"] == "undetermined"
    assert "at most 20 of 934 questions (2.1%)" in out.loc["memos-personamem", "finding"]
    assert "at most 83 of 934 questions (8.9%)" in out.loc["memory-r2-personamem", "finding"]
    # the verdicts of docs/spec.md §7.7, none of them flagged here
    assert out["verdict"].isin(["consistent", "undetermined", "reported"]).all()
    details = md.audit_summaries(EXAMPLE / "summaries_memory_tax.yaml").attrs["details"]
    power = details["memory-r2-power"].set_index(["discordance", "icc"])
    assert power["df"].eq(39).all()
    # the README's numbers: at 20% discordance the design detects 4.20 points (5.06 with icc 0.02)
    # and +2.0 had power 0.27
    assert round(power.loc[(20.0, 0.0), "detectable_effect"], 2) == 4.20
    assert round(power.loc[(20.0, 0.02), "detectable_effect"], 2) == 5.06
    assert round(power.loc[(20.0, 0.0), "power"], 2) == 0.27
    assert sorted(details["plugmem-mint"]["net"].unique()) == [2, 3]


def test_raw_rag_paper_audit():
    out = md.audit_summaries(EXAMPLE / "summaries_raw_rag.yaml").set_index("id")
    assert out.loc["mem0-overall", "verdict"] == "flagged"          # the paper's reading, not Mem0's number
    assert "consistent under the mem0 convention" in out.loc["mem0-overall", "finding"]
    assert "66.879" in out.loc["mem0-overall", "finding"] and "(62.14)" in out.loc["mem0-overall", "finding"]
    assert out.loc["memobase-overall", "verdict"] == out.loc["backboard-overall", "verdict"] == "consistent"
    assert out.loc["reranker-holm-p", "verdict"] == "flagged" and "12 × the floor" in out.loc["reranker-holm-p",
                                                                                               "finding"]
    assert out.loc["top60-lru-holm-p", "verdict"] == "consistent"
    assert out.loc["meme-macro", "verdict"] == "consistent"
    # Mem0's table: 66.88% of 1,540 is 1,030 questions; Zep's 65.99% is no whole count of 1,540
    assert out.loc["mem0-locomo-overall", "finding"] == "66.88 of 1540 = count 1030"
    assert out.loc["zep-locomo-overall", "verdict"] == "flagged"
    assert 1016 / 1540 < 0.65985 and 1017 / 1540 > 0.65995


@pytest.mark.parametrize("spec, message", [
    ({"checks": [{"id": "a", "check": "nope"}]}, "'nope' is not a check"),
    ({"checks": [{"check": "floor", "p": 0.1}]}, "every check needs an id"),
    ({"checks": [{"id": "a", "check": "floor", "p": 0.1}, {"id": "a", "check": "floor", "p": 0.2}]}, "used twice"),
    ({"checks": [{"id": "a", "check": "mcnemar", "benchmark": "X", "net": 1}]}, "'X' is not among"),
    ({"checks": [], "extra": 1}, "unknown key"),
])
def test_summaries_files_are_checked(spec, message):
    with pytest.raises(VerdictError, match=message):
        md.read_summaries(spec)


def test_a_check_that_cannot_run_is_flagged_with_the_reason():
    out = md.audit_summaries({"checks": [{"id": "a", "check": "mcnemar", "net": 3}]})
    assert out.loc[0, "verdict"] == "flagged" and "needs n" in out.loc[0, "finding"]


def test_cli_audit_summaries(capsys):
    assert main(["audit", "--summaries", str(EXAMPLE / "summaries_memory_tax.yaml"), "--format", "csv"]) == 0
    assert "simplemem-net" in capsys.readouterr().out
    assert main(["audit", "--summaries", str(EXAMPLE / "summaries_raw_rag.yaml"), "--details"]) == 1
    text = capsys.readouterr().out
    assert "check reranker-holm-p" in text and "multiple" in text
    assert main(["audit"]) == 2
    assert "give a claims file" in capsys.readouterr().err


def test_first_and_family_checks():
    out = md.audit_summaries({"alpha": 0.05, "benchmarks": {"B": {"n": 500}}, "checks": [
        # leader 70.0 vs runner-up 65.0 on 500: nets 25, significant unless they disagree on > ~ 150
        {"id": "first", "check": "first", "benchmark": "B", "accuracies": {"a": 70.0, "b": 65.0, "c": 50.0}},
        {"id": "sig-21", "check": "family", "p": 0.001, "family": 21},     # 0.021: survives
        {"id": "sig-21b", "check": "family", "p": 0.01, "family": 21},     # [0.01, 0.21]: depends
        {"id": "sig-2", "check": "family", "p": 0.08, "family": 2},        # p > α: cannot survive
    ]}).set_index("id")
    bounds = detail({"check": "mcnemar", "accuracy_a": 70.0, "accuracy_b": 65.0}, 500)
    assert out.loc["first", "verdict"] == "undetermined"
    assert f"at most {bounds.attrs['max_significant_discordant']} of 500" in out.loc["first", "finding"]
    assert out.loc["first", "finding"].startswith("a (70.0) vs the runner-up b (65.0)")
    assert out.loc["sig-21", "verdict"] == "consistent"
    assert out.loc["sig-21b", "verdict"] == "undetermined"
    assert out.loc["sig-2", "verdict"] == "flagged"
