"""A NumPy Python kernel that fails, returns a wrong value or calls a job: a clear error
naming the op, its job and the line that built it, never XLA's raw callback error."""

from __future__ import annotations

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp

X = np.arange(6, dtype=np.float32).reshape(2, 3)


def predict_with(op_type: str):
    @flow.global_function()
    def job(a: tp.Numpy.Placeholder(X.shape)) -> tp.Numpy:
        return (
            flow.user_op_builder("kernel_op")
            .Op(op_type)
            .Input("in", [a])
            .Output("out")
            .Build()
            .InferAndTryRun()
            .SoleOutputBlob()
        )

    return job


def error_of(op_type: str) -> str:
    job = predict_with(op_type)
    with pytest.raises(flow.userop.PythonKernelError) as err:
        job(X)
    message = str(err.value)
    assert "op 'kernel_op' (" + op_type + ") in job 'job'" in message
    assert "test_python_kernel_errors.py" in message  # the line that built the op
    assert "CpuCallback" not in message
    return message


def test_raising_kernel_names_op_job_and_line(fresh_session):
    def forward(x):
        raise KeyError("no such table")

    flow.register_python_op("raising", forward)
    message = error_of("raising")
    assert "the forward kernel" in message and "KeyError" in message
    assert "no such table" in message


def test_kernel_returning_none_or_wrong_shape(fresh_session):
    flow.register_python_op("gives_none", lambda x: None)
    assert "returned None for 'out'" in error_of("gives_none")
    flow.register_python_op("gives_wrong_shape", lambda x: x[:, :1])
    assert "'out' of shape (2, 1), expected (2, 3)" in error_of("gives_wrong_shape")


@pytest.mark.parametrize(
    ("result", "dtype", "shown"),
    [
        (lambda x: np.full(x.shape, 300), np.int8, "300"),
        (lambda x: np.full(x.shape, -1), np.uint8, "-1"),
        (lambda x: np.full(x.shape, np.nan), np.int32, "nan"),
        (lambda x: np.full(x.shape, 1e300), np.float32, "1e+300"),
    ],
)
def test_values_outside_the_declared_dtype_are_refused(fresh_session, result, dtype, shown):
    flow.register_python_op("narrow", result, infer=lambda x: (x.shape, dtype))
    message = error_of("narrow")
    assert f"cannot hold (e.g. {shown}" in message and np.dtype(dtype).name in message


def test_values_the_dtype_holds_are_converted(fresh_session):
    # float64 arithmetic, int64 indices: NumPy's usual result types, converted exactly
    flow.register_python_op("half", lambda x: x.astype(np.float64) * 0.5)
    np.testing.assert_array_equal(predict_with("half")(X), X * 0.5)
    flow.register_python_op(
        "index", lambda x: np.argsort(x, axis=1), infer=lambda x: (x.shape, np.int8)
    )
    got = predict_with("index")(X)
    assert got.dtype == np.int8
    np.testing.assert_array_equal(got, np.argsort(X, axis=1))


@pytest.mark.parametrize("how", ["launch", "blocking"])
def test_kernel_calling_a_job_is_refused_not_a_hang(fresh_session, how):
    @flow.global_function()
    def other(a: tp.Numpy.Placeholder(X.shape)) -> tp.Callback[tp.Numpy]:
        return a + 1

    @flow.global_function()
    def other_blocking(a: tp.Numpy.Placeholder(X.shape)) -> tp.Numpy:
        return a + 1

    def forward(x):
        if how == "launch":
            other(x)(lambda result: None)
        else:
            other_blocking(x)
        return x

    flow.register_python_op("reentrant", forward)
    message = error_of("reentrant")
    called = "other" if how == "launch" else "other_blocking"
    assert f"job {called!r} was called from inside the Python kernel" in message
    other(X)(lambda result: None)  # the session still works
    flow.sync_default_session()


def test_kernel_error_reported_at_fetch_is_raised_as_itself():
    """A GPU runs the kernel after the call returned: its error comes with the results, and
    the next synchronisation raises it as itself (a user callback's error stays wrapped)."""
    from flowjob._src.runtime._completion import CompletionQueue

    queue = CompletionQueue()
    failure = flow.userop.PythonKernelError("the forward kernel of op 'k' raised KeyError")
    queue.record_error(failure, "job 'job'", as_is=True)
    queue.record_error(ValueError("later"), "job 'job'")
    with pytest.raises(flow.userop.PythonKernelError) as err:
        queue.raise_pending()
    assert err.value is failure and "1 more error(s)" in "".join(err.value.__notes__)
    queue.record_error(ValueError("in a handler"), "watch handler of 'x'")
    with pytest.raises(flow.CallbackError, match="watch handler of 'x' raised ValueError"):
        queue.raise_pending()
