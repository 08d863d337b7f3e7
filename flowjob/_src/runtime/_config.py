"""``flow.function_config()`` (per job) and ``flow.config`` (per process) settings."""

from __future__ import annotations

import copy
import sys
import threading
from typing import Any

from .. import _devices, _dtypes, processes
from .._cache_dir import configured_cache_dir
from .._deprecation import warn_once
from ..errors import ConfigError
from ..graph import LogicalView, consistent_view
from ..ops import QatConfig
from . import _host_memory
from ._xrt_config import XRT_DEFAULTS, TensorRTConfig, XrtSettings


class FunctionConfig(XrtSettings):
    """Settings of one job function; attribute calls set them (``config.default_data_type(...)``).

    Unknown attributes act as OneFlow's generic flags: ``config.enable_cudnn(False)`` stores
    the value, which flowjob does not use.
    """

    def __init__(self) -> None:
        self.data_type: _dtypes.DType | None = None
        self.initializer_conf: Any = None
        self.logical_view: LogicalView = consistent_view()
        self.placement_scope: Any = None
        self.concurrency: int = 128
        self.flags: dict[str, Any] = {}
        self.qat = QatConfig()
        self.qat_enabled = False
        self.ssp_enabled = False
        self.tensorrt = TensorRTConfig(self.flags)

    def implicit_optimizer(self) -> Any:
        """The optimizer of a train job whose body calls no ``minimize``: none here. The legacy
        ``config.train.*`` settings (``flowjob._src.legacy``) declare one."""
        return None

    def default_data_type(self, dtype: Any) -> None:
        self.data_type = _dtypes.as_dtype(dtype)

    def default_logical_view(self, view: LogicalView) -> None:
        if not isinstance(view, LogicalView):
            raise TypeError(
                "default_logical_view takes flow.scope.consistent_view() or "
                f"flow.scope.mirrored_view(), got {view!r}"
            )
        self.logical_view = view

    def default_distribute_strategy(self, view: LogicalView) -> None:
        warn_once(
            "default_distribute_strategy",
            "default_distribute_strategy is deprecated, use default_logical_view",
        )
        self.default_logical_view(view)

    def default_placement_scope(self, scope: Any) -> None:
        self.placement_scope = scope

    def default_initializer_conf(self, conf: Any) -> None:
        self.initializer_conf = conf

    def enable_qat(self, value: bool = True) -> None:
        """Quantization-aware training: fake quantization around the job's convolutions and
        matrix products (``config.qat`` says how)."""
        self.qat_enabled = bool(value)

    enable_quantization_aware_training = enable_qat

    def enable_ssp(self, value: bool = True) -> None:
        """Stale synchronous parallel training: in a train job, the trainable variables of a
        scope with ``ssp_num_stages`` are read through ``flow.experimental.ssp_variable_proxy``
        (``num_stages - stage_id`` calls stale); the optimizer updates the variables."""
        self.ssp_enabled = bool(value)

    def concurrency_width(self, width: int) -> None:
        """Most calls of this job in flight at once; further calls wait (back-pressure)."""
        if type(width) is not int or width < 1:
            raise ValueError(f"concurrency_width must be an int >= 1, got {width!r}")
        self.concurrency = width

    @property
    def initializer(self) -> Any:
        conf = self.initializer_conf
        if conf is None or callable(conf):
            return conf
        from ..ops import initializers

        return initializers.from_conf(conf)

    @property
    def function_desc(self) -> _FlagView:
        """OneFlow's read side: ``config.function_desc.enable_inplace`` is the value that
        ``config.enable_inplace(...)`` stored (True when called without an argument);
        ``use_xla_jit`` and ``use_tensorrt`` read OneFlow's default (False) until set."""
        return _FlagView(self.flags)

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)

        def set_flag(value: Any = True) -> None:
            self.flags[name] = value

        return set_flag


class _FlagView:
    """Read-only view of a FunctionConfig's generic flags."""

    def __init__(self, flags: dict[str, Any]) -> None:
        self._flags = flags

    def __getattr__(self, name: str) -> Any:
        if name in XRT_DEFAULTS and name not in self._flags:
            return XRT_DEFAULTS[name]
        if name.startswith("_") or name not in self._flags:
            raise AttributeError(
                f"function_desc.{name}: this FunctionConfig has not set "
                f"{name} (set flags: {sorted(self._flags) or 'none'})"
            )
        return self._flags[name]


def function_config() -> FunctionConfig:
    return FunctionConfig()


class _ProcessConfig:
    """Process-wide settings (``flow.config.*``); device counts must be set before JAX starts."""

    def __init__(self) -> None:
        self.device_num = 1
        # "gpu" / "cpu" as gpu_device_num / cpu_device_num set it; None: neither was called,
        # and jobs run where OneFlow's GPU build ran them by default, on the GPU if there is one.
        self.device_tag: str | None = None
        self.cpu_device_num = 1  # what gpu_device_num(0) falls back to
        self.debug_mode = False
        self.legacy_model_io = False
        self.machine_count = 1
        self.seed = 0


process = _ProcessConfig()


def _set_device_num(n: int, tag: str) -> None:
    """Sets JAX's CPU device count now (a setting, no device is probed) and remembers the
    kind; whether a GPU exists is looked at when the first session starts (``start_jax``).

    The count JAX starts with only grows (``gpu_device_num(4)`` then, after
    ``clear_default_session``, ``gpu_device_num(2)`` keeps 4 devices, of which jobs use 2);
    once JAX runs it cannot change, so asking for more devices than it has is an error."""
    if type(n) is not int or n < 1:
        raise ValueError(f"flow.config.{tag}_device_num: expected an int >= 1, got {n!r}")
    import jax

    if n > 1:
        try:
            jax.config.update("jax_num_cpu_devices", max(n, jax.config.jax_num_cpu_devices))
        except RuntimeError:  # the backend was started already (by flowjob or the user)
            have = len(_devices.local_devices("cpu"))
            if have < n and not (tag == "gpu" and _devices.gpu_available()):
                raise ConfigError(
                    f"flow.config.{tag}_device_num({n}): JAX already started with {have} "
                    "device(s); call it before the first job is defined or run (or set "
                    f"JAX_NUM_CPU_DEVICES={n})"
                ) from None
    process.device_num = n
    process.device_tag = tag
    if _backend_started:
        _check_gpu()


def reset_device_num() -> None:
    """Back to one device, as a new session starts in OneFlow (its device counts belong to
    the session's config): ``clear_default_session`` calls this, so a later
    ``gpu_device_num`` sets the count anew and tests that set none get one device."""
    process.device_num = 1
    process.device_tag = None


def _check_gpu() -> None:
    """``gpu_device_num(n)``: n of the machine's GPUs, or, without any, n CPU devices (with a
    notice, as before). Asking for more GPUs than the machine has is an error."""
    if process.device_tag != "gpu":
        return
    import jax

    gpus = _devices.local_devices("gpu")
    have = len(gpus) // max(1, jax.process_count()) if gpus else 0
    if not have:
        print(
            "INFO: for CPU-only flowjob, flow.config.gpu_device_num is equivalent to "
            "flow.config.cpu_device_num",
            file=sys.stderr,
        )
        process.device_tag = "cpu"
    elif process.device_num > have:
        n = process.device_num
        process.device_num = have  # the session stays usable with the GPUs that exist
        raise ConfigError(
            f"flow.config.gpu_device_num({n}) asks for {n} GPU(s) per machine, but JAX sees "
            f"{have} on this machine; use gpu_device_num({have}) or fewer"
        )


def job_platform(wants_gpu: bool | None = None) -> str:
    """Where a job runs: ``"gpu"`` when it asks for the GPU (a ``"gpu"`` placement, or
    ``gpu_device_num``, or no device setting at all) and the machine has one, else ``"cpu"``.
    ``wants_gpu=None``: as the process's device setting says."""
    if wants_gpu is None:
        wants_gpu = process.device_tag != "cpu"
    return "gpu" if wants_gpu and _devices.gpu_available() else "cpu"


def gpu_device_num(val: int) -> None:
    """Devices per machine. Without a GPU they are virtual CPU devices, as OneFlow's CPU
    build made ``gpu_device_num`` mean ``cpu_device_num``. ``0`` is OneFlow's "no GPU": jobs
    run on the CPU devices (``cpu_device_num``, default 1)."""
    if val == 0 and type(val) is int:
        process.device_num = process.cpu_device_num
        process.device_tag = "cpu"
        return
    _set_device_num(val, "gpu")


def cpu_device_num(val: int) -> None:
    _set_device_num(val, "cpu")
    process.cpu_device_num = val


_jax_started = False  # JAX configured for flowjob (start_jax)
_backend_started = False  # machines and devices fixed (start_backend)
_cache_chosen = False  # flow.config.compilation_cache was called: leave the cache to it
_start_lock = threading.Lock()


def start_jax() -> None:
    """Configures JAX for flowjob, once, when the first session starts (never at import, so
    ``import flowjob`` leaves other JAX users' settings alone): 64-bit types and the
    persistent compilation cache. It starts no backend: a program may define its jobs and
    then call ``gpu_device_num`` or ``flow.env.machine`` (``start_backend`` does that)."""
    global _jax_started
    if _jax_started:
        return
    with _start_lock:
        if _jax_started:
            return
        import jax

        # OneFlow programs use int64 (train-step counters, summary steps) and float64 blobs.
        jax.config.update("jax_enable_x64", True)
        if not _cache_chosen and jax.config.jax_compilation_cache_dir is None:
            _enable_cache(None)
        _jax_started = True


def start_backend(program_bytes: int | None = None) -> None:
    """When the first job is compiled, as OneFlow initialised its environment at the first
    launch: starts ``jax.distributed`` for the machines of ``flow.env.machine`` (before
    anything starts the backend), then looks whether ``gpu_device_num`` finds a GPU. The
    machines cannot change afterwards (``flow.env.machine`` raises). ``program_bytes``: the
    first job's traced size, where it is known before (``sizing_first_job``)."""
    global _backend_started
    if _backend_started:
        return
    _host_memory.retain_host_memory(program_bytes)  # before XLA's threads first allocate
    start_jax()
    with _start_lock:
        if _backend_started:
            return
        processes.init()
        _check_gpu()
        _backend_started = True


def sizing_first_job() -> bool:
    """Whether the first job is to be traced before the backend starts, for its size
    (runtime/_host_memory.py): the host memory setting waits for it, and the job can only
    run on the CPU, in this one process, so its trace does not depend on the backend."""
    if _backend_started or not _host_memory.deciding():
        return False
    if processes.several() or not _devices.host_only() or _devices.backends_started():
        return False
    _check_gpu()  # gpu_device_num without a GPU means the CPU: so before the trace, too
    return True


def machine_num(val: int) -> None:
    process.machine_count = int(val)


def enable_debug_mode(val: bool = True) -> None:
    if type(val) is not bool:
        raise TypeError(f"enable_debug_mode takes a bool, got {val!r}")
    process.debug_mode = val


def enable_legacy_model_io(val: bool = True) -> None:
    if type(val) is not bool:
        raise TypeError(f"enable_legacy_model_io takes a bool, got {val!r}")
    process.legacy_model_io = val


def legacy_model_io_enabled() -> bool:
    return process.legacy_model_io


def enable_model_io_v2(val: bool = True) -> None:
    process.legacy_model_io = not val


def seed(value: int) -> None:
    """Seed of variable initialisers and random ops (default 0: runs are reproducible)."""
    process.seed = int(value)


def compilation_cache(path: str | None = None) -> None:
    """Keeps compiled jobs on disk so a second process skips XLA compilation.

    On by default (set when the first session starts) in ``$XDG_CACHE_HOME/flowjob/jax``
    (``FLOWJOB_CACHE_DIR`` overrides it; an empty value turns it off). Call with a path to
    move it.
    """
    global _cache_chosen
    _cache_chosen = True
    _enable_cache(path)


def compilation_cache_dir() -> str | None:
    """The folder compiled jobs are kept in: the one in use, or, before the first session
    starts, the one it will use (``None``: the cache is off)."""
    import jax

    if _cache_chosen or _jax_started or jax.config.jax_compilation_cache_dir:
        return jax.config.jax_compilation_cache_dir or None
    return configured_cache_dir()


def _enable_cache(path: str | None) -> None:
    import jax

    if path is None:
        path = configured_cache_dir()
    if not path:
        return
    jax.config.update("jax_compilation_cache_dir", path)
    # Jobs compile in well under JAX's default 1 s threshold; cache them all.
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
