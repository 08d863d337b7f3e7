"""A train step's convolution kernels re-checked on the whole step, at its first compile on a
machine (``kernels.judge_step``): the step with its measured kernels against the same step
with every convolution on oneDNN, both run on copies of the job's state."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from .. import kernels


def compile_step(
    lowered: Any, compile_: Callable[[], None], state: Callable[[], dict], args: tuple
) -> None:
    """Compiles ``lowered``'s step (``compile_()``); where its measured convolution kernels
    mix oneDNN and XLA and this machine has not judged that step yet, also compiles it with
    every convolution on oneDNN, times both whole steps on copies of ``state()`` (the job's
    current values) and the call's other arguments ``args``, and serves the faster from then
    on."""
    with kernels.recording() as chosen:
        compile_()
    traced = lowered.traced
    if traced is None or not kernels.step_needs_judging(chosen):
        return

    def all_onednn(*args):
        with kernels.forcing(kernels.ConvKernel.ONEDNN):
            return traced(*args)

    onednn_fn = jax.jit(all_onednn, donate_argnums=(0,))
    values = state()

    def run(fn):
        def once():
            copies = {n: jnp.copy(v) for n, v in values.items()}  # each run donates its state
            jax.block_until_ready(fn(copies, *args))

        return once

    if kernels.judge_step(lowered.graph.name, chosen, run(lowered.fn), run(onednn_fn)):
        lowered.fn = onednn_fn
