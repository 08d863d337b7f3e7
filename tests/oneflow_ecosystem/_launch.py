"""``python _launch.py FILE [ARGS]``: ``flowjob run FILE ARGS`` for a program of 2020-2021.

This is ``tests/oneflow_v040/_launch.py`` (the NumPy names of 2021 restored) plus two library
behaviours of the time the programs rely on:

- PyYAML's default loader: ``yaml.load(stream)`` and ``yaml.load_all(stream)`` without a
  ``Loader`` (PyYAML 5 warned and used ``FullLoader``; PyYAML 6 requires one);
- SciPy's ``interp1d(x, y, kind="slinear")`` with repeated ``x`` values (a ROC curve's false
  accept rates): 2021's SciPy interpolated them, SciPy now raises "Expect x to not have
  duplicates"; here such a call interpolates linearly, as ``kind="linear"`` does.

Only the program's process is affected; flowjob and the program stay untouched.
"""

import runpy
from pathlib import Path

try:
    import yaml
except ImportError:  # the programs that read YAML fail on their own import
    yaml = None


def _default_loader(read):
    def call(stream, Loader=None, **kwargs):  # noqa: N803 (PyYAML's parameter name)
        return read(stream, Loader=Loader or yaml.FullLoader, **kwargs)

    return call


if yaml is not None:
    yaml.load = _default_loader(yaml.load)
    yaml.load_all = _default_loader(yaml.load_all)

try:
    import numpy
    import scipy.interpolate
except ImportError:
    scipy = None

if scipy is not None:
    _interp1d = scipy.interpolate.interp1d

    class _Interp1d2021(_interp1d):
        def __init__(self, x, y, kind="linear", *args, **kwargs):
            repeated = numpy.unique(numpy.asarray(x)).size != numpy.size(x)
            super().__init__(
                x, y, "linear" if kind == "slinear" and repeated else kind, *args, **kwargs
            )

    scipy.interpolate.interp1d = _Interp1d2021

V040 = Path(__file__).resolve().parents[1] / "oneflow_v040" / "_launch.py"
runpy.run_path(str(V040), run_name="__main__")
