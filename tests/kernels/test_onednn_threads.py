"""Where the oneDNN convolution handler runs its threads: each call's OpenMP team on distinct
CPUs of those the process may use, the calling (XLA) thread given back its own CPU set, and
nothing ever placed outside that set. Each case runs in a process of its own, because thread
placement is process-wide and the team's threads live as long as the process.

Skipped when the optional flowjob-onednn build (kernels/onednn) is not installed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from flowjob._src import kernels
from tests.subprocess_env import REPO, cpu_child_env
from tests.timeouts import scaled

pytestmark = pytest.mark.skipif(
    not kernels.onednn_available(), reason="flowjob-onednn (kernels/onednn) is not installed"
)

# Convolutions from two Python threads at once (XLA runs them on its own threads), checked
# against XLA's convolution in float64, then every thread's CPU set as the kernel reports it.
_CHILD = """
import json, os, sys, threading
os.sched_setaffinity(0, set(json.loads(sys.argv[1])))  # before any thread exists
import jax, numpy as np
from jax import lax
from flowjob._src import kernels

args = ((1, 1), ((1, 1), (1, 1)), (1, 1), 4, "NCHW")
rng = np.random.default_rng(0)
x = rng.standard_normal((4, 16, 20, 20)).astype(np.float32)
w = rng.standard_normal((32, 4, 3, 3)).astype(np.float32)
with jax.enable_x64(True):  # the reference itself computed in float64
    ref = np.asarray(lax.conv_general_dilated(
        x.astype(np.float64), w.astype(np.float64), (1, 1), ((1, 1), (1, 1)),
        dimension_numbers=("NCHW", "OIHW", "NCHW"), feature_group_count=4, precision="highest"))
conv = jax.jit(lambda a, b: kernels.conv2d_onednn(a, b, *args))
grads = jax.jit(jax.grad(lambda a, b: (kernels.conv2d_onednn(a, b, *args) ** 2).sum(), (0, 1)))
errors = []

def work():
    try:
        for _ in range(20):
            np.testing.assert_allclose(np.asarray(conv(x, w)), ref, rtol=1e-4, atol=1e-3)
            jax.block_until_ready(grads(x, w))
    except Exception as e:
        errors.append(repr(e))

threads = [threading.Thread(target=work) for _ in range(2)]
for t in threads: t.start()
for t in threads: t.join()
sets = {}
for tid in os.listdir("/proc/self/task"):
    try:
        name = open(f"/proc/self/task/{tid}/comm").read().strip()
        sets[tid] = (name, sorted(os.sched_getaffinity(int(tid))))
    except OSError:  # a thread that has just ended (the joined ones)
        pass
print(json.dumps({"errors": errors, "main": sorted(os.sched_getaffinity(0)), "threads": sets}))
"""


# The settings that decide the placement: the child gets only what a case passes.
_PLACEMENT_VARS = ("OMP_NUM_THREADS", "OMP_PROC_BIND", "OMP_PLACES", "FLOWJOB_ONEDNN_SPREAD")


def _run(cpus: list[int], **env: str) -> dict:
    child_env = cpu_child_env(PYTHONPATH=str(REPO))
    for name in _PLACEMENT_VARS:
        child_env.pop(name, None)
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps(cpus)],
        cwd=REPO,
        env=child_env | env,
        capture_output=True,
        text=True,
        timeout=scaled(240),
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["errors"] == []
    return out


def _allowed() -> list[int]:
    return sorted(os.sched_getaffinity(0))


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs")
def test_each_call_keeps_its_team_on_distinct_cpus_inside_the_allowed_set():
    cpus = _allowed()[:2]
    out = _run(cpus)
    sets = [s for _, s in out["threads"].values()]
    assert all(set(s) <= set(cpus) for s in sets), out
    assert out["main"] == cpus  # the caller's own set is never touched
    # the workers stay on one CPU each; the XLA threads that called got their set back
    assert [[c] for c in cpus if [c] in sets], out
    xla = [s for name, s in out["threads"].values() if name.startswith("tf_XLA")]
    assert cpus in xla, out


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs")
def test_spreading_can_be_switched_off():
    cpus = _allowed()[:2]
    out = _run(cpus, FLOWJOB_ONEDNN_SPREAD="0")
    assert all(s == cpus for _, s in out["threads"].values()), out


def test_a_single_allowed_cpu_places_nothing_elsewhere():
    cpu = _allowed()[-1]
    out = _run([cpu])
    assert all(s == [cpu] for _, s in out["threads"].values()), out
