"""OneFlow's internal module paths that programs import (``oneflow._oneflow_internal``,
``oneflow.core.*_pb2``, ``oneflow.python.*``), with the few names they use.

The alias maps ``oneflow.core``, ``oneflow.python`` and ``oneflow._oneflow_internal`` here
(see ``_resolve.LEGACY_MODULES``); nothing else in flowjob imports this package.
"""
