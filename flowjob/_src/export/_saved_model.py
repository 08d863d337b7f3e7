"""``flow.saved_model``: OneFlow's builders writing a versioned, self-contained saved model.

Layout of ``<save_path>/<version>/``::

    saved_model.json            name, version, graphs -> signatures (input/output names,
                                logical blob names, shapes, dtypes), program files
    saved_model.manifest.json   size and CRC-32C of every other file (written last)
    variables.safetensors       the variables the programs read
    programs/<graph>/<signature>.jaxexport   the forward program (jax.export, StableHLO)

Nothing in it refers to the model's Python source: ``flowjob.saved_model.load`` and
``flow.serving.InferenceSession`` run it with JAX alone.
"""

from __future__ import annotations

import json
import os
from typing import Any

from .. import checkpoint
from .._files import atomic_directory, write_file
from ._model_files import FORMAT, FORMAT_VERSION, META_FILE, write_manifest
from ._program import ExportError, build_program
from ._stablehlo import serialize

DEFAULT_SIGNATURE = "default"


class ModelBuilder:
    """Collects jobs (``AddFunction``) and writes them with their variables (``Save``)."""

    DEFAULT_CHECKPOINT_DIR = "variables.safetensors"
    DEFAULT_SAVED_MODEL_FILE_BASENAME = "saved_model"

    def __init__(self, save_path: str | os.PathLike):
        if not isinstance(save_path, (str, os.PathLike)):
            raise ExportError(f"ModelBuilder: save_path must be a path, got {save_path!r}")
        self.saved_model_dir = os.fspath(save_path)
        self.name: str | None = None
        self.version: int | None = None
        self.default_graph_name: str | None = None
        self.graph_builders: dict[str, GraphBuilder] = {}
        self.batch_polymorphic: bool | None = None

    def ModelName(self, model_name: str) -> ModelBuilder:  # noqa: N802 - OneFlow's spelling
        if not isinstance(model_name, str) or not model_name:
            raise ExportError(f"ModelName: expected a non-empty str, got {model_name!r}")
        self.name = model_name
        return self

    def Version(self, version: int) -> ModelBuilder:  # noqa: N802
        if not isinstance(version, int) or isinstance(version, bool) or version < 0:
            raise ExportError(f"Version: expected an int >= 0, got {version!r}")
        self.version = version
        return self

    def BatchPolymorphic(self, value: bool | None = True) -> ModelBuilder:  # noqa: N802
        """flowjob's addition: True requires programs that run at any batch size, False keeps
        the traced one; None (default) tries a free batch size and falls back quietly."""
        self.batch_polymorphic = value
        return self

    def AddFunction(self, func: Any) -> GraphBuilder:  # noqa: N802
        name = getattr(func, "__name__", None)
        if name in self.graph_builders:
            raise ExportError(f"AddFunction: a function named {name!r} is already added")
        builder = GraphBuilder(name, self, job=func)
        if self.default_graph_name is None:
            self.default_graph_name = name
        return builder

    def Save(self, save_model_before_graph_complete: bool = True) -> None:  # noqa: N802
        """Writes ``<save_path>/<version>/``; the version directory must not exist."""
        if self.version is None:
            raise ExportError("ModelBuilder.Save: model version is not set (call .Version(n))")
        if not self.graph_builders:
            raise ExportError("ModelBuilder.Save: no function added (call .AddFunction(job))")
        version_dir = os.path.join(self.saved_model_dir, str(self.version))
        if os.path.exists(version_dir):
            raise ExportError(
                f"ModelBuilder.Save: {version_dir} already exists (model "
                f"{self.name!r} version {self.version})"
            )
        for graph in self.graph_builders.values():
            if not graph.finished:
                graph.Finish()
        _check_name_conflicts(self.graph_builders.values())
        # Built in a hidden sibling and renamed (mode from the umask, like checkpoints): a
        # failed or killed save leaves no version, and the next save removes its leftovers.
        try:
            with atomic_directory(version_dir) as staging:
                meta = self._write(staging)
                write_file(os.path.join(staging, META_FILE), [json.dumps(meta, indent=1).encode()])
                write_manifest(staging)
        except FileExistsError:
            raise ExportError(
                f"ModelBuilder.Save: {version_dir} appeared while the model was being written"
            ) from None

    def _write(self, root: str) -> dict[str, Any]:
        graphs: dict[str, Any] = {}
        values: dict[str, Any] = {}
        for gname, graph in self.graph_builders.items():
            signatures = {}
            for sname, sig in graph.signatures().items():
                program = build_program(graph.job, sig.inputs or None, sig.outputs or None)
                program_values = program.variable_values()
                values.update(program_values)
                serialized = serialize(program, program_values, self.batch_polymorphic)
                rel = os.path.join("programs", gname, f"{sname}.jaxexport")
                os.makedirs(os.path.join(root, "programs", gname), exist_ok=True)
                write_file(os.path.join(root, rel), [serialized.data])
                signatures[sname] = {
                    "inputs": {s.name: s.to_json() for s, _ in program.inputs},
                    "outputs": {s.name: s.to_json() for s, _ in program.outputs},
                    "variables": program.variable_names,
                    "program": rel.replace(os.sep, "/"),
                    "batch_polymorphic": serialized.batch_polymorphic,
                    "batch_note": serialized.batch_note,
                    "platforms": list(serialized.platforms),
                }
            graphs[gname] = {
                "default_signature_name": graph.default_signature_name,
                "signatures": signatures,
            }
        checkpoint.save(
            os.path.join(root, self.DEFAULT_CHECKPOINT_DIR), values, format="safetensors"
        )
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "name": self.name or self.default_graph_name,
            "version": self.version,
            "checkpoint_dir": self.DEFAULT_CHECKPOINT_DIR,
            "default_graph_name": self.default_graph_name,
            "graphs": graphs,
        }


class GraphBuilder:
    """One job of a saved model and its signatures (named inputs and outputs)."""

    def __init__(self, name: str, model_builder: ModelBuilder | None = None, *, job: Any = None):
        if not isinstance(name, str):
            raise ExportError(f"GraphBuilder: name must be a str, got {name!r}")
        if model_builder is not None:
            if name in model_builder.graph_builders:
                raise ExportError(
                    f"graph {name!r} is already added to model {model_builder.name!r}"
                )
            model_builder.graph_builders[name] = self
        self.name = name
        self.owner = model_builder
        self.job = job
        self.finished = False
        self.default_signature_name: str | None = None
        self.signature_builders: dict[str, SignatureBuilder] = {}

    def AddSignature(self, signature_name: str) -> SignatureBuilder:  # noqa: N802
        return SignatureBuilder(signature_name, self)

    def Finish(self) -> GraphBuilder:  # noqa: N802
        """Checks that every signature names blobs of the job."""
        if self.finished:
            raise ExportError(f"graph {self.name!r} is already finished")
        if self.job is None:
            raise ExportError(
                f"graph {self.name!r} has no job: create it with ModelBuilder.AddFunction(job)"
            )
        for sig in self.signatures().values():
            build_program(self.job, sig.inputs or None, sig.outputs or None)
        self.finished = True
        return self

    def signatures(self) -> dict[str, SignatureBuilder]:
        """The signatures; a graph given none has one: its arguments and returned blobs."""
        if not self.signature_builders:
            SignatureBuilder(DEFAULT_SIGNATURE, self)
        return self.signature_builders

    def OwnerModelBuilder(self) -> ModelBuilder | None:  # noqa: N802
        return self.owner

    def AsDefault(self) -> GraphBuilder:  # noqa: N802
        if self.owner is not None:
            self.owner.default_graph_name = self.name
        return self


class SignatureBuilder:
    """Names a job's inputs and outputs: ``Input(name, lbn)``, ``Output(name, lbn)``."""

    def __init__(self, name: str, graph_builder: GraphBuilder | None = None):
        if not isinstance(name, str):
            raise ExportError(f"SignatureBuilder: name must be a str, got {name!r}")
        if graph_builder is not None:
            if name in graph_builder.signature_builders:
                raise ExportError(
                    f"signature {name!r} already exists in graph {graph_builder.name!r}"
                )
            graph_builder.signature_builders[name] = self
            if graph_builder.default_signature_name is None:
                graph_builder.default_signature_name = name
        self.name = name
        self.owner = graph_builder
        self.inputs: dict[str, str] = {}
        self.outputs: dict[str, str] = {}

    def _add(self, kind: str, table: dict[str, str], name: str, lbn: str) -> SignatureBuilder:
        if not isinstance(name, str) or not isinstance(lbn, str) or "/" not in lbn:
            raise ExportError(
                f"signature {self.name!r}: {kind}(name, lbn) takes two strings, "
                f"the lbn as 'op_name/blob_name', got {name!r}, {lbn!r}"
            )
        if name in table:
            raise ExportError(
                f"signature {self.name!r}: {kind.lower()} name {name!r} is already used"
            )
        table[name] = lbn
        return self

    def Input(self, input_name: str, lbn: str) -> SignatureBuilder:  # noqa: N802
        return self._add("Input", self.inputs, input_name, lbn)

    def Output(self, output_name: str, lbn: str) -> SignatureBuilder:  # noqa: N802
        return self._add("Output", self.outputs, output_name, lbn)

    def OwnerGraphBuilder(self) -> GraphBuilder | None:  # noqa: N802
        return self.owner

    def AsDefault(self) -> SignatureBuilder:  # noqa: N802
        if self.owner is not None:
            self.owner.default_signature_name = self.name
        return self


def _check_name_conflicts(graphs: Any) -> None:
    """As OneFlow: within a graph, an input/output name and a blob are bound once."""
    for graph in graphs:
        for sig in graph.signatures().values():
            names: set[str] = set()
            lbns: set[str] = set()
            for name, lbn in [*sig.inputs.items(), *sig.outputs.items()]:
                if name in names or lbn in lbns:
                    raise ExportError(
                        f"signature {sig.name!r} of graph {graph.name!r}: "
                        f"{name!r} -> {lbn!r} conflicts with another input or "
                        "output of the same name or blob"
                    )
                names.add(name)
                lbns.add(lbn)
