"""``flow.serving``: OneFlow's InferenceSession, running saved models' programs."""

from __future__ import annotations

import asyncio
import contextlib
import enum
import os
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from .. import _dtypes
from ._loader import LoadedFunction, ModelVersionPolicy, SavedModel, Signature
from ._program import ExportError, TensorSpec


class SessionOption:
    """``device_tag``: "gpu" (the default accelerator, or the CPU when there is none) or
    "cpu"; ``device_num`` and ``is_mirrored_view`` are kept for OneFlow programs (a saved
    model runs on one device)."""

    def __init__(self) -> None:
        self.device_tag = "gpu"
        self.device_num = 1
        self.is_mirrored_view = False


class InferenceSession:
    """Loads saved models and runs their jobs: ``load_saved_model``, ``launch``, ``run``."""

    class SessionStatus(enum.Enum):
        OPEN = 1
        RUNNING = 2
        CLOSED = 3

    def __init__(self, option: SessionOption | None = None):
        if option is not None and not isinstance(option, SessionOption):
            raise ExportError(f"InferenceSession: option must be a SessionOption, got {option!r}")
        self.option = option or SessionOption()
        if self.option.device_tag not in ("gpu", "cpu"):
            raise ExportError(
                f"SessionOption.device_tag must be 'gpu' or 'cpu', got {self.option.device_tag!r}"
            )
        self.status = self.SessionStatus.OPEN
        self.checkpoint_path: str | None = None
        self._models: dict[str, tuple[SavedModel, Signature]] = {}  # job -> model, signature
        self._batch_sizes: dict[str, int] = {}
        self._functions: dict[str, LoadedFunction] = {}
        self.cur_job_name: str | None = None

    def init(self) -> None:
        """Kept for OneFlow programs: the session is ready when constructed."""

    def _check_status(self, *allowed: SessionStatus) -> None:
        if self.status not in allowed:
            names = ", ".join(s.name for s in allowed)
            raise ExportError(f"InferenceSession is {self.status.name}; this call needs it {names}")

    def _device(self) -> Any:
        if self.option.device_tag == "cpu":
            return jax.devices("cpu")[0]
        return jax.devices()[0]

    # -- loading ---------------------------------------------------------------------------
    def load_saved_model(
        self,
        saved_model_dir: str | os.PathLike,
        model_version: int | ModelVersionPolicy = ModelVersionPolicy.LATEST,
        saved_model_meta_file_basename: str = "saved_model",
        graph_name: str | None = None,
        signature_name: str | None = None,
    ) -> None:
        """Adds one graph (default: the model's default graph) as a job of this session."""
        self._check_status(self.SessionStatus.OPEN)
        if saved_model_meta_file_basename != "saved_model":
            raise ExportError(
                "load_saved_model: flowjob saved models keep their metadata in "
                f"saved_model.json, not {saved_model_meta_file_basename!r}"
            )
        model = SavedModel(saved_model_dir, model_version)
        sig = model.signature(graph_name, signature_name)
        self._models[sig.graph] = (model, sig)
        if self.checkpoint_path is None:
            self.checkpoint_path = model.checkpoint_path
        self.cur_job_name = sig.graph

    def set_checkpoint_path(self, checkpoint_path: str | os.PathLike) -> None:
        """Variables from another checkpoint (safetensors file or OneFlow directory)."""
        self._check_status(self.SessionStatus.OPEN)
        self.checkpoint_path = os.fspath(checkpoint_path)

    def set_job_batch_size(self, job_name: str, batch_size: int) -> None:
        self._check_status(self.SessionStatus.OPEN)
        self._batch_sizes[job_name] = int(batch_size)

    @contextlib.contextmanager
    def open(self, job_name: str, signature: Any = None, batch_size: int | None = None):
        """OneFlow compiled a job here from its op list; flowjob saved models hold compiled
        programs, so this only applies ``batch_size``; use ``load_saved_model``."""
        self._check_status(self.SessionStatus.OPEN)
        if isinstance(batch_size, int):
            self.set_job_batch_size(job_name, batch_size)
        self.cur_job_name = job_name
        try:
            yield self
        finally:
            self.cur_job_name = None

    def compile(self, op_list: Any) -> None:
        raise ExportError(
            "InferenceSession.compile(op_list): flowjob saved models hold "
            "compiled StableHLO programs, not OneFlow op lists; load them with "
            "InferenceSession.load_saved_model(path)"
        )

    def launch(self) -> None:
        """Reads the variables and the programs; checks requested batch sizes."""
        self._check_status(self.SessionStatus.OPEN)
        if not self._models:
            raise ExportError(
                "InferenceSession.launch: no model loaded (call load_saved_model first)"
            )
        with jax.default_device(self._device()):
            for job, (model, sig) in self._models.items():
                own = self.checkpoint_path in (None, model.checkpoint_path)
                fn = LoadedFunction(model, sig, None if own else self.checkpoint_path)
                batch = self._batch_sizes.get(job)
                fixed = sig.inputs[0].shape[0] if sig.inputs and sig.inputs[0].shape else None
                if batch is not None and not sig.batch_polymorphic and batch != fixed:
                    raise ExportError(
                        f"job {job!r} was saved for batch size {fixed} and its "
                        f"program cannot run at batch size {batch}"
                    )
                self._functions[job] = fn
        self.status = self.SessionStatus.RUNNING

    # -- introspection ---------------------------------------------------------------------
    def _sig(self, job_name: str | None) -> Signature:
        job_name = job_name or self.cur_job_name or next(iter(self._models), None)
        if job_name not in self._models:
            raise ExportError(
                f"InferenceSession: no job {job_name!r} (jobs: {', '.join(self._models) or 'none'})"
            )
        return self._models[job_name][1]

    def list_jobs(self) -> list[str]:
        self._check_status(self.SessionStatus.RUNNING)
        return list(self._models)

    def list_inputs(self, job_name: str | None = None) -> tuple[str, ...]:
        self._check_status(self.SessionStatus.RUNNING)
        return tuple(s.name for s in self._sig(job_name).inputs)

    def list_outputs(self, job_name: str | None = None) -> tuple[str, ...]:
        self._check_status(self.SessionStatus.RUNNING)
        return tuple(s.name for s in self._sig(job_name).outputs)

    def _info(
        self, specs: Callable[[Signature], list[TensorSpec]], name: str, job_name: str | None
    ) -> dict[str, Any]:
        self._check_status(self.SessionStatus.OPEN, self.SessionStatus.RUNNING)
        sig = self._sig(job_name)
        for spec in specs(sig):
            if spec.name == name:
                shape = spec.shape
                batch = self._batch_sizes.get(sig.graph)
                if batch is not None and shape:
                    shape = (batch, *shape[1:])
                return {"shape": shape, "dtype": _dtypes.as_dtype(np.dtype(spec.dtype))}
        raise ExportError(f"job {sig.graph!r} has no input or output named {name!r}")

    def input_info(self, input_name: str, job_name: str | None = None) -> dict[str, Any]:
        return self._info(lambda sig: sig.inputs, input_name, job_name)

    def output_info(self, output_name: str, job_name: str | None = None) -> dict[str, Any]:
        return self._info(lambda sig: sig.outputs, output_name, job_name)

    def print_job_set(self) -> None:
        for job, (_, sig) in self._models.items():
            print("job_name:", job)
            for spec in [*sig.inputs, *sig.outputs]:
                print("\top_name:", spec.lbn.split("/")[0])

    # -- running ---------------------------------------------------------------------------
    def run(self, job_name: str, **kwargs: Any) -> list[np.ndarray]:
        """Runs the job on named NumPy inputs; returns its outputs in signature order."""
        self._check_status(self.SessionStatus.RUNNING)
        fn = self._functions.get(job_name)
        if fn is None:
            raise ExportError(
                f"InferenceSession.run: no job {job_name!r} (jobs: {', '.join(self._functions)})"
            )
        for name, value in kwargs.items():
            if not isinstance(value, np.ndarray):
                raise ExportError(
                    f'input "{name}" requires numpy.ndarray, got {type(value).__name__}'
                )
        with jax.default_device(self._device()):
            return fn.numpy(kwargs)

    async def async_run(self, job_name: str, **kwargs: Any) -> list[np.ndarray]:
        return await asyncio.get_running_loop().run_in_executor(
            None, lambda: self.run(job_name, **kwargs)
        )

    def close(self) -> None:
        self._functions.clear()
        self.status = self.SessionStatus.CLOSED
