"""Shape ops on eager tensors (reshape, flatten, squeeze, unsqueeze, permute, transpose,
expand, repeat, broadcast_like, cat, nn.Flatten): values against NumPy, gradients against
jax.grad of the same computation in jax.numpy, errors that name the op."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import flowjob as flow
import flowjob.experimental as fx
import flowjob.typing as tp

RNG = np.random.default_rng(0)


def _x(*shape):
    return RNG.normal(size=shape).astype(np.float32)


def _grad_of(fn, x_np, tensor_fn):
    """x.grad of sum(tensor_fn(x) * w) and jax.grad of sum(fn(x) * w), for a random w."""
    out_shape = np.shape(fn(x_np))
    w = _x(*out_shape)
    x = fx.Tensor(x_np, requires_grad=True)
    (tensor_fn(x) * fx.Tensor(w)).sum().backward()
    want = jax.grad(lambda a: jnp.sum(fn(a) * w))(jnp.asarray(x_np))
    return x.grad.numpy(), np.asarray(want)


CASES = [
    ("reshape", (4, 6), lambda a: a.reshape(2, 3, 4), lambda t: fx.reshape(t, [2, 3, -1])),
    ("reshape method", (4, 6), lambda a: a.reshape(8, 3), lambda t: t.reshape(shape=(8, -1))),
    ("reshape varargs", (4, 6), lambda a: a.reshape(24), lambda t: t.reshape(24)),
    ("flatten", (2, 3, 4, 5), lambda a: a.reshape(2, 60), lambda t: t.flatten(start_dim=1)),
    ("flatten mid", (2, 3, 4, 5), lambda a: a.reshape(2, 12, 5), lambda t: fx.flatten(t, 1, 2)),
    ("flatten all", (2, 3, 4), lambda a: a.reshape(24), lambda t: fx.flatten(t)),
    ("squeeze", (1, 3, 1, 2), lambda a: a.reshape(3, 2), lambda t: fx.squeeze(t)),
    ("squeeze dims", (1, 1, 1, 3), lambda a: a.reshape(1, 3), lambda t: t.squeeze(dim=[1, 2])),
    ("squeeze int", (1, 1, 3), lambda a: a.reshape(1, 3), lambda t: t.squeeze(-2)),
    ("unsqueeze", (2, 3), lambda a: a[:, None], lambda t: fx.unsqueeze(t, 1)),
    ("unsqueeze -1", (2, 3), lambda a: a[..., None], lambda t: t.unsqueeze(-1)),
    ("unsqueeze -3", (2, 3), lambda a: a[None], lambda t: t.unsqueeze(-3)),
    ("permute", (2, 3, 4), lambda a: a.transpose(2, 0, 1), lambda t: t.permute(2, 0, 1)),
    ("permute neg", (2, 3, 4), lambda a: a.transpose(1, 2, 0), lambda t: t.permute([-2, -1, 0])),
    ("transpose", (2, 3, 4), lambda a: a.swapaxes(0, 2), lambda t: fx.transpose(t, 0, -1)),
    ("expand", (3, 1), lambda a: jnp.broadcast_to(a, (2, 3, 4)), lambda t: t.expand(2, 3, 4)),
    ("expand -1", (1, 3), lambda a: jnp.broadcast_to(a, (5, 3)), lambda t: t.expand(5, -1)),
    (
        "expand size",
        (1, 3),
        lambda a: jnp.broadcast_to(a, (2, 3)),
        lambda t: t.expand(fx.Size([2, 3])),
    ),
    (
        "repeat",
        (2, 1, 3),
        lambda a: jnp.tile(a, (2, 3, 2, 1)),
        lambda t: t.repeat(sizes=(2, 3, 2, 1)),
    ),
    ("repeat same", (1, 2, 3), lambda a: jnp.tile(a, (4, 2, 3)), lambda t: fx.repeat(t, [4, 2, 3])),
    ("repeat varargs", (2, 2), lambda a: jnp.tile(a, (1, 3)), lambda t: t.repeat(1, 3)),
]


@pytest.mark.parametrize(("name", "shape", "np_fn", "fx_fn"), CASES, ids=[c[0] for c in CASES])
def test_values_and_gradients_match_numpy_and_jax(name, shape, np_fn, fx_fn):
    a = _x(*shape)
    out = fx_fn(fx.Tensor(a))
    want = np.asarray(np_fn(jnp.asarray(a)))
    assert tuple(out.shape) == want.shape and out.dtype is fx.float32
    np.testing.assert_array_equal(out.numpy(), want)
    got, want_grad = _grad_of(np_fn, a, fx_fn)
    np.testing.assert_allclose(got, want_grad, rtol=1e-6)


def test_integer_tensors_keep_their_dtype():
    x = fx.Tensor(np.arange(6).reshape(1, 2, 3), dtype=fx.int32)
    for out in (x.repeat(sizes=(2, 1, 1)), x.expand(3, 2, 3), x.permute(2, 1, 0), x.squeeze(0)):
        assert out.dtype is fx.int32
    np.testing.assert_array_equal(x.repeat(sizes=(1, 2, 2)).numpy(), np.tile(x.numpy(), (1, 2, 2)))


def test_broadcast_like_and_its_gradient():
    x = fx.Tensor(_x(3, 1, 1), requires_grad=True)
    like = fx.Tensor(3, 4, 5)
    y = fx.broadcast_like(x, like, broadcast_axes=(1, 2))
    np.testing.assert_array_equal(y.numpy(), np.broadcast_to(x.numpy(), (3, 4, 5)))
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((3, 1, 1), 20.0))
    dropped = fx.broadcast_like(fx.Tensor(_x(4)), fx.Tensor(3, 4), broadcast_axes=[0])
    assert dropped.shape == (3, 4)


def test_cat_values_and_gradients():
    parts = [_x(2, 3), _x(2, 1), _x(2, 4)]
    xs = [fx.Tensor(p, requires_grad=True) for p in parts]
    w = _x(2, 8)
    out = fx.cat(xs, dim=-1)
    np.testing.assert_array_equal(out.numpy(), np.concatenate(parts, axis=1))
    (out * fx.Tensor(w)).sum().backward()
    want = jax.grad(lambda *a: jnp.sum(jnp.concatenate(a, axis=1) * w), argnums=(0, 1, 2))(*parts)
    for x, g in zip(xs, want):
        np.testing.assert_allclose(x.grad.numpy(), g)
    assert fx.cat([xs[0]]) is xs[0]  # one input comes back as it is, as OneFlow v0.4


def test_nn_flatten_is_a_module_with_oneflows_defaults():
    m = fx.nn.Flatten()
    assert isinstance(m, fx.nn.Module) and m is not None
    x = fx.Tensor(_x(32, 2, 5, 5))
    assert m(x).shape == (32, 50)
    assert fx.nn.Flatten(0, 1)(x).shape == (64, 5, 5)
    assert repr(m) == "Flatten(start_dim=1, end_dim=-1)"
    np.testing.assert_array_equal(m(x).numpy(), x.numpy().reshape(32, 50))


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda t: fx.reshape(t, [5, -1]), Exception, "reshape"),
        (lambda t: fx.reshape(t, 6), TypeError, "flow.reshape: shape"),
        (lambda t: t.squeeze(1), ValueError, "flow.squeeze: axis 1 .* size 3"),
        (lambda t: t.unsqueeze(4), IndexError, "flow.unsqueeze: dim=4"),
        (lambda t: t.permute(1, 0), ValueError, "Tensor.permute: 2 dims"),
        (lambda t: t.permute(0, 0, 1), ValueError, "repeat an axis"),
        (lambda t: fx.transpose(t, 0, 3), IndexError, "flow.transpose: dim1=3"),
        (lambda t: t.expand(2, 3), ValueError, "Tensor.expand: 2 sizes"),
        (lambda t: t.expand(2, 5, 4), Exception, "cannot expand"),
        (lambda t: t.repeat(sizes=(1, 0, 1)), ValueError, "flow.repeat: sizes"),
        (lambda t: t.flatten(2, 1), ValueError, "start_dim 2 comes after end_dim 1"),
        (lambda t: fx.cat([t, fx.Tensor(2, 4, 4)], dim=0), ValueError, "flow.cat: inputs\\[1\\]"),
        (lambda t: fx.cat([t, 3]), TypeError, "flow.cat: inputs\\[1\\] is a int"),
    ],
)
def test_bad_arguments_name_the_op(call, error, match):
    with pytest.raises(error, match=match):
        call(fx.Tensor(2, 3, 4))


def test_the_functions_record_ops_on_blobs_inside_a_job(fresh_session):
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3, 4))) -> tp.Numpy:
        y = fx.transpose(fx.reshape(x, [2, 4, 3]), 0, 2)
        return fx.cat([y, fx.reshape(fx.unsqueeze(fx.flatten(x, 1), 0), [3, 4, 2])], dim=0)

    a = _x(2, 3, 4)
    want = np.concatenate([a.reshape(2, 4, 3).swapaxes(0, 2), a.reshape(1, 2, 12).reshape(3, 4, 2)])
    np.testing.assert_array_equal(job(a), want)
