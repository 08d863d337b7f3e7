"""OneFlow v0.4 math ops beyond the core set: ``flow.math.polyval``,
``flow.math.l2_normalize``, ``flow.count_not_finite``, ``flow.multi_count_not_finite``,
``flow.smooth_l1_loss``, ``flow.math.unsorted_segment_sum``, ``unsorted_batch_segment_sum``,
``flow.nn.fused_bias_add_gelu``."""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp

from ..graph import Blob, apply_op
from ._nn import bias_add
from ._unary import gelu
from ._util import check_name, fail, norm_axis, require_blob


def _lower_polyval(x, *, coeffs):
    out = jnp.zeros_like(x)
    for c in coeffs:  # Horner's rule, highest power first
        out = out * x + jnp.asarray(c, x.dtype)
    return out


def polyval(coeffs: Sequence[float], x: Blob, name: str | None = None) -> Blob:
    """``coeffs[0] * x**(n-1) + ... + coeffs[n-1]``, elementwise; no coefficients give zeros."""
    public = "flow.math.polyval"
    check_name(public, name)
    if not isinstance(coeffs, (list, tuple)):
        fail(public, f"coeffs must be a list or tuple, got {type(coeffs).__name__}", name)
    require_blob(public, x, "x", name)
    return apply_op("polyval", _lower_polyval, [x], attrs={"coeffs": tuple(coeffs)},
                    name=name, prefix="Polyval", elementwise=True)


def _lower_l2_normalize(x, *, axis, epsilon):
    square_sum = jnp.sum(x * x, axis=axis, keepdims=True)
    return x / jnp.sqrt(jnp.maximum(square_sum, epsilon))


def l2_normalize(input: Blob, axis: int | None = None, epsilon: float = 1e-12,  # noqa: A002
                 name: str | None = None) -> Blob:
    """``x / sqrt(max(sum(x**2, axis), epsilon))``, as OneFlow's kernel."""
    public = "flow.math.l2_normalize"
    check_name(public, name)
    require_blob(public, input, "input", name)
    if axis is None:
        fail(public, "axis must be an int (OneFlow v0.4 normalizes along one axis)", name)
    return apply_op("l2_normalize", _lower_l2_normalize, [input],
                    attrs={"axis": norm_axis(public, axis, input.ndim, name),
                           "epsilon": float(epsilon)}, name=name, prefix="L2Normalize")


def _lower_count_not_finite(x):
    return jnp.sum(~jnp.isfinite(x), dtype=jnp.int64).reshape((1,))


def count_not_finite(x: Blob, name: str | None = None) -> Blob:
    """How many elements are inf or nan, as an int64 blob of shape ``(1,)``."""
    public = "flow.count_not_finite"
    check_name(public, name)
    require_blob(public, x, "x", name)
    return apply_op("count_not_finite", _lower_count_not_finite, [x], name=name,
                    prefix="CountNotFinite")


def _lower_multi_count_not_finite(*xs):
    return sum(jnp.sum(~jnp.isfinite(x), dtype=jnp.int64) for x in xs).reshape((1,))


def multi_count_not_finite(x: Sequence[Blob], name: str | None = None) -> Blob:
    """How many elements of all blobs in ``x`` are inf or nan (int64, shape ``(1,)``)."""
    public = "flow.multi_count_not_finite"
    check_name(public, name)
    if not isinstance(x, (list, tuple)) or not x:
        fail(public, f"x must be a non-empty list of blobs, got {x!r}", name)
    blobs = [require_blob(public, b, f"x[{i}]", name) for i, b in enumerate(x)]
    return apply_op("multi_count_not_finite", _lower_multi_count_not_finite, blobs, name=name,
                    prefix="MultiCountNotFinite")


def _lower_smooth_l1(prediction, label, *, beta):
    d = jnp.abs(prediction - label)
    return jnp.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)


def smooth_l1_loss(prediction: Blob, label: Blob, beta: float = 1.0,
                   name: str | None = None) -> Blob:
    """Elementwise ``0.5 d**2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta``
    (``d = prediction - label``; no reduction, as in OneFlow)."""
    public = "flow.smooth_l1_loss"
    check_name(public, name)
    require_blob(public, prediction, "prediction", name)
    require_blob(public, label, "label", name)
    if prediction.shape != label.shape:
        fail(public, f"prediction {prediction.shape} and label {label.shape} must have one "
                     "shape", name)
    if beta <= 0:
        fail(public, f"beta must be > 0, got {beta}", name)
    return apply_op("smooth_l1_loss", _lower_smooth_l1, [prediction, label],
                    attrs={"beta": float(beta)}, name=name, prefix="SmoothL1Loss")


def _segment_sum(data, ids, num_segments):
    """``data`` (N, ...) summed into ``num_segments`` rows by ``ids`` (N,); others dropped.
    Half precision accumulates in float32 (thousands of terms per row lose all digits)."""
    wide = data.astype(jnp.float32) if data.dtype in (jnp.float16, jnp.bfloat16) else data
    return jax.ops.segment_sum(wide, ids, num_segments=num_segments).astype(data.dtype)


def _lower_unsorted_segment_sum(data, ids, *, num_segments, axis):
    lead = data.shape[:axis]
    rest = data.shape[axis + ids.ndim:]
    moved = jnp.moveaxis(data.reshape(lead + (ids.size,) + rest), axis, 0)
    out = _segment_sum(moved, ids.reshape(-1), num_segments)
    return jnp.moveaxis(out, 0, axis)


def unsorted_segment_sum(data: Blob, segment_ids: Blob, num_segments: int, axis: int = 0,
                         name: str | None = None) -> Blob:
    """Sums the slices of ``data`` along ``axis`` (as many axes as ``segment_ids`` has) into
    ``num_segments`` rows picked by ``segment_ids``; ids outside ``[0, num_segments)`` drop."""
    public = "flow.math.unsorted_segment_sum"
    check_name(public, name)
    require_blob(public, data, "data", name)
    require_blob(public, segment_ids, "segment_ids", name)
    axis = norm_axis(public, axis, data.ndim, name)
    if data.shape[axis:axis + segment_ids.ndim] != segment_ids.shape:
        fail(public, f"segment_ids {segment_ids.shape} must match data {data.shape} from "
                     f"axis {axis}", name)
    return apply_op("unsorted_segment_sum", _lower_unsorted_segment_sum, [data, segment_ids],
                    attrs={"num_segments": int(num_segments), "axis": axis}, name=name,
                    prefix="UnsortedSegmentSum")


def _lower_unsorted_batch_segment_sum(data, ids, *, num_segments):
    batch = ids.shape[:-1]
    flat = data.reshape((-1,) + data.shape[len(batch):])
    out = jax.vmap(lambda d, i: _segment_sum(d, i, num_segments))(
        flat, ids.reshape((-1, ids.shape[-1])))
    return out.reshape(batch + out.shape[1:])


def unsorted_batch_segment_sum(data: Blob, segment_ids: Blob, num_segments: int,
                               name: str | None = None) -> Blob:
    """``unsorted_segment_sum`` per batch: ``segment_ids`` (batch..., N) picks the row of each
    of ``data``'s (batch..., N, ...) slices within its own batch entry."""
    public = "flow.math.unsorted_batch_segment_sum"
    check_name(public, name)
    require_blob(public, data, "data", name)
    require_blob(public, segment_ids, "segment_ids", name)
    if data.shape[:segment_ids.ndim] != segment_ids.shape:
        fail(public, f"segment_ids {segment_ids.shape} must match the leading axes of data "
                     f"{data.shape}", name)
    return apply_op("unsorted_batch_segment_sum", _lower_unsorted_batch_segment_sum,
                    [data, segment_ids], attrs={"num_segments": int(num_segments)}, name=name,
                    prefix="UnsortedBatchSegmentSum")


def fused_bias_add_gelu(value: Blob, bias: Blob, data_format: str | None = None,
                        name: str | None = None) -> Blob:
    """``gelu(bias_add(value, bias, data_format))`` (one fused kernel in OneFlow; XLA fuses
    the two ops here)."""
    public = "flow.nn.fused_bias_add_gelu"
    check_name(public, name)
    added = bias_add(value, bias, data_format=data_format,
                     name=None if name is None else f"{name}-bias_add")
    return gelu(added, name=name)


def unsorted_segment_sum_like(data: Blob, segment_ids: Blob, like: Blob, axis: int = 0,
                              name: str | None = None) -> Blob:
    """``unsorted_segment_sum`` with ``num_segments = like.shape[axis]``."""
    require_blob("flow.math.unsorted_segment_sum_like", like, "like", name)
    if not 0 <= axis < like.ndim:
        fail("flow.math.unsorted_segment_sum_like", f"axis {axis} is out of range for like "
                                                     f"{like.shape}", name)
    return unsorted_segment_sum(data, segment_ids, like.shape[axis], axis, name)
