"""Placement and SBP lowered to JAX: a 1-D device mesh and ``NamedSharding`` per array.

Consistent view: inputs are split along their batch axis, variables are replicated unless
annotated ``split(k)``, gradients are reduced by the compiler (GSPMD inserts the all-reduce),
results are gathered whole. One device means no sharding at all (the plain program).
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from ..graph import Distribute, JobGraph
from . import _config

AXIS = "d"


def job_devices(graph: JobGraph) -> list[Any]:
    """The devices a job runs on: its placement scopes' devices, else all configured ones."""
    devices = jax.devices()
    per_process = max(1, len(devices) // max(1, jax.process_count()))
    placements = [op.placement for op in graph.ops if op.placement is not None]
    if placements:
        ids = sorted({pair for p in placements for pair in _placed_ids(p, per_process)})
    else:
        count = min(_config.process.device_num, per_process)
        ids = [(m, d) for m in range(jax.process_count()) for d in range(count)]
    chosen = []
    for machine, device in ids:
        index = machine * per_process + device
        if device >= per_process or index >= len(devices):
            raise RuntimeError(
                f"job {graph.name!r} is placed on machine {machine} device {device}, but only "
                f"{per_process} device(s) per machine exist; call flow.config.cpu_device_num("
                f"{device + 1}) (or gpu_device_num) before the first job runs")
        chosen.append(devices[index])
    return chosen


def _placed_ids(placement: Any, per_process: int) -> list[tuple[int, int]]:
    """A placement's (machine, device) pairs. OneFlow's CPU devices are logical (threads of
    one host), so a ``"cpu"`` placement naming more devices than exist, e.g. ``"0:0-1"``
    under ``gpu_device_num(1)``, runs on the devices that exist; the consistent view makes
    the result the same."""
    ids = placement.device_ids()
    if placement.requested_tag == "cpu":
        ids = [(m, d) for m, d in ids if d < per_process] or [(m, 0) for m, _ in ids[:1]]
    return ids


def job_mesh(graph: JobGraph) -> Mesh | None:
    devices = job_devices(graph)
    if len(devices) <= 1:
        return None
    return Mesh(np.array(devices), (AXIS,))


def spec_for(shape: tuple[int, ...], distribute: Distribute | None, mesh: Mesh) -> PartitionSpec:
    """split(k) shards axis k over the mesh when it divides evenly; else replicate."""
    if distribute is None or distribute.kind != "split":
        return PartitionSpec()
    axis = distribute.axis % len(shape) if shape else 0
    if not shape or shape[axis] % mesh.size:
        return PartitionSpec()
    return PartitionSpec(*([None] * axis + [AXIS]))


def sharding(mesh: Mesh, shape: tuple[int, ...], distribute: Distribute | None) -> NamedSharding:
    return NamedSharding(mesh, spec_for(shape, distribute, mesh))


def replicated(mesh: Mesh) -> NamedSharding:
    return NamedSharding(mesh, PartitionSpec())


def to_global(value: Any, target: NamedSharding) -> jax.Array:
    """Places a host (or single-device) value on the mesh; works across processes because
    every process holds the same full value."""
    if isinstance(value, jax.Array) and value.sharding == target:
        return value
    host = np.asarray(value)
    return jax.make_array_from_callback(host.shape, target, lambda index: host[index])


def constrain(value: Any, distribute: Distribute, mesh: Mesh | None) -> Any:
    """``with_distribute`` / ``parallel_cast`` inside the program."""
    if mesh is None:
        return value
    return jax.lax.with_sharding_constraint(value, sharding(mesh, value.shape, distribute))
