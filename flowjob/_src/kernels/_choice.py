"""Which kernel serves a convolution, oneDNN's or XLA's: :func:`conv_kernel`, the whole policy.

oneDNN serves only float32 2-D convolutions in programs traced for the CPU, with the kernels
installed (``_onednn``); among those, it is measured on this machine.

Neither wins everywhere, and the winner depends on the CPU: on the AMD EPYC machine of
``BENCHMARKS.md`` oneDNN served ResNet-50's convolutions faster than XLA, on a 2-core Intel
Xeon XLA's ran LeNet faster (issue 35), and below 32 products per output element oneDNN lost
on both. A fixed rule cannot follow the machine, so the first time a job traces a convolution
(its shapes, strides, padding, dilation, groups and layout), both candidates run its forward
pass and both gradients on random data, a few times each, alternating; the faster one serves
that convolution from then on (XLA's only by a margin, :data:`XLA_MARGIN`). In a
forward-only (predict) program, its forward pass with a bias and ReLU after it is raced
instead, and decided apart (:data:`FORWARD_XLA_MARGIN`). Decisions are
kept in memory and in one file per machine, ``$XDG_CACHE_HOME/flowjob/conv-kernels.json``
(``FLOWJOB_CONV_KERNEL_FILE`` names another; empty: memory only), keyed by the CPU model, its
core count, the versions of JAX and of the kernels and the race's rule, so later processes
measure nothing: only the first run on a machine pays, once per convolution (LeNet about 2.5 s,
ResNet-50 about 12 s on the 2-core machine of ``BENCHMARKS.md``).

``FLOWJOB_CONV_KERNEL`` chooses the policy: ``measure`` (default), ``onednn`` or ``xla``
(always that one, where oneDNN can serve the convolution at all), or ``rule`` (oneDNN from
:data:`MIN_REDUCTION` products per output element, no measurement: the rule before measuring).
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import json
import math
import os
import platform
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import jax
import numpy as np

from .._cache_dir import default_cache_dir
from .._files import atomic_file, read_bounded
from ._onednn import conv2d_onednn, conv2d_transpose_onednn, onednn_available
from ._platform import lowering_differentiated, lowering_platform, shapes_only

__all__ = [
    "POLICIES",
    "ConvKernel",
    "ConvSignature",
    "conv_kernel",
    "forcing",
    "policy",
    "recording",
]

POLICIES = ("measure", "onednn", "xla", "rule")
FILE_NAME = "conv-kernels.json"
_FILE_LIMIT = 4 << 20  # bytes: far more decisions than any set of models makes
_REPEATS = 3  # timed samples of each candidate after its first (compiling) run
_SAMPLE_S = 0.005  # seconds: a sample of a shorter run averages several
# XLA serves only when its race time is below this share of oneDNN's. A race times one
# convolution alone; inside a whole step, XLA's winners by less than that lost: ResNet-50 batch
# 8 ran at 0.83-0.88x the all-oneDNN job in four runs with a margin of 0.85, where its three
# stride-2 1x1 projections raced at 0.63-0.74x oneDNN's time, and at 0.99x with this margin
# (bench/NOTES.md, issue 35).
XLA_MARGIN = 0.6
# A forward-only (predict) program's convolution races its forward pass followed by a bias
# and ReLU, as layers use it (XLA fuses them, oneDNN's call leaves them to a second pass),
# and the faster one serves, no margin: at batch 1, LeNet's predict program with XLA's
# convolutions ran 1.2x the one with oneDNN's, which the race of forward and gradients had
# chosen (bench/NOTES.md, issue 35).
FORWARD_XLA_MARGIN = 1.0
# Part of every decision's key: a change to how races are run or judged (the margin, the
# repeats) bumps it, so decisions made under an older rule are measured again.
RULE_VERSION = 4
# Policy ``rule`` (``measure`` times both instead): below this many products per output
# element (input channels per group x kernel area) oneDNN lost to XLA: LeNet's first
# convolution (1 channel, 5x5: 25) forward + both gradients took 1.7-2x XLA's time, ResNet-50's
# stem (3 channels, 7x7: 147) 0.3-0.45x (bench/NOTES.md).
MIN_REDUCTION = 32
_lock = threading.Lock()
_decisions: dict[str, bool] = {}  # key -> oneDNN chosen; this process's and the file's


class ConvKernel(enum.Enum):
    """The kernel that serves a convolution (values spelled as ``FLOWJOB_CONV_KERNEL``'s)."""

    ONEDNN = "onednn"
    XLA = "xla"


@dataclasses.dataclass(frozen=True)
class ConvSignature:
    """A 2-D convolution as the kernel choice sees it. ``x_shape``/``w_shape`` are
    (NCHW, OIHW) or (NHWC, OHWI) per ``data_format``; ``dtype`` is the operands' (``None``
    when they differ); ``platform`` the one the program is traced for."""

    x_shape: tuple
    w_shape: tuple
    strides: tuple[int, ...]
    pads: tuple[tuple[int, int], ...]
    dilations: tuple[int, ...]
    groups: int
    data_format: str
    dtype: np.dtype | None
    platform: str
    differentiated: bool = True  # False: a forward-only (predict) program
    # A transposed convolution's output shape (its input is ``x_shape``, its weight the
    # convolution's from that output to ``x_shape``); None: a convolution.
    transposed_to: tuple | None = None

    @classmethod
    def of(
        cls, x, w, *, strides, pads, dilations, groups, data_format, transposed_to=None
    ) -> ConvSignature:
        """The signature of convolving ``x`` with ``w`` (arrays or tracers), or with
        ``transposed_to`` the output shape, of the transposed convolution of ``x`` with ``w``,
        in the program being traced on this thread (:func:`lowering_platform`,
        :func:`lowering_differentiated`)."""
        dtype = np.dtype(x.dtype) if x.dtype == w.dtype else None
        pads = tuple(map(tuple, pads))
        args = (tuple(strides), pads, tuple(dilations), groups, data_format)
        transposed_to = None if transposed_to is None else tuple(transposed_to)
        return cls(
            tuple(x.shape), tuple(w.shape), *args, dtype, lowering_platform(),
            lowering_differentiated(), transposed_to,
        )  # fmt: skip

    @property
    def settings(self) -> tuple:
        """``(strides, pads, dilations, groups, data_format)``: the trailing arguments of
        :func:`conv2d_onednn` and of the XLA convolution given to :func:`conv_kernel`."""
        return (self.strides, self.pads, self.dilations, self.groups, self.data_format)


def conv_kernel(
    signature: ConvSignature, xla: Callable[[jax.Array, jax.Array], jax.Array]
) -> ConvKernel:
    """Which kernel serves the convolution ``signature``: oneDNN's only for a float32 2-D
    convolution traced for the CPU (never a GPU program: a CPU-only FFI target) with the
    kernels installed and enabled, and then as :func:`policy` says; under ``measure`` the
    decision kept for this machine, else a race of oneDNN against ``xla`` (XLA's convolution
    of ``(x, w)`` with the signature's settings) on random data, announced on stderr once per
    process.

    >>> from flowjob._src.kernels import ConvKernel, ConvSignature, conv_kernel, lowering_for
    >>> x, w = np.ones((1, 3, 8, 8), np.float32), np.ones((4, 3, 3, 3), np.float32)
    >>> settings = dict(strides=(1, 1), pads=((0, 0), (0, 0)), dilations=(1, 1), groups=1)
    >>> with lowering_for("gpu"):
    ...     sig = ConvSignature.of(x, w, data_format="NCHW", **settings)
    >>> conv_kernel(sig, lambda a, b: jax.lax.conv(a, b, (1, 1), "VALID")) is ConvKernel.XLA
    True
    """
    s = signature
    if not (len(s.x_shape) == 4 and s.dtype == np.float32 and s.platform == "cpu"):
        return ConvKernel.XLA
    chosen = policy()
    products = math.prod(s.w_shape) // max(s.w_shape[0], 1)  # per output element
    if chosen == "xla" or (chosen == "rule" and products < MIN_REDUCTION):
        return ConvKernel.XLA
    if not onednn_available():
        return ConvKernel.XLA
    forced = getattr(_local, "forced", None)
    if forced is not None:  # a whole step timed with one kernel (_step_choice)
        return forced
    if chosen == "measure" and shapes_only():  # either gives the shapes: race when it runs
        return ConvKernel.XLA
    if chosen == "measure":
        kind = "conv2d" if s.transposed_to is None else "conv2d transposed"
        kind += "" if s.differentiated else " forward"
        key = (kind, s.x_shape, s.w_shape, *s.settings)
        if s.transposed_to is not None:
            key += (s.transposed_to,)
        margin = XLA_MARGIN if s.differentiated else FORWARD_XLA_MARGIN
        onednn = _prefer_onednn(key, lambda: _candidates(s, xla), margin)
        record = getattr(_local, "record", None)
        if record is not None:
            record.append((decision_key(key), onednn))
        if not onednn:
            return ConvKernel.XLA
    return ConvKernel.ONEDNN


_local = threading.local()  # this thread's forced kernel and record of decisions


@contextlib.contextmanager
def forcing(kernel: ConvKernel) -> Iterator[None]:
    """Every convolution traced inside on this thread that oneDNN can serve takes ``kernel``,
    whatever was decided for it."""
    saved, _local.forced = getattr(_local, "forced", None), kernel
    try:
        yield
    finally:
        _local.forced = saved


@contextlib.contextmanager
def recording() -> Iterator[list[tuple[str, bool]]]:
    """The measured decisions the convolutions traced inside on this thread took, as
    ``(decision key, oneDNN chosen)``, in a list that fills while tracing."""
    saved, _local.record = getattr(_local, "record", None), []
    try:
        yield _local.record
    finally:
        _local.record = saved


def decision_key(signature: tuple) -> str:
    """The key of a decision in memory and in the machine's file: the machine's and the
    versions' words, then ``signature``'s parts."""
    return f"{_machine()}|{'|'.join(map(_text, signature))}"


def decided(key: str) -> bool | None:
    """The decision kept under ``key`` (this process's, else the file's), or None."""
    with _lock:
        if not _decisions:
            _decisions.update(_stored())
        return _decisions.get(key)


def decide(key: str, onednn: bool) -> None:
    """Keeps ``onednn`` under ``key``, in memory and in the machine's file."""
    with _lock:
        _decisions[key] = onednn
        _store(key, onednn)


def policy() -> str:
    """``FLOWJOB_CONV_KERNEL``, checked: one of :data:`POLICIES`."""
    value = os.environ.get("FLOWJOB_CONV_KERNEL", "measure").strip().lower() or "measure"
    if value not in POLICIES:
        raise ValueError(f"FLOWJOB_CONV_KERNEL must be one of {POLICIES}, got {value!r}")
    return value


def _prefer_onednn(
    signature: tuple,
    candidates: Callable[[], tuple[Callable[[], Any], Callable[[], Any]]],
    margin: float = XLA_MARGIN,
) -> bool:
    """Whether oneDNN serves the convolution ``signature`` (its shapes and settings, the
    decision's key) under the ``measure`` policy. ``candidates()`` gives two callables that each
    run the convolution once as the program uses it, oneDNN's then XLA's, and return when
    done; they are called only when no decision exists yet. XLA serves when its time is below
    ``margin`` times oneDNN's."""
    key = decision_key(signature)
    kept = decided(key)
    if kept is not None:
        return kept
    _announce()
    onednn_s, xla_s = race(*candidates())
    chosen = not xla_s < margin * onednn_s
    decide(key, chosen)
    return chosen


_announced: list[bool] = []


def _announce() -> None:
    """One line on stderr the first time this process races: the pause it makes (seconds
    per new convolution) is otherwise silent."""
    if not _announced:
        _announced.append(True)
        print(
            "flowjob: timing oneDNN and XLA on each new convolution shape, once per machine "
            f"(kept in {_path() or 'memory'}; FLOWJOB_CONV_KERNEL=rule skips it)",
            file=sys.stderr,
        )


def _candidates(
    s: ConvSignature, xla: Callable[[jax.Array, jax.Array], jax.Array]
) -> tuple[Callable[[], Any], Callable[[], Any]]:
    """oneDNN's and XLA's convolution (or transposed convolution) as the program uses it, each
    a callable that runs it once on random data: the forward pass and both gradients, or in a
    forward-only program the forward pass with a bias and ReLU after it."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(s.x_shape, dtype=np.float32)
    w = rng.standard_normal(s.w_shape, dtype=np.float32)
    out = jax.eval_shape(xla, x, w).shape
    if s.differentiated:  # the output's gradient
        third = rng.standard_normal(out, dtype=np.float32)
    else:  # a bias along the output channels
        channel = 1 if _text(s.data_format).startswith("NC") else len(out) - 1
        third = rng.standard_normal(out[channel], dtype=np.float32)
        third = third.reshape([-1 if axis == channel else 1 for axis in range(len(out))])

    def program(conv: Callable) -> Callable[[], Any]:
        def conv_kernel_race(a, b, g):  # the name marks its program in XLA's dumps
            if not s.differentiated:
                return jax.nn.relu(conv(a, b) + g)
            return jax.vjp(conv, a, b)[1](g)

        step = jax.jit(conv_kernel_race)

        def run():
            # Measured while a job is being traced: run now, do not stage into its program.
            with jax.ensure_compile_time_eval():
                return jax.block_until_ready(step(x, w, third))

        return run

    if s.transposed_to is None:
        onednn = lambda a, b: conv2d_onednn(a, b, *s.settings)  # noqa: E731
    else:
        onednn = lambda a, b: conv2d_transpose_onednn(a, b, s.transposed_to, *s.settings)  # noqa: E731
    return program(onednn), program(xla)


def race(first: Callable[[], Any], second: Callable[[], Any]) -> tuple[float, float]:
    """The best time of one run of each callable over :data:`_REPEATS` alternating samples,
    after one untimed run each (which compiles it). A sample of a run shorter than
    :data:`_SAMPLE_S` averages as many runs as fill it: one run of a small convolution takes
    tens of microseconds, less than the machine's noise."""
    runs = []
    for run in (first, second):
        run()
        start = time.perf_counter()
        run()
        runs.append(max(1, math.ceil(_SAMPLE_S / max(time.perf_counter() - start, 1e-7))))
    best = [float("inf"), float("inf")]
    for _ in range(_REPEATS):
        for i, run in enumerate((first, second)):
            start = time.perf_counter()
            for _ in range(runs[i]):
                run()
            best[i] = min(best[i], (time.perf_counter() - start) / runs[i])
    return best[0], best[1]


def _text(part: Any) -> str:
    return str(getattr(part, "value", part))  # enum members by their value


def _machine() -> str:
    from importlib import metadata

    import jax

    try:
        kernels = metadata.version("flowjob-onednn")
    except metadata.PackageNotFoundError:
        kernels = "-"
    version = f"jax {jax.__version__}|onednn {kernels}|race v{RULE_VERSION}"
    return f"{_cpu_model()} x{os.cpu_count()}|{version}"


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _path() -> str | None:
    """``FLOWJOB_CONV_KERNEL_FILE`` (empty: decisions in memory only), else
    ``conv-kernels.json`` in ``$XDG_CACHE_HOME/flowjob``: one file per machine, whatever the
    compile cache (``FLOWJOB_CACHE_DIR``) is, so a process with a fresh or no compile cache
    still knows this machine's kernels."""
    named = os.environ.get("FLOWJOB_CONV_KERNEL_FILE")
    if named is not None:
        return named or None
    return os.path.join(os.path.dirname(default_cache_dir()), FILE_NAME)


def _stored() -> dict[str, bool]:
    """The file's decisions; nothing when it is missing or unreadable (then they are measured
    again and the file rewritten)."""
    path = _path()
    if path is None or not os.path.exists(path):
        return {}
    try:
        data = json.loads(read_bounded(path, _FILE_LIMIT))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, bool)}


def _store(key: str, chosen: bool) -> None:
    path = _path()
    if path is None:
        return
    merged = {**_stored(), key: chosen}  # another process may have added its own
    try:
        with atomic_file(path) as f:
            f.write(json.dumps(merged, indent=0, sort_keys=True).encode())
    except OSError:  # a read-only cache folder: the decision stays in memory
        pass
