"""1-D and 3-D pooling: ``flow.nn.max_pool1d/avg_pool1d/max_pool3d/avg_pool3d``.

Both come from the 2-D pooling ops (``_convolution``): a 1-D input gets a unit height, and a
3-D window is pooled over (H, W) first and then over D, since a maximum, and an average over
the real (non-padding) elements, factor over the axes of a box window. Padding strings are
resolved per axis, so ``"SAME"``/``"VALID"`` mean what they mean for the 3-D op; explicit
paddings are OneFlow's one ``(before, after)`` pair per axis (batch and channel pairs 0).
"""

from __future__ import annotations

from typing import Any

from ..graph import Blob
from ._convolution import avg_pool2d, max_pool2d
from ._modes import PoolMode
from ._shape import reshape
from ._util import check_name, fail, int_list, require_blob

_POOL2D = {PoolMode.MAX: max_pool2d, PoolMode.AVG: avg_pool2d}


def _explicit(public: str, padding: Any, ndim: int, name: str | None) -> list[tuple[int, int]]:
    if (
        not isinstance(padding, (list, tuple))
        or len(padding) != ndim
        or not all(isinstance(p, (list, tuple)) and len(p) == 2 for p in padding)
    ):
        fail(
            public,
            f"padding must be 'SAME', 'VALID' or {ndim} (before, after) pairs, got {padding!r}",
            name,
        )
    return [(int(a), int(b)) for a, b in padding]


def _check(
    public: str,
    mode: PoolMode,
    x: Blob,
    ndim: int,
    data_format: str,
    formats: tuple[str, str],
    name: str | None,
) -> bool:
    """True for channels-first ``data_format``."""
    require_blob(public, x, "input", name)
    if data_format not in formats:
        fail(
            public,
            f"data_format must be {formats[0]!r} or {formats[1]!r}, got {data_format!r}",
            name,
        )
    if x.ndim != ndim:
        fail(public, f"input must be {ndim}-D ({data_format}), got shape {x.shape}", name)
    if mode == PoolMode.AVG and not x.dtype.is_floating:
        fail(public, f"needs a floating point input, got {x.dtype.name}", name)
    return data_format.startswith("NC")


def _pool1d(
    mode: PoolMode,
    x: Blob,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str,
    name: str | None,
) -> Blob:
    public = f"flow.nn.{mode}_pool1d"
    name = check_name(public, name)
    first = _check(public, mode, x, 3, data_format, ("NCW", "NWC"), name)
    (k,), (s,) = (
        int_list(public, ksize, 1, "ksize", name),
        int_list(public, strides, 1, "strides", name),
    )
    if not isinstance(padding, str):
        pads = _explicit(public, padding, 3, name)
        padding = [(0, 0), (0, 0), (0, 0), pads[2]] if first else [(0, 0), (0, 0), pads[1], (0, 0)]
    n, a, b = x.shape
    as2d = reshape(x, (n, a, 1, b) if first else (n, 1, a, b))
    y = _POOL2D[mode](as2d, (1, k), (1, s), padding, "NCHW" if first else "NHWC", name=name)
    return reshape(y, (n, a, y.shape[3]) if first else (n, y.shape[2], b))


def _pool3d(
    mode: PoolMode,
    x: Blob,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str,
    ceil_mode: bool,
    name: str | None,
) -> Blob:
    public = f"flow.nn.{mode}_pool3d"
    name = check_name(public, name)
    first = _check(public, mode, x, 5, data_format, ("NCDHW", "NDHWC"), name)
    kd, kh, kw = int_list(public, ksize, 3, "ksize", name)
    sd, sh, sw = int_list(public, strides, 3, "strides", name)
    hw_padding = d_padding = padding
    if not isinstance(padding, str):
        pads = _explicit(public, padding, 5, name)
        d, h, w = pads[2:] if first else pads[1:4]
        zero = (0, 0)
        hw_padding = [zero, zero, h, w] if first else [zero, h, w, zero]
        d_padding = [zero, zero, d, zero] if first else [zero, d, zero, zero]
    fmt = "NCHW" if first else "NHWC"
    pool = _POOL2D[mode]
    if first:
        n, c, depth, height, width = x.shape
        y = pool(
            reshape(x, (n, c * depth, height, width)),
            (kh, kw),
            (sh, sw),
            hw_padding,
            fmt,
            ceil_mode,
        )
        oh, ow = y.shape[2:]
        y = pool(
            reshape(y, (n, c, depth, oh * ow)),
            (kd, 1),
            (sd, 1),
            d_padding,
            fmt,
            ceil_mode,
            name=name,
        )
        return reshape(y, (n, c, y.shape[2], oh, ow))
    n, depth, height, width, c = x.shape
    y = pool(
        reshape(x, (n * depth, height, width, c)), (kh, kw), (sh, sw), hw_padding, fmt, ceil_mode
    )
    oh, ow = y.shape[1:3]
    y = pool(
        reshape(y, (n, depth, oh * ow, c)), (kd, 1), (sd, 1), d_padding, fmt, ceil_mode, name=name
    )
    return reshape(y, (n, y.shape[1], oh, ow, c))


def max_pool1d(
    input: Blob,
    ksize: Any,
    strides: Any,
    padding: Any,  # noqa: A002
    data_format: str = "NWC",
    name: str | None = None,
) -> Blob:
    """1-D max pooling of an ``NWC`` (default) or ``NCW`` blob (OneFlow v0.4 declared it but
    raised ``NotImplementedError``)."""
    return _pool1d(PoolMode.MAX, input, ksize, strides, padding, data_format, name)


def avg_pool1d(
    input: Blob,
    ksize: Any,
    strides: Any,
    padding: Any,  # noqa: A002
    data_format: str = "NCW",
    name: str | None = None,
) -> Blob:
    """1-D average pooling of an ``NCW`` (default) or ``NWC`` blob over the real elements."""
    return _pool1d(PoolMode.AVG, input, ksize, strides, padding, data_format, name)


def max_pool3d(
    input: Blob,
    ksize: Any,
    strides: Any,
    padding: Any,  # noqa: A002
    data_format: str = "NCDHW",
    ceil_mode: bool = False,
    name: str | None = None,
) -> Blob:
    """3-D max pooling of an ``NCDHW`` (default) or ``NDHWC`` blob."""
    return _pool3d(PoolMode.MAX, input, ksize, strides, padding, data_format, ceil_mode, name)


def avg_pool3d(
    input: Blob,
    ksize: Any,
    strides: Any,
    padding: Any,  # noqa: A002
    data_format: str = "NCDHW",
    ceil_mode: bool = False,
    name: str | None = None,
) -> Blob:
    """3-D average pooling over the real (non-padding) elements of each window."""
    return _pool3d(PoolMode.AVG, input, ksize, strides, padding, data_format, ceil_mode, name)
