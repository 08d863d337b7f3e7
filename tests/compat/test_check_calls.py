"""``flowjob check`` on calls of OneFlow functions: arguments that do not fit the signature
(OneFlow v0.4.0's, which flowjob's equals: tests/parity_tables/test_signatures.py) and literal
values outside the forms OneFlow's argument helpers accepted, each with file:line; nothing on
the calls of OneFlow's own test programs."""

from __future__ import annotations

import glob
import os
import textwrap

import pytest

from flowjob.compat import check_programs
from tests.upstream import ONEFLOW, extract

BAD = """\
import oneflow as flow
import oneflow.typing as tp
from oneflow.nn import max_pool2d

@flow.global_function()
def job(x: tp.Numpy.Placeholder((1, 3, 8, 8))) -> tp.Numpy:
    y = flow.nn.max_pool2d(x, ksize=2, strides="2", padding="FULL")
    z = max_pool2d(x, 2, 2, "SAME", "NCHW", False, "name", 5)
    w = flow.math.reduce_sum(x, axis=[1, 1], keep_dims=True)
    s = flow.slice_v2(x, [(0, 1)])
    k = flow.kaiming_initializer((3, 3), nonlinearity="gelu")
    return flow.reshape(y, shape="1,3")
"""

GOOD = """\
import oneflow as flow
import oneflow.typing as tp

ARGS = (2, 2)
OPTS = {"data_format": "NCHW"}

@flow.global_function()
def job(x: tp.Numpy.Placeholder((1, 3, 8, 8))) -> tp.Numpy:
    a = flow.nn.max_pool2d(x, [2, 2], 2, "same", name="pool")
    b = flow.nn.avg_pool2d(x, 2, None, padding="SAME_UPPER")
    c = flow.nn.max_pool2d(x, *ARGS, "VALID", **OPTS)  # unpacked: not judged
    d = flow.math.reduce_sum(x, axis=(1, -1), keepdims=True)
    e = flow.slice_v2(x, [(None, None, None), (0, 2, 1)])
    f = flow.reshape(x, shape=[1, -1])
    g = flow.nn.max_pool2d(x, ARGS, ARGS, OPTS["data_format"])  # names: not judged
    flow.kaiming_initializer((3, 3), nonlinearity=None, data_format="NHWC")
    return f
"""


def _findings(tmp_path, source):
    path = tmp_path / "prog.py"
    path.write_text(textwrap.dedent(source))
    return [(f.line, f.name, f.message) for f in check_programs([str(path)])]


def test_calls_that_do_not_fit_and_literal_forms_oneflow_refused_are_listed(tmp_path):
    found = _findings(tmp_path, BAD)
    assert [(line, name) for line, name, _ in found] == [
        (7, "oneflow.nn.max_pool2d()"),
        (7, "oneflow.nn.max_pool2d()"),
        (8, "oneflow.nn.max_pool2d()"),
        (9, "oneflow.math.reduce_sum()"),
        (10, "oneflow.slice_v2()"),
        (11, "oneflow.kaiming_initializer()"),
        (12, "oneflow.reshape()"),
    ]
    messages = [m for _, _, m in found]
    assert "padding must be 'SAME', 'SAME_LOWER', 'SAME_UPPER' or 'VALID', got 'FULL'" in (
        messages[0] + messages[1]
    )
    assert "strides must be None, an int or a list of ints, got '2'" in messages[0] + messages[1]
    assert messages[2].startswith("the call does not fit max_pool2d(input, ksize, strides,")
    assert messages[2].endswith("too many positional arguments")
    assert messages[3].endswith("got an unexpected keyword argument 'keep_dims'")
    assert "(start, stop, step)" in messages[4] and "(0, 1)" in messages[4]
    assert "nonlinearity must be one of" in messages[5] and "'gelu'" in messages[5]
    assert "shape must be a list or tuple of ints, got '1,3'" in messages[6]


def test_accepted_forms_names_and_unpacked_arguments_are_not_listed(tmp_path):
    assert _findings(tmp_path, GOOD) == []


@pytest.mark.skipif(ONEFLOW.clone() is None, reason=ONEFLOW.missing_line())
def test_oneflows_own_op_tests_have_no_call_findings():
    """OneFlow v0.4.0's 224 op test files, read from the clone: every call fits."""
    root = extract(ONEFLOW, "oneflow/python/test/ops")
    files = sorted(glob.glob(os.path.join(root, "oneflow/python/test/ops", "test_*.py")))
    assert len(files) > 200
    calls = [
        str(f)
        for f in check_programs(files, follow_imports=False)
        if f.name.endswith("()")  # call findings; names are test_check.py's concern
    ]
    assert calls == []
