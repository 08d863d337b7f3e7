"""A save that fails or is killed never leaves a complete-looking or damaged checkpoint."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import flowjob.checkpoint as ckpt
from flowjob._src import _files
from flowjob._src.checkpoint import _oneflow_dir

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _values(n=12, fill=0.0):
    return {f"layer{i}-weight": np.full((8, 8), fill + i, np.float32) for i in range(n)}


def test_failure_mid_save_leaves_nothing(tmp_path, monkeypatch):
    (tmp_path / "m").mkdir()  # an empty target dir must stay as it was
    calls = []

    def failing_write(path, chunks):
        calls.append(path)
        if len(calls) == 7:
            raise OSError(28, "No space left on device")
        return _files.write_file(path, chunks)

    monkeypatch.setattr(_oneflow_dir, "write_file", failing_write)
    with pytest.raises(OSError, match="No space left"):
        ckpt.save(tmp_path / "m", _values())
    assert os.listdir(tmp_path) == ["m"] and os.listdir(tmp_path / "m") == []
    # The files were being written into a sibling, never into the target itself.
    assert all(os.path.dirname(os.path.dirname(p)) != str(tmp_path / "m") for p in calls)


def test_failure_mid_safetensors_save_leaves_nothing(tmp_path, monkeypatch):
    def broken(_arr):
        yield b"partial"
        raise RuntimeError("device lost")

    monkeypatch.setattr("flowjob._src.checkpoint._safetensors.value_chunks", broken)
    with pytest.raises(RuntimeError, match="device lost"):
        ckpt.save(tmp_path / "m.safetensors", _values(2), format="safetensors")
    assert os.listdir(tmp_path) == []


_KILLED_SAVE = textwrap.dedent("""
    import sys, time
    import numpy as np
    from flowjob._src.checkpoint import _oneflow_dir, _safetensors
    import flowjob.checkpoint as ckpt

    target, marker, fmt = sys.argv[1:4]
    done = []

    def announce_then_hang():
        done.append(1)
        if len(done) == 5:
            open(marker, "w").close()
            time.sleep(120)

    if fmt == "oneflow":
        real = _oneflow_dir.write_file
        def slow_write(path, chunks):
            real(path, chunks)
            announce_then_hang()
        _oneflow_dir.write_file = slow_write
    else:
        real = _safetensors.value_chunks
        def slow_chunks(value):
            announce_then_hang()
            yield from real(value)
        _safetensors.value_chunks = slow_chunks
    values = {f"layer{i}-weight": np.full((256, 256), 100.0 + i, np.float32) for i in range(12)}
    ckpt.save(target, values, format=fmt)
""")


def _save_and_sigkill(target, marker, fmt):
    env = dict(
        os.environ,
        PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""),
        JAX_PLATFORMS="cpu",
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", _KILLED_SAVE, str(target), str(marker), fmt],
        env=env,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            if proc.poll() is not None:
                pytest.fail(f"save process exited early: {proc.stderr.read().decode()}")
            assert time.monotonic() < deadline, "save process never reached the middle"
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        assert proc.wait(30) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_sigkill_mid_save_keeps_previous_checkpoint(tmp_path):
    root = tmp_path / "snapshots"
    manager = ckpt.SimpleCheckPointManager(root)
    old = root / "snapshot_20240101_000000_000000"
    previous = _values(fill=1.0)
    ckpt.save(old, previous)
    new = root / "snapshot_20990101_000000_000000"
    _save_and_sigkill(new, tmp_path / "marker", "oneflow")

    assert not new.exists()
    assert manager.list_checkpoints() == [old.name]
    assert manager.latest_checkpoint() == old.name
    loaded = ckpt.get(old)
    assert sorted(loaded) == sorted(previous)
    for name, arr in previous.items():
        np.testing.assert_array_equal(loaded[name].numpy(), arr)
    # The killed save did get part way: its partial files sit in a hidden sibling that no
    # reader mistakes for a checkpoint.
    leftovers = [n for n in os.listdir(root) if n != old.name]
    assert len(leftovers) == 1 and leftovers[0].startswith("." + new.name)
    assert not (root / leftovers[0] / "snapshot_done").exists()
    with pytest.raises(ckpt.CheckpointError) as info:  # the root of snapshots: no checkpoint
        ckpt.get(root)
    assert leftovers[0] not in str(info.value) and "snapshot_done" in str(info.value)


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_sigkill_mid_safetensors_save_leaves_no_file(tmp_path):
    target = tmp_path / "model.safetensors"
    _save_and_sigkill(target, tmp_path / "marker", "safetensors")
    assert not target.exists()
    leftovers = [n for n in os.listdir(tmp_path) if n != "marker"]
    assert len(leftovers) == 1 and leftovers[0].startswith(".model.safetensors.")
