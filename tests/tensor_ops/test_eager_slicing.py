"""Tensor indexing and the slice ops: ``x[key]`` (OneFlow v0.4: an int keeps its axis),
``x[key] = value`` in place, ``flow.slice``, ``flow.slice_update``,
``flow.tmp.logical_slice_assign``; values against NumPy, gradients against jax.grad."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import flowjob.experimental as fx

RNG = np.random.default_rng(1)
A = RNG.normal(size=(4, 5, 6)).astype(np.float32)


def _keep_axes(key, shape):
    """The NumPy key that gives OneFlow v0.4's result: each int ``i`` becomes ``i:i+1``."""
    items = list(key) if isinstance(key, tuple) else [key]
    if Ellipsis in items:
        at = items.index(Ellipsis)
        items[at : at + 1] = [slice(None)] * (len(shape) - len(items) + 1)
    return tuple(slice(k % n, k % n + 1) if isinstance(k, int) else k for k, n in zip(items, shape))


KEYS = [
    0,
    -1,
    (1, 2),
    (slice(None), 0),
    (slice(1, 3), slice(None, None, 2), -2),
    (slice(-4, -1, 2),),
    (slice(-1, None),),
    (slice(None, None, -1),),
    (slice(3, 0, -2), slice(None), slice(4, None, -3)),
    (slice(0, 100),),
    (slice(-100, 2), slice(2, 2)),
    (Ellipsis, 1),
    (0, Ellipsis, slice(1, 3)),
    (Ellipsis,),
]


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_getitem_matches_numpy_with_int_axes_kept(key):
    out = fx.Tensor(A)[key]
    want = A[_keep_axes(key, A.shape)]
    assert tuple(out.shape) == want.shape
    np.testing.assert_array_equal(out.numpy(), want)


@pytest.mark.parametrize("key", KEYS[:10], ids=repr)
def test_getitem_gradient_matches_jax(key):
    np_key = _keep_axes(key, A.shape)
    w = RNG.normal(size=A[np_key].shape).astype(np.float32)
    x = fx.Tensor(A, requires_grad=True)
    y = x[key]
    assert y.grad_fn is not None
    (y * fx.Tensor(w)).sum().backward()
    want = jax.grad(lambda a: jnp.sum(a[np_key] * w))(jnp.asarray(A))
    np.testing.assert_array_equal(x.grad.numpy(), np.asarray(want))


def test_iteration_stops_at_the_end():
    rows = list(fx.Tensor(np.arange(6, dtype=np.float32).reshape(3, 2)))
    assert [r.tolist() for r in rows] == [[[0.0, 1.0]], [[2.0, 3.0]], [[4.0, 5.0]]]


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ((slice(None), 0), 3.1415926),
        ((slice(None), slice(1, 2)), 1),
        (slice(None), 1.234),
        (0, 0),
        ((-1, slice(None, None, 2)), np.float64(7.5)),
        ((slice(1, 3), 2), np.arange(6, dtype=np.float64)),  # broadcast over the kept axes
        ((slice(None), 1, slice(2, 4)), np.ones((4, 1, 2))),
        (2, np.ones((1, 1, 5, 6))),  # a leading size-1 axis more than the slice has
    ],
)
def test_setitem_writes_in_place_like_numpy(key, value):
    x = fx.Tensor(A)
    shared = x.detach()
    want = A.copy()
    want[_keep_axes(key, A.shape)] = value
    x[key] = value
    np.testing.assert_allclose(x.numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(shared.numpy(), want, rtol=1e-6)  # same storage


def test_setitem_with_a_tensor_casts_it_and_is_not_recorded():
    x = fx.Tensor(np.zeros((2, 3), np.int32), dtype=fx.int32)
    x[1] = fx.Tensor([1.7, 2.2, 3.9])
    assert x.dtype is fx.int32 and x.tolist() == [[0, 0, 0], [1, 2, 3]]
    leaf = fx.Tensor(np.ones((2, 3), np.float32), requires_grad=True)
    v = fx.Tensor(np.full((1, 3), 5.0), requires_grad=True)
    leaf[0] = v
    assert leaf.is_leaf and leaf.grad_fn is None and leaf.requires_grad
    (leaf * 2).sum().backward()
    np.testing.assert_array_equal(leaf.grad.numpy(), np.full((2, 3), 2.0))
    assert v.grad is None  # OneFlow v0.4's assign op had no gradient


@pytest.mark.parametrize(
    ("key", "error", "match"),
    [
        (4, IndexError, "index 4 is out of range for axis 0 of size 4"),
        ((0, -6), IndexError, "index -6 is out of range for axis 1 of size 5"),
        ((0, 0, 0, 0), IndexError, "too many indices"),
        ((Ellipsis, 0, Ellipsis), IndexError, "single ellipsis"),
        (None, IndexError, "None"),
        (slice(None, None, 0), ValueError, "step cannot be 0"),
        ([0, 1], TypeError, "list is not supported.*flow.gather"),
        (1.5, TypeError, "unsupported index 1.5"),
        (slice(0.5, 2), TypeError, "ints or None"),
    ],
)
def test_bad_indices_say_what_is_supported(key, error, match):
    x = fx.Tensor(A)
    with pytest.raises(error, match=match):
        x[key]
    with pytest.raises(error, match=match):
        x[key] = 0


def test_tensor_index_points_to_gather():
    x = fx.Tensor(A)
    with pytest.raises(TypeError, match="Tensor is not supported"):
        x[fx.Tensor([0])]


def test_setitem_value_of_the_wrong_shape():
    with pytest.raises(ValueError, match=r"shape \(3,\) does not fit the slice .* \(1, 5, 6\)"):
        fx.Tensor(A)[0] = np.ones(3)


def test_slice_op_values_and_gradient():
    x = fx.Tensor(A, requires_grad=True)
    tups = [[None, None, None], [0, 5, 2], [0, 6, 3]]
    y = fx.slice(x, slice_tup_list=tups)
    np.testing.assert_array_equal(y.numpy(), A[:, 0:5:2, 0:6:3])
    y.sum().backward()
    want = np.zeros_like(A)
    want[:, 0:5:2, 0:6:3] = 1
    np.testing.assert_array_equal(x.grad.numpy(), want)
    np.testing.assert_array_equal(fx.slice(fx.Tensor(A), [[1, -1, 1]]).numpy(), A[1:-1])


def test_slice_update_is_out_of_place_and_differentiable():
    x_np, u_np = A[0].copy(), RNG.normal(size=(5, 2)).astype(np.float32)
    x, u = fx.Tensor(x_np, requires_grad=True), fx.Tensor(u_np, requires_grad=True)
    w = RNG.normal(size=(5, 6)).astype(np.float32)
    y = fx.slice_update(x, u, slice_tup_list=[[None, None, None], [1, 5, 2]])
    want = x_np.copy()
    want[:, 1:5:2] = u_np
    np.testing.assert_array_equal(y.numpy(), want)
    np.testing.assert_array_equal(x.numpy(), x_np)
    (y * fx.Tensor(w)).sum().backward()

    def f(a, b):
        return jnp.sum(a.at[:, 1:5:2].set(b) * w)

    gx, gu = jax.grad(f, argnums=(0, 1))(jnp.asarray(x_np), jnp.asarray(u_np))
    np.testing.assert_array_equal(x.grad.numpy(), np.asarray(gx))
    np.testing.assert_array_equal(u.grad.numpy(), np.asarray(gu))


def test_logical_slice_assign_writes_in_place():
    x = fx.Tensor(np.ones(5, np.float32))
    assert fx.tmp.logical_slice_assign(x, fx.Tensor([2.0, 3.0, 4.0]), [[1, 4, 1]]) is None
    assert x.tolist() == [1.0, 2.0, 3.0, 4.0, 1.0]


@pytest.mark.parametrize(
    ("tups", "match"),
    [
        ([[0, 9, 1]], "slice stop 9 of axis 0"),
        ([[0, 2]], r"slice_tup_list\[0\] must be \(start, stop, step\)"),
        ([[0, 2, 0]], "step of axis 0 cannot be 0"),
        ("0:2", "slice_tup_list must be a list"),
    ],
)
def test_slice_arguments_are_checked(tups, match):
    with pytest.raises(Exception, match=match):
        fx.slice(fx.Tensor(np.ones(5, np.float32)), tups)
