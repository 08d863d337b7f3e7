"""``flowjob launch [--nproc N] [--nnodes M --node-rank R --coordinator HOST:PORT] PROGRAM ARGS``:
starts this node's processes of a multi-process job.

Each process runs ``flowjob run PROGRAM ARGS`` (so OneFlow programs run unchanged) with
``FLOWJOB_COORDINATOR``, ``FLOWJOB_NUM_PROCESSES``, ``FLOWJOB_PROCESS_ID`` and
``FLOWJOB_LOCAL_RANK`` set. Each line a process prints is prefixed with its rank (passed on
as it comes, progress bars redrawn with \r included); SIGINT, SIGTERM and SIGHUP are
forwarded to every process; the first process that fails stops the rest (they stop by
themselves within the heartbeat timeout; whatever is left is killed after ``--fail-grace``
seconds, as after a SIGHUP); the exit status is the first failure's, else 0. No process
outlives the launcher, even one killed by SIGKILL (Linux).

Under SLURM (``SLURM_PROCID`` set) each task is a node: ``--nnodes`` defaults to
``SLURM_NTASKS``, ``--node-rank`` to ``SLURM_PROCID`` and the coordinator to the first host
of ``SLURM_JOB_NODELIST`` on ``--port``. In a Kubernetes indexed Job, ``--node-rank``
defaults to ``JOB_COMPLETION_INDEX``.
"""

from __future__ import annotations

import argparse
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import IO

from flowjob_cli import COMMANDS

from . import _rank_processes

DEFAULT_PORT = 29500


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "launch",
        help=COMMANDS["launch"],
        description=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--nproc", type=int, default=1, help="processes on this node")
    parser.add_argument("--nnodes", type=int, default=None, help="nodes (default 1)")
    parser.add_argument("--node-rank", type=int, default=None, help="this node's index")
    parser.add_argument(
        "--coordinator",
        default=None,
        help="HOST:PORT of the coordinator, on node 0 (default on one node: 127.0.0.1 and a "
        "free port); rank 0 binds this address only",
    )
    parser.add_argument(
        "--port", type=int, default=None, help=f"the coordinator's port (default {DEFAULT_PORT})"
    )
    parser.add_argument(
        "--heartbeat-timeout",
        type=float,
        default=None,
        help="seconds after which a silent process is declared dead (default 10)",
    )
    parser.add_argument(
        "--init-timeout",
        type=float,
        default=None,
        help="seconds to wait for every process to join (default 300)",
    )
    parser.add_argument(
        "--fail-grace",
        type=float,
        default=30.0,
        help="after a failure, seconds before the processes still running are killed",
    )
    parser.add_argument("program", help="the Python program every process runs")
    parser.add_argument("program_args", nargs=argparse.REMAINDER, metavar="ARGS")
    return parser


def first_slurm_host(nodelist: str) -> str:
    """The first host of a SLURM node list such as ``gpu[003-005,9],cpu1`` (-> ``gpu003``)."""
    match = re.match(r"([^,\[]+)(?:\[([^\]]+)\])?", nodelist.strip())
    if match is None:
        raise SystemExit(f"flowjob launch: cannot read SLURM's node list {nodelist!r}")
    prefix, ranges = match.group(1), match.group(2)
    return prefix + (re.split(r"[,-]", ranges)[0] if ranges else "")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def plan(args: argparse.Namespace, env: dict[str, str]) -> tuple[int, int, str]:
    """(nodes, this node's rank, coordinator) from the flags, else SLURM's or Kubernetes'
    variables, else one node on this machine."""
    nnodes, node_rank, coordinator = args.nnodes, args.node_rank, args.coordinator
    port = args.port or DEFAULT_PORT
    if "SLURM_PROCID" in env:
        nnodes = nnodes if nnodes is not None else int(env.get("SLURM_NTASKS", "1"))
        node_rank = node_rank if node_rank is not None else int(env["SLURM_PROCID"])
        nodelist = env.get("SLURM_STEP_NODELIST") or env.get("SLURM_JOB_NODELIST")
        if coordinator is None and nodelist and nnodes > 1:
            coordinator = f"{first_slurm_host(nodelist)}:{port}"
    if node_rank is None and "JOB_COMPLETION_INDEX" in env:
        node_rank = int(env["JOB_COMPLETION_INDEX"])
    nnodes = 1 if nnodes is None else nnodes
    node_rank = 0 if node_rank is None else node_rank
    if args.nproc < 1 or nnodes < 1 or not 0 <= node_rank < nnodes:
        raise SystemExit(
            f"flowjob launch: need --nproc >= 1 and 0 <= --node-rank < --nnodes, got "
            f"--nproc {args.nproc} --nnodes {nnodes} --node-rank {node_rank}"
        )
    if coordinator is None:
        if nnodes > 1:
            raise SystemExit(
                "flowjob launch: several nodes need --coordinator HOST:PORT (node 0's address)"
            )
        coordinator = f"127.0.0.1:{args.port or _free_port()}"
    return nnodes, node_rank, coordinator


def run(args: argparse.Namespace) -> int:
    nnodes, node_rank, coordinator = plan(args, dict(os.environ))
    world = nnodes * args.nproc
    env = dict(os.environ, FLOWJOB_COORDINATOR=coordinator, FLOWJOB_NUM_PROCESSES=str(world))
    env["PYTHONUNBUFFERED"] = "1"  # lines reach the prefixer as they are printed
    if args.heartbeat_timeout is not None:
        env["FLOWJOB_HEARTBEAT_TIMEOUT"] = str(args.heartbeat_timeout)
    if args.init_timeout is not None:
        env["FLOWJOB_INIT_TIMEOUT"] = str(args.init_timeout)
    command = [sys.executable, "-m", "flowjob", "run", args.program, *args.program_args]
    envs = [
        dict(env, FLOWJOB_PROCESS_ID=str(rank), FLOWJOB_LOCAL_RANK=str(local))
        for local, rank in enumerate(range(node_rank * args.nproc, (node_rank + 1) * args.nproc))
    ]
    procs: list[subprocess.Popen] = []
    received: list[int] = []

    def forward(number: int, frame: object) -> None:
        received.append(number)
        _rank_processes.signal_group(procs, number)

    # Before the ranks start: a signal arriving meanwhile is forwarded once they exist.
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, forward)
    procs.extend(_rank_processes.spawn(command, envs))
    for number in received:
        _rank_processes.signal_group(procs, number)
    lock = threading.Lock()
    pumps: list[threading.Thread] = []
    for rank, proc in zip(range(node_rank * args.nproc, world), procs):
        prefix = f"[rank {rank}] ".encode()
        for stream, out in ((proc.stdout, sys.stdout), (proc.stderr, sys.stderr)):
            pump = threading.Thread(
                target=_rank_processes.pump, args=(stream, out, prefix, lock), daemon=True
            )
            pump.start()
            pumps.append(pump)
    try:
        status = _supervise(procs, args.fail_grace, node_rank * args.nproc, received)
    finally:  # whatever ends the launcher, no rank stays behind
        _rank_processes.signal_group(procs, signal.SIGKILL)
    for pump in pumps:
        pump.join(timeout=5)
    return status


def _supervise(
    procs: list[subprocess.Popen], grace: float, first_rank: int, received: list[int]
) -> int:
    """Waits for every process; after the first failure (in the order they exited), or a
    SIGHUP to the launcher (its terminal is gone), kills what is left after ``grace``
    seconds. Returns the first failure's status, else 0."""
    exits: queue.SimpleQueue[int] = queue.SimpleQueue()
    for local, proc in enumerate(procs):
        threading.Thread(
            target=lambda i=local, p=proc: (p.wait(), exits.put(i)), daemon=True
        ).start()
    failure: int | None = None
    kill_at = None
    for _ in procs:
        while True:
            try:
                local = exits.get(timeout=0.2)
                break
            except queue.Empty:
                if kill_at is None and signal.SIGHUP in received:
                    kill_at = time.monotonic() + grace
                if kill_at is not None and time.monotonic() > kill_at:
                    _rank_processes.signal_group(procs, signal.SIGKILL)
        code = procs[local].returncode
        if code and failure is None:
            failure = code if code > 0 else 128 - code
            kill_at = time.monotonic() + grace
            _say(
                f"flowjob launch: rank {first_rank + local} exited with status {code}; "
                "stopping the other processes"
            )
    return failure or 0


def _say(text: str) -> None:
    try:
        print(text, file=sys.stderr, flush=True)
    except (OSError, ValueError):  # the terminal is gone
        pass
