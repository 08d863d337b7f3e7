"""The ``flowjob`` command line: help without JAX, doctor's positional paths, help texts."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest
from board_helpers import REPO, repo_env

import flowjob.checkpoint as ckpt
from flowjob._src.cli.main import build_parser, main
from flowjob.summary import SummaryWriter
from flowjob_cli import COMMANDS
from tests.timeouts import scaled


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code],
        env=repo_env(),
        capture_output=True,
        text=True,
        timeout=scaled(120),
        cwd=REPO,
    )


def test_console_script_is_the_light_entry_point():
    text = (REPO / "pyproject.toml").read_text()
    assert re.search(r'^flowjob = "flowjob_cli:main"$', text, re.M)


@pytest.mark.parametrize("argv", [["--help"], [], ["no-such-command"]])
def test_help_and_usage_errors_do_not_import_jax(argv):
    code = (
        "import sys, json, flowjob_cli\n"
        "try:\n"
        f"    flowjob_cli.main({argv!r})\n"
        "except SystemExit as e:\n"
        "    status = e.code\n"
        "print(json.dumps([status, sorted(m for m in sys.modules "
        "if m == 'jax' or m.startswith(('jax.', 'flowjob.')) or m == 'flowjob')]))"
    )
    proc = _python(code)
    status, modules = json.loads(proc.stdout.strip().splitlines()[-1])
    assert modules == [], modules
    assert status == (0 if argv == ["--help"] else 2)
    if argv == ["--help"]:
        for name, help_text in COMMANDS.items():
            assert re.search(rf"^\s+{name}\s+{re.escape(help_text)}$", proc.stdout, re.M)
    else:
        # a usage mistake is one line naming the command and where to read its usage
        assert proc.stderr.startswith("flowjob: error: ") and proc.stderr.count("\n") == 1
        assert proc.stderr.rstrip().endswith("(see flowjob --help)")


def test_full_parser_lists_the_same_commands():
    parser = build_parser()
    (action,) = [a for a in parser._subparsers._group_actions]
    assert list(action.choices) == list(COMMANDS)
    assert {a.dest: a.help for a in action._choices_actions} == COMMANDS


def test_ofrecord_help_has_no_rest_markup(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["ofrecord", "--help"])
    out = capsys.readouterr().out
    assert exc.value.code == 0
    assert "``" not in out and "images IMAGE_DIR OUT_DIR" in out


def test_doctor_takes_positional_paths(tmp_path, capsys):
    with SummaryWriter(tmp_path / "logs" / "a") as w:
        w.scalar("loss", 1.0, 0)
    ckpt.save(tmp_path / "ckpt", {"w": np.ones((2, 3), np.float32)})
    (event_file,) = (tmp_path / "logs" / "a").glob("*tfevents*")
    rc = main(["doctor", str(tmp_path / "logs"), str(tmp_path / "ckpt"), str(event_file)])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert f"logdir {tmp_path / 'logs'}:" in out and f"checkpoint {tmp_path / 'ckpt'}:" in out
    assert f"logdir {event_file}:" in out
    assert out.count(f"OK      {event_file}: 2 record(s)") == 2
    assert re.search(rf"OK      {re.escape(str(tmp_path / 'ckpt'))}: 1 variable", out)


def test_doctor_positional_damage_sets_the_status(tmp_path, capsys):
    (tmp_path / "not_a_checkpoint").mkdir()
    assert main(["doctor", str(tmp_path / "not_a_checkpoint")]) == 1
    assert "DAMAGED" in capsys.readouterr().out


def test_a_port_werkzeug_exits_on_is_skipped_when_it_is_taken():
    """Werkzeug exits (SystemExit) instead of raising on a bind error; a port taken between
    TensorBoard's check and the bind is skipped like any busy port, and a bind error on a
    free port is reported, not mistaken for a busy one."""
    import argparse
    import importlib
    import socket

    from flowjob._src.cli import board

    # the module itself: `from tensorboard import program` is a lazy proxy of it
    program = importlib.import_module("tensorboard.program")

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    made = []

    class ExitingServer:  # what werkzeug does on EADDRINUSE
        def __init__(self, app, flags):
            probe = socket.socket()
            try:
                probe.bind((flags.host, flags.port))
            except OSError:
                raise SystemExit(1) from None
            finally:
                probe.close()
            made.append(flags.port)

    original = program.WerkzeugServer
    program.WerkzeugServer = ExitingServer
    try:
        servers, busy = [], []
        make = board._server_factory(servers, busy, board.DEFAULT_LIVE_PERIOD)
        make(lambda *a: None, argparse.Namespace(host="127.0.0.1", port=port))
        assert busy == [port] and made and made[0] != port

        class AlwaysExits:
            def __init__(self, app, flags):
                raise SystemExit(1)

        program.WerkzeugServer = AlwaysExits
        free = socket.socket()
        free.bind(("127.0.0.1", 0))
        free_port = free.getsockname()[1]
        free.close()
        with pytest.raises(program.TensorBoardServerException, match="cannot bind"):
            make(lambda *a: None, argparse.Namespace(host="127.0.0.1", port=free_port))
    finally:
        program.WerkzeugServer = original
        taken.close()


def test_live_period_too_short_is_refused_before_serving(tmp_path, capsys):
    import argparse

    from flowjob._src.cli import board

    args = argparse.Namespace(
        logdir=str(tmp_path),
        port=0,
        host="127.0.0.1",
        reload_interval=1.0,
        live_period=0.1,
        startup_timeout=5.0,
    )
    assert board.run(args) == 2
    assert "--live-period must be >= 0.25 s, got 0.1" in capsys.readouterr().err


def test_live_script_carries_the_period():
    from flowjob._src.board_plugin import LIVE_SCRIPT_PATH, live_reload_app

    app = live_reload_app(lambda environ, start: [b""], 1.5)
    got = {}
    body = b"".join(
        app({"PATH_INFO": LIVE_SCRIPT_PATH}, lambda status, headers: got.update(status=status))
    )
    assert got["status"] == "200 OK"
    assert body.startswith(b"window.flowjobLive = {periodMs: 1500};")


def test_a_tensorboard_that_needs_pkg_resources_gets_a_clear_error(tmp_path):
    """TensorBoard before 2.20 imports ``pkg_resources``, gone from setuptools 81: with such
    a TensorBoard first on the path and no ``pkg_resources``, ``flowjob board`` says what to
    install instead of a traceback."""
    probe = _python("import importlib.util as u; print(u.find_spec('pkg_resources') is None)")
    if probe.stdout.strip() != "True":
        pytest.skip("this environment has pkg_resources (setuptools < 81): nothing to report")
    old = tmp_path / "tb"
    pip = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(old),
         "tensorboard~=2.17.0"],
        capture_output=True, text=True, timeout=scaled(600),
    )  # fmt: skip
    assert pip.returncode == 0, pip.stderr[-2000:]
    env = repo_env()
    env["PYTHONPATH"] = f"{old}:{env['PYTHONPATH']}"
    out = subprocess.run(
        [sys.executable, "-m", "flowjob", "board", str(tmp_path / "logs"), "--port", "0"],
        env=env, capture_output=True, text=True, timeout=scaled(120),
    )  # fmt: skip
    assert out.returncode == 2, out.stderr[-2000:]
    assert "TensorBoard 2.17." in out.stderr and "pip install 'setuptools<81'" in out.stderr
    assert "Traceback" not in out.stderr
