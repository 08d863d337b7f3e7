"""``flow.tmp``: OneFlow v0.4's one-shot eager data functions, ``RawDecoder`` (an
``nn.OfrecordRawDecoder`` applied once) and ``OfrecordReader`` (a new reader's first batch),
and ``logical_slice_assign`` on eager tensors (the legacy blob op holds that name in ``flow``)."""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.nn_modules import ofrecord_reader_once as OfrecordReader  # noqa: N812
from ._src.nn_modules import raw_decoder as RawDecoder  # noqa: N812
from ._src.tensor_ops import logical_slice_assign

__all__ = ["RawDecoder", "OfrecordReader", "logical_slice_assign"]


_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
