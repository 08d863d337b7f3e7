"""Convolution and pooling: padding arithmetic and the JAX lowerings (one place for layouts).

Padding follows OneFlow: ``"SAME"`` means ``"SAME_LOWER"`` (an odd total padding puts the extra
element *before* the data), ``"SAME_UPPER"`` is TensorFlow's SAME (extra element after),
``"VALID"`` pads nothing, and an explicit padding is a per-axis list over all axes of the input
(ints or ``(before, after)`` pairs; batch and channel entries must be 0). Average pooling
divides by the number of real (non-padding) elements in each window.

Every lowering takes the user's ``data_format`` ("NCHW" or "NHWC") as an attribute, so an
internal layout change stays inside this module.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import kernels
from ._modes import DataFormat, Padding, PoolMode
from ._window_max import as_blocks, block_max, window_max

Pads = tuple[tuple[int, int], ...]


def data_format_of(value: Any, fail: Callable[[str], Any]) -> DataFormat:
    """The 2-D ``data_format`` (any case) as an enum."""
    fmt = DataFormat.lookup(value, upper=True)
    if fmt not in (DataFormat.NCHW, DataFormat.NHWC):
        fail(f"data_format must be 'NCHW' or 'NHWC', got {value!r}")
    return fmt


def spatial_axes(data_format: DataFormat) -> tuple[int, int]:
    return (2, 3) if data_format == DataFormat.NCHW else (1, 2)


def _same(size: int, k: int, s: int, d: int, lower: bool) -> tuple[int, int]:
    effective = (k - 1) * d + 1
    out = (size + s - 1) // s
    needed = max(0, (out - 1) * s + effective - size)
    small, large = needed // 2, needed - needed // 2
    return (large, small) if lower else (small, large)


def resolve_padding(
    padding: Any,
    data_format: DataFormat,
    spatial: Sequence[int],
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
    fail: Callable[[str], Any],
) -> Pads:
    """Per spatial axis ``(before, after)`` padding for a string or explicit ``padding``."""
    if isinstance(padding, str):
        mode = Padding.lookup(padding, upper=True)
        if mode == Padding.VALID:
            return tuple((0, 0) for _ in spatial)
        if mode is not None:
            lower = mode != Padding.SAME_UPPER
            return tuple(
                _same(n, k, s, d, lower) for n, k, s, d in zip(spatial, kernel, strides, dilations)
            )
        fail(
            f"padding must be 'SAME', 'SAME_LOWER', 'SAME_UPPER', 'VALID' or a list of "
            f"per-axis paddings, got {padding!r}"
        )
    ndim = len(spatial) + 2
    if not isinstance(padding, (list, tuple)) or len(padding) != ndim:
        fail(
            f"explicit padding must have one entry per input axis ({ndim}), each an int or a "
            f"(before, after) pair, got {padding!r}"
        )
    first = spatial_axes(data_format)[0]
    pads = []
    for axis, entry in enumerate(padding):
        pair = (entry, entry) if isinstance(entry, int) else entry
        ok = (
            isinstance(pair, (list, tuple))
            and len(pair) == 2
            and all(isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in pair)
        )
        if not ok:
            fail(
                f"padding entry {axis} must be an int >= 0 or a (before, after) pair, got {entry!r}"
            )
        if first <= axis < first + len(spatial):
            pads.append((int(pair[0]), int(pair[1])))
        elif tuple(pair) != (0, 0):
            fail(
                f"padding entry {axis} pads the batch or channel axis of a {data_format} input; "
                f"only spatial axes may be padded, got {padding!r}"
            )
    return tuple(pads)


def pool_output(size: int, k: int, s: int, pad: tuple[int, int], ceil_mode: bool) -> int:
    span = size + pad[0] + pad[1] - k
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= size + pad[0]:
        out -= 1  # the last window must start inside the data or the leading padding
    return out


# -- convolution --------------------------------------------------------------------------
# On CPU the weight gradient is summed over pieces of WGRAD_CHUNK examples (at most
# WGRAD_MAX_PIECES pieces): measured 1.2-1.3x faster LeNet training (bench/, BENCHMARKS.md,
# "Convolution on CPU"). INTERNAL_LAYOUT / POOL_INTERNAL_LAYOUT = "NHWC" run NCHW convolutions
# / pooling channels-last inside their lowerings; measured *slower* inside flowjob's per-op
# graphs (the transposes pin XLA's layouts), so they are off and kept for that comparison.
WGRAD_CHUNK = 8
WGRAD_MAX_PIECES = 16
INTERNAL_LAYOUT = ""
POOL_INTERNAL_LAYOUT = ""
# On CPU a grouped convolution (1 < groups <= GROUPED_SPLIT_MAX; 1-, 2- and 3-D) runs as one
# channels-last convolution per group: XLA:CPU's own grouped convolution leaves YNNPACK, and
# its weight gradient took 3-26 s where the split takes 3-40 ms (bench/, BENCHMARKS.md), and
# is less precise (conv_grouped_split). Larger group counts keep XLA's convolution (one op
# per group would swamp the compiler), and so do 2-D depthwise convolutions (one input
# channel per group) of any count: XLA runs them as fast as the split, whose compile grows
# with the groups (a 4-layer depthwise net, 64 channels: first call 15 s split, 2.8 s not).
# 1-D and 3-D ones keep the split for its precision: OneFlow's conv3d tests sum 10 x 18^3
# products per weight-gradient entry.
GROUPED_SPLIT_MAX = 64


# On CPU an unpadded 1x1 convolution (groups=1) is a matrix product over the channels: as a
# dot, its weight gradient is a matmul, measured 1.5-1.8x faster than XLA's convolution.
POINTWISE_AS_DOT = True


def _conv_plain(x, w, strides, pads, dilations, groups, data_format):
    kernel = "OIHW" if data_format == DataFormat.NCHW else "OHWI"
    return lax.conv_general_dilated(
        x,
        w,
        window_strides=strides,
        padding=pads,
        rhs_dilation=dilations,
        dimension_numbers=(data_format, kernel, data_format),
        feature_group_count=groups,
    )


_OIHW_TO_OHWI = (0, 2, 3, 1)


def weights_as_recorded(w, data_format, weight_format):
    """The weights as XLA's NHWC convolution and the kernel choice see them: OHWI (a
    transposed convolution's IHWO), transposed per call from ``weight_format`` "OIHW", the
    channels-first layout a channels-last program hands over as recorded
    (runtime/_channels_last.py; oneDNN takes them so). Returns ``(spec, xla_weights)``:
    the shape the choice is made for (no transpose) and the callable giving XLA's operand."""
    if data_format != DataFormat.NHWC or weight_format != "OIHW":
        return w, lambda: w
    spec = jax.ShapeDtypeStruct(tuple(w.shape[a] for a in _OIHW_TO_OHWI), w.dtype)
    return spec, lambda: w.transpose(_OIHW_TO_OHWI)


def lower_conv2d(x, w, *, strides, pads, dilations, groups, data_format, weight_format=None):
    """``weight_format`` "OIHW" with NHWC data: channels-first weights (see
    ``weights_as_recorded``)."""
    settings = dict(strides=strides, pads=pads, dilations=dilations, groups=groups)
    spec, xla_weights = weights_as_recorded(w, data_format, weight_format)
    signature = kernels.ConvSignature.of(x, spec, data_format=data_format, **settings)
    args = signature.settings
    # the optional compiled kernels (flowjob/_src/kernels), where they are the faster
    kernel = kernels.conv_kernel(signature, lambda a, b: _xla_conv2d(a, b, *args))
    if kernel is kernels.ConvKernel.ONEDNN:
        return kernels.conv2d_onednn(x, w, *args, weight_format)
    return _xla_conv2d(x, xla_weights(), *args)


def _xla_conv2d(x, w, strides, pads, dilations, groups, data_format):
    args = (strides, pads, dilations, groups, data_format)
    cpu = kernels.lowering_platform() == "cpu"
    if cpu and data_format == DataFormat.NCHW and INTERNAL_LAYOUT == DataFormat.NHWC:
        t = (0, 2, 3, 1)
        y = _xla_conv2d(x.transpose(t), w.transpose(t), *args[:4], DataFormat.NHWC)
        return y.transpose(0, 3, 1, 2)
    in_per_group = w.shape[1] if data_format == DataFormat.NCHW else w.shape[3]
    if cpu and 1 < groups <= GROUPED_SPLIT_MAX and in_per_group > 1:
        return conv_grouped_split(x, w, *args)
    spatial = w.shape[2:] if data_format == DataFormat.NCHW else w.shape[1:3]
    if (
        cpu
        and POINTWISE_AS_DOT
        and groups == 1
        and tuple(spatial) == (1, 1)
        and all(p == (0, 0) for p in pads)
    ):
        return _conv_pointwise(x, w, strides, data_format)
    # A symbolic batch (jax.export's free batch dimension) has no size to cut into pieces.
    if not cpu or not WGRAD_CHUNK or not isinstance(x.shape[0], int) or x.shape[0] <= WGRAD_CHUNK:
        return _conv_plain(x, w, *args)
    return _conv_chunked_wgrad(x, w, *args)


@functools.partial(jax.custom_vjp, nondiff_argnums=(2, 3, 4, 5, 6))
def _conv_chunked_wgrad(x, w, strides, pads, dilations, groups, data_format):
    return _conv_plain(x, w, strides, pads, dilations, groups, data_format)


def _conv_vjp_fwd(x, w, *args):
    return _conv_plain(x, w, *args), (x, w)


def _conv_vjp_bwd(*nondiff_res_g):
    # XLA:CPU computes the weight gradient as one convolution that contracts over the whole
    # batch (x^T * dy over batch and space); its kernels run that 2-4x slower than the same
    # sum over a few small batch pieces. The gradient is linear in the batch, so the pieces
    # add up to it (in a different summation order: equal to float32 rounding).
    *args, (x, w), g = nondiff_res_g
    _, vjp_x = jax.vjp(lambda a: _conv_plain(a, w, *args), x)
    batch = x.shape[0]
    size = max(WGRAD_CHUNK, -(-batch // WGRAD_MAX_PIECES))
    dw = None
    for start in range(0, batch, size):
        piece = slice(start, min(start + size, batch))
        _, vjp_w = jax.vjp(lambda k, p=piece: _conv_plain(x[p], k, *args), w)
        part = vjp_w(g[piece])[0]
        dw = part if dw is None else dw + part
    return vjp_x(g)[0], dw


_conv_chunked_wgrad.defvjp(_conv_vjp_fwd, _conv_vjp_bwd)


def _conv_pointwise(x, w, strides, data_format):
    """An unpadded 1x1 convolution: strided subsampling, then a product over channels."""
    if data_format == DataFormat.NCHW:
        x = x[:, :, :: strides[0], :: strides[1]]
        y = lax.dot_general(w[:, :, 0, 0], x, (((1,), (1,)), ((), ())))  # (O, N, H, W)
        return y.transpose(1, 0, 2, 3)
    x = x[:, :: strides[0], :: strides[1], :]
    return lax.dot_general(x, w[:, 0, 0, :], (((3,), (1,)), ((), ())))


def conv_grouped_split(x, w, strides, pads, dilations, groups, data_format):
    """``groups`` channels-last convolutions of one group each, concatenated (1-, 2- or 3-D);
    JAX's own gradients of it are per-group convolutions too. Besides its speed (above), each
    group's weight gradient is an ungrouped convolution, whose blocked accumulation keeps
    float32 sums over large batches and volumes as precise as TensorFlow's (which OneFlow's
    tests compare with, splitting groups the same way): XLA:CPU's grouped weight gradient
    sums them in one long run, 1e-5 relative off for a 10x18^3-element sum."""
    fmt = DataFormat(data_format)
    spatial = fmt.value[2:] if fmt.channels_first else fmt.value[1:-1]
    nd = len(spatial)
    if fmt.channels_first:  # to N...C / O...I
        last = (0, *range(2, nd + 2), 1)
        x, w = x.transpose(last), w.transpose(last)
    cin, cout = x.shape[-1] // groups, w.shape[0] // groups
    numbers = ("N" + spatial + "C", "O" + spatial + "I", "N" + spatial + "C")
    parts = [
        lax.conv_general_dilated(
            x[..., g * cin : (g + 1) * cin],
            w[g * cout : (g + 1) * cout],
            window_strides=strides,
            padding=pads,
            rhs_dilation=dilations,
            dimension_numbers=numbers,
        )
        for g in range(groups)
    ]
    y = jnp.concatenate(parts, axis=-1)
    return y.transpose(0, nd + 1, *range(1, nd + 1)) if fmt.channels_first else y


# -- pooling ------------------------------------------------------------------------------
def lower_pool2d(x, *, mode, ksize, strides, pads, ceil_mode, data_format):
    """``mode`` is a ``PoolMode``. Non-overlapping windows (ksize == strides) use a
    reshape + reduction, which XLA:CPU runs faster than ``reduce_window``."""
    if (
        POOL_INTERNAL_LAYOUT == DataFormat.NHWC
        and data_format == DataFormat.NCHW
        and kernels.lowering_platform() == "cpu"
    ):
        y = lower_pool2d(
            x.transpose(0, 2, 3, 1),
            mode=mode,
            ksize=ksize,
            strides=strides,
            pads=pads,
            ceil_mode=ceil_mode,
            data_format=DataFormat.NHWC,
        )
        return y.transpose(0, 3, 1, 2)
    axes = spatial_axes(data_format)
    sizes = [x.shape[a] for a in axes]
    outs = [pool_output(n, k, s, p, ceil_mode) for n, k, s, p in zip(sizes, ksize, strides, pads)]
    # padding that lets `outs` windows fit: the explicit one plus what ceil_mode needs
    full = [
        (p[0], max(p[1], (o - 1) * s + k - n - p[0]))
        for n, k, s, p, o in zip(sizes, ksize, strides, pads, outs)
    ]
    if tuple(ksize) == tuple(strides):
        return _pool_blocks(x, mode, ksize, full, outs, sizes, axes)
    return _pool_windows(x, mode, ksize, strides, full, outs, sizes, axes)


def _pad_value(dtype, mode: PoolMode):
    # Python scalars: reduce_window recognizes (0, add) and (-inf, max) as monoids only for
    # concrete init values, and only those forms have gradients.
    if mode == PoolMode.AVG:
        return 0.0 if jnp.issubdtype(dtype, jnp.floating) else 0
    if jnp.issubdtype(dtype, jnp.floating):
        return -float("inf")
    return int(jnp.iinfo(dtype).min)


def _window_counts(sizes, ksize, strides, full, outs) -> np.ndarray:
    """Real (non-padding) elements per output window, shape ``outs``."""
    per_axis = []
    for n, k, s, (before, _), o in zip(sizes, ksize, strides, full, outs):
        starts = np.arange(o) * s - before
        per_axis.append(np.minimum(starts + k, n) - np.maximum(starts, 0))
    return np.multiply.outer(per_axis[0], per_axis[1]).astype(np.float64)


def _expand_counts(counts: np.ndarray, data_format: DataFormat, dtype) -> jax.Array:
    shape = (1, 1) + counts.shape if data_format == DataFormat.NCHW else (1,) + counts.shape + (1,)
    return jnp.asarray(counts.reshape(shape), dtype)


def _pool_windows(x, mode, ksize, strides, full, outs, sizes, axes):
    window, step, padding = [1] * x.ndim, [1] * x.ndim, [(0, 0)] * x.ndim
    for a, k, s, p in zip(axes, ksize, strides, full):
        window[a], step[a], padding[a] = k, s, p
    init = _pad_value(x.dtype, mode)
    args = (tuple(window), tuple(step), tuple(padding))
    if mode == PoolMode.MAX:
        out = window_max(x, init, *args)
    else:
        out = lax.reduce_window(x, init, lax.add, *args)
    index = [slice(None)] * x.ndim
    for a, o in zip(axes, outs):
        index[a] = slice(0, o)  # a trailing padding >= ksize would add windows past `outs`
    out = out[tuple(index)]
    if mode == PoolMode.MAX:
        return out
    data_format = DataFormat.NCHW if axes == (2, 3) else DataFormat.NHWC
    counts = _window_counts(sizes, ksize, strides, full, outs)
    return out / _expand_counts(counts, data_format, x.dtype)


def _pool_blocks(x, mode, ksize, full, outs, sizes, axes):
    pad_cfg = [(0, 0)] * x.ndim
    for a, p in zip(axes, full):
        pad_cfg[a] = p
    if any(p != (0, 0) for p in pad_cfg):
        x = jnp.pad(x, pad_cfg, constant_values=_pad_value(x.dtype, mode))
    index = [slice(None)] * x.ndim
    for a, k, o in zip(axes, ksize, outs):
        index[a] = slice(0, o * k)  # windows past the last output are not computed
    x = x[tuple(index)]
    if mode == PoolMode.MAX:
        return block_max(x, tuple(axes), tuple(ksize))
    blocks, window_axes = as_blocks(x, axes, ksize)
    total = jnp.sum(blocks, axis=window_axes)
    data_format = DataFormat.NCHW if axes == (2, 3) else DataFormat.NHWC
    counts = _window_counts(sizes, ksize, ksize, full, outs)
    if np.all(counts == counts.flat[0]):
        return total / jnp.asarray(counts.flat[0], x.dtype)
    return total / _expand_counts(counts, data_format, x.dtype)
