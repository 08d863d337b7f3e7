"""An eager job in the mirrored view on two devices (OneFlow's eager mode kept one piece of
each blob per device): it runs compiled, as a lazy job, with the same results, per-device
blob shapes in the body and the same trained variables as the lazy job."""

import json
import textwrap
from pathlib import Path

import numpy as np

from tests.subprocess_env import run_program

PROGRAM = textwrap.dedent("""
    import json, sys
    import numpy as np
    import oneflow as flow
    import oneflow.typing as tp

    flow.enable_eager_execution(sys.argv[1] == "eager")
    flow.config.gpu_device_num(2)
    config = flow.FunctionConfig()
    config.default_logical_view(flow.scope.mirrored_view())
    shapes = []

    @flow.global_function(type="train", function_config=config)
    def step(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
        w = flow.get_variable("w", (3,), initializer=flow.constant_initializer(1.0))
        y = x * flow.cast_to_current_logical_view(w)
        shapes.append(list(y.shape))
        loss = flow.math.reduce_sum(y * y)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.01])).minimize(loss)
        return loss

    x = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
    losses = [step(x).tolist() for _ in range(3)]
    w = flow.get_all_variables()["w"].numpy().tolist()
    print(json.dumps({"losses": losses, "w": w, "shape": shapes[0]}))
""")


def _run(tmp_path: Path, mode: str) -> dict:
    return json.loads(run_program(tmp_path, PROGRAM, mode).strip().splitlines()[-1])


def test_an_eager_mirrored_job_on_two_devices_trains_as_the_lazy_one(tmp_path):
    eager, lazy = _run(tmp_path, "eager"), _run(tmp_path, "lazy")
    assert eager["shape"] == lazy["shape"] == [2, 3]  # one device's piece
    np.testing.assert_allclose(eager["losses"], lazy["losses"], rtol=1e-6)
    np.testing.assert_allclose(eager["w"], lazy["w"], rtol=1e-6)
    assert eager["w"] != [1.0, 1.0, 1.0]  # it trained
