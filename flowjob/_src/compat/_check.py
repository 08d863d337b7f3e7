"""``flowjob check``: which OneFlow, NumPy and Pillow names a program uses that flowjob lacks.

A static scan: each file is parsed (``ast``), never run. The names are looked up the way
``flowjob run`` would find them: OneFlow names through the alias modules (``import oneflow``
gives flowjob), NumPy and Pillow names on the installed libraries with the removed names
``flowjob run`` restores (``_removed_names.py``). What is looked up: every attribute chain off
a name bound by ``import oneflow... / numpy... / PIL...`` (``flow.nn.conv2d``,
``np.float``), every ``from oneflow... import x``, and the known-unsupported constructs of
:data:`UNSUPPORTED` (they exist in flowjob only to fail with a clear error). Modules of the
program's own folder that it imports are scanned too. Imports inside ``try`` blocks that catch
``ImportError`` are optional and not reported.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import os
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ._check_calls import call_problems
from ._finder import aliased
from ._legacy_libraries import legacy_library_names

__all__ = ["Finding", "UNSUPPORTED", "check_programs"]

# The top-level packages whose names are checked.
ROOTS = ("oneflow", "numpy", "PIL")
_IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}

_NO_HEADERS = "there are no OneFlow headers to build C++ ops against"
_NO_LIBRARY = "there is no OneFlow library to link C++ ops against"
# flowjob objects that exist only to raise a clear error (dotted flowjob path -> why).
UNSUPPORTED: dict[str, str] = {
    "flowjob._src.userop.load_library": "OneFlow C++ op libraries (.so) cannot load into flowjob; "
    "write the op's kernels in Python (flow.register_python_op)",
    "flowjob._src.sysconfig.get_include": _NO_HEADERS,
    "flowjob._src.sysconfig.get_lib": _NO_LIBRARY,
    "flowjob._src.sysconfig.get_compile_flags": _NO_HEADERS,
    "flowjob._src.sysconfig.get_link_flags": _NO_LIBRARY,
}
# Calls whose first argument names an op type the program defines itself.
_REGISTERS = {"register_python_op", "custom_op_module", "user_op_module_builder"}
# Methods of OneFlow objects that flowjob cannot serve (attribute name -> why), found on any
# call chain that starts at a oneflow name.
UNSUPPORTED_METHODS: dict[str, str] = {
    "cpp_kernel": "custom op C++ kernels cannot be compiled by flowjob; use py_kernel()",
    "gpu_kernel": "custom op CUDA kernels cannot be compiled by flowjob; use py_kernel()",
}


@dataclass(frozen=True)
class Finding:
    """One use of a name flowjob lacks: where, which name (as the program spells it), why."""

    path: str
    line: int
    col: int
    name: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col + 1}: {self.name}: {self.message}"


def _import_object(module: str, attrs: Sequence[str] = ()) -> Any:
    """``module.attrs...``, importing submodules where an attribute is one (as ``from m import
    x`` does); raises ImportError / AttributeError as the program would get them."""
    obj: Any = importlib.import_module(module)
    path = module
    for attr in attrs:
        try:
            obj = getattr(obj, attr)
        except AttributeError:
            if not hasattr(obj, "__path__"):
                raise
            obj = importlib.import_module(f"{path}.{attr}")
        path = f"{path}.{attr}"
    return obj


def _root(module: str) -> str | None:
    top = module.split(".", 1)[0]
    return top if top in ROOTS else None


def _unsupported_objects() -> dict[int, str]:
    found = {}
    for dotted, why in UNSUPPORTED.items():
        module, _, attr = dotted.rpartition(".")
        found[id(_import_object(module, [attr]))] = why
    return found


class _FileScan(ast.NodeVisitor):
    """The findings of one parsed file, and the local modules it imports."""

    def __init__(self, path: str, unsupported: dict[int, str]) -> None:
        self.path = path
        self.folder = os.path.dirname(path)
        self.unsupported = unsupported
        self.aliases: dict[str, tuple[str, tuple[str, ...]]] = {}  # name -> (module, attrs)
        self.findings: list[Finding] = []
        self.local_modules: list[str] = []
        self.op_types: list[tuple[ast.Call, str]] = []  # .Op("type") calls on oneflow chains
        self.own_op_types: set[str] = set()  # types the program registers itself
        self._guarded = 0  # inside try blocks that catch ImportError

    def report(self, node: ast.AST, name: str, message: str) -> None:
        self.findings.append(Finding(self.path, node.lineno, node.col_offset, name, message))

    def _note_local(self, module: str) -> None:
        """A module of the program's folder: ``name.py`` or the package ``name/__init__.py``."""
        base = os.path.join(self.folder, *module.split("."))
        for candidate in (base + ".py", os.path.join(base, "__init__.py")):
            if os.path.isfile(candidate):
                self.local_modules.append(candidate)
                return

    # -- imports ----------------------------------------------------------------------------
    def visit_Try(self, node: ast.Try) -> None:
        catches = any(
            h.type is None
            or any(
                isinstance(t, ast.Name) and t.id in _IMPORT_ERRORS
                for t in (h.type.elts if isinstance(h.type, ast.Tuple) else [h.type])
            )
            for h in node.handlers
        )
        self._guarded += catches
        for stmt in node.body:
            self.visit(stmt)
        self._guarded -= catches
        for part in (*node.handlers, *node.orelse, *node.finalbody):
            self.visit(part)

    visit_TryStar = visit_Try

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._note_local(alias.name)
            if _root(alias.name) is None:
                continue
            if alias.asname:
                self.aliases[alias.asname] = (alias.name, ())
            else:
                top = alias.name.split(".", 1)[0]
                self.aliases[top] = (top, ())
            self._try_import(node, alias.name, alias.name, ())

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level or node.module is None:
            return
        self._note_local(node.module)
        if _root(node.module) is None:
            return
        for alias in node.names:
            if alias.name == "*":
                self._try_import(node, node.module, node.module, ())
                continue
            local = alias.asname or alias.name
            if self._try_import(node, f"{node.module}.{alias.name}", node.module, (alias.name,)):
                self.aliases[local] = (node.module, (alias.name,))

    def _try_import(self, node: ast.AST, shown: str, module: str, attrs: tuple[str, ...]) -> bool:
        try:
            obj = _import_object(module, attrs)
        except (ImportError, AttributeError) as exc:
            if not self._guarded:
                self.report(node, shown, _reason(shown, exc))
            return False
        self._check_unsupported(node, shown, obj)
        return True

    # -- uses -------------------------------------------------------------------------------
    def visit_Attribute(self, node: ast.Attribute) -> None:
        chain: list[str] = []
        inner: ast.expr = node
        while isinstance(inner, ast.Attribute):
            chain.append(inner.attr)
            inner = inner.value
        chain.reverse()
        if isinstance(inner, ast.Name) and inner.id in self.aliases:
            self._check_chain(node, inner.id, chain)
            return
        self._check_methods(node)
        self.generic_visit(node)

    def _check_chain(self, node: ast.Attribute, name: str, chain: list[str]) -> None:
        module, attrs = self.aliases[name]
        try:
            obj = _import_object(module, attrs)
        except (ImportError, AttributeError):
            return  # reported at the import
        shown = ".".join([module, *attrs])
        for attr in chain:
            shown = f"{shown}.{attr}"
            try:
                obj = getattr(obj, attr)
            except AttributeError as exc:
                if isinstance(node.ctx, ast.Load):
                    self.report(node, shown, _reason(shown, exc))
                return
            if self._check_unsupported(node, shown, obj):
                return

    def _resolve(self, expr: ast.expr) -> tuple[Any, str] | None:
        """The OneFlow object a name or attribute chain names, and its dotted spelling; None
        for anything else (or a name flowjob lacks, reported where it is read)."""
        chain: list[str] = []
        while isinstance(expr, ast.Attribute):
            chain.append(expr.attr)
            expr = expr.value
        if not (isinstance(expr, ast.Name) and expr.id in self.aliases):
            return None
        module, attrs = self.aliases[expr.id]
        if _root(module) != "oneflow":
            return None
        try:
            obj = _import_object(module, attrs)
            for attr in reversed(chain):
                obj = getattr(obj, attr)
        except (ImportError, AttributeError):
            return None
        return obj, ".".join([module, *attrs, *reversed(chain)])

    def _check_methods(self, node: ast.Attribute) -> None:
        """``builder.cpp_kernel()`` on a chain of calls that starts at a oneflow name."""
        if node.attr not in UNSUPPORTED_METHODS:
            return
        inner: ast.expr = node.value
        while isinstance(inner, (ast.Attribute, ast.Call)):
            inner = inner.value if isinstance(inner, ast.Attribute) else inner.func
        if isinstance(inner, ast.Name) and inner.id in self.aliases:
            module = self.aliases[inner.id][0]
            if _root(module) == "oneflow":
                self.report(node, f".{node.attr}()", UNSUPPORTED_METHODS[node.attr])

    def visit_Call(self, node: ast.Call) -> None:
        """Calls of OneFlow functions whose arguments do not fit (``_check_calls``), and
        ``flow.user_op_builder(name).Op("type")`` (and the module builders') with a literal
        type flowjob has no op for, unless the program registers that type itself."""
        func = node.func
        resolved = self._resolve(func)
        if resolved is not None:
            for message in call_problems(node, *resolved):
                self.report(node, f"{resolved[1]}()", message)
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "Op"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and self._starts_at_oneflow(func.value)
        ):
            self.op_types.append((node, node.args[0].value))
        if isinstance(func, ast.Attribute) and func.attr in _REGISTERS and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                self.own_op_types.add(first.value)
        self.generic_visit(node)

    def _starts_at_oneflow(self, expr: ast.expr) -> bool:
        while isinstance(expr, (ast.Attribute, ast.Call)):
            expr = expr.value if isinstance(expr, ast.Attribute) else expr.func
        if not (isinstance(expr, ast.Name) and expr.id in self.aliases):
            return False
        return _root(self.aliases[expr.id][0]) == "oneflow"

    def report_op_types(self, known: set[str], own: set[str]) -> None:
        for node, op_type in self.op_types:
            if op_type not in known and op_type not in own:
                self.report(
                    node,
                    f'.Op("{op_type}")',
                    f"flowjob has no built-in op type {op_type!r} ({len(known)} OneFlow op "
                    "types are built by name; a program's own op: flow.register_python_op)",
                )

    def _check_unsupported(self, node: ast.AST, shown: str, obj: Any) -> bool:
        why = self.unsupported.get(id(obj))
        if why is not None:
            self.report(node, shown, f"unsupported by flowjob: {why}")
        return why is not None


def _reason(name: str, exc: BaseException) -> str:
    text = str(exc)
    if name.startswith("oneflow"):
        return text.replace(f"{name} is ", "", 1) if text.startswith(name) else text
    library = {"PIL": "Pillow", "numpy": "NumPy"}[name.split(".", 1)[0]]
    return f"not in the installed {library}, nor restored by flowjob run ({text})"


@contextlib.contextmanager
def _lookups() -> Iterator[None]:
    """The names as a program run by ``flowjob run`` sees them, without warnings."""
    with aliased(), legacy_library_names(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def check_programs(paths: Iterable[str], follow_imports: bool = True) -> list[Finding]:
    """The findings of ``paths`` (and of the local modules they import, when
    ``follow_imports``), in file order then line order."""
    findings: list[Finding] = []
    queue = [os.path.abspath(p) for p in paths]
    seen: set[str] = set()
    scans: list[_FileScan] = []
    with _lookups():
        unsupported = _unsupported_objects()
        while queue:
            path = queue.pop(0)
            if path in seen:
                continue
            seen.add(path)
            scans.append(_scan_file(path, unsupported))
            if follow_imports:
                queue.extend(m for m in scans[-1].local_modules if m not in seen)
        known = set(_import_object("flowjob._src.userop").known_op_types())
    own = {t for scan in scans for t in scan.own_op_types}  # registered in any of its files
    for scan in scans:
        scan.report_op_types(known, own)
        findings.extend(sorted(scan.findings, key=lambda f: (f.line, f.col)))
    return findings


def _scan_file(path: str, unsupported: dict[int, str]) -> _FileScan:
    scan = _FileScan(path, unsupported)
    with open(path, "rb") as f:
        source = f.read()
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as exc:
        scan.findings.append(
            Finding(path, exc.lineno or 0, (exc.offset or 1) - 1, "<syntax>", exc.msg)
        )
        return scan
    scan.visit(tree)
    return scan
