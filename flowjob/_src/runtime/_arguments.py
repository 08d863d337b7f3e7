"""Checking and copying the NumPy arguments of a job call against its placeholders."""

from __future__ import annotations

import weakref
from typing import Any

import jax.numpy as jnp
import numpy as np

from ..errors import JobArgumentError
from ..graph import TensorList
from ..typing import ArgBlobDef


def _fail(job: str, where: str, message: str) -> JobArgumentError:
    return JobArgumentError(f"job {job!r}, argument {where}: {message}")


_ALIGN = 64


def _aligned_empty(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """A C-ordered array on a 64-byte boundary: XLA:CPU uses such a buffer in place instead of
    copying it once more (NumPy's own allocations are only 16-byte aligned)."""
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.empty(nbytes + _ALIGN, np.uint8)
    offset = -raw.ctypes.data % _ALIGN
    return raw[offset : offset + nbytes].view(dtype).reshape(shape)


def _aligned_copy(value: np.ndarray, dtype: np.dtype) -> np.ndarray:
    out = _aligned_empty(value.shape, dtype)
    np.copyto(out, value, casting="unsafe")  # the kind and range were checked above
    return out


class StagingPool:
    """Aligned buffers for the private argument copies of one job, reused once the call that
    used them has completed: a fresh buffer per call costs an allocation (and page faults for
    large ones) on top of the copy itself."""

    def __init__(self, keep: int = 4):
        self._free: dict[tuple[tuple[int, ...], np.dtype], list[np.ndarray]] = {}
        self._keep = keep
        # the copies handed out and not yet taken back: only those are ever reused (a call's
        # other host values, such as its data pipeline's batches, may be held by the caller)
        self._out: weakref.WeakValueDictionary[int, np.ndarray] = weakref.WeakValueDictionary()

    def copy(self, value: np.ndarray) -> np.ndarray:
        try:
            out = self._free[value.shape, value.dtype].pop()
        except (KeyError, IndexError):
            out = _aligned_empty(value.shape, value.dtype)
        np.copyto(out, value)
        self._out[id(out)] = out
        return out

    def recycle(self, arrays: list[Any]) -> None:
        """Takes back the copies of a completed call (nothing else may refer to them)."""
        for a in arrays:
            if self._out.pop(id(a), None) is not a:  # not one of this pool's copies
                continue
            free = self._free.setdefault((a.shape, a.dtype), [])
            if len(free) < self._keep:
                free.append(a)


def _check_array(
    job: str, where: str, value: Any, d: ArgBlobDef, private: bool = True
) -> np.ndarray:
    if not isinstance(value, np.ndarray):
        raise _fail(
            job,
            where,
            f"expected a numpy.ndarray of shape {d.shape} and dtype "
            f"{d.dtype.name}, got {type(value).__name__}",
        )
    if d.is_dynamic:
        if value.ndim != len(d.shape) or any(a > m for a, m in zip(value.shape, d.shape)):
            raise _fail(
                job,
                where,
                f"expected an array of rank {len(d.shape)} no larger than "
                f"the declared maximum shape {d.shape}, got shape "
                f"{value.shape}",
            )
    elif value.shape != d.shape:
        raise _fail(job, where, f"expected shape {d.shape}, got {value.shape}")
    want = d.dtype.np_dtype
    if value.dtype != want:
        # np.can_cast lets ml_dtypes' bfloat16 accept complex; allow only real numbers.
        real = value.dtype.kind in "biuf" or value.dtype == jnp.bfloat16
        if not real or not np.can_cast(value.dtype, want, casting="same_kind"):
            raise _fail(
                job,
                where,
                f"expected dtype {d.dtype.name}, got {value.dtype} (only "
                "same-kind casts such as float64 -> float32 are applied)",
            )
        if want.kind in "iu" and value.size and not np.can_cast(value.dtype, want, "safe"):
            info = np.iinfo(want)
            low, high = value.min(), value.max()
            if low < info.min or high > info.max:
                raise _fail(
                    job,
                    where,
                    f"values {low}..{high} do not fit dtype "
                    f"{d.dtype.name} ({info.min}..{info.max})",
                )
    if private:  # the caller may reuse its buffer while the call is in flight
        return _aligned_copy(value, want)
    return np.asarray(value, dtype=want, order="C")


def _check_tensor_list(job: str, where: str, value: Any, d: ArgBlobDef, pieces: int) -> Any:
    """A ``tp.ListListNumpy`` argument: one list of arrays per device, as a ``TensorList``."""
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, (list, tuple)) for v in value):
        raise _fail(
            job,
            where,
            "a tp.ListListNumpy.Placeholder takes a list (one per device) of lists "
            f"of numpy.ndarray, got {type(value).__name__}",
        )
    if len(value) != pieces:
        raise _fail(job, where, f"expected {pieces} list(s) (one per device), got {len(value)}")
    tensors = []
    for i, tensor in enumerate(t for per_device in value for t in per_device):
        loose = ArgBlobDef(d.shape, d.dtype, True, d.name, d.batch_axis)
        tensors.append(_check_array(job, f"{where}[..][{i}]", tensor, loose, private=True))
    total = sum(t.shape[0] for t in tensors)
    if tensors and total > d.shape[0]:
        raise _fail(
            job,
            where,
            f"the tensors' first axes add up to {total}, more than the declared "
            f"{d.shape[0]} of shape {d.shape}",
        )
    return TensorList(tensors)


def _check_one(
    job: str, where: str, value: Any, d: ArgBlobDef, pieces: int, exact: bool, private: bool
) -> Any:
    if d.tensor_list:
        return _check_tensor_list(job, where, value, d, pieces)
    if not d.is_dynamic:
        return _check_array(job, where, value, d, private)
    if isinstance(value, np.ndarray) or not isinstance(value, (list, tuple)):
        raise _fail(
            job,
            where,
            "a tp.ListNumpy.Placeholder takes a list with one "
            f"numpy.ndarray per device, got {type(value).__name__}",
        )
    if len(value) != pieces:
        raise _fail(
            job, where, f"expected a list of {pieces} array(s) (one per device), got {len(value)}"
        )
    if exact:  # mirrored view: per-device arrays of the declared shape go to the devices
        fixed = ArgBlobDef(d.shape, d.dtype, False, d.name, d.batch_axis)
        return [_check_array(job, f"{where}[{i}]", v, fixed, private) for i, v in enumerate(value)]
    return [_check_array(job, f"{where}[{i}]", v, d, private) for i, v in enumerate(value)]


def _pad(array: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    if array.shape == shape:
        return array
    padded = np.zeros(shape, dtype=array.dtype)
    padded[tuple(slice(0, n) for n in array.shape)] = array
    return padded


def exact_layouts(params: list) -> list[tuple[tuple[int, ...], np.dtype]] | None:
    """(shape, dtype) per argument when every placeholder is one fixed-shape array, else None:
    what ``prepare_arguments`` checks first, to pass arrays that already fit straight through."""
    if any(spec.is_tuple or spec.defs[0].is_dynamic or spec.defs[0].tensor_list for spec in params):
        return None
    return [(spec.defs[0].shape, spec.defs[0].dtype.np_dtype) for spec in params]


def fit_exactly(args: tuple[Any, ...], layouts: list) -> bool:
    """Whether every argument is an ndarray of exactly its placeholder's shape and dtype."""
    if len(args) != len(layouts):
        return False
    for v, (shape, dtype) in zip(args, layouts):
        if type(v) is not np.ndarray or v.shape != shape or v.dtype != dtype:
            return False
    return True


def prepare_arguments(
    job: str,
    params: list,
    args: tuple[Any, ...],
    device_inputs: list[int],
    pieces: int = 1,
    private: bool = True,
    layouts: list[tuple[tuple[int, ...], np.dtype]] | None = None,
    pool: StagingPool | None = None,
) -> tuple[list[Any], tuple[Any, ...]]:
    """Returns (host value of every placeholder, the arrays that go to the device).

    ``pieces`` > 1 means the mirrored view: ListNumpy arguments carry one array per device;
    those that reach device ops must have the declared shape and are concatenated.
    ``private=False`` (a call that completes before it returns, and reads no argument back on
    the host) passes arrays of the right dtype and layout through uncopied. ``layouts``
    (from ``exact_layouts``) lets arguments that match exactly skip the general checks;
    their private copies then come from ``pool`` when one is given.
    """
    if layouts is not None and (not private or pool is not None) and fit_exactly(args, layouts):
        host = list(args) if not private else [pool.copy(a) for a in args]
        return host, tuple([host[i] for i in device_inputs])
    if len(args) != len(params):
        names = ", ".join(p.name for p in params) or "none"
        raise JobArgumentError(
            f"job {job!r} takes {len(params)} argument(s) ({names}), got {len(args)}"
        )
    host: list[Any] = []
    defs: list[ArgBlobDef] = []
    on_device = set(device_inputs)
    for spec, value in zip(params, args):
        items = [(repr(spec.name), value, spec.defs[0])]
        if spec.is_tuple:
            if not isinstance(value, (tuple, list)) or len(value) != len(spec.defs):
                raise _fail(
                    job,
                    repr(spec.name),
                    f"expected a tuple of {len(spec.defs)} arrays, got {type(value).__name__}",
                )
            items = [
                (f"{spec.name!r}[{k}]", v, d) for k, (v, d) in enumerate(zip(value, spec.defs))
            ]
        for where, v, d in items:
            exact = pieces > 1 and len(host) in on_device
            host.append(_check_one(job, where, v, d, pieces, exact, private))
            defs.append(d)
    device = tuple(device_value(host[i], defs[i].shape, pieces) for i in device_inputs)
    return host, device


def device_value(value: Any, shape: tuple[int, ...], pieces: int = 1) -> np.ndarray:
    """What the program gets for a host value: ListNumpy-style lists (dynamic arguments and
    dynamic data-pipeline outputs) concatenated or zero-padded to ``shape``."""
    if not isinstance(value, list):
        return value
    if pieces > 1:
        return np.concatenate(value)
    return _pad(value[0], shape)
