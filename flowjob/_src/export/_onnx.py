"""``flow.onnx.export``: an ONNX model of a predict job, built from its op graph.

Variables become initializers. Ops whose inputs are all constant (variables, constants) are
evaluated once here with their own lowering and stored as initializers, so weight
preprocessing never needs an ONNX conversion. The ``onnx`` package is imported only here.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .. import checkpoint
from .._files import atomic_directory, atomic_file, naming_write_errors
from ._program import ExportError, build_program, describe_op, needed_ops

DEFAULT_OPSET = 13
MIN_OPSET = 10  # the oldest oneflow-onnx wrote (its default)


def _variable_values(program: Any, model_save_dir: str | None) -> dict[str, np.ndarray]:
    if model_save_dir is None:
        return program.variable_values()
    values = checkpoint.get(model_save_dir)
    missing = [n for n in program.variable_names if n not in values]
    if missing:
        raise ExportError(
            f"ONNX export of job {program.job_name!r}: checkpoint "
            f"{model_save_dir} lacks variables {missing}"
        )
    return {n: values[n].numpy() for n in program.variable_names}


def export_onnx(
    job_func: Any,
    model_save_dir: str | os.PathLike | None = None,
    onnx_filename: str | os.PathLike = "model.onnx",
    continue_on_error: bool = False,
    opset: int | None = None,
    extra_opset: Any = None,
    shape_override: Any = None,
    external_data: bool = False,
    dynamic_batch_size: bool = False,
) -> str:
    """Writes an ONNX model of ``job_func`` (a predict job) to ``onnx_filename``.

    ``model_save_dir``: a checkpoint (OneFlow directory or safetensors file) holding the
    variables; None takes the session's current values. Inputs are named after the job's
    parameters, outputs after the ops of the returned blobs. ``opset``: 10 (OneFlow's
    default) to the installed onnx package's newest; default 13. OneFlow's
    ``continue_on_error``, ``extra_opset`` and ``shape_override`` are not supported (an
    error when given). ``dynamic_batch_size``: the first dimension of every input and output
    is a free ``batch`` dimension and reshapes infer their leading dimension, so the model runs
    at any batch size (oneflow-onnx 0.3.4's option). Returns the path written.
    """
    for name, value, default in (
        ("continue_on_error", continue_on_error, False),
        ("extra_opset", extra_opset, None),
        ("shape_override", shape_override, None),
    ):
        if value != default:
            raise ExportError(
                f"flow.onnx.export: {name}={value!r} is not supported (every op "
                "is converted or the export fails naming it; shapes are the "
                "job's)"
            )
    try:
        import onnx
        from onnx import helper
    except ImportError:
        raise ExportError(
            "flow.onnx.export needs the onnx package: pip install "
            "'flowjob[onnx]' (or pip install onnx)"
        ) from None

    from . import _onnx_math, _onnx_nn  # noqa: F401 - they fill CONVERTERS
    from ._onnx_graph import CONVERTERS, OnnxGraph, onnx_type

    opset = DEFAULT_OPSET if opset is None else int(opset)
    newest = onnx.defs.onnx_opset_version()
    if not MIN_OPSET <= opset <= newest:
        raise ExportError(
            f"ONNX export: opset {opset} is not supported (expected {MIN_OPSET}..{newest})"
        )
    program = build_program(job_func)
    job = program.job_name
    values = _variable_values(program, os.fspath(model_save_dir) if model_save_dir else None)
    graph = OnnxGraph(opset, free_batch=bool(dynamic_batch_size))
    constants: dict[int, np.ndarray] = {}  # id(blob) -> value of blobs known at export time
    inputs = []
    for spec, blob in program.inputs:
        graph.values[id(blob)] = graph.fresh(spec.name)
        inputs.append(
            helper.make_tensor_value_info(
                graph.values[id(blob)], onnx_type(spec.dtype, f"input {spec.name!r}"), spec.shape
            )
        )
    # reserved before any node takes a name, so outputs keep their signature names
    output_names = [graph.fresh(spec.name) for spec, _ in program.outputs]
    fed = [b for _, b in program.inputs]
    for op in needed_ops(program.graph, [b for _, b in program.outputs], fed):
        if op.kind == "variable":
            constants[id(op.outputs[0])] = np.asarray(values[op.name])
            continue
        if all(id(b) in constants for b in op.inputs):
            out = op.lowering(*(constants[id(b)] for b in op.inputs), **op.attrs)
            for blob, value in zip(op.outputs, out if isinstance(out, tuple) else (out,)):
                constants[id(blob)] = np.asarray(value)
            continue
        for b in op.inputs:
            if id(b) not in graph.values:  # a constant used by a converted op
                graph.values[id(b)] = graph.const(constants[id(b)], b.op_name)
        convert = CONVERTERS.get(op.op_type)
        result = convert(graph, op, [graph.values[id(b)] for b in op.inputs]) if convert else None
        if result is None:
            why = (
                "has no ONNX conversion"
                if convert is None
                else "has attributes its ONNX conversion cannot express"
            )
            shown = ", ".join(f"{k}={v!r}" for k, v in op.attrs.items())
            shown = shown if len(shown) <= 300 else shown[:300] + "..."
            raise ExportError(
                f"ONNX export: {describe_op(op, job)}\n  {why} (attrs: "
                f"{shown or 'none'}); the supported op types are listed in "
                "the README (Serving and export)"
            )
        for blob, name in zip(op.outputs, result if isinstance(result, list) else [result]):
            graph.values[id(blob)] = name
    outputs = []
    for (spec, blob), name in zip(program.outputs, output_names):
        source = graph.values.get(id(blob))
        if source is None:
            source = graph.const(constants[id(blob)], blob.op_name)
        graph.node("Identity", [source], name, names=[name])
        outputs.append(
            helper.make_tensor_value_info(
                name, onnx_type(spec.dtype, f"output {spec.name!r}"), spec.shape
            )
        )
    if dynamic_batch_size:
        for value in (*inputs, *outputs):
            dims = value.type.tensor_type.shape.dim
            if len(dims):
                dims[0].dim_param = "batch"
    model = helper.make_model(
        helper.make_graph(graph.nodes, job, inputs, outputs, graph.initializers),
        opset_imports=[helper.make_opsetid("", opset)],
        producer_name="flowjob",
    )
    onnx.checker.check_model(model)
    return _save(onnx, model, os.fspath(onnx_filename), external_data)


def _save(onnx: Any, model: Any, path: str, external_data: bool) -> str:
    """Staged and renamed (``flowjob._src._files``): a killed export leaves the previous file."""
    if os.path.isdir(path):
        raise ExportError(
            f"flow.onnx.export: onnx_filename {path} is a directory; give a file name "
            "such as model.onnx"
        )
    if not external_data:
        with naming_write_errors("ONNX model", path), atomic_file(path) as f:
            f.write(model.SerializeToString())
        return path
    # The weights go to <file>.data beside the model: both are written in a staging folder,
    # the weights renamed first so the new model never names missing weights.
    base = os.path.basename(path)
    with (
        naming_write_errors("ONNX model", f"{path} (weights: {base}.data)"),
        atomic_directory(path + ".parts", publish=_publish_parts) as staging,
    ):
        onnx.save_model(
            model,
            os.path.join(staging, base),
            save_as_external_data=True,
            location=base + ".data",
        )
    return path


def _publish_parts(staging: str, parts_path: str) -> None:
    target = parts_path[: -len(".parts")]
    base = os.path.basename(target)
    os.replace(os.path.join(staging, base + ".data"), target + ".data")
    os.replace(os.path.join(staging, base), target)
    os.rmdir(staging)
