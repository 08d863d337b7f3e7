"""``flowjob run _discover.py PATH``: runs the tests of OneFlow test file PATH the way OneFlow's
CI ran the ops folder at 2 and 4 devices (``python3 -m unittest discover test/ops``): the file
is imported as a module, not run as ``__main__``, so files without ``unittest.main()`` run too.
A folder PATH is discovered whole (``python3 -m unittest discover PATH --failfast``, as the CI
ran ``custom_ops/``)."""

import sys
import unittest
from pathlib import Path

path = Path(sys.argv[1]).resolve()
if path.is_dir():
    suite = unittest.defaultTestLoader.discover(str(path))
    runner = unittest.TextTestRunner(verbosity=2, failfast=True)
else:
    sys.path.insert(0, str(path.parent))
    suite = unittest.defaultTestLoader.loadTestsFromName(path.stem)
    runner = unittest.TextTestRunner(verbosity=2)
result = runner.run(suite)
sys.exit(0 if result.wasSuccessful() else 1)
