"""``flowjob/_src/ops/_creation.py``: constants, casts, ranges and identities."""

from __future__ import annotations

import math
from typing import List

import numpy as np
from ops_helpers import arange

import flowjob as flow
import flowjob.typing as tp


def test_identity_n_and_clip_aliases():
    x = np.array([[1, 2, 3]], np.int32)
    y = np.array([[-2.0, 0.5, 9.0]], np.float32)

    @flow.global_function()
    def job(
        x: tp.Numpy.Placeholder((1, 3), dtype=flow.int32), y: tp.Numpy.Placeholder((1, 3))
    ) -> List[tp.Numpy]:
        a, b = flow.identity_n([x, y])
        return [a, b, flow.clip_by_value(y, -1, 1), flow.clamp(y, 0, 5), flow.clip(y, 1, 2)]

    a, b, c1, c2, c3 = job(x, y)
    np.testing.assert_array_equal(a, x)
    np.testing.assert_array_equal(b, y)
    np.testing.assert_array_equal(c1, np.clip(y, -1, 1))
    np.testing.assert_array_equal(c2, np.clip(y, 0, 5))
    np.testing.assert_array_equal(c3, np.clip(y, 1, 2))


def test_constants_and_full_squeezes_have_shape_1_like_oneflow():
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2,))) -> tp.Bundle[tp.Numpy]:
        return {
            "c": flow.constant(3.0),
            "empty": flow.zeros(()),
            "squeezed": flow.squeeze(flow.reshape(x, (1, 2, 1))[:, :1]),
            "cs": flow.constant_scalar(2, flow.int32),
            "sum": x + flow.constant(1.0),
        }

    out = job(np.array([1.0, 2.0], np.float32))
    assert out["c"].shape == (1,) and out["c"][0] == 3.0 and out["empty"].shape == (1,)
    assert out["squeezed"].tolist() == [1.0]
    assert out["cs"].dtype == np.int32 and out["cs"].tolist() == [2]
    np.testing.assert_array_equal(out["sum"], [2.0, 3.0])


def test_range_and_fused_bias_add_ops():
    v = np.random.default_rng(5).normal(size=(4, 3)).astype(np.float32)
    b = np.array([0.5, -1.0, 2.0], np.float32)
    seen = {}

    @flow.global_function(type="train")
    def train(v: tp.Numpy.Placeholder((4, 3)), b: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
        w = flow.get_variable("w", shape=(1,), initializer=flow.zeros_initializer())
        dropped = flow.nn.fused_bias_add_dropout(v + w, b, data_format="NC", rate=0.5)
        flow.watch(dropped, lambda x: seen.setdefault("dropped", x))
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [0.0]), momentum=0
        ).minimize(flow.math.reduce_sum(dropped))
        return flow.nn.fused_bias_add_gelu(v, b, data_format="NC")

    @flow.global_function()
    def ranges() -> tp.Bundle[tp.Numpy]:
        return {
            "a": flow.range(1, 10, 3, dtype=flow.float64),
            "b": flow.range(3),
            "c": flow.range(0, 7, 2, dtype=flow.int32),
        }

    gelu = train(v, b)
    flow.sync_default_session()
    z = v + b
    np.testing.assert_allclose(
        gelu, 0.5 * z * (1 + np.vectorize(math.erf)(z / np.sqrt(2))), rtol=1e-5, atol=1e-6
    )
    kept = seen["dropped"] != 0
    assert 0 < kept.sum() < kept.size
    np.testing.assert_allclose(seen["dropped"][kept], 2 * z[kept], rtol=1e-6)
    out = ranges()
    np.testing.assert_array_equal(out["a"], np.arange(1, 10, 3, dtype=np.float64))
    assert out["b"].dtype == np.int64 and out["b"].tolist() == [0, 1, 2]
    assert out["c"].dtype == np.int32 and out["c"].tolist() == [0, 2, 4, 6]


def test_with_distribute_records_the_annotation():
    recorded = {}

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((4, 2))) -> tp.Numpy:
        y = x.with_distribute(flow.distribute.split(0))
        recorded["op"] = y.op
        return y * 2

    x = arange(4, 2)
    np.testing.assert_array_equal(job(x), x * 2)
    assert recorded["op"].op_type == "with_distribute"
    assert recorded["op"].attrs["distribute"] == flow.distribute.split(0)
