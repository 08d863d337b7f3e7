"""get_all_variables / load_variables / CheckPoint / SimpleCheckPointManager over a fake session."""

from __future__ import annotations

import os

import numpy as np
import pytest

import flowjob.checkpoint as ckpt
from flowjob._src import _deprecation, _dtypes
from flowjob.checkpoint import CheckpointError, VariableBlob


def _two_vars():
    return {"w": np.arange(6, dtype=np.float32).reshape(2, 3), "step": np.array([4], np.int64)}


def test_get_all_variables_is_a_synced_snapshot(make_session):
    sess = make_session(_two_vars(), dtypes={"step": _dtypes.int64})
    got = ckpt.get_all_variables()
    assert sess.calls == ["trace_all", "wait"]
    assert sorted(got) == ["step", "w"]
    assert all(isinstance(v, VariableBlob) for v in got.values())
    assert got["w"].shape == (2, 3) and got["w"].dtype is _dtypes.float32
    assert got["step"].dtype is _dtypes.int64
    sess.values["w"] += 1  # later training does not change a snapshot already taken
    np.testing.assert_array_equal(got["w"].numpy(), _two_vars()["w"])
    got["w"].numpy()[0, 0] = 99  # nor does mutating what numpy() returned
    np.testing.assert_array_equal(got["w"].numpy(), _two_vars()["w"])


def test_get_all_variables_keeps_the_session_dtype(make_session):
    # A kChar variable is stored as int8 but must stay kChar in checkpoints.
    make_session({"tag": np.zeros(3, np.int8)}, dtypes={"tag": _dtypes.char})
    assert ckpt.get_all_variables()["tag"].dtype is _dtypes.char


def test_round_trip_through_save_and_load(tmp_path, make_session, sample_values):
    sess = make_session(sample_values)
    ckpt.save(tmp_path / "m")
    for name in sess.values:
        sess.values[name] = np.zeros_like(sess.values[name])
    ckpt.load_variables(ckpt.get(tmp_path / "m"))
    for name, arr in sample_values.items():
        np.testing.assert_array_equal(sess.values[name], arr)
        assert sess.values[name].dtype == arr.dtype


def test_save_accepts_oneflow_alias_argument_order(tmp_path):
    w = np.arange(4, dtype=np.int32)
    ckpt.save({"w": w}, str(tmp_path / "m"))  # flow.save(var_dict, save_dir)
    np.testing.assert_array_equal(ckpt.get(tmp_path / "m")["w"].numpy(), w)


def test_load_accepts_numpy_blobs_and_files(tmp_path, make_session):
    sess = make_session(
        {
            "a": np.zeros(2, np.float32),
            "b": np.zeros(2, np.float32),
            "c": np.zeros(2, np.float32),
            "untouched": np.full(2, 7, np.float32),
        }
    )
    ckpt.save(tmp_path / "m", {"c": np.array([5, 6], np.float32)})
    ckpt.load_variables(
        {
            "a": np.array([1, 2], np.float32),
            "b": VariableBlob("b", np.array([3, 4], np.float32)),
            "c": ckpt.get(tmp_path / "m")["c"],
            "not-a-variable": np.ones(9),
        }
    )
    assert sess.calls[-1] == ("assign", ["a", "b", "c"])
    for name, expected in (("a", [1, 2]), ("b", [3, 4]), ("c", [5, 6]), ("untouched", [7, 7])):
        np.testing.assert_array_equal(sess.values[name], expected)


def test_unknown_key_is_an_error_when_mismatch_not_ignored(make_session):
    sess = make_session({"w": np.zeros(2, np.float32)})
    with pytest.raises(CheckpointError, match='"ghost" is not a variable name'):
        ckpt.load_variables(
            {"w": np.ones(2, np.float32), "ghost": np.ones(2)}, ignore_mismatch=False
        )
    assert sess.values["w"].sum() == 0  # nothing assigned when any entry is refused


def test_shape_mismatch_names_variable_and_shapes(make_session):
    sess = make_session({"w": np.zeros((2, 3), np.float32), "b": np.zeros(3, np.float32)})
    with pytest.raises(CheckpointError) as info:
        ckpt.load_variables({"b": np.ones(3, np.float32), "w": np.ones((3, 2), np.float32)})
    assert '"w"' in str(info.value) and "(2, 3) vs (3, 2)" in str(info.value)
    assert sess.values["b"].sum() == 0


@pytest.mark.parametrize(
    "value", [np.ones(3, np.float64), np.ones(3, np.float16), np.ones(3, np.int32)]
)
def test_dtype_must_be_identical(make_session, value):
    sess = make_session({"w": np.zeros(3, np.float32)})
    with pytest.raises(CheckpointError) as info:
        ckpt.load_variables({"w": value})
    assert '"w"' in str(info.value)
    assert f"float32 vs {_dtypes.as_dtype(value.dtype).name}" in str(info.value)
    assert sess.values["w"].sum() == 0


def test_load_rejects_non_dict(make_session):
    make_session({"w": np.zeros(3, np.float32)})
    with pytest.raises(TypeError, match="dict"):
        ckpt.load_variables(ckpt.VariableBlob("w", np.zeros(3, np.float32)))


def test_checkpoint_class_prints_hint_once_and_delegates(tmp_path, make_session, capsys):
    _deprecation._seen.discard("train.CheckPoint")
    sess = make_session(_two_vars())
    with pytest.warns(FutureWarning, match="flow.train.CheckPoint"):
        cp = ckpt.CheckPoint()
    ckpt.CheckPoint()
    err = capsys.readouterr().err
    assert err.count("WARNING: 'flow.train.CheckPoint' is deprecated") == 1
    assert "flow.checkpoint.save(path)" in err
    assert "flow.load_variables(flow.checkpoint.get(path))" in err
    cp.init()
    cp.save(str(tmp_path / "m"))
    np.testing.assert_array_equal(ckpt.get(tmp_path / "m")["w"].numpy(), _two_vars()["w"])
    sess.values["w"] = np.zeros((2, 3), np.float32)
    cp.load(str(tmp_path / "m"))
    np.testing.assert_array_equal(sess.values["w"], _two_vars()["w"])


def test_simple_manager_initializes_then_restores(tmp_path, make_session):
    sess = make_session(_two_vars())
    root = tmp_path / "snaps"
    manager = ckpt.SimpleCheckPointManager(root)
    assert manager.list_checkpoints() == [] and manager.latest_checkpoint() is None
    manager.initialize_or_restore()  # nothing yet: saves the initial values
    first = manager.latest_checkpoint()
    assert first is not None and first.startswith("snapshot_")
    sess.values["w"] = sess.values["w"] * 10
    second = os.path.basename(manager.save())
    assert manager.list_checkpoints() == [first, second] and second > first
    sess.values["w"] = np.zeros((2, 3), np.float32)
    manager.initialize_or_restore()  # restores the newest
    np.testing.assert_array_equal(sess.values["w"], _two_vars()["w"] * 10)


def test_simple_manager_lists_only_complete_prefixed_snapshots(tmp_path):
    root = tmp_path / "snaps"
    (root / "snapshot_1").mkdir(parents=True)
    (root / "snapshot_1" / "snapshot_done").write_bytes(b"")
    (root / "snapshot_2").mkdir()  # incomplete (no snapshot_done)
    (root / "other_3").mkdir()
    (root / "other_3" / "snapshot_done").write_bytes(b"")
    (root / "snapshot_4").write_text("a file")
    assert ckpt.SimpleCheckPointManager(root).list_checkpoints() == ["snapshot_1"]
    assert ckpt.SimpleCheckPointManager(root, prefix="other_").latest_checkpoint() == "other_3"


def test_simple_manager_root_must_be_a_directory(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(NotADirectoryError, match="root_path"):
        ckpt.SimpleCheckPointManager(tmp_path / "f")
