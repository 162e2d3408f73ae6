"""Pairwise difference matrix as a heatmap: one metric above the diagonal, another below (SPEC §5).

Cell (row i, column j) shows the row − column difference in points, its paired interval and a
star when the Holm-adjusted p-value is below 0.05, coloured on a diverging map centred at 0
(blue: the row system is higher). This is the layout of the Raw-RAG paper's Tables 27/28
(coverage above, utilization below). The frames are :func:`memdiag._compare` outputs with
``pairs="all"``; the function only orients and draws them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.colors import Normalize
from matplotlib.figure import Figure

from memdiag.plots.style import (
    MINUS, ONE_COLUMN, SMALL_FONT_SIZE, TWO_COLUMN, figure_and_axes, plain, renderer, require,
    signed, styled, tidy_axes,
)
from memdiag._pairs import oriented_pairs

#: Holm-adjusted p below this gets a star.
ALPHA = 0.05
#: ColorBrewer RdBu: diverging and colour-blind safe; blue = positive (row higher).
CMAP = "RdBu"
_COLUMNS = ("system_a", "system_b", "diff", "ci_low", "ci_high", "p_adj")


def _text(cell: tuple[float, float, float, float], decimals: int, interval: bool) -> str:
    d, lo, hi, p = cell
    star = "*" if p < ALPHA else ""
    head = f"{signed(d, decimals)}{star}"
    return f"{head}\n[{plain(lo, decimals)}, {plain(hi, decimals)}]" if interval else head


def _fit_texts(fig: Figure, ax: Axes, texts: dict, values: dict) -> bool:
    """Choose the richest cell format whose widest text fits a cell: interval with one decimal,
    with none, then the difference alone (one decimal, none). Fonts never shrink below 7 pt.
    Returns whether the intervals are shown."""
    r = renderer(fig)
    x0, y0 = ax.transData.transform((0, 0))
    x1, y1 = ax.transData.transform((1, 1))
    cell_w, cell_h = abs(x1 - x0) * 0.94, abs(y1 - y0) * 0.94
    for decimals, interval in ((1, True), (0, True), (1, False), (0, False)):
        for key, artist in texts.items():
            artist.set_text(_text(values[key], decimals, interval))
        boxes = [artist.get_window_extent(r) for artist in texts.values()]
        if all(b.width <= cell_w and b.height <= cell_h for b in boxes):
            break
    return interval


@styled
def matrix(
    upper_frame: pd.DataFrame,
    lower_frame: pd.DataFrame | None = None,
    systems: Sequence[str] | None = None,
    ax: Axes | None = None,
) -> Figure:
    """Heatmap of all pairwise differences: ``upper_frame`` above the diagonal, ``lower_frame``
    below.

    Parameters
    ----------
    upper_frame, lower_frame
        :func:`memdiag._compare` results with ``pairs="all"`` (``system_a, system_b, diff,
        ci_low, ci_high, p_adj``; ``diff = a − b`` in points), e.g. coverage and utilization.
        Without ``lower_frame`` the lower triangle shows ``upper_frame`` too (each cell read
        row − column). The metric names come from ``frame.attrs["metric"]``.
    systems
        Row/column order (default: order of first appearance in the frames).
    ax
        Axes to draw on (default: a new figure, one column wide up to four systems, else two).

    Returns
    -------
    matplotlib.figure.Figure
        Cell text ``"+d*\\n[lo, hi]"`` (row − column, star when Holm p < 0.05), or less when a
        cell is too small (see Notes); artist ids ``matrix-<row>-<column>``.

    Notes
    -----
    Cell (i, j), i ≠ j: the difference θ_row − θ_column and its interval, taken from the pair
    (row, column) or from (column, row) negated with the interval flipped. With many systems
    the text drops to whole points, then to the difference and star alone, rather than shrink
    below 7 pt. One symmetric colour scale (±max |difference|) serves both triangles. SPEC §5;
    Raw-RAG paper Tables 27/28.

    Examples
    --------
    >>> f = pd.DataFrame({"system_a": ["rag", "rag", "mem0"], "system_b": ["mem0", "zep", "zep"],
    ...     "diff": [4.0, 1.0, -3.0], "ci_low": [1.0, -2.0, -6.0], "ci_high": [7.0, 4.0, 0.5],
    ...     "p_adj": [0.01, 0.6, 0.09]})
    >>> fig = matrix(f)
    >>> [t.get_text() for t in fig.axes[0].texts if t.get_gid() == "matrix-mem0-rag"]
    ['−4.0*\\n[−7.0, −1.0]']
    """
    for frame in (upper_frame, lower_frame):
        if frame is not None:
            require(frame, _COLUMNS, "the compare frame")
    frames = [f for f in (upper_frame, lower_frame) if f is not None]
    present = list(dict.fromkeys(s for f in frames
                                 for s in np.ravel(f[["system_a", "system_b"]].to_numpy())))
    names = present if systems is None else list(systems)
    unknown = [s for s in names if s not in present]
    if unknown:
        raise ValueError(f"system(s) {', '.join(unknown)} are in no pair of the frames.")
    upper = oriented_pairs(upper_frame)
    lower = oriented_pairs(lower_frame) if lower_frame is not None else upper
    k = len(names)
    values: dict[tuple[int, int], tuple[float, float, float, float]] = {}
    for i, row in enumerate(names):
        for j, col in enumerate(names):
            source = upper if i < j else lower
            if i != j and (row, col) in source:
                values[(i, j)] = source[(row, col)]
    grid = np.full((k, k), np.nan)
    for (i, j), cell in values.items():
        grid[i, j] = cell[0]
    limit = float(np.nanmax(np.abs(grid))) if np.isfinite(grid).any() else 1.0
    norm = Normalize(-limit or -1.0, limit or 1.0)
    cmap = colormaps[CMAP].with_extremes(bad="0.93")

    fig, ax = figure_and_axes(ax, ONE_COLUMN if k <= 4 else TWO_COLUMN,
                              3.4 if k <= 4 else min(6.9, 1.3 + 0.62 * k))
    tidy_axes(ax)
    image = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, norm=norm, aspect="equal")
    texts = {}
    for (i, j), cell in values.items():
        shade = cmap(norm(cell[0]))
        dark = 0.299 * shade[0] + 0.587 * shade[1] + 0.114 * shade[2] < 0.5
        texts[(i, j)] = ax.text(j, i, "", ha="center", va="center", fontsize=SMALL_FONT_SIZE,
                                color="white" if dark else "black",
                                fontweight="bold" if cell[3] < ALPHA else "normal",
                                gid=f"matrix-{names[i]}-{names[j]}")
    ax.set_xticks(range(k), names, rotation=90 if k > 3 else 0)
    ax.set_yticks(range(k), names)
    ax.xaxis.tick_top()
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    upper_name = upper_frame.attrs.get("metric", "upper")
    triangles = (f"upper triangle: {upper_name} · lower triangle: {lower_frame.attrs.get('metric', 'lower')}"
                 if lower_frame is not None else f"both triangles: {upper_name}")
    colorbar = fig.colorbar(image, ax=ax, fraction=0.035, pad=0.02, aspect=30)
    colorbar.set_label(f"row {MINUS} column (points)", fontsize=SMALL_FONT_SIZE)
    colorbar.ax.tick_params(labelsize=SMALL_FONT_SIZE, length=2)
    label = (f"{triangles}\n"
             f"row {MINUS} column in points {{}}; * Holm-adjusted p < {ALPHA:g}")
    ax.set_xlabel(label.format("[interval]"), fontsize=SMALL_FONT_SIZE)  # in the layout measured
    if not _fit_texts(fig, ax, texts, {key: values[key] for key in texts}):
        ax.set_xlabel(label.format("(intervals omitted for space)"), fontsize=SMALL_FONT_SIZE)
    return fig
