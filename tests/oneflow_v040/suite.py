"""Which of OneFlow v0.4.0's op test files run here, and why the others do not.

``SUITE``: file -> "" or the known cause of its failure on flowjob (shown in RESULTS.md; the
pytest runner treats a file with a known cause as an expected failure). ``EXCLUDED``: files of
``oneflow/python/test/ops/`` at v0.4.0 left out of the list (and not copied), with the reason.
How the list was chosen: README.md beside this file.
"""

from __future__ import annotations

import os

from ._run import OPS

HELPERS = ("test_util.py", "test_global_storage.py", "image_test_util.py")

SUITE: dict[str, str] = {
    name: "" for name in sorted(os.listdir(OPS))
    if name.startswith("test_") and name.endswith(".py") and name not in HELPERS
}

EXCLUDED: dict[str, str] = {}
