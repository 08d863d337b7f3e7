"""OneFlow v0.4.0's argument-normalizing helpers (read from a clone) each have a flowjob
counterpart, and the counterparts accept the forms OneFlow's helpers accepted."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.compat.parity import normalizers
from flowjob._src.errors import OpError
from flowjob._src.ops._util import int_list, norm_axes
from tests.parity_tables.table_checks import needs_clone


@needs_clone
def test_every_oneflow_normalizing_helper_has_a_counterpart():
    helpers = normalizers.table()
    assert [h.name for h in helpers if h.counterpart is None] == []
    assert set(normalizers.COUNTERPARTS) == {h.name for h in helpers}
    by_name = {h.name: h for h in helpers}
    assert "nn.max_pool2d" in by_name["_GetSequence"].callers
    assert "math.reduce_sum" in by_name["_check_axis"].callers


def _get_sequence(value, n):
    """OneFlow's rule (nn_ops._GetSequence, as documented behaviour): None is [1]; anything
    without a length is one value; a length-1 sequence repeats n times; length n stays."""
    if value is None:
        value = [1]
    elif not hasattr(value, "__len__"):
        value = [value]
    if len(value) == 1:
        return [int(v) for v in list(value) * n]
    if len(value) == n:
        return [int(v) for v in value]
    raise ValueError(value)


_INT = st.integers(1, 9)
_FORMS = st.one_of(
    st.none(),
    _INT,
    _INT.map(np.int64),
    _INT.map(np.int32),
    st.lists(_INT, min_size=1, max_size=1),
    st.lists(_INT, min_size=2, max_size=2),
    st.lists(_INT, min_size=2, max_size=2).map(tuple),
    st.lists(_INT, min_size=1, max_size=2).map(np.array),
)


@settings(max_examples=200, deadline=None)
@given(value=_FORMS)
def test_int_list_reads_every_form_oneflows_get_sequence_read(value):
    assert list(int_list("op", value, 2, "strides")) == _get_sequence(value, 2)


@settings(max_examples=50, deadline=None)
@given(value=st.lists(_INT, min_size=3, max_size=4))
def test_int_list_refuses_lengths_oneflow_refused(value):
    with pytest.raises(ValueError):
        _get_sequence(value, 2)
    with pytest.raises(OpError, match="strides must be an int or a list of 1 or 2 ints"):
        int_list("op", value, 2, "strides")


@settings(max_examples=100, deadline=None)
@given(
    axis=st.one_of(
        st.none(),
        st.integers(-3, 2),
        st.lists(st.integers(-3, 2), min_size=1, max_size=3, unique_by=lambda a: a % 3),
    ).flatmap(lambda a: st.sampled_from([a, tuple(a)]) if isinstance(a, list) else st.just(a))
)
def test_norm_axes_reads_oneflows_axis_forms(axis):
    expected = range(3) if axis is None else np.atleast_1d(np.asarray(axis)) % 3
    assert norm_axes("op", axis, 3) == tuple(sorted(set(int(a) for a in expected)))


X = np.random.default_rng(3).standard_normal((1, 2, 6, 6)).astype(np.float32)
W = np.random.default_rng(4).standard_normal((3, 2, 3, 3)).astype(np.float32)


def test_ops_take_the_sequence_and_padding_forms_oneflow_took(fresh_session):
    @flow.global_function()
    def job(
        x: tp.Numpy.Placeholder(X.shape), w: tp.Numpy.Placeholder(W.shape)
    ) -> tuple[tp.Numpy, tp.Numpy, tp.Numpy, tp.Numpy, tp.Numpy, tp.Numpy]:
        pools = [
            flow.nn.max_pool2d(x, np.int64(2), None, "VALID"),  # strides=None: 1
            flow.nn.max_pool2d(x, [2, 2], [1], "valid"),
            flow.nn.avg_pool2d(x, (3,), np.array([2, 2]), "same"),
            flow.nn.avg_pool2d(x, 3, 2, "SAME_LOWER"),
        ]
        convs = [
            flow.nn.conv2d(x, w, np.array([1, 1]), "SAME", dilations=np.int64(1)),
            flow.nn.conv2d(x, w, (1, 1), [[0, 0], [0, 0], [1, 1], [1, 1]], dilations=[1]),
        ]
        return (*pools, *convs)

    a, b, c, d, e, f = job(X, W)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(c, d)  # OneFlow's "same" is SAME_LOWER
    np.testing.assert_allclose(e, f, rtol=1e-5, atol=1e-5)  # SAME pads 1 each side here
    assert a.shape == (1, 2, 5, 5) and c.shape == (1, 2, 3, 3)


@needs_clone
def test_the_stored_literal_forms_are_the_clones():
    """``flowjob check`` judges literal arguments without a clone, from stored facts: they are
    the table's (which parameter of which export goes through which helper)."""
    from flowjob._src.compat.parity._literal_forms import LITERAL_FORMS
    from flowjob._src.ops.argument_forms import CHECKS

    read = {name: params for name, (_, params) in CHECKS.items()}
    assert normalizers.literal_forms(normalizers.table(), read) == LITERAL_FORMS
    assert set(CHECKS) <= set(normalizers.COUNTERPARTS)
