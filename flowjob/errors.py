"""Exceptions raised by flowjob, and locating the user's source line."""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.errors import (
    CallbackError,
    ConfigError,
    FlowJobError,
    JobArgumentError,
    JobDefinitionError,
    JobStopped,
    NativeBuildError,
    OpError,
    OutsideJobError,
    RankFailedError,
    describe_callable,
    describe_frame,
    safe_repr,
    user_frame,
)

_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
