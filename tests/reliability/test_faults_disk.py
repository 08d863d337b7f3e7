"""A full disk (or a file-size limit) while logging and while saving checkpoints.

Three ways to run out of space, from most to least portable: a writer whose writes stop
part-way with ENOSPC (patched file objects), a real kernel limit (``RLIMIT_FSIZE`` in a child:
EFBIG), and a real 1 MiB tmpfs (needs root; skipped otherwise). In every case the error is
clear, records written before it stay readable, and no partial checkpoint becomes visible.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from reliability_helpers import event_files, run_child, tb_scalars

import flowjob.checkpoint as ckpt
from flowjob._src import _files
from flowjob._src.cli import doctor
from flowjob._src.summary import EventWriteError, SummaryWriter, _event_writer
from tests.timeouts import scaled


class _FullDisk:
    """A file object that writes until ``budget[0]`` bytes are used, then writes what still
    fits and raises ENOSPC, as a real full disk does."""

    def __init__(self, f, budget: list[int]):
        self._f, self._budget = f, budget

    def write(self, data) -> int:
        data = bytes(data)
        n = min(len(data), self._budget[0])
        self._f.write(data[:n])
        self._f.flush()
        self._budget[0] -= n
        if n < len(data):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return n

    def __getattr__(self, name):
        return getattr(self._f, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._f.close()


def _doctor(**kw) -> doctor.Report:
    report = doctor.Report()
    for logdir in kw.get("logdirs", []):
        doctor.check_logdir(str(logdir), report)
    for path in kw.get("checkpoints", []):
        doctor.check_checkpoint(str(path), report)
    return report


def _log_until_error(w: SummaryWriter, limit: int = 200_000) -> tuple[OSError, int]:
    """Logs scalar i at step i, flushing every 100, until a call or flush raises an OSError;
    returns it and the last step whose flush succeeded."""
    flushed = -1
    for i in range(limit):
        try:
            w.scalar("x", float(i), i)  # raises at the first call after a failed write
            if i % 100 == 99:
                w.flush()
                flushed = i
        except OSError as exc:
            return exc, flushed
    raise AssertionError("the disk never filled up")


def _assert_prefix_readable(path, at_least: int) -> None:
    (points,) = tb_scalars(path).values()
    steps = [s for s, _ in points]
    assert steps == list(range(len(steps))) and steps[-1] >= at_least
    assert [v for _, v in points] == [float(s) for s in steps]


def test_logging_onto_a_full_disk(tmp_path, monkeypatch):
    budget = [20_000]
    real = _event_writer._create_file
    monkeypatch.setattr(
        _event_writer,
        "_create_file",
        lambda d, s: (lambda f, p: (_FullDisk(f, budget), p))(*real(d, s)),
    )
    w = SummaryWriter(tmp_path, flush_secs=60)
    err, flushed = _log_until_error(w)
    assert isinstance(err, EventWriteError) and err.errno == errno.ENOSPC
    assert w.path in str(err) and "records written before the failure are intact" in str(err)
    for i in range(10):  # later calls do not raise again (the disk is still full) ...
        w.scalar("x", -1.0, 10**6 + i)
    with pytest.raises(EventWriteError, match="10 record"):  # ... but close reports their loss
        w.close()
    assert flushed > 0
    _assert_prefix_readable(w.path, flushed)
    report = _doctor(logdirs=[tmp_path])  # the torn record was cut off: no torn tail
    assert report.damaged == 0 and report.warnings == 0, report.lines


def _patch_checkpoint_disk(monkeypatch, budget: list[int]) -> None:
    def limited_open(path, mode="r", *args, **kw):
        f = open(path, mode, *args, **kw)
        return _FullDisk(f, budget) if "b" in mode and ("x" in mode or "w" in mode) else f

    monkeypatch.setattr(_files, "open", limited_open, raising=False)


@pytest.mark.parametrize("fmt", ["oneflow", "safetensors"])
def test_saving_onto_a_full_disk_leaves_no_partial_checkpoint(tmp_path, monkeypatch, fmt):
    suffix = ".safetensors" if fmt == "safetensors" else ""
    ckpt.save(tmp_path / f"old{suffix}", {"w": np.arange(8, dtype=np.float32)}, format=fmt)
    budget = [300_000]
    _patch_checkpoint_disk(monkeypatch, budget)
    values = {f"v{i}": np.full((100, 100), i, np.float64) for i in range(6)}  # 480 kB
    with pytest.raises(OSError) as info:
        ckpt.save(tmp_path / f"new{suffix}", values, format=fmt)
    assert info.value.errno == errno.ENOSPC
    assert budget[0] == 0  # it did fail part-way through the data
    assert sorted(os.listdir(tmp_path)) == [f"old{suffix}"]  # no new, no temporary leftovers
    np.testing.assert_array_equal(ckpt.get(tmp_path / f"old{suffix}")["w"].numpy(), np.arange(8))
    assert _doctor(checkpoints=[tmp_path / f"old{suffix}"]).damaged == 0


@pytest.mark.parametrize("fmt", ["oneflow", "safetensors"])
def test_checkpoint_write_errors_name_the_checkpoint(tmp_path, monkeypatch, fmt):
    _patch_checkpoint_disk(monkeypatch, [1000])
    target = tmp_path / ("new.safetensors" if fmt == "safetensors" else "new")
    with pytest.raises(OSError, match=str(target)):
        ckpt.save(target, {"w": np.zeros(10_000, np.float32)}, format=fmt)


def test_real_file_size_limit_while_logging_and_saving(tmp_path):
    """RLIMIT_FSIZE makes the kernel refuse writes past 256 KiB (EFBIG) in a child."""
    logdir, ckpts, out = tmp_path / "logs", tmp_path / "ckpts", tmp_path / "result.json"
    run_child("fsize_limited", logdir, ckpts, 256 * 1024, out)
    result = json.loads(out.read_text())
    name, code, message = result["log_error"]
    assert name == "EventWriteError" and code == errno.EFBIG
    assert result["event_file"] in message
    _assert_prefix_readable(result["event_file"], result["flushed"])
    for key in ("save_error", "save_st_error"):
        assert result[key][1] == errno.EFBIG, result
    assert sorted(os.listdir(ckpts)) == ["small"]  # the failed saves left nothing behind
    np.testing.assert_array_equal(ckpt.get(ckpts / "small")["w"].numpy(), np.arange(16))
    report = _doctor(logdirs=[logdir], checkpoints=[ckpts])
    assert report.damaged == 0, report.lines


@pytest.fixture
def tiny_disk(tmp_path):
    """A real 1 MiB tmpfs (root only), unmounted afterwards."""
    mount = tmp_path / "disk"
    mount.mkdir()
    try:
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)],
            check=True,
            capture_output=True,
            timeout=scaled(30),
        )
    except (OSError, subprocess.SubprocessError) as exc:
        pytest.skip(f"cannot mount a tmpfs here ({exc})")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True, timeout=scaled(30))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="tmpfs is Linux")
def test_real_full_tmpfs_while_logging_and_saving(tiny_disk):
    ckpt.save(tiny_disk / "small", {"w": np.arange(16, dtype=np.float32)})
    w = SummaryWriter(tiny_disk / "logs", flush_secs=60)
    err, flushed = _log_until_error(w)
    assert isinstance(err, EventWriteError) and err.errno == errno.ENOSPC and w.path in str(err)
    try:
        w.close()
    except EventWriteError as exc:  # the failing call's own record found no space either
        assert "dropped" in str(exc)
    (path,) = event_files(tiny_disk / "logs")
    _assert_prefix_readable(path, flushed)
    with pytest.raises(OSError) as info:
        ckpt.save(tiny_disk / "big", {"w": np.zeros(4 << 20, np.uint8)})
    assert info.value.errno == errno.ENOSPC
    assert sorted(os.listdir(tiny_disk)) == ["logs", "small"]
    np.testing.assert_array_equal(ckpt.get(tiny_disk / "small")["w"].numpy(), np.arange(16))
    report = _doctor(logdirs=[tiny_disk / "logs"], checkpoints=[tiny_disk / "small"])
    assert report.damaged == 0, report.lines
