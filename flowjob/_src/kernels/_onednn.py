"""oneDNN convolutions as XLA custom calls: loading, the FFI calls and their gradients.

One handler serves three passes of a convolution: forward, input gradient ("backward data")
and weight gradient. The transposed convolution is the input gradient of a convolution, so
the same three passes serve it too, with the operands' roles exchanged.
"""

from __future__ import annotations

import ctypes
import functools
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

_TARGET = "flowjob_onednn_conv"
# `kind` attribute of the custom call (the C++ handler's enum)
_FORWARD, _BACKWARD_DATA, _BACKWARD_WEIGHTS = 0, 1, 2


@functools.cache
def _load() -> bool:
    """Registers the custom call once; False when the compiled part is absent or unusable."""
    if os.environ.get("FLOWJOB_ONEDNN", "1") == "0":
        return False
    try:
        import flowjob_onednn
    except ImportError:
        return False
    try:
        for dep in flowjob_onednn.runtime_libraries():
            ctypes.CDLL(dep, mode=ctypes.RTLD_GLOBAL)  # libdnnl before the handler needs it
        lib = ctypes.CDLL(flowjob_onednn.handler_library())
        jax.ffi.register_ffi_target(
            _TARGET, jax.ffi.pycapsule(lib.FlowjobOnednnConv), platform="cpu"
        )
    except (OSError, AttributeError) as exc:
        print(
            f"flowjob: oneDNN kernels not loaded ({exc}); using XLA's convolutions", file=sys.stderr
        )
        return False
    return True


def onednn_available() -> bool:
    """Whether the oneDNN kernels are installed, loadable and not switched off."""
    from . import ENABLED

    return ENABLED and _load()


def _out_size(n: int, k: int, s: int, d: int, pad: tuple[int, int]) -> int:
    return (n + pad[0] + pad[1] - (k - 1) * d - 1) // s + 1


def _weights_last(data_format, weight_format) -> bool:
    """Whether the weights lie OHWI (IHWO for a transposed convolution): ``weight_format``
    None follows the data (OIHW for NCHW, OHWI for NHWC); "OIHW" is channels-first weights
    whatever the data, as a channels-last program hands them over
    (``runtime/_channels_last.py``)."""
    return data_format == "NHWC" and weight_format != "OIHW"


def _call(kind, a, b, out_shape, strides, pads, dilations, groups, data_format, weight_format):
    if not _load():
        raise RuntimeError("flowjob-onednn is not installed: check onednn_available() first")
    call = jax.ffi.ffi_call(
        _TARGET, jax.ShapeDtypeStruct(out_shape, jnp.float32), vmap_method="sequential"
    )
    return call(
        a,
        b,
        kind=np.int64(kind),
        channels_last=np.int64(data_format == "NHWC"),
        weights_last=np.int64(_weights_last(data_format, weight_format)),
        groups=np.int64(groups),
        strides=np.asarray(strides, np.int64),
        dilations=np.asarray(dilations, np.int64),
        pad_l=np.asarray([p[0] for p in pads], np.int64),
        pad_r=np.asarray([p[1] for p in pads], np.int64),
    )


@functools.partial(jax.custom_vjp, nondiff_argnums=(2, 3, 4, 5, 6, 7))
def conv2d_onednn(x, w, strides, pads, dilations, groups, data_format, weight_format=None):
    """``lax.conv_general_dilated`` with (NCHW, OIHW) or (NHWC, OHWI) operands, or NHWC data
    with OIHW weights (``weight_format="OIHW"``), on oneDNN."""
    shape = conv_output_shape(
        x.shape, w.shape, strides, pads, dilations, data_format, weight_format
    )
    args = (strides, pads, dilations, groups, data_format, weight_format)
    return _call(_FORWARD, x, w, shape, *args)


def _fwd(x, w, *args):
    return conv2d_onednn(x, w, *args), (x, w)


def _bwd(*args_res_g):
    *args, (x, w), g = args_res_g
    dx = _call(_BACKWARD_DATA, g, w, x.shape, *args)
    dw = _call(_BACKWARD_WEIGHTS, x, g, w.shape, *args)
    return dx, dw


conv2d_onednn.defvjp(_fwd, _bwd)


def conv_output_shape(
    x_shape, w_shape, strides, pads, dilations, data_format, weight_format=None
) -> tuple:
    """The shape of convolving an ``x_shape`` operand with a ``w_shape`` weight (OIHW for
    NCHW data, OHWI for NHWC unless ``weight_format`` is "OIHW") under the given settings."""
    spatial = x_shape[2:] if data_format == "NCHW" else x_shape[1:3]
    k = w_shape[1:3] if _weights_last(data_format, weight_format) else w_shape[2:]
    n, o = x_shape[0], w_shape[0]
    out = [_out_size(*args) for args in zip(spatial, k, strides, dilations, pads)]
    return (n, o, *out) if data_format == "NCHW" else (n, *out, o)


@functools.partial(jax.custom_vjp, nondiff_argnums=(2, 3, 4, 5, 6, 7, 8))
def conv2d_transpose_onednn(
    x, w, out_shape, strides, pads, dilations, groups, data_format, weight_format=None
):
    """The transposed convolution on oneDNN: the input gradient of :func:`conv2d_onednn`'s
    convolution of an ``out_shape`` operand with ``w``, taken at the cotangent ``x``. Its input
    gradient is that convolution of the output gradient; its weight gradient that
    convolution's weight gradient with the output gradient as the source and ``x`` as the
    result's gradient."""
    args = (strides, pads, dilations, groups, data_format, weight_format)
    return _call(_BACKWARD_DATA, x, w, tuple(out_shape), *args)


def _t_fwd(x, w, *args):
    return conv2d_transpose_onednn(x, w, *args), (x, w)


def _t_bwd(out_shape, *args_res_g):
    *args, (x, w), g = args_res_g
    dx = _call(_FORWARD, g, w, x.shape, *args)
    dw = _call(_BACKWARD_WEIGHTS, g, x, w.shape, *args)
    return dx, dw


conv2d_transpose_onednn.defvjp(_t_fwd, _t_bwd)
