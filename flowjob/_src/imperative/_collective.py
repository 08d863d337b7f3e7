"""``flow.eager_nccl_all_reduce``: OneFlow's eager all-reduce over the devices of a placement,
as a JAX collective (``psum``) over the matching local JAX devices.

In OneFlow each device's process passed its own tensor. flowjob drives all local devices from
one process, so the call takes one value per device of ``parallel_conf``, in its order, and
returns the sums, each on its device. The reduction is a real collective: XLA's all-reduce
(NCCL on GPUs).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from .. import _devices as machine_devices
from ..errors import ConfigError, OpError
from ..graph import Blob, Placement
from ..ops import array_ops
from ..runtime import config as _runtime_config
from ._storage import device
from ._tensor import Tensor

_FIELD = re.compile(r'(device_tag|device_name)\s*:\s*"([^"]*)"')


def _conf_fields(parallel_conf: str) -> tuple[str, list[tuple[int, int]]]:
    """The text ``ParallelConf``'s device tag and (machine, device) ids."""
    fields = _FIELD.findall(str(parallel_conf))
    tags = [v for k, v in fields if k == "device_tag"]
    names = tuple(v for k, v in fields if k == "device_name")
    if len(tags) != 1 or not names:
        raise ValueError(
            "eager_nccl_all_reduce: parallel_conf must be a ParallelConf in text form with one "
            'device_tag and device_name entries, e.g. \'device_tag: "gpu" device_name: '
            f'"0:0-1"\', got {parallel_conf!r}'
        )
    return tags[0], Placement(tags[0], names).device_ids()


def _devices(parallel_conf: str) -> tuple[str, list[jax.Device]]:
    """The placement's device tag and its local JAX devices."""
    tag, ids = _conf_fields(parallel_conf)
    tags = [tag]
    if any(machine != jax.process_index() for machine, _ in ids):
        raise ConfigError(
            f"eager_nccl_all_reduce: parallel_conf names devices {ids} of other machines; "
            f"this process is machine {jax.process_index()} and reduces its own devices only"
        )
    # "cpu" names the host's devices also beside GPUs; "gpu" the GPUs, or without any the
    # CPU devices gpu_device_num made (as a job's placement does)
    platform = "gpu" if tags[0] == "gpu" and machine_devices.gpu_available() else "cpu"
    here = jax.process_index()
    local = [d for d in machine_devices.local_devices(platform) if d.process_index == here]
    if any(d >= len(local) for _, d in ids):
        raise ConfigError(
            f"eager_nccl_all_reduce: parallel_conf names devices {[d for _, d in ids]}; this "
            f"machine has {len(local)} (flow.config.cpu_device_num/gpu_device_num)"
        )
    return tags[0], [local[d] for _, d in ids]


def _all_reduce(arrays: list[jax.Array], devices: list[jax.Device]) -> list[jax.Array]:
    """psum over a one-axis mesh of ``devices``, value ``i`` living on ``devices[i]``."""
    mesh = Mesh(np.array(devices), ("devices",))
    spec = PartitionSpec("devices")
    stacked = jax.make_array_from_single_device_arrays(
        (len(arrays), *arrays[0].shape),
        NamedSharding(mesh, spec),
        [jax.device_put(a[None], d) for a, d in zip(arrays, devices)],
    )
    summed = jax.jit(
        jax.shard_map(
            lambda v: jax.lax.psum(v, "devices"), mesh=mesh, in_specs=spec, out_specs=spec
        )
    )(stacked)
    by_device = {shard.device: shard.data[0] for shard in summed.addressable_shards}
    return [by_device[d] for d in devices]


def eager_nccl_all_reduce(
    x: Sequence[Any] | Any, parallel_conf: str, name: str | None = None
) -> list[Any] | Any:
    """The element-wise sum of the values of all devices of ``parallel_conf`` (text
    ``ParallelConf``), on each of them. ``x``: one value (Tensor, JAX or NumPy array) per
    device, in the placement's order; a single value when it names one device. Returns a
    list of sums (JAX arrays, or Tensors when given Tensors), or one sum for one value."""
    if isinstance(x, Blob):
        # In a job OneFlow's op turned a partial sum into the same sum on every device; a
        # flowjob blob is one logical value already (sharding is the compiler's), which the
        # all-reduce leaves as it is (OneFlow v0.4's demos/eager_nccl_all_reduce_demo.py).
        _conf_fields(parallel_conf)
        return array_ops.identity(x, name=name)
    if any(isinstance(v, Blob) for v in (x if isinstance(x, (list, tuple)) else [x])):
        raise OpError(
            "eager_nccl_all_reduce in a job takes one blob (its logical value is every "
            "device's), not a list of blobs"
        )
    _runtime_config.start_jax()
    tag, devices = _devices(parallel_conf)
    single = not isinstance(x, (list, tuple))
    values = [x] if single else list(x)
    if len(values) != len(devices):
        raise ValueError(
            f"eager_nccl_all_reduce: {len(values)} value(s) for the {len(devices)} device(s) "
            f"of parallel_conf {parallel_conf!r}; pass one per device"
        )
    arrays = [jnp.asarray(v.array if isinstance(v, Tensor) else v) for v in values]
    shapes = {a.shape for a in arrays}
    if len(shapes) != 1:
        raise ValueError(f"eager_nccl_all_reduce: the values' shapes differ: {sorted(shapes)}")
    out = _all_reduce(arrays, devices)
    if any(isinstance(v, Tensor) for v in values):
        # OneFlow's name of each device of the placement ("gpu" tags are cuda devices, even
        # where their values live on the CPU devices that stand in for them)
        kind = "cuda" if tag == "gpu" else "cpu"
        out = [Tensor._wrap(a, where=device(kind, d.id)) for a, d in zip(out, devices)]
    return out[0] if single else out
