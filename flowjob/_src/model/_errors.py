"""The error ``flow.model`` raises for a misdeclared model, data module or callback."""

from ..errors import FlowJobError


class ModelError(FlowJobError, TypeError):
    """A ``Model``, its optimizers, data modules or callbacks are not of the expected kind."""
