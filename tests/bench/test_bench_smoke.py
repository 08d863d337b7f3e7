"""The benchmark entry point runs and writes a report (one fast section, --quick)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.timeouts import scaled

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.mark.timeout(180)
def test_quick_compile_section_writes_benchmarks_md(tmp_path):
    out = tmp_path / "BENCHMARKS.md"
    run = subprocess.run(
        [sys.executable, "-m", "bench", "--quick", "--only", "compile", "--out", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=scaled(170),
    )
    assert run.returncode == 0, run.stderr[-3000:]
    text = out.read_text()
    assert "## Machine" in text and "## Goals" in text
    assert "First-call latency and the persistent compilation cache" in text
    row = next(ln for ln in text.splitlines() if ln.startswith("| flowjob MLP |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == "—"  # no convolution kernels to time on a new machine
    cold, cached = float(cells[2]), float(cells[3])
    assert cold > 0 and cached > 0
    hits = float(cells[-1])
    assert hits > 0  # the second process really read the cache it did not write
