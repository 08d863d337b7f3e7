"""OneFlow 0.4's placement API (2-D hierarchies, hierarchical_parallel_cast, flow.advanced,
mirrored pieces) on virtual CPU devices against NumPy; device-count and machine settings of
``flow.config`` / ``flow.env`` and when they may change."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from tests.subprocess_env import cpu_child_env
from tests.timeouts import scaled

HERE = os.path.dirname(__file__)


def _script(path: str, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, path, *args],
        env=cpu_child_env(**env),
        capture_output=True,
        text=True,
        timeout=scaled(300),
    )


@pytest.fixture(scope="module")
def parallel():
    out = _script(os.path.join(HERE, "_parallel_api.py"), "3")
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_hierarchical_cast_trains_like_numpy_on_a_2x2_mesh(parallel):
    x = np.asarray(parallel["x"], np.float32)
    idx = np.asarray(parallel["indices"])
    # y = gather(x * v, idx) with v = 0.5; loss = sum(y); dL/dv = x scattered over idx rows.
    np.testing.assert_allclose(parallel["hierarchical"], (x * 0.5)[idx], rtol=1e-6)
    grad = np.zeros_like(x)
    np.add.at(grad, idx, x[idx])
    np.testing.assert_allclose(parallel["hierarchical_v"], 0.5 - 0.1 * grad, rtol=1e-6)
    assert parallel["mesh"] == 4  # the job runs on the placement's 4 devices
    # the cast constrains the value to a 2 x 2 mesh with named axes, value unchanged
    assert parallel["cast_mesh"] == {"d0": 2, "d1": 2}
    assert parallel["cast_spec"] == "P('d0', 'd1')"
    assert parallel["cast_value_equal"]


def test_advanced_distribute_ops_match_numpy(parallel):
    a = np.asarray(parallel["advanced_in"], np.float32)
    got = parallel["advanced"]
    # 10 rows over 4 devices: OneFlow's balanced split, 3 + 3 + 2 + 2
    assert parallel["pieces"] == [[3, 3], [3, 3], [2, 3], [2, 3]]
    np.testing.assert_allclose(got["concat"], a * 3.0, rtol=1e-6)
    np.testing.assert_allclose(got["add"], a * 4.0, rtol=1e-6)
    np.testing.assert_allclose(got["mapped"], a * 2.0 + 1.0, rtol=1e-6)


def test_mirrored_fixed_input_has_the_per_device_shape(parallel):
    m = np.asarray(parallel["mirrored_in"], np.float32)
    assert parallel["mirrored_piece_shape"] == [2, 3]  # (8, 3) over 4 devices
    np.testing.assert_allclose(parallel["mirrored"], m.sum(1, keepdims=True) + 1.0, rtol=1e-6)


def test_gpu_device_num_after_jobs_are_defined_and_machine_after_a_run(tmp_path):
    script = tmp_path / "late.py"
    script.write_text(
        "import numpy as np, flowjob as flow, flowjob.typing as tp\n"
        "@flow.global_function()\n"
        "def f(x: tp.Numpy.Placeholder((4, 2))) -> tp.Numpy:\n"
        "    return x * 2\n"
        "flow.config.gpu_device_num(2)\n"
        "print(f(np.ones((4, 2), np.float32)).sum())\n"
        "print(flow._src.runtime.default_session().compiled_job(f).lowered.mesh.size)\n"
        "try:\n"
        "    flow.env.machine([{'addr': '10.0.0.1'}, {'addr': '10.0.0.2'}])\n"
        "except flow.ConfigError as exc:\n"
        "    print('refused:', exc)\n"
    )
    out = _script(str(script))
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.strip().splitlines()
    assert float(lines[0]) == 16.0 and lines[1] == "2"
    assert lines[2].startswith("refused: flow.env.machine(") and "first job" in lines[2]


def test_two_hosts_that_are_not_this_machine_refuse_to_train(tmp_path):
    script = tmp_path / "two_hosts.py"
    script.write_text(
        "import numpy as np, flowjob as flow, flowjob.typing as tp\n"
        "@flow.global_function()\n"
        "def f(x: tp.Numpy.Placeholder((4, 2))) -> tp.Numpy:\n"
        "    return x * 2\n"
        "flow.env.ctrl_port(9988)\n"
        "flow.env.machine([{'addr': '192.0.2.12'}, {'addr': '192.0.2.11'}])\n"
        "print('trained', f(np.ones((4, 2), np.float32)).sum())\n"
    )
    out = _script(str(script))
    assert out.returncode != 0
    assert "trained" not in out.stdout
    assert "ConfigError" in out.stderr and "192.0.2.12" in out.stderr


def test_settings_after_env_init_that_change_nothing_here_are_ignored_with_a_warning(tmp_path):
    """OneFlow's test runners call ``flow.env.init()`` before each test's
    ``flow.env.ctrl_port(...)``: OneFlow then did nothing, and a process running alone has no
    use for the port; declaring several machines that late still stops."""
    script = tmp_path / "late.py"
    script.write_text(
        "import warnings, numpy as np, flowjob as flow, flowjob.typing as tp\n"
        "flow.env.init()\n"
        "with warnings.catch_warnings(record=True) as seen:\n"
        "    warnings.simplefilter('always')\n"
        "    flow.env.ctrl_port(9788)\n"
        "    flow.env.machine([{'addr': '127.0.0.1'}])\n"
        "print(len(seen), str(seen[0].message))\n"
        "@flow.global_function()\n"
        "def f(x: tp.Numpy.Placeholder((4, 2))) -> tp.Numpy:\n"
        "    return x * 2\n"
        "print('trained', f(np.ones((4, 2), np.float32)).sum())\n"
        "flow.env.machine([{'addr': '192.0.2.12'}, {'addr': '192.0.2.11'}])\n"
    )
    out = _script(str(script))
    lines = out.stdout.strip().splitlines()
    assert lines[0].startswith("2 flow.env.ctrl_port(9788) does nothing"), out.stdout
    assert "already initialized" in lines[0] and lines[1] == "trained 16.0"
    assert out.returncode != 0 and "ConfigError" in out.stderr and "192.0.2.12" in out.stderr


@pytest.mark.usefixtures("fresh_session")
def test_clear_default_session_resets_the_device_count_and_zero_gpus_mean_cpu():
    flow.config.gpu_device_num(1)
    flow.config.gpu_device_num(0)  # OneFlow: no GPU, jobs run on the CPU device
    assert flow._src.runtime.config.process.device_num == 1
    assert flow._src.runtime.config.process.device_tag == "cpu"
    flow._src.runtime.config.process.device_num = 3  # as gpu_device_num(3) leaves it
    flow.clear_default_session()
    assert flow._src.runtime.config.process.device_num == 1

    config = flow.function_config()
    config.default_logical_view(flow.scope.mirrored_view())

    @flow.global_function(function_config=config)
    def f(x: tp.ListNumpy.Placeholder((2, 3))) -> tp.ListNumpy:
        return x + 1

    (got,) = f([np.zeros((2, 3), np.float32)])  # one device: one piece
    np.testing.assert_array_equal(got, np.ones((2, 3), np.float32))


def test_distributed_rank_on_one_machine():
    assert flow.distributed.get_rank() == 0
    assert flow.distributed.get_world_size() == 1
    assert flow.current_machine_id() == 0


def test_placement_hierarchy_must_match_its_devices():
    with pytest.raises(ValueError, match=r"hierarchy \[2, 3\] holds 6 devices.*names 4"):
        flow.scope.placement("gpu", "0:0-3", hierarchy=[2, 3])
    assert flow.scope.placement("cpu", "0:0-3", (2, 2)).hierarchy == (2, 2)


@pytest.mark.usefixtures("fresh_session")
def test_interface_blob_values_are_the_variables():
    @flow.global_function()
    def add() -> tp.Numpy:
        x = flow.get_variable("x", (2, 3), initializer=flow.random_uniform_initializer())
        y = flow.get_variable("y", (2, 3), initializer=flow.random_uniform_initializer())
        return x + y

    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    flow.experimental.set_interface_blob_value("x", x)
    flow.experimental.set_interface_blob_value("y", x * 10)
    np.testing.assert_array_equal(flow.experimental.get_interface_blob_value("x"), x)
    np.testing.assert_array_equal(add(), x * 11)
    with pytest.raises(KeyError, match="'z'"):
        flow.experimental.get_interface_blob_value("z")


@pytest.mark.usefixtures("fresh_session")
def test_logical_slice_and_slice_assign_match_numpy():
    rng = np.random.default_rng(5)
    init = rng.normal(size=(6, 8, 5)).astype(np.float32)
    tuples = [(1, None, 2), (-7, -1, 3), (0, 5, 1)]
    index = tuple(slice(*t) for t in tuples)
    value = rng.normal(size=init[index].shape).astype(np.float32)

    def var():
        return flow.get_variable("var", (6, 8, 5), initializer=flow.zeros_initializer())

    @flow.global_function()
    def read() -> tp.Numpy:
        return flow.experimental.logical_slice(var(), tuples)

    @flow.global_function(type="train")
    def write(v: tp.Numpy.Placeholder(value.shape)) -> tp.Numpy:
        flow.experimental.logical_slice_assign(var(), v, tuples)
        other = flow.get_variable("other", (1,), initializer=flow.zeros_initializer())
        loss = flow.math.reduce_sum(other)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1])).minimize(loss)
        return loss

    flow.load_variables({"var": init})
    np.testing.assert_array_equal(read(), init[index])
    write(value)
    expected = init.copy()
    expected[index] = value
    np.testing.assert_array_equal(flow.get_all_variables()["var"].numpy(), expected)
    np.testing.assert_array_equal(read(), value)

    @flow.global_function()
    def bad() -> tp.Numpy:
        return flow.experimental.logical_slice(var(), [(0, 1, 1)])

    with pytest.raises(ValueError, match="one \\(start, stop, step\\) per axis"):
        bad()


def test_eager_consistent_job_on_two_devices_trains_like_numpy():
    out = _script(os.path.join(HERE, "_eager_two_devices.py"))
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    x = np.array([1.0, 2.0, 3.0, 4.0])
    w = np.ones(4)
    for k in range(3):  # loss = sum(w * x): each SGD step takes 0.1 * x off w
        np.testing.assert_allclose(got["seen"][k], w, rtol=1e-6)
        np.testing.assert_allclose(got["losses"][k], (w * x).sum(), rtol=1e-6)
        w = w - 0.1 * x
    np.testing.assert_allclose(got["w"], w, rtol=1e-6)
