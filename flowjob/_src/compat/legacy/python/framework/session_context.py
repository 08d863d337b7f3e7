"""``oneflow.python.framework.session_context``: the default session."""

from flowjob._src.runtime import Session, default_session


def GetDefaultSession() -> Session:  # noqa: N802 - OneFlow's name
    return default_session()
