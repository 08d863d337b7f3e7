"""OneFlow's documentation programs (v0.4.0), each run unchanged through ``flowjob run``.

A program listed with a known cause is an expected failure, and one that passes is reported
as a failure (remove its cause from ``programs.py``). Programs that build C++ ops must stop
with flowjob's ``NativeBuildError`` naming the library. The list covers every program: the
Chinese tree's other files differ from their English twins in comments only. A program
written for two hosts must stop with a ``ConfigError`` on one machine.
"""

from __future__ import annotations

import importlib
import io
import re
import tokenize
from pathlib import Path

import pytest

from flowjob.errors import ConfigError, NativeBuildError
from tests.third_party import skip_if_missing_module

from ._run import run_program
from .programs import PROGRAMS, TWO_HOSTS_DEFECT, Outcome, Program

BY_ID = {p.id: p for p in PROGRAMS}
# Python files that programs import (custom op module parts), not programs of their own.
MODULES = {
    "cn/extended_topics/python_op/user_relu/user_relu_py_api.py",
    "cn/extended_topics/python_op/user_relu/user_relu_py_kernel.py",
}
# The last traceback line: "package.module.ErrorClass: message".
RAISED = re.compile(r"^([\w.]+)\.(\w+): (.*)$", re.M)


def _code_only(text: str) -> list[tuple[int, str]]:
    """The program's tokens without comments and layout: what runs."""
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    return [(t.type, t.string) for t in tokens if t.type not in skip]


def test_the_list_covers_every_program(docs):
    found = {
        f"{lang}/{path.relative_to(code).as_posix()}"
        for lang, code in docs.items()
        for path in code.rglob("*.py")
    }
    listed = set(BY_ID) | MODULES
    english = {f for f in found if f.startswith("en/")}
    assert english - listed == set()
    for name in sorted(found - listed):  # Chinese files not listed: same code as English
        twin = docs["en"] / name[3:]
        assert twin.is_file(), f"{name} has no English twin and is not listed"
        ours = (docs["cn"] / name[3:]).read_text(encoding="utf-8")
        assert _code_only(ours) == _code_only(twin.read_text(encoding="utf-8")), name
    assert listed - found == set()


def _raised(stderr: str) -> tuple[type, str]:
    found = RAISED.findall(stderr)
    assert found, stderr[-3000:]
    module, name, message = found[-1]
    return getattr(importlib.import_module(module), name), message


@pytest.mark.timeout(1500)
@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.id)
def test_documentation_program(program: Program, docs, tmp_path):
    result = run_program(program, BY_ID, docs[program.lang], tmp_path, timeout=1200)
    folder = tmp_path / Path(program.path).parent
    skip_if_missing_module(result.stderr, program.id, beside=[folder])
    tail = f"\n{result.stdout[-2000:]}\n{result.stderr[-4000:]}"
    if program.outcome is Outcome.NATIVE_BUILD:
        assert result.returncode != 0, tail
        error, message = _raised(result.stderr)
        assert issubclass(error, NativeBuildError), tail
        assert repr(program.native) in message, tail
        return
    if program.outcome is Outcome.TWO_HOSTS:
        if result.returncode == 0:
            pytest.xfail(f"{TWO_HOSTS_DEFECT} (another part of issue 20)")
        error, message = _raised(result.stderr)
        assert issubclass(error, ConfigError) and "machine" in message, tail
        return
    passed = result.returncode == 0 and re.search(program.expect, result.stdout, re.M)
    if isinstance(program.outcome, str):
        if passed:
            pytest.fail(f"{program.id} passes now: remove its cause from programs.py")
        pytest.xfail(f"{program.outcome}: {result.stderr.strip().splitlines()[-1:]}")
    assert result.returncode == 0, tail
    assert re.search(program.expect, result.stdout, re.M), tail
