"""``oneflow.python.framework.typing``: the same module as ``oneflow.typing``."""

from flowjob.typing import *  # noqa: F403
from flowjob.typing import __all__  # noqa: F401
