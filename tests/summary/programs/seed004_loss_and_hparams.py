# ruff: noqa
# Seed 004's job API as a user combines it: a "loss" curve logged with ScalarJob for 30 steps,
# then the guide's hparams example (with Metric("loss")) logged with PbJob at step 1.
# np.fromstring (removed from NumPy's text mode) is np.frombuffer.
import sys

import numpy as np
import oneflow as flow

logdir = sys.argv[1]

func_config = flow.FunctionConfig()
func_config.default_data_type(flow.float)
func_config.default_logical_view(flow.scope.mirrored_view())


@flow.global_function(function_config=func_config)
def CreateWriter():
    flow.summary.create_summary_writer(logdir)


@flow.global_function(function_config=func_config)
def ScalarJob(
    value: flow.typing.ListNumpy.Placeholder((1,), dtype=flow.float),
    step: flow.typing.ListNumpy.Placeholder((1,), dtype=flow.int64),
    tag: flow.typing.ListNumpy.Placeholder((1000,), dtype=flow.int8),
):
    flow.summary.scalar(value, step, tag)


@flow.global_function(function_config=func_config)
def PbJob(
    value: flow.typing.ListNumpy.Placeholder((1500,), dtype=flow.int8),
    step: flow.typing.ListNumpy.Placeholder((1,), dtype=flow.int64),
):
    flow.summary.pb(value, step=step)


@flow.global_function(function_config=func_config)
def FlushJob():
    flow.summary.flush_summary_writer()


CreateWriter()
for i in range(30):
    value = np.array([2.0 / (i + 1)], dtype=np.float32)
    step = np.array([i], dtype=np.int64)
    tag = np.frombuffer(b"loss", dtype=np.int8)
    ScalarJob([value], [step], [tag])

hparams = {
    flow.summary.HParam("learning_rate", flow.summary.RealRange(1e-2, 1e-1)): 0.02,
    flow.summary.HParam("dense_layers", flow.summary.IntegerRange(2, 7)): 5,
    flow.summary.HParam("optimizer", flow.summary.ValueSet(["adam", "sgd"])): "adam",
    flow.summary.HParam("accuracy", flow.summary.RealRange(1e-2, 1e-1)): 0.001,
    flow.summary.HParam("magic", flow.summary.ValueSet([False, True])): True,
    flow.summary.Metric("loss", float): 0.02,
    "dropout": 0.6,
}

i = 1
pb2 = flow.summary.hparams(hparams)
value = np.frombuffer(str(pb2).encode(), dtype=np.int8)
step = np.array([i], dtype=np.int64)
PbJob([value], [step])
FlushJob()
flow.sync_default_session()
