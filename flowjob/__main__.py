"""``python -m flowjob ...`` is the ``flowjob`` command."""

import sys

from ._src.cli.main import main

sys.exit(main())
