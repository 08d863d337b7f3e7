"""CPU placements are logical in OneFlow: ``"cpu", "0:0-1"`` under ``gpu_device_num(1)`` runs
(on the one device there is), with the same values as without the scope."""

import textwrap

import numpy as np

from tests.subprocess_env import run_program

PROGRAM = textwrap.dedent("""
    import numpy as np
    import oneflow as flow
    import oneflow.typing as tp

    flow.config.gpu_device_num(1)

    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
        with flow.scope.placement("cpu", "0:0-1"):
            w = flow.get_variable("w", shape=(3,), initializer=flow.constant_initializer(0.5))
            loss = flow.math.reduce_mean(x * w, axis=1)
        with flow.scope.placement("gpu", "0:0"):
            flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]),
                               momentum=0).minimize(loss)
        return loss

    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    print("loss", " ".join(repr(float(v)) for v in train(x)))
    print("w", " ".join(repr(float(v)) for v in flow.get_all_variables()["w"].numpy()))
""")


def test_cpu_placement_beyond_configured_devices_runs(tmp_path):
    out = run_program(tmp_path, PROGRAM)  # one CPU device, as on a one-GPU machine
    lines = dict(line.split(" ", 1) for line in out.splitlines())
    x = np.arange(12, dtype=np.float64).reshape(4, 3)
    np.testing.assert_allclose(
        [float(v) for v in lines["loss"].split()], (x * 0.5).mean(1), rtol=1e-6
    )
    # d(sum of the 4 losses)/dw / 4 = column means of x / 3
    want_w = 0.5 - 0.1 * x.mean(0) / 3
    np.testing.assert_allclose([float(v) for v in lines["w"].split()], want_w, rtol=1e-6)
