"""The machine line of BENCHMARKS.md names the CPU kind: a hypervisor's generic "AMD EPYC"
gets its family, model and core generation, and the widest vector unit."""

from __future__ import annotations

import doctest

from bench import _report

AMD = """processor\t: 0
vendor_id\t: AuthenticAMD
cpu family\t: 25
model\t\t: 17
model name\t: AMD EPYC
flags\t\t: fpu sse avx2 avx512f avx512bw

processor\t: 1
vendor_id\t: GenuineIntel
"""

INTEL = """vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 143
model name\t: Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz
flags\t\t: fpu avx2 avx512f amx_tile
"""


def test_amd_under_a_hypervisor_gets_its_generation():
    assert _report.cpu_name(AMD) == (
        "AMD EPYC (AuthenticAMD family 25 model 17: Zen 4 (EPYC 9004); AVX-512)"
    )


def test_intel_xeon():
    assert _report.cpu_name(INTEL) == (
        "Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz "
        "(GenuineIntel family 6 model 143: Sapphire Rapids Xeon; AVX-512)"
    )


def test_unknown_model_and_missing_fields():
    text = "vendor_id : AuthenticAMD\ncpu family : 99\nmodel : 1\nmodel name : X\nflags : avx2\n"
    assert _report.cpu_name(text) == "X (AuthenticAMD family 99 model 1; AVX2)"
    assert _report.cpu_name("model name : Y\n") == "Y"
    assert _report.cpu_name("") == "unknown"


def test_docstring_example_runs():
    assert doctest.testmod(_report).failed == 0
