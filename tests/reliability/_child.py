"""Child processes of the reliability tests: ``python _child.py SCENARIO ARGS...``.

Scenarios that run until the parent kills them report progress as lines appended (and
flushed, not fsynced: the page cache outlives a killed process) to a ``progress`` file.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time

import numpy as np


def _progress(path: str):
    f = open(path, "a", buffering=1)  # noqa: SIM115 - lives until the process is killed

    def say(*words: object) -> None:
        f.write(" ".join(map(str, words)) + "\n")
        f.flush()

    return say


def log_until_killed(logdir: str, flush_secs: str, progress: str) -> None:
    """Logs scalar ``i`` at step ``i`` at a steady rate; after each batch reports
    ``<last i> <wall time>``."""
    from flowjob.summary import SummaryWriter

    say = _progress(progress)
    w = SummaryWriter(logdir, flush_secs=float(flush_secs))
    say("file", w.path)
    i = 0
    while True:
        for _ in range(20):
            w.scalar("x", float(i), i)
            i += 1
        say(i - 1, time.time())
        time.sleep(0.005)


def _snapshot_values(k: int) -> dict[str, np.ndarray]:
    return {f"layer{j}-weight": np.full((128, 256), 1000.0 * k + j, np.float32) for j in range(6)}


def save_until_killed(root: str, fmt: str, progress: str) -> None:
    """Saves snapshot ``k`` (values from ``_snapshot_values(k)``) over and over."""
    import flowjob.checkpoint as ckpt

    say = _progress(progress)
    k = 0
    while True:
        name = f"ckpt_{k:04d}" + (".safetensors" if fmt == "safetensors" else "")
        ckpt.save(os.path.join(root, name), _snapshot_values(k), format=fmt)
        say("saved", name)
        k += 1


def train_until_killed(root: str, logdir: str, progress: str) -> None:
    """Trains with watches, slow async callbacks and summary ops; snapshots every 10 steps."""
    import flowjob as flow
    import flowjob.typing as tp

    say = _progress(progress)
    manager = flow.train.SimpleCheckPointManager(root)

    @flow.global_function()
    def make_writer():
        flow.summary.create_summary_writer(logdir)

    @flow.global_function(type="train")
    def train(
        x: tp.Numpy.Placeholder((16, 8)),
        y: tp.Numpy.Placeholder((16, 1)),
        step: tp.Numpy.Placeholder((1,), dtype=flow.int64),
    ) -> tp.Callback[tp.Numpy]:
        hidden = flow.layers.dense(
            x,
            16,
            activation=flow.math.relu,
            name="hidden",
            kernel_initializer=flow.random_normal_initializer(0, 0.1),
        )
        out = flow.layers.dense(hidden, 1, name="out")
        loss = flow.math.reduce_mean(flow.math.square(out - y))
        flow.watch(hidden, lambda h: time.sleep(0.002))
        flow.summary.scalar(loss, step, "loss")
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.05])).minimize(loss)
        return loss

    make_writer()
    rng = np.random.default_rng(0)
    step = 0
    while True:
        x = rng.standard_normal((16, 8)).astype(np.float32)
        train(x, x[:, :1] * 0.5, np.array([step], np.int64))(lambda loss: time.sleep(0.003))
        step += 1
        if step % 10 == 0:
            path = manager.save()  # waits for the pending callbacks first
            say("saved", os.path.basename(path), step)


def restore(root: str, out: str) -> None:
    """Restores the newest snapshot in a fresh process and reports what it holds."""
    import flowjob as flow

    manager = flow.train.SimpleCheckPointManager(root)
    latest = manager.latest_checkpoint()
    saved = {n: v.numpy() for n, v in flow.checkpoint.get(os.path.join(root, latest)).items()}
    np.savez(out, latest=latest, **{f"saved/{n}": v for n, v in saved.items()})


def fsize_limited(logdir: str, ckpt_dir: str, limit: str, out: str) -> None:
    """Writes under RLIMIT_FSIZE (a real kernel write failure, EFBIG) and reports the errors."""
    import resource

    import flowjob.checkpoint as ckpt
    from flowjob.summary import SummaryWriter

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # get EFBIG instead of being killed
    n = int(limit)
    resource.setrlimit(resource.RLIMIT_FSIZE, (n, n))
    result: dict[str, object] = {}
    w = SummaryWriter(logdir, flush_secs=60)
    result["event_file"] = w.path
    try:
        for i in range(100_000):
            w.scalar("x", float(i), i)
            if i % 500 == 499:
                w.flush()
                result["flushed"] = i
    except OSError as exc:
        result["log_error"] = [type(exc).__name__, exc.errno, str(exc)]
    try:
        w.close()
    except OSError as exc:
        result["close_error"] = str(exc)
    small = {"w": np.arange(16, dtype=np.float32)}
    ckpt.save(os.path.join(ckpt_dir, "small"), small)  # fits
    try:
        ckpt.save(os.path.join(ckpt_dir, "big"), {"w": np.zeros(2 * n, np.uint8)})
    except OSError as exc:
        result["save_error"] = [type(exc).__name__, exc.errno, str(exc)]
    try:
        ckpt.save(
            os.path.join(ckpt_dir, "big.safetensors"),
            {"w": np.zeros(2 * n, np.uint8)},
            format="safetensors",
        )
    except OSError as exc:
        result["save_st_error"] = [type(exc).__name__, exc.errno, str(exc)]
    with open(out, "w") as f:
        json.dump(result, f)


def rss_under_load(calls: str, out: str) -> None:
    """``calls`` job calls with watches and async callbacks; RSS sampled every 1,000 calls."""
    import flowjob as flow
    import flowjob.typing as tp

    seen: list[int] = []
    watched = [0]

    @flow.global_function()
    def job(
        x: tp.Numpy.Placeholder((1024,)), i: tp.Numpy.Placeholder((1,), dtype=flow.int64)
    ) -> tp.Callback[tp.Numpy]:
        y = flow.math.relu(x) * 2
        flow.watch(y, lambda v: watched.__setitem__(0, watched[0] + 1))
        return i + 0

    def rss_kib() -> int:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    x = np.random.default_rng(0).standard_normal(1024).astype(np.float32)
    samples = []
    for k in range(int(calls)):
        job(x, np.array([k], np.int64))(lambda r: seen.append(int(r[0])))
        if (k + 1) % 1000 == 0:
            flow.sync_default_session()
            samples.append((k + 1, rss_kib()))
    flow.sync_default_session()
    in_order = seen == list(range(int(calls)))
    with open(out, "w") as f:
        json.dump(
            {
                "samples": samples,
                "in_order": in_order,
                "delivered": len(seen),
                "watched": watched[0],
            },
            f,
        )


if __name__ == "__main__":
    globals()[sys.argv[1]](*sys.argv[2:])
