"""``flow.nn.conv2d_transpose`` (TensorFlow's transposed convolution, as OneFlow v0.4) and
``flow.nn.compat_conv2d`` (conv2d with TensorFlow's SAME padding)."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from ..graph import Blob, apply_op
from . import _conv
from ._nn import conv2d
from ._util import check_name, fail, int_list, require_blob


def _failer(op: str, name: str | None):
    return lambda message: fail(op, message, name)


def _lower_deconv(x, w, *, output_shape, strides, pads, dilations, data_format):
    # The transposed convolution is the input-gradient of the convolution that maps an
    # `output_shape` tensor to `x` with weight `w` (read as OIHW / OHWI: O = x's channels).
    kernel = "OIHW" if data_format == "NCHW" else "OHWI"

    def forward(z):
        return lax.conv_general_dilated(z, w, window_strides=strides, padding=pads,
                                        rhs_dilation=dilations,
                                        dimension_numbers=(data_format, kernel, data_format))

    _, transpose = jax.vjp(forward, jnp.zeros(output_shape, x.dtype))
    return transpose(x)[0]


def conv2d_transpose(value: Blob | None = None, filter: Blob | None = None,  # noqa: A002
                     output_shape: Any = None, strides: Any = None, padding: str = "VALID",
                     data_format: str = "NCHW", name: str | None = None,
                     input: Blob | None = None, filters: Blob | None = None,  # noqa: A002
                     dilations: Any = None) -> Blob:
    """2-D transposed convolution ("deconvolution") to ``output_shape``.

    ``filters`` (alias ``filter``) is ``(in_channels, out_channels, kh, kw)`` for NCHW and
    ``(in_channels, kh, kw, out_channels)`` for NHWC; ``input`` is an alias of ``value``.
    ``padding`` "VALID" or "SAME" as TensorFlow's ``conv2d_transpose``: the result is the
    gradient of ``conv2d(z, filters, strides, padding)`` w.r.t. a ``z`` of ``output_shape``.
    """
    public = "flow.nn.conv2d_transpose"
    name = check_name(public, name)
    if (value is None) == (input is None) or (filter is None) == (filters is None):
        fail(public, "pass exactly one of value/input and one of filter/filters", name)
    x = require_blob(public, value if value is not None else input, "input", name)
    w = require_blob(public, filter if filter is not None else filters, "filters", name)
    fmt = _conv.data_format_of(data_format, _failer(public, name))
    if x.ndim != 4 or w.ndim != 4:
        fail(public, f"input and filters must be 4-D, got {x.shape} and {w.shape}", name)
    if not isinstance(output_shape, (list, tuple)) or len(output_shape) != 4:
        fail(public, f"output_shape must be a list of 4 ints, got {output_shape!r}", name)
    output_shape = tuple(int(d) for d in output_shape)
    strides = int_list(public, strides, 2, "strides", name)
    dilations = int_list(public, 1 if dilations is None else dilations, 2, "dilations", name)
    h, w_ax = _conv.spatial_axes(fmt)
    c_axis = 1 if fmt == "NCHW" else 3
    out_channels = w.shape[1] if fmt == "NCHW" else w.shape[3]
    kernel = w.shape[2:4] if fmt == "NCHW" else w.shape[1:3]
    if output_shape[0] != x.shape[0] or output_shape[c_axis] != out_channels:
        fail(public, f"output_shape {output_shape} must have the batch size of the input "
                     f"({x.shape[0]}) and the filters' {out_channels} output channels", name)
    if w.shape[0] != x.shape[c_axis]:
        fail(public, f"filters {w.shape} expect {w.shape[0]} input channels, the {fmt} input "
                     f"{x.shape} has {x.shape[c_axis]}", name)
    if not isinstance(padding, str) or padding.upper() not in ("VALID", "SAME"):
        fail(public, f'padding must be "SAME" or "VALID", got {padding!r}', name)
    out_spatial = (output_shape[h], output_shape[w_ax])
    pads = _conv.resolve_padding("SAME_UPPER" if padding.upper() == "SAME" else "VALID", fmt,
                                 out_spatial, kernel, strides, dilations, _failer(public, name))
    for n, k, s, d, (lo, hi), got in zip(out_spatial, kernel, strides, dilations, pads,
                                         (x.shape[h], x.shape[w_ax])):
        if (n + lo + hi - (k - 1) * d - 1) // s + 1 != got:
            fail(public, f"output_shape {output_shape} does not fit: a {padding} convolution "
                         f"of it with kernel {tuple(kernel)} and strides {strides} has spatial "
                         f"size other than the input's {x.shape}", name)
    return apply_op("deconv2d", _lower_deconv, [x, w],
                    attrs={"output_shape": output_shape, "strides": strides, "pads": pads,
                           "dilations": dilations, "data_format": fmt},
                    name=name, prefix="Deconv2d")


def compat_conv2d(input: Blob, filters: Blob, strides: Any, padding: str,  # noqa: A002
                  data_format: str = "NCHW", dilations: Any = None, groups: int = 1,
                  name: str | None = None) -> Blob:
    """``flow.nn.conv2d`` where "SAME" means TensorFlow's SAME (extra padding after)."""
    if isinstance(padding, str) and padding.upper() == "SAME":
        padding = "SAME_UPPER"
    return conv2d(input, filters, strides, padding, data_format, dilations, groups, name)
