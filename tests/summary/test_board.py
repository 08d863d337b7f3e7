"""``flowjob board``: starts TensorBoard on 127.0.0.1, prints the URL, keeps every point,
and stops TensorBoard with it."""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from flowjob._src.cli import board
from flowjob._src.summary._writer import SummaryWriter
from tests.timeouts import scaled

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_board(*args: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.Popen(
        [sys.executable, "-m", "flowjob._src.cli.board", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def get_json(url: str):
    with urllib.request.urlopen(url, timeout=scaled(10)) as resp:
        return json.loads(resp.read())


def wait_line(proc: subprocess.Popen, needle: str, timeout: float = 90) -> str:
    deadline = time.monotonic() + scaled(timeout)
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if needle in line:
            return line
        if not line and proc.poll() is not None:
            break
    proc.kill()
    _, err = proc.communicate()
    raise AssertionError(f"no line with {needle!r}; rc={proc.returncode} stderr:\n{err[-3000:]}")


def test_board_serves_logdir_keeps_every_point_and_stops(tmp_path):
    with SummaryWriter(tmp_path) as w:
        for step in range(1500):  # more than TensorBoard's default of 1000 per tag
            w.scalar("x", step * 0.5, step)
    port = free_port()
    proc = start_board(str(tmp_path), "--port", str(port))
    try:
        line = wait_line(proc, "TensorBoard for")
        url = f"http://127.0.0.1:{port}/"
        assert url in line
        assert get_json(url + "data/runs") == ["."]
        deadline = time.monotonic() + 30
        points = []
        while len(points) < 1500 and time.monotonic() < deadline:
            points = get_json(url + "data/plugin/scalars/scalars?run=.&tag=x")
            time.sleep(0.3)
        assert [(s, v) for _, s, v in points] == [(s, s * 0.5) for s in range(1500)]
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=scaled(30))  # also closes the pipes
    assert proc.returncode == 0, err[-2000:]
    with pytest.raises((urllib.error.URLError, ConnectionError, OSError)):
        get_json(f"http://127.0.0.1:{port}/data/runs")  # TensorBoard went away with it


def test_busy_port_moves_to_the_next_free_one_before_printing(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.scalar("x", 1.0, 0)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        busy = s.getsockname()[1]
        proc = start_board(str(tmp_path), "--port", str(busy))
        try:
            line = wait_line(proc, "TensorBoard for")
            port = int(line.split("http://127.0.0.1:", 1)[1].split("/", 1)[0])
            assert port > busy
            assert get_json(f"http://127.0.0.1:{port}/data/environment")["data_location"] == str(
                tmp_path
            )
        finally:
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=scaled(30))
    # Said once, before the URL; the URL is printed once; nothing from TensorBoard itself.
    assert f"port {busy} is in use; using port {port}" in err
    assert (line + out).count("http://") == 1 and "http://" not in err
    assert "TensorFlow" not in err and proc.returncode == 0, err


def test_sigkill_of_the_board_takes_tensorboard_with_it(tmp_path):
    port = free_port()
    proc = start_board(str(tmp_path), "--port", str(port))
    try:
        wait_line(proc, "TensorBoard for")
        assert get_json(f"http://127.0.0.1:{port}/data/runs") == []
    finally:
        proc.kill()
        proc.communicate(timeout=scaled(30))
    with pytest.raises((urllib.error.URLError, ConnectionError, OSError)):
        get_json(f"http://127.0.0.1:{port}/data/runs")


def test_board_argument_errors(tmp_path, capsys):
    parser = argparse.ArgumentParser(prog="flowjob")
    board.add_parser(parser.add_subparsers(dest="command"))
    not_dir = tmp_path / "file.txt"
    not_dir.write_text("x")
    assert board.run(parser.parse_args(["board", str(not_dir)])) == 2
    assert "is not a directory" in capsys.readouterr().err
    assert board.run(parser.parse_args(["board", str(tmp_path), "--port", "70000"])) == 2
    assert "--port must be in 0..65535, got 70000" in capsys.readouterr().err
    args = parser.parse_args(["board", str(tmp_path)])
    assert (args.host, args.port, args.func) == ("127.0.0.1", 6006, board.run)


def test_command_line_keeps_all_samples():
    cmd = board.tensorboard_flags("/logs", "127.0.0.1", 6123)
    spec = cmd[cmd.index("--samples_per_plugin") + 1]
    hints = dict(item.split("=") for item in spec.split(","))
    # 0 would make the plugins return no points at all; every hint is a huge count.
    assert {"scalars", "images", "histograms", "text"} <= set(hints)
    assert all(int(v) >= 10**9 for v in hints.values())
    assert cmd[cmd.index("--host") + 1] == "127.0.0.1"


def test_board_command_is_spelled_to_work_as_typed(tmp_path, monkeypatch):
    # After the quick start: the venv's python runs the demo from the repository root and
    # .venv/bin is not on PATH, so the printed command names the script by its path.
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    script = bin_dir / "flowjob"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "executable", str(bin_dir / "python"))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert board.board_command("runs/mnist_demo") == ".venv/bin/flowjob board runs/mnist_demo"
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")  # an activated venv
    assert board.board_command("runs/a b") == "flowjob board 'runs/a b'"
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")  # outside the venv's folder: the absolute path
    assert board.board_command("x") == f"{script} board x"
    script.unlink()  # no console script (a source checkout): python -m flowjob
    assert board.board_command("x") == f"{bin_dir / 'python'} -m flowjob board x"
