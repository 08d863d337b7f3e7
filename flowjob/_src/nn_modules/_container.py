"""Containers of OneFlow v0.4 (PyTorch's): ``nn.Sequential``, ``nn.ModuleList``,
``nn.ModuleDict``, ``nn.ParameterList`` and ``nn.ParameterDict``. Members are registered
under their index (``"0"``, ``"1"``...) or key, so ``state_dict`` names them that way."""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ..imperative import Module, Parameter


def _index(container: Module, idx: Any) -> str:
    """The registered name of position ``idx`` (negative counts from the end)."""
    size = len(container)
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"{type(container).__name__}: index {idx} is out of range ({size})")
    return str(idx % size)


def _pairs(who: str, items: Any) -> Iterable[tuple[str, Any]]:
    if isinstance(items, Mapping):
        return list(items.items())
    if isinstance(items, (ModuleDict, ParameterDict)):
        return list(items.items())
    if not isinstance(items, Iterable):
        raise TypeError(
            f"{who}.update takes a mapping or key/value pairs, got {type(items).__name__}"
        )
    out = []
    for j, item in enumerate(items):
        if not isinstance(item, Iterable) or len(item) != 2:
            raise ValueError(
                f"{who}.update: element #{j} must be a (key, value) pair, got {item!r}"
            )
        out.append((item[0], item[1]))
    return out


class Sequential(Module):
    """Calls its modules in order, each on the previous one's output; built from modules
    (named ``"0"``, ``"1"``...) or one ``OrderedDict`` of named modules.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> net = flow.nn.Sequential(flow.nn.Linear(2, 3), flow.nn.ReLU())
        >>> assert len(net) == 2 and isinstance(net[-1], flow.nn.ReLU)
        >>> assert list(net.state_dict()) == ["0.weight", "0.bias"]
        >>> assert tuple(net(flow.Tensor(np.ones((1, 2)))).shape) == (1, 3)
    """

    def __init__(self, *args: Any):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def _key(self, idx: Any) -> str:
        return list(self._modules)[int(_index(self, idx))]

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return self._modules[self._key(idx)]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, self._key(idx), module)

    def __delitem__(self, idx: Any) -> None:
        keys = list(self._modules)[idx] if isinstance(idx, slice) else [self._key(idx)]
        for key in keys:
            delattr(self, key)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def forward(self, input: Any) -> Any:  # noqa: A002
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    """A list of modules, registered as ``"0"``, ``"1"``...; not callable itself."""

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[_index(self, idx)]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, _index(self, idx), module)

    def __delitem__(self, idx: Any) -> None:
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                del self._modules[str(k)]
        else:
            del self._modules[_index(self, idx)]
        kept = list(self._modules.values())
        self._modules.clear()
        self._modules.update((str(i), m) for i, m in enumerate(kept))

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def insert(self, index: int, module: Module) -> None:
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        if not isinstance(modules, Iterable):
            raise TypeError(
                f"ModuleList.extend takes an iterable of modules, got {type(modules).__name__}"
            )
        for module in list(modules):
            self.append(module)
        return self

    def forward(self, *args: Any) -> Any:
        raise NotImplementedError("ModuleList is not callable: call its modules")


class ModuleDict(Module):
    """A dict of modules by string key, in insertion order; not callable itself."""

    def __init__(self, modules: Mapping[str, Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def clear(self) -> None:
        self._modules.clear()

    def pop(self, key: str) -> Module:
        return self._modules.pop(key)

    def keys(self) -> Iterable[str]:
        return self._modules.keys()

    def items(self) -> Iterable[tuple[str, Module]]:
        return self._modules.items()

    def values(self) -> Iterable[Module]:
        return self._modules.values()

    def update(self, modules: Any) -> None:
        for key, module in _pairs("ModuleDict", modules):
            self[key] = module

    def forward(self, *args: Any) -> Any:
        raise NotImplementedError("ModuleDict is not callable: call its modules")


class ParameterList(Module):
    """A list of parameters, registered as ``"0"``, ``"1"``...; not callable.

    Examples:
        >>> import flowjob.experimental as flow
        >>> ps = flow.nn.ParameterList([flow.nn.Parameter(flow.Tensor(2)) for _ in range(3)])
        >>> assert len(ps) == 3 and len(list(ps.parameters())) == 3
    """

    def __init__(self, parameters: Iterable[Parameter] | None = None) -> None:
        super().__init__()
        if parameters is not None:
            self.extend(parameters)

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return type(self)(list(self._parameters.values())[idx])
        return self._parameters[_index(self, idx)]

    def __setitem__(self, idx: int, param: Parameter) -> None:
        self.register_parameter(_index(self, idx), param)

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self) -> Iterator[Parameter]:
        return iter(self._parameters.values())

    def __iadd__(self, parameters: Iterable[Parameter]) -> ParameterList:
        return self.extend(parameters)

    def append(self, parameter: Parameter) -> ParameterList:
        self.register_parameter(str(len(self)), parameter)
        return self

    def extend(self, parameters: Iterable[Parameter]) -> ParameterList:
        if not isinstance(parameters, Iterable):
            raise TypeError(
                f"ParameterList.extend takes an iterable of parameters, got "
                f"{type(parameters).__name__}"
            )
        for param in list(parameters):
            self.append(param)
        return self

    def __call__(self, *args: Any) -> Any:
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """A dict of parameters by string key, in insertion order; not callable."""

    def __init__(self, parameters: Mapping[str, Parameter] | None = None) -> None:
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str) -> Parameter:
        return self._parameters[key]

    def __setitem__(self, key: str, parameter: Parameter) -> None:
        self.register_parameter(key, parameter)

    def __delitem__(self, key: str) -> None:
        del self._parameters[key]

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self) -> Iterator[str]:
        return iter(self._parameters)

    def __contains__(self, key: str) -> bool:
        return key in self._parameters

    def clear(self) -> None:
        self._parameters.clear()

    def pop(self, key: str) -> Parameter:
        return self._parameters.pop(key)

    def keys(self) -> Iterable[str]:
        return self._parameters.keys()

    def items(self) -> Iterable[tuple[str, Parameter]]:
        return self._parameters.items()

    def values(self) -> Iterable[Parameter]:
        return self._parameters.values()

    def update(self, parameters: Any) -> None:
        for key, param in _pairs("ParameterDict", parameters):
            self[key] = param

    def __call__(self, *args: Any) -> Any:
        raise RuntimeError("ParameterDict should not be called.")
