"""flow.user_op_builder op types that make or place their own outputs: sources and their
output order, dynamic sources, outputs split over a placement's devices, the blobs' placement,
op types that update variables in place, and list attributes (against NumPy)."""

from __future__ import annotations

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from tests.userop.builder_helpers import build, variables

RNG = np.random.default_rng(1)


def test_test_ops_sources_and_output_order(fresh_session):
    x = RNG.standard_normal((2, 5)).astype(np.float32)

    @flow.global_function()
    def job(x_: tp.Numpy.Placeholder(x.shape)):
        src = build("TestSource", "src")[0]
        rnd = build("TestRandomSource", "rnd", attrs={"seed": 0})[0]
        op = (
            flow.user_op_builder("mo")
            .Op("TestMultiOutputOrder")
            .Input("in", [x_])
            .Output("out2")
            .Output("out1")
            .Build()
            .InferAndTryRun()
        )
        out2, out1 = op.RemoteBlobList()  # in the order of the Output calls
        assert op.RemoteBlobDict() == {"out2": [out2], "out1": [out1]}
        return src, rnd, out1, out2

    words = np.random.RandomState(0).randint(0, 2**32, size=10, dtype=np.uint32) / 2.0**32
    src, rnd, out1, out2 = (r.numpy() for r in job(x).get())
    np.testing.assert_array_equal(src, np.arange(5.0))
    np.testing.assert_allclose(rnd, words[:5], rtol=1e-6)
    np.testing.assert_array_equal(out1, x)
    np.testing.assert_array_equal(out2, np.zeros((2, 10)))
    # the generator is the kernel's state: the next call continues its stream
    np.testing.assert_allclose(job(x).get()[1].numpy(), words[5:], rtol=1e-6)


def test_dynamic_source_gives_its_real_size(fresh_session):
    """TestDynamicSource's kernel fills 0, 1, 2 and sets its (5,) output's real size to 3."""

    @flow.global_function()
    def job():
        with flow.scope.placement("cpu", "0:0"):
            out = build("TestDynamicSource", "dyn")[0]
        assert out.is_dynamic and out.shape == (5,)
        return out, flow.elem_cnt(out)

    out, count = job().get()
    (piece,) = out.numpy_list()
    np.testing.assert_array_equal(piece, np.arange(3.0))
    np.testing.assert_array_equal(count.numpy(), [3])  # the program sees the real size too


@pytest.mark.parametrize(
    "devices,count,out_num", [("0:0-1", 2, 10), ("0:0-2", 3, 7), ("0:0", 1, 4)]
)
def test_source_split_over_the_placement_devices(fresh_session, devices, count, out_num):
    """TestSourceMultiGpuFixedOutNum: ``out_num`` values split on axis 0 over the placement's
    devices, each device numbering its own piece from 0."""

    @flow.global_function()
    def job() -> tp.Numpy:
        with flow.scope.placement("cpu", devices):
            return build("TestSourceMultiGpuFixedOutNum", "s", attrs={"out_num": out_num})[0]

    want = np.concatenate([np.arange(len(p)) for p in np.array_split(np.arange(out_num), count)])
    np.testing.assert_array_equal(job(), want)


def test_blobs_report_their_ops_placement(fresh_session):
    """``blob.parallel_conf``: the device tag the program named and the placement strings
    (test_cpu_only_user_op.py reads it)."""
    seen = {}

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        with flow.scope.placement("cpu", ["0:0-1"]):
            a = build("cpu_only_relu_test", "c", [("in", [x])])[0]
        with flow.scope.placement("gpu", "0:0"):
            b = flow.math.relu(a)
        c = b * 2.0
        for key, blob in (("cpu", a), ("gpu", b), ("none", c)):
            conf = blob.parallel_conf
            seen[key] = (conf.device_tag(), conf.device_name())
        return c

    x = RNG.standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_allclose(job(x), 2 * np.maximum(x, 0))
    assert seen == {"cpu": ("cpu", ["0:0-1"]), "gpu": ("gpu", ["0:0"]), "none": ("cpu", ["0:0"])}


def test_blobs_report_how_many_devices_their_op_is_placed_on(fresh_session):
    """``blob.parallel_size``: the device count of the placement strings (OneFlow counted the
    devices of the blob's parallel_conf), 1 outside any placement scope. Read while the job
    is traced (flow.get_all_variables traces every job; no run needs those devices)."""
    seen = {}

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
        with flow.scope.placement("gpu", "0:0-3"):
            a = flow.math.relu(x)
        with flow.scope.placement("cpu", ["0:1-2", "1:0-2"]):
            b = a + 1.0
        c = b * 2.0
        seen.update(a=a.parallel_size, b=b.parallel_size, c=c.parallel_size)
        return c

    flow.get_all_variables()
    assert seen == {"a": 4, "b": 5, "c": 1}


def test_dynamic_loss_scale_schedule_updates_its_variables_in_place(fresh_session):
    """The op writes its ``loss_scale`` and ``good_step_counter`` inputs (a predict job, as
    in OneFlow's test), call after call, as the kernel's rule says: a finite step counts, and
    ``increment_period`` of them in a row multiply the scale (capped at float32's maximum);
    a non-finite one divides it (not below 1) and resets the count."""

    @flow.global_function()
    def job(count: tp.Numpy.Placeholder((1,), dtype=flow.int64)) -> None:
        counter = flow.get_variable(
            "counter", shape=(1,), dtype=flow.int64, initializer=flow.zeros_initializer(flow.int64)
        )
        scale = flow.get_variable("scale", shape=(1,), initializer=flow.constant_initializer(4.0))
        build(
            "dynamic_loss_scale_schedule",
            "sched",
            [
                ("count_not_finite", [count]),
                ("loss_scale", [scale]),
                ("good_step_counter", [counter]),
            ],
            outputs=(),
            attrs={"increment_period": 3, "multiplier": 2.0},
        )

    want_scale, want_counter = 4.0, 0
    for bad in [0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 2, 0]:
        job(np.array([bad], np.int64))
        if bad:
            want_counter, want_scale = 0, max(want_scale / 2.0, 1.0)
        else:
            want_counter += 1
            if want_counter >= 3:
                want_counter, want_scale = 0, min(want_scale * 2.0, float(np.finfo(np.float32).max))
        flow.sync_default_session()
        values = variables()
        assert values["counter"].tolist() == [want_counter]
        assert values["scale"].tolist() == [want_scale]


def test_list_attrs_give_output_shapes_and_dtypes(fresh_session):
    @flow.global_function()
    def job(x_: tp.Numpy.Placeholder((2, 2))):
        return build(
            "TestListDataTypeAndListShapeAndListStringAttr",
            "l",
            [("in", [x_])],
            [("out", 3)],
            {
                "out_shapes": [(4, 4), (6, 6), (8, 8)],
                "out_types": [flow.int8, flow.double, flow.int64],
                "string_list": ["a", "b", "c"],
            },
        )

    outs = [r.numpy() for r in job(np.zeros((2, 2), np.float32)).get()]
    assert [o.shape for o in outs] == [(4, 4), (6, 6), (8, 8)]
    assert [o.dtype for o in outs] == [np.int8, np.float64, np.int64]
