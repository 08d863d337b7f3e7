"""``flowjob run _discover.py FILE``: runs the tests of OneFlow test file FILE the way OneFlow's
CI ran the folder at 2 and 4 devices (``python3 -m unittest discover test/ops``): the file is
imported as a module, not run as ``__main__``, so files without ``unittest.main()`` run too."""

import sys
import unittest
from pathlib import Path

path = Path(sys.argv[1]).resolve()
sys.path.insert(0, str(path.parent))
suite = unittest.defaultTestLoader.loadTestsFromName(path.stem)
result = unittest.TextTestRunner(verbosity=2).run(suite)
sys.exit(0 if result.wasSuccessful() else 1)
