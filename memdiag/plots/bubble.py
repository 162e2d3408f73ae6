"""Cost–accuracy bubble chart: token cost, accuracy with its interval, memory-store size (SPEC §8).

Each system is a bubble at (cost, accuracy) with the accuracy interval as an error bar and an
area proportional to its memory-store size; the reference is grey with a black edge and a dotted
line at its accuracy; the Pareto front (no other system is both cheaper and more accurate) is a
step line. This is Figure 1 of the Memory Tax review (accuracy, token cost and store size on one
plane). The function draws the intervals :func:`memdiag.bootstrap` computed; it computes nothing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter
from matplotlib.transforms import Bbox

from memdiag.plots._labels import place_labels
from memdiag.plots.style import (
    ONE_COLUMN, REFERENCE_COLOR, SMALL_FONT_SIZE, TWO_COLUMN, figure_and_axes, renderer, require,
    styled, system_styles, tidy_axes,
)

#: Marker area (pt²) of the largest memory store.
MAX_AREA = 400.0
#: Marker area (pt²) of a system whose store size is not reported.
UNKNOWN_AREA = 25.0
#: Above this ratio of the largest to the smallest cost the x axis is logarithmic.
LOG_SPAN = 10.0


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


def _merge(scores: pd.DataFrame, systems_table: pd.DataFrame, cost: str,
           size: str | None) -> pd.DataFrame:
    require(scores, ("system", "estimate", "ci_low", "ci_high"), "the scores frame")
    require(systems_table, ("system", cost) + ((size,) if size else ()), "the systems table")
    columns = ["system", cost] + ([size] if size else [])
    merged = scores[["system", "estimate", "ci_low", "ci_high"]].merge(
        systems_table[columns].drop_duplicates("system"), on="system", how="left")
    lacking = merged.loc[merged[cost].isna(), "system"].tolist()
    if lacking:
        raise ValueError(f"the systems table gives no '{cost}' for {', '.join(lacking)}.")
    return merged


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
    cost: str = "tokens_per_query",
    size: str | None = "store_size",
    ax: Axes | None = None,
    all_systems: Sequence[str] | None = None,
) -> Figure:
    """Accuracy against token cost, bubble area ∝ memory-store size, with the Pareto front.

    Parameters
    ----------
    scores_frame
        Per-system accuracy as from :func:`memdiag.bootstrap`: ``system, estimate, ci_low,
        ci_high`` in points.
    systems_table
        System-level facts keyed by ``system`` (SPEC §1): the ``cost`` column and, optionally,
        the ``size`` column.
    reference
        The reference system: grey bubble with a black edge, bold label, dotted line at its
        accuracy.
    cost
        Column of ``systems_table`` on x (e.g. ``tokens_per_query`` or total tokens); the axis
        is logarithmic when the largest cost exceeds 10× the smallest (all costs > 0).
    size
        Column giving the memory-store size (bubble area ∝ size, with a size legend); ``None``
        draws equal bubbles. A system without a size is drawn as a small hollow marker.
    ax
        Axes to draw on (default: a new figure, one column wide for up to six systems, two
        columns beyond).
    all_systems
        The analysis' ordered system list fixing the colours (default: the frame's systems).

    Returns
    -------
    matplotlib.figure.Figure
        Artist ids: ``bubble-<system>`` (marker), ``bubble-errorbar-<system>``,
        ``bubble-label-<system>``, ``bubble-pareto``.

    Notes
    -----
    The Pareto front holds every system that no cheaper (or equally cheap) system beats in
    accuracy, drawn as a step line (the best accuracy reachable at each cost, run on to the
    right edge). Memory Tax review,
    Figure 1; SPEC §8.

    Examples
    --------
    >>> scores = pd.DataFrame({"system": ["raw-rag", "mem0", "zep"], "estimate": [80.0, 74.0, 78.0],
    ...                        "ci_low": [77.0, 71.0, 75.0], "ci_high": [83.0, 77.0, 81.0]})
    >>> facts = pd.DataFrame({"system": ["raw-rag", "mem0", "zep"],
    ...                       "tokens_per_query": [4000, 1500, 30000], "store_size": [2e6, 3e5, 8e5]})
    >>> fig = bubble(scores, facts, reference="raw-rag")
    >>> fig.axes[0].get_xscale()
    'log'
    """
    data = _merge(scores_frame, systems_table, cost, size)
    names = data["system"].tolist()
    styles = system_styles(list(all_systems) if all_systems is not None else names, reference)
    x = data[cost].to_numpy(dtype=float)
    y = data["estimate"].to_numpy(dtype=float)
    low, high = data["ci_low"].to_numpy(dtype=float), data["ci_high"].to_numpy(dtype=float)
    log = bool((x > 0).all() and x.max() > LOG_SPAN * x.min())
    sizes = data[size].to_numpy(dtype=float) if size else np.ones(len(data))
    largest = np.nanmax(sizes) if np.isfinite(sizes).any() else 1.0
    areas = np.where(np.isfinite(sizes), MAX_AREA * sizes / largest, UNKNOWN_AREA)

    wide = len(data) > 6
    own_figure = ax is None
    fig, ax = figure_and_axes(ax, TWO_COLUMN if wide else ONE_COLUMN, 3.6 if wide else 3.0)
    tidy_axes(ax)
    if log:
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: human(v)))
    ax.set_xlim(*_limits(x, log, 0.16))
    y_span = np.concatenate([low[np.isfinite(low)], high[np.isfinite(high)], y])
    ax.set_ylim(*_limits(y_span, False, 0.14))
    ax.set_xlabel(cost.replace("_", " ") + (" (log scale)" if log else ""))
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
                              label=f"{reference} accuracy"))
    for i, name in enumerate(names):
        style = styles[name]
        is_ref = name == reference
        known = np.isfinite(sizes[i])
        ax.errorbar(x[i], y[i], yerr=[[y[i] - low[i]], [high[i] - y[i]]], fmt="none",
                    ecolor="black" if is_ref else style.color, elinewidth=0.9, capsize=2,
                    capthick=0.9, zorder=4, gid=f"bubble-errorbar-{name}")
        ax.scatter([x[i]], [y[i]], s=areas[i], marker="o" if known else "D",
                   facecolor=style.color if known else "white", alpha=0.75 if known else 1.0,
                   edgecolor="black" if is_ref else style.color,
                   linewidth=1.2 if is_ref else 0.8, hatch=style.hatch or None, zorder=3,
                   gid=f"bubble-{name}")
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncols=2,
              borderaxespad=0, handlelength=2.2)
    if size:
        _size_legend(ax, sizes, largest, size)

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
    order = sorted(range(len(names)), key=lambda i: (names[i] != reference, -y[i], x[i]))
    place_labels(ax, r, np.column_stack([x, y])[order], radii[order], [names[i] for i in order],
                 obstacles, [f"bubble-label-{names[i]}" for i in order],
                 [{"fontweight": "bold" if names[i] == reference else "normal"} for i in order],
                 fontsize=SMALL_FONT_SIZE)
    if own_figure:
        fig.set_layout_engine("none")  # freeze the layout the labels were placed in
    return fig
