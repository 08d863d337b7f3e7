"""Quantization-aware training: ``flow.quantization.min_max_observer``,
``moving_average_min_max_observer`` and ``fake_quantization`` (OneFlow v0.4's formulas).

Schemes: ``symmetric`` (signed range, zero point 0) and ``affine`` (unsigned range, a zero
point), per layer or, for the google formula, per channel (axis 0). The ``cambricon`` formula
gives a power-of-two exponent as the "scale". Fake quantization rounds onto the grid and back;
its gradient passes straight through (OneFlow's identity gradient).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .. import _dtypes
from .._enum import Mode
from ..graph import Blob, apply_op, current_graph, get_variable, namespace
from ._util import check_name, fail, require_blob
from .initializers import zeros_initializer


class Scheme(Mode):
    SYMMETRIC = "symmetric"
    AFFINE = "affine"


class Formula(Mode):
    GOOGLE = "google"
    CAMBRICON = "cambricon"


def _modes(
    public: str, bit: int, scheme: str, formula: str, name: str | None
) -> tuple[Scheme, Formula]:
    if isinstance(bit, bool) or not isinstance(bit, int) or not 2 <= bit <= 8:
        fail(public, f"quantization_bit must be an int in [2, 8], got {bit!r}", name)
    s, f = Scheme.lookup(scheme), Formula.lookup(formula)
    if s is None:
        fail(public, f"quantization_scheme must be 'symmetric' or 'affine', got {scheme!r}", name)
    if f is None:
        fail(public, f"quantization_formula must be 'google' or 'cambricon', got {formula!r}", name)
    return s, f


def _divide(a, b):
    """``a / b`` rounded once to ``a``'s dtype, as IEEE division (OneFlow's kernels) gives it.

    XLA turns a division by a broadcast scalar into a product with its reciprocal, which in
    float32 is one ulp off the IEEE quotient for most elements; in float64 that error is far
    below float32's resolution, so the float64 quotient rounds to the IEEE float32 one
    (x64 is on in flowjob sessions)."""
    wide = jnp.promote_types(a.dtype, jnp.float64)
    return (a.astype(wide) / jnp.asarray(b, wide)).astype(a.dtype)


def _scale_and_zero(high, low, *, bit, scheme, formula):
    """Scale and zero point from the observed maximum and minimum."""
    if formula == Formula.CAMBRICON:
        peak = jnp.maximum(jnp.abs(high), jnp.abs(low))
        return jnp.floor(jnp.log2(peak)) - (bit - 2), jnp.zeros_like(peak)
    if scheme == Scheme.SYMMETRIC:
        peak = jnp.maximum(jnp.abs(high), jnp.abs(low))
        return _divide(peak, 2.0 ** (bit - 1) - 1), jnp.zeros_like(peak)
    scale = _divide(high - low, 2.0**bit - 1)
    return scale, -jnp.round(_divide(low, scale))


def _lower_observer(x, *, bit, scheme, formula, per_layer):
    rows = x.reshape(1, -1) if per_layer else x.reshape(x.shape[0], -1)
    return _scale_and_zero(
        rows.max(axis=1), rows.min(axis=1), bit=bit, scheme=scheme, formula=formula
    )


def min_max_observer(
    input: Blob,
    quantization_bit: int = 8,  # noqa: A002
    quantization_scheme: str = "symmetric",
    quantization_formula: str = "google",
    per_layer_quantization: bool = True,
    name: str | None = None,
) -> tuple[Blob, Blob]:
    """``(scale, zero_point)`` of ``input``'s range: shape ``(1,)`` per layer, or one per
    channel (``input.shape[0]``) with ``per_layer_quantization=False``."""
    public = "flow.quantization.min_max_observer"
    name = check_name(public, name)
    require_blob(public, input, "input", name)
    scheme, formula = _modes(
        public, quantization_bit, quantization_scheme, quantization_formula, name
    )
    if formula == Formula.CAMBRICON and not per_layer_quantization:
        fail(public, "the cambricon formula has no per-channel mode (as in OneFlow)", name)
    return apply_op(
        "min_max_observer",
        _lower_observer,
        [input],
        attrs={
            "bit": quantization_bit,
            "scheme": scheme,
            "formula": formula,
            "per_layer": bool(per_layer_quantization),
        },
        name=name,
        prefix="MinMaxObserver",
    )


def _lower_moving_observer(
    x, moving_max, moving_min, step, *, bit, scheme, formula, momentum, training, stop_after
):
    if training:
        high, low = x.max(), x.min()
        if scheme == Scheme.SYMMETRIC or formula == Formula.CAMBRICON:
            high = low = jnp.maximum(jnp.abs(high), jnp.abs(low))
        # the first observation (a zero average) is taken as it is
        fresh_max = jnp.where(moving_max == 0, high, moving_max * momentum + high * (1 - momentum))
        fresh_min = jnp.where(moving_min == 0, low, moving_min * momentum + low * (1 - momentum))
        # OneFlow's kernel stops updating once the step passes stop_update_after_iters
        updating = step.reshape(-1)[0] <= stop_after
        moving_max = jnp.where(updating, fresh_max, moving_max)
        moving_min = jnp.where(updating, fresh_min, moving_min)
    if scheme == Scheme.SYMMETRIC or formula == Formula.CAMBRICON:
        scale, zero = _scale_and_zero(
            moving_max, -moving_max, bit=bit, scheme=scheme, formula=formula
        )
    else:
        scale, zero = _scale_and_zero(
            moving_max, moving_min, bit=bit, scheme=scheme, formula=formula
        )
    return scale, zero, moving_max, moving_min


def moving_average_min_max_observer(
    input: Blob,
    quantization_bit: int = 8,  # noqa: A002
    quantization_scheme: str = "symmetric",
    quantization_formula: str = "google",
    momentum: float = 0.95,
    name: str | None = None,
) -> tuple[Blob, Blob]:
    """``(scale, zero_point)`` from moving averages of ``input``'s maximum and minimum, kept in
    variables ``<name>-moving_max``/``-moving_min`` (OneFlow's names): train jobs update them
    after each call, predict jobs only read them."""
    public = "flow.quantization.moving_average_min_max_observer"
    name = check_name(public, name)
    require_blob(public, input, "input", name)
    # OneFlow's Python op keeps a step variable that stays 0 with a "stop updating"
    # threshold of 1: it never stops
    return observe_moving(
        public,
        input,
        quantization_bit,
        quantization_scheme,
        quantization_formula,
        momentum,
        name,
        stop_update_after_iters=None,
    )


def observe_moving(
    public: str,
    input: Blob,  # noqa: A002
    bit: int,
    scheme_name: str,
    formula_name: str,
    momentum: float,
    name: str | None,
    *,
    stop_update_after_iters: int | None,
) -> tuple[Blob, Blob]:
    """The moving observer; with ``stop_update_after_iters`` (the QAT rewrite's) its step
    variable counts the train calls and the averages stay fixed once it passes that."""
    scheme, formula = _modes(public, bit, scheme_name, formula_name, name)
    graph = current_graph()
    name = name if name is not None else graph.unique_name("MovingAverageMinMaxObserver")
    with namespace(name):
        moving = [
            get_variable(
                v,
                shape=(1,),
                dtype=input.dtype,
                initializer=zeros_initializer(input.dtype),
                trainable=False,
            )
            for v in ("moving_max", "moving_min")
        ]
        step = get_variable(
            "current_train_step",
            shape=(1,),
            dtype=_dtypes.int64,
            initializer=zeros_initializer(_dtypes.int64),
            trainable=False,
        )
    scale, zero, new_max, new_min = apply_op(
        "moving_average_min_max_observer",
        _lower_moving_observer,
        [input, *moving, step],
        attrs={
            "bit": bit,
            "scheme": scheme,
            "formula": formula,
            "momentum": float(momentum),
            "training": graph.is_trainable,
            "stop_after": 1 if stop_update_after_iters is None else stop_update_after_iters,
        },
        name=name,
        prefix="MovingAverageMinMaxObserver",
    )
    if graph.is_trainable:
        graph.assign(moving[0], new_max)
        graph.assign(moving[1], new_min)
        if stop_update_after_iters is not None:
            graph.assign(step, step + 1)
    return scale, zero


@jax.custom_vjp
def straight_through(x, quantized):
    """``quantized``'s value with the identity gradient to ``x``."""
    return quantized


def _st_forward(x, quantized):
    return quantized, None


def _st_backward(_, g):
    return g, None


straight_through.defvjp(_st_forward, _st_backward)


def _lower_fake_quant(x, scale, zero, *, bit, scheme, formula):
    per_channel = (-1,) + (1,) * (x.ndim - 1) if scale.shape[0] > 1 else (1,) * x.ndim
    # The grid step is the nearest integer to the exact x / scale (+ zero point), computed in
    # float64 (see _divide). OneFlow's float32 kernel rounds the float32 quotient (and sum)
    # first, which moves about one element in 500,000 lying near a .5 boundary to the
    # neighbouring step; its tests' NumPy reference divides in float64, as here, and a float32
    # quotient in float64 cannot land on a false .5. grid * scale is exact in float64, so the
    # cast back rounds once, as OneFlow's float32 product does.
    wide = jnp.promote_types(x.dtype, jnp.float64)
    scale = scale.reshape(per_channel).astype(wide)
    zero = zero.reshape(per_channel).astype(wide)
    if formula == Formula.CAMBRICON:
        scale = 2.0 ** jnp.trunc(scale)
    if scheme == Scheme.AFFINE and formula == Formula.GOOGLE:
        zero = jnp.round(zero)
        grid = jnp.clip(jnp.round(x.astype(wide) / scale + zero), 0, 2.0**bit - 1)
        return straight_through(x, ((grid - zero) * scale).astype(x.dtype))
    top = 2.0 ** (bit - 1) - 1
    grid = jnp.clip(jnp.round(x.astype(wide) / scale), -top - 1, top)
    return straight_through(x, (grid * scale).astype(x.dtype))


def fake_quantization(
    input: Blob,
    scale: Blob,
    zero_point: Blob,  # noqa: A002
    quantization_bit: int = 8,
    quantization_scheme: str = "symmetric",
    quantization_formula: str = "google",
    name: str | None = None,
) -> Blob:
    """``input`` rounded onto the quantization grid of ``scale``/``zero_point`` (per layer, or
    per channel of axis 0) and mapped back; the gradient passes straight through."""
    public = "flow.quantization.fake_quantization"
    name = check_name(public, name)
    for arg, blob in (("input", input), ("scale", scale), ("zero_point", zero_point)):
        require_blob(public, blob, arg, name)
    scheme, formula = _modes(
        public, quantization_bit, quantization_scheme, quantization_formula, name
    )
    if scale.shape != zero_point.shape or scale.shape not in ((1,), (input.shape[0],)):
        fail(
            public,
            f"scale {scale.shape} and zero_point {zero_point.shape} must be (1,) or "
            f"one per channel ({input.shape[0]},)",
            name,
        )
    return apply_op(
        "fake_quantization",
        _lower_fake_quant,
        [input, scale, zero_point],
        attrs={"bit": quantization_bit, "scheme": scheme, "formula": formula},
        name=name,
        prefix="FakeQuantization",
    )
