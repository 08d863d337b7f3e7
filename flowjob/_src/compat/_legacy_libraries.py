"""Names that NumPy and Pillow removed after 2021, restored for OneFlow-era programs.

OneFlow v0.4 programs were written against NumPy < 1.24 and Pillow < 10. ``flowjob run``
restores exactly the removed spellings such programs use, each with its old meaning, for the
program's run only; flowjob itself never uses them.
"""

from __future__ import annotations

import builtins
import contextlib
import ctypes
import gc
from collections.abc import Callable, Iterator
from typing import Any

# NumPy 1.20 deprecated and 1.24 removed these scalar aliases: each was the builtin of the
# same name.
_BUILTIN_ALIASES = ("float", "int", "bool", "object", "str", "complex")


def _numpy_functions(np: Any) -> dict[str, Callable[..., Any]]:
    """NumPy 2.x removed these function spellings; each was another name for the right side."""

    def asscalar(a: Any) -> Any:
        return a.item()

    def in1d(ar1: Any, ar2: Any, assume_unique: bool = False, invert: bool = False) -> Any:
        # in1d flattened its first argument; isin keeps the shape.
        return np.isin(ar1, ar2, assume_unique=assume_unique, invert=invert).ravel()

    return {
        "product": np.prod,
        "cumproduct": np.cumprod,
        "alltrue": np.all,
        "sometrue": np.any,
        "round_": np.round,
        "asscalar": asscalar,
        "in1d": in1d,
        "trapz": getattr(np, "trapezoid", None),
    }


def _numpy_keywords(np: Any) -> dict[str, Callable[..., Any]]:
    """Wrappers for removed call forms of functions that still exist."""
    reshape, fromstring = np.reshape, np.fromstring

    def reshape_with_newshape(a: Any, *args: Any, newshape: Any = None, **kwargs: Any) -> Any:
        # NumPy 2.4 removed the ``newshape=`` keyword (now ``shape=``).
        if newshape is not None:
            return reshape(a, newshape, *args, **kwargs)
        return reshape(a, *args, **kwargs)

    def fromstring_binary(
        string: Any, dtype: Any = float, count: int = -1, *, sep: str = "", **kwargs: Any
    ) -> Any:
        # NumPy 2.3 removed the binary mode (sep=""): it read the string's bytes.
        if sep == "":
            data = string.encode("latin-1") if isinstance(string, str) else string
            return np.frombuffer(data, dtype=dtype, count=count).copy()
        return fromstring(string, dtype=dtype, count=count, sep=sep, **kwargs)

    return {"reshape": reshape_with_newshape, "fromstring": fromstring_binary}


def _set_type_attribute(cls: type, name: str, value: Any) -> None:
    """Sets (``value`` not None) or removes ``cls.name`` on a built-in type, whose attributes
    Python code cannot assign: through the type's own dict, then CPython's cache reset."""
    (table,) = gc.get_referents(cls.__dict__)  # the dict behind the read-only mapping proxy
    if value is None:
        del table[name]
    else:
        table[name] = value
    ctypes.pythonapi.PyType_Modified(ctypes.py_object(cls))


def _pillow_constants(image: Any) -> dict[str, Any]:
    """Pillow 10 removed these resampling constants; each named the filter on the right."""
    return {
        "ANTIALIAS": image.LANCZOS,
        "LINEAR": image.BILINEAR,
        "CUBIC": image.BICUBIC,
    }


@contextlib.contextmanager
def legacy_library_names() -> Iterator[None]:
    """Sets the missing NumPy and Pillow names (and ``ndarray.tostring``) for the block, then
    puts everything back."""
    import numpy as np
    import PIL.Image

    added: list[tuple[Any, str]] = []
    replaced: list[tuple[Any, str, Any]] = []

    def add(module: Any, names: dict[str, Any]) -> None:
        for name, value in names.items():
            # vars(), not getattr(): NumPy's module __getattr__ warns about removed names.
            if value is not None and name not in vars(module):
                setattr(module, name, value)
                added.append((module, name))

    add(np, {name: getattr(builtins, name) for name in _BUILTIN_ALIASES})
    add(np, _numpy_functions(np))
    add(PIL.Image, _pillow_constants(PIL.Image))
    for name, wrapper in _numpy_keywords(np).items():
        replaced.append((np, name, vars(np)[name]))
        setattr(np, name, wrapper)
    # NumPy 2.3 removed ndarray.tostring (cv2.imencode(...)[1].tostring() in image scripts).
    method = "tostring" not in vars(np.ndarray)
    if method:
        _set_type_attribute(np.ndarray, "tostring", np.ndarray.tobytes)
    try:
        yield
    finally:
        if method:
            _set_type_attribute(np.ndarray, "tostring", None)
        for module, name in added:
            delattr(module, name)
        for module, name, original in replaced:
            setattr(module, name, original)
