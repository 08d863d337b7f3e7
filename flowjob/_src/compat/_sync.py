"""``flowjob run --sync``: each job call finishes, with its watch handlers and result callbacks,
before the program goes on.

For OneFlow programs that read what callbacks computed without syncing first, such as the
docs' ``async_batch_job.py`` (it prints the accuracy right after its loop; under OneFlow that
only worked because the loop rarely outran the device). The decorators the program gets
through the alias wrap each job; flowjob's own API is unchanged.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from typing import Any

from ._alias import set_overrides


def _sync() -> None:
    import flowjob

    flowjob.sync_default_session()


class _SyncFuture:
    """An unannotated call's result whose ``async_get`` waits for its callback."""

    def __init__(self, future: Any):
        self._future = future

    def get(self) -> Any:
        return self._future.get()

    def async_get(self, callback: Callable[[Any], None]) -> None:
        self._future.async_get(callback)
        _sync()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._future, name)


class SyncJob:
    """A job function whose calls return only once the call is complete."""

    def __init__(self, job: Any):
        self._job = job
        functools.update_wrapper(self, job)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        result = self._job(*args, **kwargs)
        if result is None:  # `-> None`: its watch handlers run before the next line
            _sync()
            return None
        if hasattr(result, "async_get"):
            return _SyncFuture(result)
        if callable(result):  # `-> tp.Callback[...]`: the registration function

            def register(callback: Callable[[Any], None]) -> None:
                result(callback)
                _sync()

            return register
        return result  # blocking results are complete already

    def __getattr__(self, name: str) -> Any:
        return getattr(self._job, name)

    def __repr__(self) -> str:
        return f"<synchronous {self._job!r}>"


def synchronous(decorator_factory: Callable[..., Any]) -> Callable[..., Any]:
    """``global_function``/``function`` whose decorator returns a ``SyncJob``."""

    @functools.wraps(decorator_factory)
    def factory(*args: Any, **kwargs: Any) -> Callable[[Any], SyncJob]:
        decorator = decorator_factory(*args, **kwargs)
        return lambda fn: SyncJob(decorator(fn))

    return factory


@contextlib.contextmanager
def synchronous_jobs() -> Iterator[None]:
    """Inside the block, ``oneflow.global_function``/``oneflow.function`` (through the alias)
    make synchronous jobs."""
    import flowjob

    set_overrides(
        [
            (flowjob.global_function, synchronous(flowjob.global_function)),
            (flowjob.function, synchronous(flowjob.function)),
        ]
    )
    try:
        yield
    finally:
        set_overrides([])
