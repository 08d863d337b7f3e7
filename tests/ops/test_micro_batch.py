"""``flowjob/_src/ops/_micro_batch.py``: unpack/pack and repeat/acc run the ops between them on
each micro-batch; values against NumPy, gradients against jax.grad."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from ops_helpers import FixedInit, value_and_grads

import flowjob as flow
import flowjob.typing as tp


def test_ops_between_unpack_and_pack_run_on_each_piece():
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((6, 4))) -> tp.Numpy:
        piece = flow.unpack(x, 3)
        assert piece.shape == (2, 4)  # OneFlow's per-micro-batch shape
        # a reduction over the piece's first axis sees 2 rows, not 6
        summed = flow.math.reduce_sum(piece, axis=0, keepdims=True)
        return flow.pack(flow.nn.softmax(summed + piece), 3)

    x = np.random.default_rng(0).normal(size=(6, 4)).astype(np.float32)
    pieces = x.reshape(3, 2, 4)
    z = pieces + pieces.sum(axis=1, keepdims=True)
    want = np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True)
    np.testing.assert_allclose(job(x), want.reshape(6, 4), rtol=1e-5)


def test_repeat_then_acc_sums_the_repeats():
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((3, 5))) -> tp.Numpy:
        return flow.acc(flow.repeat(x, 4) * 2.0, 4)

    x = np.random.default_rng(1).random((3, 5)).astype(np.float32)
    np.testing.assert_allclose(job(x), x * 8, rtol=1e-6)


def test_a_random_op_draws_anew_for_each_micro_batch():
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2000,))) -> tp.Numpy:
        return flow.acc(flow.random.bernoulli(flow.repeat(x, 4)), 4)

    out = job(np.full((2000,), 0.5, np.float32))
    # one draw per step: the sums are Binomial(4, 1/2), not 0 or 4 as with one draw repeated
    counts = np.bincount(np.round(out).astype(int), minlength=5)
    assert counts.sum() == 2000 and np.all(counts[1:4] > 200), counts


def _reference(x, w):
    pieces = (x * w).reshape(2, 2, 3)
    return jnp.tanh(pieces).reshape(4, 3) + 3 * jnp.sin(x)


def test_gradients_flow_through_unpack_pack_and_repeat_acc():
    x = np.random.default_rng(2).normal(size=(4, 3))
    w = np.random.default_rng(3).normal(size=(4, 3))

    def fn(a, b):
        packed = flow.pack(flow.math.tanh(flow.unpack(a * b, 2)), 2)
        return packed + flow.acc(flow.repeat(flow.math.sin(a), 3), 3)

    value, (gx, gw), cot = value_and_grads(fn, x, w)
    np.testing.assert_allclose(value, _reference(x, w), rtol=1e-10)
    want_x, want_w = jax.grad(lambda a, b: jnp.sum(_reference(a, b) * cot), (0, 1))(x, w)
    np.testing.assert_allclose(gx, want_x, rtol=1e-10)
    np.testing.assert_allclose(gw, want_w, rtol=1e-10)


def test_micro_batch_misuse_is_reported():
    with pytest.raises(flow.JobDefinitionError, match="micro-batches"):

        @flow.global_function()
        def unpacked(x: tp.Numpy.Placeholder((4, 2))) -> tp.Numpy:
            return flow.unpack(x, 2)

        unpacked(np.ones((4, 2), np.float32))
    with pytest.raises(flow.OpError, match="differs from the 2 micro-batch"):

        @flow.global_function()
        def mismatch(x: tp.Numpy.Placeholder((4, 2))) -> tp.Numpy:
            return flow.pack(flow.unpack(x, 2), 4)

        mismatch(np.ones((4, 2), np.float32))
    with pytest.raises(flow.OpError, match="does not split into 3"):

        @flow.global_function()
        def uneven(x: tp.Numpy.Placeholder((4, 2))) -> tp.Numpy:
            return flow.pack(flow.unpack(x, 3), 3)

        uneven(np.ones((4, 2), np.float32))


def test_a_micro_batched_loss_accumulates_the_gradients_of_its_pieces():
    x = np.random.default_rng(4).normal(size=(6, 3)).astype(np.float32)
    w0 = np.random.default_rng(5).normal(size=(3,)).astype(np.float32)

    @flow.global_function(type="train")
    def job(a: tp.Numpy.Placeholder((6, 3))) -> tp.Numpy:
        w = flow.get_variable("w", (3,), initializer=FixedInit(w0))
        loss = flow.math.square(flow.unpack(a, 3) * w)  # three micro-batches of (2, 3)
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0
        ).minimize(loss)
        return flow.pack(loss, 3)

    loss = job(x)
    np.testing.assert_allclose(loss, (x * w0) ** 2, rtol=1e-6)
    # each piece's gradient is divided by its 6 elements, then they add up (OneFlow's
    # gradient accumulation)
    grad = jax.grad(lambda w: sum(jnp.sum((p * w) ** 2) / 6 for p in x.reshape(3, 2, 3)))(w0)
    np.testing.assert_allclose(
        flow.get_all_variables()["w"].numpy(), w0 - 0.1 * np.asarray(grad), rtol=1e-5
    )
