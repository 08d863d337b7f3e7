"""gather (out-of-range, OneFlow's batch_gather), gather_nd, slice_update, identity_n, pad
constants, fused batch-norm layers and the job-introspection helpers."""

from __future__ import annotations

from typing import List, Tuple

import numpy as np
import pytest
from ops_helpers import FixedInit, numeric_grad, value_and_grads, variables

import flowjob as flow
import flowjob.typing as tp


def test_gather_out_of_range_indices_give_zeros_like_oneflow():
    params = np.arange(12, dtype=np.float32).reshape(4, 3) + 1
    idx = np.array([3, 4, 0, 100], np.int32)

    @flow.global_function()
    def job(p: tp.Numpy.Placeholder((4, 3)), i: tp.Numpy.Placeholder((4,), dtype=flow.int32)
            ) -> Tuple[tp.Numpy, tp.Numpy]:
        return flow.gather(p, i), flow.gather(p, i, axis=1)

    rows, cols = job(params, idx)
    np.testing.assert_array_equal(rows, [params[3], np.zeros(3), params[0], np.zeros(3)])
    expected = np.zeros((4, 4), np.float32)
    expected[:, 2] = params[:, 0]
    np.testing.assert_array_equal(cols, expected)


def test_batch_gather_takes_every_leading_indices_axis_as_batch_and_has_gradients():
    rng = np.random.default_rng(0)
    params = rng.normal(size=(2, 3, 5, 4))
    idx = rng.integers(0, 5, size=(2, 3, 6)).astype(np.int32)
    # OneFlow's batch_gather: batch_dims=1, axis=1, but indices of rank 3 make two batch axes
    value, (g, _), c = value_and_grads(lambda p, i: flow.gather(p, i, batch_dims=1), params, idx)
    want = np.stack([np.stack([params[a, b][idx[a, b]] for b in range(3)]) for a in range(2)])
    np.testing.assert_array_equal(value, want)
    grad = np.zeros_like(params)
    for a in range(2):
        for b in range(3):
            np.add.at(grad[a, b], idx[a, b], c[a, b])
    np.testing.assert_allclose(g, grad, rtol=1e-12)


def test_gather_nd_values_gradient_and_errors():
    rng = np.random.default_rng(1)
    params = rng.normal(size=(3, 4, 2))
    idx = np.array([[[0, 1], [2, 3]], [[1, 0], [2, 3]]], np.int32)  # (2, 2, k=2)
    value, (g, _), c = value_and_grads(flow.gather_nd, params, idx)
    want = params[idx[..., 0], idx[..., 1]]
    assert value.shape == (2, 2, 2)
    np.testing.assert_array_equal(value, want)
    grad = np.zeros_like(params)
    np.add.at(grad, (idx[..., 0], idx[..., 1]), c)
    np.testing.assert_allclose(g, grad, rtol=1e-12)

    @flow.global_function()
    def full(p: tp.Numpy.Placeholder((3, 3)), i: tp.Numpy.Placeholder((2, 2), dtype=flow.int32)
             ) -> tp.Numpy:
        return flow.gather_nd(p, i)

    x = np.arange(9, dtype=np.float32).reshape(3, 3) + 1
    np.testing.assert_array_equal(full(x, np.array([[0, 2], [2, 1]], np.int32)), [3.0, 8.0])

    @flow.global_function()
    def bad(p: tp.Numpy.Placeholder((3, 3)), i: tp.Numpy.Placeholder((2, 3), dtype=flow.int32)
            ) -> tp.Numpy:
        return flow.gather_nd(p, i)

    with pytest.raises(flow.OpError, match=r"gather_nd.*size 1..2"):
        bad(x, np.zeros((2, 3), np.int32))


@pytest.mark.parametrize("tups", [
    [(1, 4, 1)],
    [(None, None, 2), (-3, None, 1)],
    [(4, None, -2), (0, 3, 2)],
])
def test_slice_update_values_and_gradients(tups):
    rng = np.random.default_rng(2)
    x = rng.normal(size=(5, 4))
    key = tuple(slice(*t) for t in tups)
    u = rng.normal(size=x[key].shape)
    value, (gx, gu), c = value_and_grads(lambda a, b: flow.slice_update(a, b, tups), x, u)
    want = x.copy()
    want[key] = u
    np.testing.assert_array_equal(value, want)
    mask = np.ones_like(x)
    mask[key] = 0
    np.testing.assert_allclose(gx, c * mask)
    np.testing.assert_allclose(gu, c[key])


def test_slice_update_checks_the_update_shape():
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((5,)), u: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        return flow.slice_update(x, u, [(1, 4, 1)])

    with pytest.raises(flow.OpError, match=r"slice_update.*update has shape \(2,\).*\(3,\)"):
        job(np.zeros(5, np.float32), np.zeros(2, np.float32))


def test_identity_n_and_clip_aliases():
    x = np.array([[1, 2, 3]], np.int32)
    y = np.array([[-2.0, 0.5, 9.0]], np.float32)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((1, 3), dtype=flow.int32),
            y: tp.Numpy.Placeholder((1, 3))) -> List[tp.Numpy]:
        a, b = flow.identity_n([x, y])
        return [a, b, flow.clip_by_value(y, -1, 1), flow.clamp(y, 0, 5), flow.clip(y, 1, 2)]

    a, b, c1, c2, c3 = job(x, y)
    np.testing.assert_array_equal(a, x)
    np.testing.assert_array_equal(b, y)
    np.testing.assert_array_equal(c1, np.clip(y, -1, 1))
    np.testing.assert_array_equal(c2, np.clip(y, 0, 5))
    np.testing.assert_array_equal(c3, np.clip(y, 1, 2))


def test_pad_constants_follow_the_dtype():
    x = np.ones((2, 2), np.float32)
    i = np.ones((2, 2), np.int64)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 2)), i: tp.Numpy.Placeholder((2, 2), dtype=flow.int64)
            ) -> Tuple[tp.Numpy, tp.Numpy, tp.Numpy]:
        return (flow.pad(x, [(1, 0), (0, 1)], constant_value=-1e30),
                flow.pad(i, [(0, 1), (0, 0)], constant_value=2 ** 40),
                flow.pad(i, [(0, 1), (0, 0)], constant_value=2.7))

    f, big, trunc = job(x, i)
    np.testing.assert_array_equal(f, np.pad(x, [(1, 0), (0, 1)], constant_values=-1e30))
    np.testing.assert_array_equal(big[2], [2 ** 40, 2 ** 40])
    np.testing.assert_array_equal(trunc[2], [2, 2])  # OneFlow: int(constant_value)

    @flow.global_function()
    def overflow(i: tp.Numpy.Placeholder((2,), dtype=flow.int32)) -> tp.Numpy:
        return flow.pad(i, [(1, 1)], constant_value=2 ** 40)

    with pytest.raises(flow.OpError, match=r"flow.pad.*does not fit the int32"):
        overflow(np.zeros(2, np.int32))


def test_batch_normalization_add_relu_uses_the_batch_norm_variables():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(4, 3, 2, 2)).astype(np.float32)
    addend = rng.normal(size=(4, 3, 2, 2)).astype(np.float32)

    @flow.global_function(type="train")
    def job(x: tp.Numpy.Placeholder((4, 3, 2, 2)), a: tp.Numpy.Placeholder((4, 3, 2, 2))
            ) -> Tuple[tp.Numpy, tp.Numpy]:
        y = flow.layers.batch_normalization_add_relu(x, a, axis=1, name="bn")
        z = flow.layers.batch_normalization_relu(x, axis=1, name="bn2", training=False)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.0]),
                           momentum=0).minimize(flow.math.reduce_mean(y))
        return y, z

    y, z = job(x, addend)
    mean, var = x.mean((0, 2, 3), keepdims=True), x.var((0, 2, 3), keepdims=True)
    np.testing.assert_allclose(y, np.maximum((x - mean) / np.sqrt(var + 1e-3) + addend, 0),
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(z, np.maximum(x / np.sqrt(1 + 1e-3), 0), rtol=1e-5, atol=1e-6)
    names = set(variables())
    assert {"bn-gamma", "bn-beta", "bn-moving_mean", "bn-moving_variance",
            "bn2-gamma"} <= names


def test_batch_normalization_explicit_variable_names():
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        return flow.layers.batch_normalization(x, axis=1, name="bn", gamma_name="my_gamma",
                                               moving_mean_name="stats-mean")

    job(np.ones((2, 3), np.float32))
    names = set(variables())
    assert {"my_gamma", "stats-mean", "bn-beta", "bn-moving_variance"} <= names
    assert "bn-gamma" not in names


def test_scope_function_desc_split_axis_and_dtype_helpers():
    seen = {}

    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
        with flow.scope.placement("cpu", "0:0"), flow.scope.namespace("outer"):
            seen["scope"] = flow.current_scope()
        seen["trainable"] = flow.current_global_function_desc().IsTrainable()
        v = flow.get_variable("v", shape=(3,), initializer=flow.zeros_initializer())
        y = x + v
        seen["split"] = (x.split_axis, flow.math.reduce_sum(y).split_axis,
                         y.with_distribute(flow.distribute.split(1)).split_axis)
        seen["same"] = flow.cast_to_current_logical_view(y) is y
        loss = flow.math.reduce_mean(y)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]),
                           momentum=0).minimize(loss)
        return loss

    @flow.global_function()
    def predict(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
        seen["predict_trainable"] = flow.current_global_function_desc().IsTrainable()
        return x

    train(np.zeros((4, 3), np.float32))
    predict(np.zeros((4, 3), np.float32))
    assert seen["scope"].device_parallel_desc_symbol.device_tag == "cpu"
    assert seen["scope"].scope_op_name_prefixes == ["outer"]
    assert seen["trainable"] is True and seen["predict_trainable"] is False
    assert seen["split"] == (0, flow.INVALID_SPLIT_AXIS, 1)
    assert seen["same"]
    assert flow.convert_oneflow_dtype_to_numpy_dtype(flow.float32) is np.float32
    assert flow.convert_oneflow_dtype_to_numpy_dtype(flow.int8) is np.int8
    with pytest.raises(TypeError, match="flowjob data type"):
        flow.convert_oneflow_dtype_to_numpy_dtype(np.float32)
    with pytest.raises(flow.JobDefinitionError, match="inside the body"):
        flow.current_global_function_desc()


def _np_bilinear(x, out_h, out_w, align):
    n, c, h, w = x.shape

    def coords(n_in, n_out):
        d = np.arange(n_out, dtype=np.float64)
        if align:
            return d * ((n_in - 1) / (n_out - 1))
        return np.maximum((d + 0.5) * n_in / n_out - 0.5, 0)

    out = np.zeros((n, c, out_h, out_w))
    for i, sy in enumerate(coords(h, out_h)):
        for j, sx in enumerate(coords(w, out_w)):
            y0, x0 = min(int(sy), h - 1), min(int(sx), w - 1)
            y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
            fy, fx = sy - int(sy), sx - int(sx)
            out[:, :, i, j] = ((1 - fy) * ((1 - fx) * x[:, :, y0, x0] + fx * x[:, :, y0, x1])
                               + fy * ((1 - fx) * x[:, :, y1, x0] + fx * x[:, :, y1, x1]))
    return out


@pytest.mark.parametrize("interpolation,align,size", [("nearest", False, 2),
                                                       ("bilinear", False, (2, 3)),
                                                       ("bilinear", True, 2)])
def test_upsample_2d_matches_pytorch_sampling(interpolation, align, size):
    x = np.random.default_rng(4).normal(size=(1, 2, 3, 4))
    value, (g,), c = value_and_grads(
        lambda b: flow.layers.upsample_2d(b, size=size, align_corners=align,
                                          interpolation=interpolation), x)
    sh, sw = (size, size) if isinstance(size, int) else size
    if interpolation == "nearest":
        want = x.repeat(sh, axis=2).repeat(sw, axis=3)
    else:
        want = _np_bilinear(x, 3 * sh, 4 * sw, align)
    np.testing.assert_allclose(value, want, rtol=1e-12, atol=1e-12)
    ref = (lambda a: a.repeat(sh, 2).repeat(sw, 3)) if interpolation == "nearest" else (
        lambda a: _np_bilinear(a, 3 * sh, 4 * sw, align))
    np.testing.assert_allclose(g, numeric_grad(ref, [x], c)[0], rtol=1e-6, atol=1e-8)


def test_prelu_layer_variable_and_gradients():
    x = np.array([[[-2.0, 1.0], [3.0, -0.5]], [[0.5, -1.0], [-4.0, 2.0]]])  # (2, 2, 2)
    init = np.array([[0.1], [0.3]])  # shared over axis 2
    value, (g,), c = value_and_grads(
        lambda b: flow.layers.prelu(b, alpha_initializer=FixedInit(init), shared_axes=[2],
                                    name="act"), x)
    np.testing.assert_allclose(value, np.where(x > 0, x, x * init))
    np.testing.assert_allclose(g, np.where(x > 0, c, c * init))
    assert variables()["act-alpha"].shape == (2, 1)


def test_constants_and_full_squeezes_have_shape_1_like_oneflow():
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2,))) -> tp.Bundle[tp.Numpy]:
        return {"c": flow.constant(3.0), "empty": flow.zeros(()),
                "squeezed": flow.squeeze(flow.reshape(x, (1, 2, 1))[:, :1]),
                "cs": flow.constant_scalar(2, flow.int32), "sum": x + flow.constant(1.0)}

    out = job(np.array([1.0, 2.0], np.float32))
    assert out["c"].shape == (1,) and out["c"][0] == 3.0 and out["empty"].shape == (1,)
    assert out["squeezed"].tolist() == [1.0]
    assert out["cs"].dtype == np.int32 and out["cs"].tolist() == [2]
    np.testing.assert_array_equal(out["sum"], [2.0, 3.0])
