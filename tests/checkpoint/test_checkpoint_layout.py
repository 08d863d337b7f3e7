"""OneFlow's checkpoint directory: bytes on disk, reading back, legacy and corrupt snapshots."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import flowjob.checkpoint as ckpt
from flowjob._src import _dtypes
from flowjob.checkpoint import CheckpointError, FileBackendVariableBlob

pytestmark = pytest.mark.skipif(sys.byteorder != "little", reason="reference bytes are native")


def _files(root):
    return sorted(
        os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs
    )


def test_save_writes_oneflow_layout(tmp_path, make_session, sample_values):
    sess = make_session(sample_values)
    path = tmp_path / "model"
    ckpt.save(path)
    assert sess.calls[:2] == ["trace_all", "wait"]
    expected = sorted(
        [f"{n}/out" for n in sample_values]
        + [f"{n}/meta" for n in sample_values]
        + ["snapshot_done"]
    )
    assert _files(path) == expected
    assert (path / "snapshot_done").read_bytes() == b""
    for name, arr in sample_values.items():
        # Independent reference: NumPy's own C-order little-endian serialisation.
        assert (path / name / "out").read_bytes() == np.ascontiguousarray(arr).tobytes(), name
        dims = "".join(f"  dim: {d}\n" for d in arr.shape)
        enum = _dtypes.as_dtype(arr.dtype).oneflow_enum
        assert (path / name / "meta").read_text() == f"shape {{\n{dims}}}\ndata_type: {enum}\n"
    # No temporary sibling is left behind.
    assert os.listdir(tmp_path) == ["model"]


def test_get_reads_back_every_variable(tmp_path, make_session, sample_values):
    make_session(sample_values)
    ckpt.save(tmp_path / "m")
    (tmp_path / "m" / "not_a_variable").mkdir()
    (tmp_path / "m" / "stray.txt").write_text("x")
    loaded = ckpt.get(tmp_path / "m")
    assert sorted(loaded) == sorted(sample_values)
    for name, arr in sample_values.items():
        blob = loaded[name]
        assert isinstance(blob, FileBackendVariableBlob)
        assert blob.shape == arr.shape
        assert blob.dtype == _dtypes.as_dtype(arr.dtype)
        np.testing.assert_array_equal(blob.numpy(), arr)
        assert blob.numpy().dtype == arr.dtype
    single = ckpt.get(tmp_path / "m" / "dense1-weight")
    assert isinstance(single, FileBackendVariableBlob)
    np.testing.assert_array_equal(single.numpy(), sample_values["dense1-weight"])


def test_save_writes_c_order_for_strided_arrays(tmp_path):
    base = np.arange(24, dtype=np.int32).reshape(4, 6)
    values = {"t": base.T, "f": np.asfortranarray(base), "s": base[::2, 1::2]}
    ckpt.save(tmp_path / "m", values)
    for name, arr in values.items():
        assert (tmp_path / "m" / name / "out").read_bytes() == arr.tobytes(order="C")
        np.testing.assert_array_equal(ckpt.get(tmp_path / "m")[name].numpy(), arr)


def test_save_copies_file_backed_and_blob_values(tmp_path, make_session, sample_values):
    make_session(sample_values)
    ckpt.save(tmp_path / "a")
    mixed = dict(ckpt.get(tmp_path / "a"))
    mixed["dense1-bias"] = ckpt.get_all_variables()["dense1-bias"]
    ckpt.save(tmp_path / "b", mixed)
    for name in sample_values:
        for f in ("out", "meta"):
            copied = (tmp_path / "b" / name / f).read_bytes()
            assert copied == (tmp_path / "a" / name / f).read_bytes()


@pytest.mark.parametrize("kind", ["file", "non-empty dir"])
def test_save_refuses_existing_checkpoint(tmp_path, kind):
    target = tmp_path / "m"
    if kind == "file":
        target.write_text("precious")
    else:
        target.mkdir()
        (target / "keep").write_text("precious")
    with pytest.raises(FileExistsError, match="never overwrites") as info:
        ckpt.save(target, {"w": np.ones(2, np.float32)})
    assert str(target) in str(info.value)
    assert sorted(os.listdir(tmp_path)) == ["m"]
    assert (target if kind == "file" else target / "keep").read_text() == "precious"


def test_save_into_empty_directory(tmp_path):
    (tmp_path / "m").mkdir()
    ckpt.save(str(tmp_path / "m"), {"w": np.ones(2, np.float32)})
    assert _files(tmp_path / "m") == ["snapshot_done", "w/meta", "w/out"]


@pytest.mark.parametrize("bad", ["", ".", "..", "a/b", "snapshot_done"])
def test_save_refuses_names_that_are_not_directory_names(tmp_path, bad):
    with pytest.raises(CheckpointError, match="variable name"):
        ckpt.save(tmp_path / "m", {bad: np.ones(2, np.float32)})
    assert not (tmp_path / "m").exists()


def test_save_rejects_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="format"):
        ckpt.save(tmp_path / "m", {"w": np.ones(2, np.float32)}, format="npz")
    with pytest.raises(TypeError, match='"w".*list'):
        ckpt.save(tmp_path / "m", {"w": [1.0, 2.0]})
    with pytest.raises(CheckpointError, match='"w".*complex'):
        ckpt.save(tmp_path / "m", {"w": np.ones(2, np.complex64)})
    assert not (tmp_path / "m").exists()


def _legacy_dir(root, name, arr):
    (root / name).mkdir(parents=True)
    (root / name / "out").write_bytes(arr.tobytes())
    (root / "snapshot_done").write_bytes(b"")


def test_legacy_snapshot_without_meta_loads_with_target_spec(tmp_path, make_session):
    w = np.arange(6, dtype=np.float32).reshape(2, 3) / 7
    _legacy_dir(tmp_path, "w", w)
    sess = make_session({"w": np.zeros((2, 3), np.float32), "b": np.ones(3, np.float32)})
    blob = ckpt.get(tmp_path)["w"]
    assert blob.shape is None and blob.dtype is None and not blob.has_meta_info
    with pytest.raises(CheckpointError, match="does not have meta info"):
        blob.numpy()
    with pytest.raises(CheckpointError, match="no meta file"):
        ckpt.save(tmp_path / "copy", {"w": blob})
    with pytest.warns(UserWarning, match="'b'.*kept"):  # the snapshot has no "b"
        ckpt.load_variables(ckpt.get(tmp_path))
    np.testing.assert_array_equal(sess.values["w"], w)
    np.testing.assert_array_equal(sess.values["b"], np.ones(3, np.float32))


def test_legacy_snapshot_of_wrong_size_names_the_file(tmp_path, make_session):
    _legacy_dir(tmp_path, "w", np.zeros(5, np.float32))
    sess = make_session({"w": np.zeros((2, 3), np.float32)})
    with pytest.raises(CheckpointError) as info:
        ckpt.load_variables(ckpt.get(tmp_path))
    assert os.path.join(str(tmp_path), "w", "out") in str(info.value)
    assert "20 bytes" in str(info.value) and "24 bytes" in str(info.value)
    assert sess.values["w"].sum() == 0


def test_truncated_out_is_a_clear_error(tmp_path):
    ckpt.save(tmp_path / "m", {"w": np.ones((4, 4), np.float64)})
    out = tmp_path / "m" / "w" / "out"
    out.write_bytes(out.read_bytes()[:-3])
    with pytest.raises(CheckpointError) as info:
        ckpt.get(tmp_path / "m")
    assert str(out) in str(info.value) and "truncated" in str(info.value)


def test_unparsable_meta_is_a_clear_error(tmp_path):
    ckpt.save(tmp_path / "m", {"w": np.ones(3, np.float32)})
    meta = tmp_path / "m" / "w" / "meta"
    meta.write_text("shape {\n  dim: 3\n}\ndata_type: kFloat32\n")
    with pytest.raises(CheckpointError) as info:
        ckpt.get(tmp_path / "m")
    assert str(meta) in str(info.value) and "kFloat32" in str(info.value)
    meta.write_bytes(b"\xff\xfe garbage")
    with pytest.raises(CheckpointError, match="meta"):
        ckpt.get(tmp_path / "m")


def test_get_of_a_missing_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        ckpt.get(tmp_path / "nothing")
