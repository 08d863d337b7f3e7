"""NumPy's removed scalar aliases (``np.float``, ``np.int``...) for OneFlow-era programs.

OneFlow v0.4 programs were written for NumPy < 1.24, where ``np.float`` was ``float`` and so
on; NumPy 1.24 removed the aliases. ``flowjob run`` restores them for the program's run only.
"""

from __future__ import annotations

import builtins
import contextlib
from collections.abc import Iterator

# The aliases NumPy 1.20 deprecated and 1.24 removed: each was the builtin of the same name.
_ALIASES = ("float", "int", "bool", "object", "str", "complex")


@contextlib.contextmanager
def legacy_numpy_aliases() -> Iterator[None]:
    """Sets the missing ``numpy.<alias>`` attributes for the block, then removes them."""
    import numpy as np

    added = []
    for name in _ALIASES:
        # vars(), not getattr(): NumPy's module __getattr__ warns about the removed names.
        if name not in vars(np):
            setattr(np, name, getattr(builtins, name))
            added.append(name)
    try:
        yield
    finally:
        for name in added:
            delattr(np, name)
