"""Checkpoints: OneFlow's directory layout, safetensors, and the variable load/save API."""

from ._src import legacy as _legacy
from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.checkpoint import (
    DATA_FILENAME,
    META_FILENAME,
    SNAPSHOT_DONE,
    CheckpointError,
    FileBackendVariableBlob,
    VariableBlob,
    get,
    get_all_variables,
    load_variables,
    save,
    strict,
)

# OneFlow's deprecated spellings served here (each warns once when used, as OneFlow did).
_deprecations = {
    "CheckPoint": _legacy.CheckPoint,
    "SimpleCheckPointManager": _legacy.SimpleCheckPointManager,
}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
