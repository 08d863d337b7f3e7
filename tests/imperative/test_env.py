"""flow.current_resource, flow.env.init_bootstrap_confs, flow.deprecated.delete_worker_*,
flow.eager_nccl_all_reduce (device counts are fixed per process: each case runs in its own)."""

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

SCRIPT = os.path.join(os.path.dirname(__file__), "_env_script.py")


def _run(*args: str, **env: str) -> dict:
    out = subprocess.run(
        [sys.executable, SCRIPT, *args],
        env=cpu_child_env(**env),
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


def test_current_resource_reports_the_devices_and_settings():
    r = _run("resource")
    assert r["machine_num"] == 1 and r["cpu_device_num"] == 3 and r["gpu_device_num"] == 0
    assert r["enable_debug_mode"] is True
    assert r["reserved_host_mem_mbyte"] == 123 and r["use_rdma"] is True
    # knobs never set read back as OneFlow's Resource defaults
    assert r["comm_net_worker_num"] == 4 and r["reserved_device_mem_mbyte"] == 500


def test_current_resource_is_exported_under_both_names():
    assert flow.current_resource is flow.env.current_resource


def test_all_reduce_sums_over_the_named_devices():
    r = _run("all_reduce")
    inputs = np.array(r["inputs"])
    for s in r["sums"]:
        np.testing.assert_allclose(s, inputs.sum(0), rtol=1e-6)
    assert r["devices"] == [1, 2, 3]
    for s in r["tensor_sums"]:
        np.testing.assert_allclose(s, inputs[:2].sum(0), rtol=1e-6)
    # a "gpu" placement's devices are cuda devices in OneFlow's names; on this machine their
    # values live on the CPU devices of the same numbers
    assert r["tensor_devices"] == ["cuda:0", "cuda:2"]
    assert r["tensor_jax_devices"] == [0, 2]


def test_all_reduce_errors_name_the_problem():
    conf = 'device_tag: "cpu" device_name: "0:0"'
    np.testing.assert_array_equal(flow.eager_nccl_all_reduce(np.ones(2), conf), np.ones(2))
    with pytest.raises(ValueError, match="2 value"):
        flow.eager_nccl_all_reduce([np.ones(2), np.ones(2)], conf)
    with pytest.raises(ValueError, match="ParallelConf"):
        flow.eager_nccl_all_reduce(np.ones(2), "0:0")
    with pytest.raises(flow.ConfigError, match="other machines"):
        flow.eager_nccl_all_reduce(np.ones(2), 'device_tag: "cpu" device_name: "1:0"')


def test_all_reduce_of_a_blob_in_a_job_keeps_its_logical_value(fresh_session):
    # OneFlow's op made a partial sum the same sum on every device (demos/
    # eager_nccl_all_reduce_demo.py): a flowjob blob is that one logical value already
    @flow.global_function()
    def job(x: flow.typing.Numpy.Placeholder((2,))) -> flow.typing.Numpy:
        return flow.eager_nccl_all_reduce(x, 'device_tag: "gpu" device_name: "0:0-3"')

    x = np.array([1.5, -2.0], np.float32)
    np.testing.assert_array_equal(job(x), x)

    @flow.global_function()
    def bad(x: flow.typing.Numpy.Placeholder((2,))) -> flow.typing.Numpy:
        return flow.eager_nccl_all_reduce(x, "gpu 0:0-3")

    with pytest.raises(ValueError, match="ParallelConf in text form"):
        bad(x)


def test_bootstrap_on_one_node_runs_alone():
    port = _free_port()
    r = _run("bootstrap", "127.0.0.1", str(port))
    assert r["confs"] == [[0, "127.0.0.1", 1, port]]
    assert r["machine_num"] == 1 and r["doubled"] == [2.0, 2.0]


def test_bootstrap_of_two_nodes_starts_jax_distributed():
    port = _free_port()
    procs = [
        subprocess.Popen(
            [sys.executable, SCRIPT, "bootstrap", "127.0.0.1,localhost", str(port)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=cpu_child_env(FLOWJOB_PROCESS_ID=str(rank)),
        )
        for rank in range(2)
    ]
    for proc in procs:
        out, err = proc.communicate(timeout=scaled(300))
        assert proc.returncode == 0, err[-3000:]
        r = json.loads(out.strip().splitlines()[-1])
        assert r["confs"] == [[0, "127.0.0.1", 2, port], [1, "localhost", 2, port]]
        assert r["machine_num"] == 2 and r["doubled"] == [2.0, 2.0]


def test_bootstrap_refuses_several_processes_per_node(monkeypatch):
    from flowjob._src.processes import _bootstrap

    monkeypatch.setattr(_bootstrap, "backends_started", lambda: False)
    with pytest.raises(flow.ConfigError, match="several processes per node.*FLOWJOB_COORDINATOR"):
        flow.env.init_bootstrap_confs(["127.0.0.1"], 1234, 4, num_process_per_node=4)


def test_bootstrap_after_jax_started_is_refused(fresh_session):
    flow.Tensor(1)  # starts JAX, as a job would
    with pytest.raises(flow.ConfigError, match="before the first job"):
        flow.env.init_bootstrap_confs(["127.0.0.1"], 1234)


def test_delete_worker_of_multi_process_removes_or_keeps_the_run_dir(tmp_path, monkeypatch, capsys):
    run_dir = tmp_path / "run"
    (run_dir / "log_1").mkdir(parents=True)
    monkeypatch.setenv("ONEFLOW_WORKER_KEEP_LOG", "1")
    flow.deprecated.delete_worker_of_multi_process(str(run_dir))
    assert run_dir.exists() and "kept" in capsys.readouterr().out
    monkeypatch.delenv("ONEFLOW_WORKER_KEEP_LOG")
    flow.deprecated.delete_worker_of_multi_process(str(run_dir))
    assert not run_dir.exists() and "removed" in capsys.readouterr().out


def test_delete_worker_by_bootstrap_has_nothing_to_delete(capsys):
    assert flow.deprecated.delete_worker_by_bootstrap(22) is None
    assert "starts no worker processes" in capsys.readouterr().err
    with pytest.raises(TypeError, match="ssh_port"):
        flow.deprecated.delete_worker_by_bootstrap("22")
