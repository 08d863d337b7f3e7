"""Hand-written JAX LeNet train steps in several internal layouts (conv-layout prototypes).

Every variant takes NCHW images and OIHW/``(out, in)`` weights (flowjob's API layout) and
computes the same function; only the internal layout and the pooling lowering differ:

* ``nchw_rw``: NCHW convolutions, ``reduce_window`` max pooling (the plain translation).
* ``nchw_blk``: NCHW convolutions, pooling by reshape + max.
* ``nhwc_blk``: one transpose to NHWC at the input, NHWC convolutions (HWIO weights),
  reshape + max pooling, one transpose back before the flatten (NCHW flatten order).
* ``perop``: what per-op lowerings with an NCHW API produce: every conv and pool transposes
  NCHW -> NHWC on entry and back on exit, and XLA is left to cancel the pairs.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
from jax import lax

LAYOUTS = ("nchw_rw", "nchw_blk", "nhwc_blk", "perop", "nhwc_chunk", "nchw_chunk", "perop_chunk")


_DN = {"nhwc": ("NHWC", "HWIO", "NHWC"), "nchw": ("NCHW", "OIHW", "NCHW")}


def _plain(x, w, fmt):
    return lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=_DN[fmt])


@functools.partial(jax.custom_vjp, nondiff_argnums=(2,))
def _chunked(x, w, fmt):
    return _plain(x, w, fmt)


def _chunked_fwd(x, w, fmt):
    return _plain(x, w, fmt), (x, w)


def _chunked_bwd(fmt, res, g):
    x, w = res
    _, vjp_x = jax.vjp(lambda a: _plain(a, w, fmt), x)
    dw = None
    step = 10
    for start in range(0, x.shape[0], step):
        _, vjp_w = jax.vjp(lambda k, s=start: _plain(x[s : s + step], k, fmt), w)
        part = vjp_w(g[start : start + step])[0]
        dw = part if dw is None else dw + part
    return vjp_x(g)[0], dw


_chunked.defvjp(_chunked_fwd, _chunked_bwd)


def _conv(x, w, layout: str):
    if layout == "nhwc_chunk":
        return _chunked(x, w.transpose(2, 3, 1, 0), "nhwc")
    if layout == "nchw_chunk":
        return _chunked(x, w, "nchw")
    if layout == "perop_chunk":
        y = _chunked(x.transpose(0, 2, 3, 1), w.transpose(2, 3, 1, 0), "nhwc")
        return y.transpose(0, 3, 1, 2)
    if layout == "nhwc":
        return lax.conv_general_dilated(
            x, w.transpose(2, 3, 1, 0), (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
        )
    if layout == "perop":
        y = lax.conv_general_dilated(
            x.transpose(0, 2, 3, 1),
            w.transpose(2, 3, 1, 0),
            (1, 1),
            "SAME",
            dimension_numbers=("NHWC", "HWIO", "NHWC"),
        )
        return y.transpose(0, 3, 1, 2)
    return lax.conv_general_dilated(
        x, w, (1, 1), "SAME", dimension_numbers=("NCHW", "OIHW", "NCHW")
    )


def _pool_rw(x):
    return lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")


def _pool_blk(x, axes):
    h, w = axes
    shape = list(x.shape)
    shape[h : h + 1] = [shape[h] // 2, 2]
    shape[w + 1 : w + 2] = [shape[w + 1] // 2, 2]
    return jnp.max(x.reshape(shape), axis=(h + 1, w + 2))


def _pool(x, layout: str):
    if layout == "nchw_rw":
        return _pool_rw(x)
    if layout in ("nhwc", "nhwc_chunk"):
        return _pool_blk(x, (1, 2))
    if layout in ("perop", "perop_chunk"):
        return _pool_blk(x.transpose(0, 2, 3, 1), (1, 2)).transpose(0, 3, 1, 2)
    return _pool_blk(x, (2, 3))


def dense(x, w, b, product: str = "matmul"):
    """``x @ w.T + b`` for an ``(out, in)`` weight. ``product="dot_general"`` writes it as one
    ``lax.dot_general`` contracting ``w``'s input axis (flowjob's lowering of ``matmul``): at
    batch 1 XLA:CPU copies the transposed weight on every call for ``x @ w.T + b``."""
    if product == "dot_general":
        return lax.dot_general(x, w, (((1,), (1,)), ((), ()))) + b
    return x @ w.T + b


def logits(params, images, layout: str, key=None, product: str = "matmul"):
    inner = "nhwc" if layout == "nhwc_blk" else layout
    nhwc = inner in ("nhwc", "nhwc_chunk")
    cshape = (1, 1, 1, -1) if nhwc else (1, -1, 1, 1)
    x = images.transpose(0, 2, 3, 1) if nhwc else images
    x = jax.nn.relu(_conv(x, params["conv1-weight"], inner) + params["conv1-bias"].reshape(cshape))
    x = _pool(x, inner)
    x = jax.nn.relu(_conv(x, params["conv2-weight"], inner) + params["conv2-bias"].reshape(cshape))
    x = _pool(x, inner)
    if nhwc:
        x = x.transpose(0, 3, 1, 2)
    x = x.reshape(x.shape[0], -1)
    h = jax.nn.relu(dense(x, params["dense1-weight"], params["dense1-bias"], product))
    if key is not None:
        keep = jax.random.bernoulli(key, 0.5, h.shape)
        h = jnp.where(keep, h * 2.0, 0.0)
    return dense(h, params["dense2-weight"], params["dense2-bias"], product)


def loss_fn(params, images, labels, layout: str, key=None):
    lg = logits(params, images, layout, key)
    return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(lg), labels[:, None], 1))


def make_train_step(layout: str, lr: float = 0.1, dropout: bool = True):
    @functools.partial(jax.jit, donate_argnums=(0,))
    def step(params, images, labels, counter):
        key = jax.random.fold_in(jax.random.PRNGKey(0), counter) if dropout else None
        loss, grads = jax.value_and_grad(loss_fn)(params, images, labels, layout, key)
        return jax.tree.map(lambda p, g: p - lr * g, params, grads), loss

    return step
