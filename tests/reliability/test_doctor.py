"""``flowjob doctor``: environment report and damage checks of logdirs and checkpoints."""

from __future__ import annotations

import importlib.metadata
import os
import platform
import re

import jax
import numpy as np
import pytest
from reliability_helpers import event_files, run_doctor

import flowjob as flow
import flowjob.checkpoint as ckpt
from flowjob._src.cli.main import main
from flowjob.summary import SummaryWriter


def _doctor(capsys, *args) -> tuple[int, str]:
    rc = main(["doctor", *map(str, args)])
    return rc, capsys.readouterr().out


def _problems(out: str) -> list[str]:
    return [
        line.strip() for line in out.splitlines() if line.strip().startswith(("DAMAGED", "WARNING"))
    ]


@pytest.fixture
def healthy(tmp_path):
    """A run directory with two runs, a OneFlow checkpoint, a safetensors file, a snapshot
    root (as SimpleCheckPointManager writes it)."""
    for run in ("a", "b"):
        with SummaryWriter(tmp_path / "logs" / run) as w:
            for i in range(20):
                w.scalar("loss", 1.0 / (i + 1), i)
            w.histogram("w", np.arange(50), 19)
            w.image("img", np.zeros((2, 4, 4, 3), np.uint8), 19)
    values = {"w": np.ones((3, 4), np.float32), "b": np.zeros(4, np.float64)}
    ckpt.save(tmp_path / "ckpt", values)
    ckpt.save(tmp_path / "model.safetensors", values, format="safetensors")
    for k in range(2):
        ckpt.save(tmp_path / "snapshots" / f"snapshot_{k}", values)
    return tmp_path


def test_environment_report_through_the_real_command(tmp_path):
    result = run_doctor()
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    expected = {
        "python": platform.python_version(),
        "flowjob": flow.__version__,
        "jax": jax.__version__,
        "numpy": np.__version__,
    }
    for dist in ("jaxlib", "tensorboard", "protobuf"):
        expected[dist] = importlib.metadata.version(dist)
    for name, version in expected.items():
        assert re.search(rf"^\s+{name}\s+{re.escape(version)}\b", out, re.M), (name, out)
    assert re.search(r"^devices:\n\s+cpu:0 ", out, re.M), out  # the child runs on JAX's CPU
    assert re.search(r"^compilation cache: (off|/)", out, re.M), out
    assert out.rstrip().endswith("-> healthy")


def test_devices_and_cache_dir_match_jax(capsys, fresh_session):
    @flow.global_function()
    def one() -> flow.typing.Numpy:
        return flow.constant(1.0, shape=(1,))

    one()  # a session has started: JAX's own setting is now the cache in use
    rc, out = _doctor(capsys)
    assert rc == 0
    for d in jax.devices():
        assert f"  {d.platform}:{d.id}  " in out
    cache = jax.config.jax_compilation_cache_dir
    assert f"compilation cache: {cache}" in out if cache else "compilation cache: off" in out


@pytest.mark.parametrize("setting", ["unset", "off", "folder"])
def test_fresh_process_reports_the_cache_its_first_session_will_use(tmp_path, setting):
    """Before any session starts the cache is not yet configured; doctor still reports the
    folder the first job will use (FLOWJOB_CACHE_DIR, or the default), not "off"."""
    env = {"unset": None, "off": "", "folder": str(tmp_path / "jit")}[setting]
    result = run_doctor(cache_env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    line = re.search(r"^compilation cache: (.*)$", result.stdout, re.M).group(1)
    if setting == "off":
        assert line == "off"
    elif setting == "folder":
        assert line == f"{tmp_path / 'jit'} (not created yet)"
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
        home = os.environ.get("FLOWJOB_CACHE_DIR") or os.path.join(base, "flowjob", "jax")
        assert line.startswith(home), line


def test_healthy_logs_and_checkpoints(capsys, healthy):
    rc, out = _doctor(
        capsys,
        "--logdir",
        healthy / "logs",
        "--checkpoint",
        healthy / "ckpt",
        "--checkpoint",
        healthy / "model.safetensors",
        "--checkpoint",
        healthy / "snapshots",
    )
    assert rc == 0, out
    assert _problems(out) == []
    for f in event_files(healthy / "logs"):
        assert f"OK      {f}: 23 record(s)" in out  # file_version, 20 scalars, histogram, image
    assert f"OK      {healthy / 'ckpt'}: 2 variable(s), snapshot_done present" in out
    assert f"OK      {healthy / 'model.safetensors'}: safetensors, 2 tensor(s)" in out
    assert out.count("OK      " + str(healthy / "snapshots")) == 2


def test_every_damage_is_one_line_naming_its_file(capsys, healthy):
    run_a, run_b = event_files(healthy / "logs")
    data = bytearray(run_a.read_bytes())
    data[100] ^= 0x10  # inside a record: a CRC mismatch
    run_a.write_bytes(bytes(data))
    os.truncate(healthy / "ckpt" / "w" / "out", 10)
    os.remove(healthy / "snapshots" / "snapshot_1" / "snapshot_done")
    st = healthy / "model.safetensors"
    os.truncate(st, os.path.getsize(st) - 3)
    rc, out = _doctor(
        capsys,
        "--logdir",
        healthy / "logs",
        "--checkpoint",
        healthy / "ckpt",
        "--checkpoint",
        st,
        "--checkpoint",
        healthy / "snapshots",
        "--checkpoint",
        healthy / "missing",
    )
    assert rc == 1
    problems = _problems(out)
    assert len(problems) == 5 and all(p.startswith("DAMAGED ") for p in problems), out
    assert problems[0].startswith(f"DAMAGED {run_a}: record at offset ")
    assert "CRC mismatch" in problems[0]
    assert f"OK      {run_b}" in out
    assert problems[1].startswith(f"DAMAGED {healthy / 'ckpt' / 'w'}: ")
    assert "holds 10 bytes but shape (3, 4) of float32 needs 48 bytes" in problems[1]
    assert problems[2].startswith(f"DAMAGED {st}: ") and "not a valid safetensors" in problems[2]
    assert problems[3] == (
        f"DAMAGED {healthy / 'snapshots' / 'snapshot_1'}: no 'snapshot_done' "
        "file: the save did not complete"
    )
    assert problems[4] == f"DAMAGED {healthy / 'missing'}: checkpoint does not exist"
    assert "result: 5 damaged, 0 warning(s) -> PROBLEMS FOUND" in out


def test_torn_tail_is_a_warning_unless_strict(capsys, healthy):
    run_a, _ = event_files(healthy / "logs")
    os.truncate(run_a, os.path.getsize(run_a) - 5)
    rc, out = _doctor(capsys, "--logdir", healthy / "logs")
    assert rc == 0
    (problem,) = _problems(out)
    assert problem.startswith(f"WARNING {run_a}: torn tail: the last ")
    assert "22 complete record(s) are readable" in problem  # all but the image
    rc, out = _doctor(capsys, "--strict", "--logdir", healthy / "logs")
    assert rc == 1 and "PROBLEMS FOUND" in out


def test_leftovers_legacy_snapshots_and_empty_logdirs_are_warnings(capsys, healthy):
    (healthy / "snapshots" / ".snapshot_2.0a1b2c.tmp" / "w").mkdir(parents=True)
    os.remove(healthy / "ckpt" / "b" / "meta")
    (healthy / "empty").mkdir()
    rc, out = _doctor(
        capsys,
        "--checkpoint",
        healthy / "snapshots",
        "--checkpoint",
        healthy / "ckpt",
        "--logdir",
        healthy / "empty",
    )
    assert rc == 0, out
    problems = _problems(out)
    assert problems == [  # logdirs are reported first
        f"WARNING {healthy / 'empty'}: no event files (names containing 'tfevents') found",
        f"WARNING {healthy / 'snapshots' / '.snapshot_2.0a1b2c.tmp'}: temporary directory left "
        "by an interrupted save (never read; safe to delete)",
        f"WARNING {healthy / 'ckpt' / 'b'}: no meta file (legacy snapshot): shape and dtype "
        "unknown, so the size of 'out' cannot be checked",
    ]


def test_damage_found_by_the_real_command_exits_1(healthy):
    run_a, _ = event_files(healthy / "logs")
    data = bytearray(run_a.read_bytes())
    data[-3] ^= 1  # the last record's payload CRC
    run_a.write_bytes(bytes(data))
    result = run_doctor("--logdir", healthy / "logs")
    assert result.returncode == 1, result.stdout + result.stderr
    (problem,) = _problems(result.stdout)
    assert problem.startswith(f"DAMAGED {run_a}: record at offset") and "payload CRC" in problem


def test_help_lists_doctor(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0 and "doctor" in capsys.readouterr().out
