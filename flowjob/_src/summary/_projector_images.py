"""Sample images for the projector: normalising ``x``, square sprites, and image grids."""

from __future__ import annotations

import io
import math

import numpy as np
from PIL import Image

__all__ = ["MAX_SPRITE_PX", "to_uint8_images", "make_sprite", "make_grid", "encode_png"]

MAX_SPRITE_PX = 8192  # the projector front end refuses larger sprites
_MODES = {1: "L", 3: "RGB", 4: "RGBA"}


def to_uint8_images(x: np.ndarray) -> np.ndarray:
    """``x`` as ``uint8 (N, H, W, C)`` with ``C`` in {1, 3, 4}.

    Accepted layouts: ``(N, H, W)`` grey, ``(N, H, W, C)``, and ``(N, P)`` with ``P`` a
    perfect square (flattened grey images). Floats in [0, 1] are scaled by 255, other values
    are clipped to [0, 255]; NaN becomes 0. Raises ``ValueError`` for other shapes.
    """
    x = np.asarray(x)
    if x.ndim == 2 and x.shape[1] > 0 and math.isqrt(x.shape[1]) ** 2 == x.shape[1]:
        side = math.isqrt(x.shape[1])
        x = x.reshape(x.shape[0], side, side)
    if x.ndim == 3:
        x = x[..., None]
    if x.ndim != 4 or x.shape[-1] not in _MODES or min(x.shape[1:3], default=0) < 1:
        raise ValueError(
            "image samples x must have shape (N, H, W), (N, H, W, C) with C in {1, 3, 4} or "
            f"(N, H*W) with H == W; got {x.shape}"
        )
    if x.dtype == np.uint8:
        return x
    if x.dtype == np.bool_:
        return x.astype(np.uint8) * 255
    if not np.issubdtype(x.dtype, np.number):
        raise ValueError(f"image samples x must be numeric, got dtype {x.dtype}")
    values = np.nan_to_num(x.astype(np.float64), nan=0.0)
    finite = values[np.isfinite(values)]
    if (
        np.issubdtype(x.dtype, np.floating)
        and finite.size
        and finite.min() >= 0
        and finite.max() <= 1
    ):
        values = values * 255.0
    return np.clip(np.rint(values), 0, 255).astype(np.uint8)


def _thumbnail(image: np.ndarray, cell: int) -> np.ndarray:
    """``image`` (H, W, C) fitted into a ``cell x cell`` square, centred, black padding."""
    h, w, c = image.shape
    scale = min(1.0, cell / max(h, w))
    if scale < 1.0:
        nh, nw = max(1, round(h * scale)), max(1, round(w * scale))
        pil = Image.fromarray(image[..., 0] if c == 1 else image, _MODES[c])
        image = np.asarray(pil.resize((nw, nh), Image.Resampling.LANCZOS)).reshape(nh, nw, c)
        h, w = nh, nw
    out = np.zeros((cell, cell, c), np.uint8)
    top, left = (cell - h) // 2, (cell - w) // 2
    out[top : top + h, left : left + w] = image
    return out


def _tile(images: np.ndarray, cols: int, rows: int, cell: int) -> np.ndarray:
    n, _, _, c = images.shape
    canvas = np.zeros((rows * cell, cols * cell, c), np.uint8)
    for i in range(n):
        r, k = divmod(i, cols)
        canvas[r * cell : (r + 1) * cell, k * cell : (k + 1) * cell] = _thumbnail(images[i], cell)
    return canvas


def make_sprite(images: np.ndarray, max_px: int = MAX_SPRITE_PX) -> tuple[np.ndarray, int] | None:
    """A square sprite of ``images`` (uint8 NHWC) and the side of one square thumbnail.

    Thumbnails are padded to squares of side ``max(H, W)`` and laid out row-major from the
    top left, ``ceil(sqrt(N))`` per row; padding is only at the bottom/end. When the sprite
    would exceed ``max_px`` the thumbnails are down-scaled to fit. Returns None when even
    1-pixel thumbnails would not fit.
    """
    n = images.shape[0]
    cols = math.isqrt(n - 1) + 1 if n > 0 else 1
    cell = min(max(images.shape[1:3]), max_px // cols)
    if cell < 1:
        return None
    return _tile(images, cols, cols, cell), cell


def make_grid(images: np.ndarray, max_px: int = 2048) -> np.ndarray:
    """``images`` (uint8 NHWC) tiled into one image at most ``max_px`` wide and high."""
    n = images.shape[0]
    cols = math.isqrt(n - 1) + 1
    rows = -(-n // cols)
    cell = max(1, min(max(images.shape[1:3]), max_px // cols))
    return _tile(images, cols, rows, cell)


def encode_png(image: np.ndarray) -> bytes:
    """PNG bytes of one uint8 ``(H, W, C)`` image."""
    c = image.shape[-1]
    buf = io.BytesIO()
    Image.fromarray(image[..., 0] if c == 1 else image, _MODES[c]).save(buf, format="PNG")
    return buf.getvalue()
