"""Native retrieval vs the complete store, with the gap to raw evidence: a dumbbell per memory
system (Raw-RAG paper Figure 5, §5.3).

Each row is one memory system: a hollow dot at its native score (N, its own retrieval), a filled
dot at its complete-store score (C, selection over everything it stored), joined by a line in the
system's colour — how much better access to the store recovers — and a dotted grey line on to the
raw-evidence control (R, one shared run, the grey vertical line and its interval band): the gap no
access to the store closes. Beside the plot, C − N and R − C with their paired intervals and the
adjusted p of the gap. Rows are sorted by the complete-store score. The numbers are those of
:func:`memdiag.store_gap`; nothing is recomputed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.transforms import blended_transform_factory

from memdiag.plots._names import name_key
from memdiag.plots._reading import (
    correction,
    labels_of,
    level,
    p_header,
    p_text,
    warning_lines,
)
from memdiag.plots.style import (
    FONT_SIZE,
    ONE_COLUMN,
    REFERENCE_COLOR,
    SMALL_FONT_SIZE,
    TWO_COLUMN,
    add_note,
    at_least,
    new_figure,
    note_height,
    plain,
    require,
    root_figure,
    signed,
    styled,
    system_styles,
    text_size,
    tidy_axes,
    wrap,
)

# Layout in inches, as the forest plot's: row height, narrowest plot, column gap, outer margin.
_ROW = 0.22
_MIN_PLOT = 1.3
_GAP = 0.1
_MARGIN = 0.06
_MARKER = 5.0
_INK = "#444444"


def _difference(row: pd.Series, kind: str) -> str:
    if pd.isna(row[kind]):
        return "–"
    low, high = row[f"{kind}_ci_low"], row[f"{kind}_ci_high"]
    interval = "" if pd.isna(low) else f" [{plain(low)}, {plain(high)}]"
    return f"{signed(row[kind])}{interval}"


@styled
def store_gap(frame: pd.DataFrame, ax: Axes | None = None, all_systems: Sequence[str] | None = None, *,
              labels: Mapping[str, str] | None = None) -> Figure:
    """Dumbbells from native to complete-store scores, with the raw-evidence control and the gaps.

    Parameters
    ----------
    frame
        :func:`memdiag.store_gap` output: ``system, native, complete, raw`` (points), ``gain`` and
        ``gap`` with ``_ci_low`` / ``_ci_high``, ``gap_p_adj``, and ``raw_ci_low`` /
        ``raw_ci_high`` for the band.
    ax
        Axes to draw on; the text columns go to the right of it (make room for them). Default: a
        new figure laid out around its text, one or two columns wide (wider only when the labels
        need it), its height following the rows.
    all_systems
        The analysis' ordered system list fixing the colours (default: the frame's systems).
    labels
        Aliases ``{system: label}`` (default ``attrs["labels"]``).

    Returns
    -------
    matplotlib.figure.Figure
        Artist ids: ``gap-native-<system>``, ``gap-complete-<system>`` (the dots),
        ``gap-gain-<system>`` (N–C line), ``gap-rest-<system>`` (C–R line), ``gap-raw`` (the raw
        line), ``gap-text-gain-<system>``, ``gap-text-gap-<system>``, ``gap-text-p-<system>``.

    Raises
    ------
    ValueError
        A frame without ``system, native, complete, raw, gain, gap``, or an alias in ``labels`` that
        is empty or shared by two systems.

    References
    ----------
    SPEC §8 (native vs complete store vs raw) and SPEC §7.10 (the scores and their paired
    differences); Raw-RAG paper §5.3, Table 29 and Figure 5.

    Examples
    --------
    >>> f = pd.DataFrame({"system": ["mem0", "zep"], "native": [28.0, 40.0], "complete": [45.0, 50.0],
    ...     "raw": [61.6, 61.6], "raw_ci_low": [58.0, 58.0], "raw_ci_high": [65.0, 65.0],
    ...     "gain": [17.0, 10.0], "gain_ci_low": [14.0, 7.0], "gain_ci_high": [20.0, 13.0],
    ...     "gap": [16.6, 11.6], "gap_ci_low": [13.0, 8.0], "gap_ci_high": [20.0, 15.0],
    ...     "gap_p_adj": [0.0001, 0.002]})
    >>> fig = store_gap(f)
    >>> [t.get_text() for t in fig.texts if t.get_gid() == "gap-text-gap-zep"]
    ['+11.6 [8.0, 15.0]']
    """
    require(frame, ("system", "native", "complete", "raw", "gain", "gap"), "the store-gap frame")
    rows = frame.assign(_key=frame["system"].astype(str)).sort_values(
        ["complete", "_key"], ascending=[False, True], kind="stable").reset_index(drop=True)
    present = list(rows["system"].astype(str))
    aliases = labels_of(frame, labels)
    styles = system_styles(list(all_systems) if all_systems is not None else present, None, aliases)
    shown = [styles[s].label for s in present]
    p_column = "gap_p_adj" if "gap_p_adj" in rows else None
    headers = [f"C {chr(0x2212)} N\n[{level(frame)}]", f"R {chr(0x2212)} C\n[{level(frame)}]"] + \
        ([p_header(frame)] if p_column else [])
    columns = [[_difference(r, "gain") for _, r in rows.iterrows()],
               [_difference(r, "gap") for _, r in rows.iterrows()]]
    if p_column:
        columns.append([p_text(p) for p in rows[p_column]])
    widths = [max([text_size(t)[0] for t in values] + [text_size(h, weight="bold")[0]])
              for values, h in zip(columns, headers)]
    label_w = max(text_size(t)[0] for t in shown)
    text_w = _MARGIN + label_w + 0.06 + _GAP + sum(w + _GAP for w in widths) + _MARGIN
    width = at_least(ONE_COLUMN if text_w + _MIN_PLOT <= ONE_COLUMN else
                     max(TWO_COLUMN, text_w + _MIN_PLOT))
    plot_w = width - text_w
    left = _MARGIN + label_w + 0.06
    raw = float(rows["raw"].iloc[0])
    metric = frame.attrs.get("metric", "accuracy")
    xlabel = wrap(f"{metric} (points)", plot_w + label_w, FONT_SIZE)
    tests = frame["test"].iloc[0] if "test" in frame.columns and len(frame) else ""
    notes = [f"Hollow: native retrieval (N); filled: complete store (C); grey line and band: the raw-evidence "
             f"control (R = {plain(raw)}, its {level(frame)}). C {chr(0x2212)} N and R {chr(0x2212)} C are paired "
             f"differences with {level(frame)}s"
             + (f"; p: {tests + ', ' if tests else ''}{correction(frame).removesuffix(' p')} over the {len(rows)} "
                "systems." if p_column else "."),
             name_key({s: styles[s].label for s in present}, aliases), *warning_lines(frame, aliases)]
    header_h = max(text_size(h, weight="bold")[1] for h in headers) + 0.08
    legend_h = 0.2
    notes_h = note_height(notes, width)
    bottom = 0.2 + text_size(xlabel, FONT_SIZE)[1] + 0.06 + legend_h + notes_h
    plot_h = _ROW * len(rows)
    height = header_h + plot_h + 0.08 + bottom
    y = np.arange(len(rows))[::-1].astype(float)
    band = [float(rows[c].iloc[0]) for c in ("raw_ci_low", "raw_ci_high") if c in rows]
    if ax is not None:
        fig = root_figure(ax)
        _draw(ax, rows, y, present, shown, styles, raw, band)
        ax.set_xlabel(f"{metric} (points)")
        place = blended_transform_factory(ax.transAxes, ax.transData)
        x = 1.02
        for kind, values_, header, w in zip(("gain", "gap", "p"), columns, headers, widths):
            ax.text(x, len(rows) - 0.4, header, transform=place, ha="left", va="bottom", fontsize=SMALL_FONT_SIZE,
                    fontweight="bold", gid=f"gap-header-{kind}")
            for yy, value, system in zip(y, values_, present):
                ax.text(x, yy, value, transform=place, ha="left", va="center", fontsize=SMALL_FONT_SIZE,
                        gid=f"gap-text-{kind}-{system}")
            x += (w + _GAP) / (ax.get_position().width * fig.get_size_inches()[0])
        ax.legend(handles=_handles(), loc="lower left", bbox_to_anchor=(0, 1.02), ncols=3, borderaxespad=0,
                  handletextpad=0.3, columnspacing=1.0, handlelength=1.0).set_gid("gap-legend")
        return fig
    fig = new_figure(width, height, constrained=False)
    ax = fig.add_axes((left / width, bottom / height, plot_w / width, plot_h / height))
    _draw(ax, rows, y, present, shown, styles, raw, band)
    fig.text((left + plot_w / 2) / width, (bottom - 0.2) / height, xlabel, ha="center", va="top",
             fontsize=FONT_SIZE, gid="gap-xlabel")
    x = left + plot_w + _GAP
    to_fig = ax.transData + fig.transFigure.inverted()
    for kind, values_, header, w in zip(("gain", "gap", "p"), columns, headers, widths):
        right = (x + w) / width
        fig.text(right, (bottom + plot_h + 0.04) / height, header, ha="right", va="bottom",
                 fontsize=SMALL_FONT_SIZE, fontweight="bold", gid=f"gap-header-{kind}")
        for yy, value, system in zip(y, values_, present):
            fig.text(right, to_fig.transform((0, yy))[1], value, ha="right", va="center",
                     fontsize=SMALL_FONT_SIZE, gid=f"gap-text-{kind}-{system}")
        x += w + _GAP
    fig.legend(handles=_handles(), loc="center left",
               bbox_to_anchor=(_MARGIN / width, (notes_h + legend_h / 2) / height), ncols=3, borderaxespad=0,
               borderpad=0, handletextpad=0.3, columnspacing=1.0, handlelength=1.0).set_gid("gap-legend")
    add_note(fig, notes, gid="gap-notes")
    return fig


def _draw(ax: Axes, rows: pd.DataFrame, y: np.ndarray, present: list[str], shown: list[str], styles: dict,
          raw: float, band: list[float]) -> None:
    """The raw line and band, each row's dumbbell and dotted gap, the row labels."""
    tidy_axes(ax)
    values = rows[["native", "complete", "raw"]].to_numpy(dtype=float)
    lo, hi = np.nanmin(np.append(values, band)), np.nanmax(np.append(values, band))
    pad = 0.06 * max(hi - lo, 1.0)
    ax.set_xlim(lo - pad, hi + pad)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    if len(band) == 2:
        ax.axvspan(band[0], band[1], color=REFERENCE_COLOR, alpha=0.18, lw=0, zorder=0)
    ax.axvline(raw, color=REFERENCE_COLOR, lw=1.2, zorder=1, gid="gap-raw")
    for yy, (_, row), system in zip(y, rows.iterrows(), present):
        color = styles[system].color
        ax.plot([row["complete"], raw], [yy, yy], color="0.55", lw=0.9, ls=":", zorder=1, gid=f"gap-rest-{system}")
        if pd.notna(row["native"]):
            ax.plot([row["native"], row["complete"]], [yy, yy], color=color, lw=1.6, zorder=2,
                    gid=f"gap-gain-{system}")
            ax.plot([row["native"]], [yy], ls="", marker="o", markersize=_MARKER, markeredgewidth=1.1,
                    markeredgecolor=color, markerfacecolor="white", zorder=3, gid=f"gap-native-{system}")
        ax.plot([row["complete"]], [yy], ls="", marker="o", markersize=_MARKER, markeredgewidth=1.1,
                markeredgecolor=color, markerfacecolor=color, zorder=3, gid=f"gap-complete-{system}")
    ax.set_yticks(y, shown)
    ax.tick_params(axis="y", length=0, pad=4)
    ax.spines["left"].set_visible(False)


def _handles() -> list:
    """Legend entries: the two dots and the raw-evidence band."""
    return [Line2D([], [], ls="", marker="o", markersize=_MARKER, markeredgecolor=_INK, markerfacecolor="white",
                   label="native (N)"),
            Line2D([], [], ls="", marker="o", markersize=_MARKER, markeredgecolor=_INK, markerfacecolor=_INK,
                   label="complete store (C)"),
            Patch(facecolor=REFERENCE_COLOR, alpha=0.5, edgecolor=REFERENCE_COLOR, label="raw evidence (R)")]
