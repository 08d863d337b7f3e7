"""The known, justified differences of the eager signature table (one line each), and the rows
fixed.

``KNOWN`` maps a row's path to the key of its reason in ``REASONS``; a path listed here must
still differ (the table's test says when one no longer does). ``FIXED`` lists the rows that
differed when the table was first generated and pass now (the count in
``docs/guides/migrating.md``).
"""

from __future__ import annotations

from . import _signature_reasons

REASONS = {
    "forwards": _signature_reasons.REASONS["forwards"],
    "sizes_or_sequence": (
        "takes OneFlow's one sequence (also by keyword) and PyTorch's sizes as separate "
        "arguments: x.reshape([2, 3]), x.reshape(shape=[2, 3]) and x.reshape(2, 3) all work"
    ),
    "undetermined": (
        "a setter of OneFlow's lazily created (undetermined) consistent tensors, whose own test "
        "is skipped in v0.4.0; flowjob's tensors hold values from construction and XLA places them"
    ),
    "consistent_placement": (
        "not provided: the placement of OneFlow's consistent tensors, which v0.4.0 marks as not "
        "working (its one test is skipped); flowjob's tensors are placed by XLA"
    ),
    "todo": "OneFlow v0.4.0's own method is a TODO() that raises: no program could call it",
    "module_dict_update": (
        "OneFlow's container.py redefines ModuleDict.update with ParameterDict's parameter name "
        "(parameters); flowjob keeps modules, and calls by position land the same"
    ),
    "forward_helper": (
        "an internal helper of OneFlow's NLLLoss.forward (gathers input[i, target[i]]), not "
        "part of the loss's interface"
    ),
}

KNOWN = {
    "name_scope": "forwards",
    "Tensor.reshape": "sizes_or_sequence",
    "Tensor.repeat": "sizes_or_sequence",
    "Tensor.set_placement": "undetermined",
    "Tensor.set_sbp": "undetermined",
    "Tensor.set_is_consistent": "undetermined",
    "Tensor.set_is_lazy": "undetermined",
    "Tensor.set_data_initializer": "undetermined",
    "Tensor.data_ptr": "todo",
    "placement": "consistent_placement",
    "nn.ModuleDict.update": "module_dict_update",
    "nn.NLLLoss.nllloss_1d": "forward_helper",
}

# Rows that differed when the table was first generated and pass now: path -> what changed.
FIXED = {
    "softmax": "the input is tensor",
    "arange": "dtype defaults to flow.int64 (the result's dtype is unchanged)",
    "autograd.backward": "the parameters are outputs, out_grads (PyTorch's tensors, grad_tensors "
    "before)",
    "enable_typing_check": "provided (it was missing): job functions must then annotate every "
    "parameter and the return",
}


def reason(path: str) -> str | None:
    """The one-line reason a row at ``path`` differs, or None."""
    key = KNOWN.get(path)
    return REASONS[key] if key else None
