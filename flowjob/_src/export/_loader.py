"""Reading a saved model back: its signatures, variables and programs (no model source)."""

from __future__ import annotations

import enum
import json
import os
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np

from .. import checkpoint
from ._program import ExportError, TensorSpec
from ._saved_model import FORMAT, META_FILE
from ._stablehlo import call, deserialize


class ModelVersionPolicy(enum.Enum):
    """Which version of a model directory to load when none is named."""

    LATEST = 1


def resolve_version_dir(
    path: str | os.PathLike, version: int | ModelVersionPolicy = ModelVersionPolicy.LATEST
) -> str:
    """``path`` is a model directory (``<path>/<version>/``) or one version's directory."""
    path = os.fspath(path)
    if os.path.isfile(os.path.join(path, META_FILE)):
        return path
    if not os.path.isdir(path):
        raise ExportError(f"saved model {path}: no such directory")
    if isinstance(version, ModelVersionPolicy):
        versions = [
            int(d) for d in os.listdir(path) if d.isdigit() and os.path.isdir(os.path.join(path, d))
        ]
        if not versions:
            raise ExportError(
                f"saved model {path}: no version directory (expected {path}/<version>/{META_FILE})"
            )
        version = max(versions)
    version_dir = os.path.join(path, str(version))
    if not os.path.isfile(os.path.join(version_dir, META_FILE)):
        raise ExportError(f"saved model {path}: version {version} has no {META_FILE}")
    return version_dir


@dataclass
class Signature:
    graph: str
    name: str
    inputs: list[TensorSpec]
    outputs: list[TensorSpec]
    variables: list[str]
    program: str
    batch_polymorphic: bool


class SavedModel:
    """One version of a saved model: metadata and variables read at once, programs when used."""

    def __init__(
        self, path: str | os.PathLike, version: int | ModelVersionPolicy = ModelVersionPolicy.LATEST
    ):
        self.path = resolve_version_dir(path, version)
        meta_path = os.path.join(self.path, META_FILE)
        try:
            with open(meta_path) as f:
                self.meta = json.load(f)
        except (OSError, ValueError) as exc:
            raise ExportError(f"saved model {meta_path}: unreadable ({exc})") from None
        if self.meta.get("format") != FORMAT:
            raise ExportError(
                f"saved model {meta_path}: format {self.meta.get('format')!r}, expected {FORMAT!r}"
            )
        self.name: str = self.meta["name"]
        self.version: int = int(self.meta["version"])
        self.checkpoint_path = os.path.join(self.path, self.meta["checkpoint_dir"])
        self._variables: dict[str, np.ndarray] | None = None
        self._programs: dict[str, Any] = {}

    @property
    def graph_names(self) -> list[str]:
        return list(self.meta["graphs"])

    def signature(self, graph: str | None = None, signature: str | None = None) -> Signature:
        graph = graph or self.meta["default_graph_name"]
        graphs = self.meta["graphs"]
        if graph not in graphs:
            raise ExportError(
                f"saved model {self.path}: no graph {graph!r} (graphs: {', '.join(graphs)})"
            )
        sigs = graphs[graph]["signatures"]
        signature = signature or graphs[graph]["default_signature_name"]
        if signature not in sigs:
            raise ExportError(
                f"saved model {self.path}: graph {graph!r} has no signature "
                f"{signature!r} (signatures: {', '.join(sigs)})"
            )
        sig = sigs[signature]
        return Signature(
            graph,
            signature,
            [TensorSpec.from_json(n, d) for n, d in sig["inputs"].items()],
            [TensorSpec.from_json(n, d) for n, d in sig["outputs"].items()],
            list(sig["variables"]),
            sig["program"],
            bool(sig["batch_polymorphic"]),
        )

    def variables(self, checkpoint_path: str | None = None) -> dict[str, np.ndarray]:
        if checkpoint_path is not None:
            return {n: v.numpy() for n, v in checkpoint.get(checkpoint_path).items()}
        if self._variables is None:
            self._variables = {
                n: v.numpy() for n, v in checkpoint.get(self.checkpoint_path).items()
            }
        return self._variables

    def program(self, sig: Signature) -> Any:
        exp = self._programs.get(sig.program)
        if exp is None:
            path = os.path.join(self.path, sig.program)
            try:
                with open(path, "rb") as f:
                    exp = deserialize(f.read(), path)
            except OSError as exc:
                raise ExportError(
                    f"saved model {self.path}: cannot read program {path} ({exc.strerror})"
                ) from None
            self._programs[sig.program] = exp
        return exp


def check_inputs(sig: Signature, values: dict[str, Any]) -> list[Any]:
    """The signature's inputs in order, checked against their declared shapes and dtypes."""
    missing = [s.name for s in sig.inputs if s.name not in values]
    extra = sorted(set(values) - {s.name for s in sig.inputs})
    if missing or extra:
        raise ExportError(
            f"graph {sig.graph!r}: expected inputs "
            f"{[s.name for s in sig.inputs]}, missing {missing}, unknown {extra}"
        )
    out = []
    for spec in sig.inputs:
        value = values[spec.name]
        shape = tuple(np.shape(value))
        batch_ok = (
            sig.batch_polymorphic and len(shape) == len(spec.shape) and shape[1:] == spec.shape[1:]
        )
        if shape != spec.shape and not batch_ok:
            free = " (any batch size)" if sig.batch_polymorphic else ""
            raise ExportError(
                f"graph {sig.graph!r}: input {spec.name!r} has shape {shape}, "
                f"expected {spec.shape}{free}"
            )
        dtype = np.dtype(spec.dtype)
        have = np.dtype(value.dtype if hasattr(value, "dtype") else np.asarray(value).dtype)
        if have != dtype:
            if not np.can_cast(have, dtype, casting="same_kind"):
                raise ExportError(
                    f"graph {sig.graph!r}: input {spec.name!r} has dtype {have}, expected {dtype}"
                )
            # jnp, not np: under jax.jit the value is a tracer
            value = (
                jax.numpy.asarray(value, dtype)
                if isinstance(value, jax.Array)
                else np.asarray(value, dtype)
            )
        out.append(value)
    return out


class LoadedFunction:
    """A saved model's signature as a function: ``fn(*inputs)`` or ``fn(**inputs)``.

    Returns one array when the signature has one output, else a tuple in output order.
    Accepts NumPy or JAX arrays and can be called under ``jax.jit``.
    """

    def __init__(self, model: SavedModel, sig: Signature, checkpoint_path: str | None = None):
        self.model = model
        self.signature = sig
        self.input_names = [s.name for s in sig.inputs]
        self.output_names = [s.name for s in sig.outputs]
        values = model.variables(checkpoint_path)
        missing = [n for n in sig.variables if n not in values]
        if missing:
            raise ExportError(
                f"saved model {model.path}: variables {missing} are missing from "
                f"{checkpoint_path or model.checkpoint_path}"
            )
        self._variables = [jax.numpy.asarray(values[n]) for n in sig.variables]
        self._program = model.program(sig)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if args and kwargs:
            raise ExportError("pass the inputs either all by position or all by name")
        if len(args) > len(self.input_names):
            raise ExportError(
                f"graph {self.signature.graph!r} takes {len(self.input_names)} "
                f"inputs {self.input_names}, got {len(args)}"
            )
        named = dict(zip(self.input_names, args)) if args else kwargs
        inputs = check_inputs(self.signature, named)
        outs = self._program.call(self._variables, *inputs)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def numpy(self, inputs: dict[str, Any]) -> list[np.ndarray]:
        """Runs on host arrays and returns host arrays, in output order (used by serving)."""
        return call(self._program, self._variables, check_inputs(self.signature, inputs))


def load(
    path: str | os.PathLike,
    version: int | ModelVersionPolicy = ModelVersionPolicy.LATEST,
    graph_name: str | None = None,
    signature_name: str | None = None,
) -> LoadedFunction:
    """Loads a saved model's (default) graph and signature as a plain callable."""
    model = SavedModel(path, version)
    return LoadedFunction(model, model.signature(graph_name, signature_name))
