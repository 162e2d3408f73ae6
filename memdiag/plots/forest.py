"""Forest plot of paired differences with intervals, an estimate column and adjusted p (SPEC §5, §8).

One row per comparison, sorted by effect (largest on top) or in a given order: the difference in
points as a marker, its interval as a bar with end caps drawn *over* the marker (so a narrow
interval stays visible), a dashed zero line, and beside the plot the estimate with its interval
and the adjusted p-value as text. Significance has one encoding, stated in the legend: a filled
marker when the family-adjusted p is below α = 1 − the frame's confidence level, hollow
otherwise; the adjustment named is the one in the frame's ``attrs["correction"]``. The warnings
attached to the frame (notes of severity ``"warning"``) are printed under the plot. When one effect dwarfs the rest (the widest gap
between the intervals is over half the range) the axis is split in two at the gap, on one scale.
A ``compare(..., by=)`` frame is drawn group by group under headings that give the category
integer beside its name — stacked, or as small multiples on one x scale (one panel per group)
when stacking would not fit a page. The rows are what :func:`memdiag.compare` returned; nothing
is recomputed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from matplotlib import patheffects
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator
from matplotlib.transforms import blended_transform_factory

from memdiag.plots._names import name_key
from memdiag.plots._reading import (
    adjusted_p_column,
    alpha,
    alpha_text,
    correction,
    group_label,
    labels_of,
    level,
    named_tests,
    p_header,
    p_text,
    warning_lines,
)
from memdiag.plots.style import (
    FONT_SIZE,
    MINUS,
    ONE_COLUMN,
    SMALL_FONT_SIZE,
    TWO_COLUMN,
    add_note,
    at_least,
    new_figure,
    note_height,
    plain,
    require,
    root_figure,
    signed,
    styled,
    system_styles,
    text_size,
    tidy_axes,
    wrap,
)

#: Split the axis when the widest gap between intervals exceeds this share of the whole range.
BREAK_SHARE = 0.5
#: Layout in inches: row height, narrowest plot, gap between columns, outer margin.
_ROW = 0.2
_MIN_PLOT = 1.0
_GAP = 0.08
_MARGIN = 0.06
#: Marker size (points) and the halo that keeps an interval visible over its marker.
_MARKER = 5.0
_HALO = [patheffects.Stroke(linewidth=2.6, foreground="white"), patheffects.Normal()]
_LEGEND_INK = "#444444"
#: The columns a ``compare(..., by=)`` frame puts before the pairs.
GROUP_COLUMNS = ("group", "category_id")
#: A ``by=`` frame is drawn as small multiples (``layout="auto"``) when stacking its groups would
#: make the plot taller than this (inches): the figure then fits one page.
PAGE_PLOT_HEIGHT = 7.0
#: Narrowest panel of the small multiples (inches).
_PANEL = 1.0
LAYOUTS = ("auto", "stacked", "grid")


def oriented(compare_frame: pd.DataFrame, reference: str | None) -> tuple[pd.DataFrame, str | None]:
    """The rows to draw, as ``system, other, diff, ci_low, ci_high, p_adj, n`` (after ``group`` and
    ``category_id`` when the frame has them: a ``compare(..., by=)`` frame).

    With a reference, each pair holding it becomes ``system − reference`` (a pair stored as
    ``reference − system`` is negated with its interval flipped). Without one, a frame whose
    rows all share ``system_b`` (as ``reference=`` gives) is read against that system;
    otherwise every pair is drawn as ``a − b`` (``other`` = b).

    Examples
    --------
    >>> frame = pd.DataFrame({"system_a": ["mem0", "rag"], "system_b": ["rag", "zep"],
    ...     "diff": [-2.0, 3.0], "ci_low": [-4.0, 1.0], "ci_high": [0.5, 5.0],
    ...     "p_adj": [0.2, 0.01], "n": [500, 500]})
    >>> rows, ref = oriented(frame, "rag")
    >>> rows[["system", "diff", "ci_low", "ci_high"]].to_numpy().tolist()
    [['mem0', -2.0, -4.0, 0.5], ['zep', -3.0, -5.0, -1.0]]
    """
    p_column = adjusted_p_column(compare_frame)
    if reference is None and compare_frame["system_b"].nunique() == 1:
        reference = str(compare_frame["system_b"].iloc[0])
    keys = [c for c in GROUP_COLUMNS if c in compare_frame.columns]
    rows = []
    for rec in compare_frame.to_dict("records"):
        n, p, group = rec.get("n", np.nan), rec[p_column], tuple(rec[c] for c in keys)
        floor = rec.get("p_floor", False)  # the p at its Monte-Carlo floor: a bound (NaN: not resampled)
        floor = bool(floor) if isinstance(floor, (bool, np.bool_)) else False
        if reference is None:
            rows.append((*group, rec["system_a"], rec["system_b"], rec["diff"], rec["ci_low"],
                         rec["ci_high"], p, n, floor))
        elif rec["system_b"] == reference:
            rows.append((*group, rec["system_a"], reference, rec["diff"], rec["ci_low"], rec["ci_high"],
                         p, n, floor))
        elif rec["system_a"] == reference:
            rows.append((*group, rec["system_b"], reference, -rec["diff"], -rec["ci_high"],
                         -rec["ci_low"], p, n, floor))
    if not rows:
        raise ValueError(f"no pair in the compare frame involves the reference '{reference}'.")
    return pd.DataFrame(rows, columns=[*keys, "system", "other", "diff", "ci_low", "ci_high", "p_adj",
                                       "n", "p_floor"]), reference


def segments(low: np.ndarray, high: np.ndarray) -> list[tuple[float, float]]:
    """The x ranges to draw: one, or two when the widest gap between the merged intervals (zero
    included) is over :data:`BREAK_SHARE` of the whole range.

    >>> segments(np.array([-3.0, -1.0, 60.0]), np.array([2.0, 4.0, 70.0]))
    [(-3.0, 4.0), (60.0, 70.0)]
    >>> segments(np.array([-3.0, 10.0]), np.array([2.0, 20.0]))
    [(-3.0, 20.0)]
    """
    spans = sorted(zip(np.append(low, 0.0), np.append(high, 0.0)))
    merged = [list(spans[0])]
    for lo, hi in spans[1:]:
        if lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    whole = merged[-1][1] - merged[0][0]
    gaps = [merged[i + 1][0] - merged[i][1] for i in range(len(merged) - 1)]
    if not gaps or whole <= 0 or max(gaps) <= BREAK_SHARE * whole:
        return [(float(merged[0][0]), float(merged[-1][1]))]
    cut = int(np.argmax(gaps))
    return [(float(merged[0][0]), float(merged[cut][1])),
            (float(merged[cut + 1][0]), float(merged[-1][1]))]


def _order(rows: pd.DataFrame, order: str | Sequence[str]) -> pd.DataFrame:
    if isinstance(order, str):
        if order == "effect":
            return rows.assign(_key=rows["system"].astype(str)).sort_values(
                ["diff", "_key"], ascending=[False, True], kind="stable").drop(columns="_key")
        if order == "frame":
            return rows
        raise ValueError(f"order must be 'effect', 'frame' or a list of systems, not {order!r}.")
    wanted = list(order)
    unknown = [s for s in wanted if s not in set(rows["system"])]
    if unknown:
        raise ValueError(f"order names system(s) {', '.join(map(str, unknown))} that have no row "
                         f"(rows: {', '.join(map(str, rows['system']))}).")
    rank = {s: i for i, s in enumerate(wanted)}
    return rows.assign(_rank=rows["system"].map(lambda s: rank.get(s, len(wanted)))) \
        .sort_values("_rank", kind="stable").drop(columns="_rank")


def _group_order(rows: pd.DataFrame) -> list:
    """The groups of a ``by=`` frame top to bottom: by category integer where the frame has one
    (unnumbered groups last), else in frame order."""
    groups = list(dict.fromkeys(rows["group"]))
    if "category_id" not in rows:
        return groups
    ids = rows.drop_duplicates("group").set_index("group")["category_id"]
    return sorted(groups, key=lambda g: (pd.isna(ids[g]), ids[g] if pd.notna(ids[g]) else 0))


def _order_groups(rows: pd.DataFrame, order: str | Sequence[str]) -> pd.DataFrame:
    """A ``by=`` frame's rows, group by group, each group in one system order: the systems'
    mean difference over the groups (``"effect"``), first appearance (``"frame"``) or a list."""
    per_system = rows.groupby("system", sort=False, as_index=False)["diff"].mean()
    ranked = list(_order(per_system, order)["system"])
    group_rank = {g: i for i, g in enumerate(_group_order(rows))}
    system_rank = {s: i for i, s in enumerate(ranked)}
    return rows.assign(_g=rows["group"].map(group_rank), _s=rows["system"].map(system_rank)) \
        .sort_values(["_g", "_s"], kind="stable").drop(columns=["_g", "_s"])


def _estimate(row) -> str:
    if pd.isna(row.ci_low) or pd.isna(row.ci_high):
        return signed(row.diff)
    return f"{signed(row.diff)} [{plain(row.ci_low)}, {plain(row.ci_high)}]"


def _draw_rows(axes: Sequence[Axes], rows: pd.DataFrame, ypos: np.ndarray, colors: Sequence[str],
               threshold: float) -> None:
    for y, row, color in zip(ypos, rows.itertuples(index=False), colors):
        significant = bool(row.p_adj < threshold)
        home = next((a for a in axes if a.get_xlim()[0] <= row.diff <= a.get_xlim()[1]), axes[0])
        for ax in axes:
            gid = f"forest-{row.label}" if ax is home else None
            ax.plot([row.diff], [y], ls="", marker="o", markersize=_MARKER, markeredgewidth=1.0,
                    markeredgecolor=color, markerfacecolor=color if significant else "white",
                    zorder=3, gid=gid)
            ax.plot([row.ci_low, row.ci_high], [y, y], color=color, lw=1.2, marker="|",
                    markersize=5, markeredgewidth=1.2, solid_capstyle="butt", zorder=4,
                    path_effects=_HALO, gid=f"forest-ci-{row.label}" if ax is home else None)
    for ax in axes:
        ax.axvline(0, color="0.4", lw=0.7, ls="--", zorder=0)


def _break_marks(left: Axes, right: Axes) -> None:
    """The two slanted strokes of a broken axis, on the x axis line at the break."""
    d = 4.0  # points
    kw = dict(marker=[(-1, -d / 2), (1, d / 2)], markersize=d * 1.6, ls="none", color="black",
              mec="black", mew=0.7, clip_on=False)
    left.plot([1], [0], transform=left.transAxes, **kw)
    right.plot([0], [0], transform=right.transAxes, **kw)


@styled
def forest(
    compare_frame: pd.DataFrame,
    reference: str | None = None,
    ax: Axes | None = None,
    all_systems: Sequence[str] | None = None,
    *,
    order: str | Sequence[str] = "effect",
    labels: Mapping[str, str] | None = None,
    layout: str = "auto",
) -> Figure:
    """Differences vs the reference (or between all pairs): intervals, estimates and adjusted p.

    Parameters
    ----------
    compare_frame
        The result of :func:`memdiag.compare`: ``system_a, system_b, diff, ci_low, ci_high`` and
        the adjusted p-value ``p_adj`` (differences ``a − b`` in points); ``n`` when present.
        ``attrs`` name the adjustment (``correction``), the interval level and the metric. A
        ``compare(..., by=)`` frame (``group``, and ``category_id`` for LoCoMo categories) is drawn
        group by group, each under a bold heading with the category integer beside its name and
        the group's n ("1 (multi-hop), n = 282"), groups in integer order.
    reference
        Draw ``system − reference`` for each pair holding it (see :func:`oriented`); default
        the common ``system_b`` of a frame compared with a ``reference``, else every pair as ``a − b``.
    ax
        Axes to draw on; the text columns go to the right of it (make room for them). Default: a
        new figure laid out to fit its text: one column (3.5 in) wide when it fits, else two
        columns (7.2 in), wider only when the labels need it; the height follows the rows.
    all_systems
        The analysis' ordered system list fixing the colours (default: the frame's systems).
    order
        ``"effect"`` (default: largest difference on top), ``"frame"`` (the frame's order) or a
        list of systems (top to bottom; systems not listed follow in frame order). Within the
        groups of a ``by=`` frame every group shows the systems in one order (``"effect"``: their
        mean difference over the groups).
    labels
        Aliases ``{system: label}`` drawn instead of the names (default ``attrs["labels"]``);
        long names without one are shortened and listed in a key under the plot.
    layout
        For a ``by=`` frame: ``"stacked"`` (the groups one under another, with the estimate and
        p columns), ``"grid"`` (small multiples: one panel per group on one x scale, the systems
        named once per row of panels, significance by the marker; the numbers are in the
        compare table) or ``"auto"`` (default: the grid when stacking would make the plot taller
        than :data:`PAGE_PLOT_HEIGHT` inches, so that the figure fits one page). Ignored for a
        frame without groups.

    Returns
    -------
    matplotlib.figure.Figure
        Artist ids: ``forest-<label>`` (marker), ``forest-ci-<label>`` (interval, with caps),
        ``forest-estimate-<label>`` and ``forest-p-<label>`` (text columns), ``forest-n-<label>``
        when the rows differ in n (else n is in the notes under the plot), ``forest-legend``.
        ``<label>`` is the system (``a − b`` for all-pairs frames), after ``"<group>: "`` in a
        ``by=`` frame, whose headings (panel titles in the grid, which has no text columns) are
        ``forest-group-<group>``.

    Raises
    ------
    ValueError
        A compare frame without ``system_a, system_b, diff, ci_low, ci_high`` and an adjusted p; no
        pair involving the ``reference``; an ``order`` that is not ``"effect"``, ``"frame"`` or a
        list of systems with rows; systems missing from ``all_systems``; an alias in ``labels`` that
        is empty or shared by two systems; a ``layout`` not in :data:`LAYOUTS`, or ``"grid"`` with
        given ``ax``.

    Notes
    -----
    Filled marker: adjusted p < α (``attrs["alpha"]``, else 1 − ``attrs["confidence_level"]``, else
    0.05) over the family of the compare call (paper C.6; within each
    group for a ``by=`` frame, as the notes say), the adjustment read from ``attrs["correction"]``; the bars are the frame's intervals at
    ``attrs["confidence_level"]``, per comparison. SPEC §5 and §8.

    References
    ----------
    SPEC §8 (the forest plot: intervals, adjusted p read from ``attrs``), SPEC §5.3
    (multiplicity), SPEC §4.1 (the intervals drawn) and SPEC §6.2 (LoCoMo category integers and
    names); Raw-RAG paper C.6.

    Examples
    --------
    >>> frame = pd.DataFrame({"system_a": ["mem0", "zep"], "system_b": ["rag", "rag"],
    ...     "diff": [-2.0, 3.0], "ci_low": [-4.0, 1.0], "ci_high": [0.5, 5.0],
    ...     "p_adj": [0.2, 0.01], "n": [500, 500]})
    >>> frame.attrs.update(correction="holm", confidence_level=0.95, metric="accuracy")
    >>> fig = forest(frame)
    >>> [t.get_text() for t in fig.texts if t.get_gid() == "forest-p-zep"]
    ['0.010']
    >>> print(next(t.get_text() for t in fig.texts if t.get_gid() == "forest-xlabel"))
    difference vs rag (accuracy, points)
    """
    require(compare_frame, ("system_a", "system_b", "diff", "ci_low", "ci_high"), "the compare frame")
    if adjusted_p_column(compare_frame) is None:
        require(compare_frame, ("p_adj",), "the compare frame")
    rows, reference = oriented(compare_frame, reference)
    rows = (_order_groups(rows, order) if "group" in rows else _order(rows, order)).reset_index(drop=True)
    present = list(dict.fromkeys(np.ravel(compare_frame[["system_a", "system_b"]].to_numpy())))
    aliases = labels_of(compare_frame, labels)
    styles = system_styles(list(all_systems) if all_systems is not None else present, reference,
                           aliases)
    missing = [s for s in present if s not in styles]
    if missing:
        raise ValueError(f"system(s) {', '.join(missing)} are not in all_systems.")
    content = _content(compare_frame, rows, reference, styles,
                       name_key({s: styles[s].label for s in present}, aliases), aliases)
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}, not {layout!r}.")
    grid = "group" in rows and (layout == "grid" or (layout == "auto" and _ROW * content.slots > PAGE_PLOT_HEIGHT))
    if ax is not None:
        if grid and layout == "grid":
            raise ValueError("layout='grid' draws a figure of its own: leave ax out.")
        return _on_axes(ax, content)
    return _grid_figure(content) if grid else _own_figure(content)


@dataclass
class _Content:
    """What a forest shows: the rows (with ``label``, the artist-id key), their drawn labels and
    colours, their y positions among ``slots`` (a ``by=`` frame gives each group a heading slot:
    ``heads`` holds its y, text and group), the text columns with their headers and widths, the
    axis label, legend and notes."""

    rows: pd.DataFrame
    shown: list[str]
    colors: list[str]
    y: np.ndarray
    slots: int
    heads: list[tuple[float, str, str]]
    headers: list[str]
    columns: list[list[str]]
    widths: list[float]
    xlabel: str
    legend: list[str]
    notes: list[str]
    threshold: float


def _heading(rows: pd.DataFrame, n_in_heading: bool) -> str:
    """A group's heading: the category integer beside its name ("1 (multi-hop)"), and its n."""
    first = rows.iloc[0]
    text = group_label(first)
    return f"{text}, n = {int(first['n']):,}" if n_in_heading else text


def _layout(rows: pd.DataFrame, n_in_heading: bool) -> tuple[np.ndarray, int, list[tuple[float, str, str]]]:
    """Row positions (top row highest), the number of slots and the group headings."""
    if "group" not in rows:
        return np.arange(len(rows))[::-1].astype(float), len(rows), []
    slot, positions, heads = 0, np.empty(len(rows)), []
    for group, block in rows.groupby("group", sort=False):
        heads.append((slot, _heading(block, n_in_heading), str(group)))
        positions[block.index.to_numpy()] = slot + 1 + np.arange(len(block))
        slot += 1 + len(block)
    return slot - 1 - positions, slot, [(slot - 1 - at, text, g) for at, text, g in heads]


def _family_note(frame: pd.DataFrame, adjusted: str, tests: str) -> str:
    """Which comparisons the adjustment ran over: the frame, or each group of a ``by=`` frame."""
    what = f"{'p: ' + tests + ', ' if tests else 'p: '}{adjusted.removesuffix(' p')}"
    if "group" in frame.columns:
        sizes = sorted(set(frame.groupby("group", sort=False).size()))
        counted = "/".join(map(str, sizes))
        return (f"{what} within each {frame.attrs.get('by', 'group')} over its {counted} "
                f"comparison{'s' if sizes != [1] else ''}.")
    return f"{what} over the {len(frame)} comparison{'s' if len(frame) != 1 else ''} of the frame."


def _content(frame: pd.DataFrame, rows: pd.DataFrame, reference: str | None, styles: dict,
             key: str, aliases: Mapping[str, str] | None) -> _Content:
    pairwise = reference is None
    grouped = "group" in rows
    names = [f"{a} {MINUS} {b}" if pairwise else a for a, b in zip(rows["system"], rows["other"])]
    rows["label"] = [f"{g}: {n}" for g, n in zip(rows["group"], names)] if grouped else names
    shown = [f"{styles[a].label} {MINUS} {styles[b].label}" if pairwise else styles[a].label
             for a, b in zip(rows["system"], rows["other"])]
    colors = [_LEGEND_INK if pairwise else styles[s].color for s in rows["system"]]
    threshold = alpha(frame)
    adjusted = correction(frame)
    n_values = rows["n"].dropna().astype(int)
    n_in_heading = grouped and rows["n"].notna().all() and \
        bool(rows.groupby("group", sort=False)["n"].nunique().le(1).all())
    n_column = n_values.nunique() > 1 and not n_in_heading
    y, slots, heads = _layout(rows, n_in_heading)
    headers = [f"difference\n[{level(frame)}]", p_header(frame)] + (["n"] if n_column else [])
    columns = [[_estimate(r) for r in rows.itertuples(index=False)],
               [p_text(p, threshold, floor) for p, floor in zip(rows["p_adj"], rows["p_floor"])]]
    if n_column:
        columns.append([f"{int(v):,}" if pd.notna(v) else "" for v in rows["n"]])
    widths = [max([text_size(t)[0] for t in values] + [text_size(header, weight="bold")[0]])
              for values, header in zip(columns, headers)]
    metric = frame.attrs.get("metric", "accuracy")
    xlabel = (f"difference vs {styles[reference].label} ({metric}, points)" if not pairwise
              else f"difference a {MINUS} b ({metric}, points)")
    notes = [f"n = {n_values.iloc[0]:,} queries per comparison." if len(n_values) and not n_column
             and not n_in_heading else ""]
    notes.append(f"Bars: {level(frame)}s, per comparison. {_family_note(frame, adjusted, named_tests(frame))}")
    if grouped and "category_id" in rows and frame.attrs.get("convention"):
        notes.append(f"Categories: the dataset's integers with the {frame.attrs['convention']} names "
                     "(SPEC §6.2).")
    notes += [key, *warning_lines(frame, aliases)]
    legend = [f"{adjusted} < {alpha_text(threshold)}", "not significant"]
    return _Content(rows, shown, colors, y, slots, heads, headers, columns, widths, xlabel, legend,
                    notes, threshold)


def _on_axes(ax: Axes, c: _Content) -> Figure:
    """Draw into given axes: one x range, the text columns to the right of the axes."""
    fig = root_figure(ax)
    rows, y = c.rows, c.y
    tidy_axes(ax)
    low, high = _drawn_spans(rows)
    ax.set_xlim(*_limits([(float(np.min(low, initial=0.0)), float(np.max(high, initial=0.0)))], 0.06))
    _finish_axes(ax, c, headings=True)
    for label in ax.get_yticklabels()[len(y):]:  # the group headings
        label.set_fontweight("bold")
    _draw_rows([ax], rows, y, c.colors, c.threshold)
    ax.set_xlabel(c.xlabel)
    place = blended_transform_factory(ax.transAxes, ax.transData)
    x = 1.02
    for kind, values, header, w in zip(("estimate", "p", "n"), c.columns, c.headers, c.widths):
        ax.text(x, c.slots - 0.4, header, transform=place, ha="left", va="bottom",
                fontsize=SMALL_FONT_SIZE, fontweight="bold", gid=f"forest-{kind}-header")
        for yy, value, label in zip(y, values, rows["label"]):
            ax.text(x, yy, value, transform=place, ha="left", va="center",
                    fontsize=SMALL_FONT_SIZE, gid=f"forest-{kind}-{label}")
        x += (w + _GAP) / (ax.get_position().width * fig.get_size_inches()[0])
    ax.legend(handles=_handles(c.legend), loc="lower left", bbox_to_anchor=(0, 1.02), ncols=2,
              borderaxespad=0, handletextpad=0.3, columnspacing=1.2,
              handlelength=1.0).set_gid("forest-legend")
    return fig


def _own_figure(c: _Content) -> Figure:
    """A figure laid out around its text: labels, plot (split at a gap when one effect dwarfs
    the rest), text columns; the x label, the legend and the notes under it."""
    rows, y = c.rows, c.y
    label_w = max([text_size(t)[0] for t in c.shown] +
                  [text_size(text, weight="bold")[0] - 0.06 for _, text, _ in c.heads])
    text_w = _MARGIN + label_w + 0.06 + _GAP + sum(w + _GAP for w in c.widths) + _MARGIN
    width = at_least(ONE_COLUMN if text_w + _MIN_PLOT <= ONE_COLUMN else
                     max(TWO_COLUMN, text_w + _MIN_PLOT))
    plot_w = width - text_w
    left = _MARGIN + label_w + 0.06
    middle = left + plot_w / 2  # the x label is centred under the plot and stays in the figure
    xlabel = wrap(c.xlabel, 2 * min(middle, width - middle) - 2 * _MARGIN, FONT_SIZE)
    header_h = max(text_size(h, weight="bold")[1] for h in c.headers) + 0.08
    legend_h = 0.2
    notes_h = note_height(c.notes, width)
    bottom = 0.2 + text_size(xlabel, FONT_SIZE)[1] + 0.06 + legend_h + notes_h
    plot_h = _ROW * c.slots
    height = header_h + plot_h + 0.08 + bottom
    fig = new_figure(width, height, constrained=False)
    ranges = segments(*_drawn_spans(rows))
    widths = _split(plot_w - 0.1, [hi - lo for lo, hi in ranges]) if len(ranges) == 2 else [plot_w]
    axes, x0 = [], left
    for (lo, hi), w in zip(ranges, widths):
        a = fig.add_axes((x0 / width, bottom / height, w / width, plot_h / height))
        tidy_axes(a)
        a.set_xlim(*_limits([(lo, hi)], 0.06 if len(ranges) == 1 else 0.1))
        a.xaxis.set_major_locator(MaxNLocator(nbins=max(3, int(w / 0.32)), steps=[1, 2, 2.5, 5, 10]))
        axes.append(a)
        x0 += w + 0.1
    _finish_axes(axes[0], c)
    for a in axes[1:]:
        a.set_ylim(axes[0].get_ylim())
        a.set_yticks([])
        a.spines["left"].set_visible(False)
    if len(axes) == 2:
        axes[0].spines["right"].set_visible(False)
        _break_marks(*axes)
    _draw_rows(axes, rows, y, c.colors, c.threshold)
    fig.text(middle / width, (bottom - 0.2) / height, xlabel, ha="center", va="top",
             fontsize=FONT_SIZE, gid="forest-xlabel")
    x = left + plot_w + _GAP
    to_fig = axes[0].transData + fig.transFigure.inverted()
    for yy, text, group in c.heads:
        fig.text(_MARGIN / width, to_fig.transform((0, yy))[1], text, ha="left", va="center",
                 fontsize=SMALL_FONT_SIZE, fontweight="bold", gid=f"forest-group-{group}")
    for kind, values, header, w in zip(("estimate", "p", "n"), c.columns, c.headers, c.widths):
        right = (x + w) / width  # numbers right-aligned
        fig.text(right, (bottom + plot_h + 0.04) / height, header, ha="right", va="bottom",
                 fontsize=SMALL_FONT_SIZE, fontweight="bold", gid=f"forest-{kind}-header")
        for yy, value, label in zip(y, values, rows["label"]):
            fig.text(right, to_fig.transform((0, yy))[1], value, ha="right", va="center",
                     fontsize=SMALL_FONT_SIZE, gid=f"forest-{kind}-{label}")
        x += w + _GAP
    fig.legend(handles=_handles(c.legend), loc="center left",
               bbox_to_anchor=(left / width, (notes_h + legend_h / 2) / height), ncols=2,
               borderaxespad=0, borderpad=0, handletextpad=0.3, columnspacing=1.2,
               handlelength=1.0).set_gid("forest-legend")
    add_note(fig, c.notes, gid="forest-notes")
    return fig


def _grid_figure(c: _Content) -> Figure:
    """Small multiples of a ``by=`` frame: one panel per group, as many side by side as the width
    allows, all on one x scale; the systems are named left of each row of panels, in one order;
    the x label, the legend and the notes under them. No text columns (the table has them)."""
    rows = c.rows
    groups = list(dict.fromkeys(rows["group"]))
    heads = {g: text for _, text, g in c.heads}
    systems = list(dict.fromkeys(rows["system"]))
    shown = dict(zip(rows["system"], c.shown))
    color = dict(zip(rows["system"], c.colors))
    label_w = max(text_size(t)[0] for t in shown.values())
    left = _MARGIN + label_w + 0.06
    width = at_least(TWO_COLUMN if left + 2 * _PANEL + 0.2 + _MARGIN > ONE_COLUMN else ONE_COLUMN)
    fits = max(1, min(len(groups), int((width - left - _MARGIN + 0.2) // (_PANEL + 0.2))))
    nrows = -(-len(groups) // fits)
    ncols = -(-len(groups) // nrows)  # rows of panels as full as they can be: 4 groups in 3 fit are 2 × 2
    width = max(width, left + ncols * (_PANEL + 0.2) - 0.2 + _MARGIN)
    panel_w = (width - left - _MARGIN - 0.2 * (ncols - 1)) / ncols
    panel_h = _ROW * len(systems)
    titles = {g: _panel_title(heads[g], panel_w) for g in groups}
    title_h = max(text_size(titles[g], weight="bold")[1] for g in groups) + 0.06
    ticks_h = text_size("0", SMALL_FONT_SIZE)[1] + 0.12
    xlabel = wrap(c.xlabel, width - 2 * _MARGIN, FONT_SIZE)
    legend_h = 0.2
    notes = [*c.notes, "Numbers (estimates, intervals, adjusted p): the compare table."]
    notes_h = note_height(notes, width)
    bottom = ticks_h + text_size(xlabel, FONT_SIZE)[1] + 0.1 + legend_h + notes_h
    height = bottom + nrows * (title_h + panel_h + ticks_h) - ticks_h + 0.06
    fig = new_figure(width, height, constrained=False)
    low, high = _drawn_spans(rows)
    xlim = _limits([(float(min(np.min(low, initial=0.0), 0.0)), float(max(np.max(high, initial=0.0), 0.0)))], 0.06)
    y_of = {s: len(systems) - 1 - i for i, s in enumerate(systems)}
    for k, group in enumerate(groups):
        r, col = divmod(k, ncols)
        y0 = bottom + (nrows - 1 - r) * (title_h + panel_h + ticks_h)
        ax = fig.add_axes(((left + col * (panel_w + 0.2)) / width, y0 / height, panel_w / width, panel_h / height))
        tidy_axes(ax)
        ax.set_xlim(*xlim)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=max(2, int(panel_w / 0.45)), steps=[1, 2, 2.5, 5, 10]))
        block = rows[rows["group"] == group]
        ax.set_ylim(-0.6, len(systems) - 0.4)
        ax.set_yticks([y_of[s] for s in systems], [shown[s] for s in systems] if col == 0 else [])
        ax.spines["left"].set_visible(False)
        ax.tick_params(axis="y", length=0, pad=4)
        _draw_rows([ax], block, np.array([y_of[s] for s in block["system"]], dtype=float),
                   [color[s] for s in block["system"]], c.threshold)
        ax.set_title(titles[group], fontsize=SMALL_FONT_SIZE, fontweight="bold", loc="left", pad=3,
                     gid=f"forest-group-{group}")
    fig.text((left + (width - left - _MARGIN) / 2) / width, (bottom - ticks_h) / height, xlabel,
             ha="center", va="top", fontsize=FONT_SIZE, gid="forest-xlabel")
    fig.legend(handles=_handles(c.legend), loc="center left",
               bbox_to_anchor=(left / width, (notes_h + legend_h / 2) / height), ncols=2,
               borderaxespad=0, borderpad=0, handletextpad=0.3, columnspacing=1.2,
               handlelength=1.0).set_gid("forest-legend")
    add_note(fig, notes, gid="forest-notes")
    return fig


def _panel_title(text: str, width: float) -> str:
    """A group heading over a panel ``width`` inches wide: one line when it fits, else its
    parts ("1 (multi-hop)", "n = 282") on lines of their own, each wrapped to the width."""
    if text_size(text, weight="bold")[0] <= width:
        return text
    return "\n".join(wrap(part, 0.9 * width) for part in text.split(", "))


def _drawn_spans(rows: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The x extent of every row that has one: its interval, else its estimate alone (an
    undefined interval, e.g. a group within one cluster, is not drawn); rows with neither are
    left out."""
    low = rows["ci_low"].fillna(rows["diff"]).to_numpy(float)
    high = rows["ci_high"].fillna(rows["diff"]).to_numpy(float)
    drawn = np.isfinite(low) & np.isfinite(high)
    return low[drawn], high[drawn]


def _split(total: float, spans: Sequence[float]) -> list[float]:
    """Widths of the two parts of a broken axis: proportional to their ranges (one scale), but
    at least a quarter of ``total`` each."""
    raw = [total * s / sum(spans) for s in spans]
    floor = total / 4
    if min(raw) >= floor:
        return raw
    small = int(np.argmin(raw))
    out = [total - floor, total - floor]
    out[small] = floor
    return out


def _limits(ranges: Sequence[tuple[float, float]], pad: float) -> tuple[float, float]:
    lo, hi = ranges[0][0], ranges[-1][1]
    span = hi - lo if hi > lo else max(abs(hi), 1.0)
    return lo - pad * span, hi + pad * span


def _finish_axes(ax: Axes, c: _Content, headings: bool = False) -> None:
    """Row labels as y ticks (then the group headings, when drawn as ticks), the y range."""
    ticks, labels = list(c.y), list(c.shown)
    if headings:
        ticks += [yy for yy, _, _ in c.heads]
        labels += [text for _, text, _ in c.heads]
    ax.set_yticks(ticks, labels)
    ax.set_ylim(-0.6, c.slots - 0.4)
    ax.spines["left"].set_visible(False)
    ax.tick_params(axis="y", length=0, pad=4)


def _handles(texts: Sequence[str]) -> list[Line2D]:
    """Legend entries of the one significance encoding: filled, then hollow marker."""
    return [Line2D([], [], ls="", marker="o", markersize=_MARKER, markeredgewidth=1.0,
                   markeredgecolor=_LEGEND_INK, markerfacecolor=face, label=text)
            for face, text in zip((_LEGEND_INK, "white"), texts)]
