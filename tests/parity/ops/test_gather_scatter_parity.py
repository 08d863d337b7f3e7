"""Indexing ops with the cases OneFlow's suite checked (test_gather, test_batch_gather,
test_gather_nd, test_scatter_nd, test_dim_gather, test_unsorted_segment_sum,
test_unsorted_segment_sum_fw_bw, test_unsorted_batch_segment_sum): axes, batch_dims, index
ranks and dtypes, values and gradients (scatter-adds of the cotangent) against jax.numpy."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest
from parity_helpers import Case, run_cases, uniform

import flowjob as flow


def ints(high, shape, dtype, seed):
    return np.random.default_rng(seed).integers(0, high, shape).astype(dtype)


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_gather_axes_batch_dims_and_gather_nd(index_dtype):
    params = uniform((6, 8, 5), seed=1)
    cases = [
        Case(
            "gather axis 0",
            lambda p, i: flow.gather(p, i),
            lambda p, i: jnp.take(p, i, 0),
            [params, ints(6, (4, 1), index_dtype, 2)],
        ),
        Case(
            "gather axis 1",
            lambda p, i: flow.gather(p, i, axis=1),
            lambda p, i: jnp.take(p, i, 1),
            [params, ints(8, (3, 2), index_dtype, 3)],
        ),
        Case(
            "gather axis 2",
            lambda p, i: flow.gather(p, i, axis=2),
            lambda p, i: jnp.take(p, i, 2),
            [params, ints(5, (7,), index_dtype, 4)],
        ),
        Case(
            "gather batch_dims 1",
            lambda p, i: flow.gather(p, i, axis=1, batch_dims=1),
            lambda p, i: jnp.stack([jnp.take(p[b], i[b], 0) for b in range(6)]),
            [params, ints(8, (6, 4), index_dtype, 5)],
        ),
        Case(
            "gather batch_dims 2",
            lambda p, i: flow.gather(p, i, axis=2, batch_dims=2),
            lambda p, i: jnp.stack(
                [jnp.stack([jnp.take(p[b, c], i[b, c], 0) for c in range(8)]) for b in range(6)]
            ),
            [params, ints(5, (6, 8, 3), index_dtype, 6)],
        ),
    ]
    for index_shape in ((5, 1), (4, 2), (2, 3, 3), (3, 4, 2)):
        depth = index_shape[-1]
        idx = np.stack(
            [ints(params.shape[d], index_shape[:-1], index_dtype, 7 + d) for d in range(depth)],
            axis=-1,
        )
        cases.append(
            Case(
                f"gather_nd {index_shape}",
                flow.gather_nd,
                lambda p, i: p[tuple(jnp.moveaxis(i, -1, 0))],
                [params, idx],
            )
        )
    run_cases(cases)


def test_scatter_nd_and_tensor_scatter_nd():
    cases = []
    for shape, index_shape in (
        ((10,), (5, 1)),
        ((10, 8, 4), (4, 8, 2)),
        ((12, 13, 7), (5, 10, 2)),
        ((10, 8, 4), (2, 3, 3)),
    ):
        depth = index_shape[-1]
        # distinct index rows: scatter_nd of a repeated row is not defined by OneFlow
        flat = np.random.default_rng(len(index_shape)).choice(
            int(np.prod(shape[:depth])), int(np.prod(index_shape[:-1])), replace=False
        )
        idx = np.stack(np.unravel_index(flat, shape[:depth]), -1).reshape(index_shape)
        idx = idx.astype(np.int32)
        updates = uniform(index_shape[:-1] + shape[depth:], seed=depth)
        params = uniform(shape, seed=30 + depth)
        where = tuple(np.moveaxis(idx, -1, 0))
        cases += [
            Case(
                f"scatter_nd {shape} {index_shape}",
                lambda i, u, s=shape: flow.scatter_nd(i, u, s),
                lambda i, u, s=shape, w=where: jnp.zeros(s, u.dtype).at[w].set(u),
                [idx, updates],
            ),
            Case(
                f"tensor_scatter_nd_update {shape}",
                flow.tensor_scatter_nd_update,
                lambda p, i, u, w=where: p.at[w].set(u),
                [params, idx, updates],
            ),
            Case(
                f"tensor_scatter_nd_add {shape}",
                flow.tensor_scatter_nd_add,
                lambda p, i, u, w=where: p.at[w].add(u),
                [params, idx, updates],
            ),
        ]
    run_cases(cases)


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_dim_gather(index_dtype):
    cases = []
    for shape, index_shape, dim in (
        ((2, 2), (2, 2), 0),
        ((2, 2), (2, 2), 1),
        ((8, 3, 2), (4, 3, 2), 0),
        ((3, 5, 4), (3, 2, 4), 1),
    ):
        x = uniform(shape, seed=dim)
        idx = ints(shape[dim], index_shape, index_dtype, seed=len(shape) + dim)
        cases.append(
            Case(
                f"dim_gather {shape} {index_shape} {dim}",
                lambda a, i, d=dim: flow.dim_gather(a, d, i),
                lambda a, i, d=dim: jnp.take_along_axis(a, i, d),
                [x, idx],
            )
        )
    run_cases(cases)


def test_unsorted_segment_sums():
    cases = []
    for axis, data_shape in ((0, (12, 5, 6)), (1, (4, 12, 6)), (2, (4, 5, 12)), (0, (30, 1, 4))):
        ids = ints(7, (12,) if data_shape[axis] == 12 else (30,), np.int32, seed=axis)
        data = uniform(data_shape, seed=40 + axis)

        def ref(d, i, ax=axis):
            moved = jnp.moveaxis(d, ax, 0)
            out = jnp.zeros((7,) + moved.shape[1:], d.dtype).at[i].add(moved)
            return jnp.moveaxis(out, 0, ax)

        cases.append(
            Case(
                f"unsorted_segment_sum axis {axis} {data_shape}",
                lambda d, i, ax=axis: flow.math.unsorted_segment_sum(d, i, 7, axis=ax),
                ref,
                [data, ids],
            )
        )
        like = np.zeros(data_shape[:axis] + (7,) + data_shape[axis + 1 :], np.float32)
        cases.append(
            Case(
                f"unsorted_segment_sum_like axis {axis}",
                lambda d, i, lk, ax=axis: flow.math.unsorted_segment_sum_like(d, i, lk, axis=ax),
                lambda d, i, lk, r=ref: r(d, i),
                [data, ids, like],
                diff_inputs=[0],
            )
        )
    ids2 = ints(4, (8, 5), np.int32, seed=9)
    data2 = uniform((8, 5, 3), seed=10)
    cases.append(
        Case(
            "unsorted_segment_sum 2-D ids",
            lambda d, i: flow.math.unsorted_segment_sum(d, i, 4),
            lambda d, i: jnp.zeros((4, 3), d.dtype).at[i].add(d),
            [data2, ids2],
        )
    )
    batch_ids = ints(7, (2, 4, 5), np.int32, seed=11)
    batch_data = uniform((2, 4, 5, 6), seed=12)
    cases.append(
        Case(
            "unsorted_batch_segment_sum",
            lambda d, i: flow.math.unsorted_batch_segment_sum(d, i, 7),
            lambda d, i: jnp.stack(
                [
                    jnp.stack(
                        [jnp.zeros((7, 6), d.dtype).at[i[a, b]].add(d[a, b]) for b in range(4)]
                    )
                    for a in range(2)
                ]
            ),
            [batch_data, batch_ids],
        )
    )
    run_cases(cases)
