"""``tensor_ops/_reduce.py``: sum, mean, var, std and argmax on eager tensors, against NumPy
(values, shapes) and ``jax.grad`` (gradients)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import flowjob.experimental as flow

DATA = np.random.default_rng(1).standard_normal((2, 3, 4)).astype(np.float32)

REDUCE = {
    "sum": (np.sum, jnp.sum),
    "mean": (np.mean, jnp.mean),
    "var": (np.var, jnp.var),
    "std": (np.std, jnp.std),
}


@pytest.mark.parametrize("name", sorted(REDUCE))
@pytest.mark.parametrize("dim", [0, -1, (0, 2), (-2, -1, -3)])
@pytest.mark.parametrize("keep", [False, True])
def test_reductions_match_numpy_and_jax_gradients(name, dim, keep):
    ref, jax_ref = REDUCE[name]
    x = flow.Tensor(DATA, requires_grad=True)
    keyword = "keepdims" if name == "sum" else "keepdim"  # OneFlow v0.4's spellings
    y = getattr(flow, name)(x, dim, **{keyword: keep})
    want = ref(DATA, axis=dim, keepdims=keep)
    assert y.shape == (want.shape or (1,))  # every axis reduced: (1,), as OneFlow, not ()
    want = want.reshape(y.shape)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-6)
    # the method, with the other spelling of the flag
    other = "keepdim" if name == "sum" else "keepdims"
    np.testing.assert_allclose(getattr(x, name)(dim=dim, **{other: keep}).numpy(), want, 1e-5)
    (y * y).sum().backward()
    grad = jax.grad(lambda a: (jax_ref(a, axis=dim, keepdims=keep) ** 2).sum())(DATA)
    np.testing.assert_allclose(x.grad.numpy(), grad, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(REDUCE))
def test_reducing_every_axis_gives_shape_one(name):
    ref = REDUCE[name][0]
    y = getattr(flow, name)(flow.Tensor(DATA))
    assert y.shape == (1,)
    np.testing.assert_allclose(y.numpy(), [ref(DATA)], rtol=1e-5)


def test_empty_dim_lists_give_the_input_or_zeros_as_oneflow():
    x = flow.Tensor(DATA)
    np.testing.assert_array_equal(flow.sum(x, dim=[]).numpy(), DATA)
    np.testing.assert_array_equal(flow.var(x, []).numpy(), np.zeros_like(DATA))
    np.testing.assert_array_equal(flow.std(x, []).numpy(), np.zeros_like(DATA))


def test_std_gives_the_population_value_whatever_unbiased_says():
    x = flow.Tensor(DATA)
    for unbiased in (True, False):
        np.testing.assert_allclose(
            flow.std(x, 1, unbiased).numpy(), np.std(DATA, axis=1), rtol=1e-5
        )
    with pytest.raises(TypeError, match=r"flow\.std: unbiased must be a bool"):
        flow.std(x, 1, 1)


def test_the_keyword_only_spelling_of_the_keep_flag_wins():
    x = flow.Tensor(DATA)
    assert flow.sum(x, 0, False, keepdim=True).shape == (1, 3, 4)
    assert flow.mean(x, 0, True, keepdims=False).shape == (3, 4)


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -2])
@pytest.mark.parametrize("keep", [False, True])
def test_argmax_matches_numpy(dim, keep):
    y = flow.Tensor(DATA).argmax(dim, keep)
    want = np.argmax(DATA, axis=dim)
    if keep:
        want = np.expand_dims(want, dim)
    assert y.dtype == flow.int32 and y.shape == want.shape
    np.testing.assert_array_equal(y.numpy(), want)


def test_argmax_without_dim_flattens_and_vectors_give_shape_one():
    x = flow.Tensor(DATA)
    np.testing.assert_array_equal(flow.argmax(x).numpy(), [np.argmax(DATA)])
    v = flow.Tensor([1.0, 7.0, 7.0, 2.0])
    assert v.argmax().numpy().tolist() == [1]  # the first of equal maxima
    assert v.argmax(0).shape == (1,) and v.argmax(keepdim=True).shape == (1, 1)
    with pytest.raises(TypeError, match=r"flow\.argmax: dim must be an int or None"):
        flow.argmax(v, dim=(0,))
