"""Helpers for the op tests: fixed initializers, plain SGD, reading variables.

The tests run ops inside real jobs (``@flow.global_function`` + ``tp.Numpy.Placeholder``) and
compare with NumPy references computed in the tests themselves.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import flowjob as flow


class FixedInit:
    """An initializer returning a given array (the callable form of initializers)."""

    def __init__(self, value: np.ndarray):
        self.value = np.asarray(value)
        self.conf = {"fixed_for_test": {"shape": list(self.value.shape)}}

    def __call__(self, key, shape, np_dtype):
        assert tuple(shape) == self.value.shape, (shape, self.value.shape)
        return jnp.asarray(self.value, np_dtype)


def sgd(lr: float) -> flow.optimizer.SGD:
    """Plain SGD (no momentum) with a constant learning rate."""
    return flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [lr]), momentum=0)


def variables() -> dict[str, np.ndarray]:
    """Current values of every variable of the session, as NumPy arrays."""
    return {name: blob.numpy() for name, blob in flow.get_all_variables().items()}


def same_pads(n, k, s, d=1, lower=True):
    """OneFlow's SAME rule: output ceil(n / s); SAME_LOWER puts an odd extra pad first."""
    eff = (k - 1) * d + 1
    need = max(0, (-(-n // s) - 1) * s + eff - n)
    return (need - need // 2, need // 2) if lower else (need // 2, need - need // 2)


def np_conv2d(x, w, strides, pads, dilations=(1, 1), groups=1):
    """NCHW input, OIHW weights, explicit ((top, bottom), (left, right)) pads; float64."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    xp = np.pad(x, ((0, 0), (0, 0)) + tuple(pads))
    o, cg, kh, kw = w.shape
    (sh, sw), (dh, dw) = strides, dilations
    ho = (xp.shape[2] - (kh - 1) * dh - 1) // sh + 1
    wo = (xp.shape[3] - (kw - 1) * dw - 1) // sw + 1
    og = o // groups
    out = np.zeros((x.shape[0], o, ho, wo))
    for g in range(groups):
        xs, ws = xp[:, g * cg : (g + 1) * cg], w[g * og : (g + 1) * og]
        for i in range(ho):
            for j in range(wo):
                patch = xs[
                    :,
                    :,
                    i * sh : i * sh + (kh - 1) * dh + 1 : dh,
                    j * sw : j * sw + (kw - 1) * dw + 1 : dw,
                ]
                out[:, g * og : (g + 1) * og, i, j] = np.einsum("nckl,ockl->no", patch, ws)
    return out


def value_and_grads(fn, *arrays: np.ndarray, cotangent_seed: int = 7):
    """Runs ``fn(*blobs)`` in a train job; returns its value and the gradients of
    ``sum(fn(...) * c)`` (``c`` a fixed random cotangent) w.r.t. each input, via watch_diff."""
    import functools
    import inspect

    import flowjob.typing as tp

    flow.clear_default_session()  # a fresh session per call: variables zero_<i> are per call
    arrays = tuple(np.asarray(a) for a in arrays)
    seen: dict[int, np.ndarray] = {}

    def body(*xs):
        blobs = []
        for i, (x, a) in enumerate(zip(xs, arrays)):
            if a.dtype.kind == "f":
                v = flow.get_variable(
                    f"zero_{i}",
                    shape=a.shape,
                    dtype=flow.float64,
                    initializer=flow.zeros_initializer(),
                )
                x = x + v
                flow.watch_diff(x, functools.partial(seen.__setitem__, i))
            blobs.append(x)
        y = fn(*blobs)
        c = np.random.default_rng(cotangent_seed).uniform(0.5, 1.5, y.shape)
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [0.0]), momentum=0
        ).minimize(flow.math.reduce_sum(y * c))
        body.cotangent = c
        return y

    params = [
        inspect.Parameter(
            f"a{i}",
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            annotation=tp.Numpy.Placeholder(a.shape, dtype=a.dtype),
        )
        for i, a in enumerate(arrays)
    ]

    def job(*xs):
        return body(*xs)

    job.__signature__ = inspect.Signature(params, return_annotation=tp.Numpy)
    job.__annotations__ = {p.name: p.annotation for p in params} | {"return": tp.Numpy}
    compiled = flow.global_function(type="train")(job)
    value = compiled(*arrays)
    flow.sync_default_session()
    grads = [seen.get(i) for i in range(len(arrays))]
    return value, grads, body.cotangent


def numeric_grad(np_fn, arrays, cotangent, eps=1e-6):
    """Central finite differences of ``sum(np_fn(*arrays) * cotangent)`` (float64)."""
    arrays = [np.asarray(a, np.float64) for a in arrays]
    grads = []
    for k, a in enumerate(arrays):
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            plus = [b.copy() for b in arrays]
            minus = [b.copy() for b in arrays]
            plus[k][idx] += eps
            minus[k][idx] -= eps
            g[idx] = (np.sum(np_fn(*plus) * cotangent) - np.sum(np_fn(*minus) * cotangent)) / (
                2 * eps
            )
        grads.append(g)
    return grads


def arange(*shape) -> np.ndarray:
    """``0, 1, 2, ...`` as float32 in ``shape``."""
    return np.arange(np.prod(shape), dtype=np.float32).reshape(shape)


def normal(*shape, seed=0) -> np.ndarray:
    """Standard normal float32 samples of ``shape``."""
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def uniform(*shape, seed=0, low=-2.0, high=2.0) -> np.ndarray:
    """Uniform float32 samples of ``shape`` in ``[low, high)``."""
    return np.random.default_rng(seed).uniform(low, high, shape).astype(np.float32)


def np_sigmoid(x):
    return 1 / (1 + np.exp(-x))


def np_conv_nd(x, w, strides, pads, dilations, groups=1):
    """Channels-first N-d convolution by explicit loops over output positions (float64)."""
    nd = x.ndim - 2
    xp = np.pad(x, ((0, 0), (0, 0)) + tuple(pads))
    o, cg = w.shape[:2]
    k = w.shape[2:]
    outs = [(xp.shape[2 + i] - (k[i] - 1) * dilations[i] - 1) // strides[i] + 1 for i in range(nd)]
    out = np.zeros((x.shape[0], o, *outs))
    og = o // groups
    for g in range(groups):
        xs, ws = xp[:, g * cg : (g + 1) * cg], w[g * og : (g + 1) * og]
        for pos in np.ndindex(*outs):
            index = (slice(None), slice(None)) + tuple(
                slice(p * s, p * s + (kk - 1) * d + 1, d)
                for p, s, kk, d in zip(pos, strides, k, dilations)
            )
            out[(slice(None), slice(g * og, (g + 1) * og)) + pos] = np.tensordot(
                xs[index], ws, axes=(list(range(1, nd + 2)), list(range(1, nd + 2)))
            )
    return out


def nhwc(a):
    """NCHW -> NHWC (a contiguous copy)."""
    return np.ascontiguousarray(a.transpose(0, 2, 3, 1))


def nchw(a):
    """NHWC -> NCHW (a contiguous copy)."""
    return np.ascontiguousarray(a.transpose(0, 3, 1, 2))


def on_gpu() -> bool:
    """Jobs run on a GPU here (JAX's default backend): its sums and fused arithmetic round
    differently from NumPy's, which the CPU's results match exactly."""
    return jax.default_backend() == "gpu"
