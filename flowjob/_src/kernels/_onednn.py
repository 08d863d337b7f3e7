"""oneDNN convolutions as XLA custom calls: loading, the FFI calls and their gradients."""

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


def _call(kind, a, b, out_shape, strides, pads, dilations, groups, data_format):
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
        groups=np.int64(groups),
        strides=np.asarray(strides, np.int64),
        dilations=np.asarray(dilations, np.int64),
        pad_l=np.asarray([p[0] for p in pads], np.int64),
        pad_r=np.asarray([p[1] for p in pads], np.int64),
    )


@functools.partial(jax.custom_vjp, nondiff_argnums=(2, 3, 4, 5, 6))
def conv2d_onednn(x, w, strides, pads, dilations, groups, data_format):
    """``lax.conv_general_dilated`` with (NCHW, OIHW) or (NHWC, OHWI) operands, on oneDNN."""
    if data_format == "NCHW":
        n, spatial, k, o = x.shape[0], x.shape[2:], w.shape[2:], w.shape[0]
    else:
        n, spatial, k, o = x.shape[0], x.shape[1:3], w.shape[1:3], w.shape[0]
    out = [_out_size(*args) for args in zip(spatial, k, strides, dilations, pads)]
    shape = (n, o, *out) if data_format == "NCHW" else (n, *out, o)
    return _call(_FORWARD, x, w, shape, strides, pads, dilations, groups, data_format)


def _fwd(x, w, *args):
    return conv2d_onednn(x, w, *args), (x, w)


def _bwd(*args_res_g):
    *args, (x, w), g = args_res_g
    dx = _call(_BACKWARD_DATA, g, w, x.shape, *args)
    dw = _call(_BACKWARD_WEIGHTS, x, g, w.shape, *args)
    return dx, dw


conv2d_onednn.defvjp(_fwd, _bwd)
