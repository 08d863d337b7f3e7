"""Channels-first convolution nets run channels-last inside a CPU program.

A job written NCHW (OneFlow's default) keeps its blobs NCHW, but on the CPU both convolution
kernels want channels-last data: oneDNN's takes NHWC activations as they lie and reorders
NCHW ones into and out of its blocked layout at every call (~25% of ResNet-50's oneDNN time),
and XLA:CPU's own convolutions run NHWC. Transposing inside each op's lowering only moves
those copies around (bench/NOTES.md, sessions 19-20). So a program evaluates such a graph
channels-last: a convolution, and the ops it feeds that have a channels-last form (batch
norm, bias add, pools, reductions, concatenation, elementwise ops), keep an NHWC value of
their NCHW blob beside it and hand it on; the NCHW value is a transpose of it that XLA
drops where nothing reads it. Every op still runs its one lowering, with its channels-last
attributes.

Only the program's evaluation changes: every blob's value (results, watched blobs, gradients,
assignments) is still the NCHW one, and eager mode runs ops as recorded.
"""

from __future__ import annotations

from typing import Any

from .. import kernels
from ..graph import JobGraph

TO_NHWC = (0, 2, 3, 1)  # an NCHW array's (or OIHW weight's) axes in NHWC (OHWI) order
TO_NCHW = (0, 3, 1, 2)

ENABLED = True  # False: programs evaluate graphs as recorded (for comparisons)

_CONV_OPS = frozenset({"conv2d", "deconv2d"})
# ops whose channel axis is an attribute
_CHANNEL_AXIS_OPS = frozenset({"normalization", "batch_normalization", "bias_add"})
_FORMAT_OPS = frozenset({"max_pool_2d", "avg_pool_2d"})
_REDUCE_OPS = frozenset({"reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod"})
# ops placing their output on devices by its (NCHW) axes: never given an NHWC value
_PLACING_OPS = frozenset({"with_distribute", "parallel_cast", "hierarchical_parallel_cast"})


def wanted(graph: JobGraph, mesh: Any) -> bool:
    """Whether a program of ``graph`` being traced evaluates it channels-last: a one-device
    CPU program with an NCHW 2-D convolution."""
    if not ENABLED or mesh is not None or kernels.lowering_platform() != "cpu":
        return False
    return any(_nchw_conv(op) for op in graph.ops)


def _nchw_conv(op: Any) -> bool:
    return op.op_type in _CONV_OPS and op.attrs.get("data_format") == "NCHW"


def _plain(op: Any) -> bool:
    """Fixed shapes, and values of the blobs' shapes (not stacked micro-batches)."""
    blobs = (*op.inputs, *op.outputs)
    return op.real_shape is None and not any(b.is_dynamic or b.micro_batches > 1 for b in blobs)


class ChannelsLast:
    """The NHWC values of a program's NCHW blobs (``id(blob)`` -> array) while it is
    evaluated; ``run`` evaluates an op channels-last where it can."""

    def __init__(self) -> None:
        self.nhwc: dict[int, Any] = {}

    def forget(self, blob: Any) -> None:
        """``blob``'s value changed after its op (a watched gradient's perturbation)."""
        self.nhwc.pop(id(blob), None)

    def run(self, op: Any, env: dict[int, Any]) -> bool:
        """Evaluates ``op`` into ``env`` channels-last and returns True, or returns False
        having done nothing (the op then runs as recorded, on NCHW values)."""
        if op.rng or not _plain(op) or op.op_type in _PLACING_OPS:
            return False
        attrs = op.attrs
        kind = op.op_type
        if kind in _CONV_OPS:
            if not _nchw_conv(op):
                return False
            x, w = op.inputs
            fmt = attrs["data_format"]
            nhwc = {**attrs, "data_format": type(fmt)("NHWC")}
            if kind == "deconv2d":
                nhwc["output_shape"] = tuple(attrs["output_shape"][a] for a in TO_NHWC)
            # the weights as they lie, OIHW (a transposed convolution's IOHW): oneDNN takes
            # them so, and only XLA's kernel transposes them (its weights to OHWI per call
            # were 17% of ResNet-50's batch-8 predict program's thread time)
            y = op.lowering(self._get(x, env), env[id(w)], **nhwc, weight_format="OIHW")
            self._put(op.outputs[0], y, env)
            return True
        if not any(id(b) in self.nhwc for b in op.inputs):
            return False  # its inputs are NCHW: nothing to save
        if op.elementwise:
            return self._elementwise(op, env)
        if kind == "concat":
            return self._concat(op, env)
        first = op.inputs[0]
        if id(first) not in self.nhwc:
            return False
        if kind in _CHANNEL_AXIS_OPS:
            if attrs.get("axis") not in (1, -3) or first.ndim != 4:
                return False
            rest = [env[id(b)] for b in op.inputs[1:]]
            out = op.lowering(self.nhwc[id(first)], *rest, **{**attrs, "axis": 3})
            outs = out if isinstance(out, tuple) else (out,)
            self._put(op.outputs[0], outs[0], env)
            for blob, value in zip(op.outputs[1:], outs[1:]):  # per-channel statistics
                env[id(blob)] = value
            return True
        if kind in _FORMAT_OPS:
            fmt = attrs.get("data_format")
            if fmt != "NCHW":
                return False
            y = op.lowering(self.nhwc[id(first)], **{**attrs, "data_format": type(fmt)("NHWC")})
            self._put(op.outputs[0], y, env)
            return True
        if kind in _REDUCE_OPS:
            return self._reduce(op, env)
        return False

    def _concat(self, op: Any, env: dict[int, Any]) -> bool:
        if any(b.ndim != 4 for b in op.inputs) or set(op.attrs) != {"axis"}:
            return False
        axis = TO_NHWC.index(op.attrs["axis"] % 4)
        y = op.lowering(*(self._get(b, env) for b in op.inputs), axis=axis)
        self._put(op.outputs[0], y, env)
        return True

    def _elementwise(self, op: Any, env: dict[int, Any]) -> bool:
        shape = op.outputs[0].shape
        if len(op.outputs) != 1 or any(b.shape != shape for b in op.inputs):
            return False
        if any(getattr(v, "ndim", 0) > 0 for v in op.attrs.values()):
            return False  # an array operand broadcasts along the NCHW axes
        y = op.lowering(*(self._get(b, env) for b in op.inputs), **op.attrs)
        self._put(op.outputs[0], y, env)
        return True

    def _reduce(self, op: Any, env: dict[int, Any]) -> bool:
        axes, keepdims = op.attrs["axis"], op.attrs["keepdims"]
        moved = tuple(sorted(TO_NHWC.index(a) for a in axes))
        kept = [a for a in TO_NHWC if a not in axes]
        if not keepdims and kept != sorted(kept):
            return False  # the kept axes would come out in another order
        y = op.lowering(self.nhwc[id(op.inputs[0])], **{**op.attrs, "axis": moved})
        if keepdims:
            self._put(op.outputs[0], y, env)
        else:
            env[id(op.outputs[0])] = y
        return True

    def _get(self, blob: Any, env: dict[int, Any]) -> Any:
        value = self.nhwc.get(id(blob))
        return env[id(blob)].transpose(TO_NHWC) if value is None else value

    def _put(self, blob: Any, nhwc: Any, env: dict[int, Any]) -> None:
        self.nhwc[id(blob)] = nhwc
        env[id(blob)] = nhwc.transpose(TO_NCHW)
