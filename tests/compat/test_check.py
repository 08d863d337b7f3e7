"""``flowjob check``: a static scan naming the OneFlow/NumPy/Pillow names a program uses that
flowjob lacks (file:line), exit 1 if any; nothing on the programs flowjob runs."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from flowjob._src.cli.main import main as flowjob_main
from flowjob.compat import check_programs

REPO = Path(__file__).resolve().parents[2]

# A 2021-style program (written here): its helper package sits beside it.
PROGRAM = """\
import numpy as np
import oneflow as flow
import oneflow.typing as tp
from oneflow.compatible import single_client as sc
from oneflow import typing, no_such_module
from PIL import Image
import helpers

try:
    import oneflow.python.not_there as optional  # guarded: optional
except ImportError:
    optional = None

flow.config.load_library("my_op.so")


@flow.global_function()
def job(x: tp.Numpy.Placeholder((2, 3), dtype=flow.float)) -> tp.Numpy:
    y = flow.nn.conv2dd(x, None)
    z = flow.math.relu(x) if np.float_ else x
    flow.config.anything = 1  # assigning a new attribute is not a use
    return flow.layers.dense(z, 4) + np.fromfile.nope


table = {"pad": np.NaN, "tf": sc.nn.no_such_op, "img": Image.ANTIALIAS, "bad": Image.NOTHING}
module = flow.experimental.custom_op_module("relu").py_api().cpp_kernel()
"""
HELPERS = """\
import numpy as np
import oneflow as flow


def pad(x):
    return flow.pad(x, [[0, 0], [1, 1]]), np.asscalar(np.array([1])), np.unheard_of
"""
EXPECTED = [
    ("prog.py", 5, "oneflow.no_such_module", "not provided by flowjob"),
    ("prog.py", 14, "oneflow.config.load_library", "unsupported by flowjob: OneFlow C++ op"),
    ("prog.py", 19, "oneflow.nn.conv2dd", "(did you mean oneflow.nn.conv2d?)"),
    ("prog.py", 22, "numpy.fromfile.nope", "not in the installed NumPy"),
    ("prog.py", 25, "oneflow.compatible.single_client.nn.no_such_op", "not provided by flowjob"),
    ("prog.py", 25, "PIL.Image.NOTHING", "not in the installed Pillow"),
    ("prog.py", 26, ".cpp_kernel()", "use py_kernel()"),
    ("__init__.py", 6, "numpy.unheard_of", "not in the installed NumPy"),
]


def _write(tmp_path: Path) -> Path:
    (tmp_path / "helpers").mkdir()
    (tmp_path / "helpers" / "__init__.py").write_text(HELPERS)
    program = tmp_path / "prog.py"
    program.write_text(PROGRAM)
    return program


def test_check_lists_each_missing_name_with_file_and_line(tmp_path):
    program = _write(tmp_path)
    found = [(Path(f.path).name, f.line, f.name, f.message) for f in check_programs([program])]
    assert len(found) == len(EXPECTED), found
    for (name, line, what, message), (fname, fline, fwhat, fmessage) in zip(EXPECTED, found):
        assert (fname, fline, fwhat) == (name, line, what)
        assert message in fmessage


def test_check_command_exit_status_and_report(tmp_path, capsys):
    program = _write(tmp_path)
    assert flowjob_main(["check", str(program)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{program}:5:1: oneflow.no_such_module: not provided by flowjob")
    assert out[-1] == (
        "flowjob check: 8 finding(s) (names flowjob lacks, calls that do not fit) in 2 file(s)"
    )
    assert flowjob_main(["check", "--no-follow", str(program)]) == 1
    assert "__init__.py" not in capsys.readouterr().out
    clean = tmp_path / "clean.py"
    clean.write_text(
        textwrap.dedent(
            """\
            import numpy as np
            import oneflow as flow
            import oneflow.typing as tp

            @flow.global_function()
            def job(x: tp.Numpy.Placeholder((2,), dtype=flow.int)) -> tp.Numpy:
                return flow.math.add(x, flow.constant(np.int(1), dtype=flow.long))
            """
        )
    )
    assert flowjob_main(["check", str(clean)]) == 0
    assert capsys.readouterr().out == (
        "flowjob check: OK, 1 program(s) use only names flowjob provides, with arguments that fit\n"
    )


def test_check_never_runs_the_program(tmp_path):
    program = tmp_path / "boom.py"
    program.write_text("import oneflow as flow\nraise SystemExit(flow.nn.relu)\n")
    done = subprocess.run(
        [sys.executable, "-m", "flowjob", "check", str(program)],
        env={**os.environ, "PYTHONPATH": str(REPO), "JAX_PLATFORMS": "cpu"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("flowjob check: OK")


def test_check_reports_nothing_on_oneflow_benchmark(benchmark):
    """Every Python file of OneFlow-Benchmark at the pinned commit (the programs flowjob runs
    and the modules they import among them)."""
    files = sorted(str(p) for p in benchmark.rglob("*.py"))
    assert len(files) > 40
    assert check_programs(files) == []
    ran = [
        "Classification/cnns/of_cnn_train_val.py",
        "LanguageModeling/BERT/run_pretraining.py",
        "ClickThroughRate/WideDeepLearning/wdl_train_eval.py",
        "Generative/dcgan.py",
    ]
    assert flowjob_main(["check", *(os.path.join(benchmark, p) for p in ran)]) == 0


def test_check_names_op_types_flowjob_cannot_build(tmp_path):
    # issue 46: a program's own batch-norm wrapper built OneFlow's "normalization" by name;
    # a type no OneFlow op table has is reported, one the program registers itself is not
    program = tmp_path / "ops.py"
    program.write_text(
        textwrap.dedent(
            """\
            import oneflow as flow

            def bn(x):
                return flow.user_op_builder("bn").Op("normalization").Input("x", [x]).Build()

            def odd(x):
                return flow.user_op_builder("o").Op("no_such_type").Input("in", [x]).Build()

            def own(x):
                return flow.user_op_builder("m").Op("mine").Input("in", [x]).Build()

            flow.register_python_op("mine", lambda x: x)
            """
        )
    )
    findings = check_programs([str(program)])
    assert [(f.line, f.name) for f in findings] == [(7, '.Op("no_such_type")')]
    assert "register_python_op" in findings[0].message
