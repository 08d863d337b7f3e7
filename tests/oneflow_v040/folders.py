"""The folders of OneFlow v0.4.0's test tree (``oneflow/python/test``) besides ``ops/``, and
how each runs here: as OneFlow's CI ran it (``ci/test/*.sh`` and ``.github/workflows/test.yml``
at the tag), each file unchanged through ``flowjob run``.

``run_entry`` runs one file of a folder and classifies the outcome like ``run_file`` does for
``ops/``; ``verdict`` (in ``suite.py``'s terms) turns an expected outcome (a known cause that
the run's error must match) into the file's result.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import tempfile
from pathlib import Path

from ._run import HELPERS, Result, classify, execute, first_error, run_env, timed_out


@dataclasses.dataclass(frozen=True)
class Folder:
    name: str
    kind: str  # "unittest": python3 FILE -v (2, 4 devices: discovery); "script": runs to its
    # end; "absl": absltest runner run in a copy of the folder; "discover": unittest discover
    eager: bool  # ONEFLOW_TEST_ENABLE_EAGER=1, as the CI job that ran the folder set it
    ci: str  # how OneFlow's CI ran the folder (for README.md / RESULTS.md)
    devices: bool = False  # also at the counts of its skip_unless_1n<N>d classes


FOLDERS: dict[str, Folder] = {
    folder.name: folder
    for folder in (
        Folder(
            "modules",
            "unittest",
            True,
            "`ci/test/1node_test.sh` with `ONEFLOW_TEST_DIR=.../modules` in the "
            "`cuda_new_interface` job (`ONEFLOW_TEST_ENABLE_EAGER=1`): each file as a script, "
            "then discovery at 2 and 4 devices",
            devices=True,
        ),
        Folder(
            "tensor",
            "unittest",
            True,
            "as `modules/` (`ONEFLOW_TEST_DIR=.../tensor`, eager)",
            devices=True,
        ),
        Folder(
            "xrt",
            "unittest",
            False,
            "`ci/test/test_xla.sh` (the `xla` job): `python3 FILE` for each `xrt/*.py`",
        ),
        Folder(
            "onnx",
            "absl",
            False,
            "`ci/test/onnx_export_model_test.sh`: in a copy of the folder, `python3 "
            "test_model.py` and `python3 test_node.py test_conv test_pooling` (here: all of "
            "`test_node.py`)",
        ),
        Folder(
            "custom_ops",
            "discover",
            False,
            "`ci/test/1node_custom_op_test.sh` (the `cpu` job): in a copy, `python3 -m "
            "unittest discover ./custom_ops`",
        ),
        Folder("customized", "script", False, "not run by CI: scripts, run to their end"),
        Folder("demos", "script", False, "not run by CI: a script, run to its end"),
        Folder("deprecated", "script", False, "not run by CI: scripts, run to their end"),
    )
}
# Folders of the tree that other runners of this repository cover.
ELSEWHERE: dict[str, str] = {
    "models": "`tests/oneflow_models` (through OneFlow's `1node_test.py` / "
    "`eager_1node_test.py`, as `ci/test/1node_model_test.sh`)",
    "serving": "`tests/export/test_oneflow_serving.py` (as `ci/test/1node_model_serve_test.sh`)",
}
# Modules of a folder that hold no test (imported by the others).
FOLDER_HELPERS: dict[str, frozenset[str]] = {
    "modules": HELPERS | {"resnet50_model.py"},
    "onnx": frozenset({"util.py"}),
}
_ONNX_RUNNERS = ("test_node.py", "test_model.py")  # each runs a subfolder's test files


def folder_files(root: Path, folder: str) -> list[str]:
    """The entries of ``folder`` of the extracted tree ``root`` (``oneflow/python/test``), as
    ``"folder/name"``: its test files (``test_*.py``; every ``.py`` of a script folder; the
    two runners of ``onnx/``; ``custom_ops/`` as its one test file)."""
    kind = FOLDERS[folder].kind
    if folder == "onnx":
        names = list(_ONNX_RUNNERS)
    else:
        pattern = "*.py" if kind == "script" else "test_*.py"
        helpers = FOLDER_HELPERS.get(folder, HELPERS)
        names = [p.name for p in (root / folder).glob(pattern) if p.name not in helpers]
    return sorted(f"{folder}/{name}" for name in names)


def run_entry(
    entry: str, root: Path, timeout: float = 600.0, devices: int = 1, prepare=None
) -> Result:
    """Runs ``entry`` (``"folder/name"`` of the extracted tree ``root``) as its folder's CI
    did (``FOLDERS``), at ``devices`` devices, in a fresh temporary folder.

    ``prepare``: a stand-in for private data (``suite.STANDINS``): called with (the file's
    path, the working folder), it returns the path of the file to run (e.g. a copy whose
    ``/dataset`` paths name stand-in data written into the working folder)."""
    folder_name, name = entry.split("/", 1)
    folder = FOLDERS[folder_name]
    env = run_env(devices, folder.eager)
    with tempfile.TemporaryDirectory(prefix="oneflow_v040_") as tmp:
        work = Path(tmp)
        path = root / entry
        if folder.kind in ("absl", "discover"):  # run in a copy of the folder, as the CI did
            shutil.copytree(root / folder_name, work / folder_name)
            work = work / folder_name if folder.kind == "absl" else work
            path = work / name if folder.kind == "absl" else path
        if prepare is not None:
            path = prepare(path, work)
        discover = str(Path(__file__).resolve().parent / "_discover.py")
        if folder.kind == "discover":  # python3 -m unittest discover ./FOLDER --failfast
            args = [discover, str(work / folder_name)]
        elif folder.kind == "unittest" and devices > 1:
            args = [discover, str(path)]
        else:
            args = [str(path), *(["-v"] if folder.kind == "unittest" else [])]
        code, out, seconds = execute(args, work, env, timeout)
    if code is None:
        result = timed_out(entry, devices, seconds, timeout, out)
    elif folder.kind == "script":
        result = script_result(entry, code, out, seconds, devices)
    else:
        result = classify(entry, code, out, seconds, devices)
    result.eager = folder.eager
    return result


def script_result(entry: str, code: int, out: str, seconds: float, devices: int = 1) -> Result:
    """A script (no unittest) passes when it runs to its end (exit status 0)."""
    if code == 0:
        return Result(entry, "pass", devices, seconds=seconds, output=out)
    error = first_error(out) or f"exit status {code}"
    return Result(entry, "fail", devices, failed=1, seconds=seconds, error=error, output=out)


@dataclasses.dataclass(frozen=True)
class Expected:
    """A known outcome of a file: ``kind`` (the result the table shows, e.g. "broken
    upstream", "needs private data", "needs C++ library"), ``cause`` (said in the table) and
    ``error``, a pattern the run's first error line must match (else the file counts as a
    plain failure, so a cause cannot go stale)."""

    kind: str
    cause: str
    error: str

    def matches(self, result: Result) -> bool:
        return result.status == "fail" and re.search(self.error, result.error) is not None
