"""Per-HLO-op time of a compiled JAX step, from JAX's own profiler (no extra dependencies).

``profile(compiled_text, run, steps)`` traces ``run()`` (which must block), reads the XSpace
file back with ``jax.profiler.ProfileData`` and sums the time of every XLA thunk by name,
over all threads, per step. Each row is labelled with the op's result shape and the JAX
operation it came from (the ``op_name`` metadata of the optimized HLO), so a row reads e.g.
``ynn_fusion.1  f32[32,5,5,64]  transpose(jvp())/conv_general_dilated``: a weight gradient.
"""

from __future__ import annotations

import collections
import glob
import re
import tempfile
from collections.abc import Callable

_DEF = re.compile(r"^\s*(?:ROOT )?%([\w.\-]+) = (\S+?)(?:\{[^}]*\})? ([\w\-]+)\((.*)$")
_OPNAME = re.compile(r'op_name="([^"]+)"')
_CALLS = re.compile(r"calls=%([\w.\-]+)")


def hlo_index(text: str) -> dict[str, tuple[str, str]]:
    """Instruction name -> (result shape, jax op_name) for every instruction of ``text``.

    A fusion without its own metadata takes the op_name of its computation's root."""
    info: dict[str, tuple[str, str]] = {}
    calls: dict[str, str] = {}
    roots: dict[str, str] = {}
    current = None
    for line in text.splitlines():
        if line and not line.startswith(" ") and "{" in line:
            current = line.split(" ")[0].lstrip("%")
            continue
        m = _DEF.match(line)
        if not m:
            continue
        name, shape, _opcode, rest = m.groups()
        op = _OPNAME.search(rest)
        info[name] = (shape, op.group(1) if op else "")
        c = _CALLS.search(rest)
        if c:
            calls[name] = c.group(1)
        if line.lstrip().startswith("ROOT") and current:
            roots[current] = name
    for name, comp in calls.items():
        shape, op = info[name]
        if not op and comp in roots:
            info[name] = (shape, info.get(roots[comp], ("", ""))[1])
    return info


def profile(
    compiled_text: str, run: Callable[[], None], steps: int, top: int = 15, grouped: bool = False
) -> list[tuple[float, str, str, str]]:
    """Rows ``(ms per step over all threads, thunk, shape, jax op)``, largest first.

    ``grouped``: thunks of the same kind, result shape and jax op are summed into one row
    named ``kind ×count`` (e.g. 32 per-group convolutions of a grouped convolution); the
    last row is then the total of all thunks."""
    import jax
    from jax.profiler import ProfileData

    with tempfile.TemporaryDirectory() as d:
        jax.profiler.start_trace(d)
        try:
            run()
        finally:
            jax.profiler.stop_trace()
        path = glob.glob(f"{d}/**/*.xplane.pb", recursive=True)[0]
        data = ProfileData.from_file(path)
    index = hlo_index(compiled_text)
    total: collections.Counter = collections.Counter()
    for plane in data.planes:
        for line in plane.lines:
            for ev in line.events:
                if ev.name in index:
                    total[ev.name] += ev.duration_ns
    if grouped:
        groups: collections.Counter = collections.Counter()
        counts: collections.Counter = collections.Counter()
        for name, ns in total.items():
            key = (re.sub(r"\.\d+$", "", name),) + index[name]
            groups[key] += ns
            counts[key] += 1
        rows = [
            (
                ns / 1e6 / steps,
                f"{kind} ×{counts[kind, shape, op]}",
                shape,
                re.sub(r"^jit\([^)]*\)/", "", op),
            )
            for (kind, shape, op), ns in groups.most_common(top)
        ]
        return rows + [(sum(total.values()) / 1e6 / steps, "all thunks", "", "")]
    rows = []
    for name, ns in total.most_common(top):
        shape, op = index[name]
        op = re.sub(r"^jit\([^)]*\)/", "", op)
        rows.append((ns / 1e6 / steps, name, shape, op))
    return rows


def format_rows(rows: list[tuple[float, str, str, str]]) -> str:
    return "\n".join(
        f"| {ms:.1f} | `{name}` | `{shape}` | `{op}` |" for ms, name, shape, op in rows
    )


# oneDNN's verbose "exec" lines: onednn_verbose,exec,cpu,<primitive>,<impl>,<prop>,<memory
# descriptors>,<attributes>,<aux>,<problem>,<ms>
_ONEDNN_LABELS = {
    ("convolution", "forward_training"): "convolution, forward",
    ("convolution", "forward_inference"): "convolution, forward",
    ("convolution", "backward_data"): "convolution, backward data",
    ("convolution", "backward_weights"): "convolution, backward weights",
}


def onednn_label(fields: list[str]) -> str:
    """What one oneDNN primitive execution did; reorders by direction: into oneDNN's
    blocked layout (the destination's format tag has block letters or sizes, ``aBcd16b``) or
    back to a plain one (``abcd``), the layout XLA's buffers have."""
    kind, prop, mds = fields[3], fields[5], fields[6]
    if kind == "reorder":
        dst = next((m for m in mds.split() if m.startswith("dst_")), "")
        tag = dst.split(":")[3] if dst.count(":") >= 3 else ""
        plain = tag.isalpha() and tag.islower()
        return (
            "reorder back to the caller's plain layout"
            if plain
            else "reorder into oneDNN's blocked layout"
        )
    return _ONEDNN_LABELS.get((kind, prop), f"{kind}, {prop}")


def onednn_split(run: Callable[[], None], steps: int) -> list[tuple[str, float, float]]:
    """Rows ``(what, ms per step, executions per step)`` of oneDNN's own time while ``run()``
    runs (which must block), from oneDNN's verbose mode switched on for it alone; largest
    first. Empty where flowjob's oneDNN kernels are not installed or ran nothing.

    oneDNN writes its verbose lines to the C ``stdout``, the worker's channel to the parent:
    file descriptor 1 points at a temporary file meanwhile."""
    import ctypes
    import os
    import sys

    try:
        import flowjob_onednn

        dnnl = ctypes.CDLL(flowjob_onednn.runtime_libraries()[0])
    except (ImportError, IndexError, OSError):
        return []
    libc = ctypes.CDLL(None)
    with tempfile.TemporaryFile(mode="w+") as out:
        sys.stdout.flush()
        libc.fflush(None)
        saved = os.dup(1)
        os.dup2(out.fileno(), 1)
        try:
            dnnl.dnnl_set_verbose(2)  # 2: creation and execution, with times
            try:
                run()
            finally:
                dnnl.dnnl_set_verbose(0)
                libc.fflush(None)
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        out.seek(0)
        ms: collections.Counter = collections.Counter()
        calls: collections.Counter = collections.Counter()
        for line in out:
            fields = line.rstrip("\n").split(",")
            if len(fields) < 11 or fields[:2] != ["onednn_verbose", "exec"]:
                continue
            label = onednn_label(fields)
            ms[label] += float(fields[-1])
            calls[label] += 1
    return [(k, v / steps, calls[k] / steps) for k, v in ms.most_common()]
