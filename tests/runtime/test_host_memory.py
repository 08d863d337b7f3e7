"""With ``FLOWJOB_HOST_MALLOC=retain``, freed host memory stays with the process once flowjob
starts the backend: a freed buffer's pages stay resident and the next buffer reuses them
without page faults (the kernel's resident size and fault count are the reference). By
default, or where the user configured malloc, glibc unmaps a large freed buffer at once."""

from __future__ import annotations

import json
import platform
import subprocess
import sys

import pytest

from tests.subprocess_env import cpu_child_env

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
    reason="glibc's malloc settings only",
)

# Starts the backend through a job's first call, then frees and reallocates 256 MB twice
# (as XLA:CPU does with a step's temporary buffers) and counts the faults of the second round.
CHILD = r"""
import json, os, resource
import numpy as np
import flowjob as flow
import flowjob.typing as tp
from flowjob._src.runtime import _host_memory

@flow.global_function(type="predict")
def double(x: tp.Numpy.Placeholder((4,))) -> tp.Numpy:
    return x * 2

assert (double(np.ones(4, np.float32)) == 2).all()
size = 256 * 2**20

def resident():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

def round_trip():
    a = np.empty(size, np.uint8)
    a.fill(1)  # touch every page
    held = resident()
    del a
    return held - resident()

round_trip()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
released = round_trip()
faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
print(json.dumps({
    "applied": _host_memory.retain_host_memory(), "faults": faults, "released": released
}))
"""

SIZE = 256 * 2**20


def _child(**env: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD],
        env=cpu_child_env(**env),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_freed_memory_is_reused_without_page_faults():
    kept = _child(FLOWJOB_HOST_MALLOC="retain")
    assert kept["applied"] is True
    assert kept["released"] < SIZE // 10, kept  # the pages stay with the process
    assert kept["faults"] < SIZE // 4096 // 20, kept  # and the next buffer reuses them


def test_default_and_user_malloc_settings_keep_glibc_defaults():
    # the reference behaviour: glibc unmaps a large freed buffer (every step starts afresh)
    for system in (_child(), _child(FLOWJOB_HOST_MALLOC="system")):
        assert system["applied"] is False
        assert system["released"] > SIZE * 9 // 10, system
    user = _child(FLOWJOB_HOST_MALLOC="retain", MALLOC_ARENA_MAX="4")
    assert user["applied"] is False
    assert user["released"] > SIZE * 9 // 10, user


def test_unknown_setting_names_the_variable(monkeypatch):
    from flowjob._src.runtime import _host_memory

    monkeypatch.setenv("FLOWJOB_HOST_MALLOC", "keep")
    with pytest.raises(ValueError, match=r"FLOWJOB_HOST_MALLOC must be one of system, retain"):
        _host_memory.retain_host_memory()
