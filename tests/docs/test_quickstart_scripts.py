"""scripts/_venv.sh installs into .venv only when needed (first run, pyproject.toml or EXTRAS
changed) and says so, instead of re-running ``pip install -e`` on every run.

The venv is a stand-in: ``.venv/bin/python`` logs ``-m pip`` calls and runs everything else
with this interpreter, so the script's own logic runs for real without a network."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.timeouts import scaled

REPO = Path(__file__).resolve().parents[2]


def make_checkout(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    (root / "scripts").mkdir(parents=True)
    shutil.copy(REPO / "scripts" / "_venv.sh", root / "scripts" / "_venv.sh")
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    shutil.copytree(
        REPO / "kernels" / "onednn",
        root / "kernels" / "onednn",
        ignore=shutil.ignore_patterns("build", "*.egg-info", "*.so"),
    )
    bin_dir = root / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    fake = bin_dir / "python"
    fake.write_text(
        '#!/bin/bash\nif [ "$1" = "-m" ] && [ "$2" = "pip" ]; then\n'
        f'  echo "$*" >> {root}/pip.log; exit 0\nfi\n'
        f'exec {sys.executable} "$@"\n'
    )
    fake.chmod(0o755)
    return root


def source(root: Path, extras: str = "", onednn: str = "0") -> str:
    """Sources _venv.sh; the optional oneDNN build is off unless ``onednn="1"``."""
    proc = subprocess.run(
        ["bash", "-c", f'EXTRAS="{extras}" FLOWJOB_ONEDNN={onednn} source scripts/_venv.sh'],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=scaled(60),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def pip_calls(root: Path) -> list[str]:
    log = root / "pip.log"
    return log.read_text().splitlines() if log.exists() else []


def test_installs_once_then_only_when_pyproject_or_extras_change(tmp_path):
    root = make_checkout(tmp_path)
    first = source(root)
    assert "installing flowjob" in first and "first time" in first  # not ~20 s of silence
    assert pip_calls(root) == ["-m pip install --progress-bar on -e ."]
    assert source(root) == "" and len(pip_calls(root)) == 1  # second run: nothing to do
    source(root, "[test]")
    assert pip_calls(root)[-1] == "-m pip install --progress-bar on -e .[test]"
    assert source(root, "[test]") == "" and source(root) == "" and len(pip_calls(root)) == 2
    with open(root / "pyproject.toml", "a") as f:
        f.write("\n# changed\n")
    source(root)
    assert len(pip_calls(root)) == 3


def test_a_failed_install_is_retried(tmp_path):
    root = make_checkout(tmp_path)
    fake = root / ".venv" / "bin" / "python"
    fake.write_text(fake.read_text().replace("exit 0", "exit 1"))
    proc = subprocess.run(
        ["bash", "-c", "source scripts/_venv.sh"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=scaled(60),
    )
    assert proc.returncode != 0
    assert not list((root / ".venv").glob(".flowjob-installed*"))  # no stamp: next run retries


def test_optional_kernels_build_once_and_a_failed_build_keeps_xla(tmp_path):
    root = make_checkout(tmp_path)
    out = source(root, onednn="1")
    if "no C++ compiler" in out:
        assert pip_calls(root) == ["-m pip install --progress-bar on -e ."]
        return
    assert "oneDNN kernels installed" in out
    assert pip_calls(root)[1:] == [
        "-m pip install -q -e .[kernels]",
        "-m pip install -q --no-build-isolation ./kernels/onednn",
    ]
    assert source(root, onednn="1") == "" and len(pip_calls(root)) == 3
    (root / "kernels" / "onednn" / "src" / "conv_ffi.cc").write_text("// changed\n")
    fake = root / ".venv" / "bin" / "python"  # the kernel build fails, flowjob's install not
    fake.write_text(
        fake.read_text().replace("then\n", 'then\n  case "$*" in *kernels*) exit 1;; esac\n', 1)
    )
    out = source(root, onednn="1")
    assert "oneDNN kernels not built" in out and "using XLA's convolutions" in out
