"""docs/guides/migrating.md works as written: its ```python blocks run (each alone, in a fresh
interpreter in an empty directory) and its ```bash commands exist."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.test_readme import _check, _commands

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "guides" / "migrating.md"
TEXT = PAGE.read_text(encoding="utf-8")


def _blocks(language: str) -> list[tuple[int, str]]:
    return [
        (TEXT.count("\n", 0, m.start()) + 1, m.group(1))
        for m in re.finditer(rf"^```{language}\n(.*?)^```", TEXT, re.M | re.S)
    ]


PYTHON, BASH = _blocks("python"), _blocks("bash")


@pytest.mark.parametrize("line,code", PYTHON, ids=[f"line{line}" for line, _ in PYTHON])
def test_python_block_runs(line, code, tmp_path):
    (tmp_path / "block.py").write_text(code, encoding="utf-8")
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONWARNINGS="error::DeprecationWarning")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    proc = subprocess.run(
        [sys.executable, "block.py"], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, f"migrating.md block at line {line}:\n{proc.stderr}"


@pytest.mark.parametrize("line,code", BASH, ids=[f"line{line}" for line, _ in BASH])
def test_bash_block_commands_exist(line, code):
    problems = [f"{' '.join(w)}: {why}" for w in _commands(code) if (why := _check(w))]
    assert not problems, f"migrating.md block at line {line}: {problems}"
