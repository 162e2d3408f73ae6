"""memdiag.plots: the numbers drawn are the numbers computed; figures stay readable at 1–12
systems; one colour per system across figures; saved files are complete and reproducible.

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

from memdiag import plots  # noqa: E402
from memdiag._compare import bootstrap, compare  # noqa: E402
from memdiag._flows import flows  # noqa: E402
from memdiag.plots.bubble import MAX_AREA  # noqa: E402
from memdiag.plots.style import (  # noqa: E402
    OKABE_ITO, REFERENCE_COLOR, SMALL_FONT_SIZE, TOL_MUTED, renderer, save, system_colors,
    system_styles,
)

REF = "raw-rag"
NAMES = ["mem0", "zep", "a-mem", "simplemem", "memoryos", "lightmem", "openviking", "hipporag2",
         "plugmem", "magma", "mem-t", "memory-r2"]
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


@functools.cache
def flows_frame(k: int) -> pd.DataFrame:
    return flows(verdicts(k), reference=REF, n_resamples=200)


@functools.cache
def compare_frame(k: int, pairs: str = "reference") -> pd.DataFrame:
    return compare(verdicts(k), pairs=pairs, reference=REF if pairs == "reference" else None,
                   n_resamples=200)


@functools.cache
def scores_frame(k: int) -> pd.DataFrame:
    return bootstrap(verdicts(k), n_resamples=200)


def facts(systems) -> pd.DataFrame:
    """Token cost spanning ~100× and store sizes for every system."""
    m = len(systems)
    return pd.DataFrame({"system": list(systems),
                         "tokens_per_query": np.geomspace(500, 50_000, m)[::-1] if m > 1 else [4000.0],
                         "store_size": np.linspace(1e5, 4e7, m)})


def sensitivity_frame(k: int) -> pd.DataFrame:
    rng = np.random.default_rng(k)
    rows = []
    for system in NAMES[:k]:
        for value in (1, 5, 10, 15, 30, 60, 120):
            d = 0.0 if value == 15 else float(rng.normal(-3, 4))
            half = 0.0 if value == 15 else float(rng.uniform(1, 2.5))
            rows.append({"system": system, "value": value, "diff": d, "ci_low": d - half,
                         "ci_high": d + half})
    return pd.DataFrame(rows)


def audit_frame(k: int) -> pd.DataFrame:
    rng = np.random.default_rng(k)
    n = rng.integers(50, 2000, k)
    proposed = rng.binomial(n, 0.05)
    effective = rng.binomial(proposed, 0.4)
    rows = pd.DataFrame({"cluster": [f"conv-{i}" for i in range(k)], "n_decisions": n,
                         "proposed_rate": 100 * proposed / n, "effective_rate": 100 * effective / n})
    overall = pd.DataFrame({"cluster": ["overall"], "n_decisions": [n.sum()],
                            "proposed_rate": [100 * proposed.sum() / n.sum()],
                            "effective_rate": [100 * effective.sum() / n.sum()]})
    return pd.concat([rows, overall], ignore_index=True)


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


def texts(fig) -> list[Text]:
    """Every drawn, non-empty text of the figure (ticks, labels, titles, legends, notes)."""
    renderer(fig)
    hidden = _undrawn_tick_labels(fig)
    return [t for t in fig.findobj(Text)
            if t.get_visible() and t.get_text().strip() and id(t) not in hidden
            and (t.axes is None or t.axes.get_visible())]


def assert_readable(fig) -> None:
    """No two texts intersect, none leaves the figure, none is below 7 pt."""
    r = renderer(fig)
    items = [(t, t.get_window_extent(r)) for t in texts(fig)]
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


# ---------------------------------------------------------------- the numbers drawn


def test_venn_region_labels_equal_the_flow_counts_in_artists_and_svg(tmp_path):
    frame = flows_frame(2)
    fig = plots.venn(frame)
    svg = svg_texts(save(fig, tmp_path / "venn", formats=("svg",))[0])
    for row in frame.itertuples():
        for flow in ("benefit", "tax", "both"):
            count = getattr(row, flow)
            expected = f"{count}\n{pct(count, row.n)}"
            assert by_gid(fig, f"venn-{row.system}-{flow}").get_text() == expected
            assert svg[f"venn-{row.system}-{flow}"] == expected
        neither = f"neither: {row.neither} ({pct(row.neither, row.n)})"
        assert svg[f"venn-{row.system}-neither"] == neither


def test_venn_title_gives_net_and_net_rate_interval_in_points():
    frame = flows_frame(1)
    row = frame.iloc[0]
    title = plots.venn(frame).axes[0].get_title()
    name, detail = title.split("\n")
    assert name == row.system
    numbers = [float(x.replace(MINUS, "-")) for x in re.findall(r"[+\u2212]\d+(?:\.\d+)?", detail)]
    assert numbers[0] == row.net
    assert numbers[1:] == pytest.approx([round(row.net_rate, 1), round(row.net_rate_ci_low, 1),
                                         round(row.net_rate_ci_high, 1)], abs=1e-9)


def test_venn_regions_put_reference_only_left_as_tax_and_system_only_right_as_benefit():
    frame = flows_frame(1)
    fig = plots.venn(frame)
    r = renderer(fig)
    tax = by_gid(fig, f"venn-{NAMES[0]}-tax").get_window_extent(r)
    benefit = by_gid(fig, f"venn-{NAMES[0]}-benefit").get_window_extent(r)
    both = by_gid(fig, f"venn-{NAMES[0]}-both").get_window_extent(r)
    assert tax.x1 < both.x0 and both.x1 < benefit.x0


def test_venn_shared_scale_makes_circle_area_proportional_to_answered_queries():
    frame = flows_frame(7)
    fig = plots.venn(frame, shared_scale=True)
    renderer(fig)
    ratios = []
    for ax, row in zip(fig.axes, frame.itertuples()):
        circles = [p for p in ax.patches if isinstance(p, Circle)]
        for circle, answered in zip(circles, (row.both + row.tax, row.both + row.benefit)):
            center = ax.transData.transform(circle.center)
            edge = ax.transData.transform((circle.center[0] + circle.radius, circle.center[1]))
            ratios.append(np.pi * (edge[0] - center[0]) ** 2 / answered)
    assert np.ptp(ratios) / np.mean(ratios) < 1e-6


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


def test_forest_interval_endpoints_and_markers_equal_the_compare_frame(tmp_path):
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
        assert svg[f"forest-n-{row.system_a}"] == f"{row.n:,}"


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


def test_matrix_cells_are_row_minus_column_with_flipped_intervals_and_holm_stars(tmp_path):
    upper = compare_frame(2, "all")
    lower = upper.assign(diff=upper["diff"] * 2, ci_low=upper["ci_low"] * 2,
                         ci_high=upper["ci_high"] * 2, p_adj=[0.001, 0.5, 0.2])
    fig = plots.matrix(upper, lower)
    svg = svg_texts(save(fig, tmp_path / "matrix", formats=("svg",))[0])
    names = list(dict.fromkeys(np.ravel(upper[["system_a", "system_b"]].to_numpy())))

    def fmt(v):
        return f"{round(v, 1) + 0.0:.1f}".replace("-", MINUS)

    for source, row_is_a in ((upper, True), (lower, False)):
        for rec in source.itertuples():
            a, b = rec.system_a, rec.system_b
            # names are in first-appearance order, so a precedes b: (a, b) is upper, (b, a) lower
            assert names.index(a) < names.index(b)
            row, col = (a, b) if row_is_a else (b, a)
            d, lo, hi = (rec.diff, rec.ci_low, rec.ci_high) if row_is_a else \
                (-rec.diff, -rec.ci_high, -rec.ci_low)
            star = "*" if rec.p_adj < 0.05 else ""
            sign = "+" if round(d, 1) >= 0 else ""
            expected = f"{sign}{fmt(d)}{star}\n[{fmt(lo)}, {fmt(hi)}]"
            assert by_gid(fig, f"matrix-{row}-{col}").get_text() == expected
            assert svg[f"matrix-{row}-{col}"] == expected


def test_matrix_drops_intervals_before_shrinking_text_when_cells_are_small():
    fig = plots.matrix(compare_frame(12, "all"))
    assert "intervals omitted" in fig.axes[0].get_xlabel()
    assert all(t.get_fontsize() >= SMALL_FONT_SIZE for t in fig.axes[0].texts)


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


def test_mutation_rates_draws_clusters_sorted_by_proposed_rate_and_weighted_means():
    audit = audit_frame(12)
    fig = plots.mutation_rates(audit)
    clusters = audit[audit.cluster != "overall"].sort_values("proposed_rate", kind="stable")
    overall = audit[audit.cluster == "overall"].iloc[0]
    proposed = by_gid(fig, "writes-proposed").get_ydata()
    assert list(proposed) == pytest.approx(clusters["proposed_rate"].to_numpy())
    assert list(by_gid(fig, "writes-effective").get_ydata()) == \
        pytest.approx(clusters["effective_rate"].to_numpy())
    assert by_gid(fig, "writes-proposed-mean").get_ydata()[0] == pytest.approx(overall.proposed_rate)
    assert by_gid(fig, "writes-effective-mean").get_ydata()[0] == pytest.approx(overall.effective_rate)


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


def test_plots_reject_frames_without_the_needed_columns():
    with pytest.raises(ValueError, match="net_rate_ci_low"):
        plots.venn(flows_frame(1).drop(columns="net_rate_ci_low"))
    with pytest.raises(ValueError, match="p_adj"):
        plots.forest(compare_frame(1).drop(columns="p_adj"))


def test_venn_asks_for_one_group_of_a_by_frame():
    by = flows(verdicts(1).assign(category=lambda d: d.query_id.str[-1:].isin(list("01234"))
                                  .map({True: "a", False: "b"})),
               reference=REF, by="category", n_resamples=50)
    with pytest.raises(ValueError, match="one group at a time"):
        plots.venn(by)
    plots.venn(by[by.group == "a"])


# ---------------------------------------------------------------- readable at 1, 2, 7, 12 systems


def _figure(kind: str, k: int):
    if kind == "venn":
        return plots.venn(flows_frame(k))
    if kind == "venn-shared":
        return plots.venn(flows_frame(k), shared_scale=True)
    if kind == "bubble":
        scores = scores_frame(k)
        return plots.bubble(scores, facts(scores["system"]), reference=REF)
    if kind == "forest":
        return plots.forest(compare_frame(k))
    if kind == "matrix":
        return plots.matrix(compare_frame(k, "all"), compare_frame(k, "all"))
    if kind == "sensitivity":
        return plots.sensitivity(sensitivity_frame(k))
    if kind == "writes":
        return plots.mutation_rates(audit_frame({1: 3, 2: 12, 7: 40, 12: 500}[k]))
    raise AssertionError(kind)


@pytest.mark.parametrize("k", [1, 2, 7, 12])
@pytest.mark.parametrize("kind", ["venn", "venn-shared", "bubble", "forest", "matrix",
                                  "sensitivity", "writes"])
def test_figure_labels_do_not_overlap_or_leave_the_figure(kind, k):
    assert_readable(_figure(kind, k))


def test_venn3_labels_do_not_overlap_or_leave_the_figure():
    assert_readable(plots.venn3(venn3_frame(), reference=REF))


# ---------------------------------------------------------------- colours


def test_system_colors_follow_the_documented_rule():
    systems = [REF] + [f"s{i}" for i in range(68)]
    styles = system_styles(systems, reference=REF)
    assert styles[REF].color == REFERENCE_COLOR
    assert [styles[f"s{i}"].color for i in range(8)] == list(OKABE_ITO)
    assert [styles[f"s{i}"].color for i in range(8, 17)] == list(TOL_MUTED)
    assert {styles[f"s{i}"].marker for i in range(8)} == {"o"}
    assert {styles[f"s{i}"].marker for i in range(8, 17)} == {"s"}
    combos = [(s.color, s.marker, s.hatch) for name, s in styles.items() if name != REF]
    assert len(set(combos)) == len(combos)  # distinguishable well beyond 8 systems
    # the reference takes no palette slot, wherever it sits in the list
    assert system_colors(["a", REF, "b"], REF) == system_colors(["a", "b", REF], REF)


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


@pytest.mark.parametrize("kind", ["venn", "bubble", "matrix"])
def test_repeated_runs_write_identical_files(tmp_path, kind):
    first = save(_figure(kind, 2), tmp_path / "a" / kind, formats=("svg", "pdf"))
    second = save(_figure(kind, 2), tmp_path / "b" / kind, formats=("svg", "pdf"))
    for a, b in zip(first, second):
        assert a.read_bytes() == b.read_bytes(), a.suffix
