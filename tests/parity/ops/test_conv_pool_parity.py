"""Convolutions and pooling with the attribute cases OneFlow's suite checked (test_nn_conv1d,
test_nn_conv2d, test_nn_conv2d_padding, test_nn_conv3d, test_compat_conv2d, test_deconv2d,
test_layers_conv1d/2d/3d, test_pool, test_pool_padding): data formats (channels first and
last), strides, dilations, groups, VALID / SAME_LOWER / SAME_UPPER / explicit asymmetric
paddings. The references are written here in jax.numpy as sums of strided slices (no
``lax.conv``), so ``jax.vjp`` of them gives the expected input and filter gradients, and a
transposed convolution is the vjp of the forward one."""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from parity_helpers import Case, run_cases, uniform

import flowjob as flow


def same_pads(n, k, s, d, lower):
    """Pads that give ceil(n / s) outputs; the odd extra one first when ``lower``."""
    eff = (k - 1) * d + 1
    need = max(0, (-(-n // s) - 1) * s + eff - n)
    small, big = need // 2, need - need // 2
    return (big, small) if lower else (small, big)


def conv_ref(x, w, strides, pads, dilations, groups, channels_last=False):
    """x (N, C, *S), w (O, C/groups, *K) (or both channels last); pads per spatial axis."""
    if channels_last:
        x, w = jnp.moveaxis(x, -1, 1), jnp.moveaxis(w, -1, 1)
    xp = jnp.pad(x, [(0, 0), (0, 0), *pads])
    o, cg, *kernel = w.shape
    outs = [
        (n - (k - 1) * d - 1) // s + 1
        for n, k, s, d in zip(xp.shape[2:], kernel, strides, dilations)
    ]
    og = o // groups
    result = 0.0
    for offsets in itertools.product(*[range(k) for k in kernel]):
        index = tuple(
            slice(i * d, i * d + (m - 1) * s + 1, s)
            for i, d, m, s in zip(offsets, dilations, outs, strides)
        )
        window = xp[(slice(None), slice(None), *index)]
        window = window.reshape(x.shape[0], groups, cg, *outs)
        taps = w[(slice(None), slice(None), *offsets)].reshape(groups, og, cg)
        result = result + jnp.einsum("ngc...,goc->ngo...", window, taps)
    result = result.reshape(x.shape[0], o, *outs)
    return jnp.moveaxis(result, 1, -1) if channels_last else result


def pads_for(padding, spatial, kernel, strides, dilations):
    if padding == "VALID":
        return [(0, 0)] * len(spatial)
    if padding in ("SAME", "SAME_LOWER", "SAME_UPPER"):
        return [
            same_pads(n, k, s, d, padding != "SAME_UPPER")
            for n, k, s, d in zip(spatial, kernel, strides, dilations)
        ]
    return [tuple(p) for p in padding]


CONV_CASES = [
    # (ndims, channels_last, x spatial, channels, filters, kernel, strides, dilations, groups,
    #  padding)
    (1, False, (20,), 8, 6, (3,), (2,), (1,), 1, "VALID"),
    (1, True, (20,), 8, 6, (2,), (2,), (1,), 1, "SAME_UPPER"),
    (1, False, (19,), 8, 8, (3,), (1,), (2,), 4, "SAME_LOWER"),
    (2, False, (9, 10), 8, 6, (3, 3), (1, 1), (1, 1), 1, "VALID"),
    (2, True, (9, 10), 8, 6, (5, 5), (2, 2), (1, 1), 1, "SAME_UPPER"),
    (2, False, (9, 10), 8, 8, (3, 2), (2, 1), (2, 3), 1, "SAME_LOWER"),
    (2, True, (9, 10), 8, 8, (3, 3), (1, 2), (2, 1), 1, "SAME_LOWER"),
    (2, False, (9, 10), 8, 8, (1, 1), (1, 1), (1, 1), 8, "VALID"),  # depthwise
    (2, False, (9, 10), 8, 12, (3, 3), (2, 2), (1, 1), 4, "SAME_UPPER"),
    (2, False, (9, 10), 4, 6, (3, 2), (2, 3), (1, 1), 2, [(1, 2), (3, 0)]),
    (2, True, (9, 10), 4, 6, (2, 3), (1, 2), (2, 1), 1, [(0, 1), (2, 2)]),
    (3, False, (5, 6, 7), 4, 6, (2, 3, 2), (1, 2, 1), (1, 1, 1), 1, "VALID"),
    (3, True, (5, 6, 7), 4, 6, (3, 3, 3), (2, 1, 2), (1, 1, 1), 1, "SAME_UPPER"),
    (3, False, (5, 6, 7), 4, 4, (2, 2, 2), (1, 1, 1), (2, 2, 3), 2, "SAME_LOWER"),
]
FORMATS = {
    (1, False): "NCW",
    (1, True): "NWC",
    (2, False): "NCHW",
    (2, True): "NHWC",
    (3, False): "NCDHW",
    (3, True): "NDHWC",
}
CONV = {1: flow.nn.conv1d, 2: flow.nn.conv2d, 3: flow.nn.conv3d}


def conv_case(i, case):
    ndims, last, spatial, c, o, kernel, strides, dilations, groups, padding = case
    x_shape = (2, *spatial, c) if last else (2, c, *spatial)
    w_shape = (o, *kernel, c // groups) if last else (o, c // groups, *kernel)
    x, w = uniform(x_shape, seed=10 + i), uniform(w_shape, seed=50 + i)
    pads = pads_for(padding, spatial, kernel, strides, dilations)
    explicit = (
        padding
        if isinstance(padding, str)
        else ([(0, 0), *padding, (0, 0)] if last else [(0, 0), (0, 0), *padding])
    )
    fmt = FORMATS[ndims, last]
    return Case(
        f"conv{ndims}d {fmt} k{kernel} s{strides} d{dilations} g{groups} {padding}",
        lambda a, b: CONV[ndims](
            a,
            b,
            strides=list(strides),
            padding=explicit,
            data_format=fmt,
            dilations=list(dilations),
            groups=groups,
        ),
        lambda a, b: conv_ref(a, b, strides, pads, dilations, groups, last),
        [x, w],
        rtol=1e-4,
        atol=1e-4,
        jit=True,
    )


def test_nn_conv_value_and_gradients():
    run_cases([conv_case(i, case) for i, case in enumerate(CONV_CASES)])


def test_compat_conv2d_same_is_tensorflows_same_and_layers_conv_take_groups():
    x = uniform((2, 8, 8, 9), seed=3)
    cases = []
    for k, s, g in [(3, 2, 1), (4, 2, 4), (5, 1, 8), (1, 2, 2)]:
        w = uniform((8, 8 // g, k, k), seed=k)
        pads = [same_pads(n, k, s, 1, lower=False) for n in (8, 9)]
        cases.append(
            Case(
                f"compat_conv2d k{k} s{s} g{g}",
                lambda a, b, k=k, s=s, g=g: flow.nn.compat_conv2d(
                    a, b, strides=[s, s], padding="SAME", groups=g
                ),
                lambda a, b, s=s, g=g, pads=pads: conv_ref(a, b, (s, s), pads, (1, 1), g),
                [x, w],
                rtol=1e-4,
                atol=1e-4,
                jit=True,
            )
        )
    run_cases(cases)


class Fixed:
    """An initializer returning a given array (the callable form flowjob accepts)."""

    def __init__(self, value):
        self.value = np.asarray(value)

    def __call__(self, key, shape, dtype):
        assert tuple(shape) == self.value.shape, (shape, self.value.shape)
        return jnp.asarray(self.value, dtype)


@pytest.mark.parametrize(
    "ndims,groups,kernel", [(1, 1, 3), (1, 4, 2), (2, 1, 3), (2, 4, 1), (3, 1, 2), (3, 2, 3)]
)
def test_layers_conv_with_groups_matches_the_reference(ndims, groups, kernel):
    spatial = (7, 6, 5)[:ndims]
    x = uniform((2, 8, *spatial), seed=ndims)
    w = uniform((6 * groups // 2, 8 // groups, *(kernel,) * ndims), seed=groups)
    bias = uniform((w.shape[0],), seed=9)
    layer = {1: flow.layers.conv1d, 2: flow.layers.conv2d, 3: flow.layers.conv3d}[ndims]
    run_cases(
        [
            Case(
                f"layers.conv{ndims}d g{groups}",
                lambda a: layer(
                    a,
                    w.shape[0],
                    kernel,
                    strides=1,
                    padding="VALID",
                    groups=groups,
                    kernel_initializer=Fixed(w),
                    bias_initializer=Fixed(bias),
                    name="c",
                ),
                lambda a: (
                    conv_ref(
                        a, jnp.asarray(w), (1,) * ndims, [(0, 0)] * ndims, (1,) * ndims, groups
                    )
                    + bias.reshape(-1, *(1,) * ndims)
                ),
                [x],
                rtol=1e-4,
                atol=1e-4,
                jit=True,
            )
        ]
    )


def transpose_case(padding, strides, data_format, seed):
    last = data_format == "NHWC"
    n, cin, cout, k, (h, w) = 2, 3, 4, 3, (9, 8)
    out_hw = [
        (hh + ss - 1) // ss if padding == "SAME" else (hh - k) // ss + 1
        for hh, ss in zip((h, w), strides)
    ]
    # conv2d_transpose's filters: (in, out, kh, kw) NCHW or (in, kh, kw, out) NHWC, where
    # "in" is the channel count of the value fed to it (the forward conv's output)
    filters = uniform((cout, k, k, cin) if last else (cout, cin, k, k), seed=seed)
    value = uniform((n, *out_hw, cout) if last else (n, cout, *out_hw), seed=seed + 1)
    z_shape = (n, h, w, cin) if last else (n, cin, h, w)
    pads = pads_for("SAME_UPPER" if padding == "SAME" else padding, (h, w), (k, k), strides, (1, 1))

    def ref(v, f):
        # the transposed filters hold the forward conv's (out, in, ...) weights as they are
        zeros = jnp.zeros(z_shape, v.dtype)
        _, vjp = jax.vjp(lambda z: conv_ref(z, f, strides, pads, (1, 1), 1, last), zeros)
        return vjp(v)[0]

    return Case(
        f"conv2d_transpose {data_format} {padding} {strides}",
        lambda v, f: flow.nn.conv2d_transpose(
            v,
            f,
            output_shape=z_shape,
            strides=list(strides),
            padding=padding,
            data_format=data_format,
        ),
        ref,
        [value, filters],
        rtol=1e-4,
        atol=1e-4,
        jit=True,
    )


@pytest.mark.parametrize("data_format", ["NCHW", "NHWC"])
def test_conv2d_transpose_is_the_vjp_of_conv2d(data_format):
    run_cases(
        [
            transpose_case(padding, strides, data_format, seed)
            for seed, (padding, strides) in enumerate(
                [("VALID", (2, 2)), ("SAME", (2, 2)), ("SAME", (1, 1)), ("VALID", (1, 2))]
            )
        ]
    )


def pool_ref(x, mode, ksize, strides, pads, channels_last):
    """Max or average over the real elements of each window (padding never counts)."""
    if channels_last:
        x = jnp.moveaxis(x, -1, 1)
    fill = -jnp.inf if mode == "max" else 0.0
    xp = jnp.pad(x, [(0, 0), (0, 0), *pads], constant_values=fill)
    ones = jnp.pad(jnp.ones(x.shape[2:]), pads)
    outs = [(n - k) // s + 1 for n, k, s in zip(xp.shape[2:], ksize, strides)]
    windows, counts = [], []
    for offsets in itertools.product(*[range(k) for k in ksize]):
        index = tuple(slice(i, i + (m - 1) * s + 1, s) for i, m, s in zip(offsets, outs, strides))
        windows.append(xp[(slice(None), slice(None), *index)])
        counts.append(ones[index])
    stacked = jnp.stack(windows)
    y = stacked.max(0) if mode == "max" else stacked.sum(0) / jnp.stack(counts).sum(0)
    return jnp.moveaxis(y, 1, -1) if channels_last else y


POOL_CASES = [
    # (x shape NCHW, ksize, strides, padding)
    ((1, 3, 7, 7), 3, 2, "SAME"),
    ((1, 3, 7, 7), 3, 2, "VALID"),
    ((2, 5, 6, 6), 2, 1, "SAME"),
    ((1, 1, 9, 9), 3, 2, "SAME"),
    ((1, 2, 10, 11), (2, 3), (2, 1), "VALID"),
    ((1, 2, 10, 10), 3, 2, [(0, 0), (0, 0), (1, 1), (0, 2)]),
    ((1, 3, 12, 12), 3, 1, [(0, 0), (0, 0), (2, 0), (1, 1)]),
]


@pytest.mark.parametrize("data_format", ["NCHW", "NHWC"])
def test_pooling_value_and_gradient(data_format):
    last = data_format == "NHWC"
    cases = []
    for i, (shape, ksize, strides, padding) in enumerate(POOL_CASES):
        k = (ksize,) * 2 if isinstance(ksize, int) else ksize
        s = (strides,) * 2 if isinstance(strides, int) else strides
        # pooling's SAME is OneFlow's SAME_LOWER (an odd extra pad first); explicit lists are NCHW
        spatial_padding = (
            {"SAME": "SAME_LOWER"}.get(padding, padding)
            if isinstance(padding, str)
            else padding[2:]
        )
        pads = pads_for(spatial_padding, shape[2:], k, s, (1, 1))
        explicit = padding
        if not isinstance(padding, str) and last:
            explicit = [padding[0], padding[2], padding[3], padding[1]]
        x = uniform(shape, seed=i)
        if last:
            x = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
        for mode, fn in (("max", flow.nn.max_pool2d), ("avg", flow.nn.avg_pool2d)):
            cases.append(
                Case(
                    f"{mode}_pool2d {shape} k{k} s{s} {padding}",
                    lambda a, fn=fn, k=k, s=s, p=explicit: fn(
                        a, ksize=list(k), strides=list(s), padding=p, data_format=data_format
                    ),
                    lambda a, mode=mode, k=k, s=s, pads=pads: pool_ref(a, mode, k, s, pads, last),
                    [x],
                    rtol=1e-5,
                    atol=1e-5,
                    jit=True,
                )
            )
    run_cases(cases)
