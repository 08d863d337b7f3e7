"""``oneflow.core.operator.op_conf_pb2``: the ``ActivationType`` enum values programs compare
against (OneFlow-Benchmark's BERT passes ``op_conf_util.kNone`` for "no activation")."""

kNone = 0
kTanH = 1
kSigmoid = 2
kRelu = 3
