"""``flow.train``: the legacy checkpoint API."""

# OneFlow's deprecated spellings served here (each warns once when used, as OneFlow did).
from ._src import legacy as _legacy
from ._src._namespace import namespace_attributes as _namespace_attributes

_deprecations = {
    "CheckPoint": _legacy.CheckPoint,
    "SimpleCheckPointManager": _legacy.SimpleCheckPointManager,
}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
