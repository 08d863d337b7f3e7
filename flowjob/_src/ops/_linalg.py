"""Linear algebra: ``matmul``, ``add_n``, ``bias_add``, ``diag``, ``tril`` and ``polyval``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from ..graph import Blob, RealShape, apply_op, current_graph
from ..graph._real_shape import zero_padded
from . import _qat
from ._binary import add, multiply
from ._creation import zeros_like
from ._util import as_constant, check_name, fail, is_constant, require_blob, sum_dtype


def _mt(x):
    return jnp.swapaxes(x, -1, -2)


def _matmul(a, b, transpose_a, transpose_b, alpha):
    if a.ndim == b.ndim and a.shape[:-2] == b.shape[:-2]:
        # One dot_general contracting the operands' own axes. Written as a transpose and a
        # product (jnp.matmul of swapped axes), a one-row product (a batch-1 dense layer,
        # which XLA:CPU does not hand to YNNPACK) with a bias add fused into it copied the
        # whole transposed weight on every call: 3x the MLP's batch-1 predict call, 4x
        # LeNet's (bench/NOTES.md). Larger batches compile to the same program either way.
        dtype = jnp.result_type(a, b)
        a, b = a.astype(dtype), b.astype(dtype)
        n = a.ndim
        batch = tuple(range(n - 2))
        contract = ((n - 2 if transpose_a else n - 1,), (n - 1 if transpose_b else n - 2,))
        out = lax.dot_general(a, b, (contract, (batch, batch)), preferred_element_type=dtype)
    else:  # broadcast leading axes
        out = jnp.matmul(_mt(a) if transpose_a else a, _mt(b) if transpose_b else b)
    return out if alpha == 1.0 else out * jnp.asarray(alpha, out.dtype)


def _lower_matmul(a, b, *, transpose_a, transpose_b, alpha):
    return _matmul(a, b, transpose_a, transpose_b, alpha)


def _lower_matmul_const(x, *, operand, reverse, transpose_a, transpose_b, alpha):
    a, b = (operand, x) if reverse else (x, operand)
    return _matmul(a, b, transpose_a, transpose_b, alpha)


def _matmul_real(shapes, padded, *, transpose_a, transpose_b, alpha, operand=None, reverse=None):
    if operand is not None:  # one operand is a constant (an attribute)
        shapes = [jnp.shape(operand), shapes[0]] if reverse else [shapes[0], jnp.shape(operand)]
    a, b = (tuple(s) for s in shapes)
    k_a = a[-2] if transpose_a else a[-1]
    k_b = b[-1] if transpose_b else b[-2]
    if k_a != k_b:
        raise ValueError(f"the real inner dimensions differ: {k_a} (a {a}) and {k_b} (b {b})")
    try:
        batch = tuple(int(d) for d in np.broadcast_shapes(a[:-2], b[:-2]))
    except ValueError:
        raise ValueError(f"the real batch dimensions of a {a} and b {b} differ") from None
    return batch + (a[-1] if transpose_a else a[-2], b[-2] if transpose_b else b[-1])


# Zero padding: a dynamic inner dimension's padding then adds nothing to the products.
_MATMUL_REAL = RealShape(_matmul_real, zero_padded(_lower_matmul))
_MATMUL_CONST_REAL = RealShape(_matmul_real, zero_padded(_lower_matmul_const))


def matmul(
    a: Any,
    b: Any,
    transpose_a: bool = False,
    transpose_b: bool = False,
    alpha: float = 1.0,
    name: str | None = None,
) -> Blob:
    """``alpha * op(a) @ op(b)`` where ``op`` optionally transposes the last two axes.

    Both operands need rank >= 2; leading (batch) axes broadcast. One operand may be a NumPy
    constant.
    """
    public = "flow.matmul"
    name = check_name(public, name)
    if not isinstance(a, Blob) and not isinstance(b, Blob):
        fail(public, "needs at least one blob operand", name)
    for what, v in (("a", a), ("b", b)):
        if not isinstance(v, Blob) and not is_constant(v):
            fail(public, f"{what} must be a blob or a NumPy array, got {type(v).__name__}", name)
    blob = a if isinstance(a, Blob) else b
    operands = [
        v if isinstance(v, Blob) else as_constant(public, v, blob.dtype, name) for v in (a, b)
    ]
    shapes = [tuple(jnp.shape(v)) if not isinstance(v, Blob) else v.shape for v in operands]
    for what, shape in zip(("a", "b"), shapes):
        if len(shape) < 2:
            fail(public, f"{what} must have rank >= 2, got shape {shape}", name)
    k_a = shapes[0][-2] if transpose_a else shapes[0][-1]
    k_b = shapes[1][-1] if transpose_b else shapes[1][-2]
    if k_a != k_b:
        fail(
            public,
            f"inner dimensions differ: a{shapes[0]} (transpose_a={transpose_a}) has "
            f"{k_a}, b{shapes[1]} (transpose_b={transpose_b}) has {k_b}",
            name,
        )
    attrs = {
        "transpose_a": bool(transpose_a),
        "transpose_b": bool(transpose_b),
        "alpha": float(alpha),
    }
    op_type = "matmul" if len(shapes[0]) == 2 and len(shapes[1]) == 2 else "batch_matmul"
    rewrite = _qat.Rewrite(op_type)
    if isinstance(a, Blob) and isinstance(b, Blob):
        a, b = rewrite.inputs(a, b)
        out = apply_op(
            op_type,
            _lower_matmul,
            [a, b],
            attrs=attrs,
            name=name,
            prefix="Matmul",
            real_shape=_MATMUL_REAL,
        )
        return rewrite.output(out)
    reverse = not isinstance(a, Blob)
    attrs.update(operand=operands[0] if reverse else operands[1], reverse=reverse)
    (blob,) = rewrite.inputs(blob)
    out = apply_op(
        op_type,
        _lower_matmul_const,
        [blob],
        attrs=attrs,
        name=name,
        prefix="Matmul",
        real_shape=_MATMUL_CONST_REAL,
    )
    return rewrite.output(out)


def _lower_add_n(*xs):
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return out


def add_n(inputs: Sequence[Blob], name: str | None = None) -> Blob:
    """Elementwise sum of blobs of one shape and dtype."""
    public = "flow.math.add_n"
    name = check_name(public, name)
    if not isinstance(inputs, (list, tuple)) or not inputs:
        fail(public, f"inputs must be a non-empty list of blobs, got {inputs!r}", name)
    for i, x in enumerate(inputs):
        if not isinstance(x, Blob):
            fail(public, f"inputs[{i}] must be a blob, got {type(x).__name__}", name)
        if x.shape != inputs[0].shape or x.dtype != inputs[0].dtype:
            fail(
                public,
                f"all inputs need the same shape and dtype: inputs[0] is "
                f"{inputs[0].shape} {inputs[0].dtype.name}, inputs[{i}] is "
                f"{x.shape} {x.dtype.name}",
                name,
            )
    if len(inputs) == 1:
        return inputs[0]
    return apply_op("add_n", _lower_add_n, list(inputs), name=name, prefix="AddN", elementwise=True)


def _lower_bias_add(value, bias, *, axis):
    shape = [1] * value.ndim
    shape[axis] = bias.shape[0]
    # The bias gradient sums every other axis: half precision accumulates it in float32.
    wide = sum_dtype(value.dtype)
    return (value.astype(wide) + bias.reshape(shape).astype(wide)).astype(value.dtype)


def _bias_add_real(shapes, padded, *, axis):
    value, bias = (tuple(s) for s in shapes)
    if bias[0] != value[axis]:
        raise ValueError(f"bias has {bias[0]} real elements, axis {axis} of value {value}")
    return value


_BIAS_ADD_REAL = RealShape(_bias_add_real)


def bias_add(
    value: Blob, bias: Blob, data_format: str | None = None, name: str | None = None
) -> Blob:
    """Adds the 1-D ``bias`` along the channel axis: 1 for None/"NC...", last for "N...C"."""
    public = "flow.nn.bias_add"
    name = check_name(public, name)
    require_blob(public, value, "value", name)
    require_blob(public, bias, "bias", name)
    if data_format is None or data_format.startswith("NC"):
        axis = 1
    elif data_format.startswith("N") and data_format.endswith("C"):
        axis = value.ndim - 1
    else:
        fail(
            public, f"data_format must be of the form 'N...C' or 'NC...', got {data_format!r}", name
        )
    if value.ndim < 2 or axis >= value.ndim:
        fail(
            public, f"value must have rank >= 2 with a channel axis {axis}, got {value.shape}", name
        )
    if bias.ndim != 1 or bias.shape[0] != value.shape[axis]:
        fail(
            public,
            f"bias must be 1-D with {value.shape[axis]} elements (axis {axis} of "
            f"value {value.shape}), got shape {bias.shape}",
            name,
        )
    return apply_op(
        "bias_add",
        _lower_bias_add,
        [value, bias],
        attrs={"axis": axis},
        name=name,
        prefix="BiasAdd",
        real_shape=_BIAS_ADD_REAL,
    )


def lower_tril(x, *, diagonal, fill):
    rows, cols = x.shape[-2:]
    keep = jnp.tril(jnp.ones((rows, cols), bool), diagonal)
    return jnp.where(keep, x, jnp.asarray(fill, x.dtype))


def tril(x: Blob, diagonal: int = 0, fill_value: float = 0, name: str | None = None) -> Blob:
    """The lower triangle of the last two axes (on and below ``diagonal``); ``fill_value``
    elsewhere."""
    public = "flow.math.tril"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    if x.ndim < 2:
        fail(public, f"x needs rank >= 2, got shape {x.shape}", name)
    return apply_op(
        "tril",
        lower_tril,
        [x],
        attrs={"diagonal": int(diagonal), "fill": fill_value},
        name=name,
        prefix="Tril",
    )


def _lower_diag(x, *, diagonal):
    return jnp.diag(x, diagonal)


def diag(input: Blob, diagonal: int = 0, name: str | None = None) -> Blob:  # noqa: A002
    """A 1-D ``input`` as the ``diagonal``-th diagonal of a square matrix, or the
    ``diagonal``-th diagonal of a 2-D ``input``."""
    public = "flow.diag"
    name = check_name(public, name)
    require_blob(public, input, "input", name)
    if input.ndim not in (1, 2):
        fail(public, f"input must be 1-D or 2-D, got shape {input.shape}", name)
    if input.ndim == 2 and not -input.shape[0] < diagonal < input.shape[1]:
        fail(public, f"diagonal {diagonal} is outside the {input.shape} matrix", name)
    return apply_op(
        "diag", _lower_diag, [input], attrs={"diagonal": int(diagonal)}, name=name, prefix="Diag"
    )


def polyval(coeffs: Sequence[float], x: Blob, name: str | None = None) -> Blob:
    """``coeffs[0] * x**(n-1) + ... + coeffs[n-1]`` by Horner's rule (OneFlow's op chain)."""
    public = "flow.math.polyval"
    check_name(public, name)
    require_blob(public, x, "x", name)
    if not isinstance(coeffs, (list, tuple)):
        fail(public, f"coeffs must be a list of numbers, got {type(coeffs).__name__}", name)
    if name is None:
        name = current_graph().unique_name("Polyval")
    p = zeros_like(x, name=name)
    for c in coeffs:
        p = add(c, multiply(p, x))
    return p
