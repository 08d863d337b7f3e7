"""Griffe extension for the API reference (mkdocs.yml): a public ``flow.X`` namespace
re-exports its names from the engine (``from ._src... import name``). Griffe treats imported
names as private unless the namespace lists them in ``__all__``; this marks them public for
namespaces that have no ``__all__``, so every public name gets its entry."""

from __future__ import annotations

from typing import Any

import griffe


def _is_public_namespace(path: str) -> bool:
    parts = path.split(".")
    return parts[0] == "flowjob" and not any(p.startswith("_") for p in parts)


class PublicReexports(griffe.Extension):
    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        todo = [pkg]
        while todo:
            module = todo.pop()
            if not _is_public_namespace(module.path):
                continue
            explicit = module.exports is not None
            for name, member in list(module.members.items()):
                if name.startswith("_"):
                    continue
                if not member.is_alias and member.is_module:
                    todo.append(member)
                elif member.is_alias and not explicit:
                    try:
                        if member.final_target.is_module:
                            continue  # a namespace has its own page
                    except (griffe.AliasResolutionError, griffe.CyclicAliasError):
                        continue
                    member.public = True
