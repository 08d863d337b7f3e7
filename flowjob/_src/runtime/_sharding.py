"""Placement and SBP lowered to JAX: a 1-D device mesh and ``NamedSharding`` per array.

Consistent view: inputs are split along their batch axis, variables are replicated unless
annotated ``split(k)``, gradients are reduced by the compiler (GSPMD inserts the all-reduce),
results are gathered whole. One device means no sharding at all (the plain program).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from .. import _devices
from ..errors import ConfigError, JobDefinitionError
from ..graph import Blob, Distribute, JobGraph, Sbp, VariableStore, has_host_kernels, split
from . import _config

AXIS = "d"


def jit_for(fn: Any, platform: str, **options: Any) -> Any:
    """``jax.jit(fn, **options)`` for a job on ``platform``. On a GPU, XLA may otherwise keep
    a float16/bfloat16 value in float32 across a fusion ("excess precision"), skipping the
    rounding a cast to a half type asks for; OneFlow's GPU kernels rounded there, and so do
    flowjob's jobs (the CPU already does)."""
    if platform == "gpu" and _JIT_TAKES_COMPILER_OPTIONS:
        options["compiler_options"] = {"xla_allow_excess_precision": False}
    return jax.jit(fn, **options)


_JIT_TAKES_COMPILER_OPTIONS = "compiler_options" in inspect.signature(jax.jit).parameters


def job_devices(graph: JobGraph) -> list[Any]:
    """The devices a job runs on: its placement scopes' devices, else the configured count,
    of the job's platform (``job_platform``): the GPUs where it asks for them and the machine
    has them, else the host's CPU devices."""
    placements = [op.placement for op in graph.ops if op.placement is not None]
    platform = job_platform(graph)
    devices = _devices.local_devices(platform)
    per_process = max(1, len(devices) // max(1, jax.process_count()))
    if placements:
        ids = sorted({pair for p in placements for pair in _placed_ids(p, per_process)})
    else:
        count = min(_config.process.device_num, per_process)
        ids = [(m, d) for m in range(jax.process_count()) for d in range(count)]
    chosen = []
    kind = "GPU" if platform == "gpu" else "device"
    for machine, device in ids:
        index = machine * per_process + device
        if device >= per_process or index >= len(devices):
            hint = (
                "gpu_device_num"
                if platform == "gpu"
                else f"flow.config.cpu_device_num({device + 1}) (or gpu_device_num)"
            )
            raise ConfigError(
                f"job {graph.name!r} is placed on machine {machine} device {device}, but only "
                f"{per_process} {kind}(s) per machine exist; place it on fewer, or call "
                f"{hint} before the first job runs"
            )
        chosen.append(devices[index])
    return chosen


def job_platform(graph: JobGraph) -> str:
    """``"gpu"`` when the job asks for the GPU and the machine has one, else ``"cpu"``. A job
    asks for it with a ``"gpu"`` placement on any of its ops (host ops placed on ``"cpu"``,
    such as OneFlow's data loaders, run on the host whatever the job's platform), or, with no
    placement, through ``gpu_device_num`` or no device setting at all (OneFlow's default);
    ``cpu_device_num`` and ``"cpu"``-only placements keep it on the host."""
    tags = {op.placement.requested_tag for op in graph.ops if op.placement is not None}
    return _config.job_platform(("gpu" in tags) if tags else None)


def mirrored_pieces(default_placement: Any) -> int:
    """How many devices a mirrored-view job runs on when its ops take the job's default
    placement (``default_placement``, or the configured device count): the pieces its
    fixed-shape inputs are split into along axis 0."""
    platform = _config.job_platform(
        None if default_placement is None else default_placement.placement.requested_tag == "gpu"
    )
    devices = _devices.local_devices(platform)
    per_process = max(1, len(devices) // max(1, jax.process_count()))
    if default_placement is not None:
        return len(_placed_ids(default_placement.placement, per_process))
    return min(_config.process.device_num, per_process) * jax.process_count()


def _placed_ids(placement: Any, per_process: int) -> list[tuple[int, int]]:
    """A placement's (machine, device) pairs. OneFlow's CPU devices are logical (threads of
    one host), so a ``"cpu"`` placement naming more devices than exist, e.g. ``"0:0-1"``
    under ``gpu_device_num(1)``, runs on the devices that exist; the consistent view makes
    the result the same."""
    ids = placement.device_ids()
    if placement.requested_tag == "cpu":
        ids = [(m, d) for m, d in ids if d < per_process] or [(m, 0) for m, _ in ids[:1]]
    return ids


def job_mesh(devices: list[Any]) -> Mesh | None:
    """The job's devices as a 1-D mesh; ``None`` (the plain program, placed by JAX) for one
    device of JAX's default platform. A single device of another platform (a ``"cpu"`` job on
    a machine with a GPU) is a 1-device mesh, so that its state and inputs go there."""
    if len(devices) == 1 and devices[0].platform == jax.devices()[0].platform:
        return None
    return Mesh(np.array(devices), (AXIS,))


def spec_for(shape: tuple[int, ...], distribute: Distribute | None, mesh: Mesh) -> PartitionSpec:
    """split(k) shards axis k over the mesh when it divides evenly; else replicate."""
    if distribute is None or distribute.kind is not Sbp.SPLIT:
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


def constrain_nd(
    value: Any,
    nd_sbp: tuple[Distribute | None, ...],
    hierarchy: tuple[int, ...] | None,
    mesh: Mesh | None,
) -> Any:
    """``hierarchical_parallel_cast`` inside the program: the job's devices as a mesh of the
    placement's hierarchy, axes named ``d0, d1, ...``; each ``S(k)`` entry shards tensor axis
    k over its mesh axis (a tensor axis split by two entries is split over both), ``B`` and
    ``P`` replicate. A split that does not divide evenly is left out."""
    if mesh is None:
        return value
    devices = mesh.devices.reshape(-1)
    shape = hierarchy if hierarchy and int(np.prod(hierarchy)) == devices.size else (devices.size,)
    if len(shape) != len(nd_sbp):
        shape = (devices.size,)
        nd_sbp = nd_sbp[:1]
    names = tuple(f"{AXIS}{i}" for i in range(len(shape)))
    dims: list[list[str]] = [[] for _ in value.shape]
    for name, sbp, size in zip(names, nd_sbp, shape):
        if sbp is not None and sbp.kind is Sbp.SPLIT and size > 1:
            dims[sbp.axis].append(name)
    sizes = dict(zip(names, shape))
    spec = []
    for length, axes in zip(value.shape, dims):
        if not axes or length % int(np.prod([sizes[a] for a in axes])):
            spec.append(None)
        else:
            spec.append(axes[0] if len(axes) == 1 else tuple(axes))
    nd_mesh = Mesh(devices.reshape(shape), names)
    return jax.lax.with_sharding_constraint(value, NamedSharding(nd_mesh, PartitionSpec(*spec)))


@dataclass
class Jitted:
    """A job's step compiled for several devices, and where its state and inputs live."""

    fn: Any
    state_shardings: dict[str, Any]
    input_shardings: tuple[Any, ...]
    pieces: int = 1  # mirrored view: devices whose pieces make up each result


def state_donation(graph: JobGraph) -> tuple[int, ...]:
    """``donate_argnums`` of a program that returns its new state: the state (argument 0),
    saving a copy of every variable per step, unless a host kernel runs in it. Such a step
    can fail after it started, and the state it was given must then still be there (the
    call stores the new state only once the step succeeded: runtime/_calls.py)."""
    return () if has_host_kernels(graph) else (0,)


def jit_sharded(
    graph: JobGraph,
    step: Any,
    store: VariableStore,
    state_names: list[str],
    input_blobs: list[Blob],
    mesh: Mesh,
) -> Jitted:
    """Several devices, one global view: GSPMD places state and inputs as SBP says."""
    train = graph.is_train
    writes = bool(graph.assigns)  # a predict job that assigns returns (state, outputs)
    state_sh = {
        n: sharding(mesh, store.defs[n].shape, _state_distribute(store, n)) for n in state_names
    }
    input_sh = tuple(sharding(mesh, b.shape, _input_distribute(b)) for b in input_blobs)
    repl = replicated(mesh)
    if any(op.real_shape and op.real_shape.masked for op in graph.ops):
        input_sh += (repl,)  # the real shapes vector
    if train:
        fn = jit_for(
            step,
            mesh.devices.flat[0].platform,
            donate_argnums=state_donation(graph),
            in_shardings=(state_sh, input_sh, repl),
            out_shardings=(state_sh, repl, repl),
        )
    elif writes:
        fn = jit_for(
            step,
            mesh.devices.flat[0].platform,
            donate_argnums=state_donation(graph),
            in_shardings=(state_sh, input_sh, repl),
            out_shardings=(state_sh, repl),
        )
    else:
        platform = mesh.devices.flat[0].platform
        fn = jit_for(step, platform, in_shardings=(state_sh, input_sh, repl), out_shardings=repl)
    return Jitted(fn, state_sh, input_sh)


def jit_mirrored(
    graph: JobGraph, step: Any, state_names: list[str], inputs: int, mesh: Mesh
) -> Jitted:
    """Mirrored view: every device runs the body on its own piece (``shard_map``); gradients
    are averaged across devices, so training matches one device on the whole batch."""
    if graph.feeds:  # its blobs have the whole batch's shape, not a device's piece
        raise JobDefinitionError(
            f"job {graph.name!r}: data pipeline ops (ofrecord_reader...) need the consistent "
            "view when the job spans several devices; the batch is split among them there"
        )
    train = graph.is_train
    writes = train or bool(graph.assigns)  # a predict job that assigns returns (state, outputs)
    split_spec, repl = PartitionSpec(AXIS), PartitionSpec()
    if train:
        out_specs = (repl, split_spec, split_spec)
    else:
        out_specs = (repl, split_spec) if writes else split_spec
    mapped = jax.shard_map(
        step, mesh=mesh, in_specs=(repl, split_spec, repl), out_specs=out_specs, check_vma=False
    )
    state_sh = {n: replicated(mesh) for n in state_names}
    # Per-device pieces are concatenated along axis 0, so the global input is split on it.
    input_sh = tuple(NamedSharding(mesh, split_spec) for _ in range(inputs))
    options: dict[str, Any] = {"donate_argnums": state_donation(graph)} if writes else {}
    if jax.process_count() > 1:
        # Another process's pieces are not addressable here: gather every piece to every
        # process, as the consistent view's results are.
        repl_sh = replicated(mesh)
        options["out_shardings"] = (
            (state_sh, repl_sh, repl_sh) if train else (state_sh, repl_sh) if writes else repl_sh
        )
    fn = jit_for(mapped, mesh.devices.flat[0].platform, **options)
    return Jitted(fn, state_sh, input_sh, pieces=mesh.size)


def _state_distribute(store: VariableStore, name: str) -> Any:
    vdef = store.defs[name]
    if vdef.distribute is not None or not vdef.system:
        return vdef.distribute
    # Optimizer slots ("<var>-m", "<var>-momentum") are sharded like their variable.
    for owner, odef in store.defs.items():
        if name.startswith(owner + "-") and odef.shape == vdef.shape and not odef.system:
            return odef.distribute
    return None


def _input_distribute(blob: Blob) -> Any:
    axis = blob.op.attrs.get("batch_axis", 0)
    return None if axis is None else split(axis)
