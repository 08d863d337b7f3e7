"""Checkpoints: OneFlow's directory layout, safetensors, and the variable load/save API."""

from ._src.checkpoint import (
    DATA_FILENAME,
    META_FILENAME,
    SNAPSHOT_DONE,
    CheckPoint,
    CheckpointError,
    FileBackendVariableBlob,
    SimpleCheckPointManager,
    VariableBlob,
    get,
    get_all_variables,
    load_variables,
    save,
)
