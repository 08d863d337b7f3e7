"""A train step's convolution kernels re-checked on the whole step, at its first compile on a
machine (``kernels.judge_step``): the step with its measured kernels against the same step
with every convolution on oneDNN, both run on copies of the job's state."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from .. import kernels


def compile_step(lowered: Any, name: str, compile_: Callable[[], Any], state: Callable[[], dict]):
    """Compiles ``lowered``'s step (``compile_()``); where its measured convolution kernels
    mix oneDNN and XLA and this machine has not judged that step yet, also compiles it with
    every convolution on oneDNN, times both whole steps on copies of ``state()`` (the job's
    current values) and the call's arguments, and serves the faster from then on."""
    traced = getattr(lowered, "traced", None)
    with kernels.recording() as chosen:
        compiled_args = compile_()
    if traced is None or not kernels.step_needs_judging(chosen):
        return
    device_args, third = compiled_args

    def all_onednn(*args):
        with kernels.forcing(kernels.ConvKernel.ONEDNN):
            return traced(*args)

    onednn_fn = jax.jit(all_onednn, donate_argnums=(0,))
    values = state()

    def run(fn):
        def once():
            copies = {n: jnp.copy(v) for n, v in values.items()}  # each run donates its state
            jax.block_until_ready(fn(copies, device_args, third))

        return once

    if kernels.judge_step(name, chosen, run(lowered.fn), run(onednn_fn)):
        lowered.fn = onednn_fn
