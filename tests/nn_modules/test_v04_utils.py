"""``oneflow.python.nn.modules.utils``: the helpers OneFlow v0.4's tests import."""

import pytest

from flowjob._src.compat.legacy.python.nn.modules import utils


def test_tuples_from_a_value_or_an_iterable():
    assert utils._single(3) == (3,) and utils._pair(3) == (3, 3) and utils._triple(1) == (1,) * 3
    assert utils._pair([1, 2]) == (1, 2) and utils._quadruple(0) == (0, 0, 0, 0)
    assert utils._reverse_repeat_tuple((1, 2), 2) == (2, 2, 1, 1)


def test_list_with_default_and_check_axis():
    assert utils._list_with_default([None, 5], [1, 2, 3]) == [2, 5]
    assert utils._list_with_default(4, [1]) == 4
    with pytest.raises(ValueError, match="at least 3"):
        utils._list_with_default([1, 2], [1, 2])
    assert utils._check_axis(None, (2, 3)) == [0, 1] and utils._check_axis(-1, (2, 3)) == [1]
    with pytest.raises(IndexError, match="out of range"):
        utils._check_axis(2, (2, 3))
