"""``flow.saved_model``: OneFlow's saved model builders, and ``load`` for JAX users."""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.export import GraphBuilder, ModelBuilder, SignatureBuilder, load

__all__ = ["GraphBuilder", "ModelBuilder", "SignatureBuilder", "load"]


_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
