"""``flow.Size``: a shape as a tuple of ints (OneFlow's, like ``torch.Size``)."""

from __future__ import annotations

import math
from collections.abc import Iterable


class Size(tuple):
    """An immutable shape; ``Size((2, 3)) == (2, 3)`` and ``.numel()`` is the element count."""

    def __new__(cls, sizes: Iterable[int] = ()) -> Size:
        dims = tuple(sizes)
        for i, d in enumerate(dims):
            if isinstance(d, bool) or not isinstance(d, int) or d < 0:
                raise TypeError(
                    f"flow.Size: dimension {i} must be a non-negative int, got {d!r} in {dims!r}"
                )
        return super().__new__(cls, dims)

    def numel(self) -> int:
        """The number of elements of an array of this shape (1 for ``Size(())``)."""
        return math.prod(self)

    def index(self, value: int, start: int = 0, end: int | None = None) -> int:
        """The first position of ``value`` in ``[start, end)`` (keywords allowed, as OneFlow);
        ``ValueError`` if absent."""
        return super().index(value, start, len(self) if end is None else end)

    def __getitem__(self, key):  # noqa: ANN001 - tuple's own signature
        item = super().__getitem__(key)
        return Size(item) if isinstance(key, slice) else item

    def __repr__(self) -> str:
        return f"flow.Size({list(self)!r})"
