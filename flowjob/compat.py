"""Running programs written for OneFlow's legacy API on flowjob, unchanged.

While the alias is installed (``flowjob run script.py``, or ``with aliased(): ...``),
``import oneflow as flow``, ``import oneflow.typing as tp``,
``from oneflow.compatible import single_client as flow`` and
``from oneflow.compatible.single_client import typing as tp`` (and submodules) give alias
modules that forward to flowjob. No package named ``oneflow`` is installed or needed. A OneFlow
name flowjob lacks fails with ``MissingOneFlowAPI`` (an ``AttributeError``) or
``MissingOneFlowModule`` (a ``ModuleNotFoundError``) naming the OneFlow API.
``check_programs`` (``flowjob check``) finds such names without running the program.
"""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.compat import (
    ROOTS,
    AliasModule,
    Finding,
    MissingOneFlowAPI,
    MissingOneFlowModule,
    MissingOneFlowName,
    aliased,
    check_programs,
    install,
    is_installed,
    run_script,
    uninstall,
)

_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
