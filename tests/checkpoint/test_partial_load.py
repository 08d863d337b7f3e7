"""OneFlow v0.4's ``CheckPoint().load(path)`` was ``LoadVariables(GetCheckpoint(path))`` with
``ignore_mismatch=True``: it loaded the variables a folder had and left the others at their
values. Programs rely on it: pretrained weights loaded into a bigger network, a teacher's
snapshot into a teacher+student job, weights saved without the optimizer's slots. flowjob
loads the same way with one warning; strict mode and damaged files still refuse."""

from __future__ import annotations

import os
import shutil
import warnings

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob.checkpoint import CheckpointError

pytestmark = pytest.mark.usefixtures("fresh_session")
RNG = np.random.default_rng(3)
X = RNG.normal(size=(4, 6)).astype(np.float32)


def _backbone(x):
    return flow.layers.dense(x, 5, activation=flow.nn.relu, name="backbone")


def _save_backbone(path) -> dict[str, np.ndarray]:
    """A small predict job's weights (no optimizer slots), saved as a OneFlow folder."""

    @flow.global_function()
    def small(x: tp.Numpy.Placeholder((4, 6))) -> tp.Numpy:
        return _backbone(x)

    small(X)
    flow.checkpoint.save(path)
    values = {k: v.numpy() for k, v in flow.get_all_variables().items()}
    flow.clear_default_session()
    return values


def _bigger_train_job():
    """The backbone under a new head, trained with Adam: its slots are variables too."""

    @flow.global_function(type="train")
    def big(x: tp.Numpy.Placeholder((4, 6))) -> tp.Numpy:
        logits = flow.layers.dense(_backbone(x), 3, name="head")
        loss = flow.math.reduce_mean(logits * logits)
        flow.optimizer.Adam(flow.optimizer.PiecewiseConstantScheduler([], [1e-3])).minimize(loss)
        return loss

    big(X)  # defines every variable, slots included
    return big


def test_pretrained_weights_load_into_a_bigger_job_with_slots(tmp_path):
    saved = _save_backbone(tmp_path / "backbone")
    big = _bigger_train_job()
    before = {k: v.numpy() for k, v in flow.get_all_variables().items()}
    lacking = sorted(set(before) - set(saved))
    assert any(name.startswith("head") for name in lacking) and len(lacking) > 2  # + slots
    with pytest.warns(UserWarning, match=rf"no value for {len(lacking)} of the ") as record:
        flow.train.CheckPoint().load(str(tmp_path / "backbone"))
    (message,) = [str(w.message) for w in record if "no value" in str(w.message)]
    assert str(tmp_path / "backbone") in message and "more" in message  # first few named
    after = {k: v.numpy() for k, v in flow.get_all_variables().items()}
    for name, value in saved.items():
        np.testing.assert_array_equal(after[name], value)
    for name in lacking:
        np.testing.assert_array_equal(after[name], before[name])
    assert np.isfinite(big(X)).all()  # training goes on from the loaded weights


def test_strict_mode_refuses_and_loads_nothing(tmp_path):
    _save_backbone(tmp_path / "backbone")
    _bigger_train_job()
    before = {k: v.numpy() for k, v in flow.get_all_variables().items()}
    flow.checkpoint.strict(True)
    try:
        with pytest.raises(CheckpointError, match="nothing was loaded"):
            flow.train.CheckPoint().load(str(tmp_path / "backbone"))
        with pytest.raises(CheckpointError, match="nothing was loaded"):
            flow.load_variables(flow.checkpoint.get(tmp_path / "backbone"))
    finally:
        flow.checkpoint.strict(False)
    after = {k: v.numpy() for k, v in flow.get_all_variables().items()}
    for name, value in before.items():
        np.testing.assert_array_equal(after[name], value)


def test_a_damaged_or_mismatched_folder_is_still_refused(tmp_path):
    saved = _save_backbone(tmp_path / "backbone")
    _bigger_train_job()
    before = {k: v.numpy() for k, v in flow.get_all_variables().items()}
    weight = next(n for n in saved if n.endswith("weight"))
    out = tmp_path / "backbone" / weight / "out"
    data = out.read_bytes()
    out.write_bytes(data[:-4])  # truncated
    with pytest.raises(CheckpointError, match=weight):
        flow.train.CheckPoint().load(str(tmp_path / "backbone"))
    out.write_bytes(data)
    flow.checkpoint.save(tmp_path / "other", {weight: np.zeros((6, 7), np.float32)})
    shutil.rmtree(tmp_path / "backbone" / weight)
    os.replace(tmp_path / "other" / weight, tmp_path / "backbone" / weight)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the warning about the head is not the point here
        with pytest.raises(CheckpointError, match="shape mismatch"):
            flow.train.CheckPoint().load(str(tmp_path / "backbone"))
    after = {k: v.numpy() for k, v in flow.get_all_variables().items()}
    for name, value in before.items():
        np.testing.assert_array_equal(after[name], value)
