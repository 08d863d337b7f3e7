"""``flow.util``: ``unique_str``, OneFlow's generator of process-unique names."""

from ._src.util import (
    unique_str,
)
