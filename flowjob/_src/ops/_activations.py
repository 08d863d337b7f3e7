"""Activations and softmax (``flow.nn`` / ``flow.math``): relu, sigmoid, tanh, gelu,
leaky_relu, softplus, elu, relu6, hardtanh, hardsigmoid, hardswish, swish, mish,
``log_sigmoid``, softmax/log_softmax, and OneFlow's explicit gradient ops (``gelu_grad``,
``sigmoid_grad``, ``softmax_grad``).

Gradients at the kinks follow OneFlow's kernels: hardtanh/relu6 pass the gradient only
strictly inside ``(min_val, max_val)``, hardsigmoid/hardswish use the inner piece on
``(-3, 3)``.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from ..graph import Blob, RealShape, apply_op
from ..graph._real_shape import fill_padding
from ._unary import math_unary, unary
from ._util import check_name, fail, norm_axis, require_blob


def relu(x: Blob, name: str | None = None) -> Blob:
    """Rectified linear unit, ``max(x, 0)``, elementwise (``flow.nn.relu``, ``flow.math.relu``).

    Args:
        x: a blob of a floating or integer dtype.
        name: the op's name (default: generated).

    Returns:
        A blob of ``x``'s shape and dtype.

    Raises:
        OpError: ``x`` is not a blob of the job being traced.

    Examples:
        >>> import numpy as np, flowjob as flow, flowjob.typing as tp
        >>> @flow.global_function()
        ... def job(x: tp.Numpy.Placeholder((4,))) -> tp.Numpy:
        ...     return flow.nn.relu(x)
        >>> job(np.array([-2.0, -0.5, 0.0, 3.0], np.float32))
        array([0., 0., 0., 3.], dtype=float32)
    """
    return unary("flow.math.relu", "relu", "Relu", jax.nn.relu, x, name)


def sigmoid(x: Blob, name: str | None = None) -> Blob:
    """``1 / (1 + exp(-x))``."""
    return unary("flow.math.sigmoid", "sigmoid", "Sigmoid", jax.nn.sigmoid, x, name, True)


def tanh(x: Blob, name: str | None = None) -> Blob:
    """Hyperbolic tangent."""
    return unary("flow.math.tanh", "tanh", "TanH", jnp.tanh, x, name, True)


def _gelu(x):
    return jax.nn.gelu(x, approximate=False)


def gelu(x: Blob, name: str | None = None) -> Blob:
    """Gaussian error linear unit ``0.5 x (1 + erf(x / sqrt(2)))`` (exact form)."""
    return unary("flow.math.gelu", "gelu", "Gelu", _gelu, x, name, True)


def softplus(x: Blob, name: str | None = None) -> Blob:
    """``log(1 + exp(x))``."""
    return unary("flow.math.softplus", "softplus", "Softplus", jax.nn.softplus, x, name, True)


def _lower_leaky(x, *, alpha):
    return jnp.where(x > 0, x, x * alpha)


def leaky_relu(x: Blob, alpha: float = 0.2, name: str | None = None) -> Blob:
    """``x`` where positive, ``alpha * x`` elsewhere."""
    public = "flow.nn.leaky_relu"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    if not x.dtype.is_floating:
        fail(public, f"needs a floating point input, got {x.dtype.name}", name)
    return apply_op(
        "leaky_relu",
        _lower_leaky,
        [x],
        attrs={"alpha": float(alpha)},
        name=name,
        prefix="LeakyRelu",
        elementwise=True,
    )


def _activation(
    public: str, op_type: str, prefix: str, lowering, x: Blob, name: str | None, **attrs
) -> Blob:
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    if not x.dtype.is_floating:
        fail(public, f"needs a floating point input, got {x.dtype.name}", name)
    if x.dtype.np_dtype.itemsize < 4:
        lowering = _in_float32(lowering)
    return apply_op(op_type, lowering, [x], attrs=attrs, name=name, prefix=prefix, elementwise=True)


def _in_float32(lowering):
    """Half-precision inputs computed in float32 and rounded once at the end, as OneFlow's
    half kernels do: a float16 chain (and its gradient) loses several ulps."""

    def run(x, **attrs):
        return lowering(x.astype(jnp.float32), **attrs).astype(x.dtype)

    return run


def _elu(x, *, alpha):
    # expm1 of min(x, 0): the unused branch never overflows, so no inf * 0 in the gradient
    return jnp.where(x > 0, x, alpha * jnp.expm1(jnp.minimum(x, 0)))


def elu(x: Blob, alpha: float = 1.0, name: str | None = None) -> Blob:
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere."""
    return _activation("flow.nn.elu", "elu", "Elu", _elu, x, name, alpha=float(alpha))


def _hardtanh(x, *, min_val, max_val):
    lo, hi = jnp.asarray(min_val, x.dtype), jnp.asarray(max_val, x.dtype)
    inside = (x > lo) & (x < hi)
    return jnp.where(inside, x, jax.lax.stop_gradient(jnp.clip(x, lo, hi)))


def hardtanh(x: Blob, min_val: float = -1.0, max_val: float = 1.0, name: str | None = None) -> Blob:
    """``x`` clipped to ``[min_val, max_val]``."""
    public = "flow.nn.hardtanh"
    if not float(min_val) < float(max_val):
        fail(public, f"min_val ({min_val}) must be smaller than max_val ({max_val})", name)
    return _activation(
        public,
        "hardtanh",
        "Hardtanh",
        _hardtanh,
        x,
        name,
        min_val=float(min_val),
        max_val=float(max_val),
    )


def relu6(x: Blob, name: str | None = None) -> Blob:
    """``min(max(x, 0), 6)`` (OneFlow: ``hardtanh(x, 0, 6)``)."""
    return _activation(
        "flow.nn.relu6", "hardtanh", "Relu6", _hardtanh, x, name, min_val=0.0, max_val=6.0
    )


def _hardsigmoid(x):
    inner = x / 6 + 0.5
    return jnp.where(
        x <= -3, jnp.zeros((), x.dtype), jnp.where(x >= 3, jnp.ones((), x.dtype), inner)
    )


def hardsigmoid(x: Blob, name: str | None = None) -> Blob:
    """0 for ``x <= -3``, 1 for ``x >= 3``, ``x / 6 + 1/2`` between."""
    return _activation("flow.nn.hardsigmoid", "hardsigmoid", "HardSigmoid", _hardsigmoid, x, name)


def _hardswish(x):
    inner = x * (x + 3) / 6
    return jnp.where(x <= -3, jnp.zeros((), x.dtype), jnp.where(x >= 3, x, inner))


def hardswish(x: Blob, name: str | None = None) -> Blob:
    """0 for ``x <= -3``, ``x`` for ``x >= 3``, ``x (x + 3) / 6`` between."""
    return _activation("flow.nn.hardswish", "hardswish", "HardSwish", _hardswish, x, name)


def _swish(x, *, beta):
    return x * jax.nn.sigmoid(beta * x)


def swish(x: Blob, beta: float = 1.0, name: str | None = None) -> Blob:
    """``x * sigmoid(beta * x)``."""
    return _activation("flow.nn.swish", "swish", "Swish", _swish, x, name, beta=float(beta))


def _mish(x):
    return x * jnp.tanh(jax.nn.softplus(x))


def mish(x: Blob, name: str | None = None) -> Blob:
    """``x * tanh(softplus(x))``."""
    return _activation("flow.nn.mish", "mish", "Mish", _mish, x, name)


def logsoftmax(logits: Blob, axis: int | None = None, name: str | None = None) -> Blob:
    """``log(softmax(logits))`` along ``axis`` (default last), computed stably in one op."""
    return log_softmax(logits, axis, name)


def log_sigmoid(x: Blob, name: str | None = None) -> Blob:
    """``log(1 / (1 + exp(-x)))``, stable for large ``|x|``."""
    return math_unary("log_sigmoid", jax.nn.log_sigmoid, x, name)


def sigmoid_v2(x: Blob, name: str | None = None) -> Blob:
    """``1 / (1 + exp(-x))`` (OneFlow's second sigmoid kernel; same values)."""
    return math_unary("sigmoid_v2", jax.nn.sigmoid, x, name)


def tanh_v2(x: Blob, name: str | None = None) -> Blob:
    """Hyperbolic tangent (OneFlow: an alias of ``flow.math.tanh``)."""
    return tanh(x, name)


def _lower_softmax(x, *, axis):
    return jax.nn.softmax(x, axis=axis)


def _lower_log_softmax(x, *, axis):
    return jax.nn.log_softmax(x, axis=axis)


def _masked_softmax(lowering):
    # Padding along other axes is zeroed (no inf/NaN rows); along ``axis`` it gets the
    # lowest finite value, so it takes no probability from the real elements.
    def masked(x, *, real, axis):
        x = fill_padding(x, real[0], 0, [d for d in range(x.ndim) if d != axis])
        return lowering(fill_padding(x, real[0], jnp.finfo(x.dtype).min, [axis]), axis=axis)

    return masked


def _same_real_shape(shapes, padded, **_):
    return tuple(shapes[0])


_SOFTMAX_REAL = RealShape(_same_real_shape, _masked_softmax(_lower_softmax))
_LOG_SOFTMAX_REAL = RealShape(_same_real_shape, _masked_softmax(_lower_log_softmax))


def _softmax(
    public: str, op_type: str, prefix: str, lowering, logits: Blob, axis: Any, name: str | None
) -> Blob:
    name = check_name(public, name)
    require_blob(public, logits, "logits", name)
    if not logits.dtype.is_floating:
        fail(public, f"needs floating point logits, got {logits.dtype.name}", name)
    if logits.ndim == 0:
        fail(public, "needs logits of rank >= 1, got a scalar", name)
    axis = norm_axis(public, -1 if axis is None else axis, logits.ndim, name)
    real = _SOFTMAX_REAL if lowering is _lower_softmax else _LOG_SOFTMAX_REAL
    return apply_op(
        op_type, lowering, [logits], attrs={"axis": axis}, name=name, prefix=prefix, real_shape=real
    )


def softmax(logits: Blob, axis: int | None = None, name: str | None = None) -> Blob:
    """``exp(x) / sum(exp(x))`` along ``axis`` (default: the last axis)."""
    return _softmax("flow.nn.softmax", "softmax", "Softmax", _lower_softmax, logits, axis, name)


def log_softmax(logits: Blob, axis: int | None = None, name: str | None = None) -> Blob:
    """``x - log(sum(exp(x)))`` along ``axis`` (default: the last axis)."""
    return _softmax(
        "flow.nn.log_softmax", "log_softmax", "LogSoftmax", _lower_log_softmax, logits, axis, name
    )


def _pair(public: str, a: Blob, b: Blob, names: tuple[str, str], name: str | None) -> None:
    require_blob(public, a, names[0], name)
    require_blob(public, b, names[1], name)
    if a.shape != b.shape or a.dtype != b.dtype or not a.dtype.is_floating:
        fail(
            public,
            f"{names[0]} ({a.shape} {a.dtype.name}) and {names[1]} ({b.shape} "
            f"{b.dtype.name}) need one floating point shape and dtype",
            name,
        )


def _lower_gelu_grad(x, dy):
    return dy * jax.grad(lambda v: jnp.sum(jax.nn.gelu(v, approximate=False)))(x)


def gelu_grad(x: Blob, dy: Blob, name: str | None = None) -> Blob:
    """``dy * gelu'(x)`` (exact gelu)."""
    public = "flow.math.gelu_grad"
    name = check_name(public, name)
    _pair(public, x, dy, ("x", "dy"), name)
    return apply_op(
        "gelu_grad", _lower_gelu_grad, [x, dy], name=name, prefix="GeluGrad", elementwise=True
    )


def _lower_sigmoid_grad(y, dy):
    return dy * y * (1 - y)


def sigmoid_grad(y: Blob, dy: Blob, name: str | None = None) -> Blob:
    """``dy * y * (1 - y)`` for ``y = sigmoid(x)``."""
    public = "flow.math.sigmoid_grad"
    name = check_name(public, name)
    _pair(public, y, dy, ("y", "dy"), name)
    return apply_op(
        "sigmoid_grad",
        _lower_sigmoid_grad,
        [y, dy],
        name=name,
        prefix="SigmoidGrad",
        elementwise=True,
    )


def _lower_softmax_grad(y, dy, *, axis):
    return y * (dy - jnp.sum(dy * y, axis=axis, keepdims=True))


def softmax_grad(y: Blob, dy: Blob, axis: int | None = None, name: str | None = None) -> Blob:
    """``y * (dy - sum(dy * y))`` along ``axis`` (default last) for ``y = softmax(x)``."""
    public = "flow.nn.softmax_grad"
    name = check_name(public, name)
    _pair(public, y, dy, ("y", "dy"), name)
    axis = norm_axis(public, -1 if axis is None else axis, y.ndim, name)
    return apply_op(
        "softmax_grad",
        _lower_softmax_grad,
        [y, dy],
        attrs={"axis": axis},
        name=name,
        prefix="SoftmaxGrad",
    )
