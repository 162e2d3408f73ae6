"""Sensitivity curve: a parameter on x, the paired difference from its default on y (SPEC §8),
under a panel with the score itself at each value when the frame carries it.

Each parameter value (e.g. the final top-k of retrieval) is a point at its difference from the
default setting with the paired interval as an error bar; a dashed line marks zero and a dotted
vertical line with a black diamond marks the default. Several systems give one line each, in
their fixed colours, slightly dodged so the bars stay apart. This is the Raw-RAG paper's
Figure 4 (final top-k sensitivity on MemoryAgentBench, Δ vs k = 15 with paired 95% intervals).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import NullLocator

from memdiag.plots._reading import labels_of, level, warning_lines
from memdiag.plots.style import (
    ONE_COLUMN,
    PALETTE,
    TWO_COLUMN,
    at_least,
    break_label,
    figure_and_axes,
    footer,
    new_figure,
    require,
    styled,
    system_styles,
    text_size,
    tidy_axes,
)

#: Above this ratio of the largest to the smallest value the x axis is logarithmic.
LOG_SPAN = 10.0
#: Total horizontal spread of the dodged lines, as a fraction of one step between values.
DODGE = 0.35


def default_value(frame: pd.DataFrame, default: float | None):
    """The default setting: ``default``, else ``frame.attrs["default"]``, else the one value
    whose rows are all exactly zero with a zero-width interval (the default compared with
    itself); ``None`` when none of these identifies it.

    >>> f = pd.DataFrame({"value": [5, 15, 30], "diff": [-1.0, 0.0, 0.4],
    ...                   "ci_low": [-2.0, 0.0, -0.5], "ci_high": [0.1, 0.0, 1.2]})
    >>> default_value(f, None)
    15
    """
    if default is not None:
        return default
    if "default" in frame.attrs:
        return frame.attrs["default"]
    zero = frame[["diff", "ci_low", "ci_high"]].eq(0).all(axis=1).groupby(frame["value"]).all()
    candidates = zero.index[zero].tolist()
    return candidates[0] if len(candidates) == 1 else None


@styled
def sensitivity(
    frame: pd.DataFrame,
    parameter: str = "final_k",
    default: float | None = None,
    ax: Axes | None = None,
    all_systems: Sequence[str] | None = None,
    reference: str | None = None,
    *,
    labels: Mapping[str, str] | None = None,
    total: bool = True,
) -> Figure:
    """Difference from the default setting across parameter values, with paired intervals, under
    the score itself at each value.

    Parameters
    ----------
    frame
        One row per parameter value (and system): ``value, diff, ci_low, ci_high`` in points,
        the difference from the default with its paired interval; optional ``system`` for one
        line per system.
    parameter
        The parameter's name, for the x label (``final_k`` → "final k").
    default
        The default value, marked on the plot (see :func:`default_value` when omitted). It need
        not be a row of ``frame``: it is drawn at zero difference.
    ax
        Axes to draw on (default: a new figure, one column wide up to six lines, else two).
    all_systems
        The analysis' ordered system list fixing the colours (default: the frame's systems).
    reference
        The analysis' reference system: it takes no palette slot (as in every memdiag figure)
        and is drawn grey if it is one of the lines.
    labels
        Aliases ``{system: label}`` for the legend (default ``attrs["labels"]``); long names are
        shortened.
    total
        When the frame has the score of each setting (``estimate``, as :func:`memdiag.sensitivity`
        gives) and the function makes its own figure: draw it in a panel above the differences,
        on the same x axis (the paper's Figure 4 shows both). ``False``: the differences alone.

    Returns
    -------
    matplotlib.figure.Figure
        The x axis is logarithmic when the values are positive and span more than 10×, with
        ticks at the values. Artist ids: ``sensitivity-<system>`` (line; ``sensitivity`` with
        no ``system`` column), ``sensitivity-ci-<system>``, ``sensitivity-default``, and in the
        score panel ``sensitivity-total-<system>`` (``sensitivity-total``).

    Raises
    ------
    ValueError
        A frame without ``value, diff, ci_low, ci_high``, or an alias in ``labels`` that is empty or
        shared by two systems.

    Notes
    -----
    The intervals are the paired bootstrap intervals of θ(value) − θ(default) that the caller
    computed (e.g. with :func:`memdiag.sensitivity`); the plot only draws them. Raw-RAG paper
    Figure 4; SPEC §8.

    References
    ----------
    SPEC §8 (the sensitivity figure) and SPEC §5.3 (Holm over one system's settings); Raw-RAG
    paper C.6 ("retrieval-design ablations") and Figure 4.

    Examples
    --------
    >>> f = pd.DataFrame({"value": [1, 5, 15, 60], "diff": [-11.7, -1.0, 0.0, 0.8],
    ...                   "ci_low": [-14.0, -2.4, 0.0, -0.6], "ci_high": [-9.5, 0.3, 0.0, 2.1]})
    >>> fig = sensitivity(f)
    >>> fig.axes[0].get_xscale(), fig.axes[0].get_xlabel()
    ('log', 'final k')
    """
    require(frame, ("value", "diff", "ci_low", "ci_high"), "the sensitivity frame")
    has_systems = "system" in frame.columns
    names = list(dict.fromkeys(frame["system"])) if has_systems else [None]
    styles = system_styles(list(all_systems) if all_systems is not None else names, reference,
                           labels_of(frame, labels)) if has_systems else {}
    default = default_value(frame, default)
    values = np.sort(frame["value"].astype(float).unique())
    shown = values if default is None else np.union1d(values, [float(default)])
    log = bool((shown > 0).all() and shown.max() > LOG_SPAN * shown.min())
    width = at_least(ONE_COLUMN if len(names) <= 6 else TWO_COLUMN)
    entries = ([break_label(styles[n].label, width - 0.7) for n in names] if has_systems else []) + \
        ([f"default ({parameter.replace('_', ' ')} = {default:g})"] if default is not None else [])
    widest = max((text_size(e)[0] for e in entries), default=0.0) + 0.5  # with handle and gap
    per_row = max(1, min(6, int((width - 0.3) // widest)))
    legend_rows = -(-len(entries) // per_row)
    legend_h = sum(max((text_size(e)[1] for e in entries[i::legend_rows]), default=0)
                   for i in range(legend_rows))  # an upper bound: every row as tall as its tallest
    base = (2.4 if len(names) <= 6 else 3.2) + legend_h + 0.05 * legend_rows
    top, own = None, ax is None
    if ax is None and total and "estimate" in frame.columns and frame["estimate"].notna().any():
        fig = new_figure(width, base + 1.5)
        top, ax = fig.subplots(2, 1, sharex=True, height_ratios=(1.0, 1.3))
        tidy_axes(top)
        top.tick_params(labelbottom=False)
        top.set_ylabel(f"{frame.attrs.get('metric', 'score')} (%)")
    else:
        fig, ax = figure_and_axes(ax, width, base)
    tidy_axes(ax)
    if log:
        ax.set_xscale("log")
    scale = np.log if log else (lambda v: v)
    steps = np.diff(scale(shown))
    step = float(steps.min()) if len(steps) else 1.0
    offsets = (np.arange(len(names)) - (len(names) - 1) / 2) * (DODGE * step / max(len(names), 2))
    for offset, name in zip(offsets, names):
        rows = (frame[frame["system"] == name] if has_systems else frame).sort_values("value")
        x = rows["value"].to_numpy(dtype=float)
        x = np.exp(np.log(x) + offset) if log else x + offset
        y = rows["diff"].to_numpy(dtype=float)
        style = styles.get(name)
        color = style.color if style else PALETTE[0]
        gid = f"sensitivity-{name}" if has_systems else "sensitivity"
        ax.errorbar(x, y, yerr=[y - rows["ci_low"].to_numpy(dtype=float),
                                rows["ci_high"].to_numpy(dtype=float) - y],
                    fmt="none", ecolor=color, elinewidth=0.9, capsize=2, capthick=0.9,
                    gid=f"sensitivity-ci-{name}" if has_systems else "sensitivity-ci")
        ax.plot(x, y, color=color, lw=1.0, marker="o", markersize=3.5,
                label=break_label(style.label, width - 0.7) if style else name, gid=gid)
        if top is not None:
            top.plot(x, rows["estimate"].to_numpy(dtype=float), color=color, lw=1.0, marker="o",
                     markersize=3.5, gid=gid.replace("sensitivity", "sensitivity-total", 1))
    ax.axhline(0, color="0.4", lw=0.7, ls="--", zorder=0)
    handles = []
    if default is not None:
        for a in (ax, top) if top is not None else (ax,):
            a.axvline(float(default), color="0.5", lw=0.7, ls=":", zorder=0)
        ax.plot([float(default)], [0], ls="", marker="D", markersize=5, color="black", zorder=4,
                gid="sensitivity-default")
        handles.append(Line2D([], [], ls="", marker="D", markersize=5, color="black",
                              label=f"default ({parameter.replace('_', ' ')} = {default:g})"))
    ax.set_xticks(shown, [f"{v:g}" for v in shown])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlabel(parameter.replace("_", " "))
    ax.set_ylabel("difference from default (points)")
    if has_systems:
        handles = ax.get_legend_handles_labels()[0] + handles
    if handles:
        (top if top is not None else ax).legend(
            handles=handles, loc="lower left", bbox_to_anchor=(0, 1.01), borderaxespad=0,
            ncols=-(-len(handles) // legend_rows), columnspacing=1.0, handlelength=1.6)
    if own:  # the level the frame states, and its warnings
        bars = [f"Bars: paired {level(frame)}s of the difference from the default."] \
            if "confidence_level" in frame.attrs else []
        footer(fig, bars + warning_lines(frame, labels_of(frame, labels)), gid="sensitivity-notes")
    return fig
