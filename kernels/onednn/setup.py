"""Builds flowjob_onednn/_conv_ffi: oneDNN headers and library from the onednn wheels (which
install into the environment's include/ and lib/), XLA's FFI headers from jax."""

import os
from importlib import metadata

import jax
from setuptools import Extension, setup


def _dist_dir(dist: str, suffix: str) -> str:
    """The directory of the first file of ``dist`` whose path ends with ``suffix``."""
    for f in metadata.files(dist) or []:
        if str(f).replace(os.sep, "/").endswith(suffix):
            return os.path.dirname(str(f.locate()))
    raise RuntimeError(f"{dist} does not provide {suffix}")


dnnl_include = os.path.dirname(
    os.path.dirname(_dist_dir("onednn-devel-cpu-gomp", "include/oneapi/dnnl/dnnl.hpp"))
)
dnnl_lib = _dist_dir("onednn-cpu-gomp", "libdnnl.so.3")  # recorded as ../../libdnnl.so.3

setup(
    ext_modules=[
        Extension(
            "flowjob_onednn._conv_ffi",
            ["src/conv_ffi.cc"],
            include_dirs=[jax.ffi.include_dir(), dnnl_include],
            library_dirs=[dnnl_lib],
            libraries=[":libdnnl.so.3"],
            extra_compile_args=["-std=c++17", "-O2", "-w", "-fopenmp"],
            extra_link_args=["-fopenmp"],
            language="c++",
        )
    ]
)
