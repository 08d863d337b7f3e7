"""``oneflow.core.serving.saved_model_pb2``: importable, so serving programs load.

flowjob saved models describe themselves in ``saved_model.json`` (see flowjob._src.export) and
hold compiled programs, not OneFlow op lists; these messages only take fields as set."""

from .._message import Message


class SavedModel(Message):
    """Fields of OneFlow's message: name, version, checkpoint_dir, graphs,
    default_graph_name."""


class GraphDef(Message):
    """Fields of OneFlow's message: op_list, signatures, default_signature_name."""
