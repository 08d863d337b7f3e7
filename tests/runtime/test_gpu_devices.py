"""Where jobs run when the machine has GPUs (issue 36), played on the CPU with a fake device
list: ``flowjob._src._devices.local_devices`` is the one device query, replaced here."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import SimpleNamespace

import jax
import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob._src import _devices
from flowjob._src.runtime import _config, _sharding
from flowjob.errors import ConfigError

pytestmark = pytest.mark.usefixtures("fresh_session")


@dataclass(frozen=True)
class FakeGpu:
    id: int
    platform: str = "gpu"
    device_kind: str = "NVIDIA H100 80GB HBM3"
    process_index: int = 0


@dataclass
class Machine:
    """A machine with ``gpus`` GPUs (besides the real CPU devices); counts device queries."""

    gpus: int
    asked: list[str] = field(default_factory=list)

    def local_devices(self, platform: str) -> list:
        self.asked.append(platform)
        if platform == "gpu":
            return [FakeGpu(i) for i in range(self.gpus)]
        return list(jax.devices("cpu"))


@pytest.fixture
def machine(monkeypatch):
    def with_gpus(n: int) -> Machine:
        m = Machine(n)
        monkeypatch.setattr(_devices, "local_devices", m.local_devices)
        _devices.gpu_available.cache_clear()
        return m

    yield with_gpus
    _devices.gpu_available.cache_clear()
    _config.reset_device_num()


def graph_placed(*tags_and_ids: tuple[str, str]) -> SimpleNamespace:
    """A stand-in job graph whose ops sit in the given placements (no placement: one op
    outside any scope)."""
    ops = [SimpleNamespace(placement=flow.scope.placement(t, i).placement) for t, i in tags_and_ids]
    return SimpleNamespace(name="job", ops=ops or [SimpleNamespace(placement=None)])


def test_without_gpus_every_job_runs_on_the_host(machine):
    machine(0)
    flow.config.gpu_device_num(1)
    assert _config.job_platform() == "cpu"
    assert _sharding.job_devices(graph_placed(("gpu", "0:0"))) == jax.devices("cpu")[:1]


def test_no_device_setting_runs_on_the_first_gpu_as_oneflow_did(machine):
    machine(2)
    assert _sharding.job_devices(graph_placed()) == [FakeGpu(0)]


def test_gpu_device_num_takes_that_many_gpus(machine):
    machine(4)
    flow.config.gpu_device_num(2)
    _config._check_gpu()  # what the first compile does
    assert _sharding.job_devices(graph_placed()) == [FakeGpu(0), FakeGpu(1)]
    assert _sharding.job_devices(graph_placed(("gpu", "0:1-3"))) == [FakeGpu(i) for i in (1, 2, 3)]


def test_cpu_placements_and_cpu_device_num_stay_on_the_host(machine):
    m = machine(2)
    host = jax.devices("cpu")[0]
    assert _sharding.job_devices(graph_placed(("cpu", "0:0"))) == [host]
    flow.config.cpu_device_num(1)
    assert _sharding.job_devices(graph_placed()) == [host]
    assert "gpu" not in m.asked[-1:]  # the host job did not even ask for GPUs last


def test_a_job_with_gpu_and_cpu_placements_runs_on_the_gpus(machine):
    # OneFlow programs put data loaders on "cpu" and the model on "gpu": one program, GPUs
    machine(2)
    graph = graph_placed(("cpu", "0:0-1"), ("gpu", "0:0"))
    assert _sharding.job_platform(graph) == "gpu"
    assert _sharding.job_devices(graph) == [FakeGpu(0), FakeGpu(1)]


def test_more_gpus_than_the_machine_has_is_an_error_naming_both_counts(machine):
    machine(2)
    with pytest.raises(ConfigError, match=re.escape("gpu_device_num(4) asks for 4 GPU(s)")) as e:
        flow.config.gpu_device_num(4)  # raises here once JAX runs (an earlier test started it)
        _config._check_gpu()  # else when the first job compiles
    assert "JAX sees 2" in str(e.value)
    with pytest.raises(ConfigError, match=r"device 2, but only 2 GPU\(s\) per machine"):
        _sharding.job_devices(graph_placed(("gpu", "0:0-3")))


def test_one_host_device_is_the_plain_program_and_a_gpu_job_lowers_for_the_gpu(machine):
    assert _sharding.job_mesh(jax.devices()[:1]) is None
    if jax.default_backend() != "cpu":  # a "cpu" job beside the GPUs: its state goes there
        assert _sharding.job_mesh(jax.devices("cpu")[:1]).devices.size == 1
    machine(1)
    assert _sharding.job_platform(graph_placed(("gpu", "0:0"))) == "gpu"


def _job_hlo(job, *args) -> str:
    from flowjob._src.runtime import default_session

    lowered = default_session().compiled_job(job).lowered
    return lowered.fn.lower({n: v for n, v in lowered_state(lowered)}, args, np.uint32(0)).as_text(
        dialect="hlo"
    )


def lowered_state(lowered):
    from flowjob._src.runtime import default_session

    values = default_session().state.variables.values
    return [(n, values[n]) for n in lowered.state_names]


@pytest.mark.parametrize("tf32, precision", [(None, "high"), (True, "high"), (False, "highest")])
def test_tensor_float_32_setting_is_the_jobs_matmul_precision(tf32, precision, monkeypatch):
    from flowjob._src.runtime import _tuning

    monkeypatch.setitem(_tuning.settings, "config.enable_tensor_float_32_compute", True)
    if tf32 is not None:
        flow.config.enable_tensor_float_32_compute(tf32)

    @flow.global_function()
    def predict(x: tp.Numpy.Placeholder((2, 3, 8, 8))) -> tp.Numpy:
        w = flow.get_variable("w", (4, 3, 3, 3), initializer=flow.ones_initializer())
        y = flow.nn.conv2d(x, w, 1, "SAME")
        return flow.matmul(flow.reshape(y, (2, -1)), flow.reshape(y, (2, -1)), transpose_b=True)

    x = np.ones((2, 3, 8, 8), np.float32)
    predict(x)
    hlo = _job_hlo(predict, x)
    dots = re.findall(r" (?:dot|convolution)\(.*", hlo)
    assert dots, hlo
    assert all(f"operand_precision={{{precision},{precision}}}" in d for d in dots), dots


def test_doctor_reports_the_gpus_jax_sees(machine):
    from flowjob._src.cli import doctor

    machine(2)
    assert doctor._gpus().startswith("gpus: 2 (NVIDIA H100 80GB HBM3)")
    machine(0)
    assert "flowjob[gpu]" in doctor._gpus() or "no usable GPU" in doctor._gpus()


def test_the_gpu_extra_installs_jax_cuda_wheels_of_the_jax_flowjob_needs():
    from pathlib import Path

    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    meta = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())["project"]
    (gpu,) = meta["optional-dependencies"]["gpu"]
    (jax_req,) = [d for d in meta["dependencies"] if d.startswith("jax")]
    assert gpu == jax_req.replace("jax", "jax[cuda12]", 1)


def test_gpu_programs_keep_the_rounding_a_half_type_cast_asks_for(monkeypatch):
    """XLA's GPU compiler may keep float16 values in float32 across a fusion ("excess
    precision"); a job's GPU program turns that off, its CPU program is compiled as is."""
    options = []
    monkeypatch.setattr(_sharding.jax, "jit", lambda fn, **kw: options.append(kw) or fn)
    _sharding.jit_for(abs, "gpu", donate_argnums=(0,))
    _sharding.jit_for(abs, "cpu")
    assert options[0]["compiler_options"] == {"xla_allow_excess_precision": False}
    assert options[0]["donate_argnums"] == (0,)
    assert options[1] == {}
