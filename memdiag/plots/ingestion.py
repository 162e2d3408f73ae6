"""Cumulative sequential ingestion time per system, item by item (Raw-RAG paper Figure 1 right).

One line per system: the number of history items ingested on x, the cumulative time on y (hours,
minutes or seconds, whichever suits the largest total; a logarithmic axis when the final totals
span more than 10×, as they do between raw retrieval and memory systems). Each line is labelled
at its end with the system and its total, the labels spaced so that none overlaps; a run that
stopped before the last item ends in a cross and its label says where it stopped. The reference is
grey. The curves are those of :func:`memdiag.ingestion_curve`; nothing is recomputed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator

from memdiag.plots._names import name_key
from memdiag.plots._reading import labels_of, warning_lines
from memdiag.plots.style import (
    FONT_SIZE,
    ONE_COLUMN,
    SMALL_FONT_SIZE,
    TWO_COLUMN,
    add_note,
    at_least,
    break_label,
    new_figure,
    note_height,
    require,
    root_figure,
    styled,
    system_styles,
    text_size,
    tidy_axes,
)

#: Above this ratio of the largest to the smallest final total the y axis is logarithmic.
LOG_SPAN = 10.0
#: Units of the y axis: (name, seconds per unit, smallest largest-total that uses it).
UNITS: tuple[tuple[str, float, float], ...] = (("hours", 3600.0, 1800.0), ("minutes", 60.0, 120.0),
                                                ("seconds", 1.0, 0.0))
# Layout in inches: left margin (tick labels and y label), gap before the end labels, the room
# under the axes (tick labels and x label), the top margin.
_LEFT = 0.62
_GAP = 0.14
_BOTTOM = 0.42
_TOP = 0.08
_MIN_PLOT = (1.6, 1.5)
#: End labels wider than this (inches) are broken into lines after their separators.
_MAX_LABEL = 2.6


def unit_of(curve: pd.DataFrame) -> tuple[str, float]:
    """The y unit: hours when some total reaches half an hour, minutes from two minutes, else seconds.

    >>> unit_of(pd.DataFrame({"cumulative_s": [30.0, 4000.0]}))
    ('hours', 3600.0)
    """
    top = float(curve["cumulative_s"].max())
    return next((name, size) for name, size, floor in UNITS if top >= floor)


def total_text(seconds: float) -> str:
    """A total in its own natural unit, three significant figures at most: hours from half an
    hour, minutes from two minutes, else seconds.

    >>> [total_text(v) for v in (43.2, 745.0, 11700.0, 97020.0)]
    ['43.2 s', '12.4 min', '3.25 h', '26.9 h']
    """
    name, size = next((name, size) for name, size, floor in UNITS if seconds >= floor)
    value = seconds / size
    digits = 2 if value < 10 else 1 if value < 100 else 0
    return f"{value:.{digits}f} {dict(hours='h', minutes='min', seconds='s')[name]}"


def _plain_number(value: float, _position=None) -> str:
    """Log-axis tick text without exponents: ``0.001``, ``0.1``, ``1``, ``10``."""
    return f"{value:.12g}"


def spread(wanted: np.ndarray, heights: np.ndarray, low: float, high: float, gap: float = 0.0) -> np.ndarray:
    """Centres of labels of the given ``heights`` as close to ``wanted`` as possible without
    overlapping (``gap`` apart), inside [low, high] when they fit: a deterministic push upwards
    from the lowest, then downwards from ``high`` if the top label went over.

    >>> spread(np.array([1.0, 1.05, 3.0]), np.array([0.2, 0.2, 0.2]), 0.0, 3.0).round(2).tolist()
    [1.0, 1.2, 2.9]
    """
    order = np.argsort(wanted, kind="stable")
    y = np.asarray(wanted, dtype=float)[order].copy()
    h = np.asarray(heights, dtype=float)[order]
    y = np.clip(y, low + h / 2, high - h / 2)
    for k in range(1, len(y)):
        y[k] = max(y[k], y[k - 1] + (h[k - 1] + h[k]) / 2 + gap)
    if len(y) and y[-1] + h[-1] / 2 > high:
        y[-1] = high - h[-1] / 2
        for k in range(len(y) - 2, -1, -1):
            y[k] = min(y[k], y[k + 1] - (h[k] + h[k + 1]) / 2 - gap)
    out = np.empty_like(y)
    out[order] = y
    return out


@styled
def ingestion(
    curve: pd.DataFrame,
    reference: str | None = None,
    ax: Axes | None = None,
    all_systems: Sequence[str] | None = None,
    *,
    labels: Mapping[str, str] | None = None,
    log: bool | None = None,
) -> Figure:
    """Cumulative ingestion time of each system against the number of items ingested.

    Parameters
    ----------
    curve
        :func:`memdiag.ingestion_curve` output: ``system, item, cumulative_s``.
    reference
        The reference system, drawn grey (usually raw-history RAG).
    ax
        Axes to draw on (the systems are then named in a legend). Default: a new figure, one
        column wide when the end labels fit, else two, tall enough for one label per system.
    all_systems
        The analysis' ordered system list fixing the colours (default: the curve's systems).
    labels
        Aliases ``{system: label}`` (default ``attrs["labels"]``); long names are shortened and
        listed under the plot.
    log
        Logarithmic y axis; default when the final totals span more than 10×.

    Returns
    -------
    matplotlib.figure.Figure
        Artist ids: ``ingestion-<system>`` (line), ``ingestion-label-<system>`` (end label, own
        figure only), ``ingestion-stop-<system>`` (the cross of a run that stopped early).

    Raises
    ------
    ValueError
        A curve without ``system, item, cumulative_s``, or an alias in ``labels`` that is empty or
        shared by two systems.

    Notes
    -----
    Cumulative time after k items = the sum of the first k item durations (sequential ingestion,
    one worker; Raw-RAG paper D.6). Each line is one run: there is no interval to draw.

    References
    ----------
    SPEC §8 (the ingestion curve) and SPEC §7.9 (sequential ingestion); Raw-RAG paper D.6 and
    Figure 1 right.

    Examples
    --------
    >>> c = pd.DataFrame({"system": ["rag"] * 3 + ["mem"] * 3, "item": [1, 2, 3] * 2,
    ...                   "cumulative_s": [60.0, 120.0, 180.0, 3600.0, 7200.0, 11700.0]})
    >>> fig = ingestion(c, reference="rag")
    >>> fig.axes[0].get_yscale(), [t.get_text() for t in fig.texts if t.get_gid() == "ingestion-label-mem"]
    ('log', ['mem  3.25 h'])
    """
    require(curve, ("system", "item", "cumulative_s"), "the ingestion curve")
    present = list(dict.fromkeys(curve["system"].astype(str)))
    aliases = labels_of(curve, labels)
    styles = system_styles(list(all_systems) if all_systems is not None else present, reference, aliases)
    unit, size = unit_of(curve)
    ends = curve.groupby("system", sort=False).agg(item=("item", "max"), total=("cumulative_s", "last"))
    ends = ends.loc[present]
    longest = int(ends["item"].max())
    finals = ends["total"].to_numpy(dtype=float) / size
    positive = bool((curve["cumulative_s"] > 0).all())
    if log is None:
        log = positive and finals.min() > 0 and finals.max() > LOG_SPAN * finals.min()
    texts = [f"{styles[s].label}  {total_text(t * size)}"
             + (f" (stopped at item {int(i):,})" if i < longest else "")
             for s, t, i in zip(present, finals, ends["item"])]
    key = name_key({s: styles[s].label for s in present}, aliases)
    notes = [key, "×: the run stopped before the last item." if (ends["item"] < longest).any() else "",
             *warning_lines(curve, aliases)]
    if ax is not None:
        fig = root_figure(ax)
        _draw(ax, curve, present, styles, size, log, longest, reference)
        ax.legend(handles=[Line2D([], [], color=styles[s].color, label=t) for s, t in zip(present, texts)],
                  loc="upper left", fontsize=SMALL_FONT_SIZE)
        return fig
    texts = [break_label(t, _MAX_LABEL) for t in texts]
    label_w = max(text_size(t)[0] for t in texts)
    heights = np.array([text_size(t)[1] for t in texts])
    width = at_least(ONE_COLUMN if _LEFT + _MIN_PLOT[0] + _GAP + label_w + 0.1 <= ONE_COLUMN else
                     max(TWO_COLUMN, _LEFT + _MIN_PLOT[0] + _GAP + label_w + 0.1))
    plot_w = width - _LEFT - _GAP - label_w - 0.1
    notes_h = note_height(notes, width)
    plot_h = max(_MIN_PLOT[1], float(heights.sum()) + 0.02 * len(present))
    bottom = _BOTTOM + notes_h
    height = _TOP + plot_h + bottom
    fig = new_figure(width, height, constrained=False)
    ax = fig.add_axes((_LEFT / width, bottom / height, plot_w / width, plot_h / height))
    _draw(ax, curve, present, styles, size, log, longest, reference)
    low, high = ax.get_ylim()
    scale = (lambda v: np.log10(v)) if log else (lambda v: v)
    with np.errstate(divide="ignore"):
        fraction = (scale(np.maximum(finals, low)) - scale(low)) / (scale(high) - scale(low))
    wanted = bottom + fraction * plot_h
    placed = spread(wanted, heights, bottom, bottom + plot_h + _TOP, gap=0.02)
    x_text = _LEFT + plot_w + _GAP
    for system, text, y_want, y_at, item in zip(present, texts, wanted, placed, ends["item"]):
        x_end = _LEFT + plot_w * (float(item) - ax.get_xlim()[0]) / (ax.get_xlim()[1] - ax.get_xlim()[0])
        fig.add_artist(Line2D([x_end / width, (x_text - 0.03) / width], [y_want / height, y_at / height],
                              color=styles[system].color, lw=0.5, alpha=0.8))
        fig.text(x_text / width, y_at / height, text, ha="left", va="center", fontsize=SMALL_FONT_SIZE,
                 color="black", gid=f"ingestion-label-{system}")
    add_note(fig, notes, gid="ingestion-notes")
    return fig


def _draw(ax: Axes, curve: pd.DataFrame, present: list[str], styles: dict, size: float, log: bool,
          longest: int, reference: str | None) -> None:
    """The lines, the crosses of runs that stopped early, the axes and their labels."""
    tidy_axes(ax)
    for system in present:
        part = curve[curve["system"].astype(str) == system].sort_values("item")
        x = part["item"].to_numpy(dtype=float)
        y = part["cumulative_s"].to_numpy(dtype=float) / size
        color = styles[system].color
        grey = system == reference
        ax.plot(x, y, color=color, lw=1.6 if grey else 1.1, zorder=3 if grey else 2, gid=f"ingestion-{system}")
        if x[-1] < longest:
            ax.plot([x[-1]], [y[-1]], ls="", marker="x", markersize=5, mew=1.2, color=color, zorder=4,
                    gid=f"ingestion-stop-{system}")
    ax.set_xlim(0, longest * 1.01)
    ax.xaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))
    unit = next(name for name, s, _ in UNITS if s == size)
    if log:
        ax.set_yscale("log")
        top = float(curve["cumulative_s"].max()) / size
        finals = curve.groupby("system", sort=False)["cumulative_s"].last().to_numpy(dtype=float) / size
        ax.set_ylim(10 ** (np.floor(np.log10(finals.min())) - 1), top * 1.6)
        ax.yaxis.set_major_locator(LogLocator(base=10, numticks=6))
        ax.yaxis.set_major_formatter(FuncFormatter(_plain_number))
    else:
        ax.set_ylim(0, float(curve["cumulative_s"].max()) / size * 1.05)
    ax.set_xlabel("items ingested", fontsize=FONT_SIZE)
    ax.set_ylabel(f"cumulative time ({unit})", fontsize=FONT_SIZE)
