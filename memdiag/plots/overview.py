"""Accuracy across benchmark × model settings as small multiples (Raw-RAG paper Figure 1 left).

One panel per setting, each on its own linear scale fitted to its scores (the paper's "sector-wise
truncated linear scales": a benchmark scored near 40% and one near 80% both stay readable). Every
panel lists the same systems in the same order — by their mean rank over the settings, best on
top — so a system is found on one row across panels; a system not run in a setting leaves its row
empty (systems that first appear in a later setting follow those of the earlier ones). The dot
is the official score, the bar its interval, the reference grey with a dotted line
at its score; the best system of each panel has its score written beside it. The numbers are those
of :func:`memdiag.overview` (or of score frames given per setting); nothing is recomputed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from memdiag.plots._names import name_key
from memdiag.plots._reading import labels_of, level, warning_lines
from memdiag.plots.style import (
    ONE_COLUMN,
    SMALL_FONT_SIZE,
    TWO_COLUMN,
    add_note,
    at_least,
    new_figure,
    note_height,
    plain,
    require,
    styled,
    system_styles,
    text_size,
    tidy_axes,
    wrap,
)

# Layout in inches: row height, narrowest panel, gaps, outer margin, title and axis bands.
_ROW = 0.19
_MIN_PANEL = 1.15
_GAP = 0.22
_MARGIN = 0.06
_AXIS = 0.3
_TITLE_PAD = 0.06
#: The key of the pooled panel among the settings' panels.
POOLED = object()


def _as_frame(scores: pd.DataFrame | Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """One frame with a ``setting`` column: the frame itself, or score frames keyed by setting."""
    if isinstance(scores, Mapping):
        parts = []
        for name, frame in scores.items():
            require(frame, ("system", "estimate", "ci_low", "ci_high"), f"the score frame of '{name}'")
            parts.append(frame[["system", "estimate", "ci_low", "ci_high"]].assign(setting=str(name)))
        if not parts:
            raise ValueError("overview needs at least one setting.")
        out = pd.concat(parts, ignore_index=True)
        out.attrs = dict(next(iter(scores.values())).attrs)
        return out
    require(scores, ("system", "estimate", "ci_low", "ci_high"), "the overview frame")
    if "setting" not in scores.columns:
        by = [c for c in ("benchmark", "model") if c in scores.columns]
        if not by:
            raise ValueError("the overview frame needs a 'setting' column, or 'benchmark' and/or 'model' "
                             "(md.overview output), or pass a mapping {setting: score frame}.")
        scores = scores.assign(setting=scores[by].astype(str).agg(" · ".join, axis=1).str.strip(" ·"))
    return scores


def _limits(values: np.ndarray) -> tuple[float, float]:
    """A panel's x range: its intervals with 8% padding, never beyond [0, 100] points."""
    lo, hi = float(np.nanmin(values)), float(np.nanmax(values))
    span = max(hi - lo, 2.0)
    return max(lo - 0.08 * span, 0.0), min(hi + 0.08 * span, 100.0)


@styled
def overview(
    scores: pd.DataFrame | Mapping[str, pd.DataFrame],
    reference: str | None = None,
    all_systems: Sequence[str] | None = None,
    *,
    labels: Mapping[str, str] | None = None,
    ncols: int | None = None,
    pooled: pd.DataFrame | None = None,
) -> Figure:
    """Small multiples of every system's score in every setting, each panel on its own scale.

    Parameters
    ----------
    scores
        :func:`memdiag.overview` output (``setting`` or ``benchmark``/``model``, ``system,
        estimate, ci_low, ci_high`` in points), or a mapping ``{setting: score frame}`` of
        :func:`memdiag.bootstrap` / :func:`memdiag.score`-like frames.
    reference
        The reference system: grey, with a dotted line at its score in each panel (default: the
        frame's ``is_reference`` rows when present).
    all_systems
        The analysis' ordered system list fixing the colours (default: the frame's systems).
    labels
        Aliases ``{system: label}`` (default ``attrs["labels"]``); long names are shortened and
        listed under the figure.
    ncols
        Panels per row (default: all in one row up to 4, else 4).
    pooled
        :func:`memdiag.pool_settings` output: a last panel draws each system's pooled difference from
        the reference (points) with its interval (thick) and prediction interval (thin), a line at
        0, and beside it ``u/N``, the settings in which it beats the reference (SPEC §10.2).

    Returns
    -------
    matplotlib.figure.Figure
        Artist ids: ``overview-<setting>-<system>`` (dot), ``overview-ci-<setting>-<system>``
        (interval), ``overview-best-<setting>`` (the best score's text), ``overview-title-<setting>``;
        with ``pooled``, ``overview-pooled-<system>`` (dot), ``overview-pooled-ci-<system>``,
        ``overview-pooled-pi-<system>`` and ``overview-beats-<system>`` (the ``u/N`` text).

    Raises
    ------
    ValueError
        A frame (or a setting's frame) without ``system, estimate, ci_low, ci_high``, an empty
        mapping, a frame without ``setting``, ``benchmark`` or ``model``, or an alias in ``labels``
        that is empty or shared by two systems.

    References
    ----------
    SPEC §8 (overview across settings), SPEC §10.1–10.2 (the pooled panel); Raw-RAG paper Figure 1
    (left) and §4.2.

    Examples
    --------
    >>> f = pd.DataFrame({"setting": ["A"] * 2 + ["B"] * 2, "system": ["rag", "mem"] * 2,
    ...                   "estimate": [60.0, 50.0, 40.0, 45.0], "ci_low": [55.0, 45.0, 35.0, 40.0],
    ...                   "ci_high": [65.0, 55.0, 45.0, 50.0]})
    >>> fig = overview(f, reference="rag")
    >>> [t.get_text() for t in fig.texts if (t.get_gid() or "").startswith("overview-best")]
    ['60.0', '45.0']
    """
    frame = _as_frame(scores)
    if reference is None and "is_reference" in frame.columns and frame["is_reference"].any():
        reference = str(frame.loc[frame["is_reference"].astype(bool), "system"].iloc[0])
    settings = list(dict.fromkeys(frame["setting"].astype(str)))
    ranks = frame.assign(_rank=frame.groupby("setting")["estimate"].rank(ascending=False, method="min"),
                         _first=frame["setting"].astype(str).map(settings.index))
    keys = ranks.groupby("system", sort=False).agg(first=("_first", "min"), rank=("_rank", "mean"))
    order = keys.sort_values(["first", "rank"], kind="stable").index.tolist()
    aliases = labels_of(frame, labels)
    styles = system_styles(list(all_systems) if all_systems is not None else order, reference, aliases)
    if pooled is not None:
        require(pooled, ("system", "reference", "estimate", "ci_low", "ci_high", "pi_low", "pi_high", "beats_in",
                         "n_settings"), "the pooled frame")
    panels = settings + ([POOLED] if pooled is not None else [])
    k = len(panels)
    ncols = ncols or min(k, 4)
    nrows = math.ceil(k / ncols)
    shown = [styles[s].label for s in order]
    label_w = max(text_size(t)[0] for t in shown)
    need = 2 * _MARGIN + label_w + 0.08 + ncols * _MIN_PANEL + (ncols - 1) * _GAP
    width = at_least(ONE_COLUMN if need <= ONE_COLUMN else max(TWO_COLUMN, need))
    panel_w = (width - 2 * _MARGIN - label_w - 0.08 - (ncols - 1) * _GAP) / ncols
    if pooled is not None:
        ref = str(pooled["reference"].iloc[0])
        pooled_title = f"pooled Δ vs {styles[ref].label if ref in styles else ref}"
    titles = [wrap(pooled_title if s is POOLED else s, panel_w, SMALL_FONT_SIZE + 1) for s in panels]
    title_h = max(text_size(t, SMALL_FONT_SIZE + 1)[1] for t in titles) + _TITLE_PAD
    panel_h = _ROW * len(order)
    notes = [f"Dots: official scores (points); bars: {level(frame)}s; each panel on its own scale. "
             "Systems in order of their mean rank over the settings they were run in; the best score of each "
             "panel is written.",
             name_key({s: styles[s].label for s in order}, aliases),
             *dict.fromkeys(w for f in (frame, pooled) if f is not None for w in warning_lines(f, aliases))]
    if pooled is not None:
        methods = ", ".join(sorted({f"τ² {t}, {i} interval" for t, i in zip(pooled.get("tau2_method", []),
                                                                            pooled.get("interval", []))
                                    if isinstance(t, str) and isinstance(i, str)}))
        notes.insert(1, f"Last panel: random-effects pooled difference from the reference over the settings "
                        f"(points; {level(pooled)}{'; ' + methods if methods else ''}), thin line the prediction "
                        "interval for a new "
                        f"setting; u/N: the settings in which the system beats the reference "
                        f"({str(pooled.attrs.get('correction', 'partial-conjunction')).capitalize()} "
                        "partial conjunction).")
    notes_h = note_height(notes, width)
    band = title_h + panel_h + _AXIS
    height = nrows * band + notes_h + _MARGIN
    fig = new_figure(width, height, constrained=False)
    y = np.arange(len(order))[::-1].astype(float)
    for i, (setting, title) in enumerate(zip(panels, titles)):
        row, col = divmod(i, ncols)
        left = _MARGIN + label_w + 0.08 + col * (panel_w + _GAP)
        bottom = height - _MARGIN / 2 - (row + 1) * band + _AXIS
        ax = fig.add_axes((left / width, bottom / height, panel_w / width, panel_h / height))
        if setting is POOLED:
            _pooled_panel(ax, pooled, order, y, styles)
            ax.set_yticks(y, shown if col == 0 else [""] * len(y))
            fig.text((left + panel_w / 2) / width, (bottom + panel_h + _TITLE_PAD / 2) / height, title,
                     ha="center", va="bottom", fontsize=SMALL_FONT_SIZE + 1, gid="overview-title-pooled")
            continue
        part = frame[frame["setting"].astype(str) == setting].set_index("system")
        _panel(ax, part, order, y, styles, reference, setting)
        if col == 0:
            ax.set_yticks(y, shown)
        else:
            ax.set_yticks(y, [""] * len(y))
        fig.text((left + panel_w / 2) / width, (bottom + panel_h + _TITLE_PAD / 2) / height, title,
                 ha="center", va="bottom", fontsize=SMALL_FONT_SIZE + 1, gid=f"overview-title-{setting}")
        best = part["estimate"].idxmax() if len(part) else None
        if best is not None:
            to_fig = ax.transData + fig.transFigure.inverted()
            x_best, y_best = to_fig.transform((part.loc[best, "ci_high"], y[order.index(best)]))
            fig.text(x_best + 0.03 / width, y_best, plain(part.loc[best, "estimate"]), ha="left", va="center",
                     fontsize=SMALL_FONT_SIZE, gid=f"overview-best-{setting}")
    add_note(fig, notes, gid="overview-notes")
    return fig


def _pooled_panel(ax: Axes, pooled: pd.DataFrame, order: list[str], y: np.ndarray, styles: dict) -> None:
    """The pooled differences: interval, prediction interval, dot, and ``u/N`` at the right edge."""
    tidy_axes(ax)
    rows = pooled.set_index("system")
    drawn = [s for s in order if s in rows.index]
    ends = rows.loc[drawn, ["estimate", "ci_low", "ci_high", "pi_low", "pi_high"]].to_numpy(dtype=float)
    finite = ends[np.isfinite(ends)]
    lo, hi = (min(float(finite.min()), 0.0), max(float(finite.max()), 0.0)) if finite.size else (-1.0, 1.0)
    span = max(hi - lo, 1.0)
    ax.set_xlim(lo - 0.05 * span, hi + 0.32 * span)
    ax.axvline(0.0, color="0.4", lw=0.7, ls="-", zorder=0)
    for system in drawn:
        yy = y[order.index(system)]
        row = rows.loc[system]
        color = styles[system].color
        if np.isfinite(row["pi_low"]):
            ax.plot([row["pi_low"], row["pi_high"]], [yy, yy], color=color, lw=0.5,
                    gid=f"overview-pooled-pi-{system}")
        if np.isfinite(row["estimate"]):
            ax.plot([row["ci_low"], row["ci_high"]], [yy, yy], color=color, lw=1.6, solid_capstyle="butt",
                    gid=f"overview-pooled-ci-{system}")
            ax.plot([row["estimate"]], [yy], ls="", marker="D", markersize=3.5, color=color, zorder=3,
                    gid=f"overview-pooled-{system}")
        ax.text(1.0, yy, f"{int(row['beats_in'])}/{int(row['n_settings'])}", transform=ax.get_yaxis_transform(),
                ha="right", va="center", fontsize=SMALL_FONT_SIZE, gid=f"overview-beats-{system}")
    ax.set_ylim(-0.6, len(order) - 0.4)
    ax.xaxis.set_major_locator(MaxNLocator(nbins=4, steps=[1, 2, 2.5, 5, 10]))
    ax.tick_params(axis="y", length=0, pad=3)
    ax.spines["left"].set_visible(False)
    ax.grid(axis="y", color="0.92", lw=0.5)
    ax.set_axisbelow(True)


def _panel(ax: Axes, part: pd.DataFrame, order: list[str], y: np.ndarray, styles: dict,
           reference: str | None, setting: str) -> None:
    """One setting: dots and intervals on the panel's own x range, the reference's dotted line."""
    tidy_axes(ax)
    if len(part):
        low, high = _limits(part[["ci_low", "ci_high", "estimate"]].to_numpy(dtype=float))
        best_text = text_size("100.0")[0]  # room for the best score's text right of its bar
        span = high - low
        panel_w = ax.get_position().width * ax.figure.get_size_inches()[0]
        ax.set_xlim(low, high + span * best_text / max(panel_w - best_text, 0.3))
    for system in part.index:
        yy = y[order.index(system)]
        row = part.loc[system]
        color = styles[system].color
        ax.plot([row["ci_low"], row["ci_high"]], [yy, yy], color=color, lw=1.1, solid_capstyle="butt",
                gid=f"overview-ci-{setting}-{system}")
        ax.plot([row["estimate"]], [yy], ls="", marker="o", markersize=4, color=color, zorder=3,
                gid=f"overview-{setting}-{system}")
    if reference is not None and reference in part.index:
        ax.axvline(part.loc[reference, "estimate"], color=styles[reference].color, lw=0.8, ls=":", zorder=0)
    ax.set_ylim(-0.6, len(order) - 0.4)
    ax.xaxis.set_major_locator(MaxNLocator(nbins=4, steps=[1, 2, 2.5, 5, 10]))
    ax.tick_params(axis="y", length=0, pad=3)
    ax.spines["left"].set_visible(False)
    ax.grid(axis="y", color="0.92", lw=0.5)
    ax.set_axisbelow(True)
