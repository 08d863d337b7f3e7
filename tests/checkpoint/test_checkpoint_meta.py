"""The ``meta`` file against protobuf's own text format for OneFlow's VariableMetaInfo."""

from __future__ import annotations

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, text_format
from hypothesis import given
from hypothesis import strategies as st

from flowjob._src import _dtypes
from flowjob._src.checkpoint._meta import parse_meta, render_meta
from flowjob.checkpoint import CheckpointError

# oneflow/core/common/data_type.proto (numbers from the spec, 6.6; kBFloat16 from later releases).
_ENUM = [
    ("kInvalidDataType", 0),
    ("kChar", 1),
    ("kFloat", 2),
    ("kDouble", 3),
    ("kInt8", 4),
    ("kInt32", 5),
    ("kInt64", 6),
    ("kUInt8", 7),
    ("kOFRecord", 8),
    ("kFloat16", 9),
    ("kTensorBuffer", 10),
    ("kBFloat16", 11),
]


def _variable_meta_info_class():
    fd = descriptor_pb2.FileDescriptorProto(
        name="flowjob_test_meta.proto", package="oneflow", syntax="proto2"
    )
    enum = fd.enum_type.add(name="DataType")
    for name, number in _ENUM:
        enum.value.add(name=name, number=number)
    f = descriptor_pb2.FieldDescriptorProto
    shape = fd.message_type.add(name="ShapeProto")
    shape.field.add(name="dim", number=1, type=f.TYPE_INT64, label=f.LABEL_REPEATED)
    meta = fd.message_type.add(name="VariableMetaInfo")
    meta.field.add(
        name="shape",
        number=2,
        type=f.TYPE_MESSAGE,
        label=f.LABEL_REQUIRED,
        type_name=".oneflow.ShapeProto",
    )
    meta.field.add(
        name="data_type",
        number=3,
        type=f.TYPE_ENUM,
        label=f.LABEL_REQUIRED,
        type_name=".oneflow.DataType",
    )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fd)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("oneflow.VariableMetaInfo"))


VariableMetaInfo = _variable_meta_info_class()
shapes = st.lists(st.integers(0, 2**40), max_size=5).map(tuple)
dtypes = st.sampled_from(_dtypes.ALL)


def _proto(shape, dtype):
    msg = VariableMetaInfo()
    msg.shape.dim.extend(shape)
    msg.data_type = dtype.oneflow_value
    return msg


def test_spec_example_is_rendered_exactly():
    assert render_meta((512, 784), _dtypes.float32) == (
        "shape {\n  dim: 512\n  dim: 784\n}\ndata_type: kFloat\n"
    )


def test_enum_numbers_match_the_proto():
    for dtype in _dtypes.ALL:
        assert dict(_ENUM)[dtype.oneflow_enum] == dtype.oneflow_value


@given(shapes, dtypes)
def test_render_equals_protobuf_text_format(shape, dtype):
    assert render_meta(shape, dtype) == text_format.MessageToString(_proto(shape, dtype))
    parsed = text_format.Parse(render_meta(shape, dtype), VariableMetaInfo())
    assert tuple(parsed.shape.dim) == shape
    assert parsed.data_type == dtype.oneflow_value


@given(shapes, dtypes, st.booleans())
def test_parse_reads_protobuf_output(shape, dtype, one_line):
    text = text_format.MessageToString(_proto(shape, dtype), as_one_line=one_line)
    assert parse_meta(text) == (shape, dtype)


def test_parse_accepts_other_valid_spellings():
    text = "# written by hand\nshape: < dim: 2, dim: 3 >\ndata_type: 6;\n"
    assert text_format.Parse(text, VariableMetaInfo()).data_type == 6  # valid protobuf text
    assert parse_meta(text) == ((2, 3), _dtypes.int64)


@pytest.mark.parametrize(
    "text, needle",
    [
        ("shape {\n  dim: 2\n}\n", "data_type"),
        ("data_type: kFloat\n", "shape"),
        ("shape {\n  dim: 2\n}\ndata_type: kOFRecord\n", "kOFRecord"),
        ("shape {\n  dim: -2\n}\ndata_type: kFloat\n", "non-negative"),
        ("shape {\n  dim: 2\n\ndata_type: kFloat\n", "'dim'"),
        ("shape {\n  dim: 2\n}\ndata_type: kFloat\nquant: 1\n", "quant"),
        ("shape { dim: 2 }\ndata_type: kFloat\n\x00\x01", "cannot parse"),
    ],
)
def test_parse_errors_name_the_file_and_problem(text, needle):
    with pytest.raises(CheckpointError) as info:
        parse_meta(text, "/ckpt/w/meta")
    assert "/ckpt/w/meta" in str(info.value)
    assert needle in str(info.value)
