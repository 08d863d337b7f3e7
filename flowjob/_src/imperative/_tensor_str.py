"""How a tensor prints: OneFlow v0.4's ``tensor([...], dtype=oneflow.float32)`` form."""

from __future__ import annotations

from typing import Any

import numpy as np

_PREFIX = "tensor("


def tensor_repr(t: Any) -> str:
    """The values (4 decimals), then the device unless it is the CPU, the dtype, and
    ``grad_fn=<...>`` or ``requires_grad=True``; suffixes wrap onto a new line at 80 columns.

    Examples:
        >>> import flowjob.experimental as flow
        >>> flow.Tensor([0.123456], device="cuda", requires_grad=True)
        tensor([0.1235], device='cuda:0', dtype=oneflow.float32, requires_grad=True)
    """
    suffixes = []
    if t.device.type != "cpu":
        suffixes.append(f"device='{t.device}'")
    suffixes.append(f"dtype=oneflow.{t.dtype.name}")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn={t.grad_fn!r}")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    body = np.array2string(t.numpy(), precision=4, separator=", ", prefix=_PREFIX)
    return _with_suffixes(_PREFIX + body, suffixes, len(_PREFIX))


def _with_suffixes(text: str, suffixes: list[str], indent: int, width: int = 80) -> str:
    """``text`` followed by ``, suffix`` each, wrapped onto a new indented line where the
    line would pass ``width`` characters, and the closing parenthesis."""
    parts = [text]
    line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if line + len(suffix) + 2 > width:
            parts.append(",\n" + " " * indent + suffix)
            line = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            line += len(suffix) + 2
    return "".join(parts) + ")"
