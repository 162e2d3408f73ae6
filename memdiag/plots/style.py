"""Figure style shared by every memdiag figure: palette, per-system colours, sizes, fonts, save().

Palette
-------
Systems take colours, in the order of the analysis' system list, from the **Okabe–Ito** set
(Okabe & Ito 2008, "Color Universal Design"; 8 colours) and then from **Paul Tol's "muted"**
qualitative set (9 colours). The reference (usually raw-history RAG) is always the neutral grey
``#999999`` (the grey of the Okabe–Ito palette as distributed in R's ``palette.colors``). Both
sets are designed to stay distinguishable under the common colour-vision deficiencies.

Colour rule
-----------
:func:`system_styles` walks the ordered system list, skipping the reference. System number k
(0-based) takes colour ``COLORS[k % 17]`` where ``COLORS`` is Okabe–Ito followed by Tol muted; the
colours are used in blocks (8 Okabe–Ito, 9 Tol, 8 Okabe–Ito, …) and block b gives every system in
it the marker ``MARKERS[b]`` and the hatch ``HATCHES[b]``. So systems 1–8 are plain circles in
Okabe–Ito colours, systems 9–17 squares (and ``//`` hatching where areas are filled) in Tol
colours, systems 18–25 triangles with back-slash hatching, and so on: colour plus marker/hatch is
unique for the first 68 systems. The rule depends only on the ordered list, so one analysis gives
one system the same colour in every figure; pass the analysis' full list (``all_systems=`` of each
plot function) when a figure shows a subset.

Sizes and fonts
---------------
Figures are made at their printed size: one paper column :data:`ONE_COLUMN` (3.5 in) or two
columns :data:`TWO_COLUMN` (7.2 in) wide, so no scaling happens in the paper. The font is DejaVu
Sans (bundled with matplotlib, hence identical on every machine) at 8 pt, tick and annotation
text at 7 pt: no text in a memdiag figure is below 7 pt. Plot functions draw under :data:`RC`;
axes you pass in keep the style they were made with (make them inside
``matplotlib.rc_context(RC)`` to match).

Saving
------
:func:`save` writes PDF (TrueType fonts embedded, ``pdf.fonttype`` 42), SVG (``svg.fonttype``
``"none"``: text stays text, so it can be searched, edited and read back by tests; a viewer
without DejaVu Sans substitutes a similar sans-serif) and PNG (300 dpi) from one stem. Output is
byte-for-byte reproducible: no dates in the metadata, a fixed ``svg.hashsalt`` for SVG element
ids, and a fixed font.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import matplotlib as mpl
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure, SubFigure

#: Okabe–Ito qualitative colours, reordered so the hard-to-see yellow comes last.
OKABE_ITO: tuple[str, ...] = ("#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9",
                              "#000000", "#F0E442")
#: Paul Tol's "muted" qualitative colours (https://personal.sron.nl/~pault/).
TOL_MUTED: tuple[str, ...] = ("#332288", "#CC6677", "#117733", "#DDCC77", "#882255", "#88CCEE",
                              "#44AA99", "#999933", "#AA4499")
#: The reference system's neutral grey.
REFERENCE_COLOR = "#999999"
#: Marker and hatch of each block of colours (block 0: Okabe–Ito, 1: Tol, 2: Okabe–Ito, …).
MARKERS: tuple[str, ...] = ("o", "s", "^", "D", "v", "P", "X", "p")
HATCHES: tuple[str, ...] = ("", "//", "\\\\", "xx", "..", "--", "++", "oo")

#: Figure widths in inches: one and two paper columns.
ONE_COLUMN = 3.5
TWO_COLUMN = 7.2
#: Font sizes in points: body text and the smallest text (ticks, annotations, legends).
FONT_SIZE = 8.0
SMALL_FONT_SIZE = 7.0

#: rcParams every memdiag figure is drawn with.
RC: dict[str, object] = {
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans"],
    "font.size": FONT_SIZE,
    "axes.titlesize": FONT_SIZE,
    "axes.labelsize": FONT_SIZE,
    "xtick.labelsize": SMALL_FONT_SIZE,
    "ytick.labelsize": SMALL_FONT_SIZE,
    "legend.fontsize": SMALL_FONT_SIZE,
    "legend.title_fontsize": SMALL_FONT_SIZE,
    "legend.frameon": False,
    "figure.titlesize": FONT_SIZE,
    "figure.labelsize": SMALL_FONT_SIZE,
    "axes.linewidth": 0.6,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "xtick.major.width": 0.6,
    "ytick.major.width": 0.6,
    "xtick.minor.width": 0.4,
    "ytick.minor.width": 0.4,
    "lines.linewidth": 1.0,
    "hatch.linewidth": 0.6,
    "axes.unicode_minus": True,
    "figure.dpi": 150,
    "text.parse_math": False,  # names are data: a '$' in a system name is not mathtext
}

#: rcParams applied while saving (fonts embedded in PDF, text kept as text in SVG, fixed ids).
SAVE_RC: dict[str, object] = {"pdf.fonttype": 42, "ps.fonttype": 42, "svg.fonttype": "none",
                              "svg.hashsalt": "memdiag"}
#: Metadata per format, without any date, so repeated runs write identical files.
METADATA: dict[str, dict[str, str | None]] = {
    "pdf": {"Creator": "memdiag", "Producer": "memdiag", "CreationDate": None, "ModDate": None},
    "svg": {"Creator": "memdiag", "Date": None},
    "png": {"Software": "memdiag"},
}
#: Raster resolution of the PNG.
PNG_DPI = 300

MINUS = "\u2212"


@dataclass(frozen=True)
class SystemStyle:
    """How one system is drawn in every figure: ``color`` (hex), ``marker``, ``hatch``."""

    color: str
    marker: str
    hatch: str


REFERENCE_STYLE = SystemStyle(REFERENCE_COLOR, "o", "")


def system_styles(systems: Iterable[str], reference: str | None = None) -> dict[str, SystemStyle]:
    """The fixed style of every system of an analysis (colour rule in the module docstring).

    Parameters
    ----------
    systems
        The analysis' systems in their fixed order (e.g. ``panel.systems``); duplicates are
        ignored after their first occurrence. The reference may be among them.
    reference
        The reference system: neutral grey, and it takes no palette slot.

    Returns
    -------
    dict
        ``{system: SystemStyle}``, the reference included when given.

    Examples
    --------
    >>> s = system_styles(["raw-rag", "mem0", "zep"], reference="raw-rag")
    >>> s["mem0"], s["raw-rag"].color
    (SystemStyle(color='#0072B2', marker='o', hatch=''), '#999999')
    """
    out: dict[str, SystemStyle] = {}
    k = 0
    for name in systems:
        if name in out or name == reference:
            continue
        block, index = _block(k)
        colors = OKABE_ITO if block % 2 == 0 else TOL_MUTED
        out[name] = SystemStyle(colors[index], MARKERS[block % len(MARKERS)],
                                HATCHES[block % len(HATCHES)])
        k += 1
    if reference is not None:
        out[reference] = REFERENCE_STYLE
    return out


def _block(k: int) -> tuple[int, int]:
    """Block number and index within the block of palette slot ``k`` (blocks of 8, 9, 8, 9, …)."""
    pair, rest = divmod(k, len(OKABE_ITO) + len(TOL_MUTED))
    if rest < len(OKABE_ITO):
        return 2 * pair, rest
    return 2 * pair + 1, rest - len(OKABE_ITO)


def system_colors(systems: Iterable[str], reference: str | None = None) -> dict[str, str]:
    """The fixed colour (hex) of every system of an analysis; the reference is grey.

    Examples
    --------
    >>> system_colors(["raw-rag", "mem0", "zep"], reference="raw-rag")
    {'mem0': '#0072B2', 'zep': '#D55E00', 'raw-rag': '#999999'}
    """
    return {name: style.color for name, style in system_styles(systems, reference).items()}


F = TypeVar("F", bound=Callable[..., Figure])


def styled(function: F) -> F:
    """Run a plotting function under :data:`RC` so every artist it creates gets the house style."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with mpl.rc_context(RC):
            return function(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def new_figure(width: float, height: float, constrained: bool = True) -> Figure:
    """A figure of the given size in inches, with an Agg canvas and no pyplot registration.

    The figure is not managed by pyplot (nothing to close, nothing leaks in long reports); a
    notebook displays it when it is the value of a cell, and :func:`save` writes it.
    """
    fig = Figure(figsize=(width, height), layout="constrained" if constrained else None)
    FigureCanvasAgg(fig)
    if constrained:
        fig.get_layout_engine().set(w_pad=2 / 72, h_pad=2 / 72, wspace=0.02, hspace=0.02)
    return fig


def figure_and_axes(ax: Axes | None, width: float, height: float) -> tuple[Figure, Axes]:
    """``ax`` and its root figure, or a new figure of ``width`` × ``height`` inches with one axes."""
    if ax is None:
        fig = new_figure(width, height)
        return fig, fig.add_subplot()
    return root_figure(ax), ax


def root_figure(ax: Axes) -> Figure:
    """The top-level :class:`~matplotlib.figure.Figure` holding ``ax`` (through sub-figures)."""
    fig = ax.figure
    while isinstance(fig, SubFigure):
        fig = fig.figure
    return fig


def renderer(fig: Figure):
    """Lay ``fig`` out (a draw without rasterising) and return a renderer to measure text."""
    if not hasattr(fig.canvas, "get_renderer"):
        FigureCanvasAgg(fig)
    fig.draw_without_rendering()
    return fig.canvas.get_renderer()


def tidy_axes(ax: Axes) -> None:
    """Explicit tick label sizes, so ticks created at draw time keep the house style."""
    ax.tick_params(labelsize=SMALL_FONT_SIZE, length=2.5, pad=2)


def signed(value: float, decimals: int = 1) -> str:
    """``+1.1`` / ``−0.8`` with a true minus sign (U+2212); a value that rounds to zero is ``+0``.

    >>> signed(-0.8), signed(-0.04), signed(2.25, 0)
    ('−0.8', '+0.0', '+2')
    """
    return f"{round(value, decimals) + 0.0:+.{decimals}f}".replace("-", MINUS)


def plain(value: float, decimals: int = 1) -> str:
    """``1.1`` / ``−0.8`` with a true minus sign (U+2212); no negative zero.

    >>> plain(-0.8), plain(-0.3, 0)
    ('−0.8', '0')
    """
    return f"{round(value, decimals) + 0.0:.{decimals}f}".replace("-", MINUS)


def require(frame, columns: Sequence[str], what: str) -> None:
    """Raise a ValueError naming the missing ``columns`` of the result frame ``what``."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{what} lacks the column(s) {', '.join(missing)} (it has "
                         f"{', '.join(map(str, frame.columns))}).")


def save(fig: Figure, path: str | Path, formats: Sequence[str] = ("pdf", "svg", "png")) -> list[Path]:
    """Write ``fig`` as PDF, SVG and PNG next to each other from one stem.

    Parameters
    ----------
    fig
        The figure (as returned by any memdiag plot function).
    path
        The stem, e.g. ``"figures/venn"``; a suffix such as ``.pdf`` is dropped. Missing folders
        are created.
    formats
        Which of ``pdf``, ``svg``, ``png`` to write (default: all three).

    Returns
    -------
    list of pathlib.Path
        The files written, in the order of ``formats``.

    Notes
    -----
    PDF embeds TrueType fonts (``pdf.fonttype`` 42); SVG keeps text as ``<text>`` elements
    (``svg.fonttype`` ``"none"``); PNG is 300 dpi. Metadata carry no date and SVG ids use a fixed
    salt, so the same figure gives the same bytes on every run. The figure keeps its size (no
    tight bounding box), so it prints at the column width it was made for.
    """
    unknown = [f for f in formats if f not in METADATA]
    if unknown:
        raise ValueError(f"cannot save as {', '.join(unknown)}: use pdf, svg or png.")
    path = Path(path)
    stem = path.with_suffix("") if path.suffix.lower() in {".pdf", ".svg", ".png"} else path
    stem.parent.mkdir(parents=True, exist_ok=True)
    written = []
    with mpl.rc_context(SAVE_RC):
        for fmt in formats:
            out = stem.parent / f"{stem.name}.{fmt}"
            fig.savefig(out, format=fmt, metadata=METADATA[fmt], facecolor="white",
                        dpi=PNG_DPI if fmt == "png" else "figure")
            written.append(out)
    return written
