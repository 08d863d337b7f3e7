"""Normalization with the parameters passed in: ``moments``, batch normalization (inference
and training forms), layer normalization (and its two
gradient ops, ``layers.layer_norm_grad``/``layer_norm_param_grad``) and ``l2_normalize``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import jax
import jax.numpy as jnp
from jax import lax

from ..graph import Blob, apply_op, current_graph, namespace
from . import _batch_stats
from ._reduce import reduce_mean, reduce_variance
from ._util import check_name, fail, norm_axes, norm_axis, require_blob


def _lower_l2_normalize(x, *, axis, epsilon):
    total = jnp.sum(jnp.square(x), axis=axis, keepdims=True)
    return x * jax.lax.rsqrt(jnp.maximum(total, jnp.asarray(epsilon, x.dtype)))


def l2_normalize(
    input: Blob,
    axis: int | None = None,
    epsilon: float = 1e-12,  # noqa: A002
    name: str | None = None,
) -> Blob:
    """``x / sqrt(max(sum(x ** 2, axis), epsilon))``."""
    public = "flow.math.l2_normalize"
    name = check_name(public, name)
    require_blob(public, input, "input", name)
    if axis is None:
        fail(public, "axis is required (OneFlow fails without one)", name)
    axis = norm_axis(public, axis, input.ndim, name)
    return apply_op(
        "l2_normalize",
        _lower_l2_normalize,
        [input],
        attrs={"axis": axis, "epsilon": float(epsilon)},
        name=name,
        prefix="L2Normalize",
    )


def moments(
    x: Blob, axes: Sequence[int], keepdims: bool = False, name: str | None = None
) -> tuple[Blob, Blob]:
    """Mean and population variance of ``x`` over ``axes`` (ops inside namespace ``name``)."""
    public = "flow.nn.moments"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    if not isinstance(axes, (list, tuple)):
        fail(public, f"axes must be a list of ints, got {axes!r}", name)
    norm_axes(public, list(axes), x.ndim, name)
    if name is None:
        name = current_graph().unique_name("Moments")
    with namespace(name):
        return (
            reduce_mean(x, axis=list(axes), keepdims=keepdims),
            reduce_variance(x, axis=list(axes), keepdims=keepdims),
        )


def _lower_batch_norm(x, mean, variance, *rest, axis, epsilon, has_offset, has_scale):
    rest = list(rest)
    offset = rest.pop(0) if has_offset else None
    scale = rest.pop(0) if has_scale else None

    def nd(p):
        return (
            p
            if p.ndim == x.ndim
            else p.reshape(_batch_stats.channel_shape(x.ndim, axis, p.shape[0]))
        )

    compute = jnp.promote_types(x.dtype, jnp.float32)
    y = (x.astype(compute) - nd(mean)) * lax.rsqrt(nd(variance) + epsilon)
    if scale is not None:
        y = y * nd(scale)
    if offset is not None:
        y = y + nd(offset)
    return y.astype(x.dtype)


def batch_normalization(
    x: Blob,
    mean: Blob,
    variance: Blob,
    offset: Blob | None = None,
    scale: Blob | None = None,
    variance_epsilon: float = 1e-5,
    axis: int = 1,
    name: str | None = None,
) -> Blob:
    """``(x - mean) / sqrt(variance + eps) * scale + offset`` with given statistics.

    ``mean``/``variance``/``offset``/``scale`` are 1-D over ``axis`` or have the rank of ``x``.
    """
    public = "flow.nn.batch_normalization"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    axis = norm_axis(public, axis, x.ndim, name)
    params = [("mean", mean), ("variance", variance), ("offset", offset), ("scale", scale)]
    for what, p in params:
        if p is None and what in ("offset", "scale"):
            continue
        require_blob(public, p, what, name)
        ok = (p.ndim == 1 and p.shape[0] == x.shape[axis]) or (
            p.ndim == x.ndim and all(a == b or a == 1 for a, b in zip(p.shape, x.shape))
        )
        if not ok:
            fail(
                public,
                f"{what} of shape {p.shape} does not fit x {x.shape} along axis {axis}",
                name,
            )
    inputs = [x, mean, variance] + [p for _, p in params[2:] if p is not None]
    return apply_op(
        "batch_normalization",
        _lower_batch_norm,
        inputs,
        attrs={
            "axis": axis,
            "epsilon": float(variance_epsilon),
            "has_offset": offset is not None,
            "has_scale": scale is not None,
        },
        name=name,
        prefix="BatchNorm",
    )


def _lower_layer_norm(x, *params, begin_norm_axis, begin_params_axis, epsilon, has_gamma, has_beta):
    compute = jnp.promote_types(x.dtype, jnp.float32)
    xc = x.astype(compute)
    axes = tuple(range(begin_norm_axis, x.ndim))
    mean = jnp.mean(xc, axis=axes, keepdims=True)
    var = jnp.mean(jnp.square(xc - mean), axis=axes, keepdims=True)
    y = (xc - mean) * lax.rsqrt(var + epsilon)
    rest = list(params)
    if has_gamma:
        y = y * rest.pop(0)
    if has_beta:
        y = y + rest.pop(0)
    return y.astype(x.dtype)


def layer_norm(
    inputs: Blob,
    gamma: Blob | None = None,
    beta: Blob | None = None,
    begin_norm_axis: int = 1,
    begin_params_axis: int = -1,
    epsilon: float = 1e-5,
    name: str | None = None,
) -> Blob:
    """Normalizes over the axes from ``begin_norm_axis`` on, then ``* gamma + beta`` whose
    shape is ``inputs.shape[begin_params_axis:]``."""
    public = "flow.nn.layer_norm"
    name = check_name(public, name)
    require_blob(public, inputs, "inputs", name)
    if not inputs.dtype.is_floating:
        fail(public, f"needs a floating point input, got {inputs.dtype.name}", name)
    norm_axis_ = norm_axis(public, begin_norm_axis, inputs.ndim, name, "begin_norm_axis")
    params_axis = norm_axis(public, begin_params_axis, inputs.ndim, name, "begin_params_axis")
    want = inputs.shape[params_axis:]
    for what, p in (("gamma", gamma), ("beta", beta)):
        if p is not None:
            require_blob(public, p, what, name)
            if p.shape != want:
                fail(
                    public,
                    f"{what} must have shape {want} (inputs.shape[{begin_params_axis}:]),"
                    f" got {p.shape}",
                    name,
                )
    params = [p for p in (gamma, beta) if p is not None]
    return apply_op(
        "layer_norm",
        _lower_layer_norm,
        [inputs, *params],
        attrs={
            "begin_norm_axis": norm_axis_,
            "begin_params_axis": params_axis,
            "epsilon": float(epsilon),
            "has_gamma": gamma is not None,
            "has_beta": beta is not None,
        },
        name=name,
        prefix="LayerNorm",
    )


def _lower_bn_train(
    x, moving_mean, moving_variance, *params, axis, epsilon, momentum, has_gamma, has_beta
):
    """Normalizes with the batch statistics (``_batch_stats.normalize``: its gradient
    written out); also returns the updated moving statistics."""
    compute = jnp.promote_types(x.dtype, jnp.float32)
    rest = list(params)
    size = x.shape[axis]
    gamma = rest.pop(0) if has_gamma else jnp.ones(size, compute)
    beta = rest.pop(0) if has_beta else jnp.zeros(size, compute)
    y, mean, var = _batch_stats.normalize(x, gamma, beta, axis, epsilon)
    new_mean = momentum * moving_mean + (1.0 - momentum) * lax.stop_gradient(mean)
    new_var = momentum * moving_variance + (1.0 - momentum) * lax.stop_gradient(var)
    return y, new_mean.astype(moving_mean.dtype), new_var.astype(moving_variance.dtype)


def batch_norm_train(
    x: Blob,
    moving_mean: Blob,
    moving_variance: Blob,
    gamma: Blob | None,
    beta: Blob | None,
    axis: int,
    epsilon: float,
    momentum: float,
    name: str,
) -> tuple[Blob, Blob, Blob]:
    """The training-mode op of ``flow.layers.batch_normalization``: (y, new moving mean,
    new moving variance). ``gamma``/``beta`` come first among the optional inputs."""
    params = [p for p in (gamma, beta) if p is not None]
    return apply_op(
        "normalization",
        _lower_bn_train,
        [x, moving_mean, moving_variance, *params],
        attrs={
            "axis": axis,
            "epsilon": float(epsilon),
            "momentum": float(momentum),
            "has_gamma": gamma is not None,
            "has_beta": beta is not None,
        },
        name=name,
    )


def _lower_layer_norm_grad(dy, x, mean, inv_variance, *, begin_norm_axis):
    axes = tuple(range(begin_norm_axis, x.ndim))
    keep = x.shape[:begin_norm_axis] + (1,) * len(axes)
    inv = inv_variance.reshape(keep)
    normalized = (x - mean.reshape(keep)) * inv
    mean_dy = jnp.mean(dy, axis=axes, keepdims=True)
    mean_dy_norm = jnp.mean(dy * normalized, axis=axes, keepdims=True)
    return inv * (dy - mean_dy - normalized * mean_dy_norm)


def layer_norm_grad(
    dy: Blob,
    x: Blob,
    mean: Blob,
    inv_variance: Blob,
    begin_norm_axis: int = 1,
    name: str = "LayerNormGrad",
) -> Blob:
    """OneFlow's ``flow.layers.layer_norm_grad``: the gradient with respect to ``x`` of
    ``(x - mean) * inv_variance`` normalized over the axes from ``begin_norm_axis`` (its
    statistics depending on ``x``), for the gradient ``dy`` of the result; ``mean`` and
    ``inv_variance`` hold one value per row (``x.shape[:begin_norm_axis]``)."""
    public = "flow.layers.layer_norm_grad"
    for arg, blob in (("dy", dy), ("x", x), ("mean", mean), ("inv_variance", inv_variance)):
        require_blob(public, blob, arg, name)
    axis = norm_axis(public, begin_norm_axis, x.ndim, name, "begin_norm_axis")
    rows = math.prod(x.shape[:axis])
    if dy.shape != x.shape or mean.numel() != rows or inv_variance.numel() != rows:
        fail(
            public,
            f"dy {dy.shape} must match x {x.shape}, and mean {mean.shape} and "
            f"inv_variance {inv_variance.shape} hold {rows} rows",
            name,
        )
    return apply_op(
        "layer_norm_grad",
        _lower_layer_norm_grad,
        [dy, x, mean, inv_variance],
        attrs={"begin_norm_axis": axis},
        name=None if name == "LayerNormGrad" else name,
        prefix="LayerNormGrad",
    )


def _lower_layer_norm_param_grad(dy, normalized, gamma, *, begin_params_axis):
    batch_axes = tuple(range(begin_params_axis))
    return (dy * gamma, jnp.sum(dy, axis=batch_axes), jnp.sum(dy * normalized, axis=batch_axes))


def layer_norm_param_grad(
    dy: Blob, norm: Blob, gamma: Blob, begin_params_axis: int = -1, name: str = "LayerNormParamGrad"
) -> tuple[Blob, Blob, Blob]:
    """OneFlow's ``flow.layers.layer_norm_param_grad`` for ``y = gamma * norm + beta``:
    ``(dy * gamma, d beta, d gamma)``, the parameter gradients summed over the axes before
    ``begin_params_axis``."""
    public = "flow.layers.layer_norm_param_grad"
    for arg, blob in (("dy", dy), ("norm", norm), ("gamma", gamma)):
        require_blob(public, blob, arg, name)
    axis = norm_axis(public, begin_params_axis, dy.ndim, name, "begin_params_axis")
    if norm.shape != dy.shape or gamma.shape != dy.shape[axis:]:
        fail(
            public,
            f"norm {norm.shape} must match dy {dy.shape}, and gamma {gamma.shape} be "
            f"its shape from axis {axis} ({dy.shape[axis:]})",
            name,
        )
    return apply_op(
        "layer_norm_param_grad",
        _lower_layer_norm_param_grad,
        [dy, norm, gamma],
        attrs={"begin_params_axis": axis},
        name=None if name == "LayerNormParamGrad" else name,
        prefix="LayerNormParamGrad",
    )
