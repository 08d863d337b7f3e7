"""``backward`` and ``grad``: the walk from outputs to leaves."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

from ._grad_mode import no_grad
from ._node import Node


class GraphFreedError(RuntimeError):
    """A second backward through nodes the first one freed (``retain_graph=False``)."""


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _root_grads(outputs: list[Any], grads: list[Any], array_of) -> list[Any]:
    if grads and len(grads) != len(outputs):
        raise ValueError(f"backward: {len(outputs)} output(s) but {len(grads)} gradient(s)")
    result = []
    for i, out in enumerate(outputs):
        g = grads[i] if grads else None
        if g is None:
            if out.numel() != 1:
                raise RuntimeError(
                    f"backward: grad can be implicitly created only for scalar outputs; "
                    f"output {i} has shape {tuple(out.shape)}: pass a gradient of that shape"
                )
            # host arrays: the pullbacks are compiled calls that take them as they are,
            # where jnp.ones would be eager dispatches of its own on every backward
            g = np.ones(tuple(out.shape), out.dtype.np_dtype)
        else:
            g = array_of(g)
            if tuple(g.shape) != tuple(out.shape):
                raise ValueError(
                    f"backward: the gradient of output {i} has shape {tuple(g.shape)}, "
                    f"expected {tuple(out.shape)}"
                )
        result.append(g)
    return result


def _order(roots: list[Node]) -> list[Node]:
    """The nodes reachable from ``roots``, each after every node that feeds it gradients."""
    seen: set[int] = set()
    post: list[Node] = []
    stack: list[tuple[Node, bool]] = [(n, False) for n in roots]
    while stack:
        node, done = stack.pop()
        if done:
            post.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for e in node.edges:
            if e is not None and e.node is not None and id(e.node) not in seen:
                stack.append((e.node, False))
    return post[::-1]


def _add(a: Any, b: Any) -> Any:
    return b if a is None else a + b


def _run(
    outputs: list[Any],
    grads: list[Any],
    retain_graph: bool,
    capture: dict[int, Any] | None,
) -> None:
    """Propagates ``grads`` from ``outputs``. Leaves accumulate into ``.grad``, unless
    ``capture`` (id(tensor) -> gradient) is given: then only the tensors named there get
    their gradient, in it."""
    buffers: dict[int, list[Any]] = {}
    roots: list[Node] = []
    for out, g in zip(outputs, grads):
        if not out.requires_grad:
            raise RuntimeError(
                "backward: an output does not require grad and has no grad_fn (made under "
                "no_grad, or from tensors that do not require grad)"
            )
        if out.grad_fn is None:  # a leaf output: its own gradient
            _deliver(out, g, capture)
            continue
        buf = buffers.setdefault(id(out.grad_fn), [None] * len(out.grad_fn.outputs))
        buf[out.output_index] = _add(buf[out.output_index], g)
        roots.append(out.grad_fn)
    for node in _order(roots):
        cts = buffers.pop(id(node), None)
        if cts is None:
            continue
        for index, tensors in node.retained.items():
            if cts[index] is not None:
                for t in tensors:
                    _deliver(t, cts[index], capture, retained=True)
        if capture is not None:
            for index in range(len(cts)):
                key = (id(node), index)
                if key in capture and cts[index] is not None:
                    capture[key] = _add(capture[key], cts[index])
        if node.vjp is None:
            raise GraphFreedError(
                f"backward through {node!r} a second time: its saved values were freed by "
                "the first backward; pass retain_graph=True to the first one"
            )
        filled = [
            ct if ct is not None else np.zeros(shape, dtype)
            for ct, (shape, dtype) in zip(cts, node.outputs)
        ]
        in_grads = node.vjp(filled)
        if not retain_graph:
            node.vjp = None
        for e, g in zip(node.edges, in_grads):
            if g is None or e is None:
                continue
            if e.node is None:
                if e.leaf.requires_grad:  # (a leaf's flag may have been turned off since)
                    _deliver(e.leaf, g, capture)
            else:
                buf = buffers.setdefault(id(e.node), [None] * len(e.node.outputs))
                buf[e.index] = _add(buf[e.index], g)


def _deliver(t: Any, g: Any, capture: dict | None, retained: bool = False) -> None:
    if capture is None:
        with no_grad():
            t.accumulate_grad(g)
    elif id(t) in capture and not retained:
        capture[id(t)] = _add(capture[id(t)], g)


def backward(
    outputs: Any,
    out_grads: Any = None,
    retain_graph: bool = False,
    create_graph: bool = False,
) -> None:
    """Accumulates d(outputs)/d(leaf) into every leaf's ``.grad``, weighted by
    ``out_grads`` (ones for a one-element output when omitted); OneFlow v0.4's parameter names.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> x = flow.Tensor(np.array([1.0, 2.0], np.float32), requires_grad=True)
        >>> flow.autograd.backward((x * x).sum())
        >>> assert np.allclose(x.grad.numpy(), [2.0, 4.0])
    """
    _refuse_create_graph(create_graph)
    outs = _as_list(outputs)
    _run(outs, _root_grads(outs, _as_list(out_grads), _array_of), retain_graph, None)


def grad(
    outputs: Any,
    inputs: Any,
    out_grads: Any = None,
    retain_graph: bool = False,
    create_graph: bool = False,
) -> tuple[Any, ...]:
    """d(outputs)/d(inputs) as new tensors (``.grad`` is left alone); an input no gradient
    reaches gets zeros.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> x = flow.Tensor(np.array([3.0], np.float32), requires_grad=True)
        >>> (dx,) = flow.autograd.grad(x * x, x, flow.Tensor(np.ones(1, np.float32)))
        >>> assert np.allclose(dx.numpy(), [6.0]) and x.grad is None
    """
    _refuse_create_graph(create_graph)
    outs, ins = _as_list(outputs), _as_list(inputs)
    capture: dict[Any, Any] = {}
    for t in ins:
        if not t.requires_grad:
            raise RuntimeError("autograd.grad: an input does not require grad")
        capture[(id(t.grad_fn), t.output_index) if t.grad_fn is not None else id(t)] = None
    _run(outs, _root_grads(outs, _as_list(out_grads), _array_of), retain_graph, capture)
    found = []
    for t in ins:
        g = capture[(id(t.grad_fn), t.output_index) if t.grad_fn is not None else id(t)]
        found.append(t.from_array(jnp.zeros(tuple(t.shape), t.dtype.np_dtype) if g is None else g))
    return tuple(found)


def _array_of(value: Any) -> Any:
    return value.array if hasattr(value, "array") else jnp.asarray(value)


def _refuse_create_graph(create_graph: bool) -> None:
    if create_graph:
        raise NotImplementedError(
            "create_graph=True (gradients of gradients) is not supported by flowjob's eager "
            "autograd; differentiate twice with jax.grad, or in a train job"
        )
