"""``flow.saved_model``: OneFlow's saved model builders, and ``load`` for JAX users."""

from ._src.export import GraphBuilder, ModelBuilder, SignatureBuilder, load

__all__ = ["GraphBuilder", "ModelBuilder", "SignatureBuilder", "load"]
