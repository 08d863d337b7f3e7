"""The model tests run only when asked, as the op suite (tests/oneflow_v040/conftest.py)."""

import pytest

from tests.oneflow_v040.conftest import pytest_collection_modifyitems  # noqa: F401
from tests.upstream import ONEFLOW, UpstreamError

from ._run import models_folder


@pytest.fixture(scope="session")
def oneflow_models():
    """The extracted ``oneflow/python/test/models`` of the clone; skips without a clone."""
    if ONEFLOW.clone() is None:
        pytest.skip(ONEFLOW.missing_line())
    try:
        return models_folder()
    except UpstreamError as exc:
        pytest.fail(str(exc))
