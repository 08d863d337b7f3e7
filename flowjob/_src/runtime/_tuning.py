"""OneFlow's runtime tuning switches (``flow.config.nccl_*``, ``flow.config.collective_boxing.*``,
``enable_tensor_float_32_compute``, memory/thread/RDMA sizes) and ``flow.env`` logging flags.

They tune OneFlow's own actor runtime, NCCL and CUDA allocator, which flowjob does not have:
XLA schedules collectives and memory itself. flowjob accepts them with OneFlow's argument
types (so programs run unchanged), records the values in ``settings`` and changes nothing
else. The exceptions: ``env.log_dir`` creates the directory, as OneFlow does, and
``enable_tensor_float_32_compute`` is the matmul precision of jobs compiled afterwards
(runtime/_lowering.py: TensorFloat-32 on GPUs that have it when on, OneFlow's default).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

settings: dict[str, Any] = {}


def _flag(name: str, kind: type, default: Any = None) -> Callable[..., None]:
    def setter(val: Any = default) -> None:
        if val is None or type(val) is not kind:
            article = "an" if kind is int else "a"
            raise TypeError(f"flow.{name} takes {article} {kind.__name__}, got {val!r}")
        settings[name] = val

    setter.__name__ = name.rsplit(".", 1)[-1]
    setter.__qualname__ = setter.__name__
    setter.__doc__ = (
        f"Accepted for OneFlow compatibility ({kind.__name__}); a no-op in "
        "flowjob, which has no such runtime knob."
    )
    return setter


_CONFIG_FLAGS = {
    # name: (type, default)
    "enable_tensor_float_32_compute": (bool, True),
    "nccl_use_compute_stream": (bool, False),
    "disable_group_boxing_by_dst_parallel": (bool, False),
    "enable_numa_aware_cuda_malloc_host": (bool, True),
    "enable_mem_chain_merge": (bool, True),
    "use_rdma": (bool, True),
    "thread_enable_local_message_queue": (bool, None),
    "save_downloaded_file_to_local_fs": (bool, True),
    "collect_act_event": (bool, True),
    "comm_net_worker_num": (int, None),
    "max_mdsave_worker_num": (int, None),
    "compute_thread_pool_size": (int, None),
    "rdma_mem_block_mbyte": (int, None),
    "rdma_recv_msg_buf_mbyte": (int, None),
    "reserved_host_mem_mbyte": (int, None),
    "reserved_device_mem_mbyte": (int, None),
    "persistence_buf_byte": (int, None),
}

_BOXING_FLAGS = {
    "enable_fusion": (bool, True),
    "num_callback_threads": (int, None),
    "nccl_num_streams": (int, None),
    "nccl_fusion_threshold_mb": (int, None),
    "nccl_fusion_all_reduce_use_buffer": (bool, None),
    "nccl_fusion_all_reduce": (bool, None),
    "nccl_fusion_reduce_scatter": (bool, None),
    "nccl_fusion_all_gather": (bool, None),
    "nccl_fusion_reduce": (bool, None),
    "nccl_fusion_broadcast": (bool, None),
    "nccl_fusion_max_ops": (int, None),
    "nccl_enable_all_to_all": (bool, None),
    "nccl_enable_mixed_fusion": (bool, None),
}

config_flags = {name: _flag(f"config.{name}", *spec) for name, spec in _CONFIG_FLAGS.items()}
config_flags["enable_tensor_float_32_compute"].__doc__ = (
    "TensorFloat-32 for float32 matrix products and convolutions of the jobs compiled from "
    "now on (bool; OneFlow's default, True): JAX's 'tensorfloat32' matmul precision, or "
    "'float32' when off. Only GPUs with TF32 (Ampere and later) compute differently."
)
collective_boxing = SimpleNamespace(
    **{
        name: _flag(f"config.collective_boxing.{name}", *spec)
        for name, spec in _BOXING_FLAGS.items()
    }
)
collective_boxing.__doc__ = (
    "flow.config.collective_boxing: NCCL fusion settings, accepted "
    "and ignored (XLA fuses collectives itself)."
)

logtostderr = _flag("env.logtostderr", int)
logbuflevel = _flag("env.logbuflevel", int)


def log_dir(val: str) -> None:
    """Where OneFlow wrote its log files; flowjob creates the directory and records it (its
    own messages go to stderr)."""
    if not isinstance(val, str) or not val:
        raise TypeError(f"flow.env.log_dir takes a directory path (str), got {val!r}")
    os.makedirs(val, exist_ok=True)
    settings["env.log_dir"] = val
