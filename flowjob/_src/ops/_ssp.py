"""Stale synchronous parallel (SSP) variables: ``flow.experimental.ssp_variable_proxy`` and
``function_config.enable_ssp``.

OneFlow's proxy gave a job two blobs for one variable: ``ref``, the variable itself (assigns
and the optimizer write it), and ``value``, a copy taken when the proxy ran; its actor held
``buffer_size`` such copies in flight, so the copy a call reads is the variable as it was
``buffer_size`` calls before (its initial value during the first ``buffer_size`` calls).
flowjob keeps those copies in a ring variable ``<name>-ring`` (``buffer_size`` rows) and a call
counter ``<name>-step``: each call stores the variable as the previous call left it and reads
the oldest row. Gradients taken at the stale value apply to the variable (``value``'s
gradient is ``ref``'s), as OneFlow's optimizer updated ``ref``.
"""

from __future__ import annotations

import weakref
from typing import Any

import jax.numpy as jnp

from .. import _dtypes
from ..graph import (
    VARIABLE_VIEWS,
    Blob,
    OpKind,
    apply_op,
    current_graph,
    get_variable,
    namespace,
    scope_attr,
)
from ._quantization import straight_through
from ._util import check_name, fail, require_blob
from .initializers import zeros_initializer


def _lower_proxy(var, ring, step, *, buffer_size):
    count = step.reshape(())
    # the first call fills the ring with the initial value (the copies read until then)
    ring = jnp.where(count == 0, jnp.broadcast_to(var, ring.shape), ring)
    ring = ring.at[count % buffer_size].set(var)
    stale = ring[(count + 1) % buffer_size]
    return straight_through(var, stale), ring, step + 1


def ssp_variable_proxy(
    var: Blob, buffer_size: int = 1, name: str | None = None
) -> tuple[Blob, Blob]:
    """``(ref, value)`` of variable ``var``: ``ref`` is the variable, ``value`` its value
    ``buffer_size`` calls of this job ago (its initial value in the first ``buffer_size``)."""
    public = "flow.experimental.ssp_variable_proxy"
    name = check_name(public, name)
    require_blob(public, var, "var", name)
    if var.op.kind is not OpKind.VARIABLE:
        fail(public, f"var must be a variable (flow.get_variable), got {var.lbn}", name)
    if type(buffer_size) is not int or buffer_size < 1:
        fail(public, f"buffer_size must be an int >= 1, got {buffer_size!r}", name)
    graph = current_graph()
    name = name if name is not None else graph.unique_name("SspVariableProxy_")
    with namespace(name):
        ring = get_variable(
            "ring",
            shape=(buffer_size, *var.shape),
            dtype=var.dtype,
            initializer=zeros_initializer(var.dtype),
            trainable=False,
        )
        step = get_variable(
            "step",
            shape=(1,),
            dtype=_dtypes.int64,
            initializer=zeros_initializer(_dtypes.int64),
            trainable=False,
        )
    value, new_ring, new_step = apply_op(
        "ssp_variable_proxy",
        _lower_proxy,
        [var, ring, step],
        attrs={"buffer_size": buffer_size},
        name=name,
    )
    graph.assign(ring, new_ring)
    graph.assign(step, new_step)
    return var, value


# per job being traced: variable name -> the stale value its body reads
_proxies: weakref.WeakKeyDictionary[Any, dict[str, Blob]] = weakref.WeakKeyDictionary()


def _ssp_view(variable: Blob) -> Blob:
    """Under ``enable_ssp``, a train job's body reads a trainable variable of a scope with
    ``ssp_num_stages`` through a proxy ``num_stages - ssp_stage_id`` calls stale (OneFlow's
    AddSspVariableProxy pass, named ``<variable>_ssp_variable_proxy``)."""
    graph = variable.graph
    config = graph.config
    if not (
        getattr(config, "ssp_enabled", False)
        and graph.is_trainable
        and variable.op.attrs.get("trainable")
    ):
        return variable
    proxies = _proxies.setdefault(graph, {})
    if variable.op.name in proxies:
        return proxies[variable.op.name]
    stages, stage = scope_attr("ssp_num_stages"), scope_attr("ssp_stage_id")
    if not 0 <= stage < stages:
        fail(
            "function_config.enable_ssp",
            f"variable {variable.op.name!r} needs flow.experimental.scope.config("
            f"ssp_num_stages=n, ssp_stage_id=i) with 0 <= i < n around it (got "
            f"ssp_num_stages={stages}, ssp_stage_id={stage}); flowjob has no automatic stage "
            "partition",
            None,
        )
    proxy_name = variable.op.name + "_ssp_variable_proxy"
    proxies[variable.op.name] = ssp_variable_proxy(variable, stages - stage, proxy_name)[1]
    return proxies[variable.op.name]


VARIABLE_VIEWS.append(_ssp_view)
