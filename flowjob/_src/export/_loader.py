"""Reading a saved model back: its signatures, variables and programs (no model source)."""

from __future__ import annotations

import enum
import os
import warnings
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np

from .. import checkpoint
from ._model_files import MANIFEST_FILE, META_FILE, Manifest, check_meta, is_complete, read_json
from ._program import ExportError, TensorSpec
from ._stablehlo import call, check_program, check_variables, deserialize


class ModelVersionPolicy(enum.Enum):
    """Which version of a model directory to load when none is named."""

    LATEST = 1


def resolve_version_dir(
    path: str | os.PathLike, version: int | ModelVersionPolicy = ModelVersionPolicy.LATEST
) -> str:
    """``path`` is a model directory (``<path>/<version>/``) or one version's directory.
    ``LATEST`` is the newest *complete* version (a folder a copy left half-written is passed
    over)."""
    path = os.fspath(path)
    if os.path.lexists(os.path.join(path, META_FILE)):
        return path
    if not os.path.isdir(path):
        raise ExportError(f"saved model {path}: no such directory")
    if isinstance(version, ModelVersionPolicy):
        numbered = [
            int(d) for d in os.listdir(path) if d.isdigit() and os.path.isdir(os.path.join(path, d))
        ]
        versions = [v for v in numbered if is_complete(os.path.join(path, str(v)))]
        if not versions:
            found = f" (incomplete versions: {sorted(numbered)})" if numbered else ""
            raise ExportError(
                f"saved model {path}: no complete version directory (expected "
                f"{path}/<version>/{META_FILE} and {MANIFEST_FILE}){found}"
            )
        version = max(versions)
    version_dir = os.path.join(path, str(version))
    if not os.path.lexists(os.path.join(version_dir, META_FILE)):
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


class UncheckedModelWarning(UserWarning):
    """A saved model without a manifest was loaded: none of its files could be checked."""


def unchecked_message(path: str) -> str:
    """What loading and ``flowjob doctor`` say about a version folder without a manifest."""
    return (
        f"saved model {path} has no {MANIFEST_FILE} ({META_FILE} says format_version 1: "
        "written by a flowjob before manifests, or its manifest was deleted), so none of its "
        "files can be checked for damage; save the model again to get a manifest"
    )


class SavedModel:
    """One version of a saved model: metadata and variables read at once, programs when used."""

    def __init__(
        self, path: str | os.PathLike, version: int | ModelVersionPolicy = ModelVersionPolicy.LATEST
    ):
        self.path = resolve_version_dir(path, version)
        self.manifest = Manifest(self.path)
        self.manifest.check(META_FILE)
        self.meta = read_json(self.path, META_FILE)
        check_meta(self.path, self.meta)
        if self.meta["format_version"] >= 2 and self.manifest.files is None:
            raise ExportError(f"saved model {self.path}: {MANIFEST_FILE} is missing")
        if self.manifest.files is None:
            # format 1 cannot be told from a format-2 model whose manifest was deleted and
            # whose format_version was edited: never loaded silently unchecked
            warnings.warn(unchecked_message(self.path), UncheckedModelWarning, stacklevel=3)
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

    def verify(self) -> int:
        """Checks every file the manifest lists (size, CRC-32C, streamed); the file count.
        A model saved before manifests existed (format 1) is an error: nothing to check."""
        if self.manifest.files is None:
            raise ExportError(unchecked_message(self.path))
        for rel in self.manifest.files:
            self.manifest.check(rel)
        return len(self.manifest.files)

    def variables(self, checkpoint_path: str | None = None) -> dict[str, np.ndarray]:
        if checkpoint_path is not None:
            return _read_variables(checkpoint_path)
        if self._variables is None:
            self.manifest.check(self.meta["checkpoint_dir"])
            self._variables = _read_variables(self.checkpoint_path)
        return self._variables

    def program(self, sig: Signature) -> Any:
        """The signature's program, checked against the manifest and the signature."""
        exp = self._programs.get(sig.program)
        if exp is None:
            path = os.path.join(self.path, sig.program)
            try:
                exp = deserialize(self.manifest.read(sig.program), path)
            except OSError as exc:
                raise ExportError(f"saved model file {path}: cannot read ({exc})") from None
            check_program(exp, sig, path, parse=self.manifest.files is None)
            self._programs[sig.program] = exp
        return exp


def _read_variables(path: str) -> dict[str, np.ndarray]:
    try:
        return {n: v.numpy() for n, v in checkpoint.get(path).items()}
    except (OSError, ValueError) as exc:
        raise ExportError(f"saved model variables {path}: {exc}") from None


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
        if shape and shape[0] == 0 and spec.shape and spec.shape[0] != 0:
            raise ExportError(
                f"graph {sig.graph!r}: input {spec.name!r} has batch size 0 (shape {shape}); "
                "a saved model runs on at least one row"
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
        self._program = model.program(sig)
        check_variables(self._program, sig, values, checkpoint_path or model.checkpoint_path)
        self._variables = [jax.numpy.asarray(values[n]) for n in sig.variables]

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
