"""One benchmark variant in its own process, driven over stdin/stdout by ``_harness``.

``python -m bench._worker '<json spec>'`` builds the variant, times its first call, warms up,
prints ``BENCH {"ready": ...}`` and then answers one JSON command per input line:
``{"cmd": "run", "n": N, "lead": L}`` (L untimed steps, then time N steps),
``{"cmd": "set", "prep_reps": k}``, ``{"cmd": "warm", "n": N}`` (N untimed steps),
``{"cmd": "profile", "n": N}``,
``{"cmd": "onednn", "n": N}`` (oneDNN's time by primitive),
``{"cmd": "hlo"}``, ``{"cmd": "quit"}`` (reports max RSS, and the kernel time and page faults
per step over the timed segments).
"""

from __future__ import annotations

import time

T_START = time.perf_counter()

import glob  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402

import numpy as np  # noqa: E402


def _emit(obj: dict) -> None:
    sys.stdout.write("BENCH " + json.dumps(obj) + "\n")
    sys.stdout.flush()


class Prep:
    """Host-side batch preparation (normalise, flip, add noise), ``reps`` passes per batch."""

    def __init__(self, batch: int):
        rng = np.random.default_rng(1)
        self.raw = rng.integers(0, 256, (8, batch, 1, 28, 28), dtype=np.uint8)
        self.labels = rng.integers(0, 10, (8, batch)).astype(np.int32)
        self.noise = (0.05 * rng.normal(size=(4, batch, 1, 28, 28))).astype(np.float32)
        self.reps = 1

    def one(self, i: int, r: int) -> np.ndarray:
        x = self.raw[i % 8].astype(np.float32) * np.float32(1 / 255)
        x = (x - np.float32(0.1307)) * np.float32(1 / 0.3081)
        if (i + r) % 2:
            x = x[..., ::-1]
        x = x + self.noise[(i + r) % 4]
        return np.clip(x, -3.0, 3.0)

    def __call__(self, i: int):
        x = None
        for r in range(self.reps):
            x = self.one(i, r)
        return np.ascontiguousarray(x, dtype=np.float32), self.labels[i % 8]


def _events() -> dict:
    """JAX's compile-phase durations (trace, lowering, backend compile, cache hits)."""
    import jax

    seen: dict = {}

    def on_duration(name, secs, **_):
        seen[name] = seen.get(name, 0.0) + secs

    def on_event(name, **_):
        seen[name] = seen.get(name, 0) + 1

    jax.monitoring.register_event_duration_secs_listener(on_duration)
    jax.monitoring.register_event_listener(on_event)
    return seen


def _patch_flowjob(spec: dict) -> None:
    """Ablations: set ``flowjob._src.ops._conv`` / ``flowjob._src.kernels`` switches, the
    convolution kernel policy (``FLOWJOB_CONV_KERNEL``, read at trace time) and the host
    malloc setting (``FLOWJOB_HOST_MALLOC``) before tracing."""
    from flowjob._src import kernels
    from flowjob._src.ops import _conv

    for name, value in spec.get("conv", {}).items():
        setattr(_conv, name, value)
    for name, value in spec.get("kernels", {}).items():
        setattr(kernels, name, value)
    if "conv_kernel" in spec:
        os.environ["FLOWJOB_CONV_KERNEL"] = spec["conv_kernel"]
    if "host_malloc" in spec:  # read when the first job starts the backend
        os.environ["FLOWJOB_HOST_MALLOC"] = spec["host_malloc"]


def build(spec: dict, prep: Prep | None):
    from . import _models

    engine, model, batch = spec["engine"], spec.get("model", "mlp"), spec.get("batch", 100)
    train = spec.get("train", True)
    if engine == "userop":
        from . import _userop

        return _userop.userop_variant(spec["kernel"], batch)
    if engine in ("pipeline_flowjob", "pipeline_torch", "pipeline_tf"):
        from . import _pipeline

        if engine == "pipeline_flowjob":
            return _pipeline.flowjob_variant(spec["data"])
        if engine == "pipeline_tf":
            return _pipeline.tf_data_variant(spec["data"])
        return _pipeline.torch_dataloader_variant(spec["data"])
    if engine == "experimental":
        from . import _experimental

        return _experimental.experimental_variant(model, batch)
    if engine == "matmul":
        from . import _resnet

        return _resnet.matmul_variant()
    if model == "dcgan":
        from . import _dcgan

        if engine == "flowjob":
            _patch_flowjob(spec)
        return getattr(_dcgan, f"{engine}_variant")(batch)
    if model in ("bert", "face"):
        from . import _bert, _face

        return getattr(_bert if model == "bert" else _face, f"{engine}_variant")(batch)
    if model in ("resnet50", "block_g32", "block_g1"):
        from . import _resnet

        if engine == "flowjob":
            _patch_flowjob(spec)
        if engine == "torch":
            return _resnet.torch_variant(model, batch, _torch_device(spec))
        return getattr(_resnet, f"{engine}_variant")(model, batch)
    if engine == "flowjob":
        _patch_flowjob(spec)
        return _models.flowjob_variant(
            model,
            batch,
            train=train,
            watches=spec.get("watches", False),
            result=spec.get("result", "numpy"),
            devices=spec.get("devices", 1),
            prep=prep,
            device=spec.get("device", "cpu"),
            eager=spec.get("eager", False),
        )
    if engine == "jax":
        return _models.jax_variant(
            model,
            batch,
            layout=spec.get("layout", "nchw_rw"),
            train=train,
            prep=prep,
            product=spec.get("product", "matmul"),
        )
    if engine == "torch":
        return _models.torch_variant(
            model, batch, train=train, prep=prep, device=_torch_device(spec)
        )
    raise ValueError(f"unknown engine {engine!r}")


def _torch_device(spec: dict) -> str:
    return "cuda" if spec.get("device") == "gpu" else "cpu"


def _dumped_modules(dump_dir: str) -> dict[str, str]:
    out = {}
    for path in glob.glob(os.path.join(dump_dir, "*after_optimizations.txt")):
        with open(path) as f:
            out[os.path.basename(path)] = f.read()
    return out


def _main_module(spec: dict) -> str:
    """The step's optimized module: the largest one that takes the image batch (the others
    are initializers and small helper computations; the programs that time a convolution's
    two kernels, ``conv_kernel_race``, take it too)."""
    from . import _resnet

    dump_dir, batch = spec["dump_dir"], spec.get("batch", 100)
    shape = _resnet.MODELS.get(spec.get("model"), ((1, 28, 28),))[0]
    images = f"f32[{batch},{','.join(map(str, shape))}]"
    modules = [
        t
        for t in _dumped_modules(dump_dir).values()
        if images in t[t.find("ENTRY") :].split("\n", 1)[0] and "conv_kernel_race" not in t[:200]
    ]
    return max(modules, key=len) if modules else ""


def _peak_rss_mb() -> float:
    """VmHWM: this process's peak resident memory (ru_maxrss would include the parent's)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _hlo_stats(text: str) -> dict:
    import re

    lines = [ln for ln in text.splitlines() if " = " in ln]
    grad = [ln for ln in lines if re.search(r'op_name="[^"]*(jvp|transpose)\(', ln)]
    count = lambda pat: sum(1 for ln in lines if re.search(pat, ln))  # noqa: E731
    return {
        "instructions": len(lines),
        "gradient_ops": len(grad),
        "convolutions": count(r"\bconvolution\("),
        "dots": count(r"\bdot\("),
        "ynn_fusions": count(r"__ynn_fusion"),
    }


NO_JAX = ("torch", "pipeline_torch", "pipeline_tf")  # engines whose process never loads JAX


def main() -> None:
    spec = json.loads(sys.argv[1])
    if spec.get("engine") not in NO_JAX:
        import jax  # (import time belongs to the engine)

        if spec.get("jax_cache"):  # hand-written JAX with JAX's persistent cache
            jax.config.update("jax_compilation_cache_dir", spec["jax_cache"])
            jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
            jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    if spec.get("engine") == "flowjob":
        import flowjob  # noqa: F401 - as ``import jax`` above: not part of the first call
    events = _events() if spec.get("engine") not in NO_JAX else {}
    t_import = time.perf_counter()
    prep = Prep(spec.get("batch", 100)) if spec.get("prep") else None
    variant = build(spec, prep)
    t_built = time.perf_counter()
    variant.step(0)
    variant.sync()
    # The first call counts from the model's definition: hand-written JAX creates its
    # parameters (and BERT's Adam state) in build(), flowjob draws them in its first call.
    first = time.perf_counter() - t_import
    for i in range(1, spec.get("warmup", 3) + 1):
        variant.step(i)
    variant.sync()
    ready = {
        "ready": True,
        "import_s": t_import - T_START,
        "build_s": t_built - t_import,
        "first_call_s": first,
        "events": dict(events),
        "pid": os.getpid(),
    }
    if prep is not None:
        ready["prep_unit_s"] = _time_prep(prep)
    _emit(ready)
    counter = spec.get("warmup", 3) + 1
    usage = _Usage()
    for line in sys.stdin:
        cmd = json.loads(line)
        if cmd["cmd"] == "run":
            n, lead = cmd["n"], cmd.get("lead", 0)
            if lead:  # untimed, so the timed steps start at full speed (_harness.LEAD)
                _steps(variant, counter, lead)
                counter += lead
            usage.start()
            t0 = time.perf_counter()
            _steps(variant, counter, n)
            s = time.perf_counter() - t0
            usage.stop(n)
            counter += n
            _emit({"s": s, "n": n})
        elif cmd["cmd"] == "warm":  # steps that are neither timed nor counted
            _steps(variant, counter, cmd["n"])
            counter += cmd["n"]
            _emit({"n": cmd["n"]})
        elif cmd["cmd"] == "set":
            prep.reps = cmd["prep_reps"]
            _emit({"ok": True})
        elif cmd["cmd"] == "hlo":
            _emit(_hlo_stats(_main_module(spec)))
        elif cmd["cmd"] == "profile":
            _emit({"rows": _profile(variant, spec, cmd["n"], counter, cmd.get("grouped", False))})
            counter += cmd["n"]
        elif cmd["cmd"] == "onednn":
            _emit({"rows": _onednn(variant, cmd["n"], counter)})
            counter += cmd["n"]
        elif cmd["cmd"] == "quit":
            rss = _peak_rss_mb()
            extra = variant.extra
            _emit(
                {
                    "maxrss_mb": rss,
                    **usage.per_step(),
                    "watch_calls": extra.get("seen", {}).get("calls"),
                    "last_loss": (extra.get("losses") or [None])[-1],
                    "losses": len(extra.get("losses", [])),
                }
            )
            return


class _Usage:
    """Kernel (system) CPU time and minor page faults of this process's timed segments."""

    def __init__(self):
        self.steps, self.sys_s, self.faults, self.major = 0, 0.0, 0, 0
        self._at = None

    def start(self) -> None:
        self._at = resource.getrusage(resource.RUSAGE_SELF)

    def stop(self, steps: int) -> None:
        now = resource.getrusage(resource.RUSAGE_SELF)
        self.steps += steps
        self.sys_s += now.ru_stime - self._at.ru_stime
        self.faults += now.ru_minflt - self._at.ru_minflt
        self.major += now.ru_majflt - self._at.ru_majflt

    def per_step(self) -> dict:
        if not self.steps:
            return {}
        return {
            "timed_steps": self.steps,
            "sys_s_per_step": self.sys_s / self.steps,
            "faults_per_step": self.faults / self.steps,
            "major_faults_per_step": self.major / self.steps,  # pages read back from files
        }


def _time_prep(prep: Prep) -> float:
    times = []
    for i in range(30):
        t0 = time.perf_counter()
        prep.one(i, 0)
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def _profile(variant, spec: dict, n: int, start: int, grouped: bool) -> list:
    from . import _profile

    text = _main_module(spec)
    return _profile.profile(text, lambda: _steps(variant, start, n), n, top=12, grouped=grouped)


def _onednn(variant, n: int, start: int) -> list:
    from . import _profile

    return _profile.onednn_split(lambda: _steps(variant, start, n), n)


def _steps(variant, start: int, n: int) -> None:
    """Steps ``start`` .. ``start + n - 1`` of ``variant``, then waits for all of them."""
    for i in range(start, start + n):
        variant.step(i)
    variant.sync()


if __name__ == "__main__":
    main()
