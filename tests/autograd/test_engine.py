"""The eager autograd engine against ``jax.grad``: accumulation, non-scalar outputs,
shared sub-expressions, several outputs, retain_graph, retain_grad, ``autograd.grad``,
``no_grad`` and the leaf rules."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import flowjob as flow
import flowjob.experimental as fx
from flowjob._src.autograd import GraphFreedError
from flowjob._src.imperative import apply

RNG = np.random.default_rng(0)


def _tensor(shape, requires_grad=True):
    return fx.Tensor(RNG.normal(size=shape).astype(np.float32), requires_grad=requires_grad)


def _split_body(x):
    return flow.split(x, 2, axis=1)


def _argmax_body(x):
    return flow.math.argmax(x, axis=1)


def test_gradients_of_a_diamond_match_jax():
    x, w = _tensor((4, 3)), _tensor((3,))
    h = x * w  # used twice below: its gradients add up
    loss = (h * h + h * 3.0 - w).sum()
    loss.backward()

    def f(x, w):
        h = x * w
        return (h * h + h * 3.0 - w).sum()

    gx, gw = jax.grad(f, argnums=(0, 1))(jnp.asarray(x.numpy()), jnp.asarray(w.numpy()))
    np.testing.assert_allclose(x.grad.numpy(), gx, rtol=1e-5)
    np.testing.assert_allclose(w.grad.numpy(), gw, rtol=1e-5)
    assert x.is_leaf and not h.is_leaf and h.grad is None  # non-leaves keep no gradient


def test_gradients_accumulate_until_reset():
    x = _tensor((5,))
    (x * 2.0).sum().backward()
    (x * 3.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(5, 5.0))
    x.grad = None
    (x * 4.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(5, 4.0))


def test_a_non_scalar_output_needs_its_gradient():
    x = _tensor((2, 3))
    y = x * x
    with pytest.raises(RuntimeError, match="scalar outputs"):
        y.backward()
    weights = RNG.normal(size=(2, 3)).astype(np.float32)
    y.backward(fx.Tensor(weights))
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.numpy() * weights, rtol=1e-6)
    with pytest.raises(ValueError, match=r"shape \(3,\), expected \(2, 3\)"):
        (x * x).backward(fx.Tensor(np.ones(3, np.float32)))


def test_a_second_backward_needs_retain_graph():
    x = _tensor((3,))
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 4 * x.numpy(), rtol=1e-6)
    with pytest.raises(GraphFreedError, match="retain_graph=True"):
        y.backward()


def test_several_outputs_and_an_unused_one():
    x = _tensor((2, 4))
    a, b = apply("split", _split_body, x)
    (a * 2.0).sum().backward()  # b gets no gradient: zeros flow for it
    expected = np.concatenate([np.full((2, 2), 2.0), np.zeros((2, 2))], axis=1)
    np.testing.assert_allclose(x.grad.numpy(), expected)
    assert a.output_index == 0 and b.output_index == 1 and a.grad_fn is b.grad_fn


def test_integer_outputs_carry_no_gradient():
    x = _tensor((3, 4))
    index = apply("argmax", _argmax_body, x)
    assert index.dtype in (flow.int32, flow.int64) and not index.requires_grad


def test_retain_grad_keeps_a_non_leaf_gradient():
    x = _tensor((3,))
    h = x * 2.0
    h.retain_grad()
    (h * h).sum().backward()
    np.testing.assert_allclose(h.grad.numpy(), 2 * h.numpy(), rtol=1e-6)


def test_autograd_grad_leaves_dot_grad_alone():
    x = _tensor((3,))
    h = x * x
    y = (h * 3.0).sum()
    dx, dh = fx.autograd.grad(y, [x, h], retain_graph=True)
    np.testing.assert_allclose(dx.numpy(), 6 * x.numpy(), rtol=1e-6)
    np.testing.assert_allclose(dh.numpy(), np.full(3, 3.0))
    assert x.grad is None


def test_no_grad_records_nothing_and_nests():
    x = _tensor((3,))
    with fx.no_grad():
        y = x * 2.0
        with fx.enable_grad():
            z = x * 2.0
    assert not y.requires_grad and y.grad_fn is None and z.requires_grad

    @fx.no_grad()
    def doubled(t):
        return t * 2.0

    assert not doubled(x).requires_grad and fx.is_grad_enabled()


def test_leaf_rules():
    x = _tensor((2,))
    y = x * 1.0
    with pytest.raises(RuntimeError, match="leaf"):
        y.requires_grad = False
    d = y.detach()
    assert d.is_leaf and not d.requires_grad and np.array_equal(d.numpy(), y.numpy())
    with pytest.raises(RuntimeError, match="does not require grad"):
        (d * 2.0).sum().backward()


def test_gradients_through_a_lazy_free_program_are_cached_per_shape():
    from flowjob._src.imperative import _dispatch

    x = _tensor((7, 2))
    (x * 5.0).sum().backward()
    before = len(_dispatch._local_programs)
    for _ in range(3):
        (_tensor((7, 2)) * 5.0).sum().backward()
    assert len(_dispatch._local_programs) == before


def test_an_integer_tensor_that_requires_grad_gets_its_gradient():
    # OneFlow v0.4 let integer tensors require grad (test_arange.py's backward case): the ops
    # run on its values as floats for the gradient, the values stay integers
    x = fx.Tensor(np.arange(6, dtype=np.int64), dtype=flow.int64)
    x.requires_grad = True
    y = (x * 3).sum()
    assert y.dtype == flow.int64 and y.numpy().tolist() == [45]
    y.backward()
    assert x.grad.dtype == flow.int64
    np.testing.assert_array_equal(x.grad.numpy(), np.full(6, 3))


def test_zeroed_gradients_read_as_zeros_and_the_next_backward_replaces_them():
    # zero_grad's zeros are made only when read (a training loop never reads them)
    x = _tensor((3,))
    (x * 2.0).sum().backward()
    kept = x.grad  # the same tensor object the optimizer zeroes
    x.grad.zeros_()
    np.testing.assert_array_equal(kept.numpy(), np.zeros(3))
    (x * 5.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 5.0))
    x.grad.zeros_()
    x.grad.copy_(np.ones(3, np.float32))  # a write after zeroing: the next backward adds
    (x * 5.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 6.0))
    x.grad.fill_(2.5)
    (x * 1.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 3.5))
