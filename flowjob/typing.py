"""``oneflow.typing``: placeholders for job inputs and annotations for job results.

``tp.Numpy.Placeholder(shape, dtype)`` declares a fixed-shape input fed with one ndarray.
``tp.ListNumpy.Placeholder(shape, dtype)`` declares a dynamic input: a list with one ndarray per
device, each of the same rank and at most the declared (maximum) shape. Dynamic inputs are not
recompiled per shape: arrays that only flow to the host (returns, watches, summary ops) never
enter the compiled program; ones that reach device ops are zero-padded to the maximum shape and
their real shape travels beside them, so results come back at their real size. Only
elementwise device ops accept dynamic blobs (others fail at trace time with a clear error).
``tp.ListListNumpy.Placeholder`` declares a tensor list (several arrays of differing shapes per
device) for the host data pipeline; ``-> tp.ListListNumpy`` returns lists of arrays.
"""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.typing import (
    ArgBlobDef,
    Bundle,
    Callback,
    JobArgumentError,
    JobDefinitionError,
    ListListNumpy,
    ListNumpy,
    Numpy,
    PyStructCompatibleToBlob,
)

_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
