# ruff: noqa
# Test fixture: a OneFlow docs program (v0.2-v0.4 API) quoted unchanged from seed 000
# (oneflow-documentation docs/code/extended_topics/test_watch.py).
#test_watch.py
import numpy as np
import oneflow as flow
import oneflow.typing as oft

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
