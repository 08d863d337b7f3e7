"""``flow.onnx``: ONNX models of predict jobs (oneflow-onnx's ``export`` API)."""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.export import export_onnx as export

__all__ = ["export"]


_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
