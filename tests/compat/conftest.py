"""Fixtures for the compat tests: run programs with ``python -m flowjob run`` in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from tests.timeouts import scaled
from tests.upstream import BENCHMARK, DOCS, UpstreamError, extract

REPO = Path(__file__).resolve().parents[2]
PROGRAMS = Path(__file__).resolve().parent / "programs"


@pytest.fixture(scope="session")
def benchmark() -> Path:
    """OneFlow-Benchmark at the pinned commit, extracted from the clone named by
    ``FLOWJOB_BENCHMARK_SRC`` into a temporary folder; skips (one line) without a clone."""
    if BENCHMARK.clone() is None:
        pytest.skip(BENCHMARK.missing_line())
    try:
        return extract(BENCHMARK)
    except UpstreamError as exc:
        pytest.fail(str(exc))


@pytest.fixture(scope="session")
def documentation() -> Path:
    """oneflow-documentation's v0.4.0 code samples (``en/docs/code``), extracted from the clone
    named by ``FLOWJOB_DOCS_SRC``; skips (one line) without a clone."""
    if DOCS.clone() is None:
        pytest.skip(DOCS.missing_line())
    try:
        return extract(DOCS, "en/docs/code") / "en" / "docs" / "code"
    except UpstreamError as exc:
        pytest.fail(str(exc))


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    # This checkout first, whatever is installed (and no package named oneflow is needed).
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.setdefault("JAX_PLATFORMS", "cpu")
    env.update(extra or {})
    return env


@pytest.fixture
def flowjob_run(tmp_path: Path) -> Callable[..., subprocess.CompletedProcess]:
    """``flowjob_run(script, *args, options=(), cwd=tmp_path, timeout=120)`` runs
    ``python -m flowjob run [options] script args`` and returns the completed process."""

    def run(
        script: str | Path,
        *args: str,
        options: tuple[str, ...] = (),
        cwd: Path | None = None,
        timeout: float = 120,
        env: dict[str, str] | None = None,
    ) -> subprocess.CompletedProcess:
        cmd = [sys.executable, "-m", "flowjob", "run", *options, str(script), *args]
        return subprocess.run(
            cmd,
            cwd=cwd or tmp_path,
            env=_env(env),
            capture_output=True,
            text=True,
            timeout=scaled(timeout),
        )

    return run


@pytest.fixture
def mnist_npz() -> Callable[[Path, int, int], tuple[np.ndarray, ...]]:
    """``mnist_npz(directory, n_train, n_test)``: see ``write_mnist_npz``."""
    return write_mnist_npz


def write_mnist_npz(directory: Path, n_train: int, n_test: int) -> tuple[np.ndarray, ...]:
    """Writes ``directory/mnist.npz`` (the layout ``flow.data.load_mnist`` reads) holding the
    first images of flowjob's bundled subset; returns (x_train, y_train, x_test, y_test)."""
    import flowjob

    (train_x, train_y), (test_x, test_y) = flowjob.data.load_mnist(100, 100)

    def raw(images: np.ndarray, n: int) -> np.ndarray:
        return np.round(images.reshape(-1, 28, 28)[:n] * 255).astype(np.uint8)

    arrays = (
        raw(train_x, n_train),
        train_y.reshape(-1)[:n_train].astype(np.uint8),
        raw(test_x, n_test),
        test_y.reshape(-1)[:n_test].astype(np.uint8),
    )
    np.savez(
        directory / "mnist.npz",
        x_train=arrays[0],
        y_train=arrays[1],
        x_test=arrays[2],
        y_test=arrays[3],
    )
    return arrays
