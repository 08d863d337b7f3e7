"""Two writers at once (issue 48, item 7): two safetensors ``checkpoint.save``s racing for one
path never both report success (the second is refused and the first checkpoint is whole, as
the OneFlow layout already did), and a second process logging into a run directory that
another process logs into is warned, naming the directory and that process."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import warnings

import numpy as np
import pytest
from reliability_helpers import REPO, child_env

import flowjob as flow
from flowjob._src.summary import SummaryWriter
from flowjob._src.summary._run_lock import SharedRunWarning
from tests.timeouts import scaled


def test_two_safetensors_saves_racing_for_one_path_one_wins_and_the_other_is_refused(
    tmp_path, monkeypatch
):
    path = str(tmp_path / "ckpt.safetensors")
    values = [{"w": np.full(4, float(i), np.float32)} for i in range(2)]
    # Both saves pass the "path must not exist" check before either publishes: each waits at
    # its first fsync (its staged file complete) until the other got there too.
    barrier = threading.Barrier(2, timeout=scaled(60))
    first = threading.local()
    real_fsync = os.fsync

    def staged_then_wait(fd):
        real_fsync(fd)
        if threading.current_thread().name.startswith("saver") and not getattr(
            first, "done", False
        ):
            first.done = True
            barrier.wait()

    monkeypatch.setattr(os, "fsync", staged_then_wait)
    outcome: dict[int, BaseException | None] = {}

    def save(i):
        try:
            flow.checkpoint.save(path, values[i], format="safetensors")
            outcome[i] = None
        except BaseException as exc:  # noqa: BLE001 - the test inspects it
            outcome[i] = exc

    threads = [threading.Thread(target=save, args=(i,), name=f"saver{i}") for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(scaled(120))
    assert len(outcome) == 2, outcome
    winners = [i for i, exc in outcome.items() if exc is None]
    losers = [exc for exc in outcome.values() if exc is not None]
    assert len(winners) == 1 and len(losers) == 1, outcome  # never both "success"
    assert isinstance(losers[0], FileExistsError) and path in str(losers[0]), losers
    np.testing.assert_array_equal(flow.checkpoint.get(path)["w"].numpy(), values[winners[0]]["w"])
    assert sorted(os.listdir(tmp_path)) == ["ckpt.safetensors"]  # no staging file left


_OTHER_PROCESS = textwrap.dedent("""
    import sys, time
    from flowjob._src.summary import SummaryWriter
    with SummaryWriter(sys.argv[1]) as w:
        w.scalar("loss", 1.0, 0)
        w.flush()
        print("logging", flush=True)
        sys.stdin.readline()  # until the test is done
""")


def test_a_second_process_logging_into_a_run_directory_is_warned(tmp_path):
    run = tmp_path / "run"
    other = subprocess.Popen(
        [sys.executable, "-c", _OTHER_PROCESS, str(run)],
        env=child_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=str(REPO),
    )
    try:
        assert other.stdout.readline().strip() == "logging"
        with pytest.warns(SharedRunWarning) as caught:
            writer = SummaryWriter(run)
        message = str(caught[0].message)
        assert f"another process (pid {other.pid} on " in message and str(run) in message
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # once per directory, not per writer
            second = SummaryWriter(run)
            second.close()
        writer.scalar("loss", 2.0, 0)
        writer.close()
    finally:
        other.stdin.close()
        other.wait(timeout=scaled(60))
    files = sorted(p.name for p in run.iterdir() if "tfevents" in p.name)
    assert len(files) == 3 and len({name.split(".")[-2] for name in files}) == 2, files
    # once the other process is gone the directory is free: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SummaryWriter(run).close()


def test_writers_of_one_process_share_a_directory_without_a_warning(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a, b = SummaryWriter(tmp_path), SummaryWriter(tmp_path)
        a.close()
        c = SummaryWriter(tmp_path)
        b.close()
        c.close()
