"""``python _launch.py FILE [ARGS]``: ``flowjob run FILE ARGS`` for a 2021 test file.

The files use NumPy spellings removed since (``np.float``, ``np.int``: NumPy 1.24;
``np.product``: NumPy 2.0; ``np.reshape(a, newshape=...)``: NumPy 2.4; the binary mode of
``np.fromstring``: NumPy 2.3; ``collections.Sized``: Python 3.10). This restores exactly
those, with their old meaning, in the test's process only; flowjob and the files stay
untouched. ``tf.keras`` is Keras 2 (``tf-keras``), as in 2021.
"""

import collections
import collections.abc
import os
import sys

import numpy

_REMOVED = {"float": float, "int": int, "bool": bool, "object": object, "product": numpy.prod}
for _name, _value in _REMOVED.items():
    if _name not in numpy.__dict__:
        setattr(numpy, _name, _value)

collections.Sized = collections.abc.Sized
os.environ["TF_USE_LEGACY_KERAS"] = "1"

_reshape = numpy.reshape


def _reshape_with_newshape(a, *args, newshape=None, **kwargs):
    if newshape is not None:
        return _reshape(a, newshape, *args, **kwargs)
    return _reshape(a, *args, **kwargs)


numpy.reshape = _reshape_with_newshape
_fromstring = numpy.fromstring


def _fromstring_binary(string, dtype=float, count=-1, *, sep="", **kwargs):
    if sep == "":  # the removed binary mode: the string's bytes, as NumPy 1.x read them
        data = string.encode("latin-1") if isinstance(string, str) else string
        return numpy.frombuffer(data, dtype=dtype, count=count).copy()
    return _fromstring(string, dtype=dtype, count=count, sep=sep, **kwargs)


numpy.fromstring = _fromstring_binary

from flowjob._src.cli.main import main  # noqa: E402

sys.exit(main(["run", *sys.argv[1:]]))
