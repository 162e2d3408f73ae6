"""Venn diagrams of memory benefit and memory tax against a reference (SPEC §2, §8).

One panel per memory system: the grey circle holds the queries the reference answers, the
coloured circle the queries the system answers. The reference-only region is labelled **tax**, the
system-only region **benefit**, the overlap **both**; each carries its count and its share of the
n aligned queries, "neither" is written under the panel, and the title gives the net
(benefit − tax) with the interval of the net rate. By default the circles are area-proportional
on one scale across all panels (equal areas mean equal counts) and the panels are ordered by net,
largest first. This is the Memory Tax review's Venn figure; :func:`venn3` is its three-set version
(reference, memory, memory + raw-source augmentation). The functions only draw what
:func:`memdiag.analyses.flows` computed.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Circle
from matplotlib.text import Text
from matplotlib_venn import venn2 as _venn2
from matplotlib_venn import venn3 as _venn3
from matplotlib_venn.layout.venn2 import DefaultLayoutAlgorithm as _Venn2Layout
from matplotlib_venn.layout.venn3 import DefaultLayoutAlgorithm as _Venn3Layout

from memdiag.plots._labels import overlap_area
from memdiag.plots._names import name_key
from memdiag.plots._reading import group_note, labels_of, level, warning_lines
from memdiag.plots.style import (
    LINE_SPACING,
    MINUS,
    ONE_COLUMN,
    REFERENCE_COLOR,
    SMALL_FONT_SIZE,
    TWO_COLUMN,
    SystemStyle,
    add_note,
    at_least,
    break_label,
    figure_and_axes,
    new_figure,
    note_height,
    renderer,
    require,
    signed,
    styled,
    system_styles,
    text_size,
    wrap,
)

#: Columns of the flows frame that :func:`venn` draws.
FLOW_COLUMNS: tuple[str, ...] = ("system", "reference", "n", "both", "benefit", "tax", "neither",
                                 "net", "net_rate", "net_rate_ci_low", "net_rate_ci_high")
#: Region ids of matplotlib-venn for the two-set diagram (reference = set A, system = set B).
REGIONS: dict[str, str] = {"tax": "10", "benefit": "01", "both": "11"}

# Panel geometry in inches: diagram, band under it ("neither"), side margin of a panel.
_DIAGRAM_H = 1.5
_BELOW_H = 0.2
_SIDE = 0.06
_ALPHA = 0.45
_TITLE_FONT = SMALL_FONT_SIZE + 1


def _count_label(count: float, n: int) -> str:
    """``"258\n13.0%"``: a region's count and its share of the n queries."""
    share = 100 * count / n if n else math.nan
    return f"{int(count)}\n{share:.1f}%"


def _region_label(flow: str, count: float, n: int) -> str:
    """``"benefit\n258\n13.0%"``: the region's name, count and share of the n queries."""
    return f"{flow}\n{_count_label(count, n)}"


def _net_line(row: pd.Series, width: float = math.inf) -> str:
    """``"net +22 (+1.1 pts [−0.8, +3.0])"`` (the interval is omitted when undefined), on two
    lines when one would be wider than ``width`` inches."""
    net = f"{int(row['net']):+d}".replace("-", MINUS)
    low, high = row["net_rate_ci_low"], row["net_rate_ci_high"]
    interval = "" if pd.isna(low) or pd.isna(high) else f" [{signed(low)}, {signed(high)}]"
    line = f"net {net} ({signed(row['net_rate'])} pts{interval})"
    if text_size(line, _TITLE_FONT)[0] <= width:
        return line
    return f"net {net}\n{signed(row['net_rate'])} pts{interval}"


def _one_block(frame: pd.DataFrame, reference: str | None) -> pd.DataFrame:
    """The rows of one reference (and one group), or a ValueError saying how to pick them."""
    if "group" in frame.columns and frame["group"].nunique(dropna=False) > 1:
        by = frame["by"].iloc[0] if "by" in frame.columns else "group"
        raise ValueError(f"the flows frame holds one block per '{by}' group "
                         f"({', '.join(map(str, frame['group'].unique()))}); draw one group at a "
                         "time, e.g. venn(frame[frame['group'] == 'x']).")
    references = list(dict.fromkeys(frame["reference"]))
    if reference is None:
        if len(references) != 1:
            raise ValueError(f"the flows frame has several references ({', '.join(references)}); "
                             "choose one with reference=.")
        reference = references[0]
    if reference not in references:
        raise ValueError(f"reference '{reference}' is not in the flows frame (references: "
                         f"{', '.join(references)}).")
    return frame[frame["reference"] == reference]


def _grid(k: int, ncols: int | None) -> tuple[int, int]:
    if ncols is None:
        ncols = 1 if k == 1 else 2 if k in (2, 4) else 3 if k <= 12 else 4
    return ncols, math.ceil(k / ncols)


def _key(reference: str, level_text: str, shared: bool, ordered: bool) -> str:
    scale = ("Circle areas are proportional to the queries answered, on one scale across panels. "
             if shared else "Circles are not to scale: the numbers carry the sizes. ")
    order = "Panels in order of net, largest first. " if ordered else ""
    return (f"Grey circle: queries {reference} answers; coloured circle: queries the system "
            f"answers. Tax = only {reference} answers, benefit = only the system answers, both = "
            f"both answer; count and % of the n queries. {scale}{order}Title: net = benefit "
            f"{MINUS} tax, and net / n in points with its {level_text}.")


@dataclass
class _Panel:
    """One drawn two-set panel: its axes, venn diagram, region labels and the labels already
    written beside the diagram (empty regions of a weighted layout)."""

    ax: Axes
    diagram: object
    labels: dict[str, Text]
    beside: set[str]


def _panel(ax: Axes, name: str, title: str, row: pd.Series, style: SystemStyle,
           normalize_to: float | None) -> _Panel:
    """Draw one two-set panel (weighted when ``normalize_to`` is given)."""
    n = int(row["n"])
    subsets = (int(row["tax"]), int(row["benefit"]), int(row["both"]))
    weighted = normalize_to is not None and sum(subsets) > 0
    layout = _Venn2Layout(normalize_to=normalize_to) if weighted else \
        _Venn2Layout(fixed_subset_sizes=(1, 1, 1))
    diagram = _venn2(subsets=subsets, set_labels=None, set_colors=(REFERENCE_COLOR, style.color),
                     alpha=_ALPHA, ax=ax, layout_algorithm=layout,
                     subset_label_formatter=lambda count: _count_label(count, n))
    for center, radius, color in zip(diagram.centers, diagram.radii, (REFERENCE_COLOR, style.color)):
        ax.add_patch(Circle(center.asarray(), radius, fill=False, edgecolor=color, lw=1.0))
    labels, beside = {}, set()
    for flow, region in REGIONS.items():
        label = diagram.get_label_by_id(region)
        text = _region_label(flow, subsets[("tax", "benefit", "both").index(flow)], n)
        if label is None:  # an empty region of a weighted diagram: write its 0 beside it
            label = _side_label(ax, diagram, flow, text)
            beside.add(flow)
        label.set_text(text)
        label.set_fontsize(SMALL_FONT_SIZE)
        label.set_linespacing(LINE_SPACING)
        label.set_gid(f"venn-{name}-{flow}")
        labels[flow] = label
    d = int(row["neither"])
    ax.annotate(f"neither: {d} ({100 * d / n if n else math.nan:.1f}%)", xy=(0.5, 0),
                xycoords="axes fraction", xytext=(0, -2), textcoords="offset points",
                ha="center", va="top", fontsize=SMALL_FONT_SIZE, gid=f"venn-{name}-neither")
    ax.set_title(title, fontsize=_TITLE_FONT, pad=3, linespacing=LINE_SPACING,
                 gid=f"venn-{name}-title")
    return _Panel(ax, diagram, labels, beside)


def _side_label(ax: Axes, diagram, flow: str, text: str) -> Text:
    """A region label outside the circles: tax left, benefit right, both above the overlap."""
    (ax_, ay), (bx, by) = (c.asarray() for c in diagram.centers)
    ra, rb = diagram.radii
    gap = 0.08 * max(ra, rb)
    if flow == "tax":
        return ax.text(min(ax_ - ra, bx - rb) - gap, ay, text, ha="right", va="center")
    if flow == "benefit":
        return ax.text(max(ax_ + ra, bx + rb) + gap, by, text, ha="left", va="center")
    return ax.text((ax_ + ra + bx - rb) / 2, max(ay + ra, by + rb) + gap / 2, text, ha="center",
                   va="bottom")


def _fits(ax: Axes, diagram, flow: str, box) -> bool:
    """Whether the label box lies inside its region (inside / outside each circle as required)."""
    corners = ax.transData.inverted().transform(
        [(box.x0, box.y0), (box.x0, box.y1), (box.x1, box.y0), (box.x1, box.y1)])
    inside = [np.hypot(*(corners - c.asarray()).T) < r for c, r in zip(diagram.centers, diagram.radii)]
    want = {"tax": (True, False), "benefit": (False, True), "both": (True, True)}[flow]
    return all(np.all(side == wanted) for side, wanted in zip(inside, want))


def _widest_spot(diagram, flow: str) -> tuple[float, float]:
    """The middle of the region's widest horizontal chord, on the line through the centres: the
    roomiest spot of a crescent (matplotlib-venn puts labels at the centroid instead)."""
    (ax_, ay), (bx, _) = (c.asarray() for c in diagram.centers)
    ra, rb = diagram.radii
    if flow == "tax":
        return (ax_ - ra + min(ax_ + ra, bx - rb)) / 2, ay
    if flow == "benefit":
        return (max(ax_ + ra, bx - rb) + bx + rb) / 2, ay
    return (max(ax_ - ra, bx - rb) + min(ax_ + ra, bx + rb)) / 2, ay


#: Where a leader leaves a region label moved beside the diagram: next to the region's name (the
#: first line), never next to a number, where the line could read as a minus sign.
_LEADER_FROM = {"tax": (1.0, 0.85), "benefit": (0.0, 0.85), "both": (0.5, 0.0)}


def _move_outside(panel: _Panel, flow: str) -> None:
    """Move a region label that does not fit its region beside the diagram, with a leader line
    from the region's name to the region."""
    label = panel.labels[flow]
    target = label.get_position()
    spot = _side_label(panel.ax, panel.diagram, flow, label.get_text())
    moved = panel.ax.annotate(
        label.get_text(), xy=target, xytext=spot.get_position(), textcoords="data",
        ha=spot.get_horizontalalignment(), va=spot.get_verticalalignment(),
        fontsize=label.get_fontsize(), linespacing=LINE_SPACING, gid=label.get_gid(),
        arrowprops={"arrowstyle": "-", "lw": 0.5, "color": "0.3", "shrinkA": 1.5, "shrinkB": 0,
                    "relpos": _LEADER_FROM[flow]})
    spot.remove()
    label.remove()
    panel.labels[flow] = moved


def _fit_labels(fig: Figure, panels: Sequence[_Panel]) -> None:
    """A label that does not fit its region (a thin crescent, a small overlap of a weighted
    layout) or that covers another label moves beside the diagram with a leader line."""
    r = renderer(fig)
    for panel in panels:
        boxes = {flow: panel.labels[flow].get_window_extent(r) for flow in panel.beside}
        for flow in ("both", "tax", "benefit"):  # each checked against the labels placed before
            if flow in panel.beside:
                continue
            label = panel.labels[flow]
            for spot in (label.get_position(), _widest_spot(panel.diagram, flow)):
                label.set_position(spot)
                boxes[flow] = label.get_window_extent(r)
                crowded = any(overlap_area(boxes[flow], boxes[o]) > 0 for o in boxes if o != flow)
                if not crowded and _fits(panel.ax, panel.diagram, flow, boxes[flow]):
                    break
            else:
                _move_outside(panel, flow)
                boxes[flow] = panel.labels[flow].get_window_extent(r)


def _shared_limits(panels: Sequence[_Panel], box: tuple[float, float], side: float,
                   top: float) -> None:
    """One data window for every panel, so equal areas mean equal counts: the largest diagram
    fills the axes box (``box`` = width, height in inches) less ``side`` inches left and right
    and ``top`` inches above, the room of region labels moved beside the circles."""
    half_w = half_h = 0.0
    for panel in panels:
        for c, r in zip(panel.diagram.centers, panel.diagram.radii):
            half_w = max(half_w, abs(c.x) + r)
            half_h = max(half_h, abs(c.y) + r)
    box_w, box_h = box
    scale = min((box_w - 2 * side) / (2 * half_w), (box_h - top) / (2 * half_h))  # inches per unit
    bottom = -half_h - (box_h - top - 2 * half_h * scale) / 2 / scale
    for panel in panels:
        panel.ax.set_xlim(-box_w / 2 / scale, box_w / 2 / scale)
        panel.ax.set_ylim(bottom, bottom + box_h / scale)


@styled
def venn(
    flows_frame: pd.DataFrame,
    reference: str | None = None,
    systems: Sequence[str] | None = None,
    shared_scale: bool = True,
    ncols: int | None = None,
    fig: Figure | None = None,
    all_systems: Sequence[str] | None = None,
    *,
    labels: Mapping[str, str] | None = None,
) -> Figure:
    """Benefit/tax Venn diagrams, one panel per memory system against the reference.

    Parameters
    ----------
    flows_frame
        The result of :func:`memdiag.flows`: one row per system with ``system, reference, n,
        both, benefit, tax, neither, net, net_rate, net_rate_ci_low, net_rate_ci_high`` (rates
        in points). A frame computed ``by=`` a column must be cut to one group first; the notes
        then name the group (a LoCoMo category with its integer, "category 4 (single-hop)").
    reference
        Which reference to draw when the frame holds several (default: its only one).
    systems
        The systems to draw, in panel order (default: every system of the frame, in order of
        net, largest first; ties by name).
    shared_scale
        ``True`` (default): area-proportional circles on one common scale, so areas compare
        across panels (the circles of the panel with most answered queries fill their cell).
        ``False``: every panel has the same unweighted layout and the numbers carry the sizes.
    ncols
        Panels per row (default 1 for one system, 2 for two or four, 3 up to twelve, else 4).
    fig
        A figure to draw into (its size is kept); default a new figure one column wide for a
        single panel and two columns wide otherwise, as tall as the panels need.
    all_systems
        The analysis' full ordered system list, which fixes the colours
        (:func:`memdiag.plots.style.system_styles`); default the frame's systems.
    labels
        Aliases ``{system: label}`` for the titles (default ``attrs["labels"]``); long names
        without one are shortened and listed under the panels.

    Returns
    -------
    matplotlib.figure.Figure
        Each region label is ``"flow\ncount\nshare%"`` (flow = tax, benefit or both; share of
        n); the title is ``"label\nnet +b−c (net rate pts [interval])"`` (a long label takes
        more lines). Artist ids (also in the SVG): ``venn-<system>-tax|benefit|both|neither|title``,
        ``venn-key``.

    Raises
    ------
    ValueError
        A frame with several ``by`` groups, or several references and none chosen; a ``reference``
        or ``systems`` not in the frame; systems missing from ``all_systems``; a ``fig`` too small
        for the panels; an alias in ``labels`` that is empty or shared by two systems.

    Notes
    -----
    Regions: reference only = tax c, system only = benefit b, overlap = both a, outside = neither
    d; net = b − c, net rate (b − c)/n in points. SPEC §2 and §8; Memory Tax review, Venn figure.

    References
    ----------
    SPEC §2 (benefit and tax flows) and SPEC §8 (the Venn of benefit and tax); Memory Tax
    review (the Venn comparison of a memory system against RAG).

    Examples
    --------
    >>> frame = pd.DataFrame({"system": ["mem0"], "reference": ["raw-rag"], "n": [500],
    ...     "both": [300], "benefit": [40], "tax": [18], "neither": [142], "net": [22],
    ...     "net_rate": [4.4], "net_rate_ci_low": [1.2], "net_rate_ci_high": [7.6]})
    >>> fig = venn(frame)
    >>> fig.axes[0].get_title()
    'mem0\\nnet +22 (+4.4 pts [+1.2, +7.6])'
    """
    require(flows_frame, FLOW_COLUMNS, "the flows frame")
    block = _one_block(flows_frame, reference)
    reference = str(block["reference"].iloc[0])
    if systems is None:
        names = block.assign(_name=block["system"].astype(str)).sort_values(
            ["net", "_name"], ascending=[False, True], kind="stable")["system"].tolist()
    else:
        names = list(systems)
    unknown = [s for s in names if s not in set(block["system"])]
    if unknown or not names:
        raise ValueError(f"no flows for system(s) {', '.join(unknown) or '(none given)'} against "
                         f"'{reference}' (the frame has {', '.join(block['system'])}).")
    rows = block.set_index("system")
    aliases = labels_of(flows_frame, labels)
    styles = system_styles(list(all_systems) if all_systems is not None
                           else [reference, *block["system"]], reference, aliases)
    outside = [s for s in names if s not in styles]
    if outside:
        raise ValueError(f"system '{outside[0]}' is not in all_systems ({', '.join(all_systems)}).")
    ncols, nrows = _grid(len(names), ncols)
    width = fig.get_size_inches()[0] if fig is not None else at_least(ONE_COLUMN if ncols == 1 else TWO_COLUMN)
    cell_w = width / ncols
    titles = {s: f"{break_label(styles[s].label, cell_w - 2 * _SIDE, _TITLE_FONT)}\n"
                 f"{_net_line(rows.loc[s], cell_w - 2 * _SIDE)}" for s in names}
    title_h = max(text_size(t, _TITLE_FONT)[1] for t in titles.values()) + 0.08
    notes = [_key(styles[reference].label, level(flows_frame), shared_scale, systems is None),
             group_note(flows_frame), name_key({s: styles[s].label for s in [reference, *names]}, aliases),
             *warning_lines(flows_frame, aliases)]
    key_h = note_height(notes, width)
    if fig is None:
        fig = new_figure(width, nrows * (title_h + _DIAGRAM_H + _BELOW_H) + key_h, constrained=False)
    height = fig.get_size_inches()[1]
    cell_h = (height - key_h) / nrows
    if cell_h - title_h - _BELOW_H < 0.5:
        raise ValueError(f"the figure is too small for {nrows} rows of Venn panels; make it at "
                         f"least {nrows * (title_h + _BELOW_H + 0.5) + key_h:.1f} in tall.")
    unions = {s: int(rows.loc[s, "both"] + rows.loc[s, "benefit"] + rows.loc[s, "tax"]) for s in names}
    largest = max(unions.values())
    panels = []
    box_w, box_h = cell_w - 2 * _SIDE, cell_h - title_h - _BELOW_H
    for i, name in enumerate(names):
        r, c = divmod(i, ncols)
        ax = fig.add_axes(((c * cell_w + _SIDE) / width,
                           (key_h + (nrows - 1 - r) * cell_h + _BELOW_H) / height,
                           box_w / width, box_h / height))
        scale = unions[name] / largest if shared_scale and largest else None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "circles have zero area" on empty sets
            panels.append(_panel(ax, name, titles[name], rows.loc[name], styles[name], scale))
    if shared_scale:
        room = [text_size(_region_label(flow, 0, 1))[0] for flow in REGIONS]
        _shared_limits(panels, (box_w, box_h), max(room) + 0.06,
                       text_size(_region_label("both", 0, 1))[1] + 0.04)
    add_note(fig, notes, gid="venn-key")
    _fit_labels(fig, panels)
    return fig


#: Region ids of the three-set diagram and the membership (reference, memory, augmented) of each.
REGIONS3: tuple[str, ...] = ("100", "010", "110", "001", "101", "011", "111")


def _three_sets(frame: pd.DataFrame) -> tuple[dict[str, int], list[str]]:
    """The count of every region (the seven of :data:`REGIONS3` and ``"000"``) and the three
    systems in the order of the region codes."""
    if {"region", "count"} <= set(frame.columns):
        present = list(frame.attrs.get("systems", ()))
        if len(present) != 3:
            raise ValueError("an augmentation table needs attrs['systems'] = [reference, memory, augmented] "
                             "(md.augmentation output).")
        counts = {str(r): int(c) for r, c in zip(frame["region"], frame["count"])}
        return {r: counts.get(r, 0) for r in (*REGIONS3, "000")}, present
    require(frame, ("query_id", "system", "correct"), "the verdicts frame")
    present = list(dict.fromkeys(frame["system"]))
    if len(present) != 3:
        raise ValueError(f"venn3 needs three systems (reference first) present in the frame; the frame has "
                         f"{', '.join(map(str, present))}.")
    table = frame.pivot_table(index="query_id", columns="system", values="correct", aggfunc="count")[present]
    if (table != 1).to_numpy().any():
        raise ValueError("venn3 needs exactly one row per system and query (combine judge "
                         "repetitions first) and the same queries for all three systems.")
    wide = frame.pivot(index="query_id", columns="system", values="correct")[present]
    values = wide.to_numpy(dtype=float)
    if not np.isin(values, (0.0, 1.0)).all():
        raise ValueError("column 'correct' must be 0/1 (or bool) per query.")
    codes = ["".join("1" if m else "0" for m in row) for row in values.astype(bool)]
    return {region: codes.count(region) for region in (*REGIONS3, "000")}, present


@styled
def venn3(
    verdicts: pd.DataFrame,
    systems: Sequence[str] | None = None,
    reference: str | None = None,
    ax: Axes | None = None,
    all_systems: Sequence[str] | None = None,
    *,
    labels: Mapping[str, str] | None = None,
) -> Figure:
    """Three-set Venn of correct queries: reference, memory, memory + raw-source augmentation.

    Parameters
    ----------
    verdicts
        :func:`memdiag.augmentation` output (the eight region counts; the three systems from its
        ``attrs["systems"]``), or a tidy frame of per-query correctness with columns
        ``query_id, system, correct`` (``correct`` 0/1 or bool; one row per system and query,
        judge repetitions already combined, e.g. ``correct = mean score > 0.5``) for exactly the
        three systems, each on the same queries.
    systems
        ``(reference, memory, augmented)``: the circle order (default: ``reference`` first, then
        the other two in order of appearance; an augmentation table's own order).
    reference
        The reference system (grey); default ``systems[0]`` or the first system of the frame.
    ax
        Axes to draw on (default: a new one-column figure).
    all_systems
        The analysis' ordered system list fixing the colours (default: the frame's systems).
    labels
        Aliases ``{system: label}`` for the circle names (default ``attrs["labels"]``).

    Returns
    -------
    matplotlib.figure.Figure
        Seven region labels ``"count\\n share%"`` with ids ``venn3-<abc>`` where ``abc`` are the
        memberships in (reference, memory, augmented), e.g. ``venn3-010`` = memory only; the
        queries no system answers (``venn3-none``) and the tax of the memory system without and
        with augmentation (``venn3-tax``) are written under the diagram.

    Raises
    ------
    ValueError
        An augmentation table without ``attrs["systems"]``; a verdict frame without ``query_id,
        system, correct``, without exactly three systems, with other than one row per system and
        query, or with a ``correct`` that is not 0/1; ``systems`` that are not three systems of the
        frame with the reference first; an alias in ``labels`` that is empty or shared by two
        systems.

    Notes
    -----
    The layout is unweighted (every region the same size), so small regions stay readable; the
    numbers carry the sizes. Memory Tax review: source augmentation (SPEC §8).

    References
    ----------
    SPEC §8 (the three-set Venn; source augmentation) and SPEC §2 (the tax it reads); Memory
    Tax review, source augmentation (SimpleMem's tax falls from 12.0 to 5.2).

    Examples
    --------
    >>> v = pd.DataFrame({"query_id": list("abcd") * 3,
    ...                   "system": ["rag"] * 4 + ["mem"] * 4 + ["mem+raw"] * 4,
    ...                   "correct": [1, 1, 0, 0, 1, 0, 1, 0, 1, 1, 1, 0]})
    >>> fig = venn3(v, reference="rag")
    >>> [t.get_text() for t in fig.axes[0].texts if t.get_gid() == "venn3-111"]
    ['1\\n25.0%']
    """
    counts, present = _three_sets(verdicts)
    if systems is None:
        reference = reference if reference is not None else present[0]
        systems = [reference, *[s for s in present if s != reference]]
    systems = list(systems)
    reference = systems[0] if reference is None else reference
    if len(systems) != 3 or set(systems) - set(present) or systems[0] != reference:
        raise ValueError(f"venn3 needs three systems (reference first) present in the frame; got "
                         f"{', '.join(map(str, systems))} (the frame has {', '.join(present)}).")
    if systems != present:  # the region codes follow the frame's order: re-order them
        where_ = [present.index(s) for s in systems]
        counts = {"".join(code[k] for k in where_): c for code, c in counts.items()}
    n = sum(counts.values())
    aliases = labels_of(verdicts, labels)
    styles = system_styles(list(all_systems) if all_systems is not None else present, reference,
                           aliases)
    fig, ax = figure_and_axes(ax, at_least(ONE_COLUMN), 3.0)
    names = tuple(break_label(styles[s].label, 1.4, SMALL_FONT_SIZE + 1) for s in systems)
    diagram = _venn3(subsets=tuple(counts[r] for r in REGIONS3), set_labels=names,
                     set_colors=tuple(styles[s].color for s in systems), alpha=_ALPHA, ax=ax,
                     layout_algorithm=_Venn3Layout(fixed_subset_sizes=(1,) * 7),
                     subset_label_formatter=lambda count: _count_label(count, n))
    for region in REGIONS3:
        label = diagram.get_label_by_id(region)
        label.set_fontsize(SMALL_FONT_SIZE)
        label.set_gid(f"venn3-{region}")
    for system, label in zip(systems, diagram.set_labels):
        label.set_fontsize(SMALL_FONT_SIZE + 1)
        label.set_gid(f"venn3-set-{system}")
    for center, radius, system in zip(diagram.centers, diagram.radii, systems):
        ax.add_patch(Circle(center.asarray(), radius, fill=False, edgecolor=styles[system].color,
                            lw=0.8))
    none = counts["000"]
    memory, augmented = (styles[s].label for s in systems[1:])
    tax = (f"tax (only {styles[reference].label} answers): {memory} {counts['100'] + counts['101']}, "
           f"{augmented} {counts['100'] + counts['110']}")
    below = ax.annotate(f"answered by none: {none} ({100 * none / n:.1f}%)", xy=(0.5, 0),
                        xycoords=(ax.transAxes, diagram.set_labels[2]), xytext=(0, -2),
                        textcoords="offset points", ha="center", va="top", fontsize=SMALL_FONT_SIZE,
                        gid="venn3-none")
    ax.annotate(wrap(tax, fig.get_size_inches()[0] - 0.2), xy=(0.5, 0), xycoords=below, xytext=(0, -1),
                textcoords="offset points", ha="center", va="top", fontsize=SMALL_FONT_SIZE, gid="venn3-tax")
    ax.set_title(f"n = {n} queries", fontsize=SMALL_FONT_SIZE + 1, gid="venn3-title")
    key = "\n".join(t for t in (name_key({s: styles[s].label for s in systems}, aliases),
                                 *warning_lines(verdicts, aliases)) if t)
    if key:
        fig.supxlabel(wrap(key, fig.get_size_inches()[0] - 0.12), fontsize=SMALL_FONT_SIZE,
                      gid="venn3-names")
    return fig
