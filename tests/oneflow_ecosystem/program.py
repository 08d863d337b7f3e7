"""What the ecosystem runner knows about one program: where it is, how it is run, the small
data it is given, and the cause that stops it where OneFlow needed the same thing."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable
from pathlib import Path

from tests.upstream import Upstream


class Cause(enum.Enum):
    """What a program needs that OneFlow also needed and a CPU-only flowjob run lacks."""

    GPU_ONLY = "GPU-only kernel"
    CPP_OP_LIBRARY = "C++ op library"
    PRIVATE_DATA = "private data"


@dataclasses.dataclass(frozen=True)
class Known:
    """A named cause: ``detail`` says what exactly (the kernel, library or file); the run
    counts as stopped by it only when its output matches ``marker`` (it got that far)."""

    cause: Cause
    detail: str
    marker: str


@dataclasses.dataclass(frozen=True)
class Program:
    repo: Upstream
    script: str  # its path in the repository
    args: tuple[str, ...] = ()
    data: Callable[[Path], None] | None = None  # writes its small data into the run folder
    folder: str | None = None  # the part of the repository copied (default: script's top folder)
    workdir: str | None = None  # the run folder in the copy (default: the script's folder)
    known: Known | None = None
    expect: str = ""  # a regex its output must match to pass (default: exit status 0 only)
    # a training loop it cannot be told to shorten (epochs hard-coded): it passes, and is
    # ended, once a line of its output matches this
    stop_after: str = ""
    timeout: float = 600.0
    covered_by: str = ""  # a pytest node of another test file that runs the program instead
    label: str = ""  # tells apart two entries of one script
    # programs of the same copy run first, (script, args) each: what makes this one's input
    # (a checkpoint a trainer saves for its evaluator)
    before: tuple[tuple[str, tuple[str, ...]], ...] = ()
    pythonpath: tuple[str, ...] = ()  # folders of the copy its imports expect on the path
    # other repositories' packages it imports, (repository, folder): copied beside the
    # program's copy and put on the path (its clone is needed too)
    requires: tuple[tuple[Upstream, str], ...] = ()
    # a test module without a main: run as `python -m unittest <module>` ran it (a two-line
    # driver that calls unittest.main is written next to it and run with flowjob run)
    unittest: bool = False

    @property
    def name(self) -> str:
        suffix = f" [{self.label}]" if self.label else ""
        return f"{self.repo.name}/{self.script}{suffix}"

    @property
    def copied(self) -> str:
        if self.folder is not None:
            return self.folder
        return self.script.split("/")[0] if "/" in self.script else ""

    @property
    def run_folder(self) -> str:
        if self.workdir is not None:
            return self.workdir
        return self.script.rpartition("/")[0]
