"""Memory of eager training: what the autograd graph keeps alive after ``backward``, and that
a training loop's device memory and compiled programs stop growing after its first steps,
and what a recorded op keeps for its backward.

OneFlow v0.4's ResNet-50 test (``modules/test_resnet50_with_bn.py``) keeps ``logits`` and
``loss`` bound until the next step rebinds them. The graph hanging off them held every
op's input tensor, so each step's activations stayed alive through the next forward pass:
resident memory grew from 12.6 to 22 GB over five steps at batch 32. PyTorch's graph holds
only the saved values, which ``backward`` frees; so must ours.
"""

from __future__ import annotations

import gc
import logging

import jax
import numpy as np

import flowjob.experimental as flow


def _live() -> tuple[int, int]:
    gc.collect()
    arrays = jax.live_arrays()
    return len(arrays), sum(a.nbytes for a in arrays)


def _net():
    nn = flow.nn
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.Conv2d(8, 8, 3, padding=1),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(8 * 8 * 8, 10),
    )


def _batch():
    rng = np.random.default_rng(0)
    x = flow.Tensor(rng.normal(size=(4, 3, 16, 16)).astype(np.float32))
    y = flow.Tensor(rng.integers(0, 10, 4).astype(np.int32), dtype=flow.int32)
    return x, y


def _compiled(caplog, fn) -> list[str]:
    caplog.clear()
    with caplog.at_level(logging.WARNING), jax.log_compiles():
        fn()
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith("Compiling ")]


def test_a_graph_kept_after_backward_holds_no_activations():
    """The loop keeps the step's ``loss`` and ``logits``: the arrays alive are the same as
    with only their two values kept (before: every op's input, ~3x the parameters here)."""
    model, (x, y) = _net(), _batch()
    model.train()
    loss_fn = flow.nn.CrossEntropyLoss()
    opt = flow.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    logits = model(x)
    loss = loss_fn(logits, y)
    loss.backward()
    opt.step()
    opt.zero_grad()
    held = _live()
    values = (logits.array, loss.array)  # their values stay; the graph goes
    del logits, loss
    assert held == _live(), "the graph of a finished backward keeps arrays alive"
    del values


def test_training_memory_and_programs_stop_growing_after_two_steps(caplog):
    """Ten steps of a conv net with batch norm and SGD with momentum: from the third step on,
    the same number of live arrays of the same total size after every step, and no program
    compiled."""
    model, (x, y) = _net(), _batch()
    model.train()
    loss_fn = flow.nn.CrossEntropyLoss()
    opt = flow.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    logits = loss = None

    def step():
        nonlocal logits, loss  # bound until the next step rebinds them, as OneFlow's loop
        logits = model(x)
        loss = loss_fn(logits, y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        loss.numpy()

    step()
    step()
    after_two = _live()
    losses = []
    for _ in range(8):
        assert _compiled(caplog, step) == [], "a training step after the second compiled"
        assert _live() == after_two
        losses.append(loss.numpy().item())
    assert losses[-1] < losses[0]  # it trains (the same batch every step)
    state = sum(p.numel() for p in model.parameters()) * 4 * 3  # values, grads, momentum
    assert after_two[1] < state + 64 * 1024  # plus the batch, stats, logits and loss


def test_batch_norm_and_relu_keep_one_activation_each_for_backward():
    """conv -> batch norm -> ReLU: the forward leaves alive the output and, for backward, the
    batch norm's input, the ReLU's input and the convolution's input (a copy: a compiled
    program returns a saved input as a new array): four activations. Plain ``jax.vjp``
    kept the centred values, the normalized values and a ReLU mask as well (6.25)."""
    conv, bn = flow.nn.Conv2d(8, 8, 3, padding=1), flow.nn.BatchNorm2d(8)
    relu = flow.nn.ReLU()
    x = flow.Tensor(np.random.default_rng(1).normal(size=(8, 8, 32, 32)).astype(np.float32))
    activation = x.numel() * 4
    before = _live()[1]
    y = relu(bn(conv(x)))
    kept = _live()[1] - before
    assert 3 * activation <= kept < 4.25 * activation, kept / activation
    y.sum().backward()
    grads = {p: p.grad.numpy() for p in (conv.weight, bn.weight)}
    bn_ref = _reference_grads(conv, bn, x)
    np.testing.assert_allclose(grads[conv.weight], bn_ref[0], rtol=2e-4, atol=2e-4)
    np.testing.assert_allclose(grads[bn.weight], bn_ref[1], rtol=2e-4, atol=2e-4)


def _reference_grads(conv, bn, x):
    """d sum(relu(bn(conv(x)))) / d(conv weight, bn weight) by ``jax.grad``, batch statistics."""

    def f(w, gamma):
        h = jax.lax.conv_general_dilated(
            x.array, w, (1, 1), [(1, 1), (1, 1)], dimension_numbers=("NCHW", "OIHW", "NCHW")
        )
        h = h + conv.bias.array.reshape(1, -1, 1, 1)
        mean = h.mean(axis=(0, 2, 3), keepdims=True)
        var = h.var(axis=(0, 2, 3), keepdims=True)
        h = (h - mean) / jax.numpy.sqrt(var + bn.eps)
        h = h * gamma.reshape(1, -1, 1, 1) + bn.bias.array.reshape(1, -1, 1, 1)
        return jax.nn.relu(h).sum()

    return jax.grad(f, argnums=(0, 1))(conv.weight.array, bn.weight.array)
