"""Every page of the documentation site (docs/**/*.md) works as written: each ```python block
runs on its own (tests/docs/markdown_blocks.py), the commands of ```bash blocks exist, and
`mkdocs build --strict` builds the site (when mkdocs is installed: the `docs` extra)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

from tests.docs.markdown_blocks import REPO, bash_block_problems, blocks, run_python_block
from tests.timeouts import scaled

DOCS = REPO / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "_generated" not in p.parts)
PYTHON = [(page, line, code) for page in PAGES for line, code in blocks(page, "python")]
BASH = [(page, line, code) for page in PAGES for line, code in blocks(page, "bash")]


def _id(page, line):
    return f"{page.relative_to(DOCS)}:{line}"


@pytest.mark.parametrize("page,line,code", PYTHON, ids=[_id(p, n) for p, n, _ in PYTHON])
def test_python_block_runs(page, line, code, tmp_path):
    run_python_block(f"{page.relative_to(REPO)} block at line {line}", code, tmp_path)


@pytest.mark.parametrize("page,line,code", BASH, ids=[_id(p, n) for p, n, _ in BASH])
def test_bash_block_commands_exist(page, line, code):
    problems = bash_block_problems(code)
    assert not problems, f"{page.relative_to(REPO)} block at line {line}: {problems}"


def test_every_public_namespace_has_an_api_page():
    """The public floor is the files at the top of flowjob/ (flowjob/_src/ is the engine)."""
    namespaces = {p.stem for p in (REPO / "flowjob").glob("*.py") if not p.stem.startswith("_")} | {
        p.name for p in (REPO / "flowjob").iterdir() if p.is_dir() and not p.name.startswith("_")
    }
    pages = {p.stem for p in (DOCS / "api").glob("*.md")}
    missing = namespaces - pages
    assert not missing, f"public namespaces without a page in docs/api: {missing}"
    nav = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    assert all(f"api/{name}.md" in nav for name in namespaces | {"flow"})


@pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None,
    reason="mkdocs is not installed: pip install -e '.[docs]' to build the site",
)
def test_the_site_builds_strictly(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=scaled(600),
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
    )
    assert proc.returncode == 0, proc.stderr[-6000:]
    assert (tmp_path / "site" / "api" / "nn" / "index.html").is_file()
