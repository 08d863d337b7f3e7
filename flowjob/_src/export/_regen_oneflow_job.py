"""Regenerates ``_oneflow_job_pb2.py`` from ``oneflow_job.proto`` with protoc.

``python -m flowjob._src.export._regen_oneflow_job`` rewrites the committed file;
``python -m flowjob._src.export._regen_oneflow_job --output DIR`` writes it into DIR instead (the
test compares the two). Needs protoc: ``grpc_tools.protoc`` from ``pip install
grpcio-tools==1.62.3`` (libprotoc 25.1, which made the committed file; its code runs on
protobuf 4.25 and later), or ``--protoc PATH`` for a protoc executable of that version.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCHEMA = HERE / "oneflow_job.proto"
GENERATED = HERE / "_oneflow_job_pb2.py"


def protoc_command(protoc: str | None) -> list[str] | None:
    """How to run protoc: the given executable, else ``grpc_tools.protoc`` if installed, else
    ``protoc`` on PATH."""
    if protoc:
        return [protoc] if shutil.which(protoc) else None
    if importlib.util.find_spec("grpc_tools") is not None:
        return [sys.executable, "-m", "grpc_tools.protoc"]
    return ["protoc"] if shutil.which("protoc") else None


def generate(output: Path, command: list[str]) -> Path:
    """Runs protoc's Python generator on the schema; writes ``output/_oneflow_job_pb2.py``
    and returns its path."""
    with tempfile.TemporaryDirectory() as work:
        subprocess.run(
            [*command, f"-I{HERE}", f"--python_out={work}", SCHEMA.name],
            check=True,
            capture_output=True,
            text=True,
            cwd=HERE,
        )
        target = Path(output) / GENERATED.name
        shutil.copyfile(Path(work) / f"{SCHEMA.stem}_pb2.py", target)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m flowjob._src.export._regen_oneflow_job", description=__doc__
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=HERE,
        help="folder to write _oneflow_job_pb2.py into (default: the package)",
    )
    parser.add_argument("--protoc", help="a protoc executable (default: grpc_tools.protoc)")
    args = parser.parse_args(argv)
    command = protoc_command(args.protoc)
    if command is None:
        parser.error("no protoc: pip install grpcio-tools==1.62.3, or pass --protoc PATH")
    print(generate(args.output, command))
    return 0


if __name__ == "__main__":
    sys.exit(main())
