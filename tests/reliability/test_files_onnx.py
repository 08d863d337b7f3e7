"""ONNX export is staged and renamed: a SIGKILL mid-write leaves the previous model intact."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
from reliability_helpers import child_env

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.export import ExportError

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

# The child exports a small job; every write into the target's folder is slowed down: half of
# the first write lands, a marker file appears, then the child sleeps until it is killed.
_KILLED_EXPORT = textwrap.dedent("""
    import builtins, os, sys, time
    import flowjob as flow
    import flowjob.typing as tp

    target, marker = sys.argv[1:3]
    folder = os.path.dirname(os.path.abspath(target))
    real_open = builtins.open

    class Slow:
        def __init__(self, f):
            self.f = f
        def write(self, data):
            half = len(data) // 2
            self.f.write(data[:half])
            self.f.flush()
            real_open(marker, "w").close()
            time.sleep(120)
        def __getattr__(self, name):
            return getattr(self.f, name)
        def __enter__(self):
            return self
        def __exit__(self, *exc):
            return self.f.__exit__(*exc)

    def slow_open(file, mode="r", *args, **kw):
        f = real_open(file, mode, *args, **kw)
        where = os.path.dirname(os.path.abspath(file)) if isinstance(file, str) else folder
        if ("w" in mode or "x" in mode) and where == folder:
            return Slow(f)
        return f

    @flow.global_function(type="predict")
    def job(x: tp.Numpy.Placeholder((4, 64))) -> tp.Numpy:
        return flow.layers.dense(x, 256, name="big")

    builtins.open = slow_open
    flow.onnx.export(job, None, target)
""")


def _job():
    @flow.global_function(type="predict")
    def job(x: tp.Numpy.Placeholder((4, 64))) -> tp.Numpy:
        return flow.layers.dense(x, 256, name="big")

    return job


def test_sigkill_mid_export_leaves_the_previous_model(tmp_path):
    flow.clear_default_session()
    target = tmp_path / "model.onnx"
    flow.onnx.export(_job(), None, str(target))
    good = target.read_bytes()
    marker = tmp_path / "writing"
    child = subprocess.Popen(
        [sys.executable, "-c", _KILLED_EXPORT, str(target), str(marker)],
        env=child_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120
        while not marker.exists():
            assert child.poll() is None, child.communicate()[1].decode()[-2000:]
            assert time.monotonic() < deadline, "the child never started writing"
            time.sleep(0.05)
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait(timeout=30)
    assert target.read_bytes() == good  # the previous model, whole
    leftovers = [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]
    assert len(leftovers) == 1 and leftovers[0].startswith(".model.onnx.")
    # the next export to the same place removes what the killed one left
    flow.onnx.export(_job(), None, str(target))
    assert sorted(os.listdir(tmp_path)) == ["model.onnx", "writing"]
    x = np.ones((4, 64), np.float32)
    sess = ort.InferenceSession(str(target), providers=["CPUExecutionProvider"])
    assert sess.run(None, {"x": x})[0].shape == (4, 256)
    assert oct(target.stat().st_mode & 0o777) == oct(0o666 & ~_umask())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_export_to_a_directory_is_a_clear_error(tmp_path):
    flow.clear_default_session()
    with pytest.raises(ExportError, match=f"onnx_filename {tmp_path} is a directory"):
        flow.onnx.export(_job(), None, str(tmp_path))
    assert os.listdir(tmp_path) == []


def test_external_data_export_is_staged_too(tmp_path):
    flow.clear_default_session()
    target = tmp_path / "m.onnx"
    flow.onnx.export(_job(), None, str(target), external_data=True)
    assert sorted(os.listdir(tmp_path)) == ["m.onnx", "m.onnx.data"]
    sess = ort.InferenceSession(str(target), providers=["CPUExecutionProvider"])
    assert sess.run(None, {"x": np.ones((4, 64), np.float32)})[0].shape == (4, 256)
