"""Every README code block works as written: ```python blocks run (each on its own, in a
fresh interpreter in an empty directory, with no deprecation warning), and the commands of
```bash blocks exist. The README is the front door: short, with links into the site."""

from __future__ import annotations

import re

import pytest

from tests.docs.markdown_blocks import REPO, bash_block_problems, blocks, run_python_block

README = REPO / "README.md"
PYTHON = blocks(README, "python")
BASH = blocks(README, "bash")


def test_readme_is_a_short_front_door_with_its_blocks():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 300
    # The quick start's two commands, one first job, the live board's picture.
    assert len(PYTHON) == 1 and len(BASH) >= 1
    quick_start = BASH[0][1]
    assert "bash scripts/demo.sh" in quick_start and "bash scripts/test.sh" in quick_start
    assert "docs/images/live-board.png" in text and (REPO / "docs/images/live-board.png").is_file()
    for target in re.findall(r"\]\((docs/[^)#]+)", text):
        assert (REPO / target).exists(), f"README links to missing {target}"


@pytest.mark.parametrize("line,code", PYTHON, ids=[f"line{line}" for line, _ in PYTHON])
def test_python_block_runs(line, code, tmp_path):
    run_python_block(f"README.md block at line {line}", code, tmp_path)


@pytest.mark.parametrize("line,code", BASH, ids=[f"line{line}" for line, _ in BASH])
def test_bash_block_commands_exist(line, code):
    problems = bash_block_problems(code)
    assert not problems, f"README.md block at line {line}: {problems}"
