"""``flowjob run`` target that runs pytest on its arguments: oneflow-onnx's test files import
``oneflow``, which resolves to flowjob only inside a ``flowjob run`` process."""

import sys

import pytest

sys.exit(pytest.main(sys.argv[1:]))
