"""``flow.serving``: run saved models (OneFlow's InferenceSession API)."""

from ._src.export import InferenceSession, ModelVersionPolicy, SessionOption

__all__ = ["InferenceSession", "ModelVersionPolicy", "SessionOption"]
