"""The OneFlow-specific links of the optimizer chain, as Optax gradient transformations.

OneFlow v0.4's optimizer pass (``generate_backward_and_optimizer_op_confs.cpp``) rewrites a
variable's gradient in this order: multiply by ``1/N`` (N: elements of the first loss),
multiply by ``1/loss_scale``, count non-finite values (dynamic loss scale), add the L1/L2
regularizer term, clip by the global norm, then run the update kernel (skipped when a
gradient was not finite; only gathered rows under ``indexed_slices_optimizer_conf``). Each
step is one transformation below; pieces whose arithmetic equals Optax's exactly are Optax's
own (see ``_base.Optimizer.transformation``).

Every piece keeps its state in dicts keyed by OneFlow's state-variable names
(``"<var>-momentum"``, ``"System-Train-DynamicLossScale-<job>-LossScale"``...), so a chain's
state flattens to the checkpoint layout by the leaves' dict keys (:func:`state_names`).
Per-step inputs travel as Optax extra arguments: ``learning_rate``, ``step``, ``loss_count``,
``loss_scale``, ``device_axis`` and ``rows``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import jax
import jax.numpy as jnp
import optax

__all__ = [
    "scale_by_loss_count",
    "mean_over_devices",
    "undo_loss_scale",
    "skip_if_non_finite",
    "add_regularization",
    "keep_untouched_rows",
    "scale_by_learning_rate",
    "per_variable",
    "momentum_descent",
    "adam_direction",
    "rmsprop_descent",
    "state_names",
    "flatten_state",
    "unflatten_state",
]

Transformation = optax.GradientTransformationExtraArgs


def _stateless(update: Callable) -> Transformation:
    return Transformation(lambda params: {}, update)


def _scaled(updates: Mapping, factor) -> dict:
    return {k: g * jnp.asarray(factor, g.dtype) for k, g in updates.items()}


def scale_by_loss_count() -> Transformation:
    """``g / N``: OneFlow differentiates the *sum* of the losses. ``loss_count`` is a Python
    int (static loss shape) or a traced count (the real elements of a dynamic loss)."""

    def update(updates, state, params=None, *, loss_count=1, **extra):
        return _scaled(updates, 1.0 / loss_count), state

    return _stateless(update)


def mean_over_devices() -> Transformation:
    """Mirrored view: the mean of the per-device gradients over ``device_axis`` (none: as is)."""

    def update(updates, state, params=None, *, device_axis=None, **extra):
        if device_axis is None:
            return updates, state
        return jax.lax.pmean(updates, device_axis), state

    return _stateless(update)


def undo_loss_scale() -> Transformation:
    """``g * (1 / loss_scale)``: the loss gradient was seeded with ``loss_scale``."""

    def update(updates, state, params=None, *, loss_scale=None, **extra):
        if loss_scale is None:
            return updates, state
        return _scaled(updates, 1.0 / loss_scale), state

    return _stateless(update)


def skip_if_non_finite(
    inner: optax.GradientTransformation, policy: Any, job_name: str
) -> Transformation:
    """Runs ``inner`` unless a gradient is not finite; then the updates are zero and
    ``inner``'s state keeps its values (OneFlow's ``skip_if`` on the update kernels). The
    state also holds ``policy``'s (dynamic loss scale) variables, advanced every step."""
    inner = optax.with_extra_args_support(inner)

    def init(params):
        own = OrderedDict((k, jnp.asarray(v)) for k, v in policy.state(job_name).items())
        return own, inner.init(params)

    def update(updates, state, params=None, **extra):
        own, inner_state = state
        finite = jnp.all(jnp.asarray([jnp.all(jnp.isfinite(g)) for g in updates.values()]))
        new_updates, new_inner = inner.update(updates, inner_state, params, **extra)
        new_updates = jax.tree.map(lambda u: jnp.where(finite, u, jnp.zeros_like(u)), new_updates)
        new_inner = jax.tree.map(
            lambda new, old: jnp.where(finite, new, old), new_inner, inner_state
        )
        own = OrderedDict(own, **policy.next_state(job_name, own, finite))
        return new_updates, (own, new_inner)

    return Transformation(init, update)


def add_regularization(regularizers: Mapping[str, Any]) -> Transformation:
    """``g + l1 * sign(w) + l2 * w`` for the variables with a regularizer (OneFlow's
    ``l1_l2_regularize_gradient``); the term's math is ``flow.regularizers``' own."""
    from ..ops import regularizers as flow_regularizers  # flow.regularizers: imported after us

    def update(updates, state, params=None, **extra):
        out = dict(updates)
        for name, reg in regularizers.items():
            if name in out:
                out[name] = out[name] + flow_regularizers.regularization_grad(params[name], reg)
        return out, state

    return _stateless(update)


def keep_untouched_rows(
    inner: optax.GradientTransformation, slot_names: Callable[[str], Iterable[str]]
) -> Transformation:
    """``indexed_slices_optimizer_conf``: for each ``rows`` entry ``{variable: indices}``,
    rows not gathered get a zero update and their slots (``slot_names(variable)``) keep their
    values; indices outside ``[0, rows)`` touch nothing (OneFlow's kernels skip them)."""
    inner = optax.with_extra_args_support(inner)

    def touched(indices, like):
        count = like.shape[0]
        flat = indices.reshape(-1)
        flat = jnp.where((flat >= 0) & (flat < count), flat, count)
        hit = jnp.zeros((count,), bool).at[flat].set(True, mode="drop")
        return hit.reshape((count,) + (1,) * (like.ndim - 1))

    def update(updates, state, params=None, *, rows=None, **extra):
        new_updates, new_state = inner.update(updates, state, params, rows=rows, **extra)
        if not rows:
            return new_updates, new_state
        new_updates = dict(new_updates)
        keep: dict[str, Any] = {}
        for name, indices in rows.items():
            new_updates[name] = jnp.where(touched(indices, new_updates[name]), new_updates[name], 0)
            keep.update({slot: indices for slot in slot_names(name)})

        def restore(path, new, old):
            indices = keep.get(_leaf_name(path))
            return new if indices is None else jnp.where(touched(indices, old), new, old)

        return new_updates, jax.tree_util.tree_map_with_path(restore, new_state, state)

    return Transformation(inner.init, update)


def scale_by_learning_rate(adjust: Callable[[Any, Any], Any] | None = None) -> Transformation:
    """``-learning_rate * u``: the descent step of the rules without a rate inside;
    ``adjust(learning_rate, step)`` changes the rate first (Adam's bias correction)."""

    def update(updates, state, params=None, *, learning_rate, step, **extra):
        if adjust is not None:
            learning_rate = adjust(learning_rate, step)
        return {k: -(learning_rate * u) for k, u in updates.items()}, state

    return _stateless(update)


SlotInit = Callable[[Any], dict[str, Any]]
RuleStep = Callable[..., tuple[Any, dict[str, Any]]]


def per_variable(slots: SlotInit, rule: RuleStep) -> Transformation:
    """An update rule applied variable by variable. ``slots(param) -> {suffix: initial}``
    names its state ``"<var>-<suffix>"``; ``rule(name, g, w, own, learning_rate, step)``
    returns the variable's update and its new ``{suffix: array}``."""
    # the names only: run concretely, slots() would compile its zeros at the first call
    suffixes = tuple(jax.eval_shape(slots, jax.ShapeDtypeStruct((1,), jnp.float32)))

    def init(params):  # ordered: the slots of a variable keep the order OneFlow lists them in
        return OrderedDict(
            (f"{name}-{suffix}", value)
            for name, param in params.items()
            for suffix, value in slots(param).items()
        )

    def update(updates, state, params=None, *, learning_rate, step, **extra):
        out, new_state = {}, state.copy()  # dict or OrderedDict, as given
        for name, g in updates.items():
            own = {s: state[f"{name}-{s}"] for s in suffixes}
            out[name], changed = rule(name, g, params[name], own, learning_rate, step)
            for s, value in changed.items():
                new_state[f"{name}-{s}"] = value.astype(own[s].dtype)
        return out, new_state

    return Transformation(init, update)


def _zeros(param):
    return jnp.zeros(tuple(param.shape), param.dtype)


def momentum_descent(beta, weight_decay: Callable[[str], Any] | None = None) -> Transformation:
    """OneFlow's ``momentum_update`` kernel: ``v = beta * v - learning_rate * g``, update
    ``v - learning_rate * weight_decay(var) * w`` (the decay term only with ``weight_decay``).
    State ``"<var>-momentum"``. ``beta`` may be a traced scalar."""

    def rule(name, g, w, own, learning_rate, step):
        velocity = beta * own["momentum"] - learning_rate * g
        if weight_decay is None:
            return velocity, {"momentum": velocity}
        return velocity - learning_rate * weight_decay(name) * w, {"momentum": velocity}

    return per_variable(lambda p: {"momentum": _zeros(p)}, rule)


def adam_direction(beta1, beta2, epsilon) -> Transformation:
    """The moments of OneFlow's ``adam_update`` kernel: ``m = b1 m + (1-b1) g``,
    ``v = b2 v + (1-b2) g^2`` (``optax.tree.update_moment``), giving ``m / (sqrt(v) + eps)``
    (no rate, no bias correction: later links add them). States ``"<var>-m"``, ``"<var>-v"``."""

    def rule(name, g, w, own, learning_rate, step):
        m = optax.tree.update_moment(g, own["m"], beta1, 1)
        v = optax.tree.update_moment(g, own["v"], beta2, 2)
        return m / (jnp.sqrt(v) + epsilon), {"m": m, "v": v}

    return per_variable(lambda p: {"m": _zeros(p), "v": _zeros(p)}, rule)


def rmsprop_descent(decay_rate, epsilon, centered: bool) -> Transformation:
    """OneFlow's ``rmsprop_update`` kernel: ``s = d s + (1-d) g^2``; update
    ``-learning_rate * g / sqrt(denom + eps)`` with ``denom = s`` or, ``centered``,
    ``s - mg^2`` where ``mg = d mg + (1-d) g``. States ``"<var>-mean_square"`` and (centered)
    ``"<var>-mean_gradient"``. The kernel takes no weight decay. Where ``denom + eps`` is not
    positive the element stays unchanged (the kernel's ``rsqrt`` would give NaN or inf)."""

    def slots(param):
        own = {"mean_square": _zeros(param)}
        if centered:
            own["mean_gradient"] = _zeros(param)
        return own

    def rule(name, g, w, own, learning_rate, step):
        d = decay_rate
        ms = (1.0 - d) * g * g + d * own["mean_square"]
        changed = {"mean_square": ms}
        denom = ms
        if centered:
            mg = (1.0 - d) * g + d * own["mean_gradient"]
            changed["mean_gradient"] = mg
            denom = ms - mg * mg
        denom = denom + epsilon
        safe = jnp.where(denom > 0, denom, 1.0)
        return -(learning_rate * jnp.where(denom > 0, g / jnp.sqrt(safe), 0.0)), changed

    return per_variable(slots, rule)


def _leaf_name(path) -> str | None:
    keys = [k.key for k in path if isinstance(k, jax.tree_util.DictKey)]
    return keys[-1] if keys else None


def state_names(state) -> list[str]:
    """The OneFlow variable name of each leaf of a chain's state, in leaf order."""
    names = []
    for path, _ in jax.tree_util.tree_flatten_with_path(state)[0]:
        name = _leaf_name(path)
        if name is None:
            raise TypeError(
                f"optimizer chain state leaf at {jax.tree_util.keystr(path)} is "
                "not named: every piece must keep its state in name-keyed dicts"
            )
        names.append(name)
    return names


def flatten_state(state) -> dict[str, Any]:
    """A chain's state as ``{OneFlow variable name: array}``."""
    names = state_names(state)
    if len(set(names)) != len(names):
        raise ValueError(f"optimizer chain state names repeat: {sorted(names)}")
    return dict(zip(names, jax.tree_util.tree_leaves(state)))


def unflatten_state(template, flat: Mapping[str, Any]):
    """``flat`` (:func:`flatten_state`'s form) in the structure of ``template``."""
    leaves = [jnp.asarray(flat[name]) for name in state_names(template)]
    return jax.tree_util.tree_structure(template).unflatten(leaves)
