"""Several local processes of one job (``_rank_program.py``): every fault stops every rank in
bounded time with an error naming the failed rank, its host and its error; SIGTERM stops all
ranks after the same step; the coordinator binds the named address only; checkpoints, input
checks and rank-local callbacks behave across processes. Every wait here has a timeout."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
import time

import pytest

import flowjob as flow
from tests.distributed.rank_helpers import (
    BOUND,
    HOST,
    LIMIT,
    PROGRAM,
    start,
)
from tests.distributed.rank_helpers import assert_clean as _assert_clean
from tests.distributed.rank_helpers import free_port as _free_port
from tests.subprocess_env import cpu_child_env


@pytest.mark.parametrize("size,failing", [(2, 1), (3, 1), (2, 0)])
def test_exception_in_one_rank_stops_every_rank_naming_it(size, failing, tmp_path, cleanup):
    ranks = start("raise", tmp_path, size, FAILING_RANK=str(failing))
    cleanup.extend(ranks)
    failed = ranks[failing]
    assert failed.finish() == 1
    assert "ValueError: boom at step 5" in failed.text
    for rank in ranks:
        if rank is failed:
            continue
        rank.finish()
        _assert_clean(rank)
        assert rank.ended - failed.ended < BOUND
        assert (
            f"rank {failing} of {size} (host {HOST}) failed: ValueError: boom at step 5"
            in rank.text
        )
        assert "RankFailedError" in rank.text


@pytest.mark.parametrize("how,lost", [("kill", 1), ("freeze", 1), ("kill", 0), ("freeze", 0)])
def test_killed_or_frozen_rank_is_reported_after_the_heartbeat_timeout(
    how, lost, tmp_path, cleanup
):
    """Rank 0 too: the coordination service it started outlives it (processes/_service.py)."""
    ranks = start(how, tmp_path, FAILING_RANK=str(lost))
    cleanup.extend(ranks)
    survivor = ranks[1 - lost]
    gone = survivor.wait_for(r"^step 4 ")
    survivor.finish()
    _assert_clean(survivor)
    assert survivor.ended - gone < BOUND
    assert f"rank {1 - lost} of 2 (host {HOST}) stops because rank {lost} of 2 (host {HOST}) " in (
        survivor.text
    )
    if how == "freeze":
        assert "stopped responding" in survivor.text
        assert "FLOWJOB_HEARTBEAT_TIMEOUT=5" in survivor.text
    else:  # on this machine, a killed rank is found gone without waiting for its heartbeat
        assert re.search(r"ended without a word: its process \(pid \d+\) is gone", survivor.text)


def test_missing_rank_is_reported_then_given_up_on(tmp_path, cleanup):
    (alone,) = start("train", tmp_path, ranks=[0], FLOWJOB_INIT_TIMEOUT="12")
    cleanup.append(alone)
    noticed = alone.wait_for(r"waiting for rank 1 of 2 to join the coordinator at 127\.0\.0\.1")
    assert "(5 s so far; giving up after 12 s, FLOWJOB_INIT_TIMEOUT)" in alone.text
    alone.finish()
    _assert_clean(alone)
    assert "RankFailedError: rank 0 of 2 gave up after 12 s waiting for rank 1" in alone.text
    assert alone.ended - noticed < 20


def test_rank_without_its_coordinator_says_whom_it_waits_for(tmp_path, cleanup):
    (alone,) = start("train", tmp_path, ranks=[1], FLOWJOB_INIT_TIMEOUT="8")
    cleanup.append(alone)
    alone.wait_for(r"rank 1 of 2: waiting for rank 0 of 2 \(the coordinator\) at 127\.0\.0\.1:")
    alone.finish()
    _assert_clean(alone)


def test_busy_coordinator_port_is_a_clear_error(tmp_path, cleanup):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        (first,) = start("train", tmp_path, ranks=[0], port=port)
        cleanup.append(first)
        first.finish()
    _assert_clean(first)
    assert f"ConfigError: coordinator port {port} on 127.0.0.1 is already in use" in first.text


def _listening(port: int) -> list[str]:
    """Local addresses (hex, as /proc/net writes them) listening on ``port``."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for row in f.read().splitlines()[1:]:
                local, state = row.split()[1], row.split()[3]
                address, hex_port = local.rsplit(":", 1)
                if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                    found.append(address)
    return found


def test_sigterm_stops_every_rank_after_the_same_step_and_the_coordinator_binds_one_address(
    tmp_path, cleanup
):
    port = _free_port()
    ranks = start("sigterm", tmp_path, port=port)
    cleanup.extend(ranks)
    for rank in ranks:
        rank.wait_for(r"^step 2 ")
    # 127.0.0.1 only: as IPv4 (0100007F) or IPv4-mapped IPv6 (...FFFF0000 0100007F)
    addresses = _listening(port)
    assert addresses, "nothing listens on the coordinator's port"
    assert all(a in ("0100007F", "0000000000000000FFFF00000100007F") for a in addresses), addresses
    ranks[0].proc.send_signal(signal.SIGTERM)
    sent = time.monotonic()
    stops = []
    for rank in ranks:
        assert rank.finish() == 1, rank.text[-3000:]
        assert rank.ended - sent < BOUND
        stop = re.search(r"JobStopped: rank \d of 2: stopped on SIGTERM after (\d+) job", rank.text)
        assert stop, rank.text[-3000:]
        stops.append(int(stop.group(1)))
        assert "Traceback" not in rank.text
    assert stops[0] == stops[1]
    steps = [max(int(m) for m in re.findall(r"^step (\d+) ", r.text, re.M)) for r in ranks]
    assert steps[0] == steps[1]
    saved = flow.checkpoint.get(str(tmp_path / "preempted"))  # the preemption checkpoint
    assert saved["w"].numpy().shape == (4, 1)


def test_second_sigterm_stops_at_once(tmp_path, cleanup):
    ranks = start("slow-sigterm", tmp_path)
    cleanup.extend(ranks)
    first, other = ranks
    first.wait_for(r"^step 2 ")
    first.proc.send_signal(signal.SIGTERM)
    first.wait_for("preemption callback started")
    first.proc.send_signal(signal.SIGTERM)
    sent = time.monotonic()
    assert first.finish() == 128 + signal.SIGTERM, first.text[-3000:]
    assert first.ended - sent < 10
    assert "second SIGTERM, stopping at once" in first.text
    other.finish()  # in its own slow callback: it finds rank 0 gone
    _assert_clean(other)
    assert other.ended - sent < BOUND
    assert "RankFailedError" in other.text and "rank 0 of 2" in other.text


def test_different_inputs_across_ranks_are_an_error_naming_the_argument(tmp_path, cleanup):
    ranks = start("digest", tmp_path)
    cleanup.extend(ranks)
    for rank in ranks:
        rank.finish()
        _assert_clean(rank)
        assert "JobArgumentError: job 'train': argument 'x' differs between the processes" in (
            rank.text
        )
        assert "step 0" not in rank.text  # found before the first step ran


@pytest.mark.parametrize("scenario", ["checkpoint", "callbacks"])
def test_checkpoint_barrier_and_rank_local_callbacks(scenario, tmp_path, cleanup):
    """``checkpoint``: every rank reads the checkpoint back as soon as ``save`` returns;
    ``callbacks``: every rank waits for its own result callbacks, without syncing."""
    port = _free_port()
    ranks = start(scenario, tmp_path, port=port)
    cleanup.extend(ranks)
    for rank in ranks:
        assert rank.finish() == 0, rank.text[-3000:]
        assert '"finished"' in rank.text
    # The coordination service's process (processes/_service.py) ended with rank 0.
    deadline = time.monotonic() + 10
    while _listening(port):
        assert time.monotonic() < deadline, "the coordination service outlived the job"
        time.sleep(0.1)


def test_launch_prefixes_ranks_and_stops_all_on_first_failure(tmp_path):
    env = cpu_child_env(FLOWJOB_PROCESS_ID="0")  # the launcher sets it per rank
    ok = subprocess.run(
        [sys.executable, "-m", "flowjob", "launch", "--nproc", "2", str(PROGRAM), "train",
         str(tmp_path)],
        env=env, capture_output=True, text=True, timeout=LIMIT,
    )  # fmt: skip
    assert ok.returncode == 0, ok.stderr[-3000:]
    for rank in (0, 1):
        assert f'[rank {rank}] {{"finished": {rank}, "devices": 2}}' in ok.stdout
        assert f"[rank {rank}] step 7 " in ok.stdout
    failed = subprocess.run(
        [sys.executable, "-m", "flowjob", "launch", "--nproc", "2", "--heartbeat-timeout", "5",
         str(PROGRAM), "raise", str(tmp_path)],
        env=env, capture_output=True, text=True, timeout=LIMIT,
    )  # fmt: skip
    assert failed.returncode == 1
    assert "flowjob launch: rank 1 exited with status 1" in failed.stderr
    assert "[rank 0] flowjob: flowjob.errors.RankFailedError" in failed.stderr


def test_launch_reads_slurm_and_kubernetes_variables():
    from flowjob._src.cli.launch import first_slurm_host, plan
    from flowjob._src.cli.main import build_parser

    args = build_parser("launch").parse_args(["launch", "--nproc", "4", "train.py"])
    slurm = {"SLURM_PROCID": "2", "SLURM_NTASKS": "3", "SLURM_JOB_NODELIST": "gpu[007-009]"}
    assert plan(args, slurm) == (3, 2, "gpu007:29500")
    assert first_slurm_host("node12,node13") == "node12"
    assert first_slurm_host("a[1,4-5]") == "a1"
    args = build_parser("launch").parse_args(
        ["launch", "--nnodes", "4", "--coordinator", "train-0.train:1234", "train.py", "-x"]
    )
    assert plan(args, {"JOB_COMPLETION_INDEX": "3"}) == (4, 3, "train-0.train:1234")
    assert args.program_args == ["-x"]
    with pytest.raises(SystemExit, match="several nodes need --coordinator"):
        plan(build_parser("launch").parse_args(["launch", "--nnodes", "2", "p.py"]), {})
