"""Checkpoints with the real runtime: jobs, optimizer slots, fresh processes, SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob.checkpoint import CheckpointError
from tests.timeouts import scaled

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CHILD = os.path.join(HERE, "_session_child.py")


def _child(*args, wait=True):
    env = dict(
        os.environ,
        PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""),
        JAX_PLATFORMS="cpu",
    )
    proc = subprocess.Popen(
        [sys.executable, CHILD, *map(str, args)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    if not wait:
        return proc
    out, err = proc.communicate(timeout=scaled(120))
    assert proc.returncode == 0, f"child {args[0]} failed:\n{out}\n{err}"
    return proc


def test_checkpoint_reloaded_in_fresh_process_predicts_identically(tmp_path):
    ckpt_dir = tmp_path / "mlp_models_1"
    _child("train_save", ckpt_dir, tmp_path / "a.npz")
    a = np.load(tmp_path / "a.npz")
    # Every variable of every job is saved, optimizer slots and the train step included.
    saved = sorted(n for n in os.listdir(ckpt_dir) if n != "snapshot_done")
    assert saved == sorted(a["names"].tolist())
    assert {
        "hidden-weight",
        "hidden-weight-momentum",
        "output-bias-momentum",
        "System-Train-TrainStep-train_job",
    } <= set(saved)
    assert (ckpt_dir / "snapshot_done").is_file()
    assert flow.checkpoint.get(ckpt_dir)["System-Train-TrainStep-train_job"].numpy() == 5
    _child("load", ckpt_dir, tmp_path / "b.npz")
    b = np.load(tmp_path / "b.npz")
    assert not np.allclose(b["initial"], a["pred"])  # the fresh process did start elsewhere
    np.testing.assert_array_equal(b["pred"], a["pred"])
    np.testing.assert_array_equal(b["step"], a["step"])
    # Momentum slots and step were restored too: the next training step matches exactly.
    np.testing.assert_array_equal(b["next_loss"], a["next_loss"])


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_sigkill_during_save_keeps_previous_snapshot(tmp_path):
    root = tmp_path / "snapshots"
    marker = tmp_path / "marker"
    proc = _child("kill_mid_save", root, tmp_path / "a.npz", marker, wait=False)
    try:
        deadline = time.monotonic() + 120
        while not marker.exists():
            if proc.poll() is not None:
                pytest.fail("child exited before the second save:\n" + proc.stderr.read())
            assert time.monotonic() < deadline, "child never reached the second save"
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(30) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    manager = flow.train.SimpleCheckPointManager(root)
    complete = manager.list_checkpoints()
    assert len(complete) == 1
    visible = [n for n in os.listdir(root) if not n.startswith(".")]
    assert visible == complete  # the killed save left nothing that looks like a snapshot
    assert any(n.startswith(".snapshot_") for n in os.listdir(root))  # it was killed mid-save
    _child("restore", root, tmp_path / "b.npz")
    a, b = np.load(tmp_path / "a.npz"), np.load(tmp_path / "b.npz")
    assert str(b["latest"]) == complete[0]
    np.testing.assert_array_equal(b["pred"], a["pred"])
    np.testing.assert_array_equal(b["step"], a["step"])


def _define_job():
    @flow.global_function(type="predict")
    def affine(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        w = flow.get_variable(
            "affine-w", shape=(3, 4), initializer=flow.random_normal_initializer()
        )
        b = flow.get_variable("affine-b", shape=(4,), initializer=flow.constant_initializer(0.5))
        return x @ w + b

    return affine


def test_load_variables_checks_against_real_variables(fresh_session):
    affine = _define_job()
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    before = flow.get_all_variables()
    assert sorted(before) == ["affine-b", "affine-w"]
    w0 = before["affine-w"].numpy()
    np.testing.assert_array_equal(before["affine-b"].numpy(), np.full(4, 0.5, np.float32))
    with pytest.raises(CheckpointError, match=r'"affine-w".*\(3, 4\) vs \(4, 3\)'):
        flow.load_variables({"affine-w": np.ones((4, 3), np.float32)})
    with pytest.raises(CheckpointError, match='"affine-b".*float32 vs float64'):
        flow.load_variables({"affine-b": np.ones(4)})
    with pytest.raises(CheckpointError, match='"nope" is not a variable name'):
        flow.load_variables({"nope": np.ones(1)}, ignore_mismatch=False)
    # Partial dicts (fine-tuning) replace only what they name.
    new_b = np.array([1, 2, 3, 4], np.float32)
    flow.load_variables({"affine-b": new_b, "nope": np.ones(1)})
    np.testing.assert_allclose(affine(x), x @ w0 + new_b, rtol=1e-6)
    np.testing.assert_array_equal(flow.get_all_variables()["affine-w"].numpy(), w0)


def test_get_all_variables_is_a_snapshot_of_a_training_session(fresh_session):
    @flow.global_function(type="train")
    def fit(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
        w = flow.get_variable("fit-w", shape=(3, 2), initializer=flow.random_normal_initializer())
        loss = x @ w
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0.9
        ).minimize(loss)
        return loss

    x = np.ones((4, 3), np.float32)
    fit(x)
    snap = flow.get_all_variables()
    assert snap["System-Train-TrainStep-fit"].numpy() == 1
    w1 = snap["fit-w"].numpy()
    for _ in range(3):
        fit(x)  # train steps donate the variable buffers; the snapshot must not see that
    now = flow.get_all_variables()
    np.testing.assert_array_equal(snap["fit-w"].numpy(), w1)
    np.testing.assert_array_equal(np.asarray(snap["fit-w"]), w1)
    assert now["System-Train-TrainStep-fit"].numpy() == 4
    # The live values moved on: d(sum loss)/dw = 4 everywhere, scaled by 1/8 elements = 0.5;
    # momentum v = 0.9 v - 0.1 * 0.5 gives steps -0.095, -0.1355, -0.17195 after the first.
    np.testing.assert_allclose(now["fit-w"].numpy(), w1 - (0.095 + 0.1355 + 0.17195), rtol=1e-5)


def test_save_and_get_with_real_session(tmp_path, fresh_session):
    affine = _define_job()
    x = np.ones((2, 3), np.float32)
    expected = affine(x)
    flow.checkpoint.save(tmp_path / "m.safetensors", format="safetensors")
    flow.save(flow.get_all_variables(), str(tmp_path / "m"))  # OneFlow's (obj, save_dir) order
    flow.load_variables(
        {"affine-w": np.zeros((3, 4), np.float32), "affine-b": np.zeros(4, np.float32)}
    )
    np.testing.assert_array_equal(affine(x), np.zeros((2, 4), np.float32))
    flow.load_variables(flow.checkpoint.get(tmp_path / "m.safetensors"))
    np.testing.assert_array_equal(affine(x), expected)
    flow.load_variables({"affine-b": np.zeros(4, np.float32)})
    flow.load_variables(flow.load(str(tmp_path / "m")))
    np.testing.assert_array_equal(affine(x), expected)
