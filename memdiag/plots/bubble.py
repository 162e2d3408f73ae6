"""Cost–accuracy bubble chart: cost or latency, accuracy with its interval, store size (SPEC §8).

Each system is a bubble at (cost, accuracy) with the accuracy interval as an error bar and, when
the systems table reports a memory-store size, an area proportional to it (else equal bubbles and
no size legend); the reference is grey with a dotted line at its accuracy; the Pareto front (no
other system is both cheaper and more accurate) is a step line. Labels sit next to their own
bubble; when they cannot all be placed without touching, the bubbles are numbered and a key names
them. Systems without a cost are listed under the plot, never dropped in silence. This is Figure 1
of the Memory Tax review (accuracy, token cost and store size on one plane). The function draws
the intervals :func:`memdiag.bootstrap` computed; it computes nothing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter
from matplotlib.transforms import Bbox

from memdiag.errors import VerdictError
from memdiag.plots._labels import FAR_RINGS, place_labels
from memdiag.plots._names import name_key
from memdiag.plots._reading import labels_of, level, warning_lines
from memdiag.plots.style import (
    ONE_COLUMN,
    REFERENCE_COLOR,
    REFERENCE_EDGE,
    SMALL_FONT_SIZE,
    TWO_COLUMN,
    add_note,
    at_least,
    break_label,
    figure_and_axes,
    note_height,
    renderer,
    require,
    styled,
    system_styles,
    text_size,
    tidy_axes,
)

#: Marker area (pt²) of the largest memory store, and of every bubble when no size is known.
MAX_AREA = 400.0
EQUAL_AREA = 70.0
#: Marker area (pt²) of a system whose store size is not reported (when others report one).
UNKNOWN_AREA = 25.0
#: Above this ratio of the largest to the smallest cost the x axis is logarithmic.
LOG_SPAN = 10.0
#: Cost columns tried, in order, when ``cost=None``.
COSTS: tuple[str, ...] = ("tokens_per_query", "cost_usd_per_query", "cost_usd", "total_tokens",
                          "latency_s_per_query", "latency_s", "latency_ms_per_query", "latency_ms")
#: How known columns are written on the axis.
AXIS_LABELS: dict[str, str] = {
    "tokens_per_query": "tokens per query", "tokens_used_per_query": "tokens per query",
    "total_tokens": "total tokens", "cost_usd": "cost (USD)",
    "cost_usd_per_query": "cost (USD per query)", "latency_s": "latency (s per query)",
    "latency_ms": "latency (ms per query)",
}
_UNITS = {"s": "s", "ms": "ms", "usd": "USD", "eur": "EUR", "tokens": "tokens", "h": "h",
          "min": "min"}


def axis_label(column: str) -> str:
    """How a cost column is written on the axis: ``latency_s_per_query`` → ``latency (s per
    query)``; ``what_unit[_per_x]`` in general, else the name with spaces.

    >>> [axis_label(c) for c in ("latency_s_per_query", "tokens_per_query", "cost_eur", "my_cost")]
    ['latency (s per query)', 'tokens per query', 'cost (EUR)', 'my cost']
    """
    if column in AXIS_LABELS:
        return AXIS_LABELS[column]
    match = re.fullmatch(r"([a-z]+)_([a-z]+)(?:_per_([a-z_]+))?", column)
    if match and match[2] in _UNITS:
        per = f" per {match[3].replace('_', ' ')}" if match[3] else ""
        return f"{match[1]} ({_UNITS[match[2]]}{per})"
    return column.replace("_", " ")


def human(value: float) -> str:
    """A compact number: ``950``, ``12k``, ``1.5M``, ``2G``.

    >>> [human(v) for v in (950, 12_000, 1_500_000, 2e9, 0.5)]
    ['950', '12k', '1.5M', '2G', '0.5']
    """
    for factor, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor:
            return f"{value / factor:.3g}{suffix}"
    return f"{value:.3g}"


def pareto_front(cost: np.ndarray, accuracy: np.ndarray) -> np.ndarray:
    """Indices of the Pareto front in order of cost: no other point is cheaper-or-equal and
    more accurate (ties in cost keep the most accurate).

    >>> pareto_front(np.array([1.0, 2.0, 3.0, 4.0]), np.array([50.0, 40.0, 60.0, 60.0])).tolist()
    [0, 2]
    """
    order = np.lexsort((-accuracy, cost))
    front, best = [], -math.inf
    for i in order:
        if accuracy[i] > best:
            front.append(int(i))
            best = accuracy[i]
    return np.array(front, dtype=int)


def _size_steps(largest: float) -> list[float]:
    """Up to three round store sizes for the legend: about the largest, a quarter, a sixteenth."""
    steps = []
    for fraction in (1, 1 / 4, 1 / 16):
        value = largest * fraction
        digits = 10 ** math.floor(math.log10(value))
        rounded = round(value / digits) * digits
        if rounded > 0 and rounded not in steps:
            steps.append(rounded)
    return steps


def _limits(values: np.ndarray, log: bool, pad: float) -> tuple[float, float]:
    if log:
        low, high = np.log10(values.min()), np.log10(values.max())
        span = max(high - low, 0.6)
        return 10 ** (low - pad * span), 10 ** (high + pad * span)
    low, high = float(values.min()), float(values.max())
    span = high - low if high > low else max(abs(high), 1.0)
    return low - pad * span, high + pad * span


def _columns(systems_table: pd.DataFrame, cost: str | None, size: str | None) -> tuple[str, str | None]:
    """The cost column (``None``: the first of :data:`COSTS` with a value) and the size column
    (``None`` when absent or empty: equal bubbles)."""
    require(systems_table, ("system",), "the systems table")
    if cost is None:
        cost = next((c for c in COSTS if c in systems_table and systems_table[c].notna().any()), None)
        if cost is None:
            raise VerdictError(f"the systems table has no cost column ({', '.join(COSTS)}); it has "
                               f"{', '.join(map(str, systems_table.columns))}. Name one with cost=... "
                               "(CLI: --cost COLUMN).")
    elif cost not in systems_table:
        raise VerdictError(f"the systems table has no column '{cost}' (it has "
                           f"{', '.join(map(str, systems_table.columns))}). Choose the x axis with "
                           "cost=... (CLI: --cost COLUMN).")
    if size is not None and (size not in systems_table or systems_table[size].notna().sum() == 0):
        size = None
    return cost, size


def _merge(scores: pd.DataFrame, systems_table: pd.DataFrame, cost: str,
           size: str | None) -> tuple[pd.DataFrame, list[str]]:
    """The systems to draw (a cost > 0 or any cost on a linear axis) and those without a cost."""
    require(scores, ("system", "estimate", "ci_low", "ci_high"), "the scores frame")
    columns = ["system", cost] + ([size] if size else [])
    merged = scores[["system", "estimate", "ci_low", "ci_high"]].merge(
        systems_table[columns].drop_duplicates("system"), on="system", how="left")
    merged[cost] = pd.to_numeric(merged[cost], errors="coerce")
    if size:
        merged[size] = pd.to_numeric(merged[size], errors="coerce")
    lacking = merged.loc[merged[cost].isna(), "system"].tolist()
    return merged[merged[cost].notna()].reset_index(drop=True), lacking


def _size_legend(ax: Axes, sizes: np.ndarray, largest: float, column: str) -> None:
    """Reference bubbles of round store sizes, right of the axes (areas as in the plot)."""
    handles = [Line2D([], [], ls="", marker="o", markersize=math.sqrt(MAX_AREA * v / largest),
                      markerfacecolor="0.85", markeredgecolor="0.4", label=human(v))
               for v in _size_steps(largest)]
    if not np.isfinite(sizes).all():
        handles.append(Line2D([], [], ls="", marker="D", markersize=math.sqrt(UNKNOWN_AREA),
                              markerfacecolor="white", markeredgecolor="0.4",
                              label="not reported"))
    legend = Legend(ax, handles, [h.get_label() for h in handles], loc="center left",
                    bbox_to_anchor=(1.02, 0.5), borderaxespad=0, labelspacing=1.3,
                    title=column.replace("_", " ") + "\n(bubble area)", handlelength=2.0,
                    handletextpad=0.9, borderpad=0.6)
    ax.add_artist(legend)
    legend.set_clip_on(False)  # add_artist clips to the axes, which hides it from the layout


@styled
def bubble(
    scores_frame: pd.DataFrame,
    systems_table: pd.DataFrame,
    reference: str | None = None,
    cost: str | None = None,
    size: str | None = "store_size",
    ax: Axes | None = None,
    all_systems: Sequence[str] | None = None,
    *,
    labels: Mapping[str, str] | None = None,
) -> Figure:
    """Accuracy against cost (or latency), bubble area ∝ memory-store size, with the Pareto front.

    Parameters
    ----------
    scores_frame
        Per-system accuracy as from :func:`memdiag.bootstrap`: ``system, estimate, ci_low,
        ci_high`` in points.
    systems_table
        System-level facts keyed by ``system`` (SPEC §1): a cost column and, optionally, a size
        column; any subset of systems may lack either.
    reference
        The reference system: grey bubble, bold label, dotted line at its accuracy.
    cost
        Column of ``systems_table`` on x: tokens, money or latency per query (written e.g.
        "latency (s per query)", :func:`axis_label`). Default: the first of :data:`COSTS` the
        table has. The axis is logarithmic when the largest cost exceeds 10× the smallest (all
        costs > 0). Systems without a cost are listed under the plot.
    size
        Column giving the memory-store size (bubble area ∝ size, with a size legend). When the
        table lacks it or nobody reports one, the bubbles are equal and there is no size legend;
        a system without a size (when others have one) is a small hollow diamond.
    ax
        Axes to draw on (default: a new figure, one column wide for up to six systems, two
        columns beyond).
    all_systems
        The analysis' ordered system list fixing the colours (default: the frame's systems).
    labels
        Aliases ``{system: label}`` (default ``attrs["labels"]`` of the scores frame).

    Returns
    -------
    matplotlib.figure.Figure
        Artist ids: ``bubble-<system>`` (marker), ``bubble-errorbar-<system>``,
        ``bubble-label-<system>`` (its label, or its number when the labels did not fit),
        ``bubble-pareto``, ``bubble-notes``.

    Raises
    ------
    VerdictError
        The systems table has no such cost column, or no system has a cost.
    ValueError
        A scores frame without ``system, estimate, ci_low, ci_high``, a systems table without
        ``system``, or an alias in ``labels`` that is empty or shared by two systems.

    Notes
    -----
    The Pareto front holds every system that no cheaper (or equally cheap) system beats in
    accuracy, drawn as a step line (the best accuracy reachable at each cost, run on to the
    right edge).

    References
    ----------
    SPEC §8 (the cost–accuracy bubble) and SPEC §1.1 (the systems table); Memory Tax review,
    Figure 1.

    Examples
    --------
    >>> scores = pd.DataFrame({"system": ["raw-rag", "mem0", "zep"], "estimate": [80.0, 74.0, 78.0],
    ...                        "ci_low": [77.0, 71.0, 75.0], "ci_high": [83.0, 77.0, 81.0]})
    >>> facts = pd.DataFrame({"system": ["raw-rag", "mem0", "zep"],
    ...                       "tokens_per_query": [4000, 1500, 30000], "store_size": [2e6, 3e5, 8e5]})
    >>> fig = bubble(scores, facts, reference="raw-rag")
    >>> fig.axes[0].get_xscale(), fig.axes[0].get_xlabel()
    ('log', 'tokens per query (log scale)')
    """
    cost, size = _columns(systems_table, cost, size)
    data, lacking = _merge(scores_frame, systems_table, cost, size)
    if data.empty:
        raise VerdictError(f"no system of the scores frame has a '{cost}' in the systems table "
                           f"(systems without one: {', '.join(map(str, lacking))}).")
    names = data["system"].tolist()
    aliases = labels_of(scores_frame, labels)
    every = list(all_systems) if all_systems is not None else list(scores_frame["system"])
    styles = system_styles(every, reference, aliases)
    x = data[cost].to_numpy(dtype=float)
    y = data["estimate"].to_numpy(dtype=float)
    low, high = data["ci_low"].to_numpy(dtype=float), data["ci_high"].to_numpy(dtype=float)
    log = bool((x > 0).all() and x.max() > LOG_SPAN * x.min())
    sizes = data[size].to_numpy(dtype=float) if size else np.full(len(data), np.nan)
    largest = float(np.nanmax(sizes)) if size else 1.0
    areas = (np.where(np.isfinite(sizes), MAX_AREA * sizes / largest, UNKNOWN_AREA) if size
             else np.full(len(data), EQUAL_AREA))
    notes = [f"Bars: {level(scores_frame)}s of accuracy."]
    if lacking:
        shown = ", ".join(styles[s].label if s in styles else str(s) for s in lacking)
        notes.append(f"No {axis_label(cost)} for {shown}: not drawn.")
    if not size:
        notes.append("Equal bubbles: no store size reported.")

    wide = len(data) > 6 or max(text_size(styles[s].label)[0] for s in names) > 1.6
    own_figure = ax is None
    width = at_least(TWO_COLUMN if wide else ONE_COLUMN)
    fig, ax = figure_and_axes(ax, width, 3.6 if wide else 3.0)
    tidy_axes(ax)
    if log:
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: human(v)))
    ax.set_xlim(*_limits(x, log, 0.16))
    y_span = np.concatenate([low[np.isfinite(low)], high[np.isfinite(high)], y])
    ax.set_ylim(*_limits(y_span, False, 0.14))
    ax.set_xlabel(axis_label(cost) + (" (log scale)" if log else ""))
    ax.set_ylabel(f"{scores_frame.attrs.get('metric', 'accuracy')} (%)")

    front = pareto_front(x, y)
    front_x = np.append(x[front], ax.get_xlim()[1])  # the best accuracy stays reachable at
    front_y = np.append(y[front], y[front[-1]])      # any higher cost: run on to the edge
    ax.step(front_x, front_y, where="post", color="0.35", lw=0.8, ls="--", zorder=1,
            gid="bubble-pareto")
    handles = [Line2D([], [], color="0.35", lw=0.8, ls="--", label="Pareto front")]
    if reference in names:
        ax.axhline(y[names.index(reference)], color=REFERENCE_COLOR, lw=0.8, ls=":", zorder=0)
        handles.append(Line2D([], [], color=REFERENCE_COLOR, lw=0.8, ls=":",
                              label=break_label(f"{styles[reference].label} accuracy", width / 2)))
    for i, name in enumerate(names):
        color = styles[name].color
        is_ref = name == reference
        known = np.isfinite(sizes[i]) or not size
        ax.errorbar(x[i], y[i], yerr=[[y[i] - low[i]], [high[i] - y[i]]], fmt="none",
                    ecolor=REFERENCE_EDGE if is_ref else color, elinewidth=0.9, capsize=2,
                    capthick=0.9, zorder=4, gid=f"bubble-errorbar-{name}")
        ax.scatter([x[i]], [y[i]], s=areas[i], marker="o" if known else "D",
                   facecolor=color if known else "white", alpha=0.75 if known else 1.0,
                   edgecolor=REFERENCE_EDGE if is_ref else color,
                   linewidth=1.2 if is_ref else 0.8, zorder=3, gid=f"bubble-{name}")
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncols=2,
              borderaxespad=0, handlelength=2.2)
    if size:
        _size_legend(ax, sizes, largest, size)
    order = sorted(range(len(names)), key=lambda i: (names[i] != reference, -y[i], x[i]))
    key = "; ".join(f"{k + 1} = {styles[names[i]].label}" for k, i in enumerate(order)) + "."
    notes += [name_key({s: styles[s].label for s in names}, aliases), *warning_lines(scores_frame, aliases)]
    plot_height = fig.get_size_inches()[1]
    if own_figure:
        _reserve(fig, plot_height, notes)
    if _label(fig, ax, [names[i] for i in order], styles, reference,
              *(v[order] for v in (x, y, low, high, areas)), front_x, front_y):
        notes.insert(0, key)
        if own_figure:  # the axes keep their size in inches, so the labels keep their places
            _reserve(fig, plot_height, notes)
            renderer(fig)
    if own_figure:
        fig.set_layout_engine("none")  # freeze the layout the labels were placed in
        add_note(fig, notes, gid="bubble-notes")
    return fig


def _reserve(fig: Figure, plot_height: float, notes: Sequence[str]) -> None:
    """Make the figure ``plot_height`` inches plus the notes' height, the constrained layout
    keeping the room under the plot for the notes."""
    width = fig.get_size_inches()[0]
    extra = note_height(notes, width)
    height = plot_height + extra
    fig.set_size_inches(width, height)
    fig.get_layout_engine().set(rect=(0, extra / height, 1, 1 - extra / height))


def _label(fig, ax, names, styles, reference, x, y, low, high, areas, front_x, front_y) -> bool:
    """Labels next to their bubbles (``names`` in placing order); when they do not all fit, the
    bubbles' numbers in that order instead. Returns whether numbers were used."""
    r = renderer(fig)
    points = ax.transData.transform(np.column_stack([x, y]))
    radii = np.sqrt(areas) / 2 * r.points_to_pixels(1.0)
    lows = ax.transData.transform(np.column_stack([x, low]))
    highs = ax.transData.transform(np.column_stack([x, high]))
    cap = r.points_to_pixels(2.0)
    obstacles = [Bbox.from_extents(px - rad, py - rad, px + rad, py + rad)
                 for (px, py), rad in zip(points, radii)]
    obstacles += [Bbox.from_extents(lx - cap, ly, lx + cap, hy)
                  for (lx, ly), (_, hy) in zip(lows, highs) if np.isfinite(ly) and np.isfinite(hy)]
    steps = ax.transData.transform(np.column_stack([front_x, front_y]))
    obstacles += [Bbox.from_extents(x0, y0 - cap / 2, x1, y0 + cap / 2)  # the Pareto step line
                  for (x0, y0), (x1, _) in zip(steps[:-1], steps[1:])]
    weights = [{"fontweight": "bold" if name == reference else "normal"} for name in names]
    gids = [f"bubble-label-{name}" for name in names]
    xy = np.column_stack([x, y])
    placed, clash = place_labels(ax, r, xy, radii, [styles[name].label for name in names],
                                 obstacles, gids, weights, fontsize=SMALL_FONT_SIZE)
    if clash:
        for annotation in placed:
            annotation.remove()
        place_labels(ax, r, xy, radii, [str(k + 1) for k in range(len(names))], obstacles, gids,
                     weights, rings=FAR_RINGS, fontsize=SMALL_FONT_SIZE)
    return clash
