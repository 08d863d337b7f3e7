"""A stand-in for the runtime session, so the checkpoint API is tested on its own."""

from __future__ import annotations

import numpy as np
import pytest

from flowjob._src._dtypes import DType, as_dtype
from flowjob._src.checkpoint import _api


class FakeSession:
    """Holds variables as NumPy arrays and records which session methods were called."""

    def __init__(self, values: dict[str, np.ndarray], dtypes: dict[str, DType] | None = None):
        self.values = {name: np.array(v) for name, v in values.items()}
        self.dtypes = {name: as_dtype(v.dtype) for name, v in self.values.items()}
        self.dtypes.update(dtypes or {})
        self.calls: list[object] = []

    def sync(self) -> None:
        self.calls.append("sync")

    def wait(self) -> None:
        self.calls.append("wait")

    def trace_all(self) -> None:
        self.calls.append("trace_all")

    def variable_arrays(self) -> dict[str, np.ndarray]:
        return {name: v.copy() for name, v in self.values.items()}

    def variable_specs(self) -> dict[str, tuple[tuple[int, ...], DType]]:
        return {name: (v.shape, self.dtypes[name]) for name, v in self.values.items()}

    def defers_variables(self) -> bool:  # a lazy session: every variable exists
        return False

    def assign_variables(self, new: dict[str, np.ndarray]) -> None:
        self.calls.append(("assign", sorted(new)))
        for name, value in new.items():
            # The real session trusts checked values; the fake verifies that they were checked.
            assert value.shape == self.values[name].shape, name
            assert value.dtype == self.values[name].dtype, name
            self.values[name] = np.array(value)


@pytest.fixture
def make_session(monkeypatch):
    """``make_session(values)`` installs a FakeSession as the checkpoint module's session."""

    def make(values, dtypes=None) -> FakeSession:
        sess = FakeSession(values, dtypes)
        monkeypatch.setattr(_api, "_session", lambda: sess)
        return sess

    return make


@pytest.fixture
def sample_values() -> dict[str, np.ndarray]:
    """Variables of every supported dtype, including a scalar and an empty array."""
    rng = np.random.default_rng(0)
    return {
        "dense1-weight": rng.standard_normal((3, 5)).astype(np.float32),
        "dense1-bias": rng.standard_normal(5).astype(np.float64),
        "half": rng.standard_normal((2, 2)).astype(np.float16),
        "brain": rng.standard_normal((4,)).astype(np.dtype("bfloat16")),
        "bytes-i8": rng.integers(-128, 128, (2, 3), dtype=np.int8),
        "bytes-u8": rng.integers(0, 256, (7,), dtype=np.uint8),
        "counts": rng.integers(-(2**31), 2**31, (2, 2, 2), dtype=np.int32),
        "System-Train-TrainStep-train_job": np.array([12345678901], dtype=np.int64),
        "scalar": np.array(3.5, dtype=np.float32),
        "empty": np.zeros((0, 4), dtype=np.float32),
    }
