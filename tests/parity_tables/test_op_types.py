"""The op-type table against a OneFlow v0.4.0 clone, and the built op types against the public
ops: a ``flow.user_op_builder`` op with OneFlow's names gives what the public call gives."""

from __future__ import annotations

import inspect
import typing

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.compat.parity import _not_yet, op_types
from flowjob.userop import known_op_types, lookup
from tests.parity_tables import op_cases, op_cases_nn
from tests.parity_tables.table_checks import needs_clone
from tests.userop.builder_helpers import build, variables  # noqa: F401

ALL_CASES = op_cases.CASES + op_cases_nn.CASES


@needs_clone
def test_every_op_type_is_buildable_with_oneflows_names_or_has_a_reason():
    rows = op_types.table()
    assert len(rows) > 350  # v0.4.0 registers 386 op types
    bad = [
        (r.op.name, r.status, r.mismatches)
        for r in rows
        if r.status in ("mismatch", "unclassified")
    ]
    assert bad == []
    names = {r.op.name for r in rows}
    # the not-yet list only names OneFlow types flowjob does not build
    assert _not_yet.NOT_YET <= names
    assert not _not_yet.NOT_YET & set(known_op_types())
    normalization = next(r for r in rows if r.op.name == "normalization")
    assert normalization.status == "buildable"
    assert [a.name for a in normalization.op.outputs] == ["y", "mean", "inv_variance"]


def test_each_new_op_type_has_a_case_against_its_public_op():
    new = {
        t
        for t in known_op_types()
        if lookup(t).build.__module__.endswith(("_builtin_math", "_builtin_nn"))
    }
    assert new - {"normalization", "assign"} <= {t for t, _, _ in ALL_CASES}


def _run(cases):
    """One job computing every case; ``[(op type, built values, public values)]``."""
    names = list(op_cases.INPUTS)

    def body(*blobs):
        v = dict(zip(names, blobs))
        out = []
        for _, n, fn in cases:
            got, want = fn(v)
            assert len(got) == len(want) == n
            out += [*got, *want]
        return tuple(out)

    params = [
        inspect.Parameter(
            n,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            annotation=tp.Numpy.Placeholder(a.shape, dtype=_DTYPES[a.dtype.name]),
        )
        for n, a in op_cases.INPUTS.items()
    ]
    total = 2 * sum(n for _, n, _ in cases)
    body.__signature__ = inspect.Signature(params)
    body.__annotations__ = {p.name: p.annotation for p in params}
    body.__annotations__["return"] = typing.Tuple[tuple(tp.Numpy for _ in range(total))]
    values = flow.global_function()(body)(*op_cases.INPUTS.values())
    results, pos = [], 0
    for op_type, n, _ in cases:
        results.append((op_type, values[pos : pos + n], values[pos + n : pos + 2 * n]))
        pos += 2 * n
    return results


_DTYPES = {"float32": flow.float32, "int32": flow.int32}


@pytest.mark.parametrize("cases", [op_cases.CASES, op_cases_nn.CASES], ids=["math", "nn"])
def test_built_op_types_give_the_public_ops_values(fresh_session, cases):
    for op_type, got, want in _run(cases):
        for g, w in zip(got, want):
            assert g.shape == w.shape and g.dtype == w.dtype, op_type
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6, err_msg=op_type)
