"""Errors for OneFlow names that flowjob does not provide."""

from __future__ import annotations


class MissingOneFlowName(Exception):
    """Base of the two errors below; ``oneflow_name`` is the full OneFlow name asked for."""

    oneflow_name: str


def _message(oneflow_name: str, suggestion: str | None) -> str:
    message = f"{oneflow_name} is not provided by flowjob"
    return message + (f" (did you mean {suggestion}?)" if suggestion else "")


class MissingOneFlowAPI(AttributeError, MissingOneFlowName):
    """An attribute such as ``oneflow.foo.bar`` that flowjob does not provide.

    An ``AttributeError``, so ``hasattr(flow, "foo")`` and ``getattr(flow, "foo", None)`` behave
    as with any module.
    """

    def __init__(self, oneflow_name: str, suggestion: str | None = None):
        super().__init__(_message(oneflow_name, suggestion))
        self.oneflow_name = oneflow_name


class MissingOneFlowModule(ModuleNotFoundError, MissingOneFlowName):
    """A module such as ``import oneflow.core.foo`` (or ``from oneflow import foo``) that
    flowjob does not provide."""

    def __init__(self, oneflow_name: str, suggestion: str | None = None):
        # name stays None on purpose: importlib's ``from package import x`` swallows a
        # ModuleNotFoundError whose name is ``package.x`` and reports a vaguer ImportError.
        super().__init__(_message(oneflow_name, suggestion))
        self.oneflow_name = oneflow_name
