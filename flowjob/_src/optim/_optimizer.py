"""The eager optimizers' base: parameter groups with their options, and one compiled update
per group and step.

A subclass names its options (``_defaults``), which of them shape the program (``_flags``:
momentum on or off, centered) and builds its update as an Optax chain of
``optimizer.transforms`` links (``_chain``), the same links the job optimizers run. Every
numeric option (``lr``, ``scale``, betas...) enters the compiled program as an input, so a
scheduler changing ``lr`` never recompiles. State lives in the optimizer as tensors named as
OneFlow v0.4 named them (``momentum_buf``, ``exp_avg``...); parameters are rebound in place, so
the modules holding them see the new values.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import jax
import numpy as np
import optax

from .. import autograd
from ..imperative import Tensor
from ..optimizer import transforms as T

__all__ = ["Optimizer", "ParamGroup"]


class ParamGroup:
    """Parameters updated with the same options: ``group.parameters`` (a list) and
    ``group.options`` (a dict: the optimizer's defaults, overridden by the group's own keys).
    ``group["lr"]`` reads and ``group["lr"] = 0.1`` sets an option, as PyTorch's groups do.

    Examples:
        >>> import flowjob.experimental as flow
        >>> w = flow.nn.Parameter(flow.Tensor([1.0]))
        >>> group = flow.optim.SGD([{"params": [w], "lr": 0.5}], lr=0.1).param_groups[0]
        >>> group["lr"], group.options["momentum"], len(group.parameters)
        (0.5, 0.0, 1)
    """

    def __init__(self, parameters: Any, default_options: Mapping[str, Any], who: str = "optim"):
        if isinstance(parameters, Mapping):
            if "params" not in parameters:
                raise ValueError(
                    f"{who}: a parameter group dict needs a 'params' key, got keys "
                    f"{sorted(parameters)}"
                )
            params = parameters["params"]
            own = {k: v for k, v in parameters.items() if k != "params"}
        else:
            params, own = parameters, {}
        params = [params] if isinstance(params, Tensor) else list(params)
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(f"{who}: parameters must be tensors, got {type(p).__name__}")
            if not p.is_leaf:
                raise ValueError(f"{who}: parameters must be leaf tensors, got one made by an op")
        self._parameters = params
        # one dict per group (v0.4 shared the defaults' dict between groups, so the last
        # group's options leaked into every group)
        self._options = {**default_options, **own}

    @property
    def options(self) -> dict:
        return self._options

    @property
    def parameters(self) -> list[Tensor]:
        return self._parameters

    def __getitem__(self, key: str) -> Any:
        return self._parameters if key == "params" else self._options[key]

    def __setitem__(self, key: str, value: Any) -> None:
        if key == "params":
            raise KeyError("ParamGroup: set options here; add parameters with add_param_group")
        self._options[key] = value

    def __contains__(self, key: str) -> bool:
        return key == "params" or key in self._options

    def __repr__(self) -> str:
        return f"ParamGroup({len(self._parameters)} parameters, {self._options})"


class Optimizer:
    """Base of ``flow.optim``'s optimizers (OneFlow v0.4's ``nn/optimizer/optimizer.py``).

    ``parameters`` is an iterable of tensors (``model.parameters()``) or of dicts
    ``{"params": [...], "lr": ..., ...}``, one group each. ``step(closure=None)`` updates every
    parameter whose ``.grad`` is not None; ``zero_grad(set_to_none=False)`` clears the grads.

    Examples:
        >>> import flowjob.experimental as flow
        >>> w = flow.nn.Parameter(flow.Tensor([1.0, 2.0]))
        >>> opt = flow.optim.SGD([w], lr=0.5)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w.numpy().tolist()
        [0.0, 0.0]
        >>> opt.zero_grad()
        >>> w.grad.numpy().tolist()
        [0.0, 0.0]
    """

    _name = "Optimizer"
    _defaults: dict[str, Any] = {}
    _slot_names: dict[str, str] = {}  # the transform's state suffix -> OneFlow's state name

    def __init__(self, parameters: Any, defaults: Mapping[str, Any]):
        self._default_options = dict(defaults)
        self._param_groups: list[ParamGroup] = []
        self._step_count = 0
        # OneFlow v0.4 kept per-parameter state dicts keyed by the parameter
        self.state: dict[Tensor, dict[str, Tensor]] = {}
        if isinstance(parameters, Tensor) or not isinstance(parameters, Iterable):
            raise TypeError(
                f"{self._name}: parameters must be an iterable of tensors or of dicts, got "
                f"{type(parameters).__name__}"
            )
        items = list(parameters)
        if not items:
            raise ValueError(f"{self._name}: got an empty parameter list")
        if all(isinstance(item, Mapping) for item in items):
            for item in items:
                self.add_param_group(item)
        else:
            self.add_param_group({"params": items})

    # -- groups --------------------------------------------------------------------------------
    @property
    def param_groups(self) -> list[ParamGroup]:
        """The parameter groups (``group["lr"]``, ``group.parameters``...)."""
        return self._param_groups

    def add_param_group(self, param_group: Mapping[str, Any]) -> None:
        """Adds ``{"params": [...], option: value...}`` as a group (defaults fill the rest)."""
        if not isinstance(param_group, Mapping):
            raise TypeError(
                f"{self._name}.add_param_group: expected a dict with 'params', got "
                f"{type(param_group).__name__}"
            )
        group = ParamGroup(param_group, self._default_options, self._name)
        seen = {id(p) for g in self._param_groups for p in g.parameters}
        if any(id(p) in seen for p in group.parameters):
            raise ValueError(f"{self._name}: a parameter appears in more than one group")
        self._check(group.options)
        self._param_groups.append(group)
        for p in group.parameters:
            self.state.setdefault(p, {})

    def _check(self, options: Mapping[str, Any]) -> None:
        """Raises ValueError for an option out of range (subclasses add theirs)."""
        _at_least(options, "lr", 0.0, self._name)

    # -- the step ------------------------------------------------------------------------------
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter with a gradient; returns ``closure()``'s loss.

        ``closure`` re-evaluates the model (and may call ``backward``): it runs with
        gradients recorded, the update itself under ``no_grad``.
        """
        loss = None
        if closure is not None:
            with autograd.enable_grad():
                loss = closure()
        with autograd.no_grad():
            for group in self._param_groups:
                self._update_group(group)
        self._step_count += 1
        return loss

    def zero_grad(self, set_to_none: bool = False) -> None:
        """Zeros every parameter's ``.grad`` in place, or sets it to None. (v0.4 also warned
        when no parameter had a gradient, a stopgap its source marks for removal; that warning
        fired at every loop that clears the grads before ``backward``, so it is left out.)"""
        for group in self._param_groups:
            for p in group.parameters:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    p.grad.zeros_()

    # -- what subclasses define ----------------------------------------------------------------
    @classmethod
    def _flags(cls, options: Mapping[str, Any]) -> tuple:
        """The options that change the program's structure (hashable)."""
        return ()

    @classmethod
    def _hyper(cls, options: Mapping[str, Any]) -> dict[str, Any]:
        """The numeric options the compiled update takes as inputs (``lr`` among them)."""
        return {"lr": options["lr"]}

    @classmethod
    def _chain(cls, hyper: Mapping[str, Any], *flags: Any) -> optax.GradientTransformation:
        """The update as an Optax chain; ``hyper``'s values are traced scalars."""
        raise NotImplementedError

    # -- machinery -----------------------------------------------------------------------------
    def _update_group(self, group: ParamGroup) -> None:
        live = {str(i): p for i, p in enumerate(group.parameters) if p.grad is not None}
        if not live:
            return
        key = (type(self), self._flags(group.options))
        hyper = {k: np.float32(v) for k, v in self._hyper(group.options).items()}
        params = {k: p._cell.array for k, p in live.items()}
        fresh = {k: params[k] for k, p in live.items() if not self.state[p]}
        if fresh:
            self._keep_state(live, _init_state(key, fresh, hyper))
        slots = {v: s for s, v in self._slot_names.items()}
        state = {
            f"{k}-{slots[name]}": tensor._cell.array
            for k, p in live.items()
            for name, tensor in self.state[p].items()
        }
        grads = {k: p.grad._cell.array for k, p in live.items()}
        new_params, new_state = _apply(key, params, grads, state, hyper, np.int32(self._step_count))
        for k, p in live.items():
            p._cell.array = new_params[k]
        self._keep_state(live, new_state)

    def _keep_state(self, live: Mapping[str, Tensor], flat: Mapping[str, Any]) -> None:
        order = list(self._slot_names)  # OneFlow's order of the states (the arrays come sorted)
        for name in sorted(flat, key=lambda n: order.index(n.split("-", 1)[1])):
            array = flat[name]
            k, suffix = name.split("-", 1)
            p = live[k]
            own = self.state[p]
            oneflow_name = self._slot_names[suffix]
            if oneflow_name in own:
                own[oneflow_name]._cell.array = array
            else:
                own[oneflow_name] = Tensor._wrap(array, where=p.device)

    # -- state ---------------------------------------------------------------------------------
    def state_dict(self) -> dict:
        """``{"state": {index: {name: Tensor}}, "param_groups": [options + "params": [index]]}``
        with parameters numbered across the groups in order (PyTorch's layout)."""
        index = {}
        groups = []
        for group in self._param_groups:
            ids = []
            for p in group.parameters:
                index[id(p)] = len(index)
                ids.append(index[id(p)])
            groups.append({**group.options, "params": ids})
        state = {
            index[id(p)]: dict(own)
            for group in self._param_groups
            for p in group.parameters
            if (own := self.state[p])
        }
        return {"state": state, "param_groups": groups, "step": self._step_count}

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Restores options and state saved by ``state_dict()`` (same groups and sizes)."""
        groups = state_dict["param_groups"]
        sizes = [len(g.parameters) for g in self._param_groups]
        if [len(g["params"]) for g in groups] != sizes:
            raise ValueError(
                f"{self._name}.load_state_dict: the saved groups hold "
                f"{[len(g['params']) for g in groups]} parameters, this optimizer's {sizes}"
            )
        saved = state_dict["state"]
        for group, loaded in zip(self._param_groups, groups):
            group.options.update({k: v for k, v in loaded.items() if k != "params"})
            for p, i in zip(group.parameters, loaded["params"]):
                self.state[p] = {
                    name: Tensor._wrap(np.asarray(value), where=p.device)
                    for name, value in saved.get(i, {}).items()
                }
        self._step_count = int(state_dict.get("step", 0))

    def __repr__(self) -> str:
        lines = [f"{self._name} ("]
        for i, group in enumerate(self._param_groups):
            lines.append(f"Parameter Group {i}")
            lines += [f"    {k}: {v}" for k, v in sorted(group.options.items())]
        return "\n".join(lines + [")"])


def _at_least(options: Mapping[str, Any], name: str, low: float, who: str) -> None:
    value = options[name]
    if not float(value) >= low:
        raise ValueError(f"{who}: {name} must be >= {low}, got {value}")


def _in_unit_interval(value: Any, name: str, who: str) -> None:
    if not 0.0 <= float(value) < 1.0:
        raise ValueError(f"{who}: {name} must be in [0, 1), got {value}")


@functools.partial(jax.jit, static_argnums=0)
def _init_state(key: tuple, params: dict, hyper: dict) -> dict:
    cls, flags = key
    return T.flatten_state(cls._chain(hyper, *flags).init(params))


@functools.partial(jax.jit, static_argnums=0)
def _apply(key: tuple, params: dict, grads: dict, state: dict, hyper: dict, step) -> tuple:
    cls, flags = key
    chain = optax.with_extra_args_support(cls._chain(hyper, *flags))
    template = jax.eval_shape(chain.init, params)
    updates, new_state = chain.update(
        grads,
        T.unflatten_state(template, state),
        params,
        learning_rate=hyper["lr"],
        step=step,
    )
    return optax.apply_updates(params, updates), T.flatten_state(new_state)
