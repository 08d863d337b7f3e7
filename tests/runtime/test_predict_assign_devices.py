"""A predict job that assigns a variable on two devices (consistent and mirrored view): the
program returns and donates its state as a train step does; every device keeps the value."""

import textwrap

import numpy as np
import pytest

from tests.subprocess_env import run_program

PROGRAM = textwrap.dedent("""
    import sys
    import numpy as np
    import oneflow as flow
    import oneflow.typing as tp

    flow.config.cpu_device_num(2)
    config = flow.FunctionConfig()
    if sys.argv[1] == "mirrored":
        config.default_logical_view(flow.scope.mirrored_view())
    else:
        config.default_logical_view(flow.scope.consistent_view())

    @flow.global_function(function_config=config)
    def step(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
        with flow.scope.placement("cpu", "0:0-1"):
            v = flow.get_variable("v", shape=(3,), initializer=flow.zeros_initializer())
            flow.assign(v, v + flow.math.reduce_sum(x, axis=0))
            return x * 1.0

    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    step(x)
    step(x)
    print(" ".join(repr(float(a)) for a in flow.get_all_variables()["v"].numpy()))
""")


@pytest.mark.parametrize("view", ["consistent", "mirrored"])
def test_predict_assign_on_two_devices(tmp_path, view):
    got = [float(a) for a in run_program(tmp_path, PROGRAM, view).split()]
    x = np.arange(12, dtype=np.float64).reshape(4, 3)
    # mirrored: each device sums its half of the batch; the assigned values are averaged
    per_call = x.sum(0) if view == "consistent" else x.sum(0) / 2
    np.testing.assert_allclose(got, 2 * per_call, rtol=1e-6)
