"""``flow.config``: process-wide settings; set them before the first job runs.

OneFlow's runtime tuning knobs (NCCL, collective boxing, TF32, thread and memory sizes) are
accepted and ignored; see runtime/_tuning.py.
"""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.runtime import (
    collective_boxing,
    compilation_cache,
    compilation_cache_dir,
    config_flags,
    cpu_device_num,
    enable_debug_mode,
    enable_legacy_model_io,
    enable_model_io_v2,
    gpu_device_num,
    legacy_model_io_enabled,
    machine_num,
    seed,
)

collect_act_event = config_flags["collect_act_event"]
comm_net_worker_num = config_flags["comm_net_worker_num"]
compute_thread_pool_size = config_flags["compute_thread_pool_size"]
disable_group_boxing_by_dst_parallel = config_flags["disable_group_boxing_by_dst_parallel"]
enable_mem_chain_merge = config_flags["enable_mem_chain_merge"]
enable_numa_aware_cuda_malloc_host = config_flags["enable_numa_aware_cuda_malloc_host"]
enable_tensor_float_32_compute = config_flags["enable_tensor_float_32_compute"]
max_mdsave_worker_num = config_flags["max_mdsave_worker_num"]
nccl_use_compute_stream = config_flags["nccl_use_compute_stream"]
persistence_buf_byte = config_flags["persistence_buf_byte"]
rdma_mem_block_mbyte = config_flags["rdma_mem_block_mbyte"]
rdma_recv_msg_buf_mbyte = config_flags["rdma_recv_msg_buf_mbyte"]
reserved_device_mem_mbyte = config_flags["reserved_device_mem_mbyte"]
reserved_host_mem_mbyte = config_flags["reserved_host_mem_mbyte"]
save_downloaded_file_to_local_fs = config_flags["save_downloaded_file_to_local_fs"]
thread_enable_local_message_queue = config_flags["thread_enable_local_message_queue"]
use_rdma = config_flags["use_rdma"]

# OneFlow's C++ op libraries: a clear error naming Python kernels as the way to custom ops.
from .userop import load_library, load_library_now  # noqa: E402

__all__ = [
    "compilation_cache",
    "compilation_cache_dir",
    "cpu_device_num",
    "enable_debug_mode",
    "enable_legacy_model_io",
    "enable_model_io_v2",
    "gpu_device_num",
    "legacy_model_io_enabled",
    "machine_num",
    "seed",
    "collective_boxing",
    "load_library",
    "load_library_now",
    *sorted(config_flags),
]


_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
