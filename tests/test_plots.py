"""memdiag.plots: the numbers drawn are the numbers computed; figures stay readable (no text
clipped or overlapping, inside the figure) at 1–20 systems with short and 60-character names; the
figures say what the frames' attrs say; one colour-blind-safe colour per system, never grey or
black; labels short and distinct; saved files are complete and reproducible.

The figures are drawn from real ``md.flows`` / ``md.compare`` / ``md.bootstrap`` output on
synthetic verdicts (few resamples: the plots only draw, so the interval quality is irrelevant),
and from hand-built frames where no memdiag function produces them yet (write audit,
sensitivity).
"""

from __future__ import annotations

import functools
import itertools
import re
import xml.etree.ElementTree as ET

import matplotlib

matplotlib.use("Agg")

import matplotlib.image as mpimg  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.collections import LineCollection  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402
from matplotlib.patches import Circle  # noqa: E402
from matplotlib.text import Text  # noqa: E402

import memdiag as md  # noqa: E402
from memdiag import plots  # noqa: E402
from memdiag.analyses.compare import bootstrap, compare  # noqa: E402
from memdiag.analyses.flows import flows  # noqa: E402
from memdiag.plots._names import system_labels  # noqa: E402
from memdiag.plots.bubble import MAX_AREA  # noqa: E402
from memdiag.plots.style import (  # noqa: E402
    PALETTE,
    PALETTE_SOURCES,
    REFERENCE_COLOR,
    SMALL_FONT_SIZE,
    renderer,
    save,
    system_colors,
    system_styles,
)

REF = "raw-rag"
NAMES = ["mem0", "zep", "a-mem", "simplemem", "memoryos", "lightmem", "openviking", "hipporag2",
         "plugmem", "magma", "mem-t", "memory-r2", "memobase", "letta", "cognee", "graphiti",
         "memtree", "reflexion", "memgpt", "backboard"]


def long_name(name: str) -> str:
    """A 60-character run name with separators, as released files are named."""
    base = f"{name}__{name}-memory_locomo-benchmark_gpt4o-mini_top_k-30_history"
    return (base + "_run-" + "0" * 60)[:60]


LONG = {name: long_name(name) for name in [REF, *NAMES]}
MINUS = "\u2212"
SVG_NS = "{http://www.w3.org/2000/svg}"


# ---------------------------------------------------------------- data


@functools.cache
def verdicts(k: int, n: int = 240) -> pd.DataFrame:
    """The reference plus k memory systems with different benefit and tax rates."""
    rng = np.random.default_rng(k)
    base = rng.random(n) < 0.7
    frames = [pd.DataFrame({"system": REF, "query_id": [f"q{i}" for i in range(n)],
                            "score": base.astype(float)})]
    for j, name in enumerate(NAMES[:k]):
        tax, benefit = 0.03 + 0.02 * (j % 5), 0.05 + 0.05 * (j % 3)
        y = np.where(base, rng.random(n) > tax, rng.random(n) < benefit)
        frames.append(pd.DataFrame({"system": name, "query_id": [f"q{i}" for i in range(n)],
                                    "score": y.astype(float)}))
    return pd.concat(frames, ignore_index=True)


def named(k: int, long: bool) -> pd.DataFrame:
    v = verdicts(k)
    return v.assign(system=v["system"].map(LONG)) if long else v


@functools.cache
def flows_frame(k: int, long: bool = False) -> pd.DataFrame:
    return flows(named(k, long), reference=LONG[REF] if long else REF, options=dict(n_resamples=200))


@functools.cache
def compare_frame(k: int, pairs: str = "reference", long: bool = False) -> pd.DataFrame:
    ref = (LONG[REF] if long else REF) if pairs == "reference" else None
    return compare(named(k, long), reference=ref, options=dict(n_resamples=200))


@functools.cache
def scores_frame(k: int, long: bool = False) -> pd.DataFrame:
    return bootstrap(named(k, long), options=dict(n_resamples=200))


def facts(systems) -> pd.DataFrame:
    """Token cost spanning ~100× and store sizes for every system."""
    m = len(systems)
    return pd.DataFrame({"system": list(systems),
                         "tokens_per_query": np.geomspace(500, 50_000, m)[::-1] if m > 1 else [4000.0],
                         "store_size": np.linspace(1e5, 4e7, m)})


def sensitivity_frame(k: int, long: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(k)
    rows = []
    for system in [LONG[n] for n in NAMES[:k]] if long else NAMES[:k]:
        for value in (1, 5, 10, 15, 30, 60, 120):
            d = 0.0 if value == 15 else float(rng.normal(-3, 4))
            half = 0.0 if value == 15 else float(rng.uniform(1, 2.5))
            rows.append({"system": system, "value": value, "diff": d, "ci_low": d - half,
                         "ci_high": d + half})
    return pd.DataFrame(rows)


def clopper_pearson(k, n, level=0.95):
    """Exact binomial interval in points from Beta quantiles (Clopper & Pearson 1934)."""
    from scipy.stats import beta

    a = (1 - level) / 2
    low = np.where(k == 0, 0.0, beta.ppf(a, k, n - k + 1))
    high = np.where(k == n, 1.0, beta.ppf(1 - a, k + 1, n - k))
    return 100 * low, 100 * high


def audit_frame(k: int) -> pd.DataFrame:
    rng = np.random.default_rng(k)
    n = rng.integers(50, 2000, k)
    proposed = rng.binomial(n, 0.05)
    effective = rng.binomial(proposed, 0.4)
    counts = pd.DataFrame({"cluster": [*(f"conv-{i}" for i in range(k)), "overall"],
                           "n_decisions": [*n, n.sum()], "proposed": [*proposed, proposed.sum()],
                           "effective": [*effective, effective.sum()]})
    for name in ("proposed", "effective"):
        counts[f"{name}_rate"] = 100 * counts[name] / counts["n_decisions"]
        counts[f"{name}_rate_ci_low"], counts[f"{name}_rate_ci_high"] = clopper_pearson(
            counts[name].to_numpy(), counts["n_decisions"].to_numpy())
    out = counts.drop(columns=["proposed", "effective"])
    update = rng.binomial(out["n_decisions"] * 0 + np.append(proposed, proposed.sum()), 0.7)
    out["n_update"] = np.append(update[:-1], update[:-1].sum())
    out["n_delete"] = np.append(proposed, proposed.sum()) - out["n_update"]
    out["n_add"] = ((out["n_decisions"] - np.append(proposed, proposed.sum())) * 0.6).round().astype(int)
    out.loc[out.index[-1], "n_add"] = out["n_add"].iloc[:-1].sum()
    rest = out["n_decisions"] - out["n_add"] - out["n_update"] - out["n_delete"]
    out["n_malformed"] = (rest * 0.05).round().astype(int)
    out.loc[out.index[-1], "n_malformed"] = out["n_malformed"].iloc[:-1].sum()
    out["n_none"] = rest - out["n_malformed"]
    out.attrs["confidence_level"] = 0.95
    return out


def ingestion_frame(k: int, long: bool = False) -> pd.DataFrame:
    """The reference and k systems ingesting 120 items, one of every five stopping at item 70."""
    rng = np.random.default_rng(k)
    rows = []
    for j, name in enumerate([REF, *NAMES[:k]]):
        n = 70 if j % 5 == 4 else 120
        rows.append(pd.DataFrame({"system": LONG[name] if long else name,
                                  "duration_s": rng.lognormal(np.log(0.05 + 3 * j), 0.4, n)}))
    return md.ingestion_curve(pd.concat(rows, ignore_index=True))


def overview_frame(k: int, long: bool = False) -> pd.DataFrame:
    """Three settings of the reference and k systems, each setting on its own range."""
    rng = np.random.default_rng(k)
    rows = []
    for setting, centre in (("LoCoMo · gpt-4o-mini", 70.0), ("MEME · gpt-4o-mini", 45.0),
                            ("MemoryAgentBench · gpt-4.1-mini", 30.0)):
        for name in [REF, *NAMES[:k]]:
            est = centre + float(rng.normal(0, 6))
            rows.append({"setting": setting, "system": LONG[name] if long else name, "estimate": est,
                         "ci_low": est - 4, "ci_high": est + 4})
    frame = pd.DataFrame(rows)
    frame.attrs["confidence_level"] = 0.95
    return frame


def store_gap_frame(k: int, long: bool = False) -> pd.DataFrame:
    """k memory systems with native, complete-store and raw-evidence scores (raw 61.6)."""
    rng = np.random.default_rng(k)
    native = rng.uniform(25, 50, k)
    complete = native + rng.uniform(3, 15, k)
    frame = pd.DataFrame({"system": [LONG[n] if long else n for n in NAMES[:k]], "native": native,
                          "complete": complete, "raw": 61.6, "raw_ci_low": 58.2, "raw_ci_high": 65.0,
                          "gain": complete - native, "gap": 61.6 - complete})
    for kind in ("gain", "gap"):
        frame[f"{kind}_ci_low"], frame[f"{kind}_ci_high"] = frame[kind] - 3.1, frame[kind] + 3.4
    frame["gap_p_adj"] = np.linspace(1e-5, 0.2, k)
    frame.attrs.update(confidence_level=0.95, correction="holm")
    return frame


def venn3_frame() -> pd.DataFrame:
    v = verdicts(2)
    wide = v.pivot(index="query_id", columns="system", values="score")
    wide["mem0+raw"] = np.maximum(wide["mem0"], wide[REF] * (np.arange(len(wide)) % 3 > 0))
    long = wide[[REF, "mem0", "mem0+raw"]].reset_index().melt(
        id_vars="query_id", var_name="system", value_name="correct")
    return long


# ---------------------------------------------------------------- helpers


def _undrawn_tick_labels(fig) -> set[int]:
    """Tick labels of ticks outside the view interval: matplotlib keeps but never draws them."""
    hidden = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            slack = 1e-9 * max(abs(low), abs(high), 1.0)
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not low - slack <= tick.get_loc() <= high + slack:
                    hidden.update({id(tick.label1), id(tick.label2)})
    return hidden


def texts(fig, drawn: bool = False) -> list[Text]:
    """Every drawn, non-empty text of the figure (ticks, labels, titles, legends, notes);
    ``drawn``: the figure has just been laid out."""
    if not drawn:
        renderer(fig)
    hidden = _undrawn_tick_labels(fig)
    return [t for t in fig.findobj(Text)
            if t.get_visible() and t.get_text().strip() and id(t) not in hidden
            and (t.axes is None or t.axes.get_visible())]


def assert_readable(fig) -> None:
    """No two texts intersect, none leaves the figure, none is below 7 pt (the text itself: an
    annotation's extent would include its leader line)."""
    r = renderer(fig)
    items = [(t, Text.get_window_extent(t, r)) for t in texts(fig, drawn=True)]
    frame = fig.bbox
    for t, box in items:
        assert t.get_fontsize() >= SMALL_FONT_SIZE, (t.get_text(), t.get_fontsize())
        assert box.x0 >= frame.x0 - 1 and box.y0 >= frame.y0 - 1 and \
            box.x1 <= frame.x1 + 1 and box.y1 <= frame.y1 + 1, f"{t.get_text()!r} leaves the figure"
    for (t1, b1), (t2, b2) in itertools.combinations(items, 2):
        w = min(b1.x1, b2.x1) - max(b1.x0, b2.x0)
        h = min(b1.y1, b2.y1) - max(b1.y0, b2.y0)
        assert not (w > 0.5 and h > 0.5), f"{t1.get_text()!r} overlaps {t2.get_text()!r}"


def by_gid(fig, gid: str):
    hits = [a for a in fig.findobj(lambda a: a.get_gid() == gid)]
    assert hits, f"no artist with id {gid}"
    return hits[0]


def error_segments(fig, gid: str) -> list[np.ndarray]:
    """The bar segments of the error bars drawn with artist id ``gid``."""
    bars = fig.findobj(lambda a: isinstance(a, LineCollection) and a.get_gid() == gid)
    assert len(bars) == 1, gid
    return bars[0].get_segments()


def svg_texts(path) -> dict[str, str]:
    """``{group id: its text}`` from an SVG written with svg.fonttype 'none' (lines joined)."""
    root = ET.parse(path).getroot()
    out = {}
    for group in root.iter(f"{SVG_NS}g"):
        lines = ["".join(t.itertext()) for t in group.iter(f"{SVG_NS}text")]
        if "id" in group.attrib and lines:
            out[group.attrib["id"]] = "\n".join(lines)
    return out


def pct(count: int, n: int) -> str:
    return f"{100 * count / n:.1f}%"



def texts_by_gid(fig, prefix: str) -> dict[str, str]:
    return {t.get_gid(): t.get_text() for t in fig.findobj(Text)
            if t.get_gid() and t.get_gid().startswith(prefix)}


def all_text(fig) -> str:
    """Every drawn text of the figure, wrapped lines joined with spaces."""
    return "\n".join(" ".join(t.get_text().split()) for t in texts(fig))


# ---------------------------------------------------------------- the numbers drawn


def test_venn_region_labels_name_the_region_and_equal_the_flow_counts_in_artists_and_svg(tmp_path):
    frame = flows_frame(2)
    fig = plots.venn(frame)
    svg = svg_texts(save(fig, tmp_path / "venn", formats=("svg",))[0])
    for row in frame.itertuples():
        for flow in ("benefit", "tax", "both"):
            count = getattr(row, flow)
            expected = f"{flow}\n{count}\n{pct(count, row.n)}"
            assert by_gid(fig, f"venn-{row.system}-{flow}").get_text() == expected
            assert svg[f"venn-{row.system}-{flow}"] == expected
        neither = f"neither: {row.neither} ({pct(row.neither, row.n)})"
        assert svg[f"venn-{row.system}-neither"] == neither


def test_venn_title_gives_net_and_net_rate_interval_in_points():
    frame = flows_frame(1)
    row = frame.iloc[0]
    title = plots.venn(frame).axes[0].get_title()
    name, detail = title.split("\n", 1)
    assert name == row.system
    numbers = [float(x.replace(MINUS, "-")) for x in re.findall(r"[+\u2212]\d+(?:\.\d+)?", detail)]
    assert numbers[0] == row.net
    assert numbers[1:] == pytest.approx([round(row.net_rate, 1), round(row.net_rate_ci_low, 1),
                                         round(row.net_rate_ci_high, 1)], abs=1e-9)


def test_venn_regions_put_reference_only_left_as_tax_and_system_only_right_as_benefit():
    frame = flows_frame(1)
    for shared in (True, False):
        fig = plots.venn(frame, shared_scale=shared)
        r = renderer(fig)
        tax = by_gid(fig, f"venn-{NAMES[0]}-tax").get_window_extent(r)
        benefit = by_gid(fig, f"venn-{NAMES[0]}-benefit").get_window_extent(r)
        both = by_gid(fig, f"venn-{NAMES[0]}-both").get_window_extent(r)
        assert tax.x1 < both.x0 and both.x1 < benefit.x0


def _circle_areas(fig, frame):
    renderer(fig)
    ratios = []
    for ax in fig.axes:
        system = next(t.get_gid() for t in ax.texts if t.get_gid() and t.get_gid().endswith("-neither"))
        row = frame.set_index("system").loc[system.removeprefix("venn-").removesuffix("-neither")]
        circles = [p for p in ax.patches if isinstance(p, Circle)]
        for circle, answered in zip(circles, (row.both + row.tax, row.both + row.benefit)):
            center = ax.transData.transform(circle.center)
            edge = ax.transData.transform((circle.center[0] + circle.radius, circle.center[1]))
            ratios.append(np.pi * (edge[0] - center[0]) ** 2 / answered)
    return np.array(ratios)


def test_venn_is_area_proportional_on_one_scale_across_panels_by_default():
    frame = flows_frame(7)
    ratios = _circle_areas(plots.venn(frame), frame)
    assert np.ptp(ratios) / np.mean(ratios) < 1e-6
    unweighted = _circle_areas(plots.venn(frame, shared_scale=False), frame)
    assert np.ptp(unweighted) / np.mean(unweighted) > 0.01


def test_venn_panels_follow_net_largest_first_or_the_given_order():
    frame = flows_frame(7)
    fig = plots.venn(frame)
    titles = [ax.get_title().split("\n")[0] for ax in fig.axes]
    expected = frame.sort_values(["net", "system"], ascending=[False, True])["system"].tolist()
    assert titles == expected
    given = list(reversed(NAMES[:7]))
    assert [ax.get_title().split("\n")[0] for ax in plots.venn(frame, systems=given).axes] == given


def test_venn3_region_counts_match_a_hand_count():
    long = venn3_frame()
    fig = plots.venn3(long, reference=REF)
    wide = long.pivot(index="query_id", columns="system", values="correct")[[REF, "mem0", "mem0+raw"]]
    codes = wide.astype(int).astype(str).agg("".join, axis=1)
    n = len(codes)
    for region in ("100", "010", "110", "001", "101", "011", "111"):
        count = int((codes == region).sum())
        assert by_gid(fig, f"venn3-{region}").get_text() == f"{count}\n{pct(count, n)}"
    none = int((codes == "000").sum())
    assert by_gid(fig, "venn3-none").get_text() == f"answered by none: {none} ({pct(none, n)})"


def _figure_number(text: str) -> float:
    return float(text.replace(MINUS, "-"))


def test_forest_interval_endpoints_markers_and_text_columns_equal_the_compare_frame(tmp_path):
    frame = compare_frame(7)
    fig = plots.forest(frame)
    svg = svg_texts(save(fig, tmp_path / "forest", formats=("svg",))[0])
    for row in frame.itertuples():
        line = by_gid(fig, f"forest-ci-{row.system_a}")
        assert list(line.get_xdata()) == pytest.approx([row.ci_low, row.ci_high])
        marker = by_gid(fig, f"forest-{row.system_a}")
        assert marker.get_xdata()[0] == pytest.approx(row.diff)
        filled = marker.get_markerfacecolor() != "white"
        assert filled == (row.p_adj < 0.05)
        estimate = svg[f"forest-estimate-{row.system_a}"]
        numbers = [_figure_number(x) for x in re.findall(r"[+\u2212]?\d+\.\d", estimate)]
        assert numbers == pytest.approx([round(v, 1) for v in (row.diff, row.ci_low, row.ci_high)],
                                        abs=1e-9)
        p_shown = svg[f"forest-p-{row.system_a}"]
        if row.p_adj < 0.001:
            assert p_shown == "< 0.001"
        else:  # two significant figures (three next to 0.05)
            assert float(p_shown) == pytest.approx(row.p_adj, rel=0.05)
    assert f"n = {frame['n'].iloc[0]:,} queries per comparison" in all_text(fig)


@functools.cache
def grouped_compare_frame(k: int, long: bool = False) -> pd.DataFrame:
    """``compare(by="category")`` on LoCoMo-labelled verdicts: four categories, listed in the frame
    in name order (not in the dataset's integer order), with a different n in each."""
    v = named(k, long)
    index = v["query_id"].str[1:].astype(int)
    category = np.select([index < 30, index < 90, index < 160], ["temporal", "single-hop", "multi-hop"],
                         "open-domain")
    return compare(v.assign(category=category, benchmark="locomo"), reference=LONG[REF] if long else REF, by="category", options=dict(n_resamples=200))


def test_forest_of_a_by_category_frame_draws_each_category_under_its_integer_heading(tmp_path):
    frame = grouped_compare_frame(3)
    fig = plots.forest(frame)
    svg = svg_texts(save(fig, tmp_path / "forest", formats=("svg",))[0])
    ax = fig.axes[0]
    to_data = fig.transFigure + ax.transData.inverted()
    integer = {"multi-hop": 1, "temporal": 2, "open-domain": 3, "single-hop": 4}
    heads = {}
    for group, n in frame.groupby("group")["n"].first().items():
        text = by_gid(fig, f"forest-group-{group}")
        assert text.get_text() == f"{integer[group]} ({group}), n = {n:,}"
        assert svg[f"forest-group-{group}"] == text.get_text()
        heads[group] = to_data.transform(text.get_position())[1]
    # headings top to bottom in the dataset's integer order, whatever the frame's order
    assert sorted(heads, key=heads.get, reverse=True) == sorted(integer, key=integer.get)
    order = [name for name in frame.groupby("system_a")["diff"].mean().sort_values(ascending=False).index]
    for group in integer:
        below = [g for g in integer if heads[g] < heads[group]]
        floor = max((heads[g] for g in below), default=-1.0)
        rows = frame[frame["group"] == group].set_index("system_a")
        ys = []
        for name in order:
            marker = by_gid(fig, f"forest-{group}: {name}")
            assert marker.get_xdata()[0] == pytest.approx(rows.loc[name, "diff"])
            assert list(by_gid(fig, f"forest-ci-{group}: {name}").get_xdata()) == \
                pytest.approx([rows.loc[name, "ci_low"], rows.loc[name, "ci_high"]])
            assert (marker.get_markerfacecolor() != "white") == (rows.loc[name, "p_adj"] < 0.05)
            ys.append(marker.get_ydata()[0])
        # the same system order in every group (mean difference over the groups), under its heading
        assert ys == sorted(ys, reverse=True) and floor < min(ys) and max(ys) < heads[group]
    text = " ".join(all_text(fig).split())
    assert "Holm-adjusted within each category over its 3 comparisons" in text
    assert "Categories: the dataset's integers with the locomo-paper names" in text
    assert "queries per comparison" not in text  # each group's n is in its heading


def test_forest_draws_rows_without_an_interval_as_their_estimate_alone(tmp_path):
    # a group within one cluster has no interval and no p (compare leaves them NaN)
    frame = grouped_compare_frame(2).copy()
    alone = frame["group"] == "temporal"
    frame.loc[alone, ["ci_low", "ci_high", "p", "p_adj"]] = np.nan
    frame.loc[alone, "test"] = ""
    fig = plots.forest(frame)
    svg = svg_texts(save(fig, tmp_path / "forest", formats=("svg",))[0])
    for row in frame[alone].itertuples():
        label = f"temporal: {row.system_a}"
        assert by_gid(fig, f"forest-{label}").get_xdata()[0] == pytest.approx(row.diff)
        assert svg[f"forest-estimate-{label}"] == f"{row.diff:+.1f}".replace("-", MINUS)
        assert svg[f"forest-p-{label}"] == "\u2013"
    low, high = fig.axes[0].get_xlim()
    assert np.isfinite([low, high]).all() and low <= frame["ci_low"].min() and high >= frame["ci_high"].max()
    assert "p: / " not in " ".join(all_text(fig).split()) and "p: " in all_text(fig)


def test_venn_of_one_category_says_which_category_it_shows():
    v = named(3, False)
    category = np.where(v["query_id"].str[1:].astype(int) < 100, "temporal", "single-hop")
    by = flows(v.assign(category=category, benchmark="locomo"), reference=REF, by="category",
               options=dict(n_resamples=200))
    text = " ".join(all_text(plots.venn(by[by["group"] == "single-hop"])).split())
    assert "Only the queries of category 4 (single-hop) (the dataset's integer with the locomo-paper name" in text
    assert "Only the queries of" not in " ".join(all_text(plots.venn(flows_frame(3))).split())
    with pytest.raises(ValueError, match="one block per 'category' group"):
        plots.venn(by)


@pytest.mark.parametrize("k, long", [(1, False), (20, True)])
def test_forest_of_a_by_category_frame_stays_readable(k, long):
    assert_readable(plots.forest(grouped_compare_frame(k, long)))


def test_a_tall_by_category_forest_becomes_small_multiples_that_fit_a_page():
    # 20 systems x 4 categories stacked would be 16 in tall: the grid is one page wide and under 9 in
    frame = grouped_compare_frame(20, True)
    fig = plots.forest(frame)
    width, height = fig.get_size_inches()
    assert width <= 7.2 + 1e-9 and height <= 9          # a two-column page (7.2 in)
    panels = [a for a in fig.axes if a.get_title(loc="left")]
    assert len(panels) == 4
    # one x scale; the systems named once per row of panels, in one order
    assert len({a.get_xlim() for a in panels}) == 1
    named = [a for a in panels if [t.get_text() for t in a.get_yticklabels() if t.get_text()]]
    rows_of_panels = len({round(a.get_position().y0, 6) for a in panels})
    assert len(named) == rows_of_panels
    # every comparison is drawn where its group's panel is, significance by the marker fill
    for r in frame.itertuples():
        marker = by_gid(fig, f"forest-{r.group}: {r.system_a}")
        assert marker.axes.get_title(loc="left").startswith(str(int(r.category_id)))
        assert marker.get_xdata()[0] == pytest.approx(r.diff)
        filled = marker.get_markerfacecolor() != "white"
        assert filled == (r.p_adj < 0.05)
    assert_readable(fig)
    stacked = plots.forest(frame, layout="stacked")
    assert stacked.get_size_inches()[1] > 12          # what the grid saves
    assert plots.forest(grouped_compare_frame(3)).get_size_inches()[1] < 7      # auto: short frames stay stacked
    assert sum(1 for a in plots.forest(grouped_compare_frame(3), layout="grid").axes if a.get_title(loc="left")) == 4
    with pytest.raises(ValueError, match="layout must be one of"):
        plots.forest(frame, layout="columns")


def test_forest_of_a_by_category_frame_on_given_axes_has_bold_integer_headings():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(3, 5))
    plots.forest(grouped_compare_frame(2), ax=ax)
    headings = [t for t in ax.get_yticklabels() if t.get_fontweight() == "bold"]
    assert [t.get_text().split(",")[0] for t in headings] == \
        ["1 (multi-hop)", "2 (temporal)", "3 (open-domain)", "4 (single-hop)"]
    plt.close(fig)


def test_forest_intervals_are_drawn_over_their_markers_with_caps():
    fig = plots.forest(compare_frame(7))
    for name in NAMES[:7]:
        line, marker = by_gid(fig, f"forest-ci-{name}"), by_gid(fig, f"forest-{name}")
        assert line.get_zorder() > marker.get_zorder()
        assert line.get_marker() == "|"  # end caps: a narrow interval still shows its ends


def test_forest_rows_are_sorted_by_effect_or_in_the_given_order():
    frame = compare_frame(7)
    fig = plots.forest(frame)
    ax = fig.axes[0]
    shown = [t.get_text() for t in ax.get_yticklabels()]
    heights = dict(zip(shown, ax.get_yticks()))
    by_effect = frame.sort_values("diff", ascending=False)["system_a"].tolist()
    assert sorted(shown, key=lambda s: -heights[s]) == by_effect
    order = list(reversed(by_effect))
    ax = plots.forest(frame, order=order).axes[0]
    heights = dict(zip([t.get_text() for t in ax.get_yticklabels()], ax.get_yticks()))
    assert sorted(heights, key=lambda s: -heights[s]) == order


def test_forest_orients_an_all_pairs_frame_as_system_minus_reference():
    frame = compare_frame(2, "all")
    fig = plots.forest(frame, reference=REF)
    for row in frame.itertuples():
        if REF not in (row.system_a, row.system_b):
            continue
        other, sign = (row.system_a, 1) if row.system_b == REF else (row.system_b, -1)
        xs = sorted(sign * v for v in (row.ci_low, row.ci_high))
        assert list(by_gid(fig, f"forest-ci-{other}").get_xdata()) == pytest.approx(xs)
        assert by_gid(fig, f"forest-{other}").get_xdata()[0] == pytest.approx(sign * row.diff)


def test_forest_splits_the_axis_when_one_effect_dwarfs_the_rest():
    frame = pd.DataFrame({"system_a": ["a", "b", "c", "big"], "system_b": REF,
                          "diff": [-2.0, 1.0, 3.0, 70.0], "ci_low": [-4.0, -0.5, 1.0, 67.0],
                          "ci_high": [0.5, 2.5, 5.0, 73.0], "p_adj": [0.2, 0.3, 0.01, 1e-9],
                          "n": 500})
    fig = plots.forest(frame)
    left, right = [ax for ax in fig.axes if ax.get_xlim()[1] > ax.get_xlim()[0]][:2]
    assert left.get_xlim()[1] < 10 < 60 < right.get_xlim()[0]
    assert by_gid(fig, "forest-ci-big").axes is right and by_gid(fig, "forest-ci-a").axes is left
    # one scale: points per difference unit are equal in both parts
    scales = [ax.get_window_extent(renderer(fig)).width / np.ptp(ax.get_xlim()) for ax in (left, right)]
    assert scales[0] == pytest.approx(scales[1], rel=1e-6)
    spread = frame.assign(diff=[-2.0, 10.0, 30.0, 45.0], ci_low=[-4.0, 8.0, 27.0, 42.0],
                          ci_high=[0.5, 12.0, 33.0, 48.0])
    assert len(plots.forest(spread).axes) == 1


@pytest.mark.parametrize("correction, words", [("holm", "Holm-adjusted p"),
                                                ("bonferroni", "Bonferroni-adjusted p"),
                                                ("fdr_bh", "Benjamini–Hochberg-adjusted p"),
                                                (None, "adjusted p")])
def test_figures_name_the_correction_their_frame_used_and_never_assume_holm(correction, words):
    forest_frame = compare_frame(2).copy()
    matrix_frame = compare_frame(2, "all").copy()
    for frame in (forest_frame, matrix_frame):
        frame.attrs = {k: v for k, v in frame.attrs.items() if k != "correction"}
        if correction:
            frame.attrs["correction"] = correction
    for fig in (plots.forest(forest_frame), plots.matrix(matrix_frame)):
        text = all_text(fig)
        assert f"{words} < 0.05" in text
        assert ("Holm" in text) == (correction == "holm")
    legend = by_gid(plots.forest(forest_frame), "forest-legend")
    assert [t.get_text() for t in legend.get_texts()] == [f"{words} < 0.05", "not significant"]


def test_forest_reads_the_test_and_the_interval_level_from_the_frame():
    frame = compare_frame(2).copy()
    frame.attrs["confidence_level"] = 0.9
    text = all_text(plots.forest(frame))
    assert "90% interval" in text and frame["test"].iloc[0] in text


def test_matrix_cells_are_row_minus_column_with_flipped_intervals_and_matching_stars(tmp_path):
    upper = compare_frame(2, "all")
    lower = upper.assign(diff=upper["diff"] * 2, ci_low=upper["ci_low"] * 2,
                         ci_high=upper["ci_high"] * 2, p=[0.001, 0.5, 0.03],
                         p_adj=[0.003, 0.5, 0.06])
    lower.attrs = {**upper.attrs, "metric": "utilization"}
    fig = plots.matrix(upper, lower)
    svg = svg_texts(save(fig, tmp_path / "matrix", formats=("svg",))[0])
    names = list(dict.fromkeys(np.ravel(upper[["system_a", "system_b"]].to_numpy())))

    def fmt(v):  # one decimal below 10, none from 10, one significant digit below 0.05
        if 0 < abs(v) < 0.05:
            return f"{v:.1g}".replace("-", MINUS)
        d = 0 if abs(v) >= 9.95 else 1
        return f"{round(v, d) + 0.0:.{d}f}".replace("-", MINUS)

    for source, row_is_a in ((upper, True), (lower, False)):
        for rec in source.itertuples():
            a, b = rec.system_a, rec.system_b
            # names are in first-appearance order, so a precedes b: (a, b) is upper, (b, a) lower
            assert names.index(a) < names.index(b)
            row, col = (a, b) if row_is_a else (b, a)
            d, lo, hi = (rec.diff, rec.ci_low, rec.ci_high) if row_is_a else \
                (-rec.diff, -rec.ci_high, -rec.ci_low)
            star = "*" if rec.p < 0.05 else ""  # the per-comparison p, like the intervals
            sign = "+" if d > 0 and fmt(d) != "0.0" else ""
            expected = f"{sign}{fmt(d)}{star}\n[{fmt(lo)}, {fmt(hi)}]"
            text = by_gid(fig, f"matrix-{row}-{col}")
            assert text.get_text() == expected
            assert svg[f"matrix-{row}-{col}"] == expected
            assert (text.get_fontweight() == "bold") == (rec.p_adj < 0.05)  # family-adjusted


def test_matrix_uses_family_adjusted_intervals_with_the_adjusted_star_when_the_frame_has_them():
    frame = pd.DataFrame({"system_a": ["a"], "system_b": ["b"], "diff": [5.0], "ci_low": [1.0],
                          "ci_high": [8.0], "ci_low_adj": [-0.5], "ci_high_adj": [10.5],
                          "p": [0.01], "p_adj": [0.07]})
    frame.attrs["correction"] = "bonferroni"
    fig = plots.matrix(frame)
    assert by_gid(fig, "matrix-a-b").get_text() == f"+5.0\n[{MINUS}0.5, 10]"
    assert "Intervals and * (Bonferroni-adjusted p < 0.05) adjusted over the 1 pair" in all_text(fig)


def test_matrix_rounding_never_hides_whether_an_interval_holds_zero():
    frame = pd.DataFrame({"system_a": ["a", "a"], "system_b": ["b", "c"], "diff": [-4.0, 5.0],
                          "ci_low": [-8.37, 0.44], "ci_high": [0.44, 8.0], "p": [0.07, 0.02],
                          "p_adj": [0.07, 0.04]})
    fig = plots.matrix(frame)
    assert by_gid(fig, "matrix-a-b").get_text() == f"{MINUS}4.0\n[{MINUS}8.4, 0.4]"
    assert by_gid(fig, "matrix-a-c").get_text() == "+5.0*\n[0.4, 8.0]"


def test_evidence_matrix_has_one_colour_scale_per_triangle():
    upper = compare_frame(7, "all")
    lower = upper.assign(diff=upper["diff"] / 5, ci_low=upper["ci_low"] / 5, ci_high=upper["ci_high"] / 5)
    upper = upper.copy()
    upper.attrs = {**compare_frame(7, "all").attrs, "metric": "coverage"}
    lower.attrs = {**upper.attrs, "metric": "utilization"}
    fig = plots.matrix(upper, lower)
    limits = [by_gid(fig, f"matrix-image-{tri}").norm.vmax for tri in ("upper", "lower")]
    assert limits == pytest.approx([upper["diff"].abs().max(), lower["diff"].abs().max()])
    bars = [a for a in fig.axes if (a.get_gid() or "").startswith("matrix-colorbar")]
    assert len(bars) == 2
    one = plots.matrix(upper)
    assert len([a for a in one.axes if (a.get_gid() or "").startswith("matrix-colorbar")]) == 1


def test_matrix_leaves_out_intervals_rather_than_shrink_text_when_cells_are_small():
    fig = plots.matrix(compare_frame(20, "all"))
    assert "Intervals left out for space" in all_text(fig)
    cells = [t for t in fig.axes[0].texts if (t.get_gid() or "").startswith("matrix-")]
    assert cells and all(t.get_fontsize() >= SMALL_FONT_SIZE for t in cells)
    assert all("\n" not in t.get_text() for t in cells)
    small = plots.matrix(compare_frame(2, "all"))
    assert "Intervals left out" not in all_text(small)


def test_bubble_positions_intervals_and_areas_equal_the_inputs():
    scores = scores_frame(7)
    table = facts(scores["system"])
    fig = plots.bubble(scores, table, reference=REF)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"  # costs span 100x
    largest = table["store_size"].max()
    for row, fact in zip(scores.itertuples(), table.itertuples()):
        points = by_gid(fig, f"bubble-{row.system}")
        assert points.get_offsets()[0].tolist() == pytest.approx([fact.tokens_per_query,
                                                                   row.estimate])
        assert points.get_sizes()[0] == pytest.approx(MAX_AREA * fact.store_size / largest)
        segment = error_segments(fig, f"bubble-errorbar-{row.system}")[0]
        assert segment[:, 1].tolist() == pytest.approx([row.ci_low, row.ci_high])


def test_bubble_uses_a_linear_axis_when_costs_span_less_than_ten_times():
    scores = scores_frame(2)
    table = facts(scores["system"]).assign(tokens_per_query=[1000.0, 2000.0, 5000.0])
    assert plots.bubble(scores, table).axes[0].get_xscale() == "linear"


def test_bubble_pareto_front_is_the_cheapest_best_systems_in_cost_order():
    scores = pd.DataFrame({"system": list("abcde"), "estimate": [60.0, 55.0, 70.0, 65.0, 72.0],
                           "ci_low": 0.0, "ci_high": 100.0})
    table = pd.DataFrame({"system": list("abcde"), "tokens_per_query": [100, 50, 300, 200, 900],
                          "store_size": 1.0})
    line = by_gid(plots.bubble(scores, table), "bubble-pareto")
    # b (50, 55) -> a (100, 60) -> d (200, 65) -> c (300, 70) -> e (900, 72): all on the front,
    # and the last level runs on to the right edge of the axes
    assert list(line.get_xdata()[:-1]) == [50, 100, 200, 300, 900]
    assert list(line.get_ydata()) == [55, 60, 65, 70, 72, 72]
    assert line.get_xdata()[-1] == line.axes.get_xlim()[1]
    scores.loc[scores.system == "e", "estimate"] = 69.0  # e is now dominated by c
    line = by_gid(plots.bubble(scores, table), "bubble-pareto")
    assert list(line.get_xdata()[:-1]) == [50, 100, 200, 300]


def test_bubble_works_with_any_subset_of_cost_latency_and_size_columns():
    scores = scores_frame(7)
    systems = list(scores["system"])
    latency = pd.DataFrame({"system": systems, "latency_s_per_query": np.linspace(1, 6, len(systems))})
    fig = plots.bubble(scores, latency, reference=REF)  # no tokens, no size
    assert fig.axes[0].get_xlabel() == "latency (s per query)"
    assert "Equal bubbles: no store size reported." in all_text(fig)
    assert not any("bubble area" in t for t in all_text(fig).split("\n"))  # no size legend
    assert len({by_gid(fig, f"bubble-{s}").get_sizes()[0] for s in systems}) == 1
    some = facts(systems)
    some.loc[some["system"].isin(systems[1:3]), "tokens_per_query"] = np.nan
    some = some.drop(columns="store_size")
    fig = plots.bubble(scores, some, reference=REF, size="store_tokens")  # absent size column
    note = next(t for t in all_text(fig).split("\n") if "No tokens per query" in t)
    assert all(s in note for s in systems[1:3])
    assert not fig.findobj(lambda a: a.get_gid() == f"bubble-{systems[1]}")
    with pytest.raises(ValueError, match="no column 'tokens_per_query'.*--cost"):
        plots.bubble(scores, latency, cost="tokens_per_query")


def test_bubble_draws_no_system_black_and_the_reference_grey():
    scores = scores_frame(12)
    fig = plots.bubble(scores, facts(scores["system"]), reference=REF)
    for system in scores["system"]:
        artist = by_gid(fig, f"bubble-{system}")
        for color in (*artist.get_facecolor(), *artist.get_edgecolor()):
            assert to_hex(color) != "#000000"
    assert to_hex(by_gid(fig, f"bubble-{REF}").get_facecolor()[0]) == REFERENCE_COLOR.lower()


@pytest.mark.parametrize("k", [7, 20])
def test_bubble_labels_sit_next_to_their_own_marker(k):
    """Each label points at its own bubble: one without a leader line touches it and is nearer to
    it than to any other bubble; one placed farther off has a leader line ending at its bubble."""
    scores = scores_frame(k)
    fig = plots.bubble(scores, facts(scores["system"]), reference=REF)
    r = renderer(fig)
    ax = fig.axes[0]
    centres = {s: ax.transData.transform(by_gid(fig, f"bubble-{s}").get_offsets()[0])
               for s in scores["system"]}
    for system, centre in centres.items():
        label = by_gid(fig, f"bubble-label-{system}")
        assert tuple(label.xy) == pytest.approx(tuple(by_gid(fig, f"bubble-{system}").get_offsets()[0]))
        if label.arrow_patch is not None:
            continue
        box = Text.get_window_extent(label, r)

        def distance(p):
            return np.hypot(max(box.x0 - p[0], 0, p[0] - box.x1), max(box.y0 - p[1], 0, p[1] - box.y1))

        own = distance(centre)
        radius = np.sqrt(by_gid(fig, f"bubble-{system}").get_sizes()[0]) / 2 * r.points_to_pixels(1)
        assert own <= radius + r.points_to_pixels(3), system
        assert all(distance(c) >= min(own, box.height) - 1e-6
                   for other, c in centres.items() if other != system), system


def test_mutation_rates_draws_dots_with_intervals_and_counts_and_weighted_means():
    audit = audit_frame(12)
    fig = plots.mutation_rates(audit)
    clusters = audit[audit.cluster != "overall"].sort_values("proposed_rate", kind="stable")
    overall = audit[audit.cluster == "overall"].iloc[0]
    for name in ("proposed", "effective"):
        dots = by_gid(fig, f"writes-{name}")
        assert dots.get_linestyle() == "None"  # clusters are not a sequence: no joining line
        assert list(dots.get_ydata()) == pytest.approx(clusters[f"{name}_rate"].to_numpy())
        bars = np.array([s[:, 1] for s in error_segments(fig, f"writes-{name}-ci")])
        assert np.allclose(bars, clusters[[f"{name}_rate_ci_low", f"{name}_rate_ci_high"]])
        mean = by_gid(fig, f"writes-{name}-mean")
        assert mean.get_ydata()[0] == pytest.approx(overall[f"{name}_rate"])
    ticks = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert ticks == [f"{c} ({n:,})" for c, n in zip(clusters["cluster"], clusters["n_decisions"])]


def test_mutation_rates_draws_the_write_audit_intervals_of_a_real_log():
    from memdiag.analyses.writes import write_audit
    from memdiag.io.write_log import read_write_log

    audit = write_audit(read_write_log(plots.__file__.rsplit("memdiag", 1)[0] + "data/example/write_log.csv"))
    fig = plots.mutation_rates(audit)
    clusters = audit[audit.cluster != "overall"].sort_values(["proposed_rate", "cluster"])
    bars = error_segments(fig, "writes-effective-ci")
    assert [s[0, 1] for s in bars] == pytest.approx(clusters["effective_rate_ci_low"].tolist())


def test_write_actions_stack_the_role_shares_of_each_cluster_in_the_mutation_rate_order():
    audit = audit_frame(12)
    fig = plots.write_actions(audit)
    clusters = audit[audit.cluster != "overall"].sort_values("proposed_rate", kind="stable")
    rows = pd.concat([clusters, audit[audit.cluster == "overall"]])
    bottom = np.zeros(len(rows))
    for role in ("add", "update", "delete", "none", "malformed"):
        bars = sorted(fig.findobj(lambda a, g=f"actions-{role}": a.get_gid() == g),
                      key=lambda b: b.get_x())
        share = 100 * rows[f"n_{role}"].to_numpy() / rows["n_decisions"].to_numpy()
        assert [b.get_height() for b in bars] == pytest.approx(share.tolist())
        assert [b.get_y() for b in bars] == pytest.approx(bottom.tolist())
        bottom += share
    assert bottom == pytest.approx(np.full(len(rows), 100.0))  # the roles and malformed: 100%
    ticks = [t.get_text().split(" (")[0] for t in fig.axes[0].get_xticklabels()]
    assert ticks == [*clusters["cluster"], "overall"]
    clean = plots.write_actions(audit.assign(n_none=audit["n_none"] + audit["n_malformed"],
                                             n_malformed=0))
    assert not clean.findobj(lambda a: a.get_gid() == "actions-malformed")


def test_mutation_rates_needs_the_overall_row():
    with pytest.raises(ValueError, match="overall"):
        plots.mutation_rates(audit_frame(3).iloc[:-1])


def test_sensitivity_draws_the_intervals_and_marks_the_inferred_default():
    frame = sensitivity_frame(1).drop(columns="system")
    fig = plots.sensitivity(frame)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "5", "10", "15", "30", "60", "120"]
    assert by_gid(fig, "sensitivity-default").get_xdata()[0] == 15
    segments = error_segments(fig, "sensitivity-ci")
    expected = frame.sort_values("value")[["ci_low", "ci_high"]].to_numpy()
    assert np.allclose([s[:, 1] for s in segments], expected)


def test_sensitivity_draws_the_score_of_each_setting_above_the_differences():
    frame = sensitivity_frame(2)
    frame["estimate"] = 60 + frame["diff"]
    frame.attrs["metric"] = "accuracy"
    fig = plots.sensitivity(frame, default=15)
    top, bottom = fig.axes[:2]
    assert top.get_ylabel() == "accuracy (%)" and bottom.get_xlabel() == "final k"
    for name in NAMES[:2]:
        rows = frame[frame["system"] == name].sort_values("value")
        assert list(by_gid(fig, f"sensitivity-total-{name}").get_ydata()) == \
            pytest.approx(rows["estimate"].tolist())
        assert by_gid(fig, f"sensitivity-total-{name}").axes is top
    assert len(plots.sensitivity(frame, default=15, total=False).axes) == 1
    assert_readable(fig)


def test_plots_reject_frames_without_the_needed_columns():
    with pytest.raises(ValueError, match="net_rate_ci_low"):
        plots.venn(flows_frame(1).drop(columns="net_rate_ci_low"))
    with pytest.raises(ValueError, match="p_adj"):
        plots.forest(compare_frame(1).drop(columns="p_adj"))


def test_venn_asks_for_one_group_of_a_by_frame():
    by = flows(verdicts(1).assign(category=lambda d: d.query_id.str[-1:].isin(list("01234"))
                                  .map({True: "a", False: "b"})),
               reference=REF, by="category", options=dict(n_resamples=50))
    with pytest.raises(ValueError, match="one group at a time"):
        plots.venn(by)
    plots.venn(by[by.group == "a"])


# ---------------------------------------------------------------- names


def _words(label: str) -> list[str]:
    return [w for w in re.split(r"[_\-./ \u2026\n]+", label) if w]


def test_labels_shorten_release_names_readably_and_keep_them_apart():
    names = ["Backboard-io__Backboard-Locomo-Benchmark", "memobase_eval_0503_3000",
             "memobase_eval_0710_3000", "rag_observation_pgvector", "rag_observation_mysql",
             "agentic_pgvector_history300", "agentic_mysql_history300", "zep_locomo_grades"]
    labels = system_labels(names)
    assert labels["Backboard-io__Backboard-Locomo-Benchmark"] == "Backboard"
    assert labels["memobase_eval_0503_3000"] != labels["memobase_eval_0710_3000"]
    assert "0503" in labels["memobase_eval_0503_3000"] and "0710" in labels["memobase_eval_0710_3000"]
    assert labels["rag_observation_pgvector"] == "rag_observation_pgvector"  # 24 characters: kept
    assert len(set(labels.values())) == len(names)
    for name, label in labels.items():  # whole words only, in their order
        words = iter(_words(name))
        assert all(w in words for w in _words(label)), (name, label)  # a subsequence


def test_labels_keep_the_words_that_tell_siblings_apart():
    names = [f"agentic_{db}_history{h}_with_a_long_configuration_tail" for db in ("pgvector", "mysql")
             for h in (300, 700)]
    labels = system_labels(names)
    assert len(set(labels.values())) == 4
    for name, label in labels.items():
        # reading the label must exclude every other system: each lacks one of its words
        kept = set(_words(label))
        assert all(kept - set(_words(other)) for other in names if other != name), label


def test_aliases_are_used_verbatim_from_the_argument_or_the_frame_attrs():
    frame = compare_frame(2).copy()
    aliases = {NAMES[0]: "Mem0 (v1.1)", REF: "RAG"}
    fig = plots.forest(frame, labels=aliases)
    ticks = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert "Mem0 (v1.1)" in ticks and "difference vs RAG" in all_text(fig)
    frame.attrs["labels"] = aliases
    assert "Mem0 (v1.1)" in [t.get_text() for t in plots.forest(frame).axes[0].get_yticklabels()]
    flows_with = flows_frame(2).copy()
    flows_with.attrs["labels"] = aliases
    assert any(ax.get_title().startswith("Mem0 (v1.1)") for ax in plots.venn(flows_with).axes)
    with pytest.raises(ValueError, match="same label"):
        plots.forest(frame, labels={NAMES[0]: "x", NAMES[1]: "x"})


@pytest.mark.parametrize("kind", ["venn", "forest", "matrix", "bubble"])
def test_shortened_names_are_listed_with_their_full_names(kind):
    fig = _figure(kind, 2, "long")
    text = "".join(all_text(fig).split())  # long names may be broken across lines
    labels = system_labels([LONG[REF], *(LONG[n] for n in NAMES[:2])])
    assert "Names:" in text
    for full, label in labels.items():
        assert label != full and "".join(f"{label} = {full}".split()) in text


# ---------------------------------------------------------------- readable at 1–20 systems


def _figure(kind: str, k: int, names: str = "short"):
    long = names != "short"
    ref = LONG[REF] if long else REF
    labels = ({s: f"{s[:50]} alias {i:03d}".ljust(60, "x") for i, s in enumerate([ref, *LONG.values()])}
              if names == "alias60" else None)
    if kind == "venn":
        return plots.venn(flows_frame(k, long), labels=labels)
    if kind == "venn-unscaled":
        return plots.venn(flows_frame(k, long), shared_scale=False, labels=labels)
    if kind == "bubble":
        scores = scores_frame(k, long)
        return plots.bubble(scores, facts(scores["system"]), reference=ref, labels=labels)
    if kind == "forest":
        return plots.forest(compare_frame(k, long=long), labels=labels)
    if kind == "matrix":
        frame = compare_frame(k, "all", long)
        lower = frame.copy()
        lower.attrs = {**frame.attrs, "metric": "utilization"}
        return plots.matrix(frame, lower, labels=labels)
    if kind == "sensitivity":
        return plots.sensitivity(sensitivity_frame(k, long), labels=labels)
    if kind == "writes":
        return plots.mutation_rates(audit_frame({1: 3, 2: 12, 7: 40, 12: 500, 20: 20}[k]))
    if kind == "actions":
        return plots.write_actions(audit_frame({1: 3, 2: 12, 7: 40, 12: 500, 20: 20}[k]))
    if kind == "ingestion":
        return plots.ingestion(ingestion_frame(k, long), reference=ref, labels=labels)
    if kind == "overview":
        return plots.overview(overview_frame(k, long), reference=ref, labels=labels)
    if kind == "store_gap":
        return plots.store_gap(store_gap_frame(k, long), labels=labels)
    raise AssertionError(kind)


# every figure at 1, 2, 7, 12 and 20 systems with short and 60-character names (the write-audit
# figures name clusters, not systems, and draw 3 to 500 of them); the fast suite draws the extremes
# (1 and 20), the slow one every size between
@pytest.mark.parametrize("kind, k, names", [
    pytest.param(kind, k, names, marks=() if k in (1, 20) else pytest.mark.slow)
    for kind in ("venn", "venn-unscaled", "bubble", "forest", "matrix",
                 "sensitivity", "writes", "actions", "ingestion", "overview", "store_gap")
    for k in (1, 2, 7, 12, 20)
    for names in (("short",) if kind in ("writes", "actions") else ("short", "long"))])
def test_figure_text_does_not_overlap_or_leave_the_figure(kind, k, names):
    assert_readable(_figure(kind, k, names))


@pytest.mark.parametrize("k", [2, 20])
@pytest.mark.parametrize("kind", ["venn", "bubble", "forest", "matrix", "sensitivity", "ingestion", "overview",
                                  "store_gap"])
def test_sixty_character_aliases_still_fit(kind, k):
    assert_readable(_figure(kind, k, "alias60"))


def test_venn3_labels_do_not_overlap_or_leave_the_figure():
    assert_readable(plots.venn3(venn3_frame(), reference=REF))


# ---------------------------------------------------------------- colours


#: The published schemes, typed from the sources (Okabe & Ito 2008; Tol 2021), as an oracle.
SOURCES = {
    "Okabe-Ito": {"#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7"},
    "Tol muted": {"#332288", "#88CCEE", "#44AA99", "#117733", "#999933", "#DDCC77", "#CC6677",
                  "#882255", "#AA4499"},
    "Tol bright": {"#4477AA", "#EE6677", "#228833", "#CCBB44", "#66CCEE", "#AA3377"},
    "Tol vibrant": {"#EE7733", "#0077BB", "#33BBEE", "#EE3377", "#CC3311", "#009988"},
    "Tol light": {"#77AADD", "#EE8866", "#EEDD88", "#FFAABB", "#99DDFF", "#44BB99", "#BBCC33",
                  "#AAAA00"},
    "Tol high-contrast": {"#004488", "#DDAA33", "#BB5566"},
    "Tol medium-contrast": {"#6699CC", "#004488", "#EECC66", "#994455", "#997700", "#EE99AA"},
}
#: Machado, Oliveira & Fernandes (2009) colour-vision-deficiency matrices, severity 1.
CVD = {"normal": np.eye(3),
       "protanopia": np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                               [-0.003882, -0.048116, 1.051998]]),
       "deuteranopia": np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                                 [-0.011820, 0.042940, 0.968881]]),
       "tritanopia": np.array([[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
                               [0.004733, 0.691367, 0.303900]])}


def lab(hex_color: str, vision: str = "normal") -> np.ndarray:
    """CIELAB (D65) of a colour as seen under ``vision`` (simulated in linear RGB)."""
    from matplotlib.colors import to_rgb

    c = np.array(to_rgb(hex_color))
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    linear = np.clip(CVD[vision] @ linear, 0, 1)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722],
                    [0.0193, 0.1192, 0.9505]]) @ linear / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def test_palette_comes_from_the_documented_colour_blind_safe_sources():
    assert len(PALETTE) == len(PALETTE_SOURCES) == 20 and len(set(PALETTE)) == 20
    assert PALETTE[:6] == ("#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9")
    for color, source in zip(PALETTE, PALETTE_SOURCES):
        assert color in SOURCES[source], (color, source)


def test_palette_is_never_black_grey_or_pale_and_stays_apart_from_the_reference_grey():
    for color in PALETTE:
        lightness, a, b = lab(color)
        assert 20 <= lightness <= 80 and np.hypot(a, b) >= 20, color  # not black, grey or pale
    for color in PALETTE[6:]:  # the colours chosen for this palette (Okabe–Ito is as published)
        for vision in CVD:
            assert np.linalg.norm(lab(color, vision) - lab(REFERENCE_COLOR, vision)) >= 12, \
                (color, vision)


def test_system_colors_follow_the_documented_rule():
    systems = [REF] + [f"s{i}" for i in range(25)]
    styles = system_styles(systems, reference=REF)
    assert styles[REF].color == REFERENCE_COLOR
    assert [styles[f"s{i}"].color for i in range(20)] == list(PALETTE)
    assert styles["s20"].color == PALETTE[0]  # beyond 20 the colours repeat
    # the reference takes no palette slot, wherever it sits in the list
    assert system_colors(["a", REF, "b"], REF) == {**system_colors(["a", "b", REF], REF)}


def test_same_system_has_the_same_colour_in_every_figure():
    k = 7
    scores = scores_frame(k)
    analysis = list(scores["system"])  # the panel's system order, shared by every result frame
    expected = system_colors(analysis, reference=REF)
    venn = plots.venn(flows_frame(k))
    bubble = plots.bubble(scores, facts(scores["system"]), reference=REF)
    forest = plots.forest(compare_frame(k))
    sens = plots.sensitivity(sensitivity_frame(k), all_systems=analysis, reference=REF)
    for name in NAMES[:k]:
        ax = next(a for a in venn.axes if a.get_title().split("\n")[0] == name)
        circle_colors = [to_hex(p.get_edgecolor()) for p in ax.patches if isinstance(p, Circle)]
        assert circle_colors == [REFERENCE_COLOR.lower(), expected[name].lower()]
        assert to_hex(by_gid(bubble, f"bubble-{name}").get_facecolor()[0]) == expected[name].lower()
        assert to_hex(by_gid(forest, f"forest-{name}").get_markeredgecolor()) == \
            expected[name].lower()
        assert to_hex(by_gid(sens, f"sensitivity-{name}").get_color()) == expected[name].lower()
    assert to_hex(by_gid(bubble, f"bubble-{REF}").get_facecolor()[0]) == REFERENCE_COLOR.lower()


def test_no_figure_hatches_or_cycles_marker_shapes():
    figs = [_figure(kind, 12) for kind in ("venn", "bubble", "forest", "sensitivity")]
    for fig in figs:
        assert not fig.findobj(lambda a: hasattr(a, "get_hatch") and a.get_hatch())
    forest = figs[2]
    assert {by_gid(forest, f"forest-{n}").get_marker() for n in NAMES[:12]} == {"o"}


# ---------------------------------------------------------------- files


def test_save_writes_pdf_svg_and_png_with_embedded_fonts_and_text(tmp_path):
    fig = plots.forest(compare_frame(2))
    paths = save(fig, tmp_path / "sub" / "forest.pdf")
    assert [p.name for p in paths] == ["forest.pdf", "forest.svg", "forest.png"]
    pdf = paths[0].read_bytes()
    assert b"/FontFile2" in pdf and b"/Type3" not in pdf  # TrueType embedded (fonttype 42)
    assert "<text" in paths[1].read_text() and "difference vs raw-rag" in paths[1].read_text()
    # 300 dpi at the figure's own size (matplotlib 3.8 truncates 413.99... px to 413, later releases round)
    height, width = mpimg.imread(paths[2]).shape[:2]
    assert abs(width - fig.get_figwidth() * 300) < 1 and abs(height - fig.get_figheight() * 300) < 1


@pytest.mark.parametrize("kind", ["venn", "bubble", "matrix", "forest", "writes", "actions", "ingestion",
                                  "overview", "store_gap"])
def test_repeated_runs_write_identical_files(tmp_path, kind):
    first = save(_figure(kind, 2), tmp_path / "a" / kind, formats=("svg", "pdf"))
    second = save(_figure(kind, 2), tmp_path / "b" / kind, formats=("svg", "pdf"))
    for a, b in zip(first, second):
        assert a.read_bytes() == b.read_bytes(), a.suffix


def test_figures_draw_into_given_axes():
    import matplotlib as mpl
    from matplotlib.figure import Figure

    with mpl.rc_context(plots.style.RC):
        fig = Figure(figsize=(7, 3), layout="constrained")
        left, right = fig.subplots(1, 2)
    assert plots.forest(compare_frame(2), ax=left) is fig
    assert plots.matrix(compare_frame(2, "all"), ax=right) is fig
    assert by_gid(fig, f"forest-p-{NAMES[0]}").axes is left
    assert by_gid(fig, f"matrix-{NAMES[0]}-{REF}").axes is right


def test_store_gap_and_ingestion_draw_into_given_axes():
    import matplotlib as mpl
    from matplotlib.figure import Figure

    with mpl.rc_context(plots.style.RC):
        fig = Figure(figsize=(7, 3), layout="constrained")
        left, right = fig.subplots(1, 2)
    assert plots.store_gap(store_gap_frame(2), ax=left) is fig
    assert plots.ingestion(ingestion_frame(2), ax=right) is fig
    assert by_gid(fig, f"gap-complete-{NAMES[0]}").axes is left
    assert by_gid(fig, f"gap-text-gap-{NAMES[0]}").axes is left
    assert by_gid(fig, f"ingestion-{NAMES[0]}").axes is right
