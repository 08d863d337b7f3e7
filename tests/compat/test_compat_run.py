"""``flowjob run SCRIPT [ARGS...]``: the program's view of the run, exit status, errors, sync."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from flowjob import compat


def write(path: Path, source: str) -> Path:
    path.write_text(textwrap.dedent(source))
    return path


def test_program_sees_argv_main_and_its_own_directory(flowjob_run, tmp_path):
    app = tmp_path / "app"
    app.mkdir()
    write(
        app / "local_helper.py",
        """
        import oneflow as flow
        def helper_flow():
            return flow
    """,
    )
    script = write(
        app / "prog.py",
        """
        import os, sys
        import oneflow as flow
        import oneflow.typing as tp
        from local_helper import helper_flow
        print("argv", sys.argv)
        print("name", __name__)
        print("file", __file__)
        print("path0", sys.path[0])
        print("same", helper_flow() is flow, flow.typing is tp)
        print("main", sys.modules["__main__"].__dict__ is globals())
    """,
    )
    out_dir = tmp_path / "elsewhere"
    out_dir.mkdir()
    proc = flowjob_run(script, "--epochs", "2", "-h", "x y", cwd=out_dir)
    assert proc.returncode == 0, proc.stderr
    lines = dict(line.split(" ", 1) for line in proc.stdout.splitlines())
    assert lines["argv"] == repr([str(script), "--epochs", "2", "-h", "x y"])
    assert lines["name"] == "__main__"
    assert lines["file"] == str(script)
    assert lines["path0"] == str(app)
    assert lines["same"] == "True True"
    assert lines["main"] == "True"


def test_exit_status_reaches_the_shell(flowjob_run, tmp_path):
    script = write(tmp_path / "prog.py", "import sys\nimport oneflow\nprint('ran')\nsys.exit(3)\n")
    proc = flowjob_run(script)
    assert (proc.returncode, proc.stdout) == (3, "ran\n")


@pytest.mark.parametrize(
    "code, status",
    [
        ("sys.exit(3)", 3),
        ("sys.exit()", 0),
        ("raise SystemExit(None)", 0),
        ("pass", 0),
        ("sys.exit('bad input')", 1),
        ("raise KeyboardInterrupt", 130),
    ],
)
def test_exit_status_is_the_interpreters(tmp_path, capsys, code, status):
    script = write(tmp_path / "prog.py", f"import sys\nimport oneflow\nprint('ran')\n{code}\n")
    assert compat.run_script(str(script)) == status
    captured = capsys.readouterr()
    assert captured.out == "ran\n"
    if "bad input" in code:
        assert captured.err.strip() == "bad input"


def test_uncaught_exception_prints_the_programs_traceback(flowjob_run, tmp_path):
    script = write(
        tmp_path / "prog.py",
        """
        def inner():
            raise ValueError("broken on purpose")
        inner()
    """,
    )
    proc = flowjob_run(script)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[1].startswith(f'  File "{script}", line 4, in <module>')
    assert lines[-1] == "ValueError: broken on purpose"
    assert "flowjob/_src/compat" not in proc.stderr and "flowjob/_src/cli" not in proc.stderr


def test_missing_oneflow_api_is_named(flowjob_run, tmp_path):
    script = write(
        tmp_path / "prog.py",
        """
        import oneflow as flow
        flow.config.gpu_device_num(1)
        flow.experimental.optim.Adagrad
    """,
    )
    proc = flowjob_run(script)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1] == (
        "flowjob._src.compat._errors.MissingOneFlowAPI: oneflow.experimental.optim.Adagrad is "
        "not provided by flowjob"
    )


def test_missing_oneflow_module_is_named(flowjob_run, tmp_path):
    script = write(tmp_path / "prog.py", "import oneflow.core.job.resource_pb2 as resource_util\n")
    proc = flowjob_run(script)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1] == (
        "flowjob._src.compat._errors.MissingOneFlowModule: "
        "oneflow.core.job.resource_pb2 is not provided by flowjob"
    )


def test_missing_script_and_syntax_error(flowjob_run, tmp_path):
    proc = flowjob_run(tmp_path / "nope.py")
    assert proc.returncode == 2
    assert "can't open file" in proc.stderr and "nope.py" in proc.stderr
    bad = write(tmp_path / "bad.py", "def f(:\n    pass\n")
    proc = flowjob_run(bad)
    assert proc.returncode == 1
    assert "SyntaxError" in proc.stderr and str(bad) in proc.stderr


def test_pending_watch_handlers_run_before_exit(flowjob_run, tmp_path):
    # A `-> None` job returns before its handler runs; OneFlow synced at exit, so do we.
    script = write(
        tmp_path / "prog.py",
        """
        import numpy as np
        import oneflow as flow
        import oneflow.typing as tp

        def handler(y: tp.Numpy):
            print("handler", y.tolist())

        @flow.global_function()
        def relu_job(x: tp.Numpy.Placeholder((3,))) -> None:
            flow.watch(flow.nn.relu(x), handler)

        relu_job(np.array([-1.0, 0.5, 2.0], dtype=np.float32))
    """,
    )
    proc = flowjob_run(script)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "handler [0.0, 0.5, 2.0]\n"


def test_callback_error_at_exit_sets_the_status(flowjob_run, tmp_path):
    script = write(
        tmp_path / "prog.py",
        """
        import numpy as np
        import oneflow as flow
        import oneflow.typing as tp

        def handler(y: tp.Numpy):
            raise RuntimeError("handler failed")

        @flow.global_function()
        def relu_job(x: tp.Numpy.Placeholder((3,))) -> None:
            flow.watch(flow.nn.relu(x), handler)

        relu_job(np.zeros(3, dtype=np.float32))
    """,
    )
    proc = flowjob_run(script)
    assert proc.returncode == 1
    assert "handler failed" in proc.stderr


SYNC_PROGRAM = """
    import numpy as np
    import oneflow as flow
    import oneflow.typing as tp

    seen = []

    @flow.global_function()
    def double_job(x: tp.Numpy.Placeholder((4,))) -> tp.Callback[tp.Numpy]:
        return x * 2

    @flow.global_function()
    def legacy_job(x=flow.FixedTensorDef((4,))):
        return x + 1

    for i in range(5):
        double_job(np.full(4, i, dtype=np.float32))(lambda r: seen.append(float(r[0])))
        legacy_job(np.full(4, i, dtype=np.float32)).async_get(lambda r: seen.append(float(r[0])))
        print(len(seen), end=" ")
    print()
    print(seen)
"""


def test_sync_option_completes_each_call_before_the_next_line(flowjob_run, tmp_path):
    script = write(tmp_path / "prog.py", SYNC_PROGRAM)
    proc = flowjob_run(script, options=("--sync",))
    assert proc.returncode == 0, proc.stderr
    counts, seen = proc.stdout.splitlines()
    assert counts.split() == ["2", "4", "6", "8", "10"]
    assert seen == repr([v for i in range(5) for v in (2.0 * i, i + 1.0)])


def test_run_script_in_process_restores_the_interpreter(tmp_path, capsys):
    script = write(
        tmp_path / "prog.py",
        """
        import sys
        import oneflow as flow
        print(sys.argv, __name__, flow.global_function.__name__)
        raise SystemExit(4)
    """,
    )
    argv, path, main = list(sys.argv), list(sys.path), sys.modules["__main__"]
    assert compat.run_script(str(script), ["a"]) == 4
    assert capsys.readouterr().out == f"{[str(script), 'a']} __main__ global_function\n"
    assert sys.argv == argv and sys.path == path and sys.modules["__main__"] is main
    assert not compat.is_installed() and "oneflow" not in sys.modules


def test_run_command_is_registered_with_the_cli():
    from flowjob._src.cli.main import build_parser

    args = build_parser().parse_args(["run", "--sync", "prog.py", "--lr", "0.1"])
    assert (args.command, args.script, args.script_args, args.sync) == (
        "run",
        "prog.py",
        ["--lr", "0.1"],
        True,
    )
    args = build_parser().parse_args(["run", "prog.py"])
    assert (args.script_args, args.sync) == ([], False)


def test_sync_changes_the_alias_only_and_only_for_the_run(tmp_path, capsys):
    import flowjob

    script = write(
        tmp_path / "prog.py",
        """
        import flowjob
        import oneflow
        print(oneflow.global_function is flowjob.global_function,
              oneflow.function is flowjob.function)
    """,
    )
    assert compat.run_script(str(script), sync=True) == 0
    assert capsys.readouterr().out == "False False\n"
    assert compat.run_script(str(script)) == 0
    assert capsys.readouterr().out == "True True\n"
    assert flowjob.global_function.__module__.startswith("flowjob._src.legacy")
