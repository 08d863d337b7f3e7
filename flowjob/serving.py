"""``flow.serving``: run saved models (OneFlow's InferenceSession API)."""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.export import InferenceSession, ModelVersionPolicy, SessionOption

__all__ = ["InferenceSession", "ModelVersionPolicy", "SessionOption"]


_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
