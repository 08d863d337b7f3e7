"""``flowjob export``: program + checkpoint -> saved model and ONNX, checked against NumPy."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from export_zoo import REPO

import flowjob as flow
from tests.timeouts import scaled

PROGRAM = """
import oneflow as flow
import oneflow.typing as tp

@flow.global_function(type="predict")
def predict(x: tp.Numpy.Placeholder((8, 4))) -> tp.Numpy:
    h = flow.layers.dense(x, 16, activation=flow.nn.relu, name="h")
    return flow.nn.softmax(flow.layers.dense(h, 3, name="out"))

@flow.global_function(type="predict")
def other(x: tp.Numpy.Placeholder((8, 4))) -> tp.Numpy:
    return x * 2.0

if __name__ == "__main__":
    raise SystemExit("the program's main part must not run")
"""


def _cli(tmp_path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=str(REPO))
    return subprocess.run(
        [sys.executable, "-m", "flowjob", "export", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=scaled(300),
    )


def test_export_command(tmp_path):
    (tmp_path / "prog.py").write_text(PROGRAM)
    rng = np.random.default_rng(0)
    values = {
        "h-weight": rng.standard_normal((16, 4)),
        "h-bias": rng.standard_normal(16),
        "out-weight": rng.standard_normal((3, 16)),
        "out-bias": rng.standard_normal(3),
    }
    values = {k: v.astype(np.float32) for k, v in values.items()}
    flow.checkpoint.save(str(tmp_path / "ckpt.safetensors"), values, format="safetensors")

    proc = _cli(tmp_path, "prog.py")
    assert proc.returncode == 2 and "nothing to write" in proc.stderr
    proc = _cli(tmp_path, "prog.py", "--saved-model", "sm", "--onnx", "m.onnx")
    assert proc.returncode == 1 and "defines 2 predict jobs (predict, other)" in proc.stderr
    proc = _cli(
        tmp_path,
        "prog.py",
        "--job",
        "predict",
        "--checkpoint",
        "ckpt.safetensors",
        "--saved-model",
        "sm",
        "--version",
        "7",
        "--onnx",
        "m.onnx",
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    for expected in (
        "loading program prog.py",
        "exporting job 'predict'",
        "loading variables from ckpt.safetensors",
        "writing saved model sm/7",
        "saved model written: inputs x [8, 4] float32; any batch size",
        "writing ONNX model m.onnx",
        "ONNX model written",
    ):
        assert any(expected in line for line in lines), (expected, lines)

    x = rng.standard_normal((8, 4)).astype(np.float32)
    logits = (
        np.maximum(x @ values["h-weight"].T + values["h-bias"], 0) @ values["out-weight"].T
        + values["out-bias"]
    )
    expected = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    served = flow.saved_model.load(tmp_path / "sm")
    np.testing.assert_allclose(served(x), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(served(x[:3]), expected[:3], rtol=1e-5, atol=1e-6)
    ort = pytest.importorskip("onnxruntime")
    [out] = ort.InferenceSession(str(tmp_path / "m.onnx")).run(None, {"x": x})
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
