"""One odd file in the log directory never takes ``flowjob board`` down or freezes it (issue 48,
item 5): an event file whose record length field says 2^40 bytes (with a valid CRC), a FIFO
named like an event file, a FIFO ``projector_config.pbtxt``, a 3 GiB sparse ``anomaly.json``
and a symbolic link loop, all in one logdir. The board starts, every other run keeps showing
new points, the plugin listing and the Anomalies reports answer, the loop is entered once, and
each odd file is named once on the board's log."""

from __future__ import annotations

import os
import struct
import sys
import time
import urllib.parse

import numpy as np
import pytest
from board_helpers import Board, free_port, repo_env, wait_for

from flowjob._src.summary import SummaryWriter
from flowjob._src.summary._records import masked_crc32c
from flowjob.summary import Projector
from tests.timeouts import scaled

GIB = 1 << 30


def _huge_length_file(run) -> None:
    """A run whose only event file has one good event, then a 2^40 length field (valid CRC)."""
    run.mkdir(parents=True)
    with SummaryWriter(run) as w:
        w.scalar("loss", 0.5, 0)
    (path,) = [p for p in run.iterdir() if "tfevents" in p.name]
    header = struct.pack("<Q", 1 << 40)
    with open(path, "ab") as f:
        f.write(header + struct.pack("<I", masked_crc32c(header)) + b"\0" * 64)


def _odd_logdir(logs):
    """``logs`` with a healthy run ``good`` and one run of each odd kind; the damaged runs
    sort before ``good``, so a reloader that stops at them would never reach it."""
    _huge_length_file(logs / "a_huge_length")
    fifo_run = logs / "b_fifo"
    fifo_run.mkdir(parents=True)
    os.mkfifo(fifo_run / "events.out.tfevents.1700000000.host.1.0")
    projector_fifo = logs / "c_projector_fifo"
    with SummaryWriter(projector_fifo) as w:
        w.scalar("loss", 0.25, 0)
    os.mkfifo(projector_fifo / "projector_config.pbtxt")
    anomaly = logs / "d_anomaly"
    with SummaryWriter(anomaly) as w, Projector(str(anomaly)) as p:
        w.scalar("loss", 0.125, 0)
        p.create_exception_projector()
        rows = np.r_[np.random.default_rng(0).normal(size=(29, 4)), [[50.0, 0, 0, 0]]]
        p.exception_projector(value=rows, tag="features", step=0)
    (record,) = anomaly.rglob("anomaly.json")
    os.truncate(record, 3 * GIB)
    loop = logs / "e_loop"
    with SummaryWriter(loop) as w:
        w.scalar("loss", 0.0625, 0)
    os.symlink("..", loop / "up")
    return record


def _scalar_steps(board, run: str) -> list[int]:
    query = urllib.parse.urlencode({"run": run, "tag": "loss"})
    return [row[1] for row in board.get_json(f"/data/plugin/scalars/scalars?{query}")]


@pytest.fixture(scope="module")
def odd_board(tmp_path_factory):
    cwd = tmp_path_factory.mktemp("odd")
    logs = cwd / "logs"
    anomaly = _odd_logdir(logs)
    good = SummaryWriter(logs / "good", flush_secs=0.1)
    good.scalar("loss", 1.0, 0)
    good.flush()
    board = Board(
        f"{sys.executable} -m flowjob board logs --port {free_port()}",
        cwd=cwd,
        env=repo_env(),
        timeout=120,
    )
    try:
        yield board, good, logs, anomaly
    finally:
        board.stop()
        good.close()


def test_the_board_starts_and_healthy_runs_keep_updating(odd_board):
    board, good, logs, _ = odd_board
    runs = wait_for(lambda: board.get_json("/data/runs"), lambda r: "good" in r, timeout=60)
    wait_for(lambda: _scalar_steps(board, "good"), lambda s: s == [0], timeout=60)
    for step in range(1, 4):  # new points keep arriving after the damaged runs were read
        good.scalar("loss", 1.0 / (step + 1), step)
        good.flush()
        wait_for(lambda: _scalar_steps(board, "good"), lambda s, n=step: n in s, timeout=30)
    assert _scalar_steps(board, "a_huge_length") == [0]  # the records before the damage
    assert _scalar_steps(board, "c_projector_fifo") == [0]
    runs = board.get_json("/data/runs")
    assert "b_fifo" not in runs  # its only "event file" is a FIFO: not a run
    # the loop is entered once: e_loop and, through `up`, nothing new (the logdir is known)
    assert sorted(runs) == ["a_huge_length", "c_projector_fifo", "d_anomaly", "e_loop", "good"]


def test_plugins_listing_and_anomaly_reports_answer(odd_board):
    board, *_ = odd_board
    start = time.monotonic()
    listing = board.get_json("/data/plugins_listing")
    reports = board.get_json("/data/plugin/flowjob_anomaly/reports")
    assert "scalars" in listing and reports["reports"] == [], reports
    assert time.monotonic() - start < scaled(30)


def test_each_odd_file_is_named_once_on_the_boards_log(odd_board):
    board, _, logs, anomaly = odd_board
    board.get_json("/data/plugin/flowjob_anomaly/reports")
    fifo = logs / "b_fifo" / "events.out.tfevents.1700000000.host.1.0"
    config = logs / "c_projector_fifo" / "projector_config.pbtxt"
    expected = {
        fifo: f"{fifo}: it is a FIFO (named pipe)",
        config: f"{config}: it is a FIFO (named pipe)",
        anomaly: f"{anomaly} is {3 * GIB} bytes, more than the {64 << 20} bytes",
    }

    def log_names_all(text):
        return all(e in text for e in expected.values()) and "record at offset" in text

    text = wait_for(lambda: board.log.read_text(), log_names_all, timeout=60)
    for path in expected:  # once each, however often the board polls
        assert text.count(f"{path}") == 1, text[-4000:]
    huge = [line for line in text.splitlines() if "a_huge_length" in line and "offset" in line]
    assert len(huge) == 1 and f"length field says {1 << 40} bytes" in huge[0], huge
