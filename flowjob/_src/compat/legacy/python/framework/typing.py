"""``oneflow.python.framework.typing``: the same module as ``oneflow.typing``."""

from flowjob._src.typing import *  # noqa: F403
from flowjob._src.typing import __all__  # noqa: F401
