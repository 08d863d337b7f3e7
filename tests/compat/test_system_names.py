"""OneFlow's build, system and test-harness names: sysconfig, tensorrt, profiler, load_library,
Size, dtypes, distributed ranks, unittest.register_test_cases."""

from __future__ import annotations

import unittest

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob.compat import aliased

pytestmark = pytest.mark.usefixtures("fresh_session")


def test_sysconfig_answers_for_a_jax_package():
    assert flow.sysconfig.with_cuda() is False
    assert flow.sysconfig.with_xla() is True
    assert flow.sysconfig.has_rpc_backend_local() is True
    for api in ("get_include", "get_lib", "get_compile_flags", "get_link_flags"):
        with pytest.raises(flow.errors.NativeBuildError, match=f"sysconfig.{api}"):
            getattr(flow.sysconfig, api)()


@pytest.mark.parametrize(
    "call",
    [
        lambda: flow.config.load_library("libmy_op.so"),
        lambda: flow.config.load_library_now("libmy_op.so"),
    ],
)
def test_native_build_apis_raise_a_clear_error(call):
    with pytest.raises(flow.errors.NativeBuildError, match="flowjob"):
        call()


@pytest.mark.parametrize(
    "api, args", [("write_int8_calibration", ("table",)), ("cache_int8_calibration", ())]
)
def test_tensorrt_calibration_reports_no_tensorrt_and_goes_on(api, args, capsys, tmp_path):
    # As OneFlow built without TensorRT: the error is printed and the program goes on.
    assert getattr(flow.tensorrt, api)(*(str(tmp_path / a) for a in args)) is None
    err = capsys.readouterr().err
    assert f"NativeBuildError: flow.tensorrt.{api}(): flowjob has no TensorRT" in err
    assert list(tmp_path.iterdir()) == []  # no table written


def test_xrt_config_names_take_oneflow_defaults_and_values():
    config = flow.function_config()
    assert config.function_desc.use_xla_jit is False
    assert config.function_desc.use_tensorrt is False
    assert (config.tensorrt.fp16, config.tensorrt.int8, config.tensorrt.calibration) == (
        False,
        False,
        "",
    )
    with pytest.raises(flow.errors.ConfigError, match="use_int8"):
        config.tensorrt.int8_calibration("table")
    config.use_xla_jit()
    config.tensorrt.use_fp16()
    assert config.function_desc.use_xla_jit is True
    assert config.function_desc.use_tensorrt is True  # as in OneFlow, use_fp16 turns it on
    config.use_tensorrt(False)
    config.tensorrt.use_int8(True)
    config.tensorrt.int8_calibration("table")
    assert (config.tensorrt.int8, config.tensorrt.calibration) == (True, "table")
    assert config.function_desc.use_tensorrt is True


def test_a_job_marked_for_xla_or_tensorrt_computes_the_same():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    outs = []
    for xla, trt in ((False, False), (True, False), (False, True)):
        config = flow.function_config()
        config.use_xla_jit(xla)
        config.use_tensorrt(trt)
        if trt:
            config.tensorrt.use_int8()

        @flow.global_function(function_config=config)
        def job(a: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
            return flow.math.relu(a - 1.0) * 2.0

        outs.append(job(x))
        flow.clear_default_session()
    for out in outs:
        np.testing.assert_array_equal(out, np.maximum(x - 1.0, 0.0) * 2.0)


def test_profiler_ranges_nest_and_unbalanced_pop_is_an_error():
    flow.profiler.range_push("outer")
    flow.profiler.range_push("inner")
    assert flow.profiler.open_ranges() == 2
    flow.profiler.range_pop()
    flow.profiler.range_pop()
    assert flow.profiler.open_ranges() == 0
    with pytest.raises(flow.FlowJobError, match="range_push"):
        flow.profiler.range_pop()


def test_nvtx_marks_are_identity_ops_with_their_prefix():
    ops = {}

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        y = flow.profiler.nvtx_start(x, mark_prefix="fwd")
        ops["start"] = y.op
        z = flow.profiler.nvtx_end(y * 2, mark_prefix="fwd")
        ops["end"] = z.op
        return z

    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(job(x), x * 2)
    assert [ops["start"].op_type, ops["end"].op_type] == ["nvtx_start", "nvtx_end"]
    assert ops["start"].attrs["mark_prefix"] == "fwd"


def test_size_is_a_tuple_with_numel():
    size = flow.Size([2, 3, 4])
    assert size == (2, 3, 4) and isinstance(size, tuple)
    assert size.numel() == 24 and flow.Size().numel() == 1
    assert isinstance(size[1:], flow.Size) and size[1:] == (3, 4)
    assert repr(size) == "flow.Size([2, 3, 4])"
    size = flow.Size((2, 3, 2, 4))
    assert size.index(2, start=1, end=20) == 2 and size.index(4) == 3
    with pytest.raises(ValueError):
        size.index(4, start=0, end=3)
    with pytest.raises(TypeError, match="dimension 1"):
        flow.Size([2, -1])


def test_dtypes_lists_every_blob_type():
    listed = flow.dtypes()
    for dtype in (
        flow.float32,
        flow.float64,
        flow.int8,
        flow.int32,
        flow.int64,
        flow.uint8,
        flow.float16,
        flow.char,
    ):
        assert dtype in listed
    assert flow.float in listed and flow.double in listed


def test_one_process_is_rank_0_of_1():
    assert flow.distributed.get_rank() == 0
    assert flow.distributed.get_world_size() == 1
    assert flow.current_machine_id() == 0


def test_register_test_cases_builds_one_case_per_file(tmp_path):
    (tmp_path / "test_alpha.py").write_text(
        "import flowjob as flow\n"
        "CALLS = []\n"
        "def test_one(test_case):\n"
        "    CALLS.append('one')\n"
        "@flow.unittest.num_nodes_required(2)\n"
        "def test_two_nodes(test_case):\n"
        "    CALLS.append('two')\n"
        "def helper():\n"
        "    pass\n"
    )
    (tmp_path / "not_a_test.py").write_text("raise SystemExit('must not be loaded')\n")
    scope: dict = {}
    flow.unittest.register_test_cases(scope, str(tmp_path), lambda nodes: nodes == 1)
    assert list(scope) == ["test_alpha"]
    case = scope["test_alpha"]
    assert issubclass(case, unittest.TestCase) and issubclass(case, flow.unittest.TestCase)
    assert hasattr(case, "test_one") and not hasattr(case, "test_two_nodes")
    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(case).run(result)
    assert result.testsRun == 1 and result.wasSuccessful()


def test_the_alias_serves_the_names_as_oneflow_spelled_them():
    with aliased():
        import oneflow as of

        assert of.sysconfig.with_cuda() is False
        assert of.Size([3]) == (3,)
        assert of.distributed.get_world_size() == 1
        assert of.profiler.range_push is flow.profiler.range_push


def test_view_queries_follow_the_job_logical_view():
    seen = {}

    def record(key):
        seen[key] = (
            flow.scope.consistent_view_enabled(),
            flow.scope.mirrored_view_enabled(),
            flow.distribute.mirrored_strategy_enabled(),
            flow.distribute.consistent_strategy_enabled(),
        )

    config = flow.FunctionConfig()
    config.default_logical_view(flow.scope.mirrored_view())

    @flow.global_function(function_config=config)
    def mirrored(x: tp.ListNumpy.Placeholder((2,))) -> tp.ListNumpy:
        record("mirrored")
        return x

    @flow.global_function()
    def consistent(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        record("consistent")
        return x

    mirrored([np.zeros(2, np.float32)])
    consistent(np.zeros(2, np.float32))
    record("outside")
    assert seen == {
        "mirrored": (False, True, True, False),
        "consistent": (True, False, False, True),
        "outside": (True, False, False, True),
    }


def test_small_legacy_names():
    assert flow.linalg.matmul is flow.matmul and flow.nn.tril is flow.math.tril
    flow.distribute.assert_is_valid_distribute(flow.distribute.split(0))
    with pytest.raises(TypeError, match="not a valid distribute"):
        flow.distribute.assert_is_valid_distribute("S(0)")
    a, b = flow.util.unique_str("Job_"), flow.util.unique_str("Job_")
    assert a.startswith("Job_") and b.startswith("Job_") and a != b
    assert flow.is_deprecated(flow.FixedTensorDef) and flow.is_deprecated(flow.name_scope)
    assert not flow.is_deprecated(flow.matmul) and not flow.is_deprecated(3)
    flow.env.data_port(9027)
    with pytest.raises(TypeError, match="port number"):
        flow.env.data_port(0)
    flow.inter_job_reuse_mem_strategy("reuse_mem_priority")
    with pytest.raises(ValueError, match="job_name_groups"):
        flow.inter_job_reuse_mem_strategy("custom_parallelism")


def test_name_scope_and_variable_scope_are_namespaces():
    names = []

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        with flow.name_scope("outer"):
            with flow.deprecated.variable_scope("inner"):
                v = flow.get_variable("v", shape=(2,), initializer=flow.ones_initializer())
                names.append(v.op.name)
        return x + v

    np.testing.assert_array_equal(job(np.zeros(2, np.float32)), [1, 1])
    assert names == ["outer-inner-v"]


def test_init_eager_global_session_starts_the_session_and_keeps_the_mode():
    from flowjob._src.runtime import _session

    flow.clear_default_session()
    assert _session._default is None
    flow.InitEagerGlobalSession()
    assert _session._default is not None
    assert flow.eager_execution_enabled() is False


def test_v040_init_aliases_name_the_same_types_in_a_job():
    """A 2021 program writes flow.int / flow.long / flow.half (OneFlow v0.4's init.py names)."""
    assert (flow.int, flow.long, flow.half) == (flow.int32, flow.int64, flow.float16)
    assert all(isinstance(d, flow.dtype) for d in flow.dtypes())
    assert flow.record in flow.dtypes() and flow.tensor_buffer in flow.dtypes()

    @flow.global_function()
    def ids_job(x: tp.Numpy.Placeholder((4,), dtype=flow.float)) -> tp.Numpy:
        as_int = flow.cast(x, dtype=flow.int)
        as_long = flow.cast(as_int, dtype=flow.long)
        return flow.cast(flow.cast(as_long, dtype=flow.half), dtype=flow.float)

    x = np.array([1.7, -2.2, 3.9, 70000.0], dtype=np.float32)
    expected = x.astype(np.int32).astype(np.int64).astype(np.float16).astype(np.float32)
    np.testing.assert_array_equal(ids_job(x), expected)
