"""Polygon filling as OpenCV's ``fillPoly`` (8-connected, no sub-pixel shift) does it, which
OneFlow's ``object_segmentation_polygon_to_mask`` called: each edge is drawn as an
8-connected Bresenham line, then the even-odd scanline fill of all polygons together covers,
on every row from the top vertex down to (not including) the bottom one, the pixels from the
left edge's x rounded up to the right edge's x rounded down, with x in 16.16 fixed point.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

_SHIFT = 16
_ONE = 1 << _SHIFT


def _clip(w: int, h: int, x1: int, y1: int, x2: int, y2: int):
    """OpenCV's ``clipLine``: the part of a segment inside the image (ends moved to the
    borders, top/bottom first, coordinates truncated toward zero), or None."""
    right, bottom = w - 1, h - 1

    def code(x, y, with_y=True):
        c = (x < 0) + (x > right) * 2
        return c + ((y < 0) * 4 + (y > bottom) * 8 if with_y else 0)

    c1, c2 = code(x1, y1), code(x2, y2)
    if (c1 & c2) == 0 and (c1 | c2) != 0:
        if c1 & 12:
            a = 0 if c1 < 8 else bottom
            x1 += int((a - y1) * (x2 - x1) / (y2 - y1))
            y1, c1 = a, code(x1, a, False)
        if c2 & 12:
            a = 0 if c2 < 8 else bottom
            x2 += int((a - y2) * (x2 - x1) / (y2 - y1))
            y2, c2 = a, code(x2, a, False)
        if (c1 & c2) == 0 and (c1 | c2) != 0:
            if c1:
                a = 0 if c1 == 1 else right
                y1 += int((a - x1) * (y2 - y1) / (x2 - x1))
                x1, c1 = a, 0
            if c2:
                a = 0 if c2 == 1 else right
                y2 += int((a - x2) * (y2 - y1) / (x2 - x1))
                x2, c2 = a, 0
    return (x1, y1, x2, y2) if (c1 | c2) == 0 else None


def _line(mask: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> None:
    """An 8-connected line from one end to the other, both included (drawn left to right
    after clipping to the image, as OpenCV's ``LineIterator``)."""
    h, w = mask.shape
    if not (0 <= x0 < w and 0 <= y0 < h and 0 <= x1 < w and 0 <= y1 < h):
        clipped = _clip(w, h, x0, y0, x1, y1)
        if clipped is None:
            return
        x0, y0, x1, y1 = clipped
    if x0 > x1:
        x0, y0, x1, y1 = x1, y1, x0, y0
    dx, dy = x1 - x0, abs(y1 - y0)
    sy = 1 if y1 >= y0 else -1
    steep = dy > dx
    major, minor = (dy, dx) if steep else (dx, dy)
    err = major - (minor + minor)
    x, y = x0, y0
    for _ in range(major + 1):
        if 0 <= x < w and 0 <= y < h:
            mask[y, x] = 1
        extra = err < 0  # the minor axis moves too
        err += -(minor + minor) + (major + major if extra else 0)
        if steep:
            y += sy
            x += 1 if extra else 0
        else:
            x += 1
            y += sy if extra else 0


def fill_polygons(mask: np.ndarray, polygons: Sequence[np.ndarray]) -> None:
    """Fills ``polygons`` (integer ``(P, 2)`` point arrays) into ``mask`` with 1."""
    h, w = mask.shape
    edges = []  # [y0, y1, x (fixed point at y0), dx per row]
    for poly in polygons:
        points = [(int(x), int(y)) for x, y in poly]
        if not points:
            continue
        px, py = points[-1]
        for qx, qy in points:
            _line(mask, px, py, qx, qy)
            if py != qy:
                fx0, fx1 = px << _SHIFT, qx << _SHIFT
                num, den = fx1 - fx0, qy - py  # C's division: truncated toward zero
                dx = abs(num) // abs(den) * (1 if (num >= 0) == (den > 0) else -1)
                if py < qy:
                    edges.append([py, qy, fx0, dx])
                else:
                    edges.append([qy, py, fx1, dx])
            px, py = qx, qy
    if len(edges) < 2:
        return
    edges.sort(key=lambda e: (e[0], e[2], e[3]))
    active: list[list[int]] = []
    k = 0
    for y in range(edges[0][0], min(max(e[1] for e in edges), h)):
        active = [e for e in active if e[1] != y]
        while k < len(edges) and edges[k][0] == y:
            active.append(edges[k])
            k += 1
        active.sort(key=lambda e: e[2])
        for left, right in zip(active[::2], active[1::2]):
            if y >= 0:
                a, b = (right, left) if left[2] > right[2] else (left, right)
                x1, x2 = (a[2] + _ONE - 1) >> _SHIFT, b[2] >> _SHIFT
                if x1 < w and x2 >= 0:
                    mask[y, max(x1, 0) : min(x2, w - 1) + 1] = 1
        for e in active:
            e[2] += e[3]
