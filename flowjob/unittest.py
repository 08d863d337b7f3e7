"""``oneflow.unittest``: the test-case base and device-count skips of OneFlow's own op tests.

OneFlow's test files (``oneflow/python/test/ops/``) subclass ``flow.unittest.TestCase`` and
decorate classes with ``flow.unittest.skip_unless_1n1d()`` and friends. The machine shape they
run on comes from OneFlow's test environment variables (``ONEFLOW_TEST_DEVICE_NUM``,
``ONEFLOW_TEST_NODE_LIST``), read by ``flowjob.unittest.env``; each test starts in the
execution mode ``ONEFLOW_TEST_ENABLE_EAGER`` asks for (lazy unless it is ``1``).
"""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.unittest import (
    TestCase,
    env,
    num_nodes_required,
    register_test_cases,
    skip_unless,
    skip_unless_1n1d,
    skip_unless_1n2d,
    skip_unless_1n4d,
    skip_unless_2n1d,
    skip_unless_2n2d,
    skip_unless_2n4d,
)

_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
