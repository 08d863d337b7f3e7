"""ones, zeros, ones_like, zeros_like and arange: shapes, dtypes (OneFlow v0.4's defaults),
devices and requires_grad against NumPy."""

import numpy as np
import pytest

import flowjob.experimental as fx


@pytest.mark.parametrize(
    ("fn", "np_fn"), [(fx.ones, np.ones), (fx.zeros, np.zeros)], ids=["ones", "zeros"]
)
@pytest.mark.parametrize("size", [10, (1, 2, 3, 4), [3, 1]])
@pytest.mark.parametrize("dtype", [None, fx.float64, fx.int32, fx.int8])
def test_ones_and_zeros(fn, np_fn, size, dtype):
    out = fn(size, dtype=dtype)
    want = np_fn(size, dtype=(dtype or fx.float32).np_dtype)
    assert out.dtype is (dtype or fx.float32) and out.numpy().dtype == want.dtype
    np.testing.assert_array_equal(out.numpy(), want)
    assert out.is_leaf and not out.requires_grad and out.device == fx.device("cpu")


def test_creation_keywords_place_and_flag_the_result():
    out = fx.ones((2, 2), device="cuda", requires_grad=True)
    assert out.device == fx.device("cuda", 0) and out.requires_grad and out.is_leaf
    out.sum().backward()
    np.testing.assert_array_equal(out.grad.numpy(), np.ones((2, 2)))
    with pytest.raises(TypeError, match="flow.ones: size must be an int or a tuple"):
        fx.ones("3")
    with pytest.raises(ValueError, match="flow.zeros: size must hold non-negative ints"):
        fx.zeros((2, -1))
    with pytest.raises(TypeError, match="flow.ones: dtype bfloat16 is not supported"):
        fx.ones(2, dtype=fx.bfloat16)


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.float32])
def test_like_keeps_shape_dtype_and_device(dtype):
    x = fx.Tensor(np.arange(8).reshape(2, 4), dtype=fx.tensor(np.zeros(1, dtype)).dtype)
    x = x if dtype != np.float32 else fx.Tensor(2, 4, device="cuda")
    for fn, value in ((fx.ones_like, 1), (fx.zeros_like, 0)):
        out = fn(x)
        assert out.dtype is x.dtype and out.shape == x.shape and out.device == x.device
        np.testing.assert_array_equal(out.numpy(), np.full(x.shape, value, x.dtype.np_dtype))
    with pytest.raises(TypeError, match="flow.ones_like: expected a tensor"):
        fx.ones_like(np.zeros(3))


@pytest.mark.parametrize(
    ("args", "kwargs", "want"),
    [
        ((13,), {}, np.arange(13)),
        ((0, 20), {"step": 2}, np.arange(0, 20, 2)),
        ((), {"start": 0, "end": 100, "step": 3}, np.arange(0, 100, 3)),
        ((-3, 4), {}, np.arange(-3, 4)),
        ((13,), {"dtype": fx.float32}, np.arange(13, dtype=np.float32)),
    ],
)
def test_arange_matches_numpy_with_int64_by_default(args, kwargs, want):
    out = fx.arange(*args, **kwargs)
    assert out.dtype is kwargs.get("dtype", fx.int64)
    np.testing.assert_array_equal(out.numpy(), want)


def test_arange_device_requires_grad_and_errors():
    out = fx.arange(5, dtype=fx.float32, device=fx.device("cuda"), requires_grad=True)
    assert out.device == fx.device("cuda", 0) and out.requires_grad
    (out * out).sum().backward()
    np.testing.assert_array_equal(out.grad.numpy(), 2 * np.arange(5))
    with pytest.raises(ValueError, match="flow.arange: needs start < end"):
        fx.arange(5, 2)
    with pytest.raises(TypeError, match="flow.arange: end must be an int"):
        fx.arange(0, 2.5)
