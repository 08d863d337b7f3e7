"""``flowjob check``'s look at calls of OneFlow functions: do the arguments fit the signature,
and are the literal values of the parameters OneFlow read through a normalizing helper forms
that helper accepted (``parity/_literal_forms.py``, ``ops.argument_forms``)?

Only what the source says is judged: positional arguments are counted and keywords named
unless the call unpacks ``*args`` or ``**kwargs``; a value is judged only when it is a
literal (``ast.literal_eval`` reads it), never a name or an expression.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Iterator
from typing import Any

from ..errors import OpError
from ..ops.argument_forms import check_value
from .parity._literal_forms import LITERAL_FORMS

__all__ = ["call_problems"]

_UNREAD = object()  # an argument whose value is not a literal


def call_problems(node: ast.Call, obj: Any, shown: str) -> Iterator[str]:
    """What is wrong with the call ``node`` of ``obj`` (spelled ``shown``, e.g.
    ``oneflow.nn.max_pool2d``), one message each."""
    if not callable(obj) or any(isinstance(a, ast.Starred) for a in node.args):
        return
    if any(k.arg is None for k in node.keywords):
        return
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):  # a builtin without one
        return
    args = [_literal(a) for a in node.args]
    kwargs = {k.arg: _literal(k.value) for k in node.keywords}
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as exc:
        yield f"the call does not fit {shown.rsplit('.', 1)[-1]}{_plain(signature)}: {exc}"
        return
    forms = LITERAL_FORMS.get(shown.removeprefix("oneflow."), {})
    for param, helper in forms.items():
        value = bound.arguments.get(param, _UNREAD)
        if value is _UNREAD:
            continue
        try:
            check_value(helper, shown.replace("oneflow.", "flow.", 1), param, value)
        except OpError as exc:
            yield str(exc).split("\n", 1)[0] + " (a form OneFlow did not accept either)"


def _plain(signature: inspect.Signature) -> inspect.Signature:
    """The signature as OneFlow's documentation shows it: names and defaults only."""
    empty = inspect.Parameter.empty
    return signature.replace(
        parameters=[p.replace(annotation=empty) for p in signature.parameters.values()],
        return_annotation=empty,
    )


def _literal(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _UNREAD
