"""``flowjob check`` on OneFlow's v0.4.0 documentation programs: nothing on those flowjob runs;
the ones that build C++ ops are told so (``config.load_library``)."""

from __future__ import annotations

import pytest

from flowjob.compat import check_programs

from .programs import PROGRAMS, Outcome


def test_check_reports_nothing_on_the_programs_flowjob_runs(docs):
    runs = [p for p in PROGRAMS if p.outcome is not Outcome.NATIVE_BUILD]
    assert check_programs(str(docs[p.lang] / p.path) for p in runs) == []


@pytest.mark.parametrize(
    "program", [p for p in PROGRAMS if p.outcome is Outcome.NATIVE_BUILD], ids=lambda p: p.id
)
def test_check_names_the_op_library_of_native_build_programs(program, docs):
    (finding,) = check_programs([str(docs[program.lang] / program.path)])
    assert finding.name == "oneflow.config.load_library"
    assert "unsupported by flowjob" in finding.message
