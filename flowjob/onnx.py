"""``flow.onnx``: ONNX models of predict jobs (oneflow-onnx's ``export`` API)."""

from ._src.export import export_onnx as export

__all__ = ["export"]
