"""``oneflow.python.framework.remote_blob``: the blob class names used in annotations."""

from flowjob._src.graph import Blob

BlobDef = RemoteBlob = ConsistentBlob = MirroredBlob = Blob
LazyConsistentBlob = LazyMirroredBlob = EagerConsistentBlob = EagerMirroredBlob = Blob

__all__ = [
    "BlobDef",
    "RemoteBlob",
    "ConsistentBlob",
    "MirroredBlob",
    "LazyConsistentBlob",
    "LazyMirroredBlob",
    "EagerConsistentBlob",
    "EagerMirroredBlob",
]
