"""The house of two floors: the files at the top of ``flowjob/`` only re-export what
``flowjob/_src/`` implements; the engine never imports the public floor, and only ``compat``
(OneFlow's module paths) uses the legacy spellings; every namespace serves OneFlow's deprecated
names from its ``_deprecations`` data and names the closest public name for a typo."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import flowjob as flow

PACKAGE = Path(flow.__file__).parent
PUBLIC_FILES = sorted(p for p in PACKAGE.glob("*.py") if p.name != "__main__.py")
ENGINE_PACKAGES = ["graph", "runtime", "processes", "ops", "kernels", "export", "imperative", "cli"]


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in ``path``."""
    name = _module_name(path)
    base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                target = ".".join(base[: len(base) - node.level + 1] + [node.module or ""])
            else:
                target = node.module or ""
            targets = [target.rstrip(".")]
            if target.rstrip(".") in ("flowjob", "flowjob._src"):
                targets = [f"{target.rstrip('.')}.{a.name}" for a in node.names]
            out += [(node.lineno, t) for t in targets]
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
    return out


@pytest.mark.parametrize("path", PUBLIC_FILES, ids=lambda p: p.name)
def test_public_files_only_re_export(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    defined = [
        n.name
        for n in tree.body
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    ]
    assert defined == [], f"{path.name} implements {defined}: that belongs under flowjob/_src/"


def test_the_engine_never_imports_the_public_floor_or_the_legacy_spellings():
    bad = []
    for path in sorted((PACKAGE / "_src").rglob("*.py")):
        # legacy/ itself, and compat/ (OneFlow's own module paths for `flowjob run`), serve
        # the deprecated spellings; the engine proper never uses them
        in_legacy = path.relative_to(PACKAGE / "_src").parts[0] in ("legacy", "compat")
        for line, target in _imported_modules(path):
            where = f"{path.relative_to(PACKAGE.parent)}:{line} imports {target}"
            if target.startswith("flowjob.") and not target.startswith("flowjob._src"):
                bad.append(where)
            if not in_legacy and target.startswith("flowjob._src.legacy"):
                bad.append(where)
    assert bad == []


def test_the_top_of_flowjob_holds_only_namespace_files_and_src():
    folders = [p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"]
    assert folders == ["_src"]


def test_engine_packages_are_not_in_dir_flow():
    assert [p for p in ENGINE_PACKAGES if p in dir(flow)] == []


@pytest.mark.parametrize(
    "namespace,typo,nearest",
    [
        ("nn", "rleu", "relu"),
        ("optimizer", "Adamw", "AdamW"),
        ("", "global_fucntion", "global_function"),
    ],
)
def test_a_typo_names_the_nearest_public_name(namespace, typo, nearest):
    module = importlib.import_module(f"flowjob.{namespace}" if namespace else "flowjob")
    with pytest.raises(
        AttributeError, match=rf"has no attribute '{typo}'\. Did you mean '{nearest}'\?"
    ):
        getattr(module, typo)


def test_an_unknown_dunder_is_a_plain_miss():
    assert not hasattr(flow.nn, "__path__")
    assert not hasattr(flow, "__wrapped__")


@pytest.mark.parametrize("path", PUBLIC_FILES, ids=lambda p: p.name)
def test_deprecated_names_are_data_served_from_the_legacy_package(path):
    module = importlib.import_module(_module_name(path))
    deprecations = module._deprecations
    for name, obj in deprecations.items():
        assert getattr(module, name) is obj
        assert name in dir(module)
        assert obj.__module__.startswith("flowjob._src.legacy."), (name, obj.__module__)
        assert flow.is_deprecated(obj)
        # served by __getattr__, so the public file itself does not bind the old name
        assert name not in vars(module)


def test_current_names_are_not_deprecated():
    assert not flow.is_deprecated(flow.global_function)
    assert not flow.is_deprecated(flow.function_config)
    assert not flow.is_deprecated(flow.matmul)
    assert flow.is_deprecated(flow.FixedTensorDef) and flow.is_deprecated(flow.train.CheckPoint)


def test_processes_never_imports_the_runtime_and_the_runtime_only_its_public_names():
    """Several-process coordination (``_src/processes/``) sits below the runtime: imports go
    one way, and the runtime sees the package's ``__init__`` only."""
    bad = []
    for path in sorted((PACKAGE / "_src").rglob("*.py")):
        inside = path.relative_to(PACKAGE / "_src").parts[0]
        for line, target in _imported_modules(path):
            where = f"{path.relative_to(PACKAGE.parent)}:{line} imports {target}"
            if inside == "processes" and target.startswith("flowjob._src.runtime"):
                bad.append(where)
            private = target.startswith("flowjob._src.processes._")
            if inside != "processes" and private:
                bad.append(where)
    assert bad == []
