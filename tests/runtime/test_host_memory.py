"""With ``FLOWJOB_HOST_MALLOC=retain``, or by default when the process's first job is large,
freed host memory stays with the process once flowjob starts the backend: a freed buffer's
pages stay resident and the next buffer reuses them without page faults (the kernel's
resident size and fault count are the reference). After a small first job, with ``system``,
or where the user configured malloc, glibc unmaps a large freed buffer at once."""

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
# N: the first job's input elements (float32; 4: a small job, 2**24: 64 MB per op output).
CHILD = r"""
import json, os, resource, sys
import numpy as np
import flowjob as flow
import flowjob.typing as tp
from flowjob._src.runtime import _host_memory

N = int(sys.argv[1])
if len(sys.argv) > 2:  # something else started JAX's backend before the first job
    import jax.numpy as jnp
    jnp.ones(1).block_until_ready()

@flow.global_function(type="predict")
def double(x: tp.Numpy.Placeholder((N,))) -> tp.Numpy:
    return x * 2

assert (double(np.ones(N, np.float32)) == 2).all()
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


def _child(*args: str, n: int = 4, **env: str) -> dict:
    return _run(CHILD, str(n), *args, **env)


def _run(script: str, *args: str, **env: str):
    """What the child ``script`` prints last, as JSON."""
    out = subprocess.run(
        [sys.executable, "-c", script, *args],
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


def test_a_large_first_job_keeps_freed_memory_by_default():
    kept = _child(n=2**24)  # its op outputs: 128 MB, above LARGE
    assert kept["applied"] is True
    assert kept["released"] < SIZE // 10, kept
    assert kept["faults"] < SIZE // 4096 // 20, kept


def test_small_first_job_system_and_user_malloc_settings_keep_glibc_defaults():
    # the reference behaviour: glibc unmaps a large freed buffer (every step starts afresh)
    for system in (_child(), _child(n=2**24, FLOWJOB_HOST_MALLOC="system")):
        assert system["applied"] is False
        assert system["released"] > SIZE * 9 // 10, system
    for user in (
        _child(FLOWJOB_HOST_MALLOC="retain", MALLOC_ARENA_MAX="4"),
        _child(n=2**24, MALLOC_ARENA_MAX="4"),
    ):
        assert user["applied"] is False
        assert user["released"] > SIZE * 9 // 10, user


def test_a_backend_started_before_the_first_job_keeps_glibc_defaults():
    # its threads took arenas of their own: one shared arena can no longer be chosen
    late = _child("start-jax-first", n=2**24)
    assert late["applied"] is False
    assert late["released"] > SIZE * 9 // 10, late


# A OneFlow program's first train job (gpu_device_num on a machine without a GPU) with a random
# op, whose body notes whether JAX's backend had started when it was traced.
FIRST_JOB = r"""
import json
import numpy as np
import flowjob as flow
import flowjob.typing as tp
from jax._src import xla_bridge

flow.config.gpu_device_num(1)
started = []

@flow.global_function(type="train")
def job(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
    started.append(xla_bridge.backends_are_initialized())
    w = flow.get_variable("w", (3, 5), initializer=flow.random_normal_initializer())
    h = flow.nn.dropout(flow.matmul(x, w), rate=0.5)
    loss = flow.math.reduce_mean(flow.math.square(h))
    flow.optimizer.SGD(
        flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0.9
    ).minimize(loss)
    started.append(xla_bridge.backends_are_initialized())
    return loss

x = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
losses = [job(x).tolist() for _ in range(3)]
w = flow.get_all_variables()["w"].numpy().tolist()
print(json.dumps({"started": started, "losses": losses, "w": w}))
"""


def test_the_first_job_is_traced_before_the_backend_and_runs_the_same():
    """``auto`` sizes the first job before JAX's backend starts; its variables are drawn
    afterwards, from the same seeds: the steps are those of a process that started the
    backend first (``system``), to the bit."""
    runs = {mode: _run(FIRST_JOB, FLOWJOB_HOST_MALLOC=mode) for mode in ("auto", "system")}
    # nor did its variable's draw or its dropout's key start it
    assert runs["auto"]["started"] == [False, False]
    assert runs["auto"]["losses"] == runs["system"]["losses"]
    assert runs["auto"]["w"] == runs["system"]["w"]
    assert runs["auto"]["losses"][0] > runs["auto"]["losses"][2]  # it trains


# A large first job called again and again: the pages its calls fault in, per call.
CALLS = r"""
import json, resource
import numpy as np
import flowjob as flow
import flowjob.typing as tp

N = 2**24

@flow.global_function(type="predict")
def job(x: tp.Numpy.Placeholder((N,))) -> tp.Numpy:
    return flow.math.reduce_sum(flow.math.square(x * 2 + 1)) + flow.math.reduce_sum(x)

x = np.ones(N, np.float32)
# The kept heap reaches its peak once as many calls' buffers were alive at once as ever will
# be (on a loaded machine a call's buffer may still be alive when the next one allocates):
# until then a call faults its 64 MB in; counted over enough calls, most of them reuse.
for _ in range(6):
    assert job(x).tolist() == [N * 10.0]
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(8):
    job(x)
print(json.dumps((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 8))
"""


def test_a_large_first_jobs_calls_fault_fewer_pages_by_default():
    """Each call's 64 MB of buffers (its argument's copy) is faulted in again with glibc's
    settings; kept by default, most of it is reused."""
    faults = {mode: _run(CALLS, FLOWJOB_HOST_MALLOC=mode) for mode in ("auto", "system")}
    assert faults["system"] > SIZE // 4 // 4096, faults  # 64 MB: 16,384 pages
    assert faults["auto"] < faults["system"] / 2, faults


def test_unknown_setting_names_the_variable(monkeypatch):
    from flowjob._src.runtime import _host_memory

    monkeypatch.setenv("FLOWJOB_HOST_MALLOC", "keep")
    with pytest.raises(ValueError, match=r"HOST_MALLOC must be one of auto, system, retain"):
        _host_memory.retain_host_memory()
