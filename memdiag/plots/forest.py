"""Forest plot of paired differences with intervals and Holm markers (SPEC §5, §8).

One row per comparison: the difference in points as a marker, its paired bootstrap interval as a
horizontal bar, a dashed zero line, a filled marker when the Holm-adjusted p-value is below 0.05
(hollow otherwise) and the number of queries behind the row on the right. The rows are what
:func:`memdiag._compare` returned; nothing is recomputed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.transforms import blended_transform_factory

from memdiag.plots.style import (
    MINUS, ONE_COLUMN, SMALL_FONT_SIZE, figure_and_axes, require, styled, system_styles, tidy_axes,
)

#: Holm-adjusted p below this is marked significant.
ALPHA = 0.05


def oriented(compare_frame: pd.DataFrame, reference: str | None) -> tuple[pd.DataFrame, str | None]:
    """The rows to draw, as ``label, system, diff, ci_low, ci_high, p_adj, n``.

    With a reference, each pair holding it becomes ``system − reference`` (a pair stored as
    ``reference − system`` is negated with its interval flipped). Without one, a frame whose
    rows all share ``system_b`` (as ``pairs="reference"`` gives) is read against that system;
    otherwise every pair is drawn as ``a − b``.

    Examples
    --------
    >>> frame = pd.DataFrame({"system_a": ["mem0", "rag"], "system_b": ["rag", "zep"],
    ...     "diff": [-2.0, 3.0], "ci_low": [-4.0, 1.0], "ci_high": [0.5, 5.0],
    ...     "p_adj": [0.2, 0.01], "n": [500, 500]})
    >>> rows, ref = oriented(frame, "rag")
    >>> rows[["system", "diff", "ci_low", "ci_high"]].to_numpy().tolist()
    [['mem0', -2.0, -4.0, 0.5], ['zep', -3.0, -5.0, -1.0]]
    """
    if reference is None and compare_frame["system_b"].nunique() == 1:
        reference = str(compare_frame["system_b"].iloc[0])
    rows = []
    for rec in compare_frame.to_dict("records"):
        n = rec.get("n", np.nan)
        if reference is None:
            rows.append((f"{rec['system_a']} {MINUS} {rec['system_b']}", rec["system_a"], rec["diff"],
                         rec["ci_low"], rec["ci_high"], rec["p_adj"], n))
        elif rec["system_b"] == reference:
            rows.append((rec["system_a"], rec["system_a"], rec["diff"], rec["ci_low"],
                         rec["ci_high"], rec["p_adj"], n))
        elif rec["system_a"] == reference:
            rows.append((rec["system_b"], rec["system_b"], -rec["diff"], -rec["ci_high"],
                         -rec["ci_low"], rec["p_adj"], n))
    if not rows:
        raise ValueError(f"no pair in the compare frame involves the reference '{reference}'.")
    return pd.DataFrame(rows, columns=["label", "system", "diff", "ci_low", "ci_high", "p_adj",
                                       "n"]), reference


@styled
def forest(
    compare_frame: pd.DataFrame,
    reference: str | None = None,
    ax: Axes | None = None,
    all_systems: Sequence[str] | None = None,
) -> Figure:
    """Differences vs the reference (or between all pairs) with intervals and Holm markers.

    Parameters
    ----------
    compare_frame
        The result of :func:`memdiag._compare`: ``system_a, system_b, diff, ci_low, ci_high,
        p_adj`` and ``n`` (differences ``a − b`` in points).
    reference
        Draw ``system − reference`` for each pair holding it (see :func:`oriented`); default
        the common ``system_b`` of a ``pairs="reference"`` frame, else every pair as ``a − b``.
    ax
        Axes to draw on (default: a new one-column figure whose height follows the rows).
    all_systems
        The analysis' ordered system list fixing the colours (default: the frame's systems).

    Returns
    -------
    matplotlib.figure.Figure
        Rows top to bottom in frame order. Artist ids: ``forest-<label>`` (marker),
        ``forest-ci-<label>`` (interval), ``forest-n-<label>`` (the n text).

    Notes
    -----
    Filled marker: Holm-adjusted p < 0.05 over the family of the compare call (paper C.6).
    SPEC §5 and §8.

    Examples
    --------
    >>> frame = pd.DataFrame({"system_a": ["mem0", "zep"], "system_b": ["rag", "rag"],
    ...     "diff": [-2.0, 3.0], "ci_low": [-4.0, 1.0], "ci_high": [0.5, 5.0],
    ...     "p_adj": [0.2, 0.01], "n": [500, 500]})
    >>> fig = forest(frame)
    >>> fig.axes[0].get_xlabel()
    'difference vs rag (accuracy, points)\\nfilled marker: Holm-adjusted p < 0.05'
    """
    require(compare_frame, ("system_a", "system_b", "diff", "ci_low", "ci_high", "p_adj"),
            "the compare frame")
    rows, reference = oriented(compare_frame, reference)
    order = list(dict.fromkeys(np.ravel(compare_frame[["system_a", "system_b"]].to_numpy())))
    styles = system_styles(list(all_systems) if all_systems is not None else order, reference)
    fig, ax = figure_and_axes(ax, ONE_COLUMN, 0.9 + 0.24 * len(rows))
    tidy_axes(ax)
    ypos = np.arange(len(rows))[::-1]
    for y, row in zip(ypos, rows.itertuples(index=False)):
        style = styles.get(row.system) if reference is not None else None
        color = style.color if style else "black"
        marker = style.marker if style else "o"
        significant = bool(row.p_adj < ALPHA)
        ax.plot([row.ci_low, row.ci_high], [y, y], color=color, lw=1.2, solid_capstyle="butt",
                gid=f"forest-ci-{row.label}")
        ax.plot([row.diff], [y], ls="", marker=marker, markersize=5, markeredgewidth=1.0,
                markeredgecolor=color, markerfacecolor=color if significant else "white",
                gid=f"forest-{row.label}", zorder=3)
    ax.axvline(0, color="0.4", lw=0.7, ls="--", zorder=0)
    ax.set_yticks(ypos, rows["label"].tolist())
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.spines["left"].set_visible(False)
    ax.tick_params(axis="y", length=0)
    metric = compare_frame.attrs.get("metric", "accuracy")
    ax.set_xlabel((f"difference vs {reference} ({metric}, points)" if reference is not None
                   else f"difference a {MINUS} b ({metric}, points)")
                  + f"\nfilled marker: Holm-adjusted p < {ALPHA:g}")
    right = blended_transform_factory(ax.transAxes, ax.transData)
    ax.text(1.02, 1.01, "n", transform=ax.transAxes, ha="left", va="bottom",
            fontsize=SMALL_FONT_SIZE, fontweight="bold", gid="forest-n-header")
    for y, row in zip(ypos, rows.itertuples(index=False)):
        text = "" if pd.isna(row.n) else f"{int(row.n):,}"
        ax.text(1.02, y, text, transform=right, ha="left", va="center", fontsize=SMALL_FONT_SIZE,
                gid=f"forest-n-{row.label}")
    return fig
