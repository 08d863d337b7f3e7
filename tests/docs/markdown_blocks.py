"""The fenced code blocks of the user's documents (README.md, docs/**/*.md) and how they are
checked: a ```python block runs alone in a fresh interpreter in an empty directory (no
deprecation warning, no deprecation notice); the commands of a ```bash block must exist."""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from tests.timeouts import scaled

REPO = Path(__file__).resolve().parents[2]


def blocks(path: Path, language: str) -> list[tuple[int, str]]:
    """(line number, text) of every fenced block of ``path`` tagged ``language``."""
    text = path.read_text(encoding="utf-8")
    return [
        (text.count("\n", 0, m.start()) + 1, m.group(1))
        for m in re.finditer(rf"^```{language}\n(.*?)^```", text, re.M | re.S)
    ]


def run_python_block(where: str, code: str, tmp_path: Path) -> None:
    """Runs the block as its reader would: a OneFlow program (one that imports ``oneflow``)
    with ``flowjob run``, any other with Python."""
    script = tmp_path / "block.py"
    script.write_text(code, encoding="utf-8")
    oneflow = re.search(r"^(import|from) oneflow\b", code, re.M) is not None
    command = [sys.executable, "-m", "flowjob", "run"] if oneflow else [sys.executable]
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONWARNINGS="error::DeprecationWarning")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    proc = subprocess.run(
        [*command, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=scaled(300),
    )
    assert proc.returncode == 0, f"{where} failed:\n{proc.stdout}\n{proc.stderr}"
    # flowjob prints OneFlow's deprecation notices itself (once per spelling), not as warnings.
    assert "deprecated" not in (proc.stdout + proc.stderr).lower(), f"{where}:\n{proc.stderr}"


def _commands(code: str) -> list[list[str]]:
    out = []
    for raw in code.splitlines():
        line = raw.split(" #", 1)[0].strip()
        if line and not line.startswith("#"):
            words = shlex.split(line.replace("[", "").replace("]", ""))
            while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", words[0]):
                words = words[1:]  # environment assignments before the command
            out.append(words)
    return out


def _flowjob_subcommands() -> set[str]:
    from flowjob_cli import COMMANDS

    return set(COMMANDS)


def _check(words: list[str]) -> str | None:
    """None if the command exists in this checkout/environment, else why not."""
    exe, args = words[0], words[1:]
    if exe == "bash":
        return None if (REPO / args[0]).is_file() else f"no script {args[0]}"
    if exe == "pip":
        return None
    if exe.startswith(".venv/bin/") and exe not in (".venv/bin/flowjob", ".venv/bin/python"):
        exe = exe.removeprefix(".venv/bin/")
    if exe in ("python", "python3", ".venv/bin/python") and args[:1] == ["-m"]:
        module = args[1]
        if module == "flowjob":
            exe, args = "flowjob", args[2:]
        elif module == "pytest":
            return None
        else:
            return None if importlib.util.find_spec(module) else f"no module {module}"
    elif exe in ("python", "python3", ".venv/bin/python"):
        return None if (REPO / args[0]).is_file() else f"no script {args[0]}"
    if exe.endswith("flowjob"):
        if exe != "flowjob" and exe != ".venv/bin/flowjob":
            return f"unexpected flowjob path {exe}"
        return None if args[0] in _flowjob_subcommands() else f"no subcommand {args[0]}"
    if exe in ("tensorboard", "mkdocs"):
        return None if importlib.util.find_spec(exe) else f"{exe} missing"
    return None if shutil.which(exe) else f"no command {exe}"


def bash_block_problems(code: str) -> list[str]:
    return [f"{' '.join(w)}: {why}" for w in _commands(code) if (why := _check(w))]
