"""``flow.Tensor``: an array on a JAX device, OneFlow v0.4's eager tensor.

The values live in a ``Cell`` that tensors can share: ``detach()``, ``.data`` and
``nn.Parameter(t)`` see the same values as ``t``, and an in-place method (``fill_``,
``uniform_``, ``copy_``, ``t[i] = v``...) rebinds the cell's JAX array, so every sharer sees the
change, as storage sharing does in OneFlow. Arithmetic and indexing give new tensors,
through ops run by ``imperative.apply`` (which records their autograd nodes); the methods
and operators that call ops (``x + y``, ``x.reshape``, ``x[key]``...) are set on the class
by ``tensor_ops``.
"""

from __future__ import annotations

import copy as _copy
import math
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtypes, autograd
from .._size import Size
from ..errors import FlowJobError
from ..ops import initializers
from ..runtime import config as _runtime_config
from . import _gain, _tensor_str
from ._storage import CPU, Cell, device, filled, jax_device, next_key


class TensorFeatureError(FlowJobError, NotImplementedError):
    """A feature of OneFlow's eager tensor that flowjob does not provide (autograd,
    consistent and lazy tensors)."""


def _refuse(what: str, value: Any) -> None:
    if value not in (None, False):
        raise TensorFeatureError(
            f"flow.Tensor: {what}={value!r} is not supported; flowjob's tensors are local "
            "(one process, one device); use job functions for consistent and lazy blobs"
        )


def _is_shape(args: tuple) -> bool:
    return bool(args) and all(isinstance(a, int) and not isinstance(a, bool) for a in args)


class Tensor:
    """``flow.Tensor(*shape)`` (zeros, or ``data_initializer``'s draw), ``flow.Tensor(data)``
    (list, tuple, NumPy or JAX array; cast to ``dtype``, float32 by default) or
    ``flow.Tensor(tensor)`` (a copy).

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> flow.Tensor(2, 3).shape
        flow.Size([2, 3])
        >>> flow.Tensor([[1, 2]])
        tensor([[1., 2.]], dtype=oneflow.float32)
        >>> flow.Tensor(np.array([1, 2]), dtype=flow.int32, requires_grad=True)
        tensor([1, 2], dtype=oneflow.int32, requires_grad=True)
    """

    def __init__(
        self,
        *args: Any,
        dtype: _dtypes.DType | None = None,
        device: Any = None,
        requires_grad: bool = False,
        placement: Any = None,
        sbp: Any = None,
        is_consistent: bool = False,
        is_lazy: bool = False,
        data_initializer: Callable | None = None,
        determining_initializer: Any = None,
    ):
        for what, value in (
            ("placement", placement),
            ("sbp", sbp),
            ("is_consistent", is_consistent),
            ("is_lazy", is_lazy),
            ("determining_initializer", determining_initializer),
        ):
            _refuse(what, value)
        _runtime_config.start_jax()  # 64-bit types and the device count, as jobs have them
        one = args[0] if len(args) == 1 else None
        if isinstance(one, Tensor):
            dtype = one.dtype if dtype is None else dtype
            array = one._cell.array
        elif isinstance(one, (list, tuple, np.ndarray, jax.Array)):
            array = jnp.asarray(np.asarray(one) if isinstance(one, (list, tuple)) else one)
        elif _is_shape(args):
            np_dtype = _dtypes.as_dtype(dtype or _dtypes.float32).np_dtype
            if data_initializer is None:
                array = jnp.zeros(args, np_dtype)
            else:
                array = data_initializer(next_key(), args, np_dtype)
        else:
            raise TypeError(
                "flow.Tensor takes a shape (ints), a list, tuple, NumPy/JAX array or a Tensor, "
                f"got {args!r}"
            )
        array = array.astype(_dtypes.as_dtype(dtype or _dtypes.float32).np_dtype)
        where = one.device if isinstance(one, Tensor) and device is None else CPU
        if device is not None:
            where = _device_of(device)
            array = jax.device_put(array, jax_device(where))
        self._cell = Cell(array, where)
        self._init_autograd(False)
        self.requires_grad = requires_grad

    @classmethod
    def _wrap(
        cls,
        array: Any,
        requires_grad: bool = False,
        grad_fn: autograd.Node | None = None,
        output_index: int = 0,
        where: device = CPU,
    ) -> Tensor:
        out = Tensor.__new__(Tensor)
        out._cell = Cell(array if isinstance(array, jax.Array) else jnp.asarray(array), where)
        out._init_autograd(requires_grad, grad_fn, output_index)
        return out

    def _init_autograd(self, requires_grad: bool, grad_fn: Any = None, index: int = 0) -> None:
        self._requires_grad = requires_grad
        self._grad_fn = grad_fn
        self._output_index = index
        self._grad = None

    def _share(self, requires_grad: bool = False) -> Tensor:
        out = Tensor.__new__(Tensor)
        out._cell = self._cell
        out._init_autograd(requires_grad)
        return out

    # --- what it is -----------------------------------------------------------------------
    @property
    def array(self) -> jax.Array:
        """The JAX array holding the values now (flowjob's; replaced by in-place methods)."""
        return self._cell.array

    @property
    def shape(self) -> Size:
        return Size(self._cell.array.shape)

    @property
    def dtype(self) -> _dtypes.DType:
        return _dtypes.as_dtype(self._cell.array.dtype)

    @property
    def device(self) -> device:
        """Where the tensor lives, as OneFlow names it (``device(type='cuda', index=0)``)."""
        return self._cell.device

    @property
    def is_cuda(self) -> bool:
        return self._cell.device.type == "cuda"

    def get_device(self) -> device:
        return self._cell.device

    @property
    def ndim(self) -> int:
        return self._cell.array.ndim

    def size(self, idx: int | None = None) -> Size | int:
        return self.shape if idx is None else self.shape[idx]

    def dim(self) -> int:
        return self.ndim

    ndimension = dim

    def nelement(self) -> int:
        return self.shape.numel()

    numel = nelement

    def element_size(self) -> int:
        return self.dtype.itemsize

    # --- autograd ---------------------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad or self._grad_fn is not None

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise TypeError(f"requires_grad must be a bool, got {value!r}")
        if self._grad_fn is not None and not value:
            raise RuntimeError(
                "requires_grad: only a leaf tensor's flag can be changed; this tensor was "
                f"made by {self._grad_fn!r} (use detach())"
            )
        self._requires_grad = value

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        self.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self) -> bool:
        """Whether no recorded op made this tensor (user-made, or made without grad)."""
        return self._grad_fn is None

    @property
    def grad_fn(self) -> autograd.Node | None:
        """The autograd ``Node`` of the op that made this tensor; ``None`` for a leaf."""
        return self._grad_fn

    @property
    def output_index(self) -> int:
        """Which output of ``grad_fn``'s op this tensor is."""
        return self._output_index

    @property
    def grad(self) -> Tensor | None:
        """The gradient ``backward`` accumulated here (leaves, and ``retain_grad()``)."""
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None and not isinstance(value, Tensor):
            raise TypeError(f"grad must be a Tensor or None, got {type(value).__name__}")
        if value is not None and tuple(value.shape) != tuple(self.shape):
            raise ValueError(f"grad of shape {tuple(value.shape)} for a tensor of {self.shape}")
        self._grad = value

    def accumulate_grad(self, array: Any) -> None:
        """Adds ``array`` to ``.grad`` in place (the autograd engine's delivery)."""
        dtype = self._cell.array.dtype
        if not isinstance(array, jax.Array) or array.dtype != dtype:  # else no dispatch
            array = jnp.asarray(array, dtype)
        if self._grad is None:
            self._grad = Tensor._wrap(array, where=self._cell.device)
        elif self._grad._cell.is_zero:  # zeroed by zero_grad: nothing to add to
            self._grad._cell.array = array
        else:
            cell = self._grad._cell
            cell.array = cell.array + array

    def backward(
        self, gradient: Any = None, retain_graph: bool = False, create_graph: bool = False
    ) -> None:
        """Accumulates d(self)/d(leaf) into the leaves' ``.grad`` (see
        ``flow.autograd.backward``)."""
        autograd.backward(self, gradient, retain_graph, create_graph)

    def retain_grad(self) -> None:
        """Keeps this non-leaf tensor's gradient in ``.grad`` at the next backward."""
        if self._grad_fn is not None:
            kept = self._grad_fn.retained.setdefault(self._output_index, [])
            if not any(t is self for t in kept):
                kept.append(self)

    @property
    def data(self) -> Tensor:
        """The same values, without ``requires_grad`` (shares storage)."""
        return self._share()

    @data.setter
    def data(self, value: Tensor) -> None:
        self._cell.array = jnp.asarray(_unwrap(value), self._cell.array.dtype)

    def detach(self) -> Tensor:
        """The same storage, cut from the autograd graph (a leaf that does not require grad)."""
        return self._share()

    @classmethod
    def from_array(cls, array: Any) -> Tensor:
        """A new leaf tensor holding ``array`` (a JAX or NumPy array, its dtype kept)."""
        return cls._wrap(array)

    # --- OneFlow's consistent/lazy views: always a local, eager tensor ----------------------
    is_consistent = property(lambda self: False)
    is_lazy = property(lambda self: False)
    placement = property(lambda self: None)
    sbp = property(lambda self: None)
    is_determined = property(lambda self: True)

    def determine(self, determining_initializer: Any = None) -> Tensor:
        return self

    # --- to the host ------------------------------------------------------------------------
    def numpy(self) -> np.ndarray:
        """A writable NumPy copy of the values."""
        return np.array(self._cell.array)

    def tolist(self) -> Any:
        return self.numpy().tolist()

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        out = np.asarray(self._cell.array)
        return out if dtype is None else out.astype(dtype)

    def __repr__(self) -> str:
        return _tensor_str.tensor_repr(self)

    __str__ = __repr__

    def __len__(self) -> int:
        if not self.ndim:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __deepcopy__(self, memo: dict) -> Tensor:
        return Tensor._wrap(_copy.deepcopy(self._cell.array, memo), self.requires_grad)

    # ``x[key]`` and ``x[key] = value`` are slice ops: tensor_ops/_slice.py sets them here.

    # --- in-place fills (rebinding the shared storage) ---------------------------------------
    def _fill_with(self, initializer: Callable) -> Tensor:
        """Replaces the values with ``initializer(key, shape, np_dtype)`` (flowjob's
        initializer protocol) and returns ``self``."""
        cell = self._cell
        cell.array = jnp.asarray(
            initializer(next_key(), tuple(cell.array.shape), cell.array.dtype), cell.array.dtype
        )
        return self

    def fill_(self, value: float) -> Tensor:
        if isinstance(value, (int, float)) and value == 0:
            self._cell.zero()  # made when read; a gradient's next backward replaces it
        else:
            self._cell.array = filled(self._cell.array, value)
        return self

    def zeros_(self) -> Tensor:
        return self.fill_(0)

    def copy_(self, other: Tensor | np.ndarray | jax.Array) -> Tensor:
        """Copies ``other``'s values (same shape; cast to this tensor's dtype)."""
        src = jnp.asarray(_unwrap(other))
        if tuple(src.shape) != tuple(self.shape):
            raise ValueError(f"copy_: source shape {tuple(src.shape)} != {tuple(self.shape)}")
        cell = self._cell
        (device,) = cell.array.devices()
        cell.array = jax.device_put(src.astype(cell.array.dtype), device)
        return self

    def uniform_(self, a: float = 0, b: float = 1) -> Tensor:
        """Draws from U(a, b)."""
        return self._fill_with(initializers.random_uniform_initializer(a, b, self.dtype))

    def normal_(self, mean: float = 0, std: float = 1) -> Tensor:
        """Draws from N(mean, std**2)."""
        return self._fill_with(initializers.random_normal_initializer(mean, std))

    def xavier_uniform_(self, gain: float = 1.0, *, data_format: str = "NCHW") -> Tensor:
        """U(-b, b) with ``b = gain * sqrt(6 / (fan_in + fan_out))``."""
        fan_in, fan_out = _gain.fans("xavier_uniform_", self.shape, data_format)
        bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
        return self.uniform_(-bound, bound)

    def xavier_normal_(self, gain: float = 1.0, *, data_format: str = "NCHW") -> Tensor:
        """N(0, std**2) with ``std = gain * sqrt(2 / (fan_in + fan_out))``."""
        fan_in, fan_out = _gain.fans("xavier_normal_", self.shape, data_format)
        return self.normal_(0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)))

    def kaiming_uniform_(
        self,
        a: float = 0,
        mode: str = "fan_in",
        nonlinearity: str = "leaky_relu",
        *,
        data_format: str = "NCHW",
    ) -> Tensor:
        """U(-b, b) with ``b = sqrt(3) * calculate_gain(nonlinearity, a) / sqrt(fan)``."""
        std = _kaiming_std("kaiming_uniform_", self.shape, a, mode, nonlinearity, data_format)
        bound = math.sqrt(3.0) * std
        return self.uniform_(-bound, bound)

    def kaiming_normal_(
        self,
        a: float = 0,
        mode: str = "fan_in",
        nonlinearity: str = "leaky_relu",
        *,
        data_format: str = "NCHW",
    ) -> Tensor:
        """N(0, std**2) with ``std = calculate_gain(nonlinearity, a) / sqrt(fan)``."""
        std = _kaiming_std("kaiming_normal_", self.shape, a, mode, nonlinearity, data_format)
        return self.normal_(0.0, std)


def _kaiming_std(who, shape, a, mode, nonlinearity, data_format) -> float:
    gain = _gain.calculate_gain(nonlinearity, a)
    return gain / math.sqrt(_gain.fan(who, shape, mode, data_format))


def _device_of(spec: Any) -> device:
    return spec if isinstance(spec, device) else device(spec)


def _unwrap(value: Any) -> Any:
    if isinstance(value, Tensor):
        return value._cell.array
    if isinstance(value, tuple):
        return tuple(_unwrap(v) for v in value)
    return value
