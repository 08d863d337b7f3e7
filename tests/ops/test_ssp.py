"""SSP variables (``flowjob/_src/ops/_ssp.py``): ``flow.experimental.ssp_variable_proxy`` and
``function_config.enable_ssp`` against a NumPy history of the variable."""

from __future__ import annotations

import numpy as np
import pytest
from ops_helpers import FixedInit, sgd, uniform, variables

import flowjob as flow
import flowjob.typing as tp


@pytest.mark.parametrize("buffer_size", [1, 3])
def test_proxy_value_is_the_variable_buffer_size_calls_ago(buffer_size):
    w0 = uniform(5, seed=1)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((5,))) -> tp.Numpy:
        w = flow.get_variable("w", shape=(5,), initializer=FixedInit(w0))
        ref, value = flow.experimental.ssp_variable_proxy(w, buffer_size=buffer_size)
        flow.assign(ref, ref * 0.5 + value + x)
        return value

    history = [w0.astype(np.float32)]  # the variable after each call, initial first
    for n in range(8):
        x = uniform(5, seed=10 + n).astype(np.float32)
        stale = history[max(0, len(history) - buffer_size)]
        np.testing.assert_allclose(job(x), stale, rtol=1e-6)
        history.append(history[-1] * np.float32(0.5) + stale + x)
    np.testing.assert_allclose(variables()["w"], history[-1], rtol=1e-6)


def test_enable_ssp_applies_gradients_taken_at_stale_weights():
    w0, x, t = uniform(4, seed=2), uniform(4, seed=3), uniform(4, seed=4)
    config = flow.FunctionConfig()
    config.enable_ssp(True)

    @flow.global_function(type="train", function_config=config)
    def train() -> tp.Numpy:
        with flow.experimental.scope.config(ssp_num_stages=3, ssp_stage_id=1):
            w = flow.get_variable("w", shape=(4,), initializer=FixedInit(w0))
        loss = flow.math.reduce_sum(flow.math.square(w * x.astype(np.float32) - t))
        sgd(0.1).minimize(loss)
        return w

    history = [w0]
    for _ in range(6):
        stale = history[max(0, len(history) - 2)]  # 3 stages, stage 1: 2 calls stale
        np.testing.assert_allclose(train(), stale, rtol=1e-5)
        history.append(history[-1] - 0.1 * 2 * (stale * x - t) * x)
    np.testing.assert_allclose(variables()["w"], history[-1], rtol=1e-5)


def test_enable_ssp_needs_stages_and_the_proxy_a_variable():
    config = flow.FunctionConfig()
    config.enable_ssp(True)

    @flow.global_function(type="train", function_config=config)
    def train() -> tp.Numpy:
        w = flow.get_variable("w", shape=(2,), initializer=flow.zeros_initializer())
        sgd(0.1).minimize(w)
        return w

    with pytest.raises(flow.OpError, match="ssp_num_stages"):
        train()

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        return flow.experimental.ssp_variable_proxy(x, buffer_size=2)[1]

    with pytest.raises(flow.OpError, match="must be a variable"):
        job(np.zeros(2, np.float32))
