"""``flow.nn.Parameter`` and ``flow.nn.Module``: OneFlow v0.4's module tree over eager tensors.

A module registers the parameters, buffers and sub-modules assigned to its attributes, in
assignment order; ``state_dict`` names them by dotted path (``"fc.weight"``), holding the
parameters and buffers themselves as v0.4 did, and ``load_state_dict`` copies values into them
in place. ``module(*args)`` runs the forward pre-hooks, ``forward``, then the forward hooks.
``to(device)`` replaces every parameter (and its gradient) and buffer by a copy on ``device``.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import numpy as np

from .. import autograd
from ._tensor import Tensor

T = TypeVar("T", bound="Module")


class Parameter(Tensor):
    """A tensor a module trains: shares ``data``'s values; ``requires_grad`` True by default."""

    def __init__(self, data: Any, requires_grad: bool = True):
        source = data if isinstance(data, Tensor) else Tensor(data)
        self._cell = source._cell
        self._init_autograd(requires_grad)

    def __repr__(self) -> str:
        return f"Parameter containing:\n{super().__repr__()}"

    def __deepcopy__(self, memo: dict) -> Parameter:
        return Parameter(super().__deepcopy__(memo), self.requires_grad)


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _check_name(kind: str, name: Any, owner: Module) -> None:
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string, got {type(name).__name__}")
    if "." in name:
        raise KeyError(f"{kind} name can't contain '.', got {name!r}")
    if name == "":
        raise KeyError(f"{kind} name can't be empty string")
    if hasattr(owner, name) and name not in owner.__dict__.get(f"_{kind}s", {}):
        raise KeyError(f"attribute {name!r} already exists")


class Module:
    """Base class of models: subclass it, assign parameters and sub-modules in ``__init__``
    (after ``super().__init__()``) and define ``forward``."""

    def __init__(self) -> None:
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_consistent", False)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_backward_hooks", OrderedDict())
        object.__setattr__(self, "_is_full_backward_hook", None)
        object.__setattr__(self, "_forward_hooks", OrderedDict())
        object.__setattr__(self, "_forward_pre_hooks", OrderedDict())
        object.__setattr__(self, "_state_dict_hooks", OrderedDict())
        object.__setattr__(self, "_load_state_dict_pre_hooks", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())

    # --- calling ----------------------------------------------------------------------------
    def forward(self, *args: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} has no forward method")

    def consistent_forward(self, *args: Any) -> Any:
        return self.forward(*args)

    def force_mirrored_forward(self, *args: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} has no force_mirrored_forward")

    def __call__(self, *args: Any) -> Any:
        for hook in self._forward_pre_hooks.values():
            result = hook(self, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
        out = self.forward(*args)
        for hook in self._forward_hooks.values():
            result = hook(self, args, out)
            if result is not None:
                out = result
        return out

    def register_forward_pre_hook(self, hook: Callable[..., Any]) -> None:
        """``hook(module, args)`` runs before ``forward``; a non-None result replaces args."""
        self._forward_pre_hooks[len(self._forward_pre_hooks)] = hook

    def register_forward_hook(self, hook: Callable[..., Any]) -> None:
        """``hook(module, args, output)`` runs after ``forward``; a non-None result replaces
        the output."""
        self._forward_hooks[len(self._forward_hooks)] = hook

    @property
    def consistent(self) -> bool:
        return self._consistent

    # --- registration -----------------------------------------------------------------------
    def _require_init(self, name: str) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError(
                f"cannot assign {name!r} before Module.__init__() call "
                f"(call super().__init__() first in {type(self).__name__}.__init__)"
            )

    def add_module(self, name: str, module: Module | None) -> None:
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._require_init(name)
        _check_name("module", name, self)
        self._modules[name] = module

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        self._require_init(name)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign {type(param).__name__} as parameter {name!r} "
                "(flow.nn.Parameter or None expected)"
            )
        _check_name("parameter", name, self)
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        self._require_init(name)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign {type(tensor).__name__} as buffer {name!r} "
                "(flow.Tensor or None expected)"
            )
        _check_name("buffer", name, self)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def __getattr__(self, name: str) -> Any:
        for kind in ("_parameters", "_buffers", "_modules"):
            registry = self.__dict__.get(kind)
            if registry is not None and name in registry:
                return registry[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        def drop_from(*kinds: str) -> None:
            for kind in kinds:
                self.__dict__.get(kind, {}).pop(name, None)
            self.__dict__.pop(name, None)

        if isinstance(value, Parameter):
            self._require_init(name)
            drop_from("_buffers", "_modules")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            # no add_module name check: v0.4 let a sub-module shadow a method (self.modules)
            self._require_init(name)
            drop_from("_parameters", "_buffers")
            self._modules[name] = value
        elif name in self.__dict__.get("_parameters", {}):
            if value is not None:
                raise TypeError(
                    f"cannot assign {type(value).__name__} as parameter {name!r} "
                    "(flow.nn.Parameter or None expected)"
                )
            self._parameters[name] = None
        elif name in self.__dict__.get("_modules", {}):
            if value is not None:
                raise TypeError(f"cannot assign {type(value).__name__} as child module {name!r}")
            self._modules[name] = None
        elif name in self.__dict__.get("_buffers", {}):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign {type(value).__name__} as buffer {name!r}")
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        for kind in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(kind, {}):
                del self.__dict__[kind][name]
                return
        object.__delattr__(self, name)

    # --- walking the tree -------------------------------------------------------------------
    def _named_members(
        self, members: Callable[[Module], Any], prefix: str = "", recurse: bool = True
    ) -> Iterator[tuple[str, Any]]:
        seen: set[int] = set()
        modules = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in members(module):
                if value is None or id(value) in seen:
                    continue
                seen.add(id(value))
                yield (module_prefix + ("." if module_prefix else "") + name, value)

    def named_parameters(
        self, prefix: str = "", recurse: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix: str = "", recurse: bool = True) -> Iterator[tuple[str, Tensor]]:
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_children(self) -> Iterator[tuple[str, Module]]:
        seen: set[int] = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self) -> Iterator[Module]:
        for _, module in self.named_children():
            yield module

    def named_modules(
        self, memo: set[int] | None = None, prefix: str = ""
    ) -> Iterator[tuple[str, Module]]:
        memo = set() if memo is None else memo
        if id(self) in memo:
            return
        memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(memo, prefix + ("." if prefix else "") + name)

    def modules(self) -> Iterator[Module]:
        for _, module in self.named_modules():
            yield module

    def apply(self: T, fn: Callable[[Module], None]) -> T:
        """Calls ``fn`` on every sub-module (children first), then on this module."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def train(self: T, mode: bool = True) -> T:
        """Sets ``training`` on this module and all sub-modules."""
        if not isinstance(mode, bool):
            raise TypeError(f"train: mode must be a bool, got {mode!r}")
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self: T) -> T:
        return self.train(False)

    def _apply(self: T, fn: Callable[[Tensor], Tensor]) -> T:
        """Replaces every parameter by ``Parameter(fn(param))`` (its gradient by
        ``fn(grad)``) and every buffer by ``fn(buffer)``, sub-modules first."""
        for module in self.children():
            module._apply(fn)
        for name, param in self._parameters.items():
            if param is None:
                continue
            with autograd.no_grad():
                moved = Parameter(fn(param), param.requires_grad)
                if param.grad is not None:
                    moved.grad = fn(param.grad)
            self._parameters[name] = moved
        for name, buf in self._buffers.items():
            if buf is not None:
                with autograd.no_grad():
                    self._buffers[name] = fn(buf)
        return self

    def to(self: T, device: Any = None) -> T:
        """Moves every parameter (with its gradient) and buffer to ``device`` (``"cpu"``,
        ``"cuda"``, ``flow.device(...)``): new leaf tensors there, as v0.4's ``Module.to``.

        Examples:
            >>> import flowjob.experimental as flow
            >>> m = flow.nn.Linear(2, 3).to("cuda")
            >>> assert m.weight.device == flow.device("cuda") and m.weight.requires_grad
        """
        if device is None:
            return self
        return self._apply(lambda t: Tensor(t, device=device))

    def zero_grad(self, set_to_none: bool = False) -> None:
        """Zeroes (or, with ``set_to_none``, drops) every parameter's gradient."""
        for param in self.parameters():
            if param.grad is not None:
                if set_to_none:
                    param.grad = None
                else:
                    param.grad.zeros_()

    # --- state ------------------------------------------------------------------------------
    def state_dict(
        self, destination: OrderedDict | None = None, prefix: str = "", keep_vars: bool = False
    ) -> OrderedDict:
        """Parameters and persistent buffers by dotted name: the tensors themselves, as v0.4
        (which accepted ``keep_vars`` and ignored it)."""
        destination = OrderedDict() if destination is None else destination
        for name, value in itertools.chain(self._parameters.items(), self._buffers.items()):
            if value is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = value
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination, prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix)
            if result is not None:
                destination = result
        return destination

    def load_state_dict(self, state_dict: dict[str, Any], strict: bool = True) -> _IncompatibleKeys:
        """Copies each entry (a Tensor or array) into the parameter or buffer of its name.
        Shape mismatches, and with ``strict`` missing and unexpected keys, raise
        ``RuntimeError`` listing them all (nothing is half-loaded: all checks come first)."""
        own = self.state_dict()
        state_dict = {k: _host_value(v) for k, v in state_dict.items()}
        missing = [k for k in own if k not in state_dict] if strict else []
        unexpected = [k for k in state_dict if k not in own] if strict else []
        errors = []
        if unexpected:
            errors.append(f"Unexpected key(s) in state_dict: {', '.join(map(repr, unexpected))}.")
        if missing:
            errors.insert(0, f"Missing key(s) in state_dict: {', '.join(map(repr, missing))}.")
        pairs = [(k, own[k], state_dict[k]) for k in own if k in state_dict]
        for key, target, value in pairs:
            shape = tuple(np.shape(value))
            if shape != tuple(target.shape):
                errors.append(
                    f"size mismatch for {key}: copying a param with shape {shape} from "
                    f"checkpoint, the shape in current model is {tuple(target.shape)}."
                )
        if errors:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                + "\n\t".join(errors)
            )
        for _, target, value in pairs:
            target.copy_(value)
        return _IncompatibleKeys(missing, unexpected)

    def extra_repr(self) -> str:
        """The module's own settings in its ``repr`` (subclasses override it)."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        lines += [
            f"({name}): {module!r}".replace("\n", "\n  ") for name, module in self._modules.items()
        ]
        if not lines:
            return f"{type(self).__name__}()"
        if len(lines) == 1 and not self._modules:
            return f"{type(self).__name__}({lines[0]})"
        return f"{type(self).__name__}(\n  " + "\n  ".join(lines) + "\n)"


def _host_value(value: Any) -> Any:
    """A state-dict entry as a Tensor or array: ``flow.load``'s variable blobs (anything with
    ``numpy()``) become NumPy arrays."""
    if isinstance(value, Tensor) or not hasattr(value, "numpy"):
        return value
    return value.numpy()
