"""``flow.clear_default_session()`` releases what each defined job cost (its traced graph,
compiled program, variables), even while the program keeps its job functions."""

from __future__ import annotations

import gc
import os
import threading
import time
import weakref

import jax
import jax.numpy as jnp
import numpy as np

import flowjob as flow
import flowjob.typing as tp

JOBS = 200


def rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def completion_threads() -> int:
    return sum(t.name == "flowjob-completion" for t in threading.enumerate())


def define(i: int, width: int):
    def job(x: tp.Numpy.Placeholder((8, 16))) -> tp.Numpy:
        w = flow.get_variable(f"w{i}", (16, width), initializer=flow.random_normal_initializer())
        h = flow.math.relu(flow.matmul(x, w))
        loss = flow.math.reduce_mean(h * h)
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0
        ).minimize(loss)
        return loss

    job.__name__ = f"job{i}"
    return flow.global_function(type="train")(job)


def plain_jax_residual(count: int) -> float:
    """MiB that ``count`` compiled and dropped plain-JAX programs leave behind: what the
    backend keeps (a GPU runtime keeps host memory per loaded program), not flowjob's."""
    gc.collect()
    before = rss_mib()
    fns = [jax.jit(lambda x, w, i=i: jnp.maximum(x @ w, 0) * (i + 1)) for i in range(count)]
    for i, fn in enumerate(fns):
        fn(jnp.ones((8, 16)), jnp.ones((16, 16 + i % 3))).block_until_ready()
    del fns
    jax.clear_caches()
    gc.collect()
    return max(0.0, rss_mib() - before)


def run_jobs(count: int, width: int) -> list:
    x = np.ones((8, 16), np.float32)
    jobs = [define(i, width) for i in range(count)]
    for job in jobs:
        job(x)
    return jobs


def test_clear_default_session_releases_jobs_kept_by_the_program(fresh_session):
    run_jobs(20, 15)  # JAX and flowjob started: their one-time cost is not counted
    flow.clear_default_session()
    gc.collect()
    before = rss_mib()
    kept = run_jobs(JOBS, 16)  # the program keeps its job functions
    session = weakref.ref(kept[0].session)

    @flow.global_function()
    def launched(x: tp.Numpy.Placeholder((8, 16))) -> tp.Callback[tp.Numpy]:
        return x + 1

    launched(np.ones((8, 16), np.float32))(lambda result: None)  # starts a completion thread
    flow.sync_default_session()
    assert completion_threads() >= 1
    grown = rss_mib() - before
    flow.clear_default_session()
    gc.collect()
    left = rss_mib() - before
    # The cleared session, its compiled programs and variables are unreachable...
    assert session() is None
    assert all(job.session is None for job in kept)
    # ...and the memory they took goes back: at most a fifth of it stays (allocator slack).
    assert grown > 0.2 * JOBS, grown  # each job costs memory (~1.5 MiB), else nothing is measured
    # On a GPU the backend itself keeps host memory per program it loaded: allowed on top.
    backend = 0.0 if jax.default_backend() == "cpu" else plain_jax_residual(JOBS)
    assert left < 0.2 * grown + backend, (grown, left, backend)
    # ...and so do their completion threads (none is left behind per cleared session)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and completion_threads() > 0:
        time.sleep(0.05)
    assert completion_threads() == 0
    # A job of the cleared session says so when called.
    try:
        kept[0](np.ones((8, 16), np.float32))
    except flow.JobDefinitionError as exc:
        assert "cleared session" in str(exc)
    else:
        raise AssertionError("a job of a cleared session ran")
