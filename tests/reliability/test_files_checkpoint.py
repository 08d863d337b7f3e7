"""Checkpoint files are read bounded (size limits before whole reads, regular files only) and
the staging folders of killed saves are reported and removed by the next save."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from reliability_helpers import REPO, child_env

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.cli import doctor
from flowjob.checkpoint import CheckpointError

GIB = 1 << 30

# A child under a 3 GiB address-space limit: reading a 20 GiB file whole fails there with a
# MemoryError instead of taking the shared machine's memory.
_BOUNDED = textwrap.dedent("""
    import resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
    import warnings; warnings.simplefilter("ignore")
    import flowjob as flow
    import flowjob.typing as tp
    from flowjob._src.cli import doctor

    what, path = sys.argv[1:3]
    if what == "doctor":
        report = doctor.Report()
        doctor.check_checkpoint(path, report)
        print("\\n".join(report.lines))
    elif what == "get":
        try:
            print(flow.checkpoint.get(path))
        except flow.checkpoint.CheckpointError as exc:
            print("CheckpointError:", exc)
    else:
        @flow.global_function()
        def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
            return x + flow.get_variable("w", shape=(3,), initializer=flow.zeros_initializer())
        try:
            flow.train.CheckPoint().load(path)
        except flow.checkpoint.CheckpointError as exc:
            print("CheckpointError:", exc)
""")


def _bounded(what: str, path) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", _BOUNDED, what, str(path)],
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=300,
        cwd=str(REPO),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "MemoryError" not in proc.stdout + proc.stderr
    return proc.stdout


@pytest.fixture
def ckpt(tmp_path):
    path = tmp_path / "ckpt"
    flow.checkpoint.save(path, {"w": np.arange(3, dtype=np.float32)})
    return path


@pytest.mark.parametrize("what", ["doctor", "get", "load"])
def test_a_20_gib_sparse_meta_is_refused_before_reading(ckpt, what):
    with open(ckpt / "w" / "meta", "r+b") as f:
        f.truncate(20 * GIB)
    out = _bounded(what, ckpt)
    meta = ckpt / "w" / "meta"
    assert f"meta file {meta} is {20 * GIB} bytes, more than the" in out, out
    if what == "doctor":
        assert f"DAMAGED {ckpt / 'w'}:" in out


def test_a_fifo_meta_is_damage_and_an_error(ckpt):
    meta = ckpt / "w" / "meta"
    meta.unlink()
    os.mkfifo(meta)
    report = doctor.Report()
    doctor.check_checkpoint(str(ckpt), report)
    assert report.damaged == 1, report.lines  # was: a healthy "legacy snapshot" warning
    assert f"meta file {meta} is a FIFO (named pipe), not a regular file" in report.lines[0]
    with pytest.raises(CheckpointError, match="is a FIFO"):
        flow.checkpoint.get(str(ckpt))


def test_a_fifo_out_file_is_named(ckpt):
    out = ckpt / "w" / "out"
    out.unlink()
    os.mkfifo(out)
    with pytest.raises(CheckpointError, match=f"variable data file {out} is a FIFO"):
        flow.checkpoint.get(str(ckpt))


def test_doctor_checks_a_huge_safetensors_file_without_reading_tensors(tmp_path):
    path = tmp_path / "big.safetensors"
    nbytes = 8 * GIB
    header = {"w": {"dtype": "F32", "shape": [nbytes // 4], "data_offsets": [0, nbytes]}}
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little") + text)
        f.truncate(8 + len(text) + nbytes)  # sparse: no disk used
    out = _bounded("doctor", path)
    assert f"OK      {path}: safetensors, 1 tensor(s)" in out, out
    with open(path, "r+b") as f:
        f.truncate(8 + len(text) + nbytes - 4)
    report = doctor.Report()
    doctor.check_checkpoint(str(path), report)
    assert report.damaged == 1 and "outside the" in report.lines[0]


def _leftover(parent, base):
    path = parent / f".{base}.0123456789ab.tmp"
    (path / "w").mkdir(parents=True)
    return path


def test_leftover_of_a_killed_save_is_reported_then_removed_by_the_next_save(tmp_path):
    leftover = _leftover(tmp_path, "ckpt")
    report = doctor.Report()
    doctor.check_checkpoint(str(tmp_path / "ckpt"), report)
    assert f"WARNING {leftover}: temporary directory left by an interrupted save" in "\n".join(
        report.lines
    )
    flow.checkpoint.save(tmp_path / "ckpt", {"w": np.ones(2, np.float32)})
    assert sorted(os.listdir(tmp_path)) == ["ckpt"]


def test_a_save_in_progress_is_neither_reported_nor_removed(tmp_path):
    busy = _leftover(tmp_path, "ckpt")
    fd = os.open(busy, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # as a live writer holds its staging folder
        flow.checkpoint.save(tmp_path / "ckpt", {"w": np.ones(2, np.float32)})
        assert busy.is_dir()
        report = doctor.Report()
        doctor.check_checkpoint(str(tmp_path / "ckpt"), report)
        assert report.warnings == 0, report.lines
    finally:
        os.close(fd)


def test_checkpoint_folders_follow_the_umask(fresh_session, tmp_path):
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        return x + flow.get_variable("w", shape=(3,), initializer=flow.zeros_initializer())

    flow.checkpoint.save(tmp_path / "c")
    mask = os.umask(0)
    os.umask(mask)
    assert os.stat(tmp_path / "c").st_mode & 0o777 == 0o777 & ~mask
