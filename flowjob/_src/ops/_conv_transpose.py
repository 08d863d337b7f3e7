"""Transposed convolutions with the weights passed in: ``flow.nn.conv2d_transpose``
(TensorFlow's transposed convolution, as OneFlow v0.4) and ``torch_conv2d_transpose``
(PyTorch's arithmetic). Both lower to the input-gradient of the convolution (op type
``deconv2d``); padding strings and explicit paddings are resolved by ``_conv``. On the CPU
the op's kernel is chosen as a convolution's is (``flowjob/_src/kernels``): oneDNN's
backward-data primitive or XLA's.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from .. import kernels
from ..graph import Blob, apply_op
from . import _conv
from ._modes import DataFormat, Padding
from ._util import check_name, fail, failer, int_list, require_blob


def _lower_deconv(x, w, *, output_shape, strides, pads, dilations, data_format, weight_format=None):
    """``weight_format`` "OIHW" with NHWC data: the weights IOHW as recorded (see
    ``_conv.weights_as_recorded``)."""
    settings = dict(strides=strides, pads=pads, dilations=dilations, groups=1)
    spec, xla_weights = _conv.weights_as_recorded(w, data_format, weight_format)
    signature = kernels.ConvSignature.of(
        x, spec, data_format=data_format, transposed_to=output_shape, **settings
    )
    args = signature.settings
    # the optional compiled kernels (flowjob/_src/kernels), where they are the faster
    kernel = kernels.conv_kernel(signature, lambda a, b: _xla_deconv(a, b, output_shape, *args))
    if kernel is kernels.ConvKernel.ONEDNN:
        return kernels.conv2d_transpose_onednn(x, w, output_shape, *args, weight_format)
    return _xla_deconv(x, xla_weights(), output_shape, *args)


def _xla_deconv(x, w, output_shape, strides, pads, dilations, groups, data_format):
    # The transposed convolution is the input-gradient of the convolution that maps an
    # `output_shape` tensor to `x` with weight `w` (read as OIHW / OHWI: O = x's channels).
    kernel = "OIHW" if data_format == DataFormat.NCHW else "OHWI"

    def forward(z):
        return lax.conv_general_dilated(
            z,
            w,
            window_strides=strides,
            padding=pads,
            rhs_dilation=dilations,
            dimension_numbers=(data_format, kernel, data_format),
            feature_group_count=groups,
        )

    _, transpose = jax.vjp(forward, jnp.zeros(output_shape, x.dtype))
    return transpose(x)[0]


def conv2d_transpose(
    value: Blob | None = None,
    filter: Blob | None = None,  # noqa: A002
    output_shape: Any = None,
    strides: Any = None,
    padding: str = "VALID",
    data_format: str = "NCHW",
    name: str | None = None,
    input: Blob | None = None,
    filters: Blob | None = None,  # noqa: A002
    dilations: Any = None,
) -> Blob:
    """2-D transposed convolution ("deconvolution") to ``output_shape``.

    ``filters`` (alias ``filter``) is ``(in_channels, out_channels, kh, kw)`` for NCHW and
    ``(in_channels, kh, kw, out_channels)`` for NHWC; ``input`` is an alias of ``value``.
    ``padding`` "VALID" or "SAME" as TensorFlow's ``conv2d_transpose``: the result is the
    gradient of ``conv2d(z, filters, strides, padding)`` w.r.t. a ``z`` of ``output_shape``.
    The output's channel count comes from ``filters``, whatever ``output_shape`` says there.
    """
    public = "flow.nn.conv2d_transpose"
    name = check_name(public, name)
    if (value is None) == (input is None) or (filter is None) == (filters is None):
        fail(public, "pass exactly one of value/input and one of filter/filters", name)
    x = require_blob(public, value if value is not None else input, "input", name)
    w = require_blob(public, filter if filter is not None else filters, "filters", name)
    fmt = _conv.data_format_of(data_format, failer(public, name))
    if x.ndim != 4 or w.ndim != 4:
        fail(public, f"input and filters must be 4-D, got {x.shape} and {w.shape}", name)
    if not isinstance(output_shape, (list, tuple)) or len(output_shape) != 4:
        fail(public, f"output_shape must be a list of 4 ints, got {output_shape!r}", name)
    output_shape = tuple(int(d) for d in output_shape)
    strides = int_list(public, strides, 2, "strides", name)
    dilations = int_list(public, 1 if dilations is None else dilations, 2, "dilations", name)
    h, w_ax = _conv.spatial_axes(fmt)
    c_axis = 1 if fmt == DataFormat.NCHW else 3
    out_channels = w.shape[1] if fmt == DataFormat.NCHW else w.shape[3]
    kernel = w.shape[2:4] if fmt == DataFormat.NCHW else w.shape[1:3]
    if output_shape[0] != x.shape[0]:
        fail(
            public,
            f"output_shape {output_shape} must have the batch size of the input ({x.shape[0]})",
            name,
        )
    # The channel entry is not checked: OneFlow <= v0.3 used only the spatial entries and
    # OneFlow-Benchmark's dcgan.py passes the input's channel count there.
    output_shape = tuple(out_channels if i == c_axis else d for i, d in enumerate(output_shape))
    if w.shape[0] != x.shape[c_axis]:
        fail(
            public,
            f"filters {w.shape} expect {w.shape[0]} input channels, the {fmt} input "
            f"{x.shape} has {x.shape[c_axis]}",
            name,
        )
    mode = Padding.lookup(padding, upper=True)
    if mode not in (Padding.VALID, Padding.SAME):
        fail(public, f'padding must be "SAME" or "VALID", got {padding!r}', name)
    out_spatial = (output_shape[h], output_shape[w_ax])
    # TensorFlow's transposed SAME puts an odd padding's extra element after the data.
    pads = _conv.resolve_padding(
        Padding.SAME_UPPER if mode == Padding.SAME else Padding.VALID,
        fmt,
        out_spatial,
        kernel,
        strides,
        dilations,
        failer(public, name),
    )
    for n, k, s, d, (lo, hi), got in zip(
        out_spatial, kernel, strides, dilations, pads, (x.shape[h], x.shape[w_ax])
    ):
        if (n + lo + hi - (k - 1) * d - 1) // s + 1 != got:
            fail(
                public,
                f"output_shape {output_shape} does not fit: a {padding} convolution "
                f"of it with kernel {tuple(kernel)} and strides {strides} has spatial "
                f"size other than the input's {x.shape}",
                name,
            )
    return _deconv_op(x, w, output_shape, strides, pads, dilations, fmt, name)


def torch_conv2d_transpose(
    value: Blob | None = None,
    filter: Blob | None = None,  # noqa: A002
    output_padding: Any = None,
    strides: Any = None,
    padding_needed: Any = None,
    data_format: str = "NCHW",
    name: str | None = None,
    input: Blob | None = None,  # noqa: A002
    filters: Blob | None = None,
    dilations: Any = None,
) -> Blob:
    """PyTorch's ``ConvTranspose2d`` arithmetic: ``padding_needed`` (even, per spatial axis)
    is twice PyTorch's ``padding``, and the output has ``(in - 1) * stride - padding_needed +
    dilation * (kernel - 1) + 1 + output_padding`` rows and columns. Filters as in
    ``conv2d_transpose``."""
    public = "flow.nn.torch_conv2d_transpose"
    name = check_name(public, name)
    if (value is None) == (input is None) or (filter is None) == (filters is None):
        fail(public, "pass exactly one of value/input and one of filter/filters", name)
    x = require_blob(public, value if value is not None else input, "input", name)
    w = require_blob(public, filter if filter is not None else filters, "filters", name)
    fmt = _conv.data_format_of(data_format, failer(public, name))
    if x.ndim != 4 or w.ndim != 4:
        fail(public, f"input and filters must be 4-D, got {x.shape} and {w.shape}", name)
    strides = int_list(public, strides, 2, "strides", name)
    dilations = int_list(public, 1 if dilations is None else dilations, 2, "dilations", name)
    extra = int_list(
        public,
        0 if output_padding is None else output_padding,
        2,
        "output_padding",
        name,
        minimum=0,
    )
    needed = int_list(public, padding_needed, 2, "padding_needed", name, minimum=0)
    if any(p % 2 for p in needed):
        fail(public, f"padding_needed must be even (split evenly), got {padding_needed!r}", name)
    if any(e >= max(s, d) for e, s, d in zip(extra, strides, dilations)):
        fail(public, f"output_padding {extra} must be smaller than the stride or dilation", name)
    c_axis = 1 if fmt == DataFormat.NCHW else 3
    if w.shape[0] != x.shape[c_axis]:
        fail(
            public,
            f"filters {w.shape} expect {w.shape[0]} input channels, the {fmt} input "
            f"{x.shape} has {x.shape[c_axis]}",
            name,
        )
    kernel = w.shape[2:4] if fmt == DataFormat.NCHW else w.shape[1:3]
    spatial = [x.shape[a] for a in _conv.spatial_axes(fmt)]
    out = [
        (n - 1) * s - p + d * (k - 1) + 1 + e
        for n, s, p, d, k, e in zip(spatial, strides, needed, dilations, kernel, extra)
    ]
    if min(out) < 1:
        fail(public, f"the output would have spatial size {tuple(out)}", name)
    out_channels = w.shape[1] if fmt == DataFormat.NCHW else w.shape[3]
    output_shape = (
        (x.shape[0], out_channels, *out)
        if fmt == DataFormat.NCHW
        else (x.shape[0], *out, out_channels)
    )
    # the gradient of a convolution padded by padding_needed / 2 on both sides
    pads = tuple((p // 2, p // 2) for p in needed)
    return _deconv_op(x, w, output_shape, strides, pads, dilations, fmt, name)


def _deconv_op(x, w, output_shape, strides, pads, dilations, fmt, name) -> Blob:
    """Records the one ``deconv2d`` op both spellings (OneFlow's and torch-style) lower to."""
    return apply_op(
        "deconv2d",
        _lower_deconv,
        [x, w],
        attrs={
            "output_shape": output_shape,
            "strides": strides,
            "pads": pads,
            "dilations": dilations,
            "data_format": fmt,
        },
        name=name,
        prefix="Deconv2d",
    )
