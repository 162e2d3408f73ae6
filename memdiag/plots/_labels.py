"""Deterministic placement of point labels without overlaps, in display (pixel) coordinates.

Each label tries, in a fixed order, eight directions around its point (right, left, up, down,
then the diagonals) at growing distances; it takes the first position whose box stays inside
the axes, touches neither a placed label nor an obstacle (the markers and error bars) and lies
nearer its own point than any other point (so no label reads as another marker's). When no
position is free it takes the one with the least overlap and reports the clash. Labels placed
beyond the first ring get a thin leader line, and a position whose leader would cross a placed
label is penalised. No randomness, so the same figure always gets the same labels.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.text import Annotation
from matplotlib.transforms import Bbox

#: Unit directions tried in order: E, W, N, S, NE, NW, SE, SW.
_DIRECTIONS: tuple[tuple[float, float], ...] = (
    (1, 0), (-1, 0), (0, 1), (0, -1),
    (0.71, 0.71), (-0.71, 0.71), (0.71, -0.71), (-0.71, -0.71))
#: Distances tried, in multiples of the label height beyond the marker edge.
_RINGS: tuple[float, ...] = (0.0, 0.8, 1.6, 2.6, 3.8, 5.2)
#: Farther distances for short labels (numbers), which find room a long label cannot.
FAR_RINGS: tuple[float, ...] = (*_RINGS, 7.0, 9.0, 11.5, 14.5)


def overlap_area(a: Bbox, b: Bbox) -> float:
    """Area of the intersection of two boxes (0 when they are disjoint or only touch)."""
    w = min(a.x1, b.x1) - max(a.x0, b.x0)
    h = min(a.y1, b.y1) - max(a.y0, b.y0)
    return float(w * h) if w > 0 and h > 0 else 0.0


def _alignment(ux: float, uy: float) -> tuple[str, str]:
    ha = "left" if ux > 0 else "right" if ux < 0 else "center"
    va = "bottom" if uy > 0 else "top" if uy < 0 else "center"
    return ha, va


def _box(x: float, y: float, w: float, h: float, ha: str, va: str) -> Bbox:
    x0 = {"left": x, "right": x - w, "center": x - w / 2}[ha]
    y0 = {"bottom": y, "top": y - h, "center": y - h / 2}[va]
    return Bbox.from_bounds(x0, y0, w, h)


def _crosses(point: tuple[float, float], box: Bbox, others: Sequence[Bbox]) -> bool:
    """Whether the leader from ``point`` to the centre of ``box`` passes through another box."""
    t = np.linspace(0, 1, 24)[:, None]
    segment = (1 - t) * np.asarray(point) + t * np.array([box.x0 + box.width / 2,
                                                          box.y0 + box.height / 2])
    return any(((segment[:, 0] > o.x0) & (segment[:, 0] < o.x1) & (segment[:, 1] > o.y0)
                & (segment[:, 1] < o.y1)).any() for o in others)


def _distance(box: Bbox, point: np.ndarray) -> float:
    """Distance from ``point`` to the nearest point of ``box`` (0 inside)."""
    dx = max(box.x0 - point[0], 0.0, point[0] - box.x1)
    dy = max(box.y0 - point[1], 0.0, point[1] - box.y1)
    return float(np.hypot(dx, dy))


def place_labels(ax: Axes, renderer, xy: np.ndarray, radii_px: Sequence[float],
                 texts: Sequence[str], obstacles: Sequence[Bbox], gids: Sequence[str | None],
                 label_kw: Sequence[dict] | None = None, rings: Sequence[float] = _RINGS,
                 **text_kw) -> tuple[list[Annotation], bool]:
    """Add one annotation per point, placed by the search above; returns them and whether any
    of them could not be placed free (overlapping, outside the axes or nearer another point).

    Parameters
    ----------
    ax, renderer
        The axes (already laid out, limits fixed) and a renderer of its figure.
    xy
        ``(n, 2)`` data coordinates of the points.
    radii_px
        Radius of each point's marker in pixels: labels start beyond it.
    texts, gids
        Label strings and artist ids.
    label_kw
        Per-label text properties (e.g. a bold reference), on top of ``text_kw``.
    rings
        Distances tried, in label heights beyond the marker edge (default :data:`_RINGS`).
    obstacles
        Boxes (pixels) labels must not cover, e.g. markers and error bars.
    text_kw
        Passed to :meth:`~matplotlib.axes.Axes.annotate` (font size, weight …).
    """
    frame = ax.get_window_extent(renderer).padded(-2)
    points = ax.transData.transform(np.asarray(xy, dtype=float))
    px_per_pt = renderer.points_to_pixels(1.0)
    placed: list[Bbox] = []
    out = []
    clash = False
    label_kw = label_kw if label_kw is not None else [{}] * len(texts)
    for (px, py), data_xy, radius, text, gid, own_kw in zip(
            points, np.asarray(xy, dtype=float), radii_px, texts, gids, label_kw):
        kw = {**text_kw, **own_kw}
        probe = ax.annotate(text, (0, 0), xycoords="figure pixels", **kw)
        extent = probe.get_window_extent(renderer)
        probe.remove()
        w, h = extent.width, extent.height
        best = None
        for ring in rings:
            distance = radius + 2 * px_per_pt + ring * h
            for ux, uy in _DIRECTIONS:
                ha, va = _alignment(ux, uy)
                box = _box(px + ux * distance, py + uy * distance, w, h, ha, va)
                outside = 0.0 if frame.contains(box.x0, box.y0) and frame.contains(box.x1, box.y1) \
                    else w * h
                cost = outside + 4 * sum(overlap_area(box, o) for o in placed) \
                    + sum(overlap_area(box, o) for o in obstacles)  # covering a label is worst
                own = _distance(box, np.array([px, py]))
                if any(_distance(box, q) < min(own, h) for q in points
                       if not np.array_equal(q, (px, py))):
                    cost += w * h / 4  # touching a nearer marker: it would read as its label
                if ring > 0 and _crosses((px, py), box, placed):
                    cost += w * h / 2  # a leader line through another label
                if best is None or cost < best[0]:
                    best = (cost, ring, ux * distance, uy * distance, ha, va, box)
                if cost == 0:
                    break
            if best[0] == 0:
                break
        cost, ring, dx, dy, ha, va, box = best
        clash = clash or cost > 0
        placed.append(box)
        arrow = None if ring == 0 else {"arrowstyle": "-", "lw": 0.5, "color": "0.4",
                                         "shrinkA": 1, "shrinkB": radius / px_per_pt}
        ann = ax.annotate(text, tuple(data_xy), xycoords="data", ha=ha, va=va,
                          annotation_clip=False, xytext=(dx / px_per_pt, dy / px_per_pt),
                          textcoords="offset points", arrowprops=arrow, gid=gid, **kw)
        out.append(ann)
    return out, clash
