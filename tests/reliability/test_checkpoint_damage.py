"""A damaged OneFlow checkpoint never loads partially without a word (issue 15, item 4).

A variable directory without its ``out`` file makes ``flow.checkpoint.get`` raise
``CheckpointError`` naming it; ``allow_incomplete=True`` reads what is there, with a warning. A
missing ``snapshot_done`` is read as OneFlow read it, with a warning; ``flowjob doctor``
reports both. A whole checkpoint that
lacks some of the model's variables (their directories are gone) loads with a warning naming
them, raises with ``load_variables(..., ignore_mismatch=False)``, and the restoring APIs
(``train.CheckPoint().load``, ``SimpleCheckPointManager.initialize_or_restore``) refuse it.
"""

from __future__ import annotations

import os
import shutil

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.cli import doctor
from flowjob.checkpoint import CheckpointError


def _doctor_damage(path) -> list[str]:
    report = doctor.Report()
    doctor.check_checkpoint(str(path), report)
    assert report.damaged, report.lines
    return report.lines


def _model():
    @flow.global_function()
    def Affine(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        w = flow.get_variable("w", shape=(3, 4), initializer=flow.random_normal_initializer())
        b = flow.get_variable("b", shape=(4,), initializer=flow.random_normal_initializer())
        return flow.matmul(x, w) + b

    return Affine


@pytest.fixture
def saved(fresh_session, tmp_path):
    """A model, a checkpoint of other values for it, and those values."""
    _model()
    values = {"w": np.arange(12, dtype=np.float32).reshape(3, 4), "b": np.ones(4, np.float32)}
    path = tmp_path / "ckpt"
    flow.checkpoint.save(path, values)
    return path, values


def _live() -> dict[str, np.ndarray]:
    return {k: v.numpy() for k, v in flow.get_all_variables().items()}


def test_a_variable_without_its_out_file_is_an_error(saved):
    path, values = saved
    os.remove(path / "b" / "out")
    before = _live()
    with pytest.raises(CheckpointError, match=r"b: has a meta file but no 'out'") as info:
        flow.checkpoint.get(path)
    assert str(path / "b") in str(info.value)
    with pytest.raises(CheckpointError, match=r"b.*'out'"):
        flow.train.CheckPoint().load(str(path))
    assert any(str(path / "b") in line for line in _doctor_damage(path))  # same verdict
    for name, value in _live().items():  # nothing was loaded
        np.testing.assert_array_equal(value, before[name])
    with pytest.warns(UserWarning, match=r"b.*'out'"):
        partial = flow.checkpoint.get(path, allow_incomplete=True)
    assert sorted(partial) == ["w"]


def test_a_checkpoint_without_snapshot_done_is_read_as_oneflow_did(saved):
    path, values = saved
    os.remove(path / "snapshot_done")
    with pytest.warns(UserWarning, match="snapshot_done") as record:
        flow.load_variables(flow.checkpoint.get(path))
    assert str(path) in str(record[0].message)
    assert any("snapshot_done" in line for line in _doctor_damage(path))  # doctor still says so
    for name, value in _live().items():
        np.testing.assert_array_equal(value, values[name])


@pytest.mark.parametrize("load", ["load_variables", "CheckPoint().load"])
def test_a_checkpoint_missing_a_variable_directory_never_loads_silently(saved, load):
    # OneFlow v0.4 loaded the variables a folder had (ignore_mismatch=True): so does flowjob,
    # with a warning naming what kept its value; strict mode refuses and loads nothing
    path, values = saved
    shutil.rmtree(path / "b")
    initial = _live()
    with pytest.raises(CheckpointError, match=r"1 of the 2 variable\(s\): 'b'"):
        flow.load_variables(flow.checkpoint.get(path), ignore_mismatch=False)
    with pytest.raises(CheckpointError, match=r"'b'.*nothing was loaded"):
        flow.train.CheckPoint().load(str(path), strict=True)
    for name, value in _live().items():
        np.testing.assert_array_equal(value, initial[name])
    with pytest.warns(UserWarning, match=r"'b'.*kept") as record:
        if load == "load_variables":
            flow.load_variables(flow.checkpoint.get(path))
        else:
            flow.train.CheckPoint().load(str(path))
    assert str(path) in str(record[-1].message)
    live = _live()
    np.testing.assert_array_equal(live["w"], values["w"])
    np.testing.assert_array_equal(live["b"], initial["b"])


def test_the_checkpoint_manager_restores_what_a_snapshot_has_and_refuses_damage(
    fresh_session, tmp_path
):
    _model()
    manager = flow.train.SimpleCheckPointManager(tmp_path / "snaps")
    manager.initialize_or_restore()  # saves the initial values as the first snapshot
    (latest,) = manager.list_checkpoints()
    shutil.rmtree(tmp_path / "snaps" / latest / "w")
    with pytest.warns(UserWarning, match=r"'w'.*kept"):
        manager.initialize_or_restore()
    os.remove(tmp_path / "snaps" / latest / "b" / "out")  # damaged: still an error
    with pytest.raises(CheckpointError, match=r"b.*'out'"):
        manager.initialize_or_restore()


def test_a_subset_of_variables_still_loads_quietly_from_a_plain_dict(saved):
    """Fine-tuning (OneFlow's documented use): variables not in a plain dict keep their values."""
    import warnings

    path, values = saved
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        flow.load_variables({"w": values["w"] * 2})
        flow.load_variables(flow.checkpoint.get(path))  # a complete checkpoint: no warning
    np.testing.assert_array_equal(_live()["w"], values["w"])
