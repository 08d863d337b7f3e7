"""Whether ops record autograd nodes on this thread: ``no_grad``, ``enable_grad``."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

_local = threading.local()


def is_grad_enabled() -> bool:
    """Whether ops on tensors that require grad record nodes on this thread (default yes).

    Examples:
        >>> import flowjob.experimental as flow
        >>> with flow.no_grad():
        ...     assert not flow.is_grad_enabled()
        >>> assert flow.is_grad_enabled()
    """
    return getattr(_local, "enabled", True)


class set_grad_enabled:
    """Sets recording on or off for this thread; as a context manager, until its end."""

    def __init__(self, mode: bool):
        self._saved = is_grad_enabled()
        _local.enabled = bool(mode)

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        _local.enabled = self._saved


class _Mode:
    enabled: bool

    def __enter__(self) -> None:
        self._saved = is_grad_enabled()
        _local.enabled = self.enabled

    def __exit__(self, *exc: Any) -> None:
        _local.enabled = self._saved

    def __call__(self, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            with type(self)():
                return fn(*args, **kwargs)

        return wrapped


class no_grad(_Mode):
    """Context manager and decorator: ops inside record no autograd nodes (their outputs do
    not require grad), as in optimizer steps and evaluation.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> w = flow.Tensor(np.ones(3, np.float32), requires_grad=True)
        >>> with flow.no_grad():
        ...     y = w * 2
        >>> assert not y.requires_grad
    """

    enabled = False


class enable_grad(_Mode):
    """Context manager and decorator: recording on again inside a ``no_grad`` region."""

    enabled = True
