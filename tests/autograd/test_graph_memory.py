"""Memory of eager training: what the autograd graph keeps alive after ``backward``, and that
a training loop's device memory and compiled programs stop growing after its first steps.

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
