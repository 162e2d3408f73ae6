"""Venn diagrams of memory benefit and memory tax against a reference (SPEC §2, §8).

One panel per memory system: the grey circle holds the queries the reference answers, the
coloured circle the queries the system answers. The reference-only region is the **tax**, the
system-only region the **benefit**, the overlap **both**; each carries its count and its share of
the n aligned queries, "neither" is written under the panel, and the title gives the net
(benefit − tax) with the interval of the net rate. This is the Memory Tax review's Venn figure;
:func:`venn3` is its three-set version (reference, memory, memory + raw-source augmentation).
The functions only draw what :func:`memdiag._flows` computed.
"""

from __future__ import annotations

import math
import textwrap
import warnings
from collections.abc import Sequence
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
from memdiag.plots.style import (
    MINUS, ONE_COLUMN, REFERENCE_COLOR, SMALL_FONT_SIZE, TWO_COLUMN, SystemStyle, figure_and_axes,
    new_figure, renderer, require, signed, styled, system_styles,
)

#: Columns of the flows frame that :func:`venn` draws.
FLOW_COLUMNS: tuple[str, ...] = ("system", "reference", "n", "both", "benefit", "tax", "neither",
                                 "net", "net_rate", "net_rate_ci_low", "net_rate_ci_high")
#: Region ids of matplotlib-venn for the two-set diagram (reference = set A, system = set B).
REGIONS: dict[str, str] = {"tax": "10", "benefit": "01", "both": "11"}

# Panel geometry in inches: title band, diagram, band under it (set labels and "neither").
_TITLE_H = 0.36
_DIAGRAM_H = 1.3
_BELOW_H = 0.34
_SIDE = 0.06
_ALPHA = 0.4
#: A faint white box behind region counts keeps them readable over hatching.
_LABEL_BOX = {"boxstyle": "round,pad=0.1", "facecolor": "white", "alpha": 0.6, "edgecolor": "none"}


#: Longest system name shown in full under a circle / in a panel title; longer ones are shortened.
_SET_LABEL_CHARS = 13
_TITLE_CHARS = 30


def short_name(name: str, limit: int) -> str:
    """``name`` shortened in the middle with an ellipsis to at most ``limit`` characters.

    >>> short_name("rag_observation_pgvector", 13)
    'rag_ob…vector'
    """
    if len(name) <= limit:
        return name
    head = (limit - 1) // 2
    return f"{name[:head]}…{name[len(name) - (limit - 1 - head):]}"


def _count_label(count: float, n: int) -> str:
    """``"258\\n13.0%"``: a region's count and its share of the n queries."""
    share = 100 * count / n if n else math.nan
    return f"{int(count)}\n{share:.1f}%"


def _title(name: str, row: pd.Series) -> str:
    """``"mem0\\nnet +22 (+1.1 pts [−0.8, +3.0])"`` (the interval is omitted when undefined)."""
    net = f"{int(row['net']):+d}".replace("-", MINUS)
    rate = signed(row["net_rate"])
    low, high = row["net_rate_ci_low"], row["net_rate_ci_high"]
    interval = "" if pd.isna(low) or pd.isna(high) else \
        f" [{signed(low)}, {signed(high)}]"
    return f"{short_name(name, _TITLE_CHARS)}\nnet {net} ({rate} pts{interval})"


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
        ncols = 1 if k == 1 else 2 if k in (2, 4) else 3
    return ncols, math.ceil(k / ncols)


def _key(reference: str, width: float, level: float) -> str:
    text = (f"Grey circle: queries {reference} answers; coloured circle: queries the system "
            f"answers. Grey only = tax, coloured only = benefit, overlap = both; count and % of "
            f"the n queries. Title: net = benefit {MINUS} tax, and net / n in points with its "
            f"{level:.0%} interval.")
    return "\n".join(textwrap.wrap(text, width=int(width * 72 / (0.56 * SMALL_FONT_SIZE)) - 4))


@dataclass
class _Panel:
    """One drawn two-set panel: its axes, venn diagram, region labels and the labels already
    written beside the diagram (empty regions of a weighted layout)."""

    ax: Axes
    diagram: object
    labels: dict[str, Text]
    beside: set[str]


def _panel(ax: Axes, name: str, row: pd.Series, reference: str, style: SystemStyle,
           normalize_to: float | None) -> _Panel:
    """Draw one two-set panel (weighted when ``normalize_to`` is given)."""
    n = int(row["n"])
    subsets = (int(row["tax"]), int(row["benefit"]), int(row["both"]))
    weighted = normalize_to is not None and sum(subsets) > 0
    layout = _Venn2Layout(normalize_to=normalize_to) if weighted else \
        _Venn2Layout(fixed_subset_sizes=(1, 1, 1))
    diagram = _venn2(subsets=subsets, set_labels=(short_name(reference, _SET_LABEL_CHARS),
                                                  short_name(name, _SET_LABEL_CHARS)),
                     set_colors=(REFERENCE_COLOR, style.color), alpha=_ALPHA, ax=ax,
                     layout_algorithm=layout,
                     subset_label_formatter=lambda count: _count_label(count, n))
    for region in ("01", "11"):
        patch = diagram.get_patch_by_id(region)
        if patch is not None and style.hatch:
            patch.set_hatch(style.hatch)
            patch.set_edgecolor(style.color)  # the hatch takes the edge colour; the edge is
            patch.set_linewidth(0)             # not drawn (the circle outline is)
    for center, radius, color in zip(diagram.centers, diagram.radii, (REFERENCE_COLOR, style.color)):
        ax.add_patch(Circle(center.asarray(), radius, fill=False, edgecolor=color, lw=0.8))
    labels, beside = {}, set()
    for flow, region in REGIONS.items():
        label = diagram.get_label_by_id(region)
        if label is None:  # an empty region of a weighted diagram: write its 0 beside it
            label = _side_label(ax, diagram, flow, _count_label(0, n))
            beside.add(flow)
        label.set_fontsize(SMALL_FONT_SIZE)
        label.set_gid(f"venn-{name}-{flow}")
        if style.hatch:
            label.set_bbox(_LABEL_BOX)
        labels[flow] = label
    _space_set_labels(diagram)
    for which, label in zip(("reference", "system"), diagram.set_labels):
        label.set_fontsize(SMALL_FONT_SIZE)
        label.set_gid(f"venn-{name}-set-{which}")
    lowest = min(diagram.set_labels, key=lambda t: t.get_position()[1])
    d = int(row["neither"])
    ax.annotate(f"neither: {d} ({100 * d / n if n else math.nan:.1f}%)", xy=(0.5, 0),
                xycoords=(ax.transAxes, lowest), xytext=(0, -1), textcoords="offset points",
                ha="center", va="top", fontsize=SMALL_FONT_SIZE, gid=f"venn-{name}-neither")
    ax.set_title(_title(name, row), fontsize=SMALL_FONT_SIZE + 1, pad=3, gid=f"venn-{name}-title")
    return _Panel(ax, diagram, labels, beside)


def _space_set_labels(diagram) -> None:
    """Keep the two set names apart when the circles nearly coincide (weighted layouts)."""
    (ax_, _), (bx, _) = (c.asarray() for c in diagram.centers)
    gap = 0.15 * max(diagram.radii)
    mid = (ax_ + bx) / 2
    left, right = diagram.set_labels
    left.set_x(min(ax_, mid - gap))
    right.set_x(max(bx, mid + gap))


def _side_label(ax: Axes, diagram, flow: str, text: str) -> Text:
    """A region label outside the circles: tax left, benefit right, both above the overlap."""
    (ax_, ay), (bx, by) = (c.asarray() for c in diagram.centers)
    ra, rb = diagram.radii
    gap = 0.08 * max(ra, rb)
    if flow == "tax":
        return ax.text(min(ax_ - ra, bx - rb) - gap, ay, text, ha="right", va="center")
    if flow == "benefit":
        return ax.text(max(ax_ + ra, bx + rb) + gap, by, text, ha="left", va="center")
    return ax.text((ax_ + ra + bx - rb) / 2, max(ay + ra, by + rb) + gap, text, ha="center",
                   va="bottom")


def _fits(ax: Axes, diagram, flow: str, box) -> bool:
    """Whether the label box lies inside its region (inside / outside each circle as required)."""
    corners = ax.transData.inverted().transform(
        [(box.x0, box.y0), (box.x0, box.y1), (box.x1, box.y0), (box.x1, box.y1)])
    inside = [np.hypot(*(corners - c.asarray()).T) < r for c, r in zip(diagram.centers, diagram.radii)]
    want = {"tax": (True, False), "benefit": (False, True), "both": (True, True)}[flow]
    return all(np.all(side == wanted) for side, wanted in zip(inside, want))


def _move_outside(panel: _Panel, flow: str) -> None:
    """Move a region label that does not fit its region beside the diagram, with a leader line."""
    label = panel.labels[flow]
    target = label.get_position()
    moved = _side_label(panel.ax, panel.diagram, flow, label.get_text())
    label.set_position(moved.get_position())
    label.set_horizontalalignment(moved.get_horizontalalignment())
    label.set_verticalalignment(moved.get_verticalalignment())
    moved.remove()
    panel.ax.annotate("", xy=target, xytext=label.get_position(),
                      arrowprops={"arrowstyle": "-", "lw": 0.5, "color": "0.3", "shrinkA": 0,
                                  "shrinkB": 0})


def _fit_labels(fig: Figure, panels: Sequence[_Panel]) -> None:
    """A label that does not fit its region (a thin crescent, a small overlap of a weighted
    layout) or that covers another label moves beside the diagram with a leader line."""
    r = renderer(fig)
    for panel in panels:
        boxes = {flow: label.get_window_extent(r) for flow, label in panel.labels.items()}
        for flow in ("tax", "benefit", "both"):
            if flow in panel.beside:
                continue
            crowded = any(overlap_area(boxes[flow], boxes[o]) > 0 for o in boxes if o != flow)
            if crowded or not _fits(panel.ax, panel.diagram, flow, boxes[flow]):
                _move_outside(panel, flow)
                boxes[flow] = panel.labels[flow].get_window_extent(r)


def _shared_limits(panels: Sequence[_Panel]) -> None:
    """One data window for every weighted panel, so equal areas mean equal counts."""
    half_w = half_h = 0.0
    for panel in panels:
        for c, r in zip(panel.diagram.centers, panel.diagram.radii):
            half_w = max(half_w, abs(c.x) + r)
            half_h = max(half_h, abs(c.y) + r)
    pad = 0.05 * half_w
    for panel in panels:
        panel.ax.set_xlim(-1.45 * half_w, 1.45 * half_w)
        panel.ax.set_ylim(-half_h - pad, half_h + pad)


@styled
def venn(
    flows_frame: pd.DataFrame,
    reference: str | None = None,
    systems: Sequence[str] | None = None,
    shared_scale: bool = False,
    ncols: int | None = None,
    fig: Figure | None = None,
    all_systems: Sequence[str] | None = None,
) -> Figure:
    """Benefit/tax Venn diagrams, one panel per memory system against the reference.

    Parameters
    ----------
    flows_frame
        The result of :func:`memdiag._flows`: one row per system with ``system, reference, n,
        both, benefit, tax, neither, net, net_rate, net_rate_ci_low, net_rate_ci_high`` (rates
        in points). A frame computed ``by=`` a column must be cut to one group first.
    reference
        Which reference to draw when the frame holds several (default: its only one).
    systems
        The systems to draw, in panel order (default: every system of the frame, in order).
    shared_scale
        ``False`` (default): every panel has the same unweighted layout and the numbers carry the
        sizes. ``True``: area-weighted circles on one common scale, so areas compare across
        panels (the circles of the panel with most answered queries fill their cell).
    ncols
        Panels per row (default 1 for one system, 2 for two or four, else 3).
    fig
        A figure to draw into (its size is kept); default a new figure one column wide for a
        single panel and two columns wide otherwise.
    all_systems
        The analysis' full ordered system list, which fixes the colours
        (:func:`memdiag.plots.style.system_styles`); default the frame's systems.

    Returns
    -------
    matplotlib.figure.Figure
        Each region label is ``"count\\n share%"`` (share of n); the title is
        ``"system\\nnet +b−c (net rate pts [interval])"``. Artist ids (also in the SVG):
        ``venn-<system>-tax|benefit|both|neither|title``.

    Notes
    -----
    Regions: reference only = tax c, system only = benefit b, overlap = both a, outside = neither
    d; net = b − c, net rate (b − c)/n in points. SPEC §2 and §8; Memory Tax review, Venn figure.

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
    names = list(block["system"]) if systems is None else list(systems)
    unknown = [s for s in names if s not in set(block["system"])]
    if unknown or not names:
        raise ValueError(f"no flows for system(s) {', '.join(unknown) or '(none given)'} against "
                         f"'{reference}' (the frame has {', '.join(block['system'])}).")
    rows = block.set_index("system")
    styles = system_styles(list(all_systems) if all_systems is not None
                           else [reference, *block["system"]], reference)
    ncols, nrows = _grid(len(names), ncols)
    width = ONE_COLUMN if ncols == 1 else TWO_COLUMN
    key = _key(reference, fig.get_size_inches()[0] if fig is not None else width,
               flows_frame.attrs.get("confidence_level", 0.95))
    key_h = (key.count("\n") + 1) * SMALL_FONT_SIZE * 1.25 / 72 + 0.08
    if fig is None:
        fig = new_figure(width, nrows * (_TITLE_H + _DIAGRAM_H + _BELOW_H) + key_h, constrained=False)
    width, height = fig.get_size_inches()
    cell_w, cell_h = width / ncols, (height - key_h) / nrows
    if cell_h - _TITLE_H - _BELOW_H < 0.5:
        raise ValueError(f"the figure is too small for {nrows} rows of Venn panels; make it at "
                         f"least {nrows * (_TITLE_H + _BELOW_H + 0.5) + key_h:.1f} in tall.")
    unions = {s: int(rows.loc[s, "both"] + rows.loc[s, "benefit"] + rows.loc[s, "tax"]) for s in names}
    largest = max(unions.values())
    panels = []
    for i, name in enumerate(names):
        if name not in styles:
            raise ValueError(f"system '{name}' is not in all_systems ({', '.join(all_systems)}).")
        r, c = divmod(i, ncols)
        ax = fig.add_axes(((c * cell_w + _SIDE) / width,
                           (key_h + (nrows - 1 - r) * cell_h + _BELOW_H) / height,
                           (cell_w - 2 * _SIDE) / width, (cell_h - _TITLE_H - _BELOW_H) / height))
        scale = unions[name] / largest if shared_scale and largest else None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "circles have zero area" on empty sets
            panels.append(_panel(ax, name, rows.loc[name], reference, styles[name], scale))
    if shared_scale:
        _shared_limits(panels)
    fig.text(0.5, 0.04 / height, key, ha="center", va="bottom", fontsize=SMALL_FONT_SIZE,
             gid="venn-key")
    _fit_labels(fig, panels)
    return fig


#: Region ids of the three-set diagram and the membership (reference, memory, augmented) of each.
REGIONS3: tuple[str, ...] = ("100", "010", "110", "001", "101", "011", "111")


@styled
def venn3(
    verdicts: pd.DataFrame,
    systems: Sequence[str] | None = None,
    reference: str | None = None,
    ax: Axes | None = None,
    all_systems: Sequence[str] | None = None,
) -> Figure:
    """Three-set Venn of correct queries: reference, memory, memory + raw-source augmentation.

    Parameters
    ----------
    verdicts
        A tidy frame of per-query correctness with columns ``query_id, system, correct``
        (``correct`` 0/1 or bool; one row per system and query, judge repetitions already
        combined, e.g. ``correct = mean score > 0.5``) for exactly the three systems, each on the
        same queries.
    systems
        ``(reference, memory, augmented)``: the circle order (default: ``reference`` first, then
        the other two in order of appearance).
    reference
        The reference system (grey); default ``systems[0]`` or the first system of the frame.
    ax
        Axes to draw on (default: a new one-column figure).
    all_systems
        The analysis' ordered system list fixing the colours (default: the frame's systems).

    Returns
    -------
    matplotlib.figure.Figure
        Seven region labels ``"count\\n share%"`` with ids ``venn3-<abc>`` where ``abc`` are the
        memberships in (reference, memory, augmented), e.g. ``venn3-010`` = memory only; the
        queries no system answers are written under the diagram (``venn3-none``).

    Notes
    -----
    The layout is unweighted (every region the same size), so small regions stay readable; the
    numbers carry the sizes. Memory Tax review: source augmentation (SPEC §8).

    Examples
    --------
    >>> v = pd.DataFrame({"query_id": list("abcd") * 3,
    ...                   "system": ["rag"] * 4 + ["mem"] * 4 + ["mem+raw"] * 4,
    ...                   "correct": [1, 1, 0, 0, 1, 0, 1, 0, 1, 1, 1, 0]})
    >>> fig = venn3(v, reference="rag")
    >>> [t.get_text() for t in fig.axes[0].texts if t.get_gid() == "venn3-111"]
    ['1\\n25.0%']
    """
    require(verdicts, ("query_id", "system", "correct"), "the verdicts frame")
    present = list(dict.fromkeys(verdicts["system"]))
    if systems is None:
        reference = reference if reference is not None else present[0]
        systems = [reference, *[s for s in present if s != reference]]
    systems = list(systems)
    reference = systems[0] if reference is None else reference
    if len(systems) != 3 or set(systems) - set(present) or systems[0] != reference:
        raise ValueError(f"venn3 needs three systems (reference first) present in the frame; got "
                         f"{', '.join(map(str, systems))} (the frame has {', '.join(present)}).")
    table = verdicts.pivot_table(index="query_id", columns="system", values="correct",
                                 aggfunc="count")[systems]
    if (table != 1).to_numpy().any():
        raise ValueError("venn3 needs exactly one row per system and query (combine judge "
                         "repetitions first) and the same queries for all three systems.")
    wide = verdicts.pivot(index="query_id", columns="system", values="correct")[systems]
    values = wide.to_numpy(dtype=float)
    if not np.isin(values, (0.0, 1.0)).all():
        raise ValueError("column 'correct' must be 0/1 (or bool) per query.")
    member = values.astype(bool)
    n = len(member)
    codes = ["".join("1" if m else "0" for m in row) for row in member]
    counts = {region: codes.count(region) for region in REGIONS3}
    styles = system_styles(list(all_systems) if all_systems is not None else present, reference)
    fig, ax = figure_and_axes(ax, ONE_COLUMN, 3.0)
    diagram = _venn3(subsets=tuple(counts[r] for r in REGIONS3), set_labels=tuple(systems),
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
    none = codes.count("000")
    ax.annotate(f"answered by none: {none} ({100 * none / n:.1f}%)", xy=(0.5, 0),
                xycoords=(ax.transAxes, diagram.set_labels[2]), xytext=(0, -2),
                textcoords="offset points", ha="center", va="top", fontsize=SMALL_FONT_SIZE,
                gid="venn3-none")
    ax.set_title(f"n = {n} queries", fontsize=SMALL_FONT_SIZE + 1, gid="venn3-title")
    return fig
