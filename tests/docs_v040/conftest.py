"""The documentation programs come from a clone named by ``FLOWJOB_DOCS_SRC``; without one each
test skips with the line saying how to get it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.upstream import DOCS, UpstreamError, extract


@pytest.fixture(scope="session")
def docs() -> dict[str, Path]:
    """language ("en", "cn") -> the clone's ``<language>/docs/code`` at v0.4.0, extracted."""
    if DOCS.clone() is None:
        pytest.skip(DOCS.missing_line())
    try:
        return {
            lang: extract(DOCS, f"{lang}/docs/code") / lang / "docs" / "code"
            for lang in ("en", "cn")
        }
    except UpstreamError as exc:
        pytest.fail(str(exc))
