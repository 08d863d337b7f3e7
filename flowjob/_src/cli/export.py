"""``flowjob export PROGRAM``: a predict job and a checkpoint -> saved model and/or ONNX."""

from __future__ import annotations

import argparse
import os
import runpy
import sys
import time

from flowjob_cli import COMMANDS

from ._usage import UsageError, existing_file

_DESCRIPTION = """\
Loads PROGRAM (a Python file that defines the predict job with @flow.global_function; it is
run with __name__ set to "__flowjob_export__", so its `if __name__ == "__main__":` part does
not run; `import oneflow` works as under `flowjob run`), loads the variables of --checkpoint
(a OneFlow checkpoint directory or a safetensors file) and writes a saved model
(--saved-model DIR: DIR/<version>/) and/or an ONNX model (--onnx FILE)."""


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "export",
        help=COMMANDS["export"],
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("program", help="Python file defining the predict job")
    parser.add_argument(
        "--job", help="name of the job to export (default: the program's only predict job)"
    )
    parser.add_argument(
        "--checkpoint",
        help="variables to load (default: the values the program leaves, e.g. its initializers)",
    )
    parser.add_argument(
        "--saved-model", metavar="DIR", help="write a saved model to DIR/<version>/"
    )
    parser.add_argument("--model-name", help="saved model name (default: the job's name)")
    parser.add_argument("--version", type=int, default=1, help="saved model version (default 1)")
    parser.add_argument(
        "--fixed-batch",
        action="store_true",
        help="keep the traced batch size (default: a free batch size where the job allows it)",
    )
    parser.add_argument("--onnx", metavar="FILE", help="write an ONNX model to FILE")
    parser.add_argument("--opset", type=int, default=None, help="ONNX opset (default 13)")
    return parser


def _progress(start: float, message: str) -> None:
    print(f"[{time.perf_counter() - start:6.1f}s] {message}", flush=True)


def _load_program(path: str) -> None:
    from ..compat import aliased

    directory = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, directory)  # the program's own imports (as `python PROGRAM` would)
    try:
        with aliased():
            runpy.run_path(path, run_name="__flowjob_export__")
    finally:
        sys.path.remove(directory)


def _pick_job(name: str | None):
    from ..graph import JobType
    from ..runtime import default_session

    jobs = default_session().jobs
    predict = [job for job in jobs.values() if job.job_type == JobType.PREDICT]
    if name is not None:
        if name not in jobs:
            raise ValueError(
                f"the program defines no job {name!r} (jobs: {', '.join(jobs) or 'none'})"
            )
        return jobs[name]
    if len(predict) != 1:
        shown = ", ".join(job.__name__ for job in predict) or "none"
        raise ValueError(
            f"the program defines {len(predict)} predict jobs ({shown}); name "
            "the one to export with --job"
        )
    return predict[0]


def run(args: argparse.Namespace) -> int:
    if not args.saved_model and not args.onnx:
        print(
            "flowjob export: error: nothing to write; give --saved-model DIR and/or --onnx FILE",
            file=sys.stderr,
        )
        return 2
    existing_file(args.program, "program")
    if args.checkpoint and not os.path.exists(args.checkpoint):
        raise UsageError(f"checkpoint {args.checkpoint}: no such file or directory")
    import flowjob as flow

    start = time.perf_counter()
    try:
        _progress(start, f"loading program {args.program}")
        _load_program(args.program)
        job = _pick_job(args.job)
        _progress(start, f"exporting job {job.__name__!r}")
        if args.checkpoint:
            _progress(start, f"loading variables from {args.checkpoint}")
            flow.load_variables(flow.checkpoint.get(args.checkpoint))
        if args.saved_model:
            target = os.path.join(args.saved_model, str(args.version))
            _progress(start, f"writing saved model {target}")
            builder = flow.saved_model.ModelBuilder(args.saved_model)
            builder.ModelName(args.model_name or job.__name__).Version(args.version)
            builder.BatchPolymorphic(False if args.fixed_batch else None)
            builder.AddFunction(job)
            builder.Save()
            model = flow.saved_model.load(target)
            sig = model.signature
            batch = "any batch size" if sig.batch_polymorphic else "fixed batch size"
            ins = ", ".join(f"{s.name} {list(s.shape)} {s.dtype}" for s in sig.inputs)
            _progress(start, f"saved model written: inputs {ins}; {batch}")
        if args.onnx:
            _progress(start, f"writing ONNX model {args.onnx}")
            flow.onnx.export(job, None, args.onnx, opset=args.opset)
            _progress(start, f"ONNX model written ({os.path.getsize(args.onnx)} bytes)")
    except (flow.FlowJobError, ValueError, OSError) as exc:
        print(f"flowjob export: error: {exc}", file=sys.stderr)
        return 1
    return 0
