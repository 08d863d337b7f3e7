"""``flow.nn`` activations beyond relu/sigmoid/tanh: elu, relu6, hardtanh, hardsigmoid,
hardswish, swish, mish and ``logsoftmax``.

Gradients at the kinks follow OneFlow's kernels: hardtanh/relu6 pass the gradient only
strictly inside ``(min_val, max_val)``, hardsigmoid/hardswish use the inner piece on
``(-3, 3)``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ..graph import Blob, apply_op
from ._reduce import log_softmax
from ._util import check_name, fail, require_blob


def _activation(public: str, op_type: str, prefix: str, lowering, x: Blob,
                name: str | None, **attrs) -> Blob:
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    if not x.dtype.is_floating:
        fail(public, f"needs a floating point input, got {x.dtype.name}", name)
    if x.dtype.np_dtype.itemsize < 4:
        lowering = _in_float32(lowering)
    return apply_op(op_type, lowering, [x], attrs=attrs, name=name, prefix=prefix,
                    elementwise=True)


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


def hardtanh(x: Blob, min_val: float = -1.0, max_val: float = 1.0,
             name: str | None = None) -> Blob:
    """``x`` clipped to ``[min_val, max_val]``."""
    public = "flow.nn.hardtanh"
    if not float(min_val) < float(max_val):
        fail(public, f"min_val ({min_val}) must be smaller than max_val ({max_val})", name)
    return _activation(public, "hardtanh", "Hardtanh", _hardtanh, x, name,
                       min_val=float(min_val), max_val=float(max_val))


def relu6(x: Blob, name: str | None = None) -> Blob:
    """``min(max(x, 0), 6)`` (OneFlow: ``hardtanh(x, 0, 6)``)."""
    return _activation("flow.nn.relu6", "hardtanh", "Relu6", _hardtanh, x, name,
                       min_val=0.0, max_val=6.0)


def _hardsigmoid(x):
    inner = x / 6 + 0.5
    return jnp.where(x <= -3, jnp.zeros((), x.dtype), jnp.where(x >= 3, jnp.ones((), x.dtype),
                                                                  inner))


def hardsigmoid(x: Blob, name: str | None = None) -> Blob:
    """0 for ``x <= -3``, 1 for ``x >= 3``, ``x / 6 + 1/2`` between."""
    return _activation("flow.nn.hardsigmoid", "hardsigmoid", "HardSigmoid", _hardsigmoid, x,
                       name)


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

