"""NumPy functions and objects as NumPy 1.x defined them, for names NumPy has since removed.

Each is the old behaviour rebuilt from what current NumPy still has; the table in
``_removed_names.py`` says which removed name each one restores. NumPy's own replacement is
used directly there wherever it kept the old meaning (``np.float_`` -> ``np.float64``).
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
import types
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

# Bits per floating-point error kind in the old error-object mask, and the codes of the modes.
_ERR_SHIFTS = {"divide": 0, "over": 3, "under": 6, "invalid": 9}
_ERR_MODES = ("ignore", "warn", "raise", "call", "print", "log")


def in1d(ar1: Any, ar2: Any, assume_unique: bool = False, invert: bool = False) -> np.ndarray:
    """``np.isin`` on the flattened first argument (in1d returned a 1-D result)."""
    return np.isin(ar1, ar2, assume_unique=assume_unique, invert=invert).ravel()


def asscalar(a: Any) -> Any:
    return a.item()


def msort(a: Any) -> np.ndarray:
    """A copy of ``a`` sorted along its first axis."""
    b = np.array(a, subok=True, copy=True)
    b.sort(axis=0)
    return b


def asfarray(a: Any, dtype: Any = np.float64) -> np.ndarray:
    """``a`` as a floating-point array; a non-float ``dtype`` meant float64."""
    if not np.issubdtype(dtype, np.inexact):
        dtype = np.float64
    return np.asarray(a, dtype=dtype)


_KIND_ORDER = "buifcSUVOMm"


def find_common_type(array_types: Any, scalar_types: Any) -> np.dtype | None:
    """The old rule: the arrays' common type, unless the scalars are of a higher kind
    (bool < int < float < complex < ...), then the common type of both."""
    arrays = [np.dtype(t) for t in array_types]
    scalars = [np.dtype(t) for t in scalar_types]
    array_type = functools.reduce(np.promote_types, arrays) if arrays else None
    scalar_type = functools.reduce(np.promote_types, scalars) if scalars else None
    if array_type is None or scalar_type is None:
        return array_type if scalar_type is None else scalar_type

    # NumPy listed unsigned before signed ints but ranked them as one kind here.
    def rank(t: np.dtype) -> int:
        return _KIND_ORDER.index("i" if t.kind == "u" else t.kind)

    if rank(scalar_type) > rank(array_type):
        return np.promote_types(scalar_type, array_type)
    return array_type


def deprecate(*args: Any, **kwargs: Any) -> Any:
    """``deprecate(func, old_name, new_name, message)`` or ``@deprecate(message=...)``: the
    function warns ``DeprecationWarning`` on each call."""

    def wrap(func: Callable[..., Any]) -> Callable[..., Any]:
        old_name = kwargs.get("old_name") or getattr(func, "__name__", "function")
        new_name = kwargs.get("new_name")
        text = f"{old_name} is deprecated" + (f"; {new_name} replaces it" if new_name else "")
        if kwargs.get("message"):
            text += "\n" + kwargs["message"]

        @functools.wraps(func)
        def deprecated(*a: Any, **k: Any) -> Any:
            warnings.warn(text, DeprecationWarning, stacklevel=2)
            return func(*a, **k)

        return deprecated

    if args:
        func, *rest = args
        kwargs.update(zip(("old_name", "new_name", "message"), rest))
        return wrap(func)
    return wrap


def deprecate_with_doc(msg: str) -> Callable[..., Any]:
    return deprecate(message=msg)


def issubclass_(arg1: Any, arg2: Any) -> bool:
    """``issubclass`` that answers False instead of raising TypeError."""
    try:
        return issubclass(arg1, arg2)
    except TypeError:
        return False


def source(obj: Any, output: Any = sys.stdout) -> None:
    """Prints the file and the source code of ``obj``."""
    try:
        print(f"In file: {inspect.getsourcefile(obj)}\n", file=output)
        print(inspect.getsource(obj), file=output)
    except (TypeError, OSError):
        print(f"no source code found for {obj!r}", file=output)


def who(vardict: dict | None = None) -> None:
    """Prints the arrays of ``vardict`` (the caller's globals by default): name, shape,
    bytes and type, then the total."""
    if vardict is None:
        vardict = sys._getframe(1).f_globals
    rows = [
        (name, " x ".join(str(d) for d in value.shape), value.nbytes, value.dtype.name)
        for name, value in sorted(vardict.items())
        if isinstance(value, np.ndarray)
    ]
    header = ("Name", "Shape", "Bytes", "Type")
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(4)]
    for row in [header, tuple("=" * w for w in widths), *rows]:
        print("    ".join(str(v).ljust(w) for v, w in zip(row, widths)).rstrip())
    print(f"\nTotal bytes: {sum(r[2] for r in rows)}")


def disp(mesg: Any, device: Any = None, linefeed: bool = True) -> None:
    """Prints ``mesg`` on ``device`` (stdout), with a newline unless ``linefeed`` is False."""
    device = sys.stdout if device is None else device
    device.write(f"{mesg}\n" if linefeed else f"{mesg}")
    device.flush()


class _TypeTable(dict):
    """A dict keyed by scalar types that answers any dtype-like key (``np.cast``,
    ``np.nbytes``): ``make(scalar_type)`` gives the value."""

    def __init__(self, make: Callable[[type], Any]):
        super().__init__()
        self._make = make

    def __missing__(self, key: Any) -> Any:
        scalar_type = np.dtype(key).type
        self[key] = value = self._make(scalar_type)
        return value


def _caster(scalar_type: type) -> Callable[[Any], np.ndarray]:
    return lambda x: np.asarray(x).astype(scalar_type)


cast = _TypeTable(_caster)
nbytes = _TypeTable(lambda scalar_type: np.dtype(scalar_type).itemsize)

sctypes = {
    "int": [np.int8, np.int16, np.int32, np.int64],
    "uint": [np.uint8, np.uint16, np.uint32, np.uint64],
    "float": [np.float16, np.float32, np.float64, np.longdouble],
    "complex": [np.complex64, np.complex128, np.clongdouble],
    "others": [bool, object, bytes, str, np.void],
}


def obj2sctype(rep: Any, default: Any = None) -> Any:
    """The NumPy scalar type of ``rep`` (a type, dtype-like or array), else ``default``."""
    if isinstance(rep, type) and issubclass(rep, np.generic):
        return rep
    if isinstance(rep, np.ndarray):
        return rep.dtype.type
    try:
        return np.dtype(rep).type
    except (TypeError, ValueError):
        return default


def issctype(rep: Any) -> bool:
    """Whether ``rep`` (a type or dtype) names a NumPy scalar type other than object."""
    if not isinstance(rep, (type, np.dtype)):
        return False
    found = obj2sctype(rep)
    return bool(found) and found is not np.object_


def issubsctype(arg1: Any, arg2: Any) -> bool:
    return issubclass(obj2sctype(arg1), obj2sctype(arg2))


def sctype2char(sctype: Any) -> str:
    found = obj2sctype(sctype)
    if found is None:
        raise ValueError("unrecognized type")
    return np.dtype(found).char


def maximum_sctype(t: Any) -> Any:
    """The largest scalar type of ``t``'s kind (int64 for int8, longdouble for float32)."""
    found = obj2sctype(t)
    if found is None:
        return t
    for group in sctypes.values():
        if found in group and group[-1] is not object:
            return group[-1]
    return found


def geterrobj() -> list:
    """``[buffer size, error mask, error callback]``, NumPy 1.x's error object."""
    mask = 0
    for kind, mode in np.geterr().items():
        mask |= _ERR_MODES.index(mode) << _ERR_SHIFTS[kind]
    return [np.getbufsize(), mask, np.geterrcall()]


def seterrobj(errobj: list) -> None:
    bufsize, mask, call = errobj
    np.setbufsize(bufsize)
    np.seterr(**{kind: _ERR_MODES[(mask >> s) & 7] for kind, s in _ERR_SHIFTS.items()})
    np.seterrcall(call)


def set_string_function(f: Callable[[np.ndarray], str] | None, repr: bool = True) -> None:
    """``f`` prints arrays for ``repr()`` (None: NumPy's default)."""
    if not repr:
        raise NotImplementedError(
            "np.set_string_function(f, repr=False): current NumPy cannot replace str() of "
            "arrays; use np.set_printoptions(formatter=...)"
        )
    np.set_printoptions(override_repr=f)


def _rec_view(output: np.ndarray, usemask: bool) -> np.ndarray:
    if usemask:
        from numpy.ma.mrecords import MaskedRecords

        return output.view(MaskedRecords)
    return output.view(np.recarray)


def recfromtxt(fname: Any, **kwargs: Any) -> np.ndarray:
    """``np.genfromtxt`` with types guessed per column, as a record array."""
    kwargs.setdefault("dtype", None)
    return _rec_view(np.genfromtxt(fname, **kwargs), kwargs.get("usemask", False))


def recfromcsv(fname: Any, **kwargs: Any) -> np.ndarray:
    """``recfromtxt`` of a comma-separated file whose first row names the (lower-cased) fields."""
    kwargs.setdefault("case_sensitive", "lower")
    kwargs.setdefault("names", True)
    kwargs.setdefault("delimiter", ",")
    return recfromtxt(fname, **kwargs)


def fast_copy_and_transpose(a: Any) -> np.ndarray:
    return np.asarray(a).T.copy()


def add_newdoc_ufunc(ufunc: np.ufunc, new_docstring: str) -> None:
    ufunc.__doc__ = new_docstring


def _compat_module() -> types.ModuleType:
    """``numpy.compat``: NumPy's Python 2/3 helpers, which programs imported from it."""
    module = types.ModuleType("numpy.compat", "NumPy 1.x's Python 2/3 helpers (flowjob run).")

    def asbytes(s: Any) -> bytes:
        return s if isinstance(s, bytes) else str(s).encode("latin1")

    def asstr(s: Any) -> str:
        return s.decode("latin1") if isinstance(s, bytes) else str(s)

    def isfileobj(f: Any) -> bool:
        import io

        return isinstance(f, (io.FileIO, io.BufferedReader, io.BufferedWriter))

    vars(module).update(
        asbytes=asbytes,
        asstr=asstr,
        asunicode=asstr,
        asbytes_nested=lambda x: [asbytes(y) for y in x],
        basestring=str,
        unicode=str,
        bytes=bytes,
        long=int,
        integer_types=(int,),
        isfileobj=isfileobj,
        os_fspath=os.fspath,
        os_PathLike=os.PathLike,
        is_pathlib_path=lambda obj: isinstance(obj, os.PathLike),
        Path=__import__("pathlib").Path,
        pickle=__import__("pickle"),
        getargspec=inspect.getfullargspec,
    )
    return module


compat = _compat_module()


# -- ndarray methods NumPy 2 removed -------------------------------------------------------


def newbyteorder(self: np.ndarray, new_order: str = "S") -> np.ndarray:
    """The same bytes viewed with the other (or the given) byte order."""
    return self.view(self.dtype.newbyteorder(new_order))


def ptp(self: np.ndarray, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    return np.ptp(self, axis=axis, out=out, keepdims=keepdims)


def itemset(self: np.ndarray, *args: Any) -> None:
    """``a.itemset(value)`` (one-element array), ``a.itemset(flat_index, value)`` or
    ``a.itemset((i, j, ...), value)``."""
    if not args:
        raise ValueError(
            "ndarray.itemset needs a value (and an index unless the array has one element)"
        )
    *index, value = args
    if not index:
        if self.size != 1:
            raise ValueError(f"ndarray.itemset(value) needs a one-element array, not {self.size}")
        self.flat[0] = value
    elif len(index) == 1 and isinstance(index[0], (int, np.integer)):
        self.flat[int(index[0])] = value
    else:
        self[tuple(index[0]) if len(index) == 1 else tuple(index)] = value


# -- removed call forms of functions that still exist --------------------------------------


def reshape_with_newshape(reshape: Callable[..., Any]) -> Callable[..., Any]:
    """``np.reshape`` that also takes NumPy < 2.4's ``newshape=`` keyword."""

    def wrapper(a: Any, *args: Any, newshape: Any = None, **kwargs: Any) -> Any:
        if newshape is not None:
            return reshape(a, newshape, *args, **kwargs)
        return reshape(a, *args, **kwargs)

    return functools.wraps(reshape)(wrapper)


def fromstring_binary(fromstring: Callable[..., Any]) -> Callable[..., Any]:
    """``np.fromstring`` that also reads NumPy < 2.3's binary mode (``sep=""``): the bytes."""

    def wrapper(string: Any, dtype: Any = float, count: int = -1, *, sep: str = "", **kw: Any):
        if sep == "":
            data = string.encode("latin-1") if isinstance(string, str) else string
            return np.frombuffer(data, dtype=dtype, count=count).copy()
        return fromstring(string, dtype=dtype, count=count, sep=sep, **kw)

    return functools.wraps(fromstring)(wrapper)
