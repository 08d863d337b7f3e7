"""The eager rows fixed for the parity table, and the known differences that keep OneFlow's
calls working, called the way OneFlow v0.4 programs called them, against NumPy and PyTorch."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import flowjob.experimental as flow

torch = pytest.importorskip("torch")


def test_softmax_takes_tensor_by_keyword():
    x = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 4.0]], np.float32)
    e = np.exp(x - x.max(axis=0, keepdims=True))
    by_keyword = flow.softmax(tensor=flow.Tensor(x), dim=0).numpy()
    np.testing.assert_allclose(by_keyword, e / e.sum(axis=0, keepdims=True), rtol=1e-6)
    last = flow.softmax(flow.Tensor(x)).numpy()  # dim=None: the last axis
    np.testing.assert_allclose(last, torch.softmax(torch.tensor(x), -1).numpy(), rtol=1e-6)
    assert list(inspect.signature(flow.softmax).parameters) == ["tensor", "dim"]


def test_arange_defaults_to_int64_as_oneflow_said():
    assert inspect.signature(flow.arange).parameters["dtype"].default is flow.int64
    for args in ((5,), (2, 9, 3)):
        out = flow.arange(*args)
        assert out.dtype is flow.int64
        np.testing.assert_array_equal(out.numpy(), np.arange(*args, dtype=np.int64))
    assert flow.arange(4, dtype=None).dtype is flow.int64  # None: still OneFlow's int64
    floats = flow.arange(1, 4, dtype=flow.float32)
    assert floats.dtype is flow.float32 and floats.numpy().tolist() == [1.0, 2.0, 3.0]


def test_autograd_backward_takes_outputs_and_out_grads():
    x0 = np.array([1.0, -2.0, 3.0], np.float32)
    weights = np.array([0.5, 2.0, -1.0], np.float32)
    x = flow.Tensor(x0, requires_grad=True)
    flow.autograd.backward(outputs=x * x * x, out_grads=flow.Tensor(weights))
    ref = torch.tensor(x0, requires_grad=True)
    torch.autograd.backward(ref * ref * ref, torch.tensor(weights))
    np.testing.assert_allclose(x.grad.numpy(), ref.grad.numpy(), rtol=1e-6)
    # positionally, as OneFlow's own tests call it, and accumulating into .grad
    flow.autograd.backward((x * 2.0).sum(), flow.Tensor(np.ones(1, np.float32)))
    np.testing.assert_allclose(x.grad.numpy(), ref.grad.numpy() + 2.0, rtol=1e-6)


def test_reshape_and_repeat_take_oneflows_sequence_and_pytorchs_sizes():
    a = np.arange(12, dtype=np.float32)
    x = flow.Tensor(a)
    for out in (x.reshape([3, 4]), x.reshape(shape=(3, -1)), x.reshape(3, 4), x.reshape((3, 4))):
        np.testing.assert_array_equal(out.numpy(), a.reshape(3, 4))
    y = flow.Tensor(a.reshape(3, 4))
    for out in (y.repeat((2, 1, 3)), y.repeat(sizes=[2, 1, 3]), y.repeat(2, 1, 3)):
        np.testing.assert_array_equal(out.numpy(), np.tile(a.reshape(3, 4), (2, 1, 3)))
