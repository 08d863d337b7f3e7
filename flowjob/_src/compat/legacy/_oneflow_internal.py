"""``oneflow._oneflow_internal``: the blob classes programs name in annotations and
``isinstance`` checks, the SBP constructors, ``INVALID_SPLIT_AXIS``, the ``deprecated`` dtype
conversions and ``GetSerializedJobSet`` (the bytes of ``flow.experimental.get_job_set()``).

flowjob has one lazy blob class, so every OneFlow blob class name is ``flowjob`` 's ``Blob``.
"""

from ... import distribute
from ...graph import INVALID_SPLIT_AXIS, Blob
from . import _deprecated as deprecated

BlobDesc = ConsistentBlob = MirroredBlob = Blob
LazyConsistentBlob = LazyMirroredBlob = EagerConsistentBlob = EagerMirroredBlob = Blob


def GetSerializedJobSet() -> bytes:  # noqa: N802 - OneFlow's name
    """The serialized ``JobSet`` of the session's jobs (``flow.experimental.get_job_set()``)."""
    from ...experimental import get_job_set

    return get_job_set().SerializeToString()


__all__ = [
    "GetSerializedJobSet",
    "deprecated",
    "BlobDesc",
    "ConsistentBlob",
    "MirroredBlob",
    "LazyConsistentBlob",
    "LazyMirroredBlob",
    "EagerConsistentBlob",
    "EagerMirroredBlob",
    "INVALID_SPLIT_AXIS",
    "distribute",
]
