"""Where the compiled oneDNN convolution handler and its runtime library are installed.

flowjob loads them with ctypes and registers the handler as an XLA FFI target
(``flowjob/_src/kernels``); this package has no Python API of its own.
"""

from __future__ import annotations

import glob
import os
from importlib import metadata

_HERE = os.path.dirname(os.path.abspath(__file__))


def handler_library() -> str:
    """The shared library exporting the ``FlowjobOnednnConv`` FFI handler."""
    found = glob.glob(os.path.join(_HERE, "_conv_ffi*.so"))
    if not found:
        raise OSError(f"no _conv_ffi*.so in {_HERE}: the extension was not built")
    return found[0]


def runtime_libraries() -> list[str]:
    """libdnnl as installed by the onednn-cpu-gomp wheel (into the environment's lib/)."""
    files = metadata.files("onednn-cpu-gomp") or []
    libs = [str(f.locate()) for f in files if f.name.startswith("libdnnl.so.")]
    return sorted(libs, key=len)[:1]  # libdnnl.so.3: the soname the handler links against
