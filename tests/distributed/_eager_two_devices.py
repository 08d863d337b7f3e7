"""An eager train job placed on 2 virtual CPU devices (OneFlow's test_2d_gpu_variable shape);
prints the variable after each call as JSON. Run as a script (the device count is fixed when
JAX starts)."""

import json

import numpy as np

import flowjob as flow
import flowjob.typing as tp

flow.enable_eager_execution()
flow.config.gpu_device_num(2)
seen = []


@flow.global_function(type="train")
def step(x: tp.Numpy.Placeholder((4,))) -> tp.Numpy:
    with flow.scope.placement("gpu", "0:0-1"):
        w = flow.get_variable("w", shape=(4,), initializer=flow.constant_initializer(1.0))
        seen.append(w.numpy(0).tolist())  # eager: the value the call starts from
        loss = flow.math.reduce_sum(w * x)
    flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0).minimize(
        loss
    )
    return loss


x = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
losses = [float(np.asarray(step(x)).reshape(-1)[0]) for _ in range(3)]
final = flow.get_all_variables()["w"].numpy().tolist()
print(json.dumps({"seen": seen, "losses": losses, "w": final}))
