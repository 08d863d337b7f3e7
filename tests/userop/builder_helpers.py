"""Shared by the user_op_builder tests: build one op through ``flow.user_op_builder``."""

from __future__ import annotations

import flowjob as flow


def build(op_type, name, inputs=(), outputs=("out",), attrs=None):
    b = flow.user_op_builder(name).Op(op_type)
    for arg, blobs in inputs:
        b = b.Input(arg, blobs)
    for out in outputs:
        b = b.Output(*out) if isinstance(out, tuple) else b.Output(out)
    for k, v in (attrs or {}).items():
        b = b.Attr(k, v)
    return b.Build().InferAndTryRun().RemoteBlobList()


def variables():
    return {name: blob.numpy() for name, blob in flow.get_all_variables().items()}
