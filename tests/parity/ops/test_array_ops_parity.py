"""Shape, layout and construction ops with the cases OneFlow's suite checked (test_concat,
test_stack, test_reshape, test_reshapeV2, test_squeeze, test_expand_dims, test_expand_op,
test_flatten, test_transpose, test_reverse, test_one_hot, test_constant, test_constant_like,
test_ones, test_zeros, test_range, test_diag, test_tril, test_fused_scale_tril,
test_masked_fill, test_broadcast_like, test_broadcast_to_compatible_with, test_identity_n,
test_slice_v2, test_bias_add, test_fused_bias_add_gelu): values and gradients against
jax.numpy. Padding, upsampling and pixel shuffle: test_resample_ops_parity.py."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from parity_helpers import Case, run_cases, uniform

import flowjob as flow


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_layout_ops(dtype):
    x = uniform((4, 5, 6), dtype=dtype, seed=1)
    y = uniform((4, 5, 6), dtype=dtype, seed=2)
    s = uniform((1, 4, 1, 5, 1), dtype=dtype, seed=3)
    cases = []
    for axis in (0, 1, 2, -1):
        cases.append(
            Case(
                f"concat {axis}",
                lambda a, b, ax=axis: flow.concat([a, b, a], axis=ax),
                lambda a, b, ax=axis: jnp.concatenate([a, b, a], axis=ax),
                [x, y],
            )
        )
        cases.append(
            Case(
                f"stack {axis}",
                lambda a, b, ax=axis: flow.stack([a, b], axis=ax),
                lambda a, b, ax=axis: jnp.stack([a, b], axis=ax),
                [x, y],
            )
        )
    for shape in ([2, -1], [-1], [3, -1], [6, 5, 4], [-1, 10]):
        cases.append(
            Case(
                f"reshape {shape}",
                lambda a, sh=shape: flow.reshape(a, sh),
                lambda a, sh=shape: a.reshape(sh),
                [x],
            )
        )
    for axis in (None, [2], [-3], [0, 2, 4], [-1, -3, -5]):
        cases.append(
            Case(
                f"squeeze {axis}",
                lambda a, ax=axis: flow.squeeze(a, axis=ax),
                lambda a, ax=axis: jnp.squeeze(a, None if ax is None else tuple(ax)),
                [s],
            )
        )
    for axis in (0, 1, 2, 3, -1, -2, -4):
        cases.append(
            Case(
                f"expand_dims {axis}",
                lambda a, ax=axis: flow.expand_dims(a, ax),
                lambda a, ax=axis: jnp.expand_dims(a, ax),
                [x],
            )
        )
    for start, end in ((0, -1), (1, 2), (1, -1), (0, 1)):
        cases.append(
            Case(
                f"flatten {start} {end}",
                lambda a, st=start, en=end: flow.flatten(a, start_dim=st, end_dim=en),
                lambda a, st=start, en=end: a.reshape(
                    a.shape[:st] + (-1,) + a.shape[en % a.ndim + 1 :]
                ),
                [x],
            )
        )
    for perm in ((2, 0, 1), (1, 0, 2), (2, 1, 0), (1, 2, 0), (0, 1, 2)):
        cases.append(
            Case(
                f"transpose {perm}",
                lambda a, p=perm: flow.transpose(a, perm=list(p)),
                lambda a, p=perm: jnp.transpose(a, p),
                [x],
            )
        )
    x6 = uniform((2, 3, 2, 2, 3, 2), dtype=dtype, seed=4)
    cases.append(
        Case(
            "transpose 6-D",
            lambda a: flow.transpose(a, perm=[2, 0, 1, 3, 5, 4]),
            lambda a: jnp.transpose(a, (2, 0, 1, 3, 5, 4)),
            [x6],
        )
    )
    for axis in (0, 1, 2, -1, [0, 2], [0, 1, 2]):
        cases.append(
            Case(
                f"reverse {axis}",
                lambda a, ax=axis: flow.reverse(a, ax),
                lambda a, ax=axis: jnp.flip(a, ax),
                [x],
            )
        )
    small = uniform((1, 4, 1, 3), dtype=dtype, seed=5)
    for size in ([2, 4, 2, 3], [1, 4, 5, 3], [2, 1, 2, 4, 2, 3]):
        cases.append(
            Case(
                f"expand {size}",
                lambda a, sz=size: flow.expand(a, sz),
                lambda a, sz=size: jnp.broadcast_to(a, sz),
                [small],
            )
        )
    run_cases(cases)


def test_broadcasting_constructors_and_identity():
    x = uniform((5, 2), seed=6)
    like3, like4 = uniform((4, 5, 2), seed=7), uniform((4, 6, 5, 2), seed=8)
    a, b = uniform((4, 1, 6), seed=9), uniform((1, 5, 1), seed=10)
    cases = [
        Case(
            "broadcast_like [0]",
            lambda v, like: flow.broadcast_like(v, like, broadcast_axes=[0]),
            lambda v, like: jnp.broadcast_to(v, like.shape),
            [x, like3],
            diff_inputs=[0],
        ),
        Case(
            "broadcast_like [0, 1]",
            lambda v, like: flow.broadcast_like(v, like, broadcast_axes=[0, 1]),
            lambda v, like: jnp.broadcast_to(v, like.shape),
            [x, like4],
            diff_inputs=[0],
        ),
        Case(
            "broadcast_to_compatible_with",
            lambda v, p, q: flow.broadcast_to_compatible_with(v, [p, q]),
            lambda v, p, q: jnp.broadcast_to(v, jnp.broadcast_shapes(v.shape, p.shape, q.shape)),
            [uniform((1, 1, 1), seed=11), a, b],
            diff_inputs=[0],
        ),
        Case("identity_n", lambda p, q: flow.identity_n([p, q])[1], lambda p, q: q, [a, b]),
    ]
    run_cases(cases)
    run_cases(
        [
            Case(
                "constant_like f32",
                lambda v: flow.constant_like(v, 2.5),
                lambda v: jnp.full_like(v, 2.5),
                [x],
                grad=False,
            ),
            Case(
                "constant_like int32",
                lambda v: flow.constant_like(v, 3, dtype=flow.int32),
                lambda v: jnp.full(v.shape, 3, jnp.int32),
                [x],
                grad=False,
            ),
            Case(
                "constant",
                lambda v: v * 0 + flow.constant(1.5, dtype=flow.float, shape=(5, 2)),
                lambda v: jnp.full(v.shape, 1.5, v.dtype),
                [x],
                grad=False,
            ),
            Case(
                "ones",
                lambda v: v * 0 + flow.ones((5, 2)),
                lambda v: jnp.ones_like(v),
                [x],
                grad=False,
            ),
            Case("zeros", lambda v: v + flow.zeros((5, 2)), lambda v: v, [x], grad=False),
            Case(
                "range 1..10 by 3",
                lambda v: flow.range(1, 10, 3, dtype=flow.float64),
                lambda v: jnp.arange(1, 10, 3, dtype=jnp.float64),
                [x],
                grad=False,
            ),
            Case(
                "range 3",
                lambda v: flow.range(3, dtype=flow.int32),
                lambda v: jnp.arange(3, dtype=jnp.int32),
                [x],
                grad=False,
            ),
            Case(
                "range int64",
                lambda v: flow.range(0, 6, 2, dtype=flow.int64),
                lambda v: jnp.arange(0, 6, 2, dtype=jnp.int64),
                [x],
                grad=False,
            ),
        ]
    )


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_one_hot_diag_tril(dtype):
    is_float = np.dtype(dtype).kind == "f"
    x = (
        uniform((3, 6, 8), -5, 5, seed=12)
        if is_float
        else np.random.default_rng(12).integers(-5, 5, (3, 6, 8))
    ).astype(dtype)
    cases = []
    for diagonal in (-8, -1, 0, 8):
        for fill in (0, 1):
            cases.append(
                Case(
                    f"tril {diagonal} fill {fill}",
                    lambda a, d=diagonal, f=fill: flow.math.tril(a, d, fill_value=f),
                    lambda a, d=diagonal, f=fill: jnp.where(
                        jnp.tri(6, 8, d, dtype=bool), a, jnp.asarray(f, a.dtype)
                    ),
                    [x],
                    grad=is_float,
                )
            )
    for shape in ((3,), (3, 3), (3, 4)):
        v = x.reshape(-1)[: int(np.prod(shape))].reshape(shape)
        for diagonal in (0, 2, -1):
            cases.append(
                Case(
                    f"diag {shape} {diagonal}",
                    lambda a, d=diagonal: flow.diag(a, d),
                    lambda a, d=diagonal: jnp.diag(a, d),
                    [v],
                    grad=is_float,
                )
            )
    if not is_float:
        for axis in (-1, 0, 2):
            for out_dtype, np_out in ((flow.int32, jnp.int32), (flow.float64, jnp.float64)):
                cases.append(
                    Case(
                        f"one_hot axis {axis} {np_out.__name__}",
                        lambda a, ax=axis, od=out_dtype: flow.one_hot(
                            a + 5, depth=10, on_value=5, off_value=2, axis=ax, dtype=od
                        ),
                        lambda a, ax=axis, o=np_out: jnp.where(
                            jax.nn.one_hot(a + 5, 10, axis=ax) > 0, 5, 2
                        ).astype(o),
                        [x],
                        grad=False,
                    )
                )
    run_cases(cases)


def test_fused_scale_tril_masked_fill_and_slices():
    x = uniform((3, 6, 8), seed=13)
    mask = (np.random.default_rng(14).random((2, 1, 2, 4)) < 0.5).astype(np.int8)
    xm = uniform((2, 3, 2, 4), seed=15)
    cases = []
    for diagonal, scale, fill in ((-1, 5.0, 0.0), (0, 3.0, 1.0), (8, 0.5, 0.0)):
        cases.append(
            Case(
                f"fused_scale_tril {diagonal} {scale} {fill}",
                lambda a, d=diagonal, s=scale, f=fill: flow.math.fused_scale_tril(
                    a, d, fill_value=f, scale=s
                ),
                lambda a, d=diagonal, s=scale, f=fill: jnp.where(
                    jnp.tri(6, 8, d, dtype=bool), a * s, f
                ),
                [x],
            )
        )
    for value in (2.5, -5.5):
        cases.append(
            Case(
                f"masked_fill {value}",
                lambda a, m, v=value: flow.masked_fill(a, m, v),
                lambda a, m, v=value: jnp.where(m != 0, v, a),
                [xm, mask],
            )
        )
    y = uniform((5, 6, 7), seed=16)
    for slices in (
        [[None, None, None], [1, 5, 2], [-4, None, 1]],
        [[0, 3, None], [None, None, -1], [6, 0, -2]],
        [[-2, None, None], [2, -1, None], [None, 4, 3]],
    ):
        index = tuple(slice(*s) for s in slices)
        cases.append(
            Case(
                f"slice_v2 {slices}",
                lambda a, sl=slices: flow.slice_v2(a, sl),
                lambda a, ix=index: a[ix],
                [y],
            )
        )
    update = uniform((5, 2, 7), seed=17)
    cases.append(
        Case(
            "slice_update",
            lambda a, u: flow.slice_update(
                a, u, [[None, None, None], [1, 5, 2], [None, None, None]]
            ),
            lambda a, u: a.at[:, 1:5:2, :].set(u),
            [y, update],
        )
    )
    run_cases(cases)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bias_add_and_fused_bias_add_gelu(dtype):
    cases = []
    for shape, bias_len, fmt, axis in (
        ((2, 20, 1, 11), 20, "NCHW", 1),
        ((2, 5, 7, 7), 5, "NCHW", 1),
        ((3, 20, 5, 10), 10, "NHWC", 3),
        ((2, 5, 7, 7), 7, "NHWC", 3),
    ):
        x, b = uniform(shape, dtype=dtype, seed=bias_len), uniform((bias_len,), dtype=dtype)
        bshape = [1] * 4
        bshape[axis] = bias_len
        cases.append(
            Case(
                f"bias_add {shape} {fmt}",
                lambda v, c, f=fmt: flow.nn.bias_add(v, c, data_format=f),
                lambda v, c, bs=bshape: v + c.reshape(bs),
                [x, b],
            )
        )
        cases.append(
            Case(
                f"fused_bias_add_gelu {shape} {fmt}",
                lambda v, c, f=fmt: flow.nn.fused_bias_add_gelu(v, c, data_format=f),
                lambda v, c, bs=bshape: jax.nn.gelu(v + c.reshape(bs), approximate=False),
                [x, b],
            )
        )
    run_cases(cases)
