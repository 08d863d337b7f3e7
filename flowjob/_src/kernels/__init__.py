"""Optional compiled kernels for the CPU, called from the op lowerings through XLA's FFI.

The kernels live in a separately built distribution (``kernels/onednn`` in the repository,
installed as ``flowjob-onednn``); without it every op keeps its XLA lowering. ``FLOWJOB_ONEDNN=0``
in the environment, or ``ENABLED = False`` here, turns the fast path off for comparisons.
"""

import contextlib
from collections.abc import Iterator

from ._choice import ConvKernel, ConvSignature, conv_kernel, forcing, policy, recording
from ._onednn import conv2d_onednn, conv2d_transpose_onednn, onednn_available
from ._platform import (
    lowering_differentiated,
    lowering_for,
    lowering_platform,
    shapes_only,
    tracing_shapes,
)
from ._step_choice import judge_step, step_needs_judging

ENABLED = True

__all__ = [
    "ENABLED",
    "ConvKernel",
    "ConvSignature",
    "conv2d_onednn",
    "conv2d_transpose_onednn",
    "conv_kernel",
    "forcing",
    "judge_step",
    "lowering_differentiated",
    "lowering_for",
    "lowering_platform",
    "onednn_available",
    "policy",
    "portable",
    "recording",
    "shapes_only",
    "step_needs_judging",
    "tracing_shapes",
]


@contextlib.contextmanager
def portable() -> Iterator[None]:
    """Programs traced inside use XLA's lowerings only: a program that leaves the process
    (``jax.export``) cannot carry a custom call whose library the loader may not have."""
    global ENABLED
    saved, ENABLED = ENABLED, False
    try:
        yield
    finally:
        ENABLED = saved
