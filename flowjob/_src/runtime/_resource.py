"""``flow.current_resource()``: what flowjob runs on, in the fields of OneFlow's ``Resource``.

The device counts and the debug flag are what the runtime uses. OneFlow's actor-runtime
knobs (RDMA, worker threads, reserved memory, TF32...) have no effect in flowjob
(runtime/_tuning.py); they read back as ``flow.config`` set them, else as OneFlow's defaults.
"""

from __future__ import annotations

import dataclasses

from . import _config, _tuning


@dataclasses.dataclass(frozen=True)
class Resource:
    """Field names and defaults of OneFlow v0.4's ``Resource`` proto (``resource.proto``)."""

    machine_num: int
    gpu_device_num: int
    cpu_device_num: int
    enable_debug_mode: bool
    comm_net_worker_num: int = 4
    max_mdsave_worker_num: int = 64
    use_rdma: bool = False
    rdma_mem_block_mbyte: int = 8
    rdma_recv_msg_buf_mbyte: int = 6
    reserved_host_mem_mbyte: int = 500
    reserved_device_mem_mbyte: int = 500
    enable_numa_aware_cuda_malloc_host: bool = False
    compute_thread_pool_size: int = 0
    thread_enable_local_message_queue: bool = False
    enable_tensor_float_32_compute: bool = True
    enable_mem_chain_merge: bool = True
    nccl_use_compute_stream: bool = False
    disable_group_boxing_by_dst_parallel: bool = False


_KNOBS = tuple(f.name for f in dataclasses.fields(Resource))[4:]


def current_resource() -> Resource:
    """Starts JAX if no job has yet (as OneFlow initialised its environment) and describes
    it: ``machine_num`` processes, and per machine ``gpu_device_num`` GPUs or
    ``cpu_device_num`` CPU devices (a ``gpu_device_num`` setting on a machine without a GPU
    runs on the CPU and counts as CPU devices)."""
    import jax

    _config.start_backend()
    process = _config.process
    on_gpu = _config.job_platform() == "gpu"
    knobs = {
        name: _tuning.settings[f"config.{name}"]
        for name in _KNOBS
        if f"config.{name}" in _tuning.settings
    }
    return Resource(
        machine_num=jax.process_count(),
        gpu_device_num=process.device_num if on_gpu else 0,
        cpu_device_num=0 if on_gpu else process.device_num,
        enable_debug_mode=process.debug_mode,
        **knobs,
    )
