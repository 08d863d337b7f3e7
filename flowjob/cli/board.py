"""``flowjob board LOGDIR``: serve a log directory with TensorBoard on 127.0.0.1.

TensorBoard runs as a child process, with flowjob's Anomalies tab (``flowjob.board_plugin``)
and settings that keep every logged point (its defaults down-sample to e.g. 1000 scalars and
10 images per tag) and reload data every second.
The URL is printed once the server answers ``/data/runs``; Ctrl-C or SIGTERM stops both.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

from flowjob_cli import COMMANDS

__all__ = ["add_parser", "run", "tensorboard_command", "board_command", "SAMPLES_PER_PLUGIN"]

# "Keep everything" must be spelled as a huge count: TensorBoard passes the same number to
# the plugins as the number of points to return, so "scalars=0" makes the HTTP API (and the
# UI) return no points at all (checked with TensorBoard 2.21, both data loaders).
_KEEP_ALL = 1_000_000_000
SAMPLES_PER_PLUGIN = ",".join(
    f"{plugin}={_KEEP_ALL}"
    for plugin in ("scalars", "images", "histograms", "tensors", "text", "audio", "pr_curves"))
DEFAULT_PORT = 6006


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Adds the ``board`` sub-command to ``subparsers`` (its handler is :func:`run`)."""
    p = subparsers.add_parser(
        "board", help=COMMANDS["board"],
        description="Start TensorBoard on LOGDIR (bound to 127.0.0.1 by default) with "
                    "settings that keep every logged point, and print its URL.")
    p.add_argument("logdir", metavar="LOGDIR", help="directory given to create_summary_writer / "
                   "SummaryWriter / Projector / Graph")
    p.add_argument("--port", type=int, default=DEFAULT_PORT,
                   help=f"port to listen on; 0 picks a free one (default {DEFAULT_PORT})")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--reload-interval", type=float, default=1.0, dest="reload_interval",
                   help="seconds between TensorBoard's reloads of the logs (default 1)")
    p.add_argument("--startup-timeout", type=float, default=120.0, dest="startup_timeout",
                   help="seconds to wait for TensorBoard to answer (default 120)")
    p.set_defaults(func=run)
    return p


def tensorboard_command(logdir: str, host: str, port: int,
                        reload_interval: float = 1.0) -> list[str]:
    """The command line that starts TensorBoard (with flowjob's Anomalies plugin, see
    ``flowjob.board_plugin``) for ``logdir``."""
    launcher = [sys.executable, "-m", "flowjob.board_plugin"]
    return [*launcher, "--logdir", logdir, "--host", host, "--port", str(port),
            "--reload_interval", f"{reload_interval:g}",
            "--samples_per_plugin", SAMPLES_PER_PLUGIN,
            # A run directory may hold several live event files (one per writer); without
            # this, the Python loader follows only the newest one.
            "--reload_multifile", "true"]


def board_command(logdir: str) -> str:
    """The shell command that opens ``logdir`` with this Python environment's ``flowjob
    board``, spelled so it works as typed in the current directory: ``flowjob`` when that is
    the one on PATH, else the script's path (``.venv/bin/flowjob`` after the quick start,
    which installs into ``.venv`` without activating it), else ``python -m flowjob``."""
    script = os.path.join(os.path.dirname(sys.executable), "flowjob")
    if os.path.isfile(script) and os.access(script, os.X_OK):
        on_path = shutil.which("flowjob")
        if on_path and os.path.samefile(on_path, script):
            exe = "flowjob"
        else:
            rel = os.path.relpath(script)
            exe = shlex.quote(rel if not rel.startswith("..") else script)
    else:
        exe = f"{shlex.quote(sys.executable)} -m flowjob"
    return f"{exe} board {shlex.quote(logdir)}"


def _free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "data/runs", timeout=2) as resp:
            return resp.status == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


def _error(message: str) -> int:
    print(f"flowjob board: error: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    """Runs TensorBoard until it exits or the user stops it; returns the exit status."""
    logdir = os.path.abspath(os.path.expanduser(args.logdir))
    if os.path.exists(logdir) and not os.path.isdir(logdir):
        return _error(f"LOGDIR {args.logdir!r} is not a directory")
    if not 0 <= args.port <= 65535:
        return _error(f"--port must be in 0..65535, got {args.port}")
    if not args.reload_interval > 0:
        return _error(f"--reload-interval must be > 0, got {args.reload_interval}")
    if importlib.util.find_spec("tensorboard") is None:
        return _error("TensorBoard is not installed in this Python environment "
                      "(pip install tensorboard)")
    if not os.path.isdir(logdir):
        print(f"flowjob board: {logdir} does not exist yet; TensorBoard will show it once "
              "logs are written", file=sys.stderr)
    port = args.port or _free_port(args.host)
    host_in_url = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{host_in_url}:{port}/"
    cmd = tensorboard_command(logdir, args.host, port, args.reload_interval)
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL)

    installed, previous = False, None
    if threading.current_thread() is threading.main_thread():
        def _stop(signum, frame):
            raise KeyboardInterrupt

        previous = signal.signal(signal.SIGTERM, _stop)
        installed = True
    try:
        deadline = time.monotonic() + args.startup_timeout
        while not _answers(url):
            if proc.poll() is not None:
                return _error(f"TensorBoard exited with status {proc.returncode} before "
                              f"answering on {url} (is port {port} in use?)")
            if time.monotonic() > deadline:
                return _error(f"TensorBoard did not answer on {url} within "
                              f"{args.startup_timeout:g} s")
            time.sleep(0.25)
        print(f"flowjob board: TensorBoard for {logdir} at {url} (Ctrl-C to stop)", flush=True)
        return proc.wait()
    except KeyboardInterrupt:
        return 0
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if installed:
            signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry point (``python -m flowjob.cli.board LOGDIR``)."""
    parser = argparse.ArgumentParser(prog="flowjob")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["board", *(sys.argv[1:] if argv is None else argv)])
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
