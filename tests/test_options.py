"""md.Options: the resampling and inference choices set once; the pre-0.3 keywords still work, with a warning.

Issue 19, item 1: the options are one frozen, validated record; the data choices live on the
prepared data; an old call gives the same numbers as the new one and says what replaces it.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

import memdiag as md
from memdiag.errors import VerdictError


@pytest.fixture(scope="module")
def df() -> pd.DataFrame:
    return md.simulate(n_queries=240, systems={"raw-rag": 0.6, "mem": 0.7, "other": 0.55}, seed=3)


def test_options_are_frozen_validated_and_replaceable():
    opts = md.Options(n_resamples=500, seed=9, confidence_level=0.9)
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.seed = 1  # type: ignore[misc]
    assert opts.replace(seed=2).seed == 2 and opts.seed == 9
    for bad, message in [({"design": "clustered"}, "unknown design"), ({"inference": "wild"}, "unknown inference"),
                         ({"n_resamples": -1}, "n_resamples must be"), ({"n_resamples": 2.5}, "n_resamples must be"),
                         ({"seed": -3}, "seed must be"), ({"confidence_level": 1.0}, "confidence_level must be"),
                         ({"correction": "none"}, "unknown correction")]:
        with pytest.raises(VerdictError, match=message):
            md.Options(**bad)
    with pytest.raises(VerdictError, match="Options has no field 'scheme'"):
        opts.replace(scheme="locomo")


def test_a_mapping_is_read_as_options_and_data_choices_in_it_are_refused_with_the_fix(df):
    small = df[df["query_id"].isin(df["query_id"].unique()[:60])]
    pd.testing.assert_frame_equal(md.compare(small, options={"n_resamples": 300, "seed": 4}),
                                  md.compare(small, options=md.Options(n_resamples=300, seed=4)))
    pd.testing.assert_frame_equal(md.score(small, options=None), md.score(small, options=md.Options()))
    with pytest.raises(VerdictError, match=r"no field 'scheme'.*md\.prepare"):
        md.compare(df, options={"scheme": "locomo"})
    with pytest.raises(TypeError, match="options must be md.Options"):
        md.compare(df, options=2000)


def test_a_generator_seed_is_drawn_once_so_every_diagnostic_records_the_same_int(df):
    opts = md.Options(n_resamples=300, seed=np.random.default_rng(5))
    assert isinstance(opts.seed, int)
    a = md.compare(df, options=opts)
    b = md.flows(df, "raw-rag", options=opts)
    assert a["seed"].iloc[0] == b.attrs["seed"] == opts.seed
    pd.testing.assert_frame_equal(a, md.compare(df, options=md.Options(n_resamples=300, seed=opts.seed)))


@pytest.mark.parametrize("call, removed", [
    (lambda d, **k: md.compare(d, **k), dict(n_resamples=400)),
    (lambda d, **k: md.flows(d, "raw-rag", **k), dict(confidence_level=0.9)),
    (lambda d, **k: md.score(d, **k), dict(seed=1)),
    (lambda d, **k: md.omnibus(d, **k), dict(design="iid")),
    (lambda d, **k: md.bootstrap(d, **k), dict(method="bca")),
    (lambda d, **k: md.compare(d, **k), dict(systems=["mem", "raw-rag"])),
    (lambda d, **k: md.audit_claims(d, pd.DataFrame({"id": ["c1"], "system_a": ["mem"], "system_b": ["raw-rag"],
                                                    "direction": ["greater"]}), **k), dict(missing="drop")),
])
def test_the_keywords_deprecated_in_0_3_are_gone(df, call, removed):
    """0.3 moved the flat keywords into md.Options and md.prepare and warned; 0.4 removed them."""
    with pytest.raises(TypeError, match=next(iter(removed))):
        call(df, **removed)


def test_bootstraps_two_knobs_are_one_inference_choice(df):
    iid = md.prepare(df).with_design("iid")
    new = md.bootstrap(iid, options={"inference": "bca", "n_resamples": 400})
    assert new.attrs["method"] == "bca bootstrap (iid)"
    with pytest.raises(VerdictError, match="inference='bca' is a bootstrap interval for the iid design"):
        md.bootstrap(df, options={"inference": "bca", "n_resamples": 400})     # clustered: the rule uses the jackknife
    with pytest.raises(VerdictError, match="md.bootstrap's only"):
        md.compare(df, options={"inference": "bca", "n_resamples": 400})


def test_score_gives_intervals_by_default_and_none_with_zero_resamples(df):
    assert {"overall_ci_low", "overall_ci_high"} <= set(md.score(df).columns)
    plain = md.score(df, options={"n_resamples": 0})
    assert "overall_ci_low" not in plain and "n_resamples" not in plain.attrs
    with pytest.raises(VerdictError, match="compare resamples: n_resamples must be at least 1"):
        md.compare(df, options={"n_resamples": 0})


def test_prepared_data_keep_their_choices_and_reprepare_with_one_changed(df):
    short = df[~((df["system"] == "other") & (df["query_id"].isin(df["query_id"].unique()[:5])))]
    prep = md.prepare(short, missing="drop", systems=["raw-rag", "other"])
    assert prep.choices["missing"] == "drop" and prep.choices["systems"] == ["raw-rag", "other"]
    assert prep.n == 235
    again = prep.reprepare(missing="wrong")
    assert again.n == 240 and again.systems == ("raw-rag", "other") and again.missing == "wrong"
    assert prep.restrict(["raw-rag"]).reprepare().systems == ("raw-rag",)
    assert prep.with_design("iid").reprepare().design == "iid"


def test_every_public_diagnostic_on_data_takes_options_not_the_old_keywords():
    import dataclasses
    import inspect

    option_keywords = {field.name for field in dataclasses.fields(md.Options)}
    # the data choices the diagnostics took before 0.3, which moved to md.prepare
    data_keywords = {"scheme", "systems", "missing", "verdict_missing", "judges", "label_missing", "cluster_missing"}
    assert data_keywords <= set(inspect.signature(md.prepare).parameters)
    offenders = {}
    for name in md.__all__:
        obj = getattr(md, name)
        if not inspect.isfunction(obj) or name in ("prepare", "align", "read_verdicts"):
            continue
        params = inspect.signature(obj).parameters
        first = next(iter(params), None)
        if first not in ("data", "df"):
            continue
        # systems= is which systems to set against the reference (flows, replay) or to check one by one
        # (cluster_accuracy); agreement's verdict_missing is each rater's own (default exclude), and
        # content_filter_sensitivity's the policy for verdicts missing for other reasons than the
        # filter; the policies are what missing_verdict_effect compares. judge_leniency and
        # length_effect read a judge's answers to known-wrong answers, not verdicts: a scipy-like level.
        own = {"systems"} | ({"verdict_missing"} if name in ("agreement", "content_filter_sensitivity") else set()) \
            | ({"missing", "judges"} if name == "missing_verdict_effect" else set()) \
            | ({"confidence_level"} if name in ("judge_leniency", "length_effect") else set())
        old = sorted((option_keywords | data_keywords) & set(params) - own)
        if old:
            offenders[name] = old
    assert offenders == {}


def test_a_diagnostic_offers_options_only_when_it_reads_some_of_them():
    """An offered option must have an effect: the descriptive diagnostics take no options."""
    import inspect

    takes = {name for name in md.__all__ if inspect.isfunction(getattr(md, name))
             and "options" in inspect.signature(getattr(md, name)).parameters}
    assert not takes & {"augmentation", "replay", "cluster_accuracy", "evidence_length", "missing_verdict_effect"}
    for name in takes:
        assert "reads none" not in inspect.getdoc(getattr(md, name)), name
    with pytest.raises(TypeError):
        md.replay(md.simulate(n_queries=60, n_clusters=3, seed=1), "raw-rag", n_resamples=200)
