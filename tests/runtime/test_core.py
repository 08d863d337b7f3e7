"""The job-function core: tracing once, return annotations (spec 2.3), argument checks."""

from __future__ import annotations

import typing

import jax.numpy as jnp
import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.graph import apply_op


def relu(x):
    return apply_op("relu", lambda a: jnp.maximum(a, 0), [x], elementwise=True)


def total(x):
    return apply_op("reduce_sum", lambda a: jnp.sum(a), [x])


pytestmark = pytest.mark.usefixtures("fresh_session")


def test_relu_job_of_seed_000_returns_relu():
    @flow.global_function()
    def ReluJob(x: tp.Numpy.Placeholder((5,))) -> tp.Numpy:
        return relu(x)

    data = np.random.default_rng(0).uniform(-1, 1, 5).astype(np.float32)
    np.testing.assert_array_equal(ReluJob(data), np.maximum(data, 0))
    assert ReluJob.__name__ == "ReluJob"


def test_body_runs_once_and_later_calls_reuse_the_program():
    runs = []

    @flow.global_function()
    def Job(x: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
        runs.append(1)
        return relu(x)

    for i in range(5):
        np.testing.assert_array_equal(Job(np.full(3, i - 2.0, np.float32)), max(i - 2.0, 0))
    assert len(runs) == 1


def test_jobs_can_be_defined_after_others_ran():
    @flow.global_function()
    def First(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        return relu(x)

    First(np.ones(2, np.float32))

    @flow.global_function()
    def Second(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        return total(x)

    assert Second(np.ones(2, np.float32)) == pytest.approx(2.0)


X = tp.Numpy.Placeholder((2, 2))


def _run(ann, body):
    def job(x: X):
        return body(x)

    job.__annotations__["return"] = ann
    job.__name__ = f"job_{abs(hash(str(ann)))}"
    return flow.global_function()(job)


ONE = np.array([[1, -2], [-3, 4]], np.float32)
POS = np.maximum(ONE, 0)


def test_return_numpy_list_numpy_and_containers():
    assert isinstance(_run(tp.Numpy, relu)(ONE), np.ndarray)
    out = _run(tp.ListNumpy, relu)(ONE)
    assert isinstance(out, list) and len(out) == 1
    np.testing.assert_array_equal(out[0], POS)
    a, b = _run(typing.Tuple[tp.Numpy, tp.Numpy], lambda x: (relu(x), total(x)))(ONE)
    np.testing.assert_array_equal(a, POS)
    assert b == pytest.approx(0.0)
    lst = _run(typing.List[tp.Numpy], lambda x: [relu(x), x])(ONE)
    assert isinstance(lst, list)
    np.testing.assert_array_equal(lst[1], ONE)
    d = _run(typing.Dict[str, typing.Tuple[tp.Numpy, tp.ListNumpy]], lambda x: {"k": (relu(x), x)})(
        ONE
    )
    np.testing.assert_array_equal(d["k"][0], POS)
    np.testing.assert_array_equal(d["k"][1][0], ONE)


def test_return_none_and_bundle():
    assert _run(None, lambda x: None)(ONE) is None
    out = _run(tp.Bundle[tp.Numpy], lambda x: {"a": [relu(x), (x,)], "b": x})(ONE)
    np.testing.assert_array_equal(out["a"][0], POS)
    assert isinstance(out["a"][1], tuple)
    np.testing.assert_array_equal(out["b"], ONE)


def test_return_callback_delivers_converted_value():
    got = []
    register = _run(tp.Callback[typing.Tuple[tp.Numpy, tp.Numpy]], lambda x: (relu(x), x))(ONE)
    register(lambda pair: got.append(pair))
    flow.sync_default_session()
    assert len(got) == 1
    np.testing.assert_array_equal(got[0][0], POS)


def test_unannotated_job_returns_result_object_with_get():
    @flow.global_function()
    def Legacy(x=flow.FixedTensorDef((2, 2), dtype=flow.float)):
        return {"pos": relu(x), "raw": [x]}

    result = Legacy(ONE).get()
    np.testing.assert_array_equal(result["pos"].numpy(), POS)
    assert result["pos"].mean() == pytest.approx(POS.mean())
    assert (result["raw"][0] == ONE).all()


def test_return_annotation_mismatch_fails_at_trace():
    with pytest.raises(flow.JobDefinitionError, match="should be a tuple"):
        _run(typing.Tuple[tp.Numpy], relu)(ONE)


def test_wrong_argument_count_shape_and_dtype_name_job_and_argument():
    @flow.global_function()
    def Named(
        images: tp.Numpy.Placeholder((2, 3)), labels: tp.Numpy.Placeholder((2,), dtype=flow.int32)
    ) -> tp.Numpy:
        return relu(images)

    good = np.zeros((2, 3), np.float32)
    with pytest.raises(flow.JobArgumentError, match=r"'Named' takes 2 argument\(s\).*got 1"):
        Named(good)
    with pytest.raises(
        flow.JobArgumentError,
        match=r"'Named', argument 'images': expected shape \(2, 3\), got \(3, 2\)",
    ):
        Named(np.zeros((3, 2), np.float32), np.zeros(2, np.int32))
    with pytest.raises(
        flow.JobArgumentError,
        match=r"argument 'labels': expected dtype int32, "
        r"got float32",
    ):
        Named(good, np.zeros(2, np.float32))
    # same-kind casts are applied silently
    out = Named(np.ones((2, 3), np.float64), np.zeros(2, np.int64))
    assert out.dtype == np.float32


def test_inputs_are_copied_at_call():
    @flow.global_function()
    def Copy(x: tp.Numpy.Placeholder((4,))):
        return relu(x)

    buf = np.ones(4, np.float32)
    result = Copy(buf)
    buf[:] = -7
    np.testing.assert_array_equal(result.get().numpy(), np.ones(4))


def test_op_error_names_op_shapes_and_user_line():
    def bad_matmul(a, b):
        return apply_op("matmul", lambda x, y: x @ y, [a, b], name="my_matmul")

    @flow.global_function()
    def Broken(a: tp.Numpy.Placeholder((2, 3)), b: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        return bad_matmul(a, b)

    with pytest.raises(flow.OpError) as info:
        Broken(np.zeros((2, 3), np.float32), np.zeros((2, 3), np.float32))
    msg = str(info.value)
    assert "my_matmul" in msg and "(2, 3)" in msg and "'Broken'" in msg
    assert "test_core.py" in msg and "in bad_matmul" in msg


def test_list_numpy_placeholder_accepts_smaller_arrays_without_recompiling():
    traces = []

    @flow.global_function()
    def Dyn(x: tp.ListNumpy.Placeholder((4, 3))) -> tp.ListNumpy:
        traces.append(1)
        return relu(x)

    for rows in (1, 4, 2):
        data = np.linspace(-1, 1, rows * 3, dtype=np.float32).reshape(rows, 3)
        out = Dyn([data])
        assert out[0].shape == (rows, 3)
        np.testing.assert_array_equal(out[0], np.maximum(data, 0))
    assert len(traces) == 1
    with pytest.raises(flow.JobArgumentError, match="no larger than"):
        Dyn([np.zeros((5, 3), np.float32)])


def test_dynamic_blob_rejected_by_non_elementwise_op_and_by_numpy_annotation():
    @flow.global_function()
    def Reduce(x: tp.ListNumpy.Placeholder((4,))) -> tp.Numpy:
        return total(x)

    with pytest.raises(flow.OpError, match="dynamic"):
        Reduce([np.zeros(2, np.float32)])

    @flow.global_function()
    def AsNumpy(x: tp.ListNumpy.Placeholder((4,))) -> tp.Numpy:
        return relu(x)

    with pytest.raises(flow.JobDefinitionError, match="only fixed shaped blob compatible"):
        AsNumpy([np.zeros(2, np.float32)])


def test_positional_config_form_warns_once_and_keeps_job_type(capsys):
    config = flow.function_config()
    config.default_data_type(flow.float)

    with pytest.warns(FutureWarning):

        @flow.global_function(config)
        def Old(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
            return relu(x)

    assert Old.job_type == "predict"
    assert "global_function(func_config) is deprecated" in capsys.readouterr().err


def test_bad_parameter_annotations():
    with pytest.raises(flow.JobDefinitionError, match="should be annotated"):

        @flow.global_function()
        def Mixed(x: tp.Numpy.Placeholder((2,)), y=None):
            return x

        Mixed(np.zeros(2, np.float32), None)
    with pytest.raises(flow.JobDefinitionError, match=r"\*args"):

        @flow.global_function()
        def Star(*xs):
            return None

        Star()
    with pytest.raises(TypeError, match="shape should be a tuple"):
        tp.Numpy.Placeholder([2, 3])


def test_train_job_without_loss_or_optimizer_is_a_clear_error():
    @flow.global_function(type="train")
    def NoLoss(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        return relu(x)

    with pytest.raises(flow.JobDefinitionError, match="train job 'NoLoss' has no loss"):
        NoLoss(np.zeros(2, np.float32))

    @flow.global_function(type="train")
    def NoOptimizer(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        loss = relu(x)
        flow.losses.add_loss(loss)
        return loss

    with pytest.raises(flow.JobDefinitionError, match="'NoOptimizer' has no optimizer"):
        NoOptimizer(np.zeros(2, np.float32))


def test_minimize_in_a_predict_job_trains_it_as_oneflow_did():
    """OneFlow v0.4's minimize() set the job's train conf whatever its declared type: the job
    trains (one warning), while dropout keeps its predict behaviour (the function config
    still says predict, and that is what ops read)."""

    @flow.global_function()
    def Predict(x: tp.Numpy.Placeholder((4,))) -> tp.Numpy:
        w = flow.get_variable("w", shape=(4,), initializer=flow.constant_initializer(1.0))
        kept = flow.nn.dropout(x * w, rate=0.5)  # identity: the job is declared predict
        assert not flow.current_global_function_desc().IsTrainable()
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0
        ).minimize(flow.math.reduce_sum(kept * kept))
        return kept

    x = np.array([1.0, -2.0, 3.0, 0.5], np.float32)
    with pytest.warns(FutureWarning, match="declared a predict job"):
        np.testing.assert_array_equal(Predict(x), x)
    # d(sum((x w)^2))/dw = 2 x^2 w, divided by the loss's one element; w was 1
    want = 1.0 - 0.1 * 2 * x.astype(np.float64) ** 2
    np.testing.assert_allclose(flow.get_all_variables()["w"].numpy(), want, rtol=1e-6)
