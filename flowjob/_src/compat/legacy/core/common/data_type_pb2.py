"""``oneflow.core.common.data_type_pb2``: the ``DataType`` enum values (OneFlow v0.4)."""

kInvalidDataType = 0
kChar = 1
kFloat = 2
kDouble = 3
kInt8 = 4
kInt32 = 5
kInt64 = 6
kUInt8 = 7
kOFRecord = 8
kFloat16 = 9
kTensorBuffer = 10
