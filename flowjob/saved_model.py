"""``flow.saved_model``: OneFlow's saved model builders, and ``load`` for JAX users."""

from .export import GraphBuilder, ModelBuilder, SignatureBuilder, load

__all__ = ["GraphBuilder", "ModelBuilder", "SignatureBuilder", "load"]
