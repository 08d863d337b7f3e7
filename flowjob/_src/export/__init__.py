"""Trained models leave flowjob: saved models (jax.export + safetensors), serving, ONNX."""

from ._loader import LoadedFunction, ModelVersionPolicy, SavedModel, load
from ._onnx import export_onnx
from ._program import ExportError
from ._saved_model import GraphBuilder, ModelBuilder, SignatureBuilder
from ._serving import InferenceSession, SessionOption

__all__ = [
    "ExportError",
    "GraphBuilder",
    "InferenceSession",
    "LoadedFunction",
    "ModelBuilder",
    "ModelVersionPolicy",
    "SavedModel",
    "SessionOption",
    "SignatureBuilder",
    "export_onnx",
    "load",
]
