"""``apply_op``: how every device op of ``flowjob.ops`` is recorded in the current job."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax

from .. import _dtypes
from ..errors import OpError, describe_frame, user_frame
from ._blob import Blob, OpKind
from ._graph import check_blob, current_graph, default_prefix, host_only_error, is_host_only
from ._real_shape import ELEMENTWISE, RealShape


def apply_op(
    op_type: str,
    lowering: Callable[..., Any],
    inputs: Sequence[Blob],
    *,
    attrs: dict[str, Any] | None = None,
    name: str | None = None,
    prefix: str | None = None,
    rng: bool = False,
    elementwise: bool = False,
    real_shape: RealShape | None = None,
):
    """Records one op in the current job and returns its output blob(s).

    ``lowering(*arrays, **attrs)`` (plus ``key=`` when ``rng``) is the op's only
    implementation; output shapes and dtypes come from ``jax.eval_shape`` of it. Dynamic
    inputs need ``real_shape`` (``elementwise=True`` is its elementwise rule); the outputs of
    an op with a dynamic input are dynamic.
    """
    graph = current_graph()
    attrs = dict(attrs or {})
    blobs = [check_blob(b, f"input {i} of {op_type}") for i, b in enumerate(inputs)]
    op_name = name if name is not None else graph.unique_name(prefix or default_prefix(op_type))
    for b in blobs:
        if is_host_only(b):  # records, tensor buffers and lists live in the data pipeline
            raise host_only_error(b, f"an input of op {op_name!r} ({op_type})")
    if elementwise:
        real_shape = ELEMENTWISE
    dynamic = any(b.is_dynamic for b in blobs)
    if dynamic and real_shape is None:
        shown = ", ".join(b.lbn for b in blobs if b.is_dynamic)
        raise OpError(
            f"op {op_name!r} ({op_type}) in job {graph.name!r} does not accept dynamic "
            f"(ListNumpy) blobs ({shown}): the ops that do are listed in the README (Job "
            "functions and typing); use tp.Numpy.Placeholder for this input\n  at "
            f"{describe_frame(user_frame())}"
        )
    specs = [jax.ShapeDtypeStruct(b.shape, b.dtype.np_dtype) for b in blobs]
    extra = {"key": jax.random.PRNGKey(0)} if rng else {}
    try:
        out = jax.eval_shape(lambda *xs: lowering(*xs, **attrs, **extra), *specs)
    except OpError:
        raise
    except Exception as exc:  # JAX raises many types; report them all the same way
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        shapes = ", ".join(f"{b.lbn}: {b.shape} {b.dtype.name}" for b in blobs) or "none"
        raise OpError(
            f"op {op_name!r} ({op_type}) in job {graph.name!r} cannot apply to its inputs: "
            f"{msg}\n  inputs: {shapes}\n  attrs: {_short(attrs)}\n"
            f"  at {describe_frame(user_frame())}"
        ) from None
    multi = isinstance(out, tuple)
    leaves = out if multi else (out,)
    outputs = [(o.shape, _dtypes.as_dtype(o.dtype), dynamic) for o in leaves]
    op = graph.add_op(
        name=op_name,
        op_type=op_type,
        kind=OpKind.DEVICE,
        lowering=lowering,
        inputs=blobs,
        attrs=attrs,
        outputs=outputs,
        rng=rng,
        real_shape=real_shape if dynamic else None,
    )
    return tuple(op.outputs) if multi else op.outputs[0]


def _short(attrs: dict[str, Any]) -> str:
    text = ", ".join(f"{k}={v!r}" for k, v in attrs.items())
    return text if len(text) < 300 else text[:300] + "..."
