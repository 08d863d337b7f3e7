"""``flow.experimental.enable_typing_check``: OneFlow v0.4's switch that makes every job
function declare an annotation on each parameter and on its return.

Off by default, as in OneFlow. It may be turned on or off only before the default session has
a job (OneFlow's condition: no global function defined yet); ``global_function`` then checks
each function it decorates (``check_annotations``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ..errors import ConfigError, JobDefinitionError

__all__ = ["enable_typing_check", "check_annotations"]

_enabled = False


def enable_typing_check(val: bool = True) -> None:
    """Turns the annotation check of job functions on (or off with ``val=False``).

    Examples:
        >>> import flowjob as flow
        >>> flow.clear_default_session()
        >>> flow.experimental.enable_typing_check()
        >>> @flow.global_function()
        ... def job(x):
        ...     return x
        Traceback (most recent call last):
        ...
        flowjob._src.errors.JobDefinitionError: job 'job': parameter 'x' is not annotated ...
        >>> flow.experimental.enable_typing_check(False)
    """
    global _enabled
    from ._session import default_session

    jobs = sorted(default_session().jobs)
    if jobs:
        raise ConfigError(
            f"flow.experimental.enable_typing_check({val!r}) after the job(s) {jobs} were "
            "defined: call it before the first @flow.global_function (or after "
            "flow.clear_default_session())"
        )
    _enabled = bool(val)


def check_annotations(name: str, fn: Callable[..., Any]) -> None:
    """With the check on, raises ``JobDefinitionError`` for a parameter or a return of
    ``fn`` (job ``name``) without an annotation."""
    if not _enabled:
        return
    signature = inspect.signature(fn)
    for param in signature.parameters.values():
        if param.annotation is inspect.Parameter.empty:
            raise JobDefinitionError(
                f"job {name!r}: parameter {param.name!r} is not annotated "
                "(flow.experimental.enable_typing_check is on: annotate it with a "
                "tp.Numpy.Placeholder, tp.ListNumpy.Placeholder...)"
            )
    if signature.return_annotation is inspect.Signature.empty:
        raise JobDefinitionError(
            f"job {name!r}: no return annotation (flow.experimental.enable_typing_check is on: "
            "annotate the return, e.g. -> tp.Numpy, or -> None)"
        )
