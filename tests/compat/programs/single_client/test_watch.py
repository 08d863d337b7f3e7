# ruff: noqa
# Test fixture: the late-2020 program of seed 000 with the v0.5 imports (oneflow.compatible.single_client), as the docs had them at c364d997.
#test_watch.py
import numpy as np
from oneflow.compatible import single_client as flow
from oneflow.compatible.single_client import typing as oft

def watch_handler(y:oft.Numpy):
    print("out:", y)

@flow.global_function()
def ReluJob(x:oft.Numpy.Placeholder((5,))) -> None:
    y = flow.nn.relu(x)
    flow.watch(y, watch_handler)

flow.config.gpu_device_num(1)
data = np.random.uniform(-1, 1, 5).astype(np.float32)
print("in:", data)
ReluJob(data)
