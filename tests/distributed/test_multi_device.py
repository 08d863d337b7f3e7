"""Data-parallel, model-parallel and mirrored training equal single-device training."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import numpy as np
import pytest

import flowjob as flow
from tests.subprocess_env import cpu_child_env
from tests.timeouts import scaled

SCRIPT = os.path.join(os.path.dirname(__file__), "_train_modes.py")


def _train(mode: str, devices: int, steps: int = 4, checkpoint: str | None = None) -> dict:
    extra = [checkpoint] if checkpoint else []
    out = subprocess.run(
        [sys.executable, SCRIPT, mode, str(devices), str(steps), *extra],
        env=cpu_child_env(),
        capture_output=True,
        text=True,
        timeout=scaled(300),
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def reference():
    return _train("single", 1)


@pytest.mark.parametrize(
    "mode,devices", [("data", 4), ("model", 4), ("mirrored", 4), ("data", 8), ("mirrored", 8)]
)
def test_parallel_training_matches_single_device_step_by_step(reference, mode, devices, tmp_path):
    result = _train(mode, devices, checkpoint=str(tmp_path / "ckpt"))
    assert result["devices"] == devices and result["mesh"] == devices
    if mode == "model":  # dense weight (units, in) split over the output units
        assert result["weight_spec"] == "P('d',)"
    for step, (got, want) in enumerate(zip(result["losses"], reference["losses"])):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=f"step {step}")
    assert set(result["params"]) == set(reference["params"])
    for name, value in reference["params"].items():
        np.testing.assert_allclose(
            result["params"][name], value, rtol=1e-4, atol=1e-5, err_msg=name
        )
    for key in ("hidden", "dlogits"):
        np.testing.assert_allclose(
            result["watched"][key], reference["watched"][key], rtol=1e-4, atol=1e-5, err_msg=key
        )
    saved = flow.checkpoint.get(str(tmp_path / "ckpt"))
    assert set(saved) == set(result["params"])
    for name, value in result["params"].items():
        np.testing.assert_array_equal(
            saved[name].numpy(), np.asarray(value, np.float32) if "TrainStep" not in name else value
        )


def _two_processes(mode: str, *extra: str) -> list[subprocess.Popen]:
    port = _free_port()
    return [
        subprocess.Popen(
            [sys.executable, SCRIPT, mode, "2", "4", *extra],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=cpu_child_env(
                FLOWJOB_COORDINATOR=f"127.0.0.1:{port}",
                FLOWJOB_NUM_PROCESSES="2",
                FLOWJOB_PROCESS_ID=str(rank),
            ),
        )
        for rank in range(2)
    ]


def _results(procs: list[subprocess.Popen]) -> list[dict]:
    results = []
    try:
        for proc in procs:
            out, err = proc.communicate(timeout=scaled(300))
            assert proc.returncode == 0, err[-3000:]
            results.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for proc in procs:
            proc.kill()
    return results


def test_mirrored_view_across_two_processes_equals_four_devices_of_one(tmp_path):
    """The same mirrored-view job on 2 processes x 2 devices and on 4 devices of one process:
    the same pieces, losses and parameters."""
    one = _train("mirrored", 4)
    for result in _results(_two_processes("multi-mirrored")):
        assert result["devices"] == 4 and result["mesh"] == 4
        for step, (got, want) in enumerate(zip(result["losses"], one["losses"])):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=f"step {step}")
        for name, value in one["params"].items():
            np.testing.assert_allclose(
                result["params"][name], value, rtol=1e-5, atol=1e-6, err_msg=name
            )


def test_two_processes_train_together_like_one(reference, tmp_path):
    procs = _two_processes("multi", str(tmp_path / "ckpt"), str(tmp_path / "logs"))
    results = _results(procs)
    assert sorted(r["process"] for r in results) == [0, 1]
    assert results[0]["process"] == 0 or results[1]["process"] == 0
    for result in results:
        assert result["devices"] == 4 and result["mesh"] == 4
        # only the first process delivers watch handlers
        assert bool(result["watched"]) == (result["process"] == 0)
        for got, want in zip(result["losses"], reference["losses"]):
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
        for name, value in reference["params"].items():
            np.testing.assert_allclose(result["params"][name], value, rtol=1e-4, atol=1e-5)
    from tensorboard.backend.event_processing import event_accumulator

    files = [f for f in os.listdir(tmp_path / "logs") if "tfevents" in f]
    assert len(files) == 1  # one writer, in the first process
    acc = event_accumulator.EventAccumulator(
        str(tmp_path / "logs"), size_guidance={event_accumulator.SCALARS: 0}
    )
    acc.Reload()
    logged = [(e.step, e.value) for e in acc.Scalars("loss")]
    expected = [(i + 1, float(np.mean(loss))) for i, loss in enumerate(reference["losses"])]
    np.testing.assert_allclose(logged, expected, rtol=1e-4)
    saved = flow.checkpoint.get(str(tmp_path / "ckpt"))  # written once, by process 0
    np.testing.assert_allclose(
        saved["hidden-weight"].numpy(), reference["params"]["hidden-weight"], rtol=1e-4, atol=1e-5
    )


def test_device_count_after_jax_started_is_a_clear_error():
    import jax

    jax.devices()  # the backend is running in this test process
    have = len(jax.devices())
    with pytest.raises(RuntimeError, match=rf"JAX already started with {have} device"):
        flow.config.cpu_device_num(have + 3)


def test_placement_beyond_configured_devices_names_the_job():
    import jax.numpy as jnp

    import flowjob.typing as tp
    from flowjob._src.graph import apply_op

    flow.clear_default_session()

    # CPU placements are logical (tests/runtime/test_cpu_placement.py); GPU ones are checked.
    @flow.global_function()
    def TooWide(x: tp.Numpy.Placeholder((4,))) -> tp.Numpy:
        with flow.scope.placement("gpu", "0:0-63"):
            return apply_op("neg", jnp.negative, [x])

    with pytest.raises(RuntimeError, match="job 'TooWide' is placed on machine 0 device"):
        TooWide(np.zeros(4, np.float32))
    flow.clear_default_session()
