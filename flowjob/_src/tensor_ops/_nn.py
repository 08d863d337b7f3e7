"""The functional nn ops on tensors behind OneFlow v0.4's layers: ``linear``, ``conv2d``,
``avg_pool2d``, ``max_pool2d``, ``batch_norm``, ``layer_norm``, ``dropout``, ``embedding``
and ``upsample``. Shapes are NCHW and weights PyTorch's layouts (``Linear``'s weight is
``(out_features, in_features)``, ``Conv2d``'s ``(out, in // groups, kh, kw)``), as v0.4.

Each is one body of flowjob's ops run by ``imperative.apply`` (autograd through ``jax.vjp``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import ops
from ..graph import Blob
from ..imperative import Tensor, apply
from ..ops._normalization import batch_norm_train


def _pair(who: str, what: str, value: Any) -> tuple[int, int]:
    pair = tuple(value) if isinstance(value, (list, tuple)) else (value, value)
    if len(pair) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in pair):
        raise ValueError(f"{who}: {what} must be an int or two ints, got {value!r}")
    return pair


def _rank(who: str, x: Any, ranks: Sequence[int]) -> None:
    if x.ndim not in ranks:
        want = " or ".join(f"{r}-D" for r in ranks)
        raise ValueError(f"{who}: expected a {want} input, got shape {tuple(x.shape)}")


# --- linear -----------------------------------------------------------------------------------
def _linear_body(x: Blob, weight: Blob, *bias: Blob) -> Blob:
    out = ops.math.matmul(x, weight, transpose_b=True)
    return ops.math.add(out, bias[0]) if bias else out


def linear(x: Any, weight: Any, bias: Any = None) -> Any:
    """``x @ weight.T + bias`` over the last axis of ``x`` (rank >= 2); ``weight`` is
    ``(out_features, in_features)``.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> from flowjob._src.tensor_ops import linear
        >>> y = linear(flow.Tensor(np.ones((1, 2))), flow.Tensor([[1.0, 2.0]]), flow.Tensor([3.0]))
        >>> assert np.allclose(y.numpy(), [[6.0]])
    """
    if x.ndim < 2:
        raise ValueError(f"linear: x must have rank >= 2, got shape {tuple(x.shape)}")
    if x.shape[-1] != weight.shape[-1]:
        raise ValueError(
            f"linear: x's last axis ({x.shape[-1]}) must match the weight's in_features "
            f"(weight shape {tuple(weight.shape)})"
        )
    extra = () if bias is None else (bias,)
    return apply("linear", _linear_body, x, weight, *extra)


# --- convolution and pooling ------------------------------------------------------------------
def _conv2d_body(
    x: Blob, weight: Blob, *bias: Blob, stride: Any, padding: Any, dilation: Any, groups: int
) -> Blob:
    pads = [0, 0, *padding]
    out = ops.nn.conv2d(x, weight, stride, pads, "NCHW", dilation, groups)
    return ops.nn.bias_add(out, bias[0]) if bias else out


def conv2d(
    x: Any,
    weight: Any,
    bias: Any = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Any:
    """2-D convolution of an NCHW ``x`` with ``weight`` ``(out, in // groups, kh, kw)``, zero
    ``padding`` on both sides of H and W, plus ``bias`` per output channel."""
    _rank("conv2d", x, (4,))
    extra = () if bias is None else (bias,)
    return apply(
        "conv2d",
        _conv2d_body,
        x,
        weight,
        *extra,
        stride=_pair("conv2d", "stride", stride),
        padding=_pair("conv2d", "padding", padding),
        dilation=_pair("conv2d", "dilation", dilation),
        groups=int(groups),
    )


def _pool_body(x: Blob, *, kind: str, kernel: Any, stride: Any, padding: Any, ceil: bool) -> Blob:
    pool = ops.nn.max_pool2d if kind == "max" else ops.nn.avg_pool2d
    return pool(x, kernel, stride, [0, 0, *padding], "NCHW", ceil)


def _pool(kind: str, x: Any, kernel_size: Any, stride: Any, padding: Any, ceil_mode: bool) -> Any:
    who = f"{kind}_pool2d"
    _rank(who, x, (4,))
    kernel = _pair(who, "kernel_size", kernel_size)
    strides = kernel if stride is None else _pair(who, "stride", stride)
    pads = _pair(who, "padding", padding)
    return apply(
        who,
        _pool_body,
        x,
        kind=kind,
        kernel=kernel,
        stride=strides,
        padding=pads,
        ceil=bool(ceil_mode),
    )


def max_pool2d(
    x: Any, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False
) -> Any:
    """The maximum of each ``kernel_size`` window of an NCHW ``x`` (``stride`` defaults to
    the kernel size; padding never wins the maximum)."""
    return _pool("max", x, kernel_size, stride, padding, ceil_mode)


def avg_pool2d(
    x: Any, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False
) -> Any:
    """The mean of each ``kernel_size`` window of an NCHW ``x`` (``stride`` defaults to the
    kernel size)."""
    return _pool("avg", x, kernel_size, stride, padding, ceil_mode)


# --- normalization ----------------------------------------------------------------------------
def _bn_train_body(
    x: Blob, mean: Blob, var: Blob, *affine: Blob, eps: float, momentum: float, has_affine: bool
) -> tuple[Blob, Blob, Blob]:
    gamma, beta = affine if has_affine else (None, None)
    return batch_norm_train(x, mean, var, gamma, beta, 1, eps, momentum, "normalization")


def _bn_eval_body(
    x: Blob, mean: Blob, var: Blob, *affine: Blob, eps: float, has_affine: bool
) -> Blob:
    gamma, beta = affine if has_affine else (None, None)
    return ops.nn.batch_normalization(x, mean, var, beta, gamma, eps, axis=1)


def batch_norm(
    x: Any,
    running_mean: Any,
    running_var: Any,
    weight: Any = None,
    bias: Any = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Any:
    """Normalizes each channel (axis 1) of ``x``, then ``* weight + bias``.

    With ``training`` (or without running statistics) it uses the batch's mean and biased
    variance, and updates ``running_mean``/``running_var`` in place with OneFlow's momentum:
    ``running = momentum * running + (1 - momentum) * batch``. Otherwise it uses the running
    statistics."""
    if (weight is None) != (bias is None):
        raise ValueError("batch_norm: give both weight and bias, or neither")
    channels = x.shape[1] if x.ndim >= 2 else None
    affine = () if weight is None else (weight, bias)
    if training or running_mean is None:
        tracked = running_mean is not None
        mean = running_mean if tracked else Tensor(channels)
        var = running_var if tracked else Tensor(channels)
        y, new_mean, new_var = apply(
            "normalization",
            _bn_train_body,
            x,
            mean,
            var,
            *affine,
            eps=float(eps),
            momentum=float(momentum),
            has_affine=bool(affine),
        )
        if tracked:
            running_mean._cell.array = new_mean.array
            running_var._cell.array = new_var.array
        return y
    return apply(
        "batch_normalization",
        _bn_eval_body,
        x,
        running_mean,
        running_var,
        *affine,
        eps=float(eps),
        has_affine=bool(affine),
    )


def _layer_norm_body(x: Blob, *affine: Blob, begin: int, eps: float) -> Blob:
    gamma, beta = affine if affine else (None, None)
    return ops.nn.layer_norm(x, gamma, beta, begin, begin, eps)


def layer_norm(
    x: Any, normalized_shape: Any, weight: Any = None, bias: Any = None, eps: float = 1e-5
) -> Any:
    """Normalizes over the last ``len(normalized_shape)`` axes of ``x`` (which must equal
    ``normalized_shape``), then ``* weight + bias`` of that shape."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if x.ndim <= len(shape) or tuple(x.shape[x.ndim - len(shape) :]) != shape:
        raise ValueError(
            f"layer_norm: input of shape {tuple(x.shape)} must have more axes than, and end "
            f"in, normalized_shape {shape}"
        )
    if (weight is None) != (bias is None):
        raise ValueError("layer_norm: give both weight and bias, or neither")
    affine = () if weight is None else (weight, bias)
    return apply(
        "layer_norm", _layer_norm_body, x, *affine, begin=x.ndim - len(shape), eps=float(eps)
    )


# --- dropout, embedding, upsampling -----------------------------------------------------------
def _dropout_body(x: Blob, *, p: float) -> Blob:
    if p == 1.0:
        return ops.math.multiply(x, 0.0)
    mask = ops.array_ops.cast(ops.nn.random_mask_like(x, rate=p), x.dtype)
    return ops.math.multiply(ops.math.multiply(x, mask), 1.0 / (1.0 - p))


def dropout(x: Any, p: float = 0.5, training: bool = True) -> Any:
    """Zeroes each element with probability ``p`` (a fresh draw per call) and scales the
    others by ``1 / (1 - p)``; ``x`` itself when ``p == 0`` or not ``training``."""
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p!r}")
    if p == 0 or not training:
        return x
    return apply("dropout", _dropout_body, x, p=float(p))


def _embedding_body(indices: Blob, weight: Blob) -> Blob:
    return ops.array_ops.gather(weight, indices, axis=0)


def embedding(indices: Any, weight: Any) -> Any:
    """The rows of ``weight`` picked by the integer tensor ``indices``: shape
    ``indices.shape + (embedding_dim,)``."""
    if not np.issubdtype(indices.dtype.np_dtype, np.integer):
        raise TypeError(f"embedding: indices must be integers, got {indices.dtype.name}")
    return apply("embedding", _embedding_body, indices, weight)


def _upsample_body(x: Blob, *, scales: Any, mode: str, align_corners: bool) -> Blob:
    return ops.layers.upsample_2d(x, scales, align_corners, "NCHW", mode)


def _scale_to(n: int, size: int) -> float:
    """The factor whose ``int(n * factor)`` (the op's output size) is ``size``: ``size / n``
    rounds below ``size`` for some pairs (7 * (61 / 7) == 60.99...), so step it up."""
    scale = size / n
    while int(n * scale) < size:
        scale = math.nextafter(scale, math.inf)
    return scale


def upsample(
    x: Any,
    size: Any = None,
    scale_factor: Any = None,
    mode: str = "nearest",
    align_corners: bool = False,
) -> Any:
    """Resizes H and W of an NCHW ``x`` to ``size`` (an int or (h, w)) or by ``scale_factor``
    (a number or two), ``"nearest"`` or ``"bilinear"`` (optionally corner-aligned)."""
    _rank("upsample", x, (4,))
    if mode not in ("nearest", "bilinear"):
        raise ValueError(f'upsample: mode must be "nearest" or "bilinear", got {mode!r}')
    if mode == "nearest" and align_corners:
        raise ValueError('upsample: interpolation "nearest" does not support align_corners')
    h, w = x.shape[2], x.shape[3]
    if scale_factor is not None:
        pair = scale_factor if isinstance(scale_factor, (list, tuple)) else (scale_factor,) * 2
        scales = (float(pair[0]), float(pair[1]))
    elif size is not None:
        out = (size, size) if isinstance(size, int) else tuple(size)
        scales = (_scale_to(h, out[0]), _scale_to(w, out[1]))
    else:
        raise ValueError("upsample: size and scale_factor can not both be None")
    return apply(
        "upsample", _upsample_body, x, scales=scales, mode=mode, align_corners=bool(align_corners)
    )
