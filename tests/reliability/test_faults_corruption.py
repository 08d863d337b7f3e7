"""Truncated and bit-flipped event files and checkpoints.

Event files: every single-bit flip is caught by the record CRCs (flowjob's reader raises
``RecordCorruptError`` with the offset; TensorBoard reads the records before it and stops),
and a cut anywhere leaves a readable prefix. Checkpoints: a truncated ``out``, or a meta /
safetensors header that no longer matches the data, is a ``CheckpointError`` naming the file.
The formats have no checksum over tensor bytes, so a flip inside the data is not detectable
(documented, not tested as an error).
"""

from __future__ import annotations

import os
import shutil
import tempfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reliability_helpers import tb_events

import flowjob.checkpoint as ckpt
from flowjob._src.cli import doctor
from flowjob.summary import RecordCorruptError, SummaryWriter, read_records

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def _report(path, kind: str) -> doctor.Report:
    report = doctor.Report()
    (doctor.check_event_file if kind == "events" else doctor.check_checkpoint)(str(path), report)
    return report


@pytest.fixture(scope="module")
def event_file():
    """An event file with 30 scalars, a histogram and a text, as bytes plus its events."""
    with tempfile.TemporaryDirectory() as d:
        with SummaryWriter(d) as w:
            for i in range(30):
                w.scalar("loss/ü", 1.0 / (i + 1), i)
            w.histogram("h", np.arange(100), 30)
            w.text("t", "hello", 31)
        (name,) = os.listdir(d)
        with open(os.path.join(d, name), "rb") as f:
            data = f.read()
        events = [e.SerializeToString() for e in tb_events(os.path.join(d, name))]
    return data, events


def _write(tmp_dir: str, data: bytes) -> str:
    path = os.path.join(tmp_dir, "events.out.tfevents.1.host.1.0")
    with open(path, "wb") as f:
        f.write(data)
    return path


@SETTINGS
@given(bit=st.integers(0, 10**9))
def test_any_bit_flip_in_an_event_file_is_detected(event_file, bit):
    data, events = event_file
    bit %= len(data) * 8
    flipped = bytearray(data)
    flipped[bit // 8] ^= 1 << (bit % 8)
    with tempfile.TemporaryDirectory() as d:
        path = _write(d, bytes(flipped))
        with (
            open(path, "rb") as f,
            pytest.raises(RecordCorruptError, match=r"record at offset \d+"),
        ):
            list(read_records(f, strict=True))
        # TensorBoard reads the intact records before the damaged one, then stops.
        read = [e.SerializeToString() for e in tb_events(path)]
        assert read == events[: len(read)] and len(read) < len(events)
        report = _report(path, "events")
        assert report.damaged == 1 and report.lines[0].startswith(f"DAMAGED {path}: record at")


@SETTINGS
@given(cut=st.integers(0, 10**9))
def test_an_event_file_cut_anywhere_reads_as_a_prefix(event_file, cut):
    data, events = event_file
    cut %= len(data) + 1
    with tempfile.TemporaryDirectory() as d:
        path = _write(d, data[:cut])
        with open(path, "rb") as f:
            ours = list(read_records(f, strict=True))
            stopped_at = f.tell()
        read = [e.SerializeToString() for e in tb_events(path)]
        assert read == events[: len(read)] and len(ours) == len(read)
        report = _report(path, "events")
        assert report.damaged == 0
        if stopped_at < cut:
            assert (
                report.warnings == 1
                and f"torn tail: the last {cut - stopped_at} byte" in report.lines[0]
            )
        elif cut == 0:
            assert "empty event file" in report.lines[0]
        else:
            assert report.lines == [f"OK      {path}: {len(read)} record(s)"]


# --- checkpoints ------------------------------------------------------------------------------
VALUES = {
    "dense-weight": np.arange(12, dtype=np.float32).reshape(3, 4),
    "dense-bias": np.array([1.5, -2.0, 3.25], np.float64),
    "step": np.array([7], np.int64),
}


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    root = tmp_path_factory.mktemp("saved")
    ckpt.save(root / "dir", VALUES)
    ckpt.save(root / "one.safetensors", VALUES, format="safetensors")
    return root


def _copy(saved, name: str, dest) -> str:
    src, dst = saved / name, os.path.join(dest, name)
    (shutil.copytree if src.is_dir() else shutil.copyfile)(src, dst)
    return dst


@pytest.mark.parametrize("var", sorted(VALUES))
@pytest.mark.parametrize("keep", [0, 1, -1])
def test_truncated_variable_is_an_error_naming_its_file(saved, tmp_path, var, keep):
    path = _copy(saved, "dir", tmp_path)
    out = os.path.join(path, var, "out")
    size = os.path.getsize(out)
    os.truncate(out, keep % size)
    with pytest.raises(ckpt.CheckpointError, match=rf"{out}: holds {keep % size} bytes but"):
        ckpt.get(path)
    report = _report(path, "checkpoint")
    assert report.damaged == 1 and report.lines[0].startswith(f"DAMAGED {os.path.join(path, var)}")


def test_missing_snapshot_done_or_data_file(saved, tmp_path):
    path = _copy(saved, "dir", tmp_path)
    os.remove(os.path.join(path, "snapshot_done"))
    os.remove(os.path.join(path, "step", "out"))
    report = _report(path, "checkpoint")
    assert report.damaged == 2
    text = "\n".join(report.lines)
    assert f"DAMAGED {os.path.join(path, 'step')}: has a meta file but no 'out'" in text
    assert f"DAMAGED {path}: no 'snapshot_done' file: the save did not complete" in text


@SETTINGS
@given(var=st.sampled_from(sorted(VALUES)), bit=st.integers(0, 10**6))
def test_bit_flip_in_meta_is_an_error_or_harmless(saved, var, bit):
    with tempfile.TemporaryDirectory() as d:
        path = _copy(saved, "dir", d)
        meta = os.path.join(path, var, "meta")
        with open(meta, "rb") as f:
            data = bytearray(f.read())
        bit %= len(data) * 8
        data[bit // 8] ^= 1 << (bit % 8)
        with open(meta, "wb") as f:
            f.write(data)
        try:
            loaded = ckpt.get(path)
        except ckpt.CheckpointError as exc:
            assert os.path.join(path, var) in str(exc)  # names the meta or the out file
            assert _report(path, "checkpoint").damaged == 1
            return
        # The flip kept the meta valid (e.g. one whitespace for another): the same variable.
        np.testing.assert_array_equal(loaded[var].numpy(), VALUES[var])
        assert loaded[var].numpy().dtype == VALUES[var].dtype
        assert _report(path, "checkpoint").damaged == 0


@SETTINGS
@given(bit=st.integers(0, 10**6), header_only=st.booleans())
def test_bit_flip_in_safetensors_header_is_an_error_or_well_formed(saved, bit, header_only):
    with tempfile.TemporaryDirectory() as d:
        path = _copy(saved, "one.safetensors", d)
        with open(path, "rb") as f:
            data = bytearray(f.read())
        n = 8 + int.from_bytes(data[:8], "little")
        bit %= (n if header_only else len(data)) * 8
        data[bit // 8] ^= 1 << (bit % 8)
        with open(path, "wb") as f:
            f.write(data)
        try:
            loaded = ckpt.get(path)
        except ckpt.CheckpointError as exc:
            assert path in str(exc)
            assert _report(path, "checkpoint").damaged == 1
            return
        # Still well-formed: every tensor has the size its header promises (a flip in a name,
        # in JSON padding or in the data itself cannot be detected: the format has no checksum).
        assert len(loaded) == len(VALUES)
        for blob in loaded.values():
            assert blob.numpy().shape == blob.shape
        assert _report(path, "checkpoint").damaged == 0


@pytest.mark.parametrize("keep", [0, 4, 8, 60, -1])
def test_truncated_safetensors_is_an_error_naming_the_file(saved, tmp_path, keep):
    path = _copy(saved, "one.safetensors", tmp_path)
    size = os.path.getsize(path)
    os.truncate(path, keep % size)
    with pytest.raises(ckpt.CheckpointError, match=rf"{path}: not a valid safetensors file"):
        ckpt.get(path)
    assert _report(path, "checkpoint").damaged == 1
