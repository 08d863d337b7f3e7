"""The NumPy, Pillow and Python names removed since 2021 that ``flowjob run`` restores: data.

OneFlow v0.4 programs were written for Python 3.6-3.8, NumPy < 1.24 and Pillow < 10. The
NumPy rows follow NumPy 2.0's migration guide (NEP 52's table of removed members, which NumPy
keeps as ``numpy._expired_attrs_2_0``) plus the 1.24 scalar aliases and later removals; each
row's ``meaning`` is a Python expression for the old object, over the names of
:func:`namespace` (``old``: ``_old_numpy``, ``py``: ``_old_python``, where current libraries
no longer have the old behaviour). A row is applied only where its owner lacks the name, so a
library that still has it keeps its own. ``flowjob check`` reads the same table.

Not restored (internal, or no current equivalent): ``np.set_numeric_ops``, ``np.lookfor``,
``np.get_array_wrap``, ``np.MachAr``.
"""

from __future__ import annotations

import builtins
import importlib
import types
from dataclasses import dataclass
from typing import Any

__all__ = ["REMOVED", "Removed", "namespace", "owner_object"]


@dataclass(frozen=True)
class Removed:
    """``owner.name`` (owner: a module or a class, dotted), removed in ``removed_in``, meant
    ``meaning``. ``replaces``: the name still exists but lost a call form; the wrapper
    replaces it for the run."""

    owner: str
    name: str
    meaning: str
    removed_in: str
    replaces: bool = False


def _rows(owner: str, removed_in: str, pairs: str) -> tuple[Removed, ...]:
    """Rows from ``"name=meaning name=meaning ..."`` (meanings without spaces)."""
    return tuple(
        Removed(owner, name, meaning, removed_in)
        for name, meaning in (pair.split("=", 1) for pair in pairs.split())
    )


_COLLECTIONS_ABCS = (
    "Awaitable Coroutine AsyncIterable AsyncIterator AsyncGenerator Hashable Iterable Iterator "
    "Generator Reversible Sized Container Callable Collection Set MutableSet Mapping "
    "MutableMapping MappingView KeysView ItemsView ValuesView Sequence MutableSequence ByteString"
)
_UNITTEST_ALIASES = (
    "failUnlessEqual=assertEqual assertEquals=assertEqual failIfEqual=assertNotEqual "
    "assertNotEquals=assertNotEqual failUnless=assertTrue assert_=assertTrue failIf=assertFalse "
    "failUnlessRaises=assertRaises failUnlessAlmostEqual=assertAlmostEqual "
    "assertAlmostEquals=assertAlmostEqual failIfAlmostEqual=assertNotAlmostEqual "
    "assertNotAlmostEquals=assertNotAlmostEqual assertRegexpMatches=assertRegex "
    "assertNotRegexpMatches=assertNotRegex assertRaisesRegexp=assertRaisesRegex"
)

_NUMPY_EXCEPTIONS = (
    "AxisError ComplexWarning RankWarning TooHardError ModuleDeprecationWarning "
    "VisibleDeprecationWarning"
)

REMOVED: tuple[Removed, ...] = (
    # NumPy 1.20 deprecated, 1.24 removed the builtin aliases (np.bool/np.long are back in
    # 2.0 as NumPy types, so they exist and stay as they are).
    *_rows("numpy", "1.24", "float=builtins.float int=builtins.int complex=builtins.complex"),
    *_rows("numpy", "1.24", "object=builtins.object str=builtins.str unicode=builtins.str"),
    *_rows("numpy", "1.24", "bool=builtins.bool long=builtins.int warnings=warnings"),
    *_rows("numpy", "1.21", "typeDict=np.sctypeDict"),
    *_rows("numpy", "1.23", "asscalar=old.asscalar"),
    # NEP 52 (NumPy 2.0): aliases of types and constants.
    *_rows("numpy", "2.0", "float_=np.float64 complex_=np.complex128 cfloat=np.complex128"),
    *_rows("numpy", "2.0", "longfloat=np.longdouble singlecomplex=np.complex64"),
    *_rows("numpy", "2.0", "longcomplex=np.clongdouble clongfloat=np.clongdouble"),
    *_rows("numpy", "2.0", "string_=np.bytes_ unicode_=np.str_"),
    *_rows("numpy", "2.0", "bool8=np.bool_ int0=np.intp uint0=np.uintp object0=np.object_"),
    *_rows("numpy", "2.0", "str0=np.str_ bytes0=np.bytes_ void0=np.void"),
    *_rows("numpy", "2.0", "Inf=np.inf Infinity=np.inf infty=np.inf PINF=np.inf NINF=-np.inf"),
    *_rows("numpy", "2.0", "NaN=np.nan PZERO=0.0 NZERO=-0.0"),
    # NEP 52: functions and objects.
    *_rows("numpy", "2.0", "mat=np.asmatrix round_=np.round alltrue=np.all sometrue=np.any"),
    *_rows("numpy", "2.0", "msort=old.msort asfarray=old.asfarray cast=old.cast"),
    *_rows("numpy", "2.0", "find_common_type=old.find_common_type safe_eval=ast.literal_eval"),
    *_rows("numpy", "2.0", "deprecate=old.deprecate deprecate_with_doc=old.deprecate_with_doc"),
    *_rows("numpy", "2.0", "issubclass_=old.issubclass_ source=old.source who=old.who"),
    *_rows("numpy", "2.0", "byte_bounds=np.lib.array_utils.byte_bounds compat=old.compat"),
    *_rows("numpy", "2.0", "set_string_function=old.set_string_function disp=old.disp"),
    *_rows("numpy", "2.0", "recfromcsv=old.recfromcsv recfromtxt=old.recfromtxt"),
    *_rows("numpy", "2.0", "tracemalloc_domain=np.lib.tracemalloc_domain"),
    *_rows("numpy", "2.0", "sctype2char=old.sctype2char issctype=old.issctype"),
    *_rows("numpy", "2.0", "obj2sctype=old.obj2sctype maximum_sctype=old.maximum_sctype"),
    *_rows("numpy", "2.0", "sctypes=old.sctypes issubsctype=old.issubsctype nbytes=old.nbytes"),
    *_rows("numpy", "2.0", "geterrobj=old.geterrobj seterrobj=old.seterrobj"),
    *_rows("numpy", "2.0", "add_newdoc=np.lib.add_newdoc add_docstring=np.lib.add_docstring"),
    *_rows("numpy", "2.0", "add_newdoc_ufunc=old.add_newdoc_ufunc"),
    *_rows("numpy", "2.0", "fastCopyAndTranspose=old.fast_copy_and_transpose math=math"),
    *_rows("numpy", "2.0", "DataSource=np.lib.npyio.DataSource"),
    *_rows("numpy", "2.0", "compare_chararrays=np.char.compare_chararrays"),
    *_rows("numpy", "2.0", "format_parser=np.rec.format_parser"),
    # NumPy 2.0 kept its warnings and errors in np.exceptions only.
    *_rows("numpy", "2.0", " ".join(f"{n}=np.exceptions.{n}" for n in _NUMPY_EXCEPTIONS.split())),
    *_rows("numpy.ndarray", "2.0", "newbyteorder=old.newbyteorder ptp=old.ptp"),
    *_rows("numpy.ndarray", "2.0", "itemset=old.itemset"),
    # NumPy 2.x after NEP 52.
    *_rows("numpy", "2.4", "product=np.prod cumproduct=np.cumprod in1d=old.in1d"),
    *_rows("numpy", "2.4", "trapz=np.trapezoid row_stack=np.vstack"),
    *_rows("numpy.ndarray", "2.3", "tostring=np.ndarray.tobytes"),
    Removed("numpy", "reshape", "old.reshape_with_newshape(np.reshape)", "2.4", replaces=True),
    Removed("numpy", "fromstring", "old.fromstring_binary(np.fromstring)", "2.3", replaces=True),
    # Pillow 10.
    *_rows("PIL.Image", "10", "ANTIALIAS=PIL.Image.LANCZOS LINEAR=PIL.Image.BILINEAR"),
    *_rows("PIL.Image", "10", "CUBIC=PIL.Image.BICUBIC"),
    *_rows("PIL.ImageDraw.ImageDraw", "10", "textsize=py.draw_textsize"),
    *_rows("PIL.ImageDraw.ImageDraw", "10", "multiline_textsize=py.draw_multiline_textsize"),
    *_rows("PIL.ImageFont.FreeTypeFont", "10", "getsize=py.font_getsize"),
    *_rows("PIL.ImageFont.FreeTypeFont", "10", "getoffset=py.font_getoffset"),
    *_rows("PIL.ImageFont.FreeTypeFont", "10", "getsize_multiline=py.font_getsize_multiline"),
    *_rows("PIL.ImageFont.ImageFont", "10", "getsize=py.font_getsize"),
    # Python 3.8-3.12.
    *_rows(
        "collections",
        "3.10",
        " ".join(f"{n}=collections.abc.{n}" for n in _COLLECTIONS_ABCS.split()),
    ),
    *_rows("inspect", "3.11", "getargspec=py.getargspec"),
    *_rows("time", "3.8", "clock=time.perf_counter"),
    *_rows("base64", "3.9", "encodestring=base64.encodebytes decodestring=base64.decodebytes"),
    *_rows("threading.Thread", "3.9", "isAlive=threading.Thread.is_alive"),
    *_rows("fractions", "3.9", "gcd=py.fractions_gcd"),
    *_rows("array.array", "3.9", "tostring=array.array.tobytes fromstring=array.array.frombytes"),
    *_rows("xml.etree", "3.9", "cElementTree=xml.etree.ElementTree"),
    *_rows(
        "unittest.TestCase",
        "3.12",
        " ".join(
            f"{old}=unittest.TestCase.{new}"
            for old, new in (pair.split("=") for pair in _UNITTEST_ALIASES.split())
        ),
    ),
)


def namespace() -> dict[str, Any]:
    """The names a row's ``meaning`` is written over."""
    import array
    import ast
    import base64
    import collections.abc
    import math
    import threading
    import time
    import unittest
    import warnings
    import xml.etree.ElementTree

    import numpy as np
    import PIL.Image
    import PIL.ImageDraw
    import PIL.ImageFont

    from . import _old_numpy, _old_python

    return {
        "np": np,
        "old": _old_numpy,
        "py": _old_python,
        "builtins": builtins,
        "PIL": PIL,
        "array": array,
        "ast": ast,
        "base64": base64,
        "collections": collections,
        "math": math,
        "threading": threading,
        "time": time,
        "unittest": unittest,
        "warnings": warnings,
        "xml": xml,
    }


def owner_object(owner: str) -> Any:
    """The module or class named ``owner`` (``"numpy.ndarray"``, ``"PIL.ImageDraw.ImageDraw"``)."""
    parts = owner.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            obj = getattr(obj, part)
        return obj
    raise ImportError(owner)


def is_module(value: Any) -> bool:
    return isinstance(value, types.ModuleType)
