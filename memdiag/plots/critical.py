"""Critical-difference diagram (Demšar 2006, Figure 1; SPEC §10.4): mean ranks of systems across
settings on one axis, the systems not shown to differ joined by thick bars, and the Nemenyi critical
difference drawn to scale. The ranks, ties and CD are what :func:`memdiag.critical_difference`
returned; nothing is recomputed except which tied systems form a group (maximal runs of systems,
in rank order, that are pairwise tied).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from memdiag.plots._names import name_key
from memdiag.plots._reading import alpha_text, labels_of, level_alpha, warning_lines
from memdiag.plots.style import (
    ONE_COLUMN,
    SMALL_FONT_SIZE,
    figure_and_axes,
    note_height,
    plain,
    require,
    styled,
    system_styles,
    wrap,
)

_INK = "#222222"
_ROW = 0.17          # inches between two label rows
_TOP = 0.42          # inches above the axis for the CD bar and tick labels


def groups(frame: pd.DataFrame) -> list[tuple[int, int]]:
    """Maximal runs ``(i, j)`` (positions in rank order, i < j) whose systems are pairwise tied.

    >>> f = pd.DataFrame({"system": list("abcd"), "mean_rank": [1.0, 1.5, 2.8, 3.9],
    ...                   "tied_with": ["b", "a, c", "b, d", "c"]})
    >>> groups(f)
    [(0, 1), (1, 2), (2, 3)]
    """
    names = list(frame["system"])
    tied = {s: {t.strip() for t in str(w).split(",") if t.strip()} for s, w in zip(names, frame["tied_with"])}
    out: list[tuple[int, int]] = []
    for i in range(len(names)):
        j = i
        while j + 1 < len(names) and all(names[j + 1] in tied[names[m]] for m in range(i, j + 1)):
            j += 1
        if j > i and not any(a <= i and j <= b for a, b in out):
            out.append((i, j))
    return out


@styled
def critical_difference(frame: pd.DataFrame, ax: Axes | None = None, all_systems: Sequence[str] | None = None, *,
                        labels: Mapping[str, str] | None = None) -> Figure:
    """Mean ranks across settings with the groups of systems not shown to differ.

    Parameters
    ----------
    frame
        :func:`memdiag.critical_difference` output: ``system, mean_rank, tied_with`` (best first),
        ``n_settings``; ``attrs["cd"]`` (drawn when finite), ``attrs["method"]``.
    ax
        Axes to draw on (default: a new one-column figure whose height follows the systems).
    all_systems
        The analysis' ordered system list fixing the colours (default: the frame's systems).
    labels
        Aliases ``{system: label}`` (default ``attrs["labels"]``).

    Returns
    -------
    matplotlib.figure.Figure
        Artist ids: ``cd-bar`` (the critical difference), ``cd-group-<i>`` (a group's bar),
        ``cd-system-<system>`` (a system's leader line), ``cd-note`` (what the bars mean, read from
        ``attrs``; on a new figure only).

    Raises
    ------
    ValueError
        A frame without ``system, mean_rank, tied_with``, or an alias in ``labels`` shared by two systems.

    References
    ----------
    SPEC §10.4 (critical differences); Demšar, J. (2006). Statistical comparisons of classifiers
    over multiple data sets. JMLR 7, 1–30 (Figure 1).

    Examples
    --------
    >>> import memdiag as md
    >>> s = pd.DataFrame({"setting": [c for c in "abcdef" for _ in "xyz"], "system": list("xyz") * 6,
    ...                   "estimate": [70, 60, 50, 71, 62, 55, 69, 50, 61, 72, 66, 52, 75, 61, 58, 70, 65, 49]})
    >>> fig = critical_difference(md.critical_difference(s))
    >>> [a.get_gid() for a in fig.axes[0].lines if a.get_gid() and a.get_gid().startswith("cd-group")]
    ['cd-group-0', 'cd-group-1']
    """
    require(frame, ["system", "mean_rank", "tied_with"], "the critical-difference frame")
    frame = frame.sort_values("mean_rank", kind="stable").reset_index(drop=True)
    names = [str(s) for s in frame["system"]]
    aliases = labels_of(frame, labels)
    styles = system_styles(all_systems if all_systems is not None else names, labels=aliases)
    k = len(names)
    left = math.ceil(k / 2)
    n_groups = len(groups(frame))
    cd = frame.attrs.get("cd", float("nan"))
    has_cd = cd is not None and math.isfinite(cd)
    top = _TOP if has_cd else 0.2
    method = {"nemenyi": "Nemenyi test", "wilcoxon-holm": "Wilcoxon signed-rank tests, Holm-adjusted"}.get(
        str(frame.attrs.get("method", "")), "the pairwise tests")
    level = frame.attrs.get("confidence_level")
    note = (f"Mean rank over {int(frame['n_settings'].iloc[0])} settings (1 = best); bars join systems "
            f"not shown to differ ({method}" + (f", α = {alpha_text(level_alpha(level))}" if level else "") + ")."
            if "n_settings" in frame else "")
    note = " ".join(t for t in (note, name_key({s: styles[s].label for s in names}, aliases),
                                *warning_lines(frame, aliases)) if t)
    new = ax is None
    height = top + 0.12 + _ROW * (left + 0.5) + 0.06 * n_groups + (note_height([note], ONE_COLUMN) if new else 0)
    fig, ax = figure_and_axes(ax, ONE_COLUMN, height)
    lo, hi = 1, max(k, 2)
    ax.set_xlim(lo - 0.15 * (hi - lo) - 0.9, hi + 0.15 * (hi - lo) + 0.9)
    bottom = -(left + 0.7) * _ROW - 0.06 * n_groups
    ax.set_ylim(bottom, top)
    ax.axis("off")
    ax.plot([lo, hi], [0, 0], color=_INK, lw=0.9, solid_capstyle="butt")
    for r in range(lo, hi + 1):
        ax.plot([r, r], [0, 0.05], color=_INK, lw=0.7)
        ax.text(r, 0.08, str(r), ha="center", va="bottom", fontsize=SMALL_FONT_SIZE, color=_INK)
    if has_cd:
        ax.plot([lo, lo + cd], [0.3, 0.3], color=_INK, lw=1.2, gid="cd-bar")
        for x in (lo, lo + cd):
            ax.plot([x, x], [0.26, 0.34], color=_INK, lw=0.8)
        ax.text(lo + cd / 2, 0.35, f"CD = {plain(cd, 2)}", ha="center", va="bottom", fontsize=SMALL_FONT_SIZE)
    # groups of tied systems: thick bars just under the axis
    for g, (i, j) in enumerate(groups(frame)):
        y = -0.05 - 0.06 * g
        ax.plot([frame["mean_rank"][i] - 0.04, frame["mean_rank"][j] + 0.04], [y, y], color=_INK, lw=2.4,
                solid_capstyle="round", gid=f"cd-group-{g}")
    start = -0.08 - 0.06 * n_groups
    for pos, (name, rank) in enumerate(zip(names, frame["mean_rank"])):
        on_left = pos < left
        row = pos if on_left else k - 1 - pos
        y = start - _ROW * (row + 0.5)
        x_text = lo - 0.3 if on_left else hi + 0.3
        color = styles[name].color
        ax.plot([rank, rank, x_text], [0, y, y], color=color, lw=0.9, gid=f"cd-system-{name}")
        ax.text(x_text + (-0.05 if on_left else 0.05), y, f"{styles[name].label} ({plain(rank, 2)})",
                ha="right" if on_left else "left", va="center", fontsize=SMALL_FONT_SIZE, color=_INK)
    if new and note:   # as the figure's x label, so that the constrained layout makes room for it
        fig.supxlabel(wrap(note, ONE_COLUMN - 0.12), fontsize=SMALL_FONT_SIZE, gid="cd-note")
    return fig
