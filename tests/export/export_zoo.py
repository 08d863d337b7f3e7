"""The export tests' models: seed LeNet and MLP, a ResNet-style CNN, a BERT-style encoder,
as predict jobs (the ``zoo`` fixture of conftest.py), and a runner for new interpreters."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import flowjob as flow
import flowjob.typing as tp
from flowjob._src import kernels
from tests.timeouts import scaled

REPO = Path(__file__).resolve().parents[2]
BATCH = 4

# Against the job computed with oneDNN's convolutions (the default on a CPU where they are
# installed), another kernel (a saved model's XLA, onnxruntime's) sums each convolution's
# products in another order: oneDNN blocks the reduction for the CPU's vector width (AVX2,
# AVX-512). Deep models amplify the difference, which depends on the CPU (6.3e-7 of the
# largest output on an AMD EPYC with AVX2, up to 8.05e-5 on an Intel AVX-512 machine), so it
# is bounded relative to the output's largest magnitude, not element by element:
ONEDNN_TOL = 2e-4


def assert_within_scale(got: np.ndarray, want: np.ndarray, tol: float, name: str) -> None:
    """``max |got - want| <= tol * max |want|``: agreement relative to the output's scale
    (an element near zero may differ by rounding of much larger partial sums)."""
    scale = float(np.abs(want).max())
    worst = float(np.abs(got - want).max())
    assert worst <= tol * scale, f"{name}: differs by {worst:.3g}, over {tol} x {scale:.3g}"


def _load(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


seed_models = _load("export_seed_models", REPO / "examples" / "models.py")
test_models = _load("export_test_models", Path(__file__).parent / "export_models.py")


@dataclass
class Zoo:
    jobs: dict[str, Any]  # name -> predict job
    inputs: dict[str, dict[str, np.ndarray]]  # name -> {argument name: value}
    expected: dict[str, np.ndarray]  # name -> the job's output on `inputs`
    variables: set[str]  # the four jobs' variables (other tests add their own later)
    # name -> the output of the same job computed with XLA's kernels only (the kernels a
    # saved program carries; `expected` used oneDNN's convolutions where they are installed)
    expected_xla: dict[str, np.ndarray]


def xla_outputs(
    batch: int, inputs: dict[str, dict[str, np.ndarray]], suffix: str
) -> dict[str, np.ndarray]:
    """The four jobs' outputs on ``inputs`` with XLA's kernels only (jobs named ``suffix``,
    sharing the variables of the others)."""
    with kernels.portable():  # read when a job is traced, at its first call
        jobs = define_jobs(batch, suffix)
        return {name: job(*inputs[name].values()) for name, job in jobs.items()}


def define_jobs(batch: int, suffix: str = "") -> dict[str, Any]:
    """The four predict jobs at ``batch`` (``suffix`` tells jobs of other batch sizes apart;
    all share the same variables)."""
    image = tp.Numpy.Placeholder((batch, 1, 28, 28))

    def lenet(x: image) -> tp.Numpy:
        return seed_models.lenet(x)

    def mlp(x: image) -> tp.Numpy:
        return seed_models.mlp(x)

    def resnet(x: tp.Numpy.Placeholder((batch, 3, 16, 16))) -> tp.Numpy:
        return test_models.resnet_small(x)

    def bert(
        ids: tp.Numpy.Placeholder((batch, 8), dtype=flow.int32),
        mask: tp.Numpy.Placeholder((batch, 8), dtype=flow.int32),
    ) -> tp.Numpy:
        return test_models.bert_small(ids, mask)

    jobs = {}
    for fn in (lenet, mlp, resnet, bert):
        fn.__name__ = fn.__qualname__ = fn.__name__ + suffix
        jobs[fn.__name__[: len(fn.__name__) - len(suffix)]] = flow.global_function()(fn)
    return jobs


def make_inputs(batch: int, seed: int = 1) -> dict[str, dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    image = rng.standard_normal((batch, 1, 28, 28)).astype(np.float32)
    mask = np.ones((batch, 8), np.int32)
    mask[:, 5:] = 0
    return {
        "lenet": {"x": image},
        "mlp": {"x": image},
        "resnet": {"x": rng.standard_normal((batch, 3, 16, 16)).astype(np.float32)},
        "bert": {"ids": rng.integers(0, 50, (batch, 8)).astype(np.int32), "mask": mask},
    }


def randomize_variables(seed: int = 0) -> None:
    """Random weights; batch-norm variances positive, gammas around 1."""
    rng = np.random.default_rng(seed)
    values = {}
    for name, blob in flow.get_all_variables().items():
        shape = blob.numpy().shape
        value = rng.standard_normal(shape).astype(np.float32) * 0.3
        if name.endswith("moving_variance"):
            value = np.abs(value) + 0.5
        elif name.endswith("gamma"):
            value = value + 1.0
        values[name] = value
    flow.load_variables(values)


def run_python(code: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    """Runs ``code`` in a new interpreter in ``cwd`` with only this checkout's flowjob on the
    path: the tests' and examples' model source cannot be imported there."""
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=str(REPO))
    script = cwd / "child.py"
    script.write_text(code, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(script)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=scaled(timeout),
    )
    assert proc.returncode == 0, f"child failed:\n{proc.stdout}\n{proc.stderr}"
    return proc
