"""Running programs written for OneFlow's legacy API on flowjob, unchanged.

While the alias is installed (``flowjob run script.py``, or ``with aliased(): ...``),
``import oneflow as flow``, ``import oneflow.typing as tp``,
``from oneflow.compatible import single_client as flow`` and
``from oneflow.compatible.single_client import typing as tp`` (and submodules) give alias
modules that forward to flowjob. No package named ``oneflow`` is installed or needed. A OneFlow
name flowjob lacks fails with ``MissingOneFlowAPI`` (an ``AttributeError``) or
``MissingOneFlowModule`` (a ``ModuleNotFoundError``) naming the OneFlow API.
"""

from ._alias import AliasModule
from ._check import Finding, check_programs
from ._errors import MissingOneFlowAPI, MissingOneFlowModule, MissingOneFlowName
from ._finder import aliased, install, is_installed, uninstall
from ._resolve import ROOTS
from ._script import run_script

__all__ = [
    "AliasModule",
    "Finding",
    "MissingOneFlowAPI",
    "MissingOneFlowModule",
    "MissingOneFlowName",
    "ROOTS",
    "aliased",
    "check_programs",
    "install",
    "is_installed",
    "run_script",
    "uninstall",
]
