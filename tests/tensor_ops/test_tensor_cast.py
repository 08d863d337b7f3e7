"""``tensor_ops/_cast.py``: cast and to (device and/or dtype) on eager tensors, with autograd;
and the tensor functions on blobs inside a job."""

from __future__ import annotations

from typing import Tuple

import numpy as np
import pytest

import flowjob
import flowjob.experimental as flow
import flowjob.typing as tp

DATA = np.array([[1.7, -2.5, 0.4], [3.9, -0.6, 12.0]], np.float32)


@pytest.mark.parametrize("dtype", [flow.int8, flow.int32, flow.float64, flow.float32])
def test_cast_matches_numpy_astype(dtype):
    x = flow.Tensor(DATA)
    for y in (flow.cast(x, dtype), x.cast(dtype)):
        assert y.dtype == dtype and y is not x
        np.testing.assert_array_equal(y.numpy(), DATA.astype(dtype.np_dtype))


def test_cast_between_floats_passes_gradients_and_to_ints_stops_them():
    x = flow.Tensor(DATA, requires_grad=True)
    (flow.cast(x, flow.float64) * 3).sum().backward()
    assert x.grad.dtype == flow.float32
    np.testing.assert_array_equal(x.grad.numpy(), np.full_like(DATA, 3))
    assert not flow.cast(x, flow.int32).requires_grad


def test_to_a_device_copies_keeps_autograd_and_returns_self_when_nothing_changes():
    x = flow.Tensor(DATA, requires_grad=True)
    y = x.to(flow.device("cuda"))
    assert y.device == flow.device("cuda") and y is not x and x.device == flow.device("cpu")
    np.testing.assert_array_equal(y.numpy(), DATA)
    (y * y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * DATA, rtol=1e-6)
    assert x.to("cpu") is x and x.to(flow.float32) is x and x.to(device=flow.device("cpu")) is x
    assert x.to("cpu", copy=True) is not x and x.to(flow.float32, True) is not x


def test_to_takes_oneflow_v04s_argument_forms():
    x = flow.Tensor(DATA)
    both = x.to(flow.device("cuda:0"), flow.int32)
    assert both.device == flow.device("cuda") and both.dtype == flow.int32
    np.testing.assert_array_equal(both.numpy(), DATA.astype(np.int32))
    kw = x.to(device="cuda", dtype=flow.float64)
    assert kw.device == flow.device("cuda") and kw.dtype == flow.float64
    like = flow.Tensor(np.zeros(2), device="cuda", dtype=flow.int8)
    matched = flow.to(x, like)
    assert matched.device == like.device and matched.dtype == flow.int8


def test_to_refuses_what_it_cannot_read():
    x = flow.Tensor(DATA)
    with pytest.raises(TypeError, match=r"flow\.to: expected a device, a dtype or a tensor"):
        x.to()
    with pytest.raises(TypeError, match=r"flow\.to: dtype must be a flow dtype"):
        x.to("cpu", np.float32)
    with pytest.raises(TypeError, match=r"flow\.to: device given both by position"):
        x.to("cpu", device="cuda")
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) \['non_blocking'\]"):
        x.to("cpu", non_blocking=True)
    with pytest.raises(ValueError, match=r"flow\.device: expected 'cpu' or 'cuda"):
        x.to("tpu")


def test_the_functions_record_ops_on_blobs_inside_a_job(fresh_session):
    @flowjob.global_function()
    def job(
        a: tp.Numpy.Placeholder((2, 3)), b: tp.Numpy.Placeholder((3, 2))
    ) -> Tuple[tp.Numpy, tp.Numpy, tp.Numpy, tp.Numpy]:
        return (
            flow.matmul(flow.exp(a), b),
            flow.sum(flow.square(a), dim=1, keepdims=True),
            flow.cast(flow.gt(a, 0.5), flow.float32),
            flow.to(a, dtype=flow.int32),
        )

    b = np.arange(6, dtype=np.float32).reshape(3, 2)
    mm, sq, gt, ints = job(DATA, b)
    np.testing.assert_allclose(mm, np.exp(DATA) @ b, rtol=1e-5)
    np.testing.assert_allclose(sq, (DATA**2).sum(1, keepdims=True), rtol=1e-6)
    np.testing.assert_array_equal(gt, (DATA > 0.5).astype(np.float32))
    np.testing.assert_array_equal(ints, DATA.astype(np.int32))
