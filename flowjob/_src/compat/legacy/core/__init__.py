"""``oneflow.core``: the protobuf modules OneFlow programs import, with the names they use."""
