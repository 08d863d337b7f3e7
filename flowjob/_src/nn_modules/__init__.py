"""OneFlow v0.4's experimental ``nn`` layers as ``Module`` subclasses (``nn.Linear``,
``nn.Conv2d``, ``nn.BatchNorm2d``, losses, containers...): each ``forward`` calls the
functional API of ``tensor_ops`` (one lowering per op, autograd through ``imperative.apply``).
"""

from ._flatten import Flatten

__all__: list[str] = []
__all__ += ["Flatten"]
