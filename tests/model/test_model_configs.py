"""The configs' own checks (OneFlow v0.4: invalid settings skip a part, bad arguments raise),
and the names OneFlow programs reach ``flow.model`` by."""

from __future__ import annotations

import pytest


def test_config_checks():
    import flowjob as flow

    val = flow.model.ValidationConfig()
    assert val.step_interval == 10  # OneFlow's default
    assert not val.check_valid() and "data is not a flow.model.DataModule" in val.error_msg
    val.config_data(flow.model.NumpyDataModule())
    assert val.check_valid() and val.error_msg == ""
    for bad in (0, -1, 2.0, True):
        val.config_step_interval(bad)
        assert not val.check_valid()
        assert f"step_interval must be an int > 0, got {bad!r}" in val.error_msg
    train = flow.model.TrainingConfig()
    train.config_data(flow.model.DataModule())
    assert train.check_valid()
    train.config_execution("not a config")
    assert not train.check_valid() and "exe_cfg is not a flow.FunctionConfig" in train.error_msg

    ck = flow.model.CheckpointConfig()
    assert not ck.need_load and not ck.need_save and ck.check_valid()
    with pytest.raises(ValueError, match="step_interval must be an int > 0, got 0"):
        ck.config_save("out", step_interval=0)
    with pytest.raises(ValueError, match="dirpath"):
        ck.config_load(None)
    ck.config_save("out", step_interval=4)
    assert (ck.need_save, ck.save_dirpath, ck.save_step_interval) == (True, "out", 4)


def test_numpy_data_module_placeholders():
    import numpy as np

    import flowjob as flow

    data = flow.model.NumpyDataModule()
    ph = data.infer_oneflow_data_placeholder(
        (np.zeros((4, 2), np.float32), np.zeros((4,), np.int32))
    )
    assert [(p.shape, p.dtype) for p in ph] == [((4, 2), flow.float32), ((4,), flow.int32)]
    with pytest.raises(flow.model.ModelError, match="must return a tuple"):
        data.infer_oneflow_data_placeholder([np.zeros(2)])
    with pytest.raises(flow.model.ModelError, match="item 1 must be a numpy.ndarray"):
        data.infer_oneflow_data_placeholder((np.zeros(2), 3))


def test_oneflow_names():
    import flowjob
    from flowjob.compat import aliased

    with aliased():
        import oneflow as flow

        assert flow.Model is flow.model.Model is flowjob.model.Model
        assert flow.model.Callback is flowjob.model.Callback


def test_configure_optimizers_must_return_optimizers(fresh_session):
    flow = fresh_session

    class NoOpt(flow.model.Model):
        def training_step(self, batch, optimizer_idx):
            return batch

        def configure_optimizers(self):
            return [
                flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1])),
                "adam",
            ]

    train = flow.model.TrainingConfig()
    train.config_data(flow.model.DataModule())
    with pytest.raises(
        flow.model.ModelError, match=r"NoOpt.configure_optimizers\(\) must return .* holding str"
    ):
        NoOpt().fit(training_config=train, max_steps=1)
