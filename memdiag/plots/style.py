"""Figure style shared by every memdiag figure: palette, per-system colours and labels, sizes,
fonts, text measuring, the wording of significance, and save().

Palette
-------
Systems take colours, in the order of the analysis' system list, from :data:`PALETTE`: 20
colours, none of them black or grey (grey is reserved for the reference system, usually raw-history
RAG, drawn ``#999999``). The first six are the **Okabe–Ito** set (Okabe & Ito 2008, "Color
Universal Design"; its black is left out, and its yellow ``#F0E442``, too pale for lines and
fills on white, is not used). The next fourteen come from **Paul Tol's** qualitative schemes
(muted, bright, vibrant, light, high- and medium-contrast; Tol 2021, "Colour Schemes", SRON
technical note, https://personal.sron.nl/~pault/), in the order of a greedy search: each colour
is the Tol colour whose smallest CIELAB distance to the colours before it is largest under normal
vision and under protanopia, deuteranopia and tritanopia as simulated by Machado, Oliveira &
Fernandes (2009, IEEE TVCG 15(6), severity 1), among those with CIELAB lightness 20–80 (not black,
not pale) and at least 12 ΔE*ab from the reference grey under all four visions
(:data:`PALETTE_SOURCES` names the scheme of each; ``tests/test_plots.py`` checks these
properties with its own simulation). The first six stay distinguishable for colour-blind readers;
no set of 20 colours can, so no memdiag figure tells systems apart by colour alone: every system is
labelled where it is drawn (forest rows, Venn titles, matrix ticks, bubble labels). Beyond 20
systems the colours repeat.

Colour rule
-----------
:func:`system_styles` walks the ordered system list, skipping the reference: system number k
(0-based) takes ``PALETTE[k % 20]``. The rule depends only on the ordered list, so one analysis
gives one system the same colour in every figure; pass the analysis' full list (``all_systems=`` of
each plot function) when a figure shows a subset. Marker shapes and hatching are not used to
identify systems: a filled or hollow marker encodes significance where a figure says so.

Labels
------
Each system is drawn under a label (:mod:`memdiag.plots._names`): an alias from ``labels=`` (or
the result frame's ``attrs["labels"]``), else its name, shortened at word boundaries when it is
longer than 24 characters; the figure lists shortened names with their full names in a key.

Sizes and fonts
---------------
Figures are made at their printed size: one paper column :data:`ONE_COLUMN` (3.5 in) or two
columns :data:`TWO_COLUMN` (7.2 in) wide; a figure whose labels need more room grows rather than
clip or overlap them. The font is DejaVu Sans (bundled with matplotlib, hence identical on every
machine) at 8 pt, tick and annotation text at 7 pt: no text in a memdiag figure is below 7 pt.
Plot functions draw under :data:`RC`; axes you pass in keep the style they were made with (make
them inside ``matplotlib.rc_context(RC)`` to match).

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
import io
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import matplotlib as mpl
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure, SubFigure
from matplotlib.font_manager import FontProperties

from memdiag.io.outputs import write_file
from memdiag.plots._names import system_labels

#: The 20 system colours in the order they are given (module docstring: sources and checks).
PALETTE: tuple[str, ...] = (
    "#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9",  # Okabe–Ito
    "#332288", "#882255", "#117733", "#004488", "#AA3377", "#EE8866", "#994455", "#BBCC33",
    "#88CCEE", "#CC3311", "#EE7733", "#6699CC", "#AA4499", "#CCBB44")
#: The published scheme each colour of :data:`PALETTE` comes from.
PALETTE_SOURCES: tuple[str, ...] = (
    *["Okabe-Ito"] * 6, "Tol muted", "Tol muted", "Tol muted", "Tol high-contrast", "Tol bright",
    "Tol light", "Tol medium-contrast", "Tol light", "Tol muted", "Tol vibrant", "Tol vibrant",
    "Tol medium-contrast", "Tol muted", "Tol bright")
#: The reference system's neutral grey (the Okabe–Ito grey of R's ``palette.colors``) and the
#: darker grey of its outlines; no other system is drawn grey or black.
REFERENCE_COLOR = "#999999"
REFERENCE_EDGE = "#666666"

#: Figure widths in inches: one and two paper columns.
ONE_COLUMN = 3.5
TWO_COLUMN = 7.2
#: Width presets of ``memdiag plot --width`` (inches): ``column`` draws each figure one column wide
#: unless its text needs two (column widths: ACL 3.3, ACM 3.33, IEEE 3.5); ``page`` draws every
#: figure at least a two-column page wide (ACL 6.3, ACM 7.0, IEEE 7.16).
WIDTHS: dict[str, float] = {"column": ONE_COLUMN, "page": TWO_COLUMN}
#: The smallest width a figure is drawn at (the ``page`` preset raises it).
_MINIMUM_WIDTH: ContextVar[float] = ContextVar("memdiag_minimum_width", default=0.0)
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
#: The formats every figure is saved in.
FORMATS: tuple[str, ...] = ("pdf", "svg", "png")

MINUS = "\u2212"


@dataclass(frozen=True)
class SystemStyle:
    """How one system is drawn in every figure: its ``color`` (hex) and its ``label``."""

    color: str
    label: str


def system_styles(systems: Iterable[str], reference: str | None = None,
                  labels: Mapping[str, str] | None = None) -> dict[str, SystemStyle]:
    """The fixed colour and label of every system of an analysis (rules in the module docstring).

    Parameters
    ----------
    systems
        The analysis' systems in their fixed order (e.g. ``panel.systems``); duplicates are
        ignored after their first occurrence. The reference may be among them.
    reference
        The reference system: neutral grey, and it takes no palette slot.
    labels
        Aliases ``{system: label}``; other systems get their name, shortened when long
        (:func:`memdiag.plots._names.system_labels`).

    Returns
    -------
    dict
        ``{system: SystemStyle}``, the reference included when given.

    Raises
    ------
    ValueError
        An alias in ``labels`` that is empty or shared by two systems.

    References
    ----------
    SPEC §8 (colours and names: one colour per system across all figures, the reference grey);
    Okabe & Ito (2008), Color Universal Design; Tol (2021), Colour Schemes, SRON technical note
    SRON/EPS/TN/09-002.
    Machado, G. M., Oliveira, M. M. & Fernandes, L. A. F. (2009). A physiologically-based model
    for simulation of color vision deficiency. IEEE Transactions on Visualization and Computer
    Graphics 15(6), 1291–1298.

    Examples
    --------
    >>> s = system_styles(["raw-rag", "mem0", "Backboard-io__Backboard-Locomo-Benchmark"], "raw-rag")
    >>> s["mem0"], s["raw-rag"].color, s["Backboard-io__Backboard-Locomo-Benchmark"].label
    (SystemStyle(color='#0072B2', label='mem0'), '#999999', 'Backboard')
    """
    names = list(dict.fromkeys(systems))
    if reference is not None and reference not in names:
        names.append(reference)
    text = system_labels(names, labels)
    out: dict[str, SystemStyle] = {}
    k = 0
    for name in names:
        if name == reference:
            out[name] = SystemStyle(REFERENCE_COLOR, text[name])
        else:
            out[name] = SystemStyle(PALETTE[k % len(PALETTE)], text[name])
            k += 1
    return out


def system_colors(systems: Iterable[str], reference: str | None = None) -> dict[str, str]:
    """The fixed colour (hex) of every system of an analysis; the reference is grey.

    Parameters
    ----------
    systems
        The analysis' systems in their fixed order; duplicates are ignored after their first
        occurrence.
    reference
        The reference system: neutral grey ``#999999``, and it takes no palette slot.

    Returns
    -------
    dict
        ``{system: "#RRGGBB"}``, the reference included when given (the colours of
        :func:`system_styles`).

    Raises
    ------
    TypeError
        ``systems`` is not an iterable of names.

    References
    ----------
    SPEC §8 (colours: one fixed colour per system across all figures of an analysis); Okabe &
    Ito (2008), Color Universal Design; Tol (2021), Colour Schemes, SRON technical note
    SRON/EPS/TN/09-002.

    Examples
    --------
    >>> system_colors(["raw-rag", "mem0", "zep"], reference="raw-rag")
    {'raw-rag': '#999999', 'mem0': '#0072B2', 'zep': '#D55E00'}
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


def at_least(width: float) -> float:
    """``width`` widened to the preset in force (:func:`width_preset`; none: unchanged).

    >>> with width_preset("page"):
    ...     at_least(ONE_COLUMN)
    7.2
    >>> at_least(ONE_COLUMN)
    3.5
    """
    return max(width, _MINIMUM_WIDTH.get())


@contextmanager
def width_preset(name: str) -> Iterator[None]:
    """Draw figures under a width preset of :data:`WIDTHS` (``column``: each figure's own width;
    ``page``: at least the page width)."""
    if name not in WIDTHS:
        raise ValueError(f"unknown width preset {name!r} (use one of {', '.join(WIDTHS)})")
    token = _MINIMUM_WIDTH.set(WIDTHS[name] if name == "page" else 0.0)
    try:
        yield
    finally:
        _MINIMUM_WIDTH.reset(token)


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


#: Line height of text, in multiples of the font size (matplotlib's default line spacing).
LINE_SPACING = 1.2


#: Resolutions text is measured at: the screen (``figure.dpi``) and the saved PNG; vector output
#: (PDF, SVG) uses the unhinted font metrics, measured at 72 dpi without hinting.
_MEASURE_DPI: tuple[int, ...] = (150, PNG_DPI)


@functools.cache
def _measurer(dpi: int):
    return FigureCanvasAgg(Figure(dpi=dpi)).get_renderer()


@functools.lru_cache(maxsize=4096)
def _width(line: str, fontsize: float, weight: str, hinting: str) -> float:
    font = FontProperties(family=RC["font.sans-serif"], size=fontsize, weight=weight)
    widths = []
    # text.hinting is set and restored by hand: rc_context copies every rcParam, which costs more
    # than the measurement itself (a report measures hundreds of labels)
    before = mpl.rcParams["text.hinting"]
    try:
        for dpi, mode in [(72, "no_hinting"), *((d, hinting) for d in _MEASURE_DPI)]:
            mpl.rcParams["text.hinting"] = mode
            widths.append(_measurer(dpi).get_text_width_height_descent(line, font, ismath=False)[0]
                          / dpi)
    finally:
        mpl.rcParams["text.hinting"] = before
    return max(widths)


def text_size(text: str, fontsize: float = SMALL_FONT_SIZE, weight: str = "normal") -> tuple[float, float]:
    """Width and height in inches of ``text`` (lines split at ``\\n``) drawn in the house font.

    Font hinting snaps glyphs to the pixel grid, so a text's width depends a little (up to ~8%)
    on the resolution it is drawn at; the width is the largest of the screen, the saved PNG and
    the vector outputs, so a layout made from it holds in all of them.

    >>> w, h = text_size("raw-rag", 7)
    >>> 0.3 < w < 0.5, round(h, 3)
    (True, 0.117)
    """
    hinting = str(mpl.rcParams["text.hinting"])
    lines = text.split("\n")
    width = max(_width(line, float(fontsize), weight, hinting) for line in lines)
    return width, len(lines) * fontsize * LINE_SPACING / 72


#: How far the summed width of a line's words may be from its measured width: :func:`wrap` measures
#: a whole line only when the sum is this close (as a fraction) to the width it must fit.
_ESTIMATE_MARGIN = 0.05


def wrap(text: str, width: float, fontsize: float = SMALL_FONT_SIZE) -> str:
    """``text`` broken at spaces into lines no wider than ``width`` inches (a word wider than the
    width is broken after its separators, :func:`break_label`).

    >>> wrap("grey circle: queries the reference answers", 1.2)
    'grey circle: queries the\\nreference answers'
    """
    def wider(candidate: str, estimate: float) -> bool:
        # the sum of the pieces' widths is within a few percent of the line's: only a line near
        # the width is measured whole (measuring every growing line costs quadratic time)
        if abs(estimate - width) > _ESTIMATE_MARGIN * width:
            return estimate > width
        return text_size(candidate, fontsize)[0] > width

    lines: list[str] = []
    for paragraph in text.split("\n"):
        line, estimate = "", 0.0
        for word in paragraph.split(" "):
            piece = f" {word}" if line else word
            grown = estimate + text_size(piece, fontsize)[0]
            if line and wider(line + piece, grown):
                lines.append(line)
                line, estimate = word, text_size(word, fontsize)[0]
            else:
                line, estimate = line + piece, grown
            if wider(line, estimate):  # a word wider than the width: break it
                *full, line = break_label(line, width, fontsize).split("\n")
                lines += full
                estimate = text_size(line, fontsize)[0]
        lines.append(line)
    return "\n".join(lines)


def break_label(label: str, width: float, fontsize: float = SMALL_FONT_SIZE) -> str:
    """A label too wide for ``width`` inches broken into lines after its separators (``_``, ``-``,
    ``.``, ``/``, ``…``), never inside a word; a label without separators stays whole.

    >>> break_label("agentic_pgvector_history300", 1.0)
    'agentic_pgvector_\\nhistory300'
    """
    if text_size(label, fontsize)[0] <= width:
        return label
    pieces, piece = [], ""
    for char in label:
        piece += char
        if char in "_-./\u2026 ":
            pieces.append(piece)
            piece = ""
    if piece:
        pieces.append(piece)
    lines, line = [], ""
    for piece in pieces:
        if line and text_size(line + piece, fontsize)[0] > width:
            lines.append(line)
            line = piece
        else:
            line += piece
    lines.append(line)
    return "\n".join(lines)


def add_note(fig: Figure, lines: Sequence[str], width: float | None = None, y: float = 0.0,
             gid: str = "note") -> float:
    """Write the non-empty ``lines`` (e.g. the names key) wrapped to ``width`` inches (default the
    figure's width less margins) at ``y`` inches from the bottom of ``fig``; returns the height in
    inches they take (0 when there is nothing to write)."""
    text = "\n".join(line for line in lines if line)
    if not text:
        return 0.0
    fig_w, fig_h = fig.get_size_inches()
    text = wrap(text, (width if width is not None else fig_w) - 0.12)
    fig.text(0.06 / fig_w, (y + 0.04) / fig_h, text, ha="left", va="bottom",
             fontsize=SMALL_FONT_SIZE, gid=gid, linespacing=LINE_SPACING)
    return text_size(text)[1] + 0.08


def footer(fig: Figure, lines: Sequence[str], gid: str = "footer") -> None:
    """Write the non-empty ``lines`` (e.g. the warnings of the result drawn) under a figure the
    constrained layout lays out: the figure grows by their height, so its plot keeps its size, and
    they are its x label, wrapped to its width. Nothing when there are none."""
    text = "\n".join(line for line in lines if line)
    if not text:
        return
    width, height = fig.get_size_inches()
    text = wrap(text, width - 0.12)
    fig.set_size_inches(width, height + text_size(text)[1] + 0.08)
    fig.supxlabel(text, fontsize=SMALL_FONT_SIZE, gid=gid, x=0.06 / width, ha="left", linespacing=LINE_SPACING)


def note_height(lines: Sequence[str], width: float) -> float:
    """The height in inches :func:`add_note` needs for ``lines`` in a figure ``width`` inches wide."""
    text = "\n".join(line for line in lines if line)
    return text_size(wrap(text, width - 0.12))[1] + 0.08 if text else 0.0


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


def rendered(fig: Figure, formats: Sequence[str] = FORMATS) -> dict[str, bytes]:
    """The bytes of ``fig`` as each of ``formats`` (``pdf``, ``svg``, ``png``), as :func:`save` writes them.

    >>> fig = Figure(figsize=(1, 1))
    >>> sorted(rendered(fig, ("svg", "png")))
    ['png', 'svg']
    """
    unknown = [f for f in formats if f not in METADATA]
    if unknown:
        raise ValueError(f"cannot save as {', '.join(unknown)}: use pdf, svg or png.")
    out = {}
    with mpl.rc_context(SAVE_RC):
        for fmt in formats:
            buffer = io.BytesIO()
            fig.savefig(buffer, format=fmt, metadata=METADATA[fmt], facecolor="white",
                        dpi=PNG_DPI if fmt == "png" else "figure")
            out[fmt] = buffer.getvalue()
    return out


def write_rendered(files: Mapping[str, bytes], path: str | Path) -> list[Path]:
    """Write :func:`rendered` bytes next to each other from the stem ``path`` (missing folders are
    created); returns the files in the order of ``files``."""
    path = Path(path)
    stem = path.with_suffix("") if path.suffix.lower() in {".pdf", ".svg", ".png"} else path
    stem.parent.mkdir(parents=True, exist_ok=True)
    written = []
    for fmt, data in files.items():
        out = stem.parent / f"{stem.name}.{fmt}"
        write_file(out, data)  # whole or not at all (a temporary file renamed): no truncated figure
        written.append(out)
    return written


def save(fig: Figure, path: str | Path, formats: Sequence[str] = FORMATS) -> list[Path]:
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

    Raises
    ------
    ValueError
        A format other than pdf, svg or png.

    Notes
    -----
    PDF embeds TrueType fonts (``pdf.fonttype`` 42); SVG keeps text as ``<text>`` elements
    (``svg.fonttype`` ``"none"``); PNG is 300 dpi. Metadata carry no date and SVG ids use a fixed
    salt, so the same figure gives the same bytes on every run. The figure keeps its size (no
    tight bounding box), so it prints at the column width it was made for.

    References
    ----------
    SPEC §8 (files: PDF with TrueType fonts, SVG with text kept as text, PNG at 300 dpi; the
    same figure gives the same bytes).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     [p.name for p in save(Figure(figsize=(1, 1)), Path(folder) / "empty")]
    ['empty.pdf', 'empty.svg', 'empty.png']
    """
    return write_rendered(rendered(fig, formats), path)
