"""safetensors files, checked against the ``safetensors`` package in both directions."""

from __future__ import annotations

import json
import struct

import jax.numpy as jnp
import numpy as np
import pytest
import safetensors.flax
import safetensors.numpy

import flowjob.checkpoint as ckpt
from flowjob._src import _dtypes
from flowjob.checkpoint import CheckpointError, VariableBlob


def test_saved_file_reads_with_the_reference_library(tmp_path, make_session, sample_values):
    make_session(sample_values)
    path = tmp_path / "model.safetensors"
    ckpt.save(path, format="safetensors")
    numpy_side = {k: v for k, v in sample_values.items() if k != "brain"}  # no bf16 in NumPy
    # NumPy has no bfloat16, so safetensors.numpy cannot read this file: use the JAX reader.
    ref = safetensors.flax.load_file(str(path))
    assert sorted(ref) == sorted(sample_values)
    for name, arr in sample_values.items():
        assert np.asarray(ref[name]).dtype == arr.dtype, name
        np.testing.assert_array_equal(np.asarray(ref[name]), arr)
    ckpt.save(tmp_path / "np.safetensors", numpy_side, format="safetensors")
    ref_np = safetensors.numpy.load_file(str(tmp_path / "np.safetensors"))
    assert sorted(ref_np) == sorted(numpy_side)
    for name, arr in numpy_side.items():
        assert ref_np[name].dtype == arr.dtype
        np.testing.assert_array_equal(ref_np[name], arr)


def test_reads_files_written_by_the_reference_library(tmp_path, make_session):
    rng = np.random.default_rng(1)
    written = {
        "w": rng.standard_normal((3, 4)).astype(np.float32),
        "b": rng.standard_normal(4).astype(np.float64),
        "h": rng.standard_normal((2, 1, 2)).astype(np.float16),
        "i8": rng.integers(-5, 5, 6, dtype=np.int8),
        "i32": rng.integers(-5, 5, (2, 2), dtype=np.int32),
        "i64": np.array([2**40], dtype=np.int64),
        "u8": rng.integers(0, 255, 3, dtype=np.uint8),
        "s": np.array(1.25, dtype=np.float32),
    }
    path = tmp_path / "ref.safetensors"
    safetensors.numpy.save_file(written, str(path), metadata={"format": "np"})
    loaded = ckpt.get(path)
    assert sorted(loaded) == sorted(written)
    for name, arr in written.items():
        blob = loaded[name]
        assert isinstance(blob, VariableBlob)
        assert blob.shape == arr.shape and blob.dtype == _dtypes.as_dtype(arr.dtype)
        np.testing.assert_array_equal(blob.numpy(), arr)
    sess = make_session({"w": np.zeros((3, 4), np.float32), "other": np.zeros(2, np.int32)})
    with pytest.warns(UserWarning, match="'other'.*kept"):  # the file has no "other"
        ckpt.load_variables(loaded)
    np.testing.assert_array_equal(sess.values["w"], written["w"])


def test_reads_bf16_written_by_the_reference_library(tmp_path):
    arr = jnp.linspace(-3, 3, 12, dtype=jnp.bfloat16).reshape(3, 4)
    safetensors.flax.save_file({"x": arr}, str(tmp_path / "bf.safetensors"))
    blob = ckpt.get(tmp_path / "bf.safetensors")["x"]
    assert blob.dtype == _dtypes.bfloat16
    np.testing.assert_array_equal(blob.numpy(), np.asarray(arr))


def test_empty_checkpoint_matches_the_reference_bytes(tmp_path):
    ckpt.save(tmp_path / "a.safetensors", {}, format="safetensors")
    safetensors.numpy.save_file({}, str(tmp_path / "b.safetensors"))
    assert (tmp_path / "a.safetensors").read_bytes() == (tmp_path / "b.safetensors").read_bytes()
    assert ckpt.get(tmp_path / "a.safetensors") == {}


def test_refuses_to_overwrite(tmp_path):
    path = tmp_path / "m.safetensors"
    path.write_bytes(b"precious")
    with pytest.raises(FileExistsError, match="never overwrites"):
        ckpt.save(path, {"w": np.ones(2, np.float32)}, format="safetensors")
    assert path.read_bytes() == b"precious"


def _header_file(path, header, data=b""):
    text = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(text)) + text + data)


@pytest.mark.parametrize(
    "case, needle",
    [
        ("short", "shorter than the 8-byte"),
        ("huge_header", "exceeds the file size"),
        ("not_json", "not JSON"),
        ("truncated_data", "outside"),
        ("wrong_size", "bytes for shape"),
        ("bad_shape", "shape"),
        ("u16", "'U16'"),
    ],
)
def test_corrupt_files_are_clear_errors(tmp_path, case, needle):
    path = tmp_path / "bad.safetensors"
    entry = {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}
    if case == "short":
        path.write_bytes(b"\x05\x00")
    elif case == "huge_header":
        path.write_bytes(struct.pack("<Q", 1 << 40) + b"{}")
    elif case == "not_json":
        path.write_bytes(struct.pack("<Q", 4) + b"{{{{")
    elif case == "truncated_data":
        _header_file(path, {"w": entry}, b"\0" * 10)
    elif case == "wrong_size":
        _header_file(path, {"w": dict(entry, shape=[3])}, b"\0" * 16)
    elif case == "bad_shape":
        _header_file(path, {"w": dict(entry, shape=[2, -2])}, b"\0" * 16)
    else:
        safetensors.numpy.save_file({"w": np.ones(3, np.uint16)}, str(path))
    with pytest.raises(CheckpointError) as info:
        ckpt.get(path)
    assert str(path) in str(info.value)
    assert needle in str(info.value)
