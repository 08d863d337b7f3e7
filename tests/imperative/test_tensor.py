"""flow.Tensor / flow.tensor: construction rules, host views, arithmetic, shared storage."""

import numpy as np
import pytest

import flowjob as flow
from flowjob._src.imperative import TensorFeatureError


def test_shape_constructor_gives_zeros_of_float32():
    t = flow.Tensor(2, 3)
    assert t.shape == (2, 3) and isinstance(t.shape, flow.Size)
    assert t.dtype is flow.float32 and t.ndim == 2 and t.dim() == 2 and t.numel() == 6
    assert t.size() == (2, 3) and t.size(1) == 3 and t.element_size() == 4
    np.testing.assert_array_equal(t.numpy(), np.zeros((2, 3), np.float32))


def test_shape_constructor_with_a_data_initializer_draws_from_it():
    t = flow.Tensor(400, 500, data_initializer=flow.constant_initializer(2.5))
    np.testing.assert_array_equal(t.numpy(), np.full((400, 500), 2.5, np.float32))
    u = flow.Tensor(400, 500, data_initializer=flow.random_uniform_initializer(-3, 3))
    values = u.numpy()
    assert -3 <= values.min() < -2.9 and 2.9 < values.max() < 3
    assert abs(values.std() - 6 / np.sqrt(12)) < 0.01


def test_data_is_cast_to_the_dtype_float32_by_default():
    data = np.arange(6).reshape(2, 3)
    t = flow.Tensor(data)
    assert t.dtype is flow.float32
    np.testing.assert_array_equal(t.numpy(), data.astype(np.float32))
    assert flow.Tensor([[1, 2]], dtype=flow.int32).numpy().dtype == np.int32
    copy = flow.Tensor(t)
    copy.fill_(7)
    assert t.numpy().sum() == data.sum()  # Tensor(tensor) copies


@pytest.mark.parametrize(
    ("data", "dtype"),
    [
        ([1, 2], flow.int64),
        ([1.0, 2], flow.float32),
        ([[1], [2.5]], flow.float32),
        (3, flow.int64),
        (np.zeros(3), flow.float64),
        (np.zeros(3, np.int32), flow.int32),
    ],
)
def test_flow_tensor_infers_the_dtype_as_oneflow(data, dtype):
    t = flow.tensor(data)
    assert t.dtype is dtype
    np.testing.assert_array_equal(t.numpy(), np.asarray(data))


def test_numpy_is_a_writable_copy():
    t = flow.tensor([1.0, 2.0])
    a = t.numpy()
    a[0] = 9
    assert t.numpy()[0] == 1 and t.tolist() == [1.0, 2.0]


def test_arithmetic_matches_numpy():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(3, 4)).astype(np.float32), rng.normal(size=(4, 2)).astype(np.float32)
    x, y = flow.tensor(a), flow.tensor(b)
    np.testing.assert_allclose((x @ y).numpy(), a @ b, rtol=1e-5)
    np.testing.assert_allclose((x * 2 + 1).numpy(), a * 2 + 1)
    np.testing.assert_allclose((1 - x).numpy(), 1 - a)
    np.testing.assert_allclose((2 / (x * x + 1)).numpy(), 2 / (a * a + 1), rtol=1e-6)
    np.testing.assert_allclose((-x).numpy(), -a)
    np.testing.assert_allclose((x**2).numpy(), a**2, rtol=1e-6)
    np.testing.assert_array_equal((x > 0).numpy(), (a > 0).astype(np.int8))
    np.testing.assert_array_equal((x < y.numpy()[0, 0]).numpy(), (a < b[0, 0]).astype(np.int8))


def test_indexing_reads_and_writes():
    t = flow.tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    # OneFlow v0.4: an int index keeps its axis (x[key] is one slice op)
    np.testing.assert_array_equal(t[1].numpy(), [[4, 5, 6, 7]])
    np.testing.assert_array_equal(t[:, 1:3].numpy(), [[1, 2], [5, 6], [9, 10]])
    t[0, :] = 0
    t[2] = flow.tensor([1.0, 1.0, 1.0, 1.0])
    expected = np.arange(12, dtype=np.float32).reshape(3, 4)
    expected[0] = 0
    expected[2] = 1
    np.testing.assert_array_equal(t.numpy(), expected)


def test_repr_is_oneflow_v04s():
    assert repr(flow.tensor([1.0, 2.0])) == "tensor([1., 2.], dtype=oneflow.float32)"
    assert str(flow.tensor([1, 2], device="cuda")) == (
        "tensor([1, 2], device='cuda:0', dtype=oneflow.int64)"
    )
    x = flow.Tensor([0.123456], requires_grad=True)
    assert repr(x) == "tensor([0.1235], dtype=oneflow.float32, requires_grad=True)"
    assert repr(x + 1) == "tensor([1.1235], dtype=oneflow.float32, grad_fn=<addBackward>)"
    wide = repr(flow.Tensor(np.full(12, 1.5), device="cuda", requires_grad=True))
    assert wide == (
        "tensor([1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5],\n"
        "       device='cuda:0', dtype=oneflow.float32, requires_grad=True)"
    )


def test_detach_and_data_share_storage_with_in_place_changes():
    t = flow.Tensor(2, 2, requires_grad=True)
    d = t.detach()
    assert t.requires_grad and not d.requires_grad and not t.data.requires_grad
    d.fill_(3)
    np.testing.assert_array_equal(t.numpy(), np.full((2, 2), 3, np.float32))
    t.data.zeros_()
    assert d.numpy().sum() == 0


def test_copy_casts_and_checks_the_shape():
    t = flow.Tensor(2, 3)
    t.copy_(np.arange(6).reshape(2, 3))
    assert t.dtype is flow.float32
    np.testing.assert_array_equal(t.numpy(), np.arange(6).reshape(2, 3))
    with pytest.raises(ValueError, match=r"\(3,\) != \(2, 3\)"):
        t.copy_(np.zeros(3))


def test_requires_grad_flag():
    t = flow.Tensor(3)
    assert t.requires_grad is False and t.is_leaf and t.grad is None and t.grad_fn is None
    assert t.requires_grad_() is t and t.requires_grad


@pytest.mark.parametrize("kwarg", ["placement", "sbp", "is_consistent", "is_lazy"])
def test_consistent_and_lazy_tensors_are_refused_by_name(kwarg):
    with pytest.raises(TensorFeatureError, match=kwarg):
        flow.Tensor(2, **{kwarg: True})


def test_devices():
    t = flow.Tensor(2, device="cpu")
    assert t.device == "cpu:0" and not t.is_cuda
    assert t.to("cpu", dtype=flow.float64).dtype is flow.float64
    with pytest.raises(ValueError, match="device"):
        flow.Tensor(2, device="tpu")


def test_bad_arguments_name_what_is_accepted():
    with pytest.raises(TypeError, match="shape"):
        flow.Tensor("abc")
    with pytest.raises(TypeError, match="scalar, list"):
        flow.tensor({"a": 1})
