"""Exceptions raised by flowjob, and locating the user's source line."""

from ._src.errors import (
    CallbackError,
    ConfigError,
    FlowJobError,
    JobArgumentError,
    JobDefinitionError,
    NativeBuildError,
    OpError,
    OutsideJobError,
    describe_callable,
    describe_frame,
    safe_repr,
    user_frame,
)
