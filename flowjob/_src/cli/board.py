"""``flowjob board LOGDIR``: serve a log directory with TensorBoard on 127.0.0.1.

TensorBoard runs in this process, with flowjob's Anomalies tab (``flowjob._src.board_plugin``),
settings that keep every logged point (its defaults down-sample to e.g. 1000 scalars and
10 images per tag) and read new data every second, and pages that fetch new data by
themselves every ``--live-period`` seconds (``flowjob._src.board_plugin.live_reload_app``),
answered from kept answers while the loaded logs stay the same (``cached_data_app``), and
that tick the runs being written when TensorBoard ticks none (``live_runs_app``).
A busy port moves to the next free one (said on stderr); the URL is printed once the server
answers ``/data/runs``; Ctrl-C or SIGTERM stops.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shlex
import shutil
import signal
import sys
import threading
import time
import types
import urllib.error
import urllib.request

from flowjob_cli import COMMANDS

__all__ = ["add_parser", "run", "tensorboard_flags", "board_command", "SAMPLES_PER_PLUGIN"]

# "Keep everything" must be spelled as a huge count: TensorBoard passes the same number to
# the plugins as the number of points to return, so "scalars=0" makes the HTTP API (and the
# UI) return no points at all (checked with TensorBoard 2.21, both data loaders).
_KEEP_ALL = 1_000_000_000
SAMPLES_PER_PLUGIN = ",".join(
    f"{plugin}={_KEEP_ALL}"
    for plugin in ("scalars", "images", "histograms", "tensors", "text", "audio", "pr_curves")
)
DEFAULT_PORT = 6006
DEFAULT_LIVE_PERIOD = 2.0  # seconds between an open page's fetches of new data
_PORT_ATTEMPTS = 100  # a busy --port moves up to this many ports on


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Adds the ``board`` sub-command to ``subparsers`` (its handler is :func:`run`)."""
    p = subparsers.add_parser(
        "board",
        help=COMMANDS["board"],
        description="Start TensorBoard on LOGDIR (bound to 127.0.0.1 by default) with "
        "settings that keep every logged point, and print its URL.",
    )
    p.add_argument(
        "logdir",
        metavar="LOGDIR",
        help="directory given to create_summary_writer / SummaryWriter / Projector / Graph",
    )
    p.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"port to listen on; when busy, the next free one is used; 0 picks "
        f"any free one (default {DEFAULT_PORT})",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument(
        "--reload-interval",
        type=float,
        default=1.0,
        dest="reload_interval",
        help="seconds between TensorBoard's reloads of the logs (default 1)",
    )
    p.add_argument(
        "--live-period",
        type=float,
        default=DEFAULT_LIVE_PERIOD,
        dest="live_period",
        metavar="SECONDS",
        help="seconds between the open page's fetches of new data "
        f"(default {DEFAULT_LIVE_PERIOD:g}; at least 0.25)",
    )
    p.add_argument(
        "--startup-timeout",
        type=float,
        default=120.0,
        dest="startup_timeout",
        help="seconds to wait for TensorBoard to answer (default 120)",
    )
    p.set_defaults(func=run)
    return p


def tensorboard_flags(logdir: str, host: str, port: int, reload_interval: float = 1.0) -> list[str]:
    """TensorBoard's command-line flags for serving ``logdir`` (the ``tensorboard`` program's
    own spelling; ``flowjob board`` passes them to ``TensorBoard.configure``)."""
    return [
        "--logdir",
        logdir,
        "--host",
        host,
        "--port",
        str(port),
        "--reload_interval",
        f"{reload_interval:g}",
        "--samples_per_plugin",
        SAMPLES_PER_PLUGIN,
        # The Python loader: it starts no data-server child process, and with this flag
        # follows every live event file of a run directory (one per writer), not only
        # the newest.
        "--load_fast",
        "false",
        "--reload_multifile",
        "true",
    ]


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


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "data/runs", timeout=2) as resp:
            return resp.status == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


def _error(message: str) -> int:
    print(f"flowjob board: error: {message}", file=sys.stderr)
    return 2


def _bindable(host: str, port: int) -> bool:
    """Whether ``port`` on ``host`` can be bound now."""
    import socket

    for family, kind, proto, _, address in socket.getaddrinfo(
        host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    ):
        with socket.socket(family, kind, proto) as probe:
            try:
                probe.bind(address)
            except OSError:
                return False
    return True


def _server_factory(servers: list, busy: list[int], live_period: float, logs=None):
    """A ``server_class`` for ``program.TensorBoard``: binds the first free port from the
    requested one up (each busy one is appended to ``busy``), around the live-page wrapper
    (pages reload every ``live_period`` seconds) and the data answers kept while ``logs``
    (a ``LoadedLogs``; None: none kept) stay the same; the server is appended to ``servers``."""
    from tensorboard import program

    from ..board_plugin import cached_data_app, live_reload_app, live_runs_app

    def make(wsgi_app, flags):
        data_app = wsgi_app
        if logs is not None:
            # the runs written within the last minute (or 10 live periods) are ticked in the
            # page's run selector when TensorBoard ticks none (over 40 or 500 runs)
            live_age = max(60.0, 10 * live_period)
            data_app = live_runs_app(cached_data_app(wsgi_app, logs), logs, live_age)
        app = live_reload_app(data_app, live_period)
        last = flags.port if flags.port == 0 else min(flags.port + _PORT_ATTEMPTS, 65536)
        for port in range(flags.port, max(last, flags.port + 1)):
            subflags = argparse.Namespace(**vars(flags))
            subflags.port = port
            try:
                server = program.WerkzeugServer(app, subflags)
            except program.TensorBoardPortInUseError:
                busy.append(port)
                continue
            except SystemExit:
                # Werkzeug >= 2 prints and exits on any bind error instead of raising, so
                # TensorBoard's in-use check can miss a port taken a moment ago (an
                # ephemeral port handed to another connection): skip it if it is taken.
                if _bindable(flags.host, port):
                    raise program.TensorBoardServerException(
                        f"cannot bind port {port} on {flags.host!r}"
                    ) from None
                busy.append(port)
                continue
            servers.append(server)
            return server
        raise program.TensorBoardServerException(f"ports {flags.port} to {last - 1} are all in use")

    return make


def run(args: argparse.Namespace) -> int:
    """Serves TensorBoard in this process until the user stops it; returns the exit status.

    In-process (not a child) so that nothing keeps serving once this process is gone, even
    when it is killed with SIGKILL; the port is bound before anything is printed."""
    logdir = os.path.abspath(os.path.expanduser(args.logdir))
    if os.path.exists(logdir) and not os.path.isdir(logdir):
        return _error(f"LOGDIR {args.logdir!r} is not a directory")
    if not 0 <= args.port <= 65535:
        return _error(f"--port must be in 0..65535, got {args.port}")
    if not args.reload_interval > 0:
        return _error(f"--reload-interval must be > 0, got {args.reload_interval}")
    if importlib.util.find_spec("tensorboard") is None:
        return _error(
            "TensorBoard is not installed in this Python environment (pip install tensorboard)"
        )
    # TensorBoard's own switch (its "no_tensorflow" build) for the TF-free stub it uses when
    # TensorFlow is absent: an installed TensorFlow would add ~30 s of import and its log
    # lines, and gives nothing for a local logdir.
    sys.modules.setdefault("tensorboard.compat.notf", types.ModuleType("tensorboard.compat.notf"))
    try:
        from tensorboard import default, program
    except ModuleNotFoundError as exc:
        if exc.name != "pkg_resources":
            raise
        from tensorboard import version

        return _error(
            f"TensorBoard {version.VERSION} imports pkg_resources, which setuptools 81 and "
            "later no longer have: pip install 'setuptools<81', or a TensorBoard >= 2.20"
        )

    from ..board_plugin import (
        MIN_LIVE_PERIOD,
        LoadedLogs,
        install_safe_logs,
        with_anomaly_plugin,
        with_live_projector,
    )

    if not args.live_period >= MIN_LIVE_PERIOD:
        return _error(f"--live-period must be >= {MIN_LIVE_PERIOD:g} s, got {args.live_period:g}")

    # flowjob's readers in TensorBoard's loader (this process only): no file in the logdir
    # (a FIFO, a 2^40-byte length field, a symlink loop) can stop or hang the reloader
    install_safe_logs()
    servers: list = []
    busy: list[int] = []
    logs = LoadedLogs(logdir)
    tensorboard = program.TensorBoard(
        plugins=[*with_anomaly_plugin(with_live_projector(default.get_plugins())), logs],
        server_class=_server_factory(servers, busy, args.live_period, logs),
    )
    tensorboard.configure(
        argv=["", *tensorboard_flags(logdir, args.host, args.port, args.reload_interval)]
    )
    try:
        url = tensorboard.launch()
    except program.TensorBoardServerException as e:
        return _error(f"cannot serve on {args.host}: {e.msg}")
    server = servers[-1]
    try:
        if busy:
            print(
                f"flowjob board: port {busy[0]} is in use"
                f"{f' (and {len(busy) - 1} more)' if len(busy) > 1 else ''}; "
                f"using port {server.server_port}",
                file=sys.stderr,
            )
        if not os.path.isdir(logdir):
            print(
                f"flowjob board: {logdir} does not exist yet; TensorBoard will show it "
                "once logs are written",
                file=sys.stderr,
            )
        deadline = time.monotonic() + args.startup_timeout
        while not _answers(url):
            if time.monotonic() > deadline:
                return _error(
                    f"TensorBoard did not answer on {url} within {args.startup_timeout:g} s"
                )
            time.sleep(0.1)
        print(f"flowjob board: TensorBoard for {logdir} at {url} (Ctrl-C to stop)", flush=True)
        _wait_for_stop()
        return 0
    finally:
        server.shutdown()
        server.server_close()


def _wait_for_stop() -> None:
    """Returns on Ctrl-C or SIGTERM."""
    stop = threading.Event()
    installed, previous = False, None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, lambda signum, frame: stop.set())
        installed = True
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        if installed:
            signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry point (``python -m flowjob._src.cli.board LOGDIR``)."""
    parser = argparse.ArgumentParser(prog="flowjob")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["board", *(sys.argv[1:] if argv is None else argv)])
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
