"""Scopes active while a job body is traced: namespaces, placements, logical views, SBP."""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass

from .. import _devices
from .._enum import Mode

_local = threading.local()


def _get(name: str) -> list:
    if not hasattr(_local, name):
        setattr(_local, name, [])
    return getattr(_local, name)


# -- namespaces ---------------------------------------------------------------------------
def current_namespace() -> tuple[str, ...]:
    return tuple(_get("namespaces"))


@contextlib.contextmanager
def namespace(name: str) -> Iterator[None]:
    """Prefixes the names of ops and variables created inside with ``<name>-``."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"namespace name must be a non-empty str, got {name!r}")
    stack = _get("namespaces")
    stack.append(name)
    try:
        yield
    finally:
        stack.pop()


# -- placements ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Placement:
    """Device ranges like ``"0:0-3"`` per machine, the tag the program named ("cpu"/"gpu")
    and OneFlow's ``hierarchy``: the shape of the device mesh (``(2, 2)``: 4 devices as 2
    groups of 2; ``None``: one axis)."""

    requested_tag: str
    machine_device_ids: tuple[str, ...]
    hierarchy: tuple[int, ...] | None = None

    @property
    def device_tag(self) -> str:
        """The tag the ops run with: "gpu" runs on the CPU where JAX finds no GPU. Asked
        while a job is traced (when its devices are fixed), never when the scope is made, so
        that making a placement starts no JAX backend."""
        return _normalise_tag(self.requested_tag)

    def device_ids(self) -> list[tuple[int, int]]:
        """(machine, device) pairs named by the placement strings."""
        out = []
        for spec in self.machine_device_ids:
            machine, _, devices = spec.partition(":")
            first, _, last = devices.partition("-")
            for d in range(int(first), int(last or first) + 1):
                out.append((int(machine), d))
        return out


@dataclass(frozen=True)
class ParallelConf:
    """Where a blob's op is placed, as OneFlow's ``blob.parallel_conf`` answers: the device
    tag the program named (a "gpu" placement keeps its tag when it runs on the CPU) and the
    placement strings."""

    tag: str
    names: tuple[str, ...]

    def device_tag(self) -> str:
        return self.tag

    def device_name(self) -> list[str]:
        return list(self.names)


def _check_tag(device_tag: str) -> str:
    if device_tag not in ("cpu", "gpu"):
        raise ValueError(f"device tag must be 'cpu' or 'gpu', got {device_tag!r}")
    return device_tag


def _normalise_tag(device_tag: str) -> str:
    if device_tag == "gpu" and not _devices.gpu_available():
        if not _NOTICE_SHOWN:
            _notice_once()
        return "cpu"
    return device_tag


_NOTICE_SHOWN = False


def _notice_once() -> None:
    global _NOTICE_SHOWN
    _NOTICE_SHOWN = True
    print('INFO: no GPU found; "gpu" placements run on the CPU', file=sys.stderr)


def _parse_ids(machine_device_ids: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    if isinstance(machine_device_ids, str):
        machine_device_ids = [machine_device_ids]
    ids = tuple(machine_device_ids)
    for spec in ids:
        machine, sep, devices = str(spec).partition(":")
        first, _, last = devices.partition("-")
        ok = sep and machine.isdigit() and first.isdigit() and (not last or last.isdigit())
        if not ok or (last and int(last) < int(first)):
            raise ValueError(
                f"placement {spec!r} is not of the form '<machine>:<device>' or "
                "'<machine>:<first>-<last>' (e.g. '0:0' or '0:0-3')"
            )
    return ids


def _parse_hierarchy(hierarchy: object, ids: tuple[str, ...]) -> tuple[int, ...] | None:
    if hierarchy is None:
        return None
    try:
        shape = tuple(hierarchy)  # type: ignore[call-overload]
    except TypeError:
        shape = ()
    count = len(Placement("cpu", ids).device_ids())
    if not shape or any(type(n) is not int or n < 1 for n in shape):
        raise ValueError(
            f"placement hierarchy must be a list of ints >= 1 (e.g. [2, 2]), got {hierarchy!r}"
        )
    size = 1
    for n in shape:
        size *= n
    if size != count:
        raise ValueError(
            f"placement hierarchy {list(shape)} holds {size} devices, but {list(ids)} names {count}"
        )
    return shape


class placement(contextlib.ContextDecorator):  # noqa: N801 - OneFlow's spelling
    """``with flow.scope.placement("cpu", "0:0"):`` places the ops created inside;
    ``hierarchy=[a, b]`` arranges its devices as an ``a x b`` mesh for 2-D SBP
    (``flow.hierarchical_parallel_cast``)."""

    def __init__(
        self, device_tag: str, machine_device_ids: str | list[str] = "0:0", hierarchy: object = None
    ):
        ids = _parse_ids(machine_device_ids)
        self.placement = Placement(_check_tag(device_tag), ids, _parse_hierarchy(hierarchy, ids))
        self.hierarchy = self.placement.hierarchy

    def __enter__(self) -> placement:
        _get("placements").append(self.placement)
        return self

    def __exit__(self, *exc) -> None:
        _get("placements").pop()


def current_placement() -> Placement | None:
    stack = _get("placements")
    return stack[-1] if stack else None


def current_device_tag() -> str:
    p = current_placement()
    return p.device_tag if p else "cpu"


# -- logical views and SBP ----------------------------------------------------------------
class View(Mode):
    CONSISTENT = "consistent"  # one global view; GSPMD splits the batch among devices
    MIRRORED = "mirrored"  # each device runs the body on its own piece


@dataclass(frozen=True)
class LogicalView:
    name: View


def consistent_view() -> LogicalView:
    return LogicalView(View.CONSISTENT)


def mirrored_view() -> LogicalView:
    return LogicalView(View.MIRRORED)


class Sbp(Mode):
    SPLIT = "split"
    BROADCAST = "broadcast"
    AUTO = "auto"


@dataclass(frozen=True)
class Distribute:
    """An SBP annotation: ``split(axis)``, ``broadcast()`` or ``auto()``."""

    kind: Sbp
    axis: int | None = None

    def __repr__(self) -> str:
        return f"S({self.axis})" if self.kind is Sbp.SPLIT else self.kind.upper()[0]


def split(axis: int) -> Distribute:
    if not isinstance(axis, int):
        raise TypeError(f"split axis must be an int, got {axis!r}")
    return Distribute(Sbp.SPLIT, axis)


def broadcast() -> Distribute:
    return Distribute(Sbp.BROADCAST)


def auto() -> Distribute:
    return Distribute(Sbp.AUTO)


# -- 2-D SBP (OneFlow's parallel_distribution: one entry per axis of a placement hierarchy) --
def parse_parallel_distribution(
    entries: object, ndim: int, where: str
) -> tuple[Distribute | None, ...]:
    """``["S(0)", "B", "P"]`` -> one ``Distribute`` per mesh axis (``None`` for ``"P"``, a
    partial sum: in flowjob a value is always whole, so it places like ``"B"``)."""
    if isinstance(entries, str) or not isinstance(entries, (list, tuple)) or not entries:
        raise ValueError(
            f"{where}: parallel_distribution must be a non-empty list such as ['S(0)', 'B'], "
            f"got {entries!r}"
        )
    out: list[Distribute | None] = []
    for entry in entries:
        text = str(entry).replace(" ", "")
        if text == "B":
            out.append(broadcast())
        elif text == "P":
            out.append(None)
        elif text.startswith("S(") and text.endswith(")") and text[2:-1].lstrip("-").isdigit():
            axis = int(text[2:-1])
            if not -ndim <= axis < max(ndim, 1):
                raise ValueError(f"{where}: {entry!r} splits axis {axis} of a {ndim}-d blob")
            out.append(split(axis % max(ndim, 1)))
        else:
            raise ValueError(f"{where}: {entry!r} is not 'S(<axis>)', 'B' or 'P'")
    return tuple(out)


# -- scope attributes (flow.experimental.scope.config) ------------------------------------
# OneFlow's registered scope attributes and their defaults: ops read them while traced.
SCOPE_ATTR_DEFAULTS: dict[str, bool | int] = {
    # recompute activations in the backward pass to save memory: no value changes
    "checkpointing": False,
    "pipeline_stage_id_hint": 0,  # a placement hint for pipelining: no value changes
    "quantization_aware_training": True,
    "ssp_num_stages": -1,
    "ssp_stage_id": -1,
}


@contextlib.contextmanager
def scope_config(**attrs: bool | int) -> Iterator[None]:
    """Sets scope attributes for the ops created inside (``quantization_aware_training=False``
    leaves them out of the QAT rewrite; ``ssp_num_stages``/``ssp_stage_id`` give their
    variables' staleness under SSP training)."""
    for key, value in attrs.items():
        if key not in SCOPE_ATTR_DEFAULTS:
            raise ValueError(
                f"flow.experimental.scope.config: unknown scope attribute {key!r} (known: "
                f"{sorted(SCOPE_ATTR_DEFAULTS)})"
            )
        if type(value) is not type(SCOPE_ATTR_DEFAULTS[key]):
            raise TypeError(
                f"flow.experimental.scope.config: {key} takes a "
                f"{type(SCOPE_ATTR_DEFAULTS[key]).__name__}, got {value!r}"
            )
    stack = _get("scope_attrs")
    stack.append(attrs)
    try:
        yield
    finally:
        stack.pop()


def scope_attr(key: str) -> bool | int:
    """The innermost ``scope_config`` value of ``key``, else its default."""
    for attrs in reversed(_get("scope_attrs")):
        if key in attrs:
            return attrs[key]
    return SCOPE_ATTR_DEFAULTS[key]
