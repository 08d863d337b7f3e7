"""OneFlow's internal module paths programs import (``oneflow._oneflow_internal``,
``oneflow.core.*_pb2``, ``oneflow.python.*``) and the accepted runtime tuning knobs."""

from __future__ import annotations

import numpy as np
import pytest

import flowjob
from flowjob import compat


@pytest.fixture
def alias():
    with compat.aliased():
        yield


def test_oneflow_internal_blob_classes_and_sbp(alias):
    import oneflow
    import oneflow._oneflow_internal
    import oneflow.typing as tp

    internal = oneflow._oneflow_internal
    assert internal.BlobDesc is flowjob._src.graph.Blob
    assert internal.ConsistentBlob is internal.MirroredBlob is flowjob._src.graph.Blob
    assert internal.INVALID_SPLIT_AXIS == oneflow.INVALID_SPLIT_AXIS == -22
    assert internal.distribute.split(1).axis == 1

    seen = {}

    @oneflow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        seen["is_blob"] = isinstance(x, internal.BlobDesc)
        return x

    job(np.zeros((2, 3), np.float32))
    assert seen["is_blob"]


def test_core_pb2_enums_and_initializer_conf(alias):
    import oneflow as flow
    import oneflow.core.common.data_type_pb2 as data_type_util
    import oneflow.core.job.initializer_conf_pb2 as initializer_conf_util
    import oneflow.core.operator.op_conf_pb2 as op_conf_util
    import oneflow.typing as tp

    assert (op_conf_util.kNone, op_conf_util.kTanH, op_conf_util.kSigmoid, op_conf_util.kRelu) == (
        0,
        1,
        2,
        3,
    )
    assert data_type_util.kFloat == flow.float32.oneflow_value
    assert data_type_util.kInt8 == flow.int8.oneflow_value

    conf = initializer_conf_util.InitializerConf()
    conf.random_uniform_conf.min = 2.0
    conf.random_uniform_conf.max = 3.0
    assert conf.HasField("random_uniform_conf") and not conf.HasField("constant_conf")
    assert conf.conf == {"random_uniform_conf": {"min": 2.0, "max": 3.0}}

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((1,))) -> tp.Numpy:
        return flow.get_variable("w", shape=(500,), initializer=conf)

    w = job(np.zeros(1, np.float32))
    assert w.min() >= 2.0 and w.max() < 3.0 and 2.4 < w.mean() < 2.6


def test_python_framework_and_ops_helpers(alias):
    import oneflow as flow
    import oneflow.python.framework.dtype as dtype_util
    import oneflow.python.framework.id_util as id_util
    import oneflow.python.framework.remote_blob as remote_blob_util
    import oneflow.python.framework.session_context as session_ctx
    import oneflow.typing as tp
    from oneflow.python.framework import typing as oft
    from oneflow.python.ops.transpose_util import (
        get_inversed_perm,
        get_perm_when_transpose_axis_to_last_dim,
    )

    assert dtype_util.convert_oneflow_dtype_to_numpy_dtype(flow.float64) is np.float64
    assert dtype_util.convert_numpy_dtype_to_oneflow_dtype(np.int32) is flow.int32
    a, b = id_util.UniqueStr("Op_"), id_util.UniqueStr("Op_")
    assert a != b and a.startswith("Op_")
    assert remote_blob_util.BlobDef is flowjob._src.graph.Blob
    assert session_ctx.GetDefaultSession() is flowjob._src.runtime.default_session()
    assert oft.Numpy is tp.Numpy
    perm = get_perm_when_transpose_axis_to_last_dim(4, -3)
    assert perm == (0, 2, 3, 1)
    x = np.arange(24).reshape(2, 3, 4, 1)
    assert np.array_equal(x.transpose(perm).transpose(get_inversed_perm(perm)), x)


def test_python_modules_give_the_names_oneflow_exported_from_them(alias):
    """A module of ``oneflow.python`` is known by the names OneFlow exported from it (the
    definition's own name, which may differ from its export path's last part)."""
    import oneflow
    import oneflow.python.ops.nn_ops as nn_ops
    from oneflow.python.framework.function_util import FunctionConfig, api_oneflow_function
    from oneflow.python.nn.module import Module
    from oneflow.python.nn.parameter import Parameter

    assert Parameter is flowjob.nn.Parameter and Module is flowjob.nn.Module
    assert api_oneflow_function is flowjob.global_function
    assert FunctionConfig is flowjob.FunctionConfig
    assert nn_ops.conv2d is flowjob.nn.conv2d
    assert oneflow.python.ops.math_ops.relu is flowjob.math.relu
    # a helper module written by hand keeps its own names and gains the exported ones
    import oneflow.python.framework.dtype as dtype_util

    assert dtype_util.convert_numpy_dtype_to_oneflow_dtype(np.float32) is flowjob.float32


def test_every_name_of_v040_is_also_under_experimental(alias):
    import oneflow
    import oneflow.experimental as flow

    assert flow.unittest.TestCase is oneflow.unittest.TestCase is flowjob.unittest.TestCase
    assert flow.nn.Parameter is flowjob.nn.Parameter
    assert flow.get_job_set is flowjob.experimental.get_job_set  # its own names first
    with pytest.raises(compat.MissingOneFlowAPI, match=r"oneflow.experimental.no_such_name"):
        flow.no_such_name  # noqa: B018


def test_missing_internal_paths_still_fail_clearly(alias):
    with pytest.raises(compat.MissingOneFlowModule, match=r"oneflow.core.nope"):
        import oneflow.core.nope  # noqa: F401
    # OneFlow had the module, flowjob has not the name: the module path says which
    with pytest.raises(ImportError, match=r"oneflow.python.ops.math_ops.no_such_op"):
        from oneflow.python.ops.math_ops import no_such_op  # noqa: F401
    # a definition's module path, not its export path: OneFlow had no such name there either
    with pytest.raises(ImportError, match=r"function_util.global_function"):
        from oneflow.python.framework.function_util import global_function  # noqa: F401
    with pytest.raises(compat.MissingOneFlowModule, match=r"oneflow.python.no_such_module"):
        import oneflow.python.no_such_module  # noqa: F401


def test_tuning_knobs_are_accepted_with_oneflow_types(alias, tmp_path):
    import oneflow as flow

    flow.config.enable_tensor_float_32_compute(False)
    flow.config.nccl_use_compute_stream(True)
    flow.config.enable_numa_aware_cuda_malloc_host(True)
    flow.config.collective_boxing.enable_fusion(True)
    flow.config.collective_boxing.nccl_fusion_threshold_mb(16)
    flow.config.collective_boxing.nccl_enable_all_to_all(False)
    flow.env.logtostderr(0)
    log = tmp_path / "of_log"
    flow.env.log_dir(str(log))
    assert log.is_dir()
    from flowjob._src.runtime._tuning import settings

    assert settings["config.collective_boxing.nccl_fusion_threshold_mb"] == 16
    assert settings["config.enable_tensor_float_32_compute"] is False
    with pytest.raises(TypeError, match=r"nccl_fusion_threshold_mb takes an int"):
        flow.config.collective_boxing.nccl_fusion_threshold_mb("16")
    with pytest.raises(TypeError, match=r"use_rdma takes a bool"):
        flow.config.use_rdma(1)


def test_record_pb2_writes_files_the_reader_reads(alias, tmp_path):
    """OneFlow's documented way to make a data set: ``record_pb2`` messages framed by an
    int64 length, read back by ``ofrecord_reader`` + ``OFRecordRawDecoder``."""
    import struct

    import oneflow as flow
    import oneflow.core.record.record_pb2 as ofrecord
    import oneflow.typing as tp

    values = np.arange(12, dtype=np.float32).reshape(4, 3)
    with open(tmp_path / "part-0", "wb") as f:
        for i, row in enumerate(values):
            record = ofrecord.OFRecord(
                feature={
                    "x": ofrecord.Feature(float_list=ofrecord.FloatList(value=row.tolist())),
                    "id": ofrecord.Feature(int64_list=ofrecord.Int64List(value=[i])),
                }
            )
            data = record.SerializeToString()
            f.write(struct.pack("q", len(data)))
            f.write(data)

    flow.clear_default_session()

    @flow.global_function(type="predict")
    def read() -> tp.Numpy:
        records = flow.data.ofrecord_reader(str(tmp_path), batch_size=4, data_part_num=1)
        return flow.data.OFRecordRawDecoder(records, "x", shape=(3,), dtype=flow.float)

    np.testing.assert_array_equal(read(), values)
    flow.clear_default_session()
