"""``oneflow._oneflow_internal``: the blob classes programs name in annotations and
``isinstance`` checks, the SBP constructors and ``INVALID_SPLIT_AXIS``.

flowjob has one lazy blob class, so every OneFlow blob class name is ``flowjob`` 's ``Blob``.
"""

from ... import distribute
from ...graph import INVALID_SPLIT_AXIS, Blob

BlobDesc = ConsistentBlob = MirroredBlob = Blob
LazyConsistentBlob = LazyMirroredBlob = EagerConsistentBlob = EagerMirroredBlob = Blob

__all__ = [
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
