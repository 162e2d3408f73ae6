"""Pairwise difference matrix as a heatmap: one metric above the diagonal, another below (SPEC §5).

Cell (row i, column j) shows the row − column difference in points and its interval, coloured on
a diverging map centred at 0 (blue: the row system is higher). This is the layout of the Raw-RAG
paper's Tables 27/28 (coverage above, utilization below). Two metrics get two colour scales, one
per triangle, each with its colour bar; one metric in both triangles shares one scale.

Numbers keep one decimal below 10 points (two when one would show 0.0), so rounding never hides
whether an interval holds 0; cells grow to fit their text at 7 pt, and when the matrix would not
fit two columns the intervals are left out (the notes say so) before the figure grows.

The star and the interval always come from the same adjustment: when the frame carries
family-adjusted intervals (``ci_low_adj``, ``ci_high_adj``) they are drawn with a star for the
adjusted p (``p_adj``); otherwise the per-comparison intervals are drawn with a star for the
per-comparison p (``p``) and the cell text is **bold** when the family-adjusted p is below α
too (α = 1 − the frame's confidence level). The notes under the matrix name the test and the adjustment as the frame's ``test`` column
and ``attrs["correction"]`` give them. The frames are :func:`memdiag.analyses.compare` outputs with
every pair (no ``reference``); the function only orients and draws them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap, Normalize
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from memdiag.errors import VerdictError
from memdiag.plots._names import name_key
from memdiag.plots._reading import (
    adjusted_p_column,
    alpha,
    alpha_text,
    correction,
    labels_of,
    level,
    named_tests,
    warning_lines,
)
from memdiag.plots.style import (
    MINUS,
    ONE_COLUMN,
    SMALL_FONT_SIZE,
    TWO_COLUMN,
    add_note,
    at_least,
    break_label,
    new_figure,
    note_height,
    renderer,
    require,
    root_figure,
    styled,
    system_styles,
    text_size,
    tidy_axes,
)

#: ColorBrewer diverging maps, both colour-blind safe: the upper triangle (and a single metric)
#: on red–blue, the lower triangle's second metric on orange–purple. Positive = row higher.
CMAPS: tuple[str, str] = ("RdBu", "PuOr")
_COLUMNS = ("system_a", "system_b", "diff", "ci_low", "ci_high")
#: Empty cells (the diagonal, pairs not in the frame).
_EMPTY = "0.93"
#: Layout in inches: padding around cell text, colour-bar width and its label room, margins.
_PAD_W, _PAD_H = 0.06, 0.08
_BAR_H, _BAR_BAND = 0.09, 0.55
_MARGIN = 0.06
#: Longest tick label line (inches) before a label is broken at its separators.
_TICK_W = 1.2


@dataclass(frozen=True)
class Cell:
    """One oriented cell: difference, interval, the p of its star and the family-adjusted p."""

    diff: float
    low: float
    high: float
    p_star: float
    p_family: float


@dataclass(frozen=True)
class Reading:
    """How a frame's cells are read: which interval and p columns, and the words for them."""

    low: str
    high: str
    star: str
    family: str | None
    legend: str


def reading(frame: pd.DataFrame) -> Reading:
    """Choose the interval and the p-values whose star matches it (module docstring).

    >>> f = pd.DataFrame({"system_a": ["a"], "system_b": ["b"], "diff": [4.0], "ci_low": [1.0],
    ...     "ci_high": [7.0], "p": [0.004], "p_adj": [0.02], "test": ["exact McNemar"]})
    >>> f.attrs.update(correction="holm", confidence_level=0.95)
    >>> import textwrap
    >>> print(textwrap.fill(reading(f).legend, 90))
    Cell: row − column, points [95% interval]. * p < 0.05 per comparison, as the intervals;
    bold: Holm-adjusted p < 0.05 over the 1 pair. Test: exact McNemar.
    """
    a = alpha(frame)
    family = adjusted_p_column(frame)
    tests = named_tests(frame)
    test = f" Test: {tests}." if tests else ""
    pairs = f"{len(frame)} pair{'s' if len(frame) != 1 else ''}"
    head = f"Cell: row {MINUS} column, points [{level(frame)}]. "
    if {"ci_low_adj", "ci_high_adj"} <= set(frame.columns) and family is not None:
        return Reading("ci_low_adj", "ci_high_adj", family, None,
                       f"{head}Intervals and * ({correction(frame)} < {alpha_text(a)}) adjusted over the "
                       f"{pairs}.{test}")
    if "p" in frame.columns:
        bold = (f"; bold: {correction(frame)} < {alpha_text(a)} over the {pairs}"
                if family is not None else "")
        return Reading("ci_low", "ci_high", "p", family,
                       f"{head}* p < {alpha_text(a)} per comparison, as the intervals{bold}.{test}")
    return Reading("ci_low", "ci_high", family, None,
                   f"{head}* {correction(frame)} < {alpha_text(a)} over the {pairs}; the intervals are per "
                   f"comparison (the frame has no per-comparison p).{test}")


def oriented_cells(frame: pd.DataFrame, how: Reading) -> dict[tuple[str, str], Cell]:
    """Every ordered pair as ``(row, column) -> Cell`` oriented row − column: a stored ``a − b``
    gives (a, b) as is and (b, a) negated with the interval flipped."""
    out = {}
    for rec in frame.to_dict("records"):
        a, b = rec["system_a"], rec["system_b"]
        d, lo, hi = float(rec["diff"]), float(rec[how.low]), float(rec[how.high])
        star = float(rec[how.star]) if how.star else np.nan
        fam = float(rec[how.family]) if how.family else np.nan
        out[(a, b)] = Cell(d, lo, hi, star, fam)
        out[(b, a)] = Cell(-d, -hi, -lo, star, fam)
    return out


def number(value: float) -> str:
    """A difference or interval end in points: one decimal below 10, none from 10 on, and one
    significant digit when one decimal would read 0.0 — rounding never turns a value into 0; a
    true minus sign and no negative zero.

    >>> [number(v) for v in (-8.37, 0.44, -0.04, 0.004, 0.0, 12.6, -44.2)]
    ['−8.4', '0.4', '−0.04', '0.004', '0.0', '13', '−44']
    """
    if pd.isna(value):
        return "–"
    if 0 < abs(value) < 0.05:
        return f"{value:.1g}".replace("-", MINUS)
    decimals = 0 if abs(value) >= 9.95 else 1
    return f"{round(value, decimals) + 0.0:.{decimals}f}".replace("-", MINUS)


def cell_text(cell: Cell, threshold: float, interval: bool) -> str:
    """``"+5.0*\\n[1.2, 8.3]"`` (``interval=False``: the first line alone).

    >>> cell_text(Cell(-4.0, -8.37, 0.44, 0.06, 0.3), 0.05, True)
    '−4.0\\n[−8.4, 0.4]'
    """
    sign = "+" if number(cell.diff)[0] not in (MINUS, "0") or cell.diff > 0 else ""
    star = "*" if cell.p_star < threshold else ""
    head = f"{sign}{number(cell.diff)}{star}"
    return f"{head}\n[{number(cell.low)}, {number(cell.high)}]" if interval else head


def _cells(upper: pd.DataFrame, lower: pd.DataFrame | None, names: Sequence[str]):
    """The cells to draw as ``{(i, j): (source, Cell)}``, source 0 = ``upper`` (above the
    diagonal, and below it too without ``lower``), 1 = ``lower``; and the readings of the frames."""
    frames = [upper] + ([lower] if lower is not None else [])
    reads = [reading(f) for f in frames]
    sources = [oriented_cells(f, r) for f, r in zip(frames, reads)]
    cells = {}
    for i, row in enumerate(names):
        for j, col in enumerate(names):
            source = 0 if i < j or lower is None else 1
            if i != j and (row, col) in sources[source]:
                cells[(i, j)] = (source, sources[source][(row, col)])
    return cells, reads


#: The most systems a matrix figure draws (cells sized for their text make the canvas grow with
#: the square of the systems; 40 systems give an 11.6 x 9.1 inch figure, 3,500 x 2,700 pixels at 300 dpi);
#: ``MEMDIAG_MAX_MATRIX_SYSTEMS`` raises it.
MAX_SYSTEMS = 40


def max_matrix_systems() -> int:
    """The matrix limit: ``MEMDIAG_MAX_MATRIX_SYSTEMS`` when set to a whole number, else :data:`MAX_SYSTEMS`."""
    value = os.environ.get("MEMDIAG_MAX_MATRIX_SYSTEMS", "").strip()
    return int(value) if value.isdigit() else MAX_SYSTEMS


@styled
def matrix(
    upper_frame: pd.DataFrame,
    lower_frame: pd.DataFrame | None = None,
    systems: Sequence[str] | None = None,
    ax: Axes | None = None,
    *,
    labels: Mapping[str, str] | None = None,
) -> Figure:
    """Heatmap of all pairwise differences: ``upper_frame`` above the diagonal, ``lower_frame``
    below.

    Parameters
    ----------
    upper_frame, lower_frame
        :func:`memdiag.compare` results of every pair (``system_a, system_b, diff,
        ci_low, ci_high`` and ``p`` / ``p_adj``; ``diff = a − b`` in points), e.g. coverage and
        utilization. Without ``lower_frame`` the lower triangle shows ``upper_frame`` too (each
        cell read row − column). Metric names come from ``frame.attrs["metric"]``.
    systems
        Row/column order (default: order of first appearance in the frames).
    ax
        Axes to draw on (its cells keep their size: the text adapts to them). Default: a new
        figure whose cells fit their text, one column wide when it fits, else two columns.
    labels
        Aliases ``{system: label}`` for the ticks (default ``attrs["labels"]`` of the upper
        frame); long names without one are shortened and listed in the notes.

    Returns
    -------
    matplotlib.figure.Figure
        Cell text ``"+d*\\n[lo, hi]"`` (row − column), or ``"+d*"`` when the intervals do not fit
        (the notes say so); artist ids ``matrix-<row>-<column>`` with the system names, and
        ``matrix-colorbar-upper`` / ``matrix-colorbar-lower`` for two metrics.

    Raises
    ------
    ValueError
        A compare frame without ``system_a, system_b, diff, ci_low, ci_high`` and a p-value,
        ``systems`` that are in no pair of the frames, or an alias in ``labels`` that is empty or
        shared by two systems; more systems than :func:`max_matrix_systems` (a VerdictError
        saying the limit and how to raise it).

    Notes
    -----
    Cell (i, j), i ≠ j: the difference θ_row − θ_column and its interval, taken from the pair
    (row, column) or from (column, row) negated with the interval flipped. Colour scales are
    symmetric (± the largest |difference| of their triangle). SPEC §5; Raw-RAG paper Tables 27/28.

    References
    ----------
    SPEC §5.4 (the pairwise matrix) and SPEC §8 (the matrix figure: stars and intervals from
    the same adjustment); Raw-RAG paper Tables 27/28.

    Examples
    --------
    >>> f = pd.DataFrame({"system_a": ["rag", "rag", "mem0"], "system_b": ["mem0", "zep", "zep"],
    ...     "diff": [4.0, 1.0, -3.0], "ci_low": [1.0, -2.0, -6.0], "ci_high": [7.0, 4.0, 0.5],
    ...     "p": [0.004, 0.6, 0.05], "p_adj": [0.01, 0.6, 0.09]})
    >>> fig = matrix(f)
    >>> [t.get_text() for t in fig.axes[0].texts if t.get_gid() == "matrix-mem0-rag"]
    ['−4.0*\\n[−7.0, −1.0]']
    """
    for frame in (upper_frame, lower_frame):
        if frame is not None:
            require(frame, _COLUMNS, "the compare frame")
            if adjusted_p_column(frame) is None and "p" not in frame.columns:
                require(frame, ("p_adj",), "the compare frame")
    frames = [f for f in (upper_frame, lower_frame) if f is not None]
    present = list(dict.fromkeys(s for f in frames
                                 for s in np.ravel(f[["system_a", "system_b"]].to_numpy())))
    names = present if systems is None else list(systems)
    unknown = [s for s in names if s not in present]
    if unknown:
        raise ValueError(f"system(s) {', '.join(unknown)} are in no pair of the frames.")
    k = len(names)
    if k > max_matrix_systems():  # each cell holds its text: the canvas grows as k squared
        raise VerdictError(f"the matrix figure draws at most {max_matrix_systems()} systems (the matrix limit), "
                           f"got {k}: a larger grid is unreadable and its 300-dpi PNG needs hundreds of MiB. "
                           "Choose the systems to draw (systems=, or --systems), or set "
                           "MEMDIAG_MAX_MATRIX_SYSTEMS to a larger number.")
    aliases = labels_of(upper_frame, labels)
    styles = system_styles(names, None, aliases)
    cells, reads = _cells(upper_frame, lower_frame, names)
    metric = [f.attrs.get("metric", ("upper", "lower")[i]) for i, f in enumerate(frames)]
    two = lower_frame is not None and metric[1] != metric[0]  # one metric twice: one scale
    scales = []
    for tri in range(2 if two else 1):
        values = [abs(c.diff) for src, c in cells.values() if (src if two else 0) == tri
                  and np.isfinite(c.diff)]
        limit = max(values) if values and max(values) > 0 else 1.0
        scales.append((colormaps[CMAPS[tri]].with_extremes(bad=(0, 0, 0, 0)),
                       Normalize(-limit, limit)))
    bar_labels = [f"{metric[0]} (upper)", f"{metric[1]} (lower)"] if two else [metric[0]]
    threshold = alpha(upper_frame)
    texts = {key: (cell_text(c, threshold, True), cell_text(c, threshold, False))
             for key, (_, c) in cells.items()}
    tick = [break_label(styles[s].label, _TICK_W) for s in names]
    notes = [f"Upper triangle: {metric[0]}; lower triangle: {metric[1]}." if two
             else f"Both triangles: {metric[0]}, each cell read row {MINUS} column."]
    notes += [r.legend for i, r in enumerate(reads) if i == 0 or r.legend != reads[0].legend]
    key = name_key({s: styles[s].label for s in names}, aliases)
    warned = list(dict.fromkeys(w for f in frames for w in warning_lines(f, aliases)))
    short = "Intervals left out for space: see the pairwise table."
    if ax is None:
        fig, ax, interval, bars = _layout(k, texts, tick, notes + [short, key, *warned], bar_labels)
    else:
        fig, bars = root_figure(ax), [None] * len(scales)
        interval = _fit_axes(fig, ax, k, texts)
    if not interval:
        for f in frames:  # the legend no longer promises intervals
            notes = [n.replace(f"points [{level(f)}]", "points") for n in notes]
        notes.append(short)
    notes += [key, *warned]
    tidy_axes(ax)
    for tri, (cmap, norm) in enumerate(scales):
        grid = np.full((k, k), np.nan)
        for (i, j), (src, c) in cells.items():
            if (src if two else 0) == tri:
                grid[i, j] = c.diff
        image = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, norm=norm, aspect="auto",
                          interpolation="nearest", gid=f"matrix-image-{('upper', 'lower')[tri]}")
        _colorbar(fig, ax, image, tri, bar_labels[tri], bars[tri])
    blank = np.array([[0.0 if (i, j) not in cells else np.nan for j in range(k)] for i in range(k)])
    ax.imshow(np.ma.masked_invalid(blank), cmap=ListedColormap([_EMPTY]).with_extremes(
        bad=(0, 0, 0, 0)), aspect="auto", interpolation="nearest", gid="matrix-image-empty")
    for (i, j), (src, c) in cells.items():
        cmap, norm = scales[src if two else 0]
        shade = cmap(norm(c.diff))
        dark = 0.299 * shade[0] + 0.587 * shade[1] + 0.114 * shade[2] < 0.5
        bold = reads[src].family is not None and c.p_family < threshold
        ax.text(j, i, texts[(i, j)][0 if interval else 1], ha="center", va="center",
                fontsize=SMALL_FONT_SIZE, color="white" if dark else "black",
                fontweight="bold" if bold else "normal", linespacing=1.15,
                gid=f"matrix-{names[i]}-{names[j]}")
    ax.set_xticks(range(k), tick, rotation=90 if k > 3 or max(map(len, tick)) > 12 else 0)
    ax.set_yticks(range(k), tick)
    ax.set_xlim(-0.5, k - 0.5)
    ax.set_ylim(k - 0.5, -0.5)
    ax.xaxis.tick_top()
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    if bars[0] is not None:
        add_note(fig, notes, gid="matrix-notes")
    else:
        ax.set_xlabel("\n".join(n for n in notes if n), fontsize=SMALL_FONT_SIZE)
    return fig


def _cell_size(texts: Mapping, interval: bool) -> tuple[float, float]:
    sizes = [text_size(t[0 if interval else 1]) for t in texts.values()] or [(0.3, 0.12)]
    return (max(w for w, _ in sizes) + _PAD_W,
            max(h for _, h in sizes) * 1.15 / 1.2 + _PAD_H)


def _layout(k: int, texts: Mapping, ticks: Sequence[str], notes: Sequence[str],
            bar_labels: Sequence[str]):
    """A new figure sized so every cell holds its text at 7 pt: intervals when the matrix fits
    two columns, else the differences alone; wider than two columns only when even those need
    it. The colour bars lie under the matrix, side by side when their labels fit, else one
    under the other. Returns the figure, the heatmap axes (label ``matrix``), whether intervals
    are shown and the colour bars' axes."""
    tick_w = max(text_size(t)[0] for t in ticks)
    tick_h = max(text_size(t)[1] for t in ticks)
    side = _MARGIN + tick_w + 0.06
    for interval in (True, False):
        cell_w, cell_h = _cell_size(texts, interval)
        if side + k * cell_w + _MARGIN <= TWO_COLUMN:
            break
    label_w = [text_size(_bar_label(b))[0] for b in bar_labels]
    need = max(side + k * max(cell_w, tick_h + 0.04) + _MARGIN, max(label_w) + 2 * _MARGIN)
    width = at_least(ONE_COLUMN if need <= ONE_COLUMN else max(TWO_COLUMN, need))
    cell_w = (width - side - _MARGIN) / k  # spread into the chosen width
    cell_h = max(min(max(cell_h, 0.7 * cell_w), cell_h + 0.12, 0.6), tick_h + 0.04)
    bar_w = [max(min(2.2, width - 2 * _MARGIN), w) for w in label_w]
    stacked = sum(bar_w) + 0.3 * (len(bar_w) - 1) > width - 2 * _MARGIN
    band = _BAR_BAND * (len(bar_w) if stacked else 1)
    top = tick_w + 0.1
    notes_h = note_height(notes, width)
    height = top + k * cell_h + band + notes_h
    fig = new_figure(width, height, constrained=False)
    ax = fig.add_axes((side / width, (notes_h + band) / height, k * cell_w / width,
                       k * cell_h / height), label="matrix")
    bars = []
    x = side if side + sum(bar_w) + 0.3 * (len(bar_w) - 1) <= width - _MARGIN and not stacked \
        else _MARGIN  # under the grid when they fit there
    for i, w in enumerate(bar_w):
        y = notes_h + band - 0.14 - _BAR_H - (i * _BAR_BAND if stacked else 0)
        bars.append(fig.add_axes((x / width, y / height, w / width, _BAR_H / height)))
        x = _MARGIN if stacked else x + w + 0.3
    return fig, ax, interval, bars


def _bar_label(metric: str) -> str:
    return f"{metric}: row {MINUS} column (points)"


def _fit_axes(fig: Figure, ax: Axes, k: int, texts: Mapping) -> bool:
    """With given axes: whether the cells are large enough for the text with intervals."""
    box = ax.get_window_extent(renderer(fig))
    cell_w, cell_h = _cell_size(texts, True)
    return box.width / fig.dpi / k >= cell_w and box.height / fig.dpi / k >= cell_h


def _colorbar(fig: Figure, ax: Axes, image, tri: int, label: str, cax: Axes | None) -> None:
    """A colour bar: horizontal in ``cax`` under the matrix of a memdiag layout, else beside the
    given axes."""
    if cax is not None:
        bar = fig.colorbar(image, cax=cax, orientation="horizontal")
        width = cax.get_position().width * fig.get_size_inches()[0]
        bar.ax.xaxis.set_major_locator(MaxNLocator(nbins=max(3, int(width / 0.45)), symmetric=True))
    else:
        bar = fig.colorbar(image, ax=ax, fraction=0.035, pad=0.02, aspect=30)
    bar.set_label(_bar_label(label), fontsize=SMALL_FONT_SIZE, labelpad=1)
    bar.ax.tick_params(labelsize=SMALL_FONT_SIZE, length=2, pad=1)
    bar.ax.set_gid(f"matrix-colorbar-{('upper', 'lower')[tri]}")
