"""OneFlow programs reach the export API under OneFlow's names (``flowjob run``'s alias)."""

from __future__ import annotations

import importlib

import flowjob
from flowjob.compat import aliased


def test_oneflow_names_resolve_to_flowjob_export():
    with aliased():
        flow = importlib.import_module("oneflow")
        assert flow.saved_model.ModelBuilder is flowjob.saved_model.ModelBuilder
        assert flow.saved_model.GraphBuilder is flowjob._src.export.GraphBuilder
        assert flow.saved_model.SignatureBuilder is flowjob._src.export.SignatureBuilder
        assert flow.serving.InferenceSession is flowjob.serving.InferenceSession
        assert flow.serving.SessionOption().device_tag == "gpu"
        assert flow.serving.ModelVersionPolicy.LATEST.value == 1
        assert flow.onnx.export is flowjob._src.export.export_onnx
        pb2 = importlib.import_module("oneflow.core.serving.saved_model_pb2")
        proto = pb2.SavedModel()
        proto.name = "m"
        assert proto.HasField("name") and not proto.HasField("version")
