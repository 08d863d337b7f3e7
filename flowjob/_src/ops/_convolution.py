"""Convolution and pooling ops with the weights passed in: ``flow.nn.conv1d/conv2d/conv3d``,
``compat_conv2d`` (TensorFlow's SAME padding) and ``max_pool2d``/``avg_pool2d``. The
transposed convolutions are in ``_conv_transpose``.

Padding strings, explicit per-axis paddings and the JAX lowerings live in ``_conv``. 1-D and
3-D data formats are ``NCW``/``NWC`` and ``NCDHW``/``NDHWC``; weights are
``(out, in // groups, *kernel)`` channels-first or ``(out, *kernel, in // groups)``
channels-last.
"""

from __future__ import annotations

import functools
from typing import Any

from jax import lax

from .. import kernels
from ..graph import Blob, apply_op
from . import _conv, _qat
from ._modes import DataFormat, Padding, PoolMode
from ._util import check_name, fail, failer, int_list, require_blob


def conv2d(
    input: Blob,
    filters: Blob,
    strides: Any,
    padding: Any,  # noqa: A002
    data_format: str = "NCHW",
    dilations: Any = None,
    groups: int = 1,
    name: str | None = None,
) -> Blob:
    """2-D convolution of ``input`` with the weight blob ``filters``.

    ``filters`` is ``(out_channels, in_channels // groups, kh, kw)`` for NCHW and
    ``(out_channels, kh, kw, in_channels // groups)`` for NHWC. See ``_conv`` for padding.
    """
    out, rewrite = conv2d_qat(
        input, filters, strides, padding, data_format, dilations, groups, name
    )
    return rewrite.output(out)


def conv2d_qat(
    input: Blob,
    filters: Blob,
    strides: Any,
    padding: Any,  # noqa: A002
    data_format: str = "NCHW",
    dilations: Any = None,
    groups: int = 1,
    name: str | None = None,
) -> tuple[Blob, _qat.Rewrite]:
    """``conv2d`` with its inputs fake-quantized under QAT, and the rewrite that quantizes
    its output: a conv layer quantizes after its bias and relu, as OneFlow's pass did."""
    public = "flow.nn.conv2d"
    name = check_name(public, name)
    require_blob(public, input, "input", name)
    require_blob(public, filters, "filters", name)
    fmt = _conv.data_format_of(data_format, failer(public, name))
    if input.ndim != 4 or filters.ndim != 4:
        fail(public, f"input and filters must be 4-D, got {input.shape} and {filters.shape}", name)
    strides = int_list(public, strides, 2, "strides", name)
    dilations = int_list(public, 1 if dilations is None else dilations, 2, "dilations", name)
    if not isinstance(groups, int) or isinstance(groups, bool) or groups < 1:
        fail(public, f"groups must be an int >= 1, got {groups!r}", name)
    h_axis, w_axis = _conv.spatial_axes(fmt)
    channels = input.shape[1] if fmt is DataFormat.NCHW else input.shape[3]
    kernel = filters.shape[2:4] if fmt is DataFormat.NCHW else filters.shape[1:3]
    filter_in = filters.shape[1] if fmt is DataFormat.NCHW else filters.shape[3]
    if channels % groups or filters.shape[0] % groups:
        fail(
            public,
            f"groups={groups} must divide the input channels ({channels}) and the "
            f"filters ({filters.shape[0]})",
            name,
        )
    if filter_in * groups != channels:
        fail(
            public,
            f"filters {filters.shape} expect {filter_in * groups} input channels "
            f"({filter_in} per group, groups={groups}), but the {fmt} input "
            f"{input.shape} has {channels}",
            name,
        )
    spatial = (input.shape[h_axis], input.shape[w_axis])
    pads = _conv.resolve_padding(
        padding, fmt, spatial, kernel, strides, dilations, failer(public, name)
    )
    for n, k, d, p in zip(spatial, kernel, dilations, pads):
        if n + p[0] + p[1] < (k - 1) * d + 1:
            fail(
                public,
                f"the (dilated) kernel {tuple(kernel)} is larger than the padded input "
                f"{spatial} (padding {pads})",
                name,
            )
    rewrite = _qat.Rewrite("conv2d")
    input, filters = rewrite.inputs(input, filters)
    out = apply_op(
        "conv2d",
        _conv.lower_conv2d,
        [input, filters],
        attrs={
            "strides": strides,
            "pads": pads,
            "dilations": dilations,
            "groups": groups,
            "data_format": fmt,
        },
        name=name,
        prefix="Conv2d",
    )
    return out, rewrite


def _pool(
    mode: PoolMode,
    input: Blob,
    ksize: Any,
    strides: Any,
    padding: Any,  # noqa: A002
    data_format: str,
    ceil_mode: bool,
    name: str | None,
) -> Blob:
    public = f"flow.nn.{mode}_pool2d"
    name = check_name(public, name)
    require_blob(public, input, "input", name)
    fmt = _conv.data_format_of(data_format, failer(public, name))
    if input.ndim != 4:
        fail(public, f"input must be 4-D ({fmt}), got shape {input.shape}", name)
    if mode is PoolMode.AVG and not input.dtype.is_floating:
        fail(public, f"needs a floating point input, got {input.dtype.name}", name)
    ksize = int_list(public, ksize, 2, "ksize", name)
    strides = int_list(public, strides, 2, "strides", name)
    spatial = tuple(input.shape[a] for a in _conv.spatial_axes(fmt))
    pads = _conv.resolve_padding(
        padding, fmt, spatial, ksize, strides, (1, 1), failer(public, name)
    )
    for n, k, p in zip(spatial, ksize, pads):
        if n + p[0] + p[1] < k:
            fail(
                public,
                f"the window {ksize} is larger than the padded input {spatial} (padding {pads})",
                name,
            )
    prefix = "MaxPool2D" if mode is PoolMode.MAX else "AvgPool2D"
    return apply_op(
        f"{mode}_pool_2d",
        functools.partial(_conv.lower_pool2d, mode=mode),
        [input],
        attrs={
            "ksize": ksize,
            "strides": strides,
            "pads": pads,
            "ceil_mode": bool(ceil_mode),
            "data_format": fmt,
        },
        name=name,
        prefix=prefix,
    )


def max_pool2d(
    input: Blob,
    ksize: Any,
    strides: Any,
    padding: Any,  # noqa: A002
    data_format: str = "NCHW",
    ceil_mode: bool = False,
    name: str | None = None,
) -> Blob:
    """2-D max pooling; ``ksize``/``strides`` are an int or 1 or 2 ints."""
    return _pool(PoolMode.MAX, input, ksize, strides, padding, data_format, ceil_mode, name)


def avg_pool2d(
    input: Blob,
    ksize: Any,
    strides: Any,
    padding: Any,  # noqa: A002
    data_format: str = "NCHW",
    ceil_mode: bool = False,
    name: str | None = None,
) -> Blob:
    """2-D average pooling over the real (non-padding) elements of each window."""
    return _pool(PoolMode.AVG, input, ksize, strides, padding, data_format, ceil_mode, name)


ND_FORMATS = {1: (DataFormat.NCW, DataFormat.NWC), 3: (DataFormat.NCDHW, DataFormat.NDHWC)}


def _kernel_spec(fmt: DataFormat) -> str:
    spatial = fmt[2:] if fmt.channels_first else fmt[1:-1]
    return "OI" + spatial if fmt.channels_first else "O" + spatial + "I"


def _lower_conv_nd(x, w, *, strides, pads, dilations, groups, data_format):
    if kernels.lowering_platform() == "cpu" and 1 < groups <= _conv.GROUPED_SPLIT_MAX:
        args = (tuple(strides), tuple(map(tuple, pads)), tuple(dilations), groups, data_format)
        return _conv.conv_grouped_split(x, w, *args)
    return lax.conv_general_dilated(
        x,
        w,
        window_strides=strides,
        padding=pads,
        rhs_dilation=dilations,
        dimension_numbers=(data_format, _kernel_spec(data_format), data_format),
        feature_group_count=groups,
    )


def conv_nd(
    ndims: int,
    input: Blob,
    filters: Blob,
    strides: Any,
    padding: Any,  # noqa: A002
    data_format: str,
    dilations: Any,
    groups: int,
    name: str | None,
) -> Blob:
    public = f"flow.nn.conv{ndims}d"
    name = check_name(public, name)
    require_blob(public, input, "input", name)
    require_blob(public, filters, "filters", name)
    fmt = DataFormat.lookup(data_format, upper=True)
    if fmt not in ND_FORMATS[ndims]:
        fail(
            public,
            f"data_format must be one of {tuple(map(str, ND_FORMATS[ndims]))}, got {data_format!r}",
            name,
        )
    first = fmt.channels_first
    if input.ndim != ndims + 2 or filters.ndim != ndims + 2:
        fail(
            public,
            f"input and filters must be {ndims + 2}-D, got {input.shape} and {filters.shape}",
            name,
        )
    strides = int_list(public, strides, ndims, "strides", name)
    dilations = int_list(public, 1 if dilations is None else dilations, ndims, "dilations", name)
    if not isinstance(groups, int) or isinstance(groups, bool) or groups < 1:
        fail(public, f"groups must be an int >= 1, got {groups!r}", name)
    channels = input.shape[1] if first else input.shape[-1]
    spatial = input.shape[2:] if first else input.shape[1:-1]
    kernel = filters.shape[2:] if first else filters.shape[1:-1]
    filter_in = filters.shape[1] if first else filters.shape[-1]
    if channels % groups or filters.shape[0] % groups or filter_in * groups != channels:
        fail(
            public,
            f"filters {filters.shape} with groups={groups} do not fit the {fmt} input "
            f"{input.shape} ({channels} channels)",
            name,
        )
    # _conv's padding rules only need to know where the spatial axes start
    proxy = DataFormat.NCHW if first else DataFormat.NHWC
    pads = _conv.resolve_padding(
        padding,
        proxy,
        spatial,
        kernel,
        strides,
        dilations,
        lambda message: fail(public, message, name),
    )
    for n, k, d, p in zip(spatial, kernel, dilations, pads):
        if n + p[0] + p[1] < (k - 1) * d + 1:
            fail(
                public,
                f"the (dilated) kernel {tuple(kernel)} is larger than the padded input "
                f"{tuple(spatial)} (padding {pads})",
                name,
            )
    return apply_op(
        f"conv{ndims}d",
        _lower_conv_nd,
        [input, filters],
        attrs={
            "strides": strides,
            "pads": pads,
            "dilations": dilations,
            "groups": groups,
            "data_format": fmt,
        },
        name=name,
        prefix=f"Conv{ndims}d",
    )


def conv1d(
    input: Blob,
    filters: Blob,
    strides: Any,
    padding: Any,  # noqa: A002
    data_format: str = "NCW",
    dilations: Any = None,
    groups: int = 1,
    name: str | None = None,
) -> Blob:
    """1-D convolution of ``input`` with the weight blob ``filters``."""
    return conv_nd(1, input, filters, strides, padding, data_format, dilations, groups, name)


def conv3d(
    input: Blob,
    filters: Blob,
    strides: Any,
    padding: Any,  # noqa: A002
    data_format: str = "NCDHW",
    dilations: Any = None,
    groups: int = 1,
    name: str | None = None,
) -> Blob:
    """3-D convolution of ``input`` with the weight blob ``filters``."""
    return conv_nd(3, input, filters, strides, padding, data_format, dilations, groups, name)


def compat_conv2d(
    input: Blob,
    filters: Blob,
    strides: Any,
    padding: str,  # noqa: A002
    data_format: str = "NCHW",
    dilations: Any = None,
    groups: int = 1,
    name: str | None = None,
) -> Blob:
    """``flow.nn.conv2d`` where "SAME" means TensorFlow's SAME (extra padding after)."""
    if Padding.lookup(padding, upper=True) is Padding.SAME:
        padding = Padding.SAME_UPPER
    return conv2d(input, filters, strides, padding, data_format, dilations, groups, name)
