"""The ``flowjob`` command line: ``run``, ``board`` and ``doctor``."""
